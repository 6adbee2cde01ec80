"""Executor: a Symbol bound to arrays (MXNet's ``mx.executor.Executor``).

Binding compiles the graph into a plan: the nodes in topological order, each
a call into its operator's torch computation with the indices of its input
entries.  ``forward(is_train=True)`` records autograd only when some argument
has a gradient request; ``backward`` asks autograd for the gradients of the
requested arguments and writes ('write') or adds ('add') them into the bound
gradient arrays.  Aux states (BatchNorm's moving statistics) are updated in
place by the operators.  The plan is the unit the optimisations rewrite without changing
the layers above: the inference plan (``inference.py``), fused recurrent cells
(``fusion.py``) and the compiled training step (``compiled.py``: forward + backward traced
into one graph, run without autograd; ``MXTORCH_COMPILE``).
"""
from __future__ import annotations

import warnings

import numpy as np
import torch

from ..base import MXNetError, MXNetTypeError, MXNetValueError, OperatorRunError, numpy_dtype
from ..context import Context, current_context
from ..ndarray import pending
from ..ndarray.ndarray import NDArray, to_torch_dtype
from ..autograd import head_gradient
from ..ops.registry import gradient_carrier, product
from ..symbol.symbol import Symbol, _aux_variable_ids
from .inference import InferencePlan
from .compiled import CompiledGradients, TrainingStep
from .fusion import fuse_recurrent_chains, fusion_enabled
from .reachability import gradient_inputs, reached_variables

__all__ = ["Executor"]

_GRAD_REQS = ("write", "add", "null", "inplace")


def normalize_grad_req(grad_req, names):
    """``{name: req}`` from a str, a list aligned with ``names`` or a dict (missing -> 'null'; entries
    for other names are ignored with a warning, as MXNet ignored them)."""
    if isinstance(grad_req, str):
        result = {name: grad_req for name in names}
    elif isinstance(grad_req, (list, tuple)):
        if len(grad_req) != len(names):
            raise MXNetError(f"grad_req: a list must have one entry per argument ({len(names)}), got {len(grad_req)}")
        result = dict(zip(names, grad_req))
    elif isinstance(grad_req, dict):
        unknown = set(grad_req) - set(names)
        if unknown:
            # MXNet ignored dict entries for names the symbol does not have (a Convolution with no_bias)
            warnings.warn(f"grad_req: {sorted(unknown)} are not arguments of the symbol and are ignored; "
                          f"arguments are {names}", stacklevel=3)
        result = {name: grad_req.get(name, "null") for name in names}
    else:
        raise MXNetError(f"grad_req must be a str, list or dict, got {type(grad_req).__name__}")
    for name, req in result.items():
        if req not in _GRAD_REQS:
            raise MXNetError(f"grad_req for {name!r} must be one of {_GRAD_REQS}, got {req!r}")
        if req == "inplace":
            result[name] = "write"
    return result


def node_contexts(symbol, ctx, group2ctx):
    """Model-parallel placement (MXNet's ``group2ctx``): ``{id(node): Context}`` for every node.

    An operator node whose ``__ctx_group__`` attribute (set with ``mx.AttrScope(ctx_group=...)``)
    names a key of ``group2ctx`` runs on that context, any other on ``ctx``.  A variable takes
    its own group's context, or else that of the first operator reading it, so parameters live
    where they are used.  ``group2ctx`` values are Contexts; MXNetError otherwise.
    """
    from ..symbol.symbol import topological_order
    nodes = topological_order(symbol._outputs)
    group2ctx = group2ctx or {}
    for group, value in group2ctx.items():
        if not isinstance(value, Context):
            raise MXNetError(f"bind: group2ctx[{group!r}] must be a Context such as mx.gpu(1), got {value!r}")
    placed = {}
    for node in nodes:
        group = node.attrs.get("__ctx_group__")
        if group in group2ctx:
            placed[id(node)] = group2ctx[group]
    for node in nodes:
        if node.op is None:
            continue
        placed.setdefault(id(node), ctx)
        for child, _ in node.inputs:
            if child.op is None:
                placed.setdefault(id(child), placed[id(node)])
    for node in nodes:
        placed.setdefault(id(node), ctx)
    return placed


def variable_contexts(symbol, ctx, group2ctx):
    """``{variable name: Context}`` of ``node_contexts`` (where bind allocates each array)."""
    from ..symbol.symbol import topological_order
    placed = node_contexts(symbol, ctx, group2ctx)
    return {node.name: placed[id(node)] for node in topological_order(symbol._outputs) if node.op is None}


class _Step:
    __slots__ = ("node", "op", "inputs", "aux", "outputs", "constant_shape", "context")

    def __init__(self, node, op, inputs, aux, outputs, constant_shape=None, context=None):
        self.node = node
        self.op = op
        self.inputs = inputs
        self.aux = aux
        self.outputs = outputs
        self.constant_shape = constant_shape
        # with group2ctx: the Context this node runs on (inputs are moved to its device)
        self.context = context


def _dense_views(results, inputs):
    """The outputs of one step, with each strided view of an input (slice, transpose, ...)
    copied into dense row-major memory: the layout the imperative call gives the same result
    (``mx.nd`` results own their memory), so the operators after it compute on identically
    laid-out data and a hybridized block reproduces its imperative values bit for bit.
    Contiguous views (reshape, flatten) are kept as they are."""
    dense = []
    for tensor in results:
        if tensor.is_contiguous() or not tensor.numel():
            dense.append(tensor)
            continue
        # storage identity without reading data pointers (the compiled step traces with fake tensors)
        shared = any(t.numel() and torch._C._is_alias_of(tensor, t) for t in inputs)
        dense.append(tensor.contiguous() if shared else tensor)
    return dense


class _Recording:
    """What a forward recorded under autograd leaves for the next ``backward``: the output
    tensors, the ``(argument index, leaf tensor)`` pairs gradients are asked for, and, with a
    monitor installed, ``(node name, input tensors)`` per node (None without one)."""
    __slots__ = ("outputs", "leaves", "monitored")

    def __init__(self, outputs, leaves, monitored):
        self.outputs = outputs
        self.leaves = leaves
        self.monitored = monitored


class Executor:
    """A bound graph.  ``arg_arrays`` / ``grad_arrays`` / ``aux_arrays`` are lists aligned
    with ``list_arguments()`` / ``list_auxiliary_states()`` (``grad_arrays`` holds None
    where the request is 'null'); ``outputs`` holds one NDArray per output, the same
    objects across calls (their content changes with each forward, as in MXNet).
    """

    def __init__(self, symbol, ctx, args, args_grad=None, grad_req="write", aux_states=None,
                 group2ctx=None, inferred=None):
        if not isinstance(symbol, Symbol):
            raise MXNetError(f"Executor: expected a Symbol, got {type(symbol).__name__}")
        self._symbol = symbol
        self._ctx = ctx if isinstance(ctx, Context) else current_context()
        self._group2ctx = group2ctx
        arg_names = symbol.list_arguments()
        aux_names = symbol.list_auxiliary_states()
        self._arg_names = arg_names
        self._aux_names = aux_names
        self._arg_positions = {name: i for i, name in enumerate(arg_names)}   # read per batch (module/)
        self.arg_arrays = self._as_list(args, arg_names, "args", required=True)
        self.aux_arrays = self._as_list(aux_states, aux_names, "aux_states", required=True)
        self._grad_req = normalize_grad_req(grad_req, arg_names)
        grads = self._as_list(args_grad, arg_names, "args_grad", required=False)
        for index, name in enumerate(arg_names):
            if self._grad_req[name] != "null" and grads[index] is None:
                # as in MXNet, an argument without a gradient array (args_grad None, or a dict or
                # list without it) gets no gradient
                self._grad_req[name] = "null"
            if self._grad_req[name] == "null":
                grads[index] = None if args_grad is None or grads[index] is None else grads[index]
        self.grad_arrays = grads
        for name, array, grad in zip(arg_names, self.arg_arrays, self.grad_arrays):
            if grad is not None and grad.shape != array.shape:
                raise MXNetError(f"bind: gradient array of {name!r} has shape {grad.shape}, "
                                 f"the argument has {array.shape}")
        self._monitor_callback = None
        self._monitor_all = False
        self._placement = node_contexts(symbol, self._ctx, group2ctx) if group2ctx else None
        self._build_plan(inferred)
        self._device = self._ctx.torch_device
        # indices of the arguments that get gradients (fixed at bind time, read every forward)
        self._gradient_indices = frozenset(i for i, name in enumerate(arg_names) if self._grad_req[name] != "null")
        # of those, the ones a gradient can reach (not only through BlockGrad): the recorded leaves;
        # the others get zeros ('write'), as MXNet's zero-gradient propagation gave them
        reachable = reached_variables(symbol, gradient_inputs)
        self._recorded_indices = frozenset(i for i in self._gradient_indices if arg_names[i] in reachable)
        output_contexts = [self._ctx if self._placement is None else self._placement[id(node)]
                           for node, _ in symbol._outputs]
        self.outputs = [NDArray(torch.zeros(shape, dtype=to_torch_dtype(dtype), device=context.torch_device),
                                context) for shape, dtype, context in
                        zip(self._output_shapes, self._output_types, output_contexts)]
        # what the last forward recorded for backward: a _Recording, the compiled step's
        # CompiledGradients, or None; set by every forward, taken by backward
        self._recorded = None
        self._output_memory = None          # the outputs of the executor this one was reshaped from
        self._failure = None                # the pending error of the last forward (ndarray.pending)
        # per bound variable: (slot, kind, index, whether it is a leaf when a gradient is recorded)
        self._variables = [(slot, kind, index, kind == "arg" and index in self._recorded_indices)
                           for slot, kind, index in self._variable_slots]
        # bound without gradients: forward(is_train=False) runs the folded inference plan (inference.py)
        self._inference = InferencePlan(self) if not self._recorded_indices else None
        # bound with gradients: forward(is_train=True) + backward may run as one traced graph (compiled.py)
        self._training_step = TrainingStep(self) if self._recorded_indices else None

    # -- construction ---------------------------------------------------------------------------
    @staticmethod
    def _as_list(values, names, label, required):
        if values is None:
            if required and names:
                raise MXNetError(f"bind: {label} is required for {names}")
            return [None] * len(names)
        if isinstance(values, dict):
            missing = [n for n in names if n not in values]
            if missing and required:
                raise MXNetValueError(f"bind: {label} is missing arrays for {missing}")
            return [values.get(n) for n in names]
        values = list(values)
        if len(values) != len(names):
            raise MXNetError(f"bind: {label} has {len(values)} arrays, the symbol needs {len(names)} ({names})")
        for name, value in zip(names, values):
            if value is not None and not isinstance(value, NDArray):
                raise MXNetError(f"bind: {label} entry {name!r} must be an NDArray, got {type(value).__name__}")
        return values

    @classmethod
    def simple_bind(cls, symbol, ctx, grad_req="write", type_dict=None, group2ctx=None, shared_arg_names=None,
                    shared_exec=None, shared_buffer=None, shapes=None):
        from ..symbol.inference import infer_graph
        shapes = dict(shapes or {})
        # MXNet read only tuple values as shapes and ignored the rest (simple_bind(..., axis=0))
        ignored = sorted(k for k, v in shapes.items() if not isinstance(v, (tuple, list)) and v is not None)
        if ignored:
            warnings.warn(f"simple_bind: keyword arguments {ignored} are not shapes and have no effect "
                          f"(as in MXNet)", stacklevel=3)
            shapes = {k: v for k, v in shapes.items() if k not in ignored}
        arg_names = symbol.list_arguments()
        aux_names = symbol.list_auxiliary_states()
        types = {k: numpy_dtype(v) for k, v in (type_dict or {}).items()}
        try:
            known = symbol._given((), shapes, "infer_shape")
            inferred = infer_graph(symbol, known, {k: v for k, v in types.items() if k in set(arg_names + aux_names)})
        except MXNetError as error:
            raise MXNetError(f"simple_bind: {error}") from None
        arg_shapes, aux_shapes = [s or () for s in inferred.arg_shapes], [s or () for s in inferred.aux_shapes]
        incomplete = [n for n, s in zip(arg_names + aux_names, arg_shapes + aux_shapes)
                      if not s or not all(d > 0 for d in s)]
        incomplete = [n for n in incomplete if not _is_zero_size_given(n, shapes)]
        if incomplete:
            raise MXNetError(f"simple_bind: cannot infer the shapes of {incomplete} from the given input shapes "
                             f"{shapes}; give them as keyword arguments")
        arg_types = [t or np.float32 for t in inferred.arg_types]
        aux_types = [t or np.float32 for t in inferred.aux_types]
        if ctx is None:
            ctx = current_context()
        if not isinstance(ctx, Context):
            raise MXNetError(f"simple_bind: ctx must be a Context such as mx.cpu(), got {ctx!r}")
        requests = normalize_grad_req(grad_req, arg_names)
        placement = variable_contexts(symbol, ctx, group2ctx) if group2ctx else {}
        shared_names = set(shared_arg_names or [])
        shared_args = shared_exec.arg_dict if shared_exec is not None else {}
        shared_grads = shared_exec.grad_dict if shared_exec is not None else {}
        shared_aux = shared_exec.aux_dict if shared_exec is not None else {}

        def reuse(source, name, shape, dtype):
            """``source[name]`` when it exists with this shape and dtype, else a new zero array."""
            existing = source.get(name)
            if existing is not None and existing.shape == tuple(shape) and numpy_dtype(existing.dtype) == numpy_dtype(dtype):
                return existing
            context = placement.get(name, ctx)
            return NDArray(torch.zeros(tuple(shape), dtype=to_torch_dtype(dtype), device=context.torch_device),
                           context)

        args, grads = [], []
        for name, shape, dtype in zip(arg_names, arg_shapes, arg_types):
            if name in shared_names:
                # parameters named in shared_arg_names share the other executor's arrays (MXNet)
                array = reuse(shared_args, name, shape, dtype)
                grad = reuse(shared_grads, name, shape, dtype) if requests[name] != "null" else None
            else:
                # other inputs reuse same-shaped arrays of shared_buffer and are recorded in it
                array = reuse(shared_buffer if shared_buffer is not None else {}, name, shape, dtype)
                if shared_buffer is not None:
                    shared_buffer[name] = array
                grad = reuse({}, name, shape, dtype) if requests[name] != "null" else None
            args.append(array)
            grads.append(grad)
        aux = [reuse(shared_aux, name, shape, dtype) for name, shape, dtype in zip(aux_names, aux_shapes, aux_types)]
        return cls(symbol, ctx, args, grads, requests, aux, group2ctx=group2ctx, inferred=inferred)

    def _build_plan(self, inferred=None):
        """The steps of the graph.  ``inferred``: the binder's GraphInference
        (symbol/inference.py), used when the bound arrays have its shapes and dtypes, so a bind
        infers the graph once; otherwise shapes and dtypes are inferred from the arrays."""
        from ..symbol.inference import graph_shapes, graph_types
        symbol = self._symbol
        arrays = self.arg_arrays + self.aux_arrays
        if inferred is not None and inferred.matches([a.shape for a in self.arg_arrays],
                                                     [a.shape for a in self.aux_arrays]):
            nodes, shapes = inferred.nodes, inferred.shapes
        else:
            given = {name: array.shape for name, array in zip(self._arg_names, self.arg_arrays)}
            given.update({name: array.shape for name, array in zip(self._aux_names, self.aux_arrays)})
            nodes, shapes, inferred = *graph_shapes(symbol, given), None
        dtypes = [np.dtype(array.dtype) for array in arrays]
        if inferred is not None and all(t is not None and np.dtype(t) == d for t, d in
                                        zip(inferred.arg_types + inferred.aux_types, dtypes)):
            types = inferred.types
        else:
            _, types = graph_types(symbol, dict(zip(self._arg_names + self._aux_names, dtypes)))
        aux_ids = _aux_variable_ids(nodes)
        slot = {}
        self._variable_slots = []   # (slot, 'arg'|'aux', index)
        arg_index = {name: i for i, name in enumerate(self._arg_names)}
        aux_index = {name: i for i, name in enumerate(self._aux_names)}
        steps = []
        count = 0
        # common-subexpression elimination (MXNet's MXNET_ELIMINATE_COMMON_EXPR, on by default): a
        # deterministic node with the operator, attributes and inputs of an earlier one reuses its
        # outputs instead of computing them again
        eliminate = _eliminate_common_expressions()
        computed = {}
        self._merged_nodes = {}       # id(node) -> the equal node computed in its place
        for node in nodes:
            if node.op is None:
                slot[(id(node), 0)] = count
                kind = "aux" if id(node) in aux_ids else "arg"
                self._variable_slots.append((count, kind, aux_index[node.name] if kind == "aux"
                                             else arg_index[node.name]))
                count += 1
                continue
            inputs = [slot[(id(child), index)] for child, index in node.inputs]
            if eliminate and node.op.deterministic and not node.op.auxiliary_states():
                key = (node.op.json_name, tuple(sorted(node.op.attrs.items())), tuple(inputs))
                if key in computed:
                    earlier = computed[key]
                    self._merged_nodes[id(node)] = earlier
                    for i in range(node.op.num_outputs()):
                        slot[(id(node), i)] = slot[(id(earlier), i)]
                    continue
                computed[key] = node
            n_args = len(node.op.arguments())
            outputs = []
            for i in range(node.op.num_outputs()):
                slot[(id(node), i)] = count
                outputs.append(count)
                count += 1
            constant_shape = None
            if hasattr(node.op, "create"):
                constant_shape = shapes.get((id(node), 0))
                if constant_shape is None or not all(d > 0 for d in constant_shape):
                    raise MXNetError(f"bind: cannot infer the shape of {node.name!r} ({node.op.name}); "
                                     f"inferred {constant_shape}")
            context = None if self._placement is None else self._placement[id(node)]
            steps.append(_Step(node, node.op, inputs[:n_args], inputs[n_args:], outputs, constant_shape, context))
        self._steps = steps
        self._num_slots = count
        self._output_slots = [slot[(id(node), index)] for node, index in symbol._outputs]
        # outputs holding the same value as an earlier output (merged nodes): handed out as copies
        self._duplicate_outputs = [i for i, s in enumerate(self._output_slots) if s in self._output_slots[:i]]
        self._output_shapes = [shapes.get((id(node), index)) or () for node, index in symbol._outputs]
        self._output_types = [types.get((id(node), index)) or np.dtype(np.float32) for node, index in symbol._outputs]
        self._output_is_loss = [node.op is not None and node.op.is_loss for node, index in symbol._outputs]
        # the plan forward runs: unrolled LSTMCell / GRUCell runs fused (fusion.py); ``_steps`` stays the
        # node-for-node plan, run instead when a monitor reports every node
        self._run_steps = steps
        # {slot: inferred shape}, read by the inference plan
        self._slot_shapes = slot_shapes = {index: shapes.get(key) for key, index in slot.items()}
        self._slot_itemsize = {index: np.dtype(types[key]).itemsize for key, index in slot.items()
                               if types.get(key) is not None}
        if self._placement is None and fusion_enabled():
            slot_types = {index: np.dtype(types[key]).name for key, index in slot.items() if types.get(key) is not None}
            self._run_steps = fuse_recurrent_chains(
                steps, self._output_slots, slot_shapes, slot_types,
                lambda node, op, inputs, outputs: _Step(node, op, inputs, [], outputs))
        self._release = _last_uses(self._run_steps, self._output_slots)

    # -- dictionaries ------------------------------------------------------------------------------
    @property
    def arg_dict(self):
        return dict(zip(self._arg_names, self.arg_arrays))

    @property
    def grad_dict(self):
        return {n: g for n, g in zip(self._arg_names, self.grad_arrays) if g is not None}

    @property
    def aux_dict(self):
        return dict(zip(self._aux_names, self.aux_arrays))

    @property
    def output_dict(self):
        return dict(zip(self._symbol.list_outputs(), self.outputs))

    # -- running ----------------------------------------------------------------------------------
    def forward(self, is_train=False, **kwargs):
        """Run the graph.  Keyword arrays (NDArray or numpy) are first copied into the bound
        arguments of those names; a shape mismatch raises MXNetError naming the input and
        both shapes.  Returns ``outputs``."""
        if kwargs:
            arg_dict = self.arg_dict
            for name, value in kwargs.items():
                if name not in arg_dict:
                    raise MXNetTypeError(f"forward: {name!r} is not an argument of the bound symbol; "
                                     f"arguments are {self._arg_names}")
                target = arg_dict[name]
                shape = tuple(value.shape)
                if shape != target.shape:
                    raise MXNetValueError(f"forward: input {name!r} has shape {shape}, the executor is bound "
                                     f"with {target.shape}; use reshape() to change shapes")
                target[:] = value
        self._run_forward(is_train, record_inference=False)
        return self.outputs

    def _run_forward(self, is_train, record_inference):
        """One forward pass with MXNet's late error reporting.  ``record_inference``: record an
        inference-mode forward for the gradients ``backward`` computes after
        ``forward(is_train=False)``."""
        try:
            self._forward(is_train, record_inference)
            # an argument computed by a failed operator passes its pending error on
            failure = None
            if pending.any_pending():
                failure = pending.failure_of([array._tensor for array in list(self.arg_arrays) + list(self.aux_arrays)])
        except OperatorRunError as error:
            # an error of an operator's computation: as MXNet's engine, reported at the next
            # wait on the outputs (asnumpy, wait_to_read, waitall), which hold zeros until then
            for array in self.outputs:
                array.use_storage(torch.zeros_like(array._tensor))
            self._recorded = None
            failure = pending.fail(error, [])
        self._failure = failure
        if failure is not None:
            pending.mark([array._tensor for array in self.outputs], failure)

    def _forward(self, is_train, record_inference):
        if (self._inference is not None and not is_train and not record_inference
                and self._monitor_callback is None):
            for array, tensor in zip(self.outputs, self._inference.run()):
                array.use_storage(tensor)
            self._write_shared_outputs()
            self._recorded = None
            return
        # an inference forward records only when backward asks for its gradients (MXNet computes
        # gradients after forward(is_train=False) too); see backward
        need_grad = (is_train or record_inference) and bool(self._recorded_indices)
        if (need_grad and not record_inference and self._monitor_callback is None
                and self._training_step.active):
            compiled = self._training_step.run(is_train)
            if compiled is not None:
                outputs, self._recorded = compiled
                for array, tensor in zip(self.outputs, outputs):
                    array.use_storage(tensor)
                self._write_shared_outputs()
                return
        values = [None] * self._num_slots
        leaves = []
        args, aux = self.arg_arrays, self.aux_arrays
        for slot_index, kind, index, leaf in self._variables:
            if kind == "aux":
                values[slot_index] = aux[index]._tensor
                continue
            tensor = args[index]._tensor
            if need_grad and leaf and (tensor.is_floating_point() or tensor.is_complex()):
                tensor = tensor.detach().requires_grad_(True)
                leaves.append((index, tensor))
            elif need_grad and leaf and tensor.dtype != torch.bool:
                # an integer argument: MXNet differentiated it through operators that declare a
                # gradient (Cast); torch records it on a float carrier (registry.gradient_carrier)
                tensor = tensor.detach().clone()
                carrier = torch.zeros(tensor.shape, dtype=torch.float32, device=tensor.device,
                                      requires_grad=True)
                tensor._mx_declared_gradient_carrier = carrier
                leaves.append((index, carrier))
            values[slot_index] = tensor
        with torch.set_grad_enabled(need_grad):
            self._execute(values, is_train)
        outputs = [values[i] for i in self._output_slots]
        for array, tensor in zip(self.outputs, outputs):
            # when a backward pass is recorded, autograd may have saved this very tensor
            # (relu, sigmoid, softmax keep their output): hand out a copy, so that a program
            # writing into an output in place (``out += x``, as MXNet allowed) leaves the
            # gradient intact
            array.use_storage(tensor.detach().clone() if need_grad else tensor)
        self._write_shared_outputs()
        if not need_grad:
            self._recorded = None
            return
        # with a monitor, backward also reports each node's input gradients (MXNet's
        # ``<node>_backward_output<i>`` entries); keep the input tensors for that
        monitored = None
        if self._monitor_callback is not None:
            monitored = [(step.node.name, [values[i] for i in step.inputs]) for step in self._steps if step.inputs]
        self._recorded = _Recording(outputs, leaves, monitored)

    def _write_shared_outputs(self):
        """Also gives each output that repeats an earlier output's value its own memory.
        For an executor made by ``reshape``: copy each output into the first elements of the
        original executor's output array (same dtype and device, enough elements) and hold a
        view of that memory, so both executors see the values as MXNet's shared memory did."""
        for position in self._duplicate_outputs:
            self.outputs[position].use_storage(self.outputs[position]._tensor.clone())
        if self._output_memory is None:
            return
        for array, base in zip(self.outputs, self._output_memory):
            target, source = base._tensor, array._tensor
            count = source.numel()
            if (target.dtype != source.dtype or target.device != source.device
                    or target.numel() < count or not target.is_contiguous()):
                continue
            view = target.view(-1)[:count].view(source.shape)
            with torch.no_grad():
                view.copy_(source)
            array.use_storage(view)

    def run_tensors(self, arg_tensors, aux_tensors, is_train=False):
        """Run the plan on torch tensors (aligned with ``list_arguments()`` /
        ``list_auxiliary_states()``) under the caller's autograd mode and return the output
        tensors: the bound arrays are neither read nor written, so gradients flow back into
        whatever computation produced the given tensors (Gluon's hybridized blocks inside
        ``mx.autograd.record()``).  Aux tensors are updated in place by the operators."""
        values = [None] * self._num_slots
        for slot_index, kind, index in self._variable_slots:
            values[slot_index] = aux_tensors[index] if kind == "aux" else arg_tensors[index]
        self._execute(values, is_train)
        return [values[i] for i in self._output_slots]

    def _execute(self, values, is_train):
        """Run every step of the plan, reading and writing the slot list ``values``."""
        monitor = self._monitor_callback
        # without a monitor (which reads every value afterwards), each value is dropped after its
        # last reader: what autograd does not keep is freed during the forward pass, not after it
        steps, release = (self._steps, None) if monitor is not None else (self._run_steps, self._release)
        for position, step in enumerate(steps):
            if step.context is not None:
                # model parallelism: copy the inputs onto this node's device (a no-op when
                # they are there already; differentiable, so gradients flow back across)
                device = step.context.torch_device
                for i in step.inputs:
                    if values[i].device != device:
                        values[i] = values[i].to(device)
            if monitor is not None and self._monitor_all:
                self._monitor_inputs(monitor, step, values)
            if step.constant_shape is not None:
                device = self._device if step.context is None else step.context.torch_device
                results = [step.op.create(step.constant_shape, device)]
            else:
                try:
                    results = step.op.apply(is_train, [values[i] for i in step.inputs],
                                            [values[i] for i in step.aux])
                except MXNetError as error:
                    # the node's name added; an OperatorRunError stays one (reported late)
                    kind = OperatorRunError if isinstance(error, OperatorRunError) else MXNetError
                    raise kind(f"Error in operator {step.node.name}: {error}") from None
                except RuntimeError as error:
                    shapes = [tuple(values[i].shape) for i in step.inputs]
                    raise MXNetError(f"Error in operator {step.node.name} ({step.op.name}) with input "
                                     f"shapes {shapes}: {error}") from None
            if step.constant_shape is None:
                results = _dense_views(results, [values[i] for i in step.inputs])
            for slot_index, tensor in zip(step.outputs, results):
                values[slot_index] = tensor
            if release is not None:
                for slot_index in release[position]:
                    values[slot_index] = None
            if monitor is not None:
                names = step.node.output_names()
                context = self._ctx if step.context is None else step.context
                for name, tensor in zip(names[:step.op.num_visible_outputs()], results):
                    monitor(name, NDArray(tensor.detach(), context))

    def backward(self, out_grads=None, is_train=True):
        """Gradients of the outputs with respect to the arguments whose grad_req is not 'null'.

        ``out_grads`` (NDArray or list, one per output) are the head gradients; loss heads
        (``SoftmaxOutput`` and the other ``*Output`` operators) ignore theirs.  Outputs with no
        head gradient given use ones.  After ``forward(is_train=False)`` the gradients are those of the
        inference-mode computation, as in MXNet.  Raises MXNetError when no forward ran since the
        last backward.  After a forward whose computation failed (an ``OperatorRunError``,
        reported late as MXNet's engine did) the gradient arrays carry the same pending error.
        """
        if self._failure is not None and self._failure.error is not None:
            pending.mark([grad._tensor for grad in self.grad_arrays if grad is not None], self._failure)
            return
        if self._gradient_indices and not self._recorded_indices:
            # every gradient is blocked (BlockGrad): 'write' arguments get zeros
            for index in self._gradient_indices:
                if self._grad_req[self._arg_names[index]] == "write" and self.grad_arrays[index] is not None:
                    self.grad_arrays[index]._tensor.zero_()
            return
        if self._recorded is None and self._gradient_indices:
            # after forward(is_train=False), or before any forward, MXNet still differentiates the
            # bound graph: run it (again) recorded, in inference mode
            self._run_forward(is_train=False, record_inference=True)
        if self._recorded is None:
            if not self._gradient_indices:
                return
            raise MXNetError("backward: call forward(is_train=True) first (the last forward did not record "
                             "a training graph)")
        recorded, self._recorded = self._recorded, None
        outputs = recorded.outputs
        if out_grads is not None and not isinstance(out_grads, (list, tuple)):
            out_grads = [out_grads]
        if out_grads is not None and len(out_grads) > len(outputs):
            # MXNet 1.9.1 read the first len(outputs) head gradients and ignored the rest
            warnings.warn(f"Executor.backward: {len(out_grads)} head gradients for {len(outputs)} outputs; "
                          f"the extra {len(out_grads) - len(outputs)} are ignored, as in MXNet")
            out_grads = list(out_grads)[:len(outputs)]
        if out_grads is not None and len(out_grads) != len(outputs):
            if len(out_grads) < len(outputs) and all(l for l in self._output_is_loss[len(out_grads):]):
                out_grads = list(out_grads) + [None] * (len(outputs) - len(out_grads))
            else:
                raise MXNetError(f"backward: {len(out_grads)} head gradients for {len(outputs)} outputs")
        if isinstance(recorded, CompiledGradients):
            # the compiled step computed the gradients at forward time (loss heads only: they
            # ignore head gradients); given head gradients are still checked
            self._check_head_gradients(outputs, out_grads, recorded.carrying)
            self._store_gradients(list(zip(recorded.leaves, recorded.grads)), set())
            return
        heads, head_grads, _ = self._heads(outputs, out_grads)
        leaves = recorded.leaves
        monitored = recorded.monitored if self._monitor_callback is not None else None
        watched = [tensor for _, inputs in (monitored or []) for tensor in inputs
                   if tensor.requires_grad]
        if heads and (leaves or watched):
            found = torch.autograd.grad(heads, [leaf for _, leaf in leaves] + watched, head_grads,
                                        allow_unused=True)
            grads = found[:len(leaves)]
            watched_grads = {id(t): g for t, g in zip(watched, found[len(leaves):])}
        else:
            grads = [None] * len(leaves)
            watched_grads = {}
        if monitored:
            self._report_backward(monitored, watched_grads)
        head_storage = {h.untyped_storage().data_ptr() for h in head_grads}
        self._store_gradients([(index, grad) for (index, _), grad in zip(leaves, grads)], head_storage)

    def _heads(self, outputs, out_grads):
        """``(heads, head_grads, carrying)``: the output tensors that carry a gradient, the head
        gradient of each (``out_grads[i]`` checked against the output's shape; a loss head given
        none gets expanded ones), and per output whether it carries one."""
        heads, head_grads, carrying = [], [], []
        for position, tensor in enumerate(outputs):
            tensor = gradient_carrier(tensor)
            carrying.append(tensor.requires_grad)
            if not tensor.requires_grad:
                continue
            given = None if out_grads is None else out_grads[position]
            if given is None and self._output_is_loss[position]:
                # a loss head ignores its head gradient: ones without filling an output-sized buffer
                grad = torch.ones((), dtype=tensor.dtype, device=tensor.device).expand(tensor.shape)
            else:
                grad = head_gradient(tensor, given, self._head_mismatch(position, tensor))
            heads.append(tensor)
            head_grads.append(grad)
        return heads, head_grads, carrying

    def _head_mismatch(self, position, tensor):
        return (lambda shape: f"backward: head gradient {position} has shape {shape}, output "
                              f"{self._symbol.list_outputs()[position]!r} has {tuple(tensor.shape)}")

    def _check_head_gradients(self, outputs, out_grads, carrying):
        """The shape check of ``_heads`` for head gradients given to a compiled step."""
        for position, (given, carries) in enumerate(zip(out_grads or (), carrying)):
            if given is not None and carries:
                head_gradient(outputs[position], given, self._head_mismatch(position, outputs[position]))

    def _store_gradients(self, pairs, head_storage):
        """Write ``(argument index, gradient or None)`` pairs into the gradient arrays by their
        requests ('write' adopts autograd's fresh buffer where it can, 'add' accumulates);
        gradient arguments not in ``pairs`` get zeros under 'write'."""
        with torch.no_grad():
            # integer arguments carry no gradient: 'write' gives them zeros, as MXNet does
            differentiated = {index for index, _ in pairs}
            for index in self._gradient_indices - differentiated:
                target = self.grad_arrays[index]
                if target is not None and self._grad_req[self._arg_names[index]] == "write":
                    target._tensor.zero_()
            for index, grad in pairs:
                target = self.grad_arrays[index]
                if target is None:
                    continue
                request = self._grad_req[self._arg_names[index]]
                if request == "add":
                    if grad is not None:
                        target._tensor.add_(grad.to(target._tensor.dtype))
                elif grad is None:
                    target._tensor.zero_()
                elif _can_adopt(grad, target._tensor, head_storage):
                    # 'write': take autograd's fresh buffer instead of copying it; every holder
                    # of the gradient NDArray (updater, kvstore, shared modules) sees it
                    target.use_storage(grad)
                else:
                    target._tensor.copy_(grad)

    def _report_backward(self, monitored, watched_grads):
        """Monitor entries ``<node>_backward_output`` (one input) or ``<node>_backward_output<i>``:
        the gradient reaching each input of each node (zeros where none flows)."""
        for node_name, inputs in monitored:
            for position, tensor in enumerate(inputs):
                grad = watched_grads.get(id(tensor))
                if grad is None:
                    grad = torch.zeros_like(tensor.detach())
                suffix = "" if len(inputs) == 1 else str(position)
                self._monitor_callback(f"{node_name}_backward_output{suffix}", NDArray(grad.detach(), self._ctx))

    def _monitor_inputs(self, callback, step, values):
        """``monitor_all``: before a node runs, each input as ``<node>_<input name>`` (argument
        and auxiliary-state names of the operator, or ``input0``, ... where MXNet registered none:
        ``Operator.monitor_input_names``), a variable input first under its own name, as MXNet
        1.9.1 reported them."""
        names = step.op.monitor_input_names()
        context = self._ctx if step.context is None else step.context     # the inputs were copied there
        for (child, _), name, slot_index in zip(step.node.inputs, names, step.inputs + step.aux):
            tensor = values[slot_index].detach()
            if child.op is None:
                callback(child.name, NDArray(tensor, context))
            callback(f"{step.node.name}_{name}", NDArray(tensor, context))

    def set_monitor_callback(self, callback, monitor_all=False):
        """Call ``callback(name, NDArray)`` with every node output after each forward; with
        ``monitor_all`` also with every node input before the node runs (``<node>_<input>``;
        a variable input also under its own name)."""
        self._monitor_callback = callback
        self._monitor_all = monitor_all

    def copy_params_from(self, arg_params, aux_params=None, allow_extra_params=False):
        """Copy values from name -> NDArray dicts into the bound arrays (shapes must match)."""
        arg_dict = self.arg_dict
        for name, value in (arg_params or {}).items():
            if name in arg_dict:
                if arg_dict[name].shape != tuple(value.shape):
                    raise MXNetError(f"copy_params_from: {name!r} has shape {tuple(value.shape)}, "
                                     f"bound as {arg_dict[name].shape}")
                arg_dict[name][:] = value
            elif not allow_extra_params:
                raise MXNetValueError(f"copy_params_from: {name!r} is not an argument of the symbol")
        aux_dict = self.aux_dict
        for name, value in (aux_params or {}).items():
            if name in aux_dict:
                aux_dict[name][:] = value
            elif not allow_extra_params:
                raise MXNetValueError(f"copy_params_from: {name!r} is not an auxiliary state of the symbol")

    def reshape(self, partial_shaping=False, allow_up_sizing=False, **kwargs):
        """A new executor for new input shapes sharing the arrays whose shapes do not change.

        Arguments whose inferred shape changes get new arrays; unless ``partial_shaping``
        that is only allowed for the inputs named in ``kwargs``.  As in MXNet, an argument or
        auxiliary state may only grow (more elements than it was bound with) with
        ``allow_up_sizing=True``; otherwise MXNetError.
        """
        def check_size(kind, name, old, new):
            if not allow_up_sizing and product(new) > product(old):
                raise MXNetError(f"reshape: the new shape {tuple(new)} of {kind} {name!r} is larger than the "
                                 f"bound shape {tuple(old)}; bind the larger shape first and reshape down "
                                 f"(cheaper), or pass allow_up_sizing=True")

        arg_shapes, _, aux_shapes = self._symbol.infer_shape(**kwargs)
        if arg_shapes is None:
            raise MXNetError(f"reshape: cannot infer all shapes from {kwargs}")
        new_args, new_grads = [], []
        for name, array, grad, shape in zip(self._arg_names, self.arg_arrays, self.grad_arrays, arg_shapes):
            if array.shape == tuple(shape):
                new_args.append(array)
                new_grads.append(grad)
                continue
            if name not in kwargs and not partial_shaping:
                raise MXNetError(f"reshape: the shape of {name!r} changes from {array.shape} to {tuple(shape)}; "
                                 f"pass partial_shaping=True to allow it")
            check_size("argument", name, array.shape, shape)
            new_args.append(_share_or_allocate(array, shape))
            new_grads.append(None if grad is None else _share_or_allocate(grad, shape))
        new_aux = []
        for name, array, shape in zip(self._aux_names, self.aux_arrays, aux_shapes):
            check_size("auxiliary state", name, array.shape, shape)
            if array.shape != tuple(shape):
                raise MXNetError(f"reshape: auxiliary state {name!r} would change shape "
                                 f"from {array.shape} to {tuple(shape)}")
            new_aux.append(array)
        requests = dict(self._grad_req)
        reshaped = Executor(self._symbol, self._ctx, new_args, new_grads, requests, new_aux, self._group2ctx)
        # as in MXNet, the new executor writes its outputs into this executor's output memory
        # where they fit (a smaller batch fills the first rows)
        reshaped._output_memory = list(self.outputs)
        return reshaped

    def debug_str(self):
        """The symbol's ``debug_str`` followed by ``Total <n> MB allocated``, as MXNet's executor
        printed: here the memory the plan holds for node outputs at its peak (arguments and
        gradient arrays not counted).  A forward that records gradients keeps every output
        (autograd saves them); otherwise values are dropped after their last reader."""
        return self._symbol.debug_str() + f"\nTotal {self._planned_bytes() >> 20} MB allocated\n"

    def _planned_bytes(self):
        def size(slot):
            shape = self._slot_shapes.get(slot) or ()
            return product(shape) * self._slot_itemsize.get(slot, 4)
        steps = self._run_steps
        if self._recorded_indices:
            return sum(size(slot) for step in steps for slot in set(step.outputs))
        live, peak = set(), 0
        for position, step in enumerate(steps):
            live.update(step.outputs)
            peak = max(peak, sum(size(slot) for slot in live))
            live.difference_update(self._release[position])
        return peak

    def _get_outputs(self):
        """The output arrays of the last forward, one NDArray per output of the symbol (the
        objects in ``outputs``)."""
        return list(self.outputs)

    def get_optimized_symbol(self):
        """The graph this executor runs, as a Symbol: the bound symbol with the nodes that
        common-subexpression elimination merged left out, and, as in MXNet, a ``_copy`` node
        (``<node>_<k>_copy``) for each further output that became the same value as an earlier
        one."""
        import copy
        from ..ops.registry import get_operator
        from ..symbol.symbol import Node
        if not self._merged_nodes:
            return copy.deepcopy(self._symbol)
        copies = {}

        def rebuilt(node):
            node = self._merged_nodes.get(id(node), node)
            if id(node) not in copies:
                copies[id(node)] = Node(node.op, node.name, node.attrs,
                                        [(rebuilt(child), index) for child, index in node.inputs])
            return copies[id(node)]
        outputs, seen = [], {}
        for node, index in self._symbol._outputs:
            entry = (rebuilt(node), index)
            key = (id(entry[0]), index)
            if key in seen:
                copy_node = Node(get_operator("_copy")({}), f"{entry[0].name}_{seen[key]}_copy", {}, [entry])
                seen[key] += 1
                entry = (copy_node, 0)
            else:
                seen[key] = 0
            outputs.append(entry)
        return Symbol(outputs)

    @property
    def handle(self):
        """The compiled plan: one step per operator node in execution order (MXNet's executor
        handle was an opaque C pointer; code only passes it around)."""
        return tuple(self._steps)

    @property
    def symbol(self):
        return self._symbol


def _eliminate_common_expressions():
    """Whether bind merges equal nodes: ``MXNET_ELIMINATE_COMMON_EXPR`` (default 1), as MXNet."""
    import os
    return os.environ.get("MXNET_ELIMINATE_COMMON_EXPR", "1").strip() not in ("0", "false", "False")


def _share_or_allocate(array, shape):
    """An array of ``shape`` for a reshaped executor: a view of the first elements of ``array``
    when it is large enough (MXNet's executors share memory when reshaping down), otherwise new
    zeros."""
    tensor = array._tensor
    count = product(shape)
    if count <= tensor.numel() and tensor.is_contiguous():
        return NDArray(tensor.detach().view(-1)[:count].view(tuple(shape)), array.context)
    return NDArray(torch.zeros(tuple(shape), dtype=tensor.dtype, device=tensor.device), array.context)


def _last_uses(steps, output_slots):
    """For each step, the slots no later step reads (nor the graph outputs): the values the
    plan can drop once that step has run."""
    keep = set(output_slots)
    last = {}
    for position, step in enumerate(steps):
        for slot in list(step.inputs) + list(step.aux) + list(step.outputs):
            last[slot] = position
    release = [[] for _ in steps]
    for slot, position in last.items():
        if slot not in keep:
            release[position].append(slot)
    return [tuple(slots) for slots in release]


def _is_zero_size_given(name, shapes):
    return name in shapes and 0 in tuple(shapes[name])


def _can_adopt(grad, target, head_storage):
    """Whether a gradient tensor from autograd can replace the bound gradient buffer: same
    shape, dtype and device, dense and contiguous, and not the storage of a head gradient
    passed in by the caller (which the caller may still own); and the bound buffer must own
    its whole storage (a view of a larger array, as ``reshape`` binds, is written in place so
    that the memory stays shared)."""
    return (target.untyped_storage().nbytes() == target.numel() * target.element_size()
            and grad.shape == target.shape and grad.dtype == target.dtype and grad.device == target.device
            and grad.is_contiguous() and grad.layout == torch.strided
            and grad.untyped_storage().data_ptr() not in head_storage
            and grad.untyped_storage().nbytes() == grad.numel() * grad.element_size())
