"""Executor: a Symbol bound to arrays (MXNet's ``mx.executor.Executor``).

Binding compiles the graph into a plan: the nodes in topological order, each
a call into its operator's torch computation with the indices of its input
entries.  ``forward(is_train=True)`` records autograd only when some argument
has a gradient request; ``backward`` asks autograd for the gradients of the
requested arguments and writes ('write') or adds ('add') them into the bound
gradient arrays.  Aux states (BatchNorm's moving statistics) are updated in
place by the operators.  The plan is the unit to optimise later (fusion,
``torch.compile``, CUDA graphs) without changing the layers above.
"""
from __future__ import annotations

import numpy as np
import torch

from ..base import MXNetError, MXNetValueError
from ..context import Context, current_context
from ..ndarray.ndarray import NDArray, to_torch_dtype
from ..symbol.symbol import Symbol, _aux_variable_ids

__all__ = ["Executor"]

_GRAD_REQS = ("write", "add", "null", "inplace")


def normalize_grad_req(grad_req, names):
    """``{name: req}`` from a str, a list aligned with ``names`` or a dict (missing -> 'null')."""
    if isinstance(grad_req, str):
        result = {name: grad_req for name in names}
    elif isinstance(grad_req, (list, tuple)):
        if len(grad_req) != len(names):
            raise MXNetError(f"grad_req: a list must have one entry per argument ({len(names)}), got {len(grad_req)}")
        result = dict(zip(names, grad_req))
    elif isinstance(grad_req, dict):
        unknown = set(grad_req) - set(names)
        if unknown:
            raise MXNetError(f"grad_req: {sorted(unknown)} are not arguments of the symbol; arguments are {names}")
        result = {name: grad_req.get(name, "null") for name in names}
    else:
        raise MXNetError(f"grad_req must be a str, list or dict, got {type(grad_req).__name__}")
    for name, req in result.items():
        if req not in _GRAD_REQS:
            raise MXNetError(f"grad_req for {name!r} must be one of {_GRAD_REQS}, got {req!r}")
        if req == "inplace":
            result[name] = "write"
    return result


class _Step:
    __slots__ = ("node", "op", "inputs", "aux", "outputs", "constant_shape")

    def __init__(self, node, op, inputs, aux, outputs, constant_shape=None):
        self.node = node
        self.op = op
        self.inputs = inputs
        self.aux = aux
        self.outputs = outputs
        self.constant_shape = constant_shape


class Executor:
    """A bound graph.  ``arg_arrays`` / ``grad_arrays`` / ``aux_arrays`` are lists aligned
    with ``list_arguments()`` / ``list_auxiliary_states()`` (``grad_arrays`` holds None
    where the request is 'null'); ``outputs`` holds one NDArray per output, the same
    objects across calls (their content changes with each forward, as in MXNet).
    """

    def __init__(self, symbol, ctx, args, args_grad=None, grad_req="write", aux_states=None,
                 group2ctx=None, _shapes=None):
        if not isinstance(symbol, Symbol):
            raise MXNetError(f"Executor: expected a Symbol, got {type(symbol).__name__}")
        self._symbol = symbol
        self._ctx = ctx if isinstance(ctx, Context) else current_context()
        self._group2ctx = group2ctx
        arg_names = symbol.list_arguments()
        aux_names = symbol.list_auxiliary_states()
        self._arg_names = arg_names
        self._aux_names = aux_names
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
        self._build_plan(_shapes)
        self._device = self._ctx.torch_device
        # indices of the arguments that get gradients (fixed at bind time, read every forward)
        self._gradient_indices = frozenset(i for i, name in enumerate(arg_names) if self._grad_req[name] != "null")
        self.outputs = [NDArray(torch.zeros(shape, dtype=to_torch_dtype(dtype), device=self._device),
                                self._ctx) for shape, dtype in zip(self._output_shapes, self._output_types)]
        self._recorded = None

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
                raise MXNetError(f"bind: {label} is missing arrays for {missing}")
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
        shapes = dict(shapes or {})
        arg_names = symbol.list_arguments()
        aux_names = symbol.list_auxiliary_states()
        try:
            arg_shapes, _, aux_shapes = symbol.infer_shape_partial(**shapes)
        except MXNetError as error:
            raise MXNetError(f"simple_bind: {error}") from None
        incomplete = [n for n, s in zip(arg_names + aux_names, arg_shapes + aux_shapes)
                      if not s or not all(d > 0 for d in s)]
        incomplete = [n for n in incomplete if not _is_zero_size_given(n, shapes)]
        if incomplete:
            raise MXNetError(f"simple_bind: cannot infer the shapes of {incomplete} from the given input shapes "
                             f"{shapes}; give them as keyword arguments")
        types = {k: np.dtype(v) for k, v in (type_dict or {}).items()}
        arg_types, _, aux_types = symbol.infer_type_partial(**{k: v for k, v in types.items()
                                                              if k in set(arg_names + aux_names)})
        arg_types = [t or np.float32 for t in arg_types]
        aux_types = [t or np.float32 for t in aux_types]
        if ctx is None:
            ctx = current_context()
        if not isinstance(ctx, Context):
            raise MXNetError(f"simple_bind: ctx must be a Context such as mx.cpu(), got {ctx!r}")
        device = ctx.torch_device
        requests = normalize_grad_req(grad_req, arg_names)
        shared_names = set(shared_arg_names or [])
        shared_args = shared_exec.arg_dict if shared_exec is not None else {}
        shared_grads = shared_exec.grad_dict if shared_exec is not None else {}
        shared_aux = shared_exec.aux_dict if shared_exec is not None else {}

        def reuse(source, name, shape, dtype):
            """``source[name]`` when it exists with this shape and dtype, else a new zero array."""
            existing = source.get(name)
            if existing is not None and existing.shape == tuple(shape) and existing.dtype == np.dtype(dtype).type:
                return existing
            return NDArray(torch.zeros(tuple(shape), dtype=to_torch_dtype(dtype), device=device), ctx)

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
        return cls(symbol, ctx, args, grads, requests, aux, group2ctx=group2ctx)

    def _build_plan(self, known_shapes):
        from ..symbol.inference import graph_shapes, graph_types
        symbol = self._symbol
        given = {name: array.shape for name, array in zip(self._arg_names, self.arg_arrays)}
        given.update({name: array.shape for name, array in zip(self._aux_names, self.aux_arrays)})
        nodes, shapes = graph_shapes(symbol, given)
        _, types = graph_types(symbol, {name: np.dtype(array.dtype) for name, array in
                                        zip(self._arg_names + self._aux_names, self.arg_arrays + self.aux_arrays)})
        aux_ids = _aux_variable_ids(nodes)
        slot = {}
        self._variable_slots = []   # (slot, 'arg'|'aux', index)
        arg_index = {name: i for i, name in enumerate(self._arg_names)}
        aux_index = {name: i for i, name in enumerate(self._aux_names)}
        steps = []
        count = 0
        for node in nodes:
            if node.op is None:
                slot[(id(node), 0)] = count
                kind = "aux" if id(node) in aux_ids else "arg"
                self._variable_slots.append((count, kind, aux_index[node.name] if kind == "aux"
                                             else arg_index[node.name]))
                count += 1
                continue
            inputs = [slot[(id(child), index)] for child, index in node.inputs]
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
            steps.append(_Step(node, node.op, inputs[:n_args], inputs[n_args:], outputs, constant_shape))
        self._steps = steps
        self._num_slots = count
        self._output_slots = [slot[(id(node), index)] for node, index in symbol._outputs]
        self._output_shapes = [shapes.get((id(node), index)) or () for node, index in symbol._outputs]
        self._output_types = [types.get((id(node), index)) or np.dtype(np.float32) for node, index in symbol._outputs]
        self._output_is_loss = [node.op is not None and node.op.is_loss for node, index in symbol._outputs]

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
                    raise MXNetError(f"forward: {name!r} is not an argument of the bound symbol; "
                                     f"arguments are {self._arg_names}")
                target = arg_dict[name]
                shape = tuple(value.shape)
                if shape != target.shape:
                    raise MXNetError(f"forward: input {name!r} has shape {shape}, the executor is bound "
                                     f"with {target.shape}; use reshape() to change shapes")
                target[:] = value
        # an inference forward records only when backward asks for its gradients (MXNet computes
        # gradients after forward(is_train=False) too); see backward
        need_grad = (is_train or getattr(self, "_record_inference", False)) and bool(self._gradient_indices)
        values = [None] * self._num_slots
        leaves = []
        for slot_index, kind, index in self._variable_slots:
            if kind == "aux":
                values[slot_index] = self.aux_arrays[index]._tensor
                continue
            tensor = self.arg_arrays[index]._tensor
            if need_grad and index in self._gradient_indices and (tensor.is_floating_point() or tensor.is_complex()):
                tensor = tensor.detach().requires_grad_(True)
                leaves.append((index, tensor))
            values[slot_index] = tensor
        monitor = self._monitor_callback
        with torch.set_grad_enabled(need_grad):
            for step in self._steps:
                if step.constant_shape is not None:
                    results = [step.op.create(step.constant_shape, self._device)]
                else:
                    try:
                        results = step.op.forward(is_train, [values[i] for i in step.inputs],
                                                  [values[i] for i in step.aux])
                    except MXNetError as error:
                        raise MXNetError(f"Error in operator {step.node.name}: {error}") from None
                    except RuntimeError as error:
                        shapes = [tuple(values[i].shape) for i in step.inputs]
                        raise MXNetError(f"Error in operator {step.node.name} ({step.op.name}) with input "
                                         f"shapes {shapes}: {error}") from None
                for slot_index, tensor in zip(step.outputs, results):
                    values[slot_index] = tensor
                if monitor is not None:
                    names = step.node.output_names()
                    for name, tensor in zip(names[:step.op.num_visible_outputs()], results):
                        monitor(name, NDArray(tensor.detach(), self._ctx))
        outputs = [values[i] for i in self._output_slots]
        for array, tensor in zip(self.outputs, outputs):
            array._tensor = tensor.detach()
        self._recorded = (outputs, leaves) if need_grad else None
        return self.outputs

    def backward(self, out_grads=None, is_train=True):
        """Gradients of the outputs with respect to the arguments whose grad_req is not 'null'.

        ``out_grads`` (NDArray or list, one per output) are the head gradients; loss heads
        (``SoftmaxOutput`` and the other ``*Output`` operators) ignore theirs.  Outputs with no
        head gradient given use ones.  After ``forward(is_train=False)`` the gradients are those of the
        inference-mode computation, as in MXNet.  Raises MXNetError when no forward ran since the
        last backward.
        """
        if self._recorded is None and self._gradient_indices:
            # after forward(is_train=False), or before any forward, MXNet still differentiates the
            # bound graph: run it (again) recorded, in inference mode
            self._record_inference = True
            try:
                self.forward(is_train=False)
            finally:
                self._record_inference = False
        if self._recorded is None:
            if not self._gradient_indices:
                return
            raise MXNetError("backward: call forward(is_train=True) first (the last forward did not record "
                             "a training graph)")
        outputs, leaves = self._recorded
        self._recorded = None
        if out_grads is not None and not isinstance(out_grads, (list, tuple)):
            out_grads = [out_grads]
        if out_grads is not None and len(out_grads) != len(outputs):
            if len(out_grads) < len(outputs) and all(l for l in self._output_is_loss[len(out_grads):]):
                out_grads = list(out_grads) + [None] * (len(outputs) - len(out_grads))
            else:
                raise MXNetError(f"backward: {len(out_grads)} head gradients for {len(outputs)} outputs")
        heads, head_grads = [], []
        for position, tensor in enumerate(outputs):
            proxy = getattr(tensor, "_mx_gradient_proxy", None)
            if not tensor.requires_grad and proxy is not None:
                # an integer output (Cast) carries the float tensor that autograd can follow
                tensor = proxy
            if not tensor.requires_grad:
                continue
            grad = None if out_grads is None else out_grads[position]
            if grad is None:
                grad = torch.ones_like(tensor)
            else:
                grad = grad._tensor if isinstance(grad, NDArray) else torch.as_tensor(np.asarray(grad))
                if tuple(grad.shape) != tuple(tensor.shape):
                    raise MXNetError(f"backward: head gradient {position} has shape {tuple(grad.shape)}, "
                                     f"output {self._symbol.list_outputs()[position]!r} has {tuple(tensor.shape)}")
                grad = grad.to(device=tensor.device, dtype=tensor.dtype)
            heads.append(tensor)
            head_grads.append(grad)
        if heads and leaves:
            grads = torch.autograd.grad(heads, [leaf for _, leaf in leaves], head_grads, allow_unused=True)
        else:
            grads = [None] * len(leaves)
        head_storage = {h.untyped_storage().data_ptr() for h in head_grads}
        with torch.no_grad():
            # integer arguments carry no gradient: 'write' gives them zeros, as MXNet does
            differentiated = {index for index, _ in leaves}
            for index in self._gradient_indices - differentiated:
                target = self.grad_arrays[index]
                if target is not None and self._grad_req[self._arg_names[index]] == "write":
                    target._tensor.zero_()
            for (index, _), grad in zip(leaves, grads):
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
                    target._tensor = grad
                else:
                    target._tensor.copy_(grad)

    def set_monitor_callback(self, callback, monitor_all=False):
        """Call ``callback(name, NDArray)`` with every node output after each forward."""
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
        that is only allowed for the inputs named in ``kwargs``.
        """
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
            new_args.append(NDArray(torch.zeros(tuple(shape), dtype=array._tensor.dtype,
                                                device=array._tensor.device), array.context))
            new_grads.append(None if grad is None else
                             NDArray(torch.zeros(tuple(shape), dtype=grad._tensor.dtype,
                                                 device=grad._tensor.device), grad.context))
        new_aux = []
        for name, array, shape in zip(self._aux_names, self.aux_arrays, aux_shapes):
            if array.shape != tuple(shape):
                raise MXNetError(f"reshape: auxiliary state {name!r} would change shape "
                                 f"from {array.shape} to {tuple(shape)}")
            new_aux.append(array)
        requests = dict(self._grad_req)
        return Executor(self._symbol, self._ctx, new_args, new_grads, requests, new_aux, self._group2ctx)

    def debug_str(self):
        return self._symbol.debug_str()

    def _get_outputs(self):
        """The output arrays of the last forward, one NDArray per output of the symbol (the
        objects in ``outputs``)."""
        return list(self.outputs)

    def get_optimized_symbol(self):
        """The graph this executor runs, as a Symbol (a copy of the bound symbol: mxtorch runs the
        graph as bound, where MXNet could return a graph rewritten by its subgraph backends)."""
        import copy
        return copy.deepcopy(self._symbol)

    @property
    def handle(self):
        """The compiled plan: one step per operator node in execution order (MXNet's executor
        handle was an opaque C pointer; code only passes it around)."""
        return tuple(self._steps)

    @property
    def symbol(self):
        return self._symbol


def _is_zero_size_given(name, shapes):
    return name in shapes and 0 in tuple(shapes[name])


def _can_adopt(grad, target, head_storage):
    """Whether a gradient tensor from autograd can replace the bound gradient buffer: same
    shape, dtype and device, dense and contiguous, and not the storage of a head gradient
    passed in by the caller (which the caller may still own)."""
    return (grad.shape == target.shape and grad.dtype == target.dtype and grad.device == target.device
            and grad.is_contiguous() and grad.layout == torch.strided
            and grad.untyped_storage().data_ptr() not in head_storage
            and grad.untyped_storage().nbytes() == grad.numel() * grad.element_size())
