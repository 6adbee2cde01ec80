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

import torch

from ..base import MXNetError, MXNetTypeError, MXNetValueError, OperatorRunError
from ..context import Context, current_context
from ..ndarray import pending
from ..ndarray.ndarray import NDArray, to_torch_dtype
from ..ndarray.gradients import head_gradient
from ..ops.registry import gradient_carrier, product
from ..recording import differentiate
from ..symbol.symbol import Symbol
from .binding import bound_list, normalize_grad_req, share_or_allocate, simple_bind_arrays
from .compiled import CompiledGradients, TrainingStep
from .gradients import store_gradients
from .inference import InferencePlan
from .placement import node_contexts
from .plan import build_plan, dense_views
from .storage import graph_output_storage_types, zeros_of_storage
from .reachability import gradient_inputs, head_gradient_inputs, non_differentiable_nodes, reached_variables

__all__ = ["Executor", "normalize_grad_req"]



def _renamed(error, message):
    """An error of ``error``'s class with ``message`` (MXNetError when that class cannot be
    built from a message alone)."""
    try:
        return type(error)(message)
    except TypeError:
        return OperatorRunError(message) if isinstance(error, OperatorRunError) else MXNetError(message)

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
        self.arg_arrays = bound_list(args, arg_names, "args", required=True)
        self.aux_arrays = bound_list(aux_states, aux_names, "aux_states", required=True)
        self._grad_req = normalize_grad_req(grad_req, arg_names)
        grads = bound_list(args_grad, arg_names, "args_grad", required=False)
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
        if self._gradient_indices:
            blocked = non_differentiable_nodes(symbol, [arg_names[i] for i in self._gradient_indices])
            if blocked:
                node = blocked[0]
                raise MXNetError(f"bind: operator {node.op.name} (node {node.name!r}) is non-differentiable (MXNet "
                                 f"registers no gradient for it), but the gradient of an argument would pass "
                                 f"through it; bind its inputs with grad_req='null' or put it behind BlockGrad")
        self._recorded_indices = frozenset(i for i in self._gradient_indices if arg_names[i] in reachable)
        self._needs_head_gradient = {}     # output position -> bool, filled by _output_needs_head_gradient
        output_contexts = [self._ctx if self._placement is None else self._placement[id(node)]
                           for node, _ in symbol._outputs]
        # the outputs have the storage types MXNet's forward storage inference gives them
        variable_stypes = {name: array.stype for name, array in
                           zip(arg_names + aux_names, self.arg_arrays + self.aux_arrays)}
        self.outputs = [zeros_of_storage(shape, dtype, context, stype) for shape, dtype, context, stype in
                        zip(self._output_shapes, self._output_types, output_contexts,
                            graph_output_storage_types(symbol, variable_stypes))]
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
    @classmethod
    def simple_bind(cls, symbol, ctx, grad_req="write", type_dict=None, group2ctx=None, shared_arg_names=None,
                    shared_exec=None, shared_buffer=None, shapes=None, stype_dict=None):
        """An executor with every array allocated from the shapes (and ``type_dict`` dtypes,
        ``stype_dict`` storage types) given, inferring the rest (``binding.simple_bind_arrays``)."""
        args, grads, requests, aux, inferred = simple_bind_arrays(
            symbol, ctx, grad_req, type_dict, group2ctx, shared_arg_names, shared_exec, shared_buffer, shapes,
            stype_dict)
        return cls(symbol, ctx, args, grads, requests, aux, group2ctx=group2ctx, inferred=inferred)

    def _build_plan(self, inferred=None):
        """The plan of the bound graph (``plan.build_plan``); its parts are read every forward."""
        plan = build_plan(self._symbol, self._arg_names, self._aux_names, self.arg_arrays, self.aux_arrays,
                          self._placement, inferred)
        self._steps, self._run_steps, self._release = plan.steps, plan.run_steps, plan.release
        self._num_slots, self._variable_slots, self._output_slots = plan.num_slots, plan.variable_slots, \
            plan.output_slots
        self._duplicate_outputs, self._merged_nodes = plan.duplicate_outputs, plan.merged_nodes
        self._output_shapes, self._output_types = plan.output_shapes, plan.output_types
        self._output_is_loss = plan.output_is_loss
        self._slot_shapes, self._slot_itemsize, self._slot_types = plan.slot_shapes, plan.slot_itemsize, plan.slot_types

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
                    # the node's name added; the error keeps its class (an OperatorRunError is
                    # reported late, an MXNetValueError stays a ValueError, ...)
                    raise _renamed(error, f"Error in operator {step.node.name}: {error}") from None
                except RuntimeError as error:
                    shapes = [tuple(values[i].shape) for i in step.inputs]
                    raise MXNetError(f"Error in operator {step.node.name} ({step.op.name}) with input "
                                     f"shapes {shapes}: {error}") from None
            if step.constant_shape is None:
                results = dense_views(results, [values[i] for i in step.inputs])
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

        ``out_grads`` (NDArray, list, or dict by output name) are the head gradients, entry
        ``i`` for output ``i``; loss heads (``SoftmaxOutput``, ``MakeLoss`` and the other
        ``*Output`` operators) ignore theirs.  As in MXNet 1.9.1 the list may be shorter than
        the outputs when those past its end need no head gradient (loss heads, ``BlockGrad``
        outputs, outputs computed only from arguments whose grad_req is 'null'); MXNetError
        when one of them needs one.  With ``out_grads`` None (or a None entry) the outputs use
        ones (mxtorch; MXNet required them).  After ``forward(is_train=False)`` the gradients
        are those of the inference-mode computation, as in MXNet.  Raises MXNetError when no
        forward ran since the last backward.  After a forward whose computation failed (an ``OperatorRunError``,
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
        if isinstance(recorded, CompiledGradients):
            carrying = recorded.carrying
        else:
            carrying = [gradient_carrier(tensor).requires_grad for tensor in outputs]
        out_grads = self._match_head_gradients(out_grads, carrying)
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
            found = differentiate(heads, [leaf for _, leaf in leaves] + watched, head_grads)
            grads = found[:len(leaves)]
            watched_grads = {id(t): g for t, g in zip(watched, found[len(leaves):])}
        else:
            grads = [None] * len(leaves)
            watched_grads = {}
        if monitored:
            self._report_backward(monitored, watched_grads)
        head_storage = {h.untyped_storage().data_ptr() for h in head_grads}
        self._store_gradients([(index, grad) for (index, _), grad in zip(leaves, grads)], head_storage)

    def _match_head_gradients(self, out_grads, carrying):
        """``out_grads`` as one entry per output, matched as MXNet 1.9.1 matched them: entry ``i``
        belongs to output ``i`` (by position among all outputs).  The list may stop early where
        the outputs past its end need no head gradient (``_output_needs_head_gradient``); they
        get None.  Extra entries are dropped with a warning (MXNet read the first
        ``len(outputs)``).  Raises MXNetError naming the first output past the end that needs
        one.  ``carrying``: per output, whether its tensor carries a gradient.  None stays None
        (ones, see ``backward``)."""
        if out_grads is None:
            return None
        if isinstance(out_grads, dict):
            # MXNet read a dict in the order of list_outputs (KeyError for a missing output)
            out_grads = [out_grads[name] for name in self._symbol.list_outputs()]
        elif not isinstance(out_grads, (list, tuple)):
            out_grads = [out_grads]
        count = len(carrying)
        out_grads = list(out_grads)
        if len(out_grads) > count:
            warnings.warn(f"Executor.backward: {len(out_grads)} head gradients for {count} outputs; "
                          f"the extra {len(out_grads) - count} are ignored, as in MXNet")
            return out_grads[:count]
        for position in range(len(out_grads), count):
            if carrying[position] and self._output_needs_head_gradient(position):
                name = self._symbol.list_outputs()[position]
                raise MXNetError(
                    f"backward: {len(out_grads)} head gradients for {count} outputs, and output {position} "
                    f"({name!r}) needs one: it is not a loss function and a gradient flows through it to an "
                    f"argument (head gradients match the outputs by position; only outputs that need none, "
                    f"such as loss heads and BlockGrad, may be left out at the end). To minimize the output "
                    f"as an objective, pass it through the make_loss symbol.")
        return out_grads + [None] * (count - len(out_grads))

    def _output_needs_head_gradient(self, position):
        """Whether output ``position`` needs a head gradient, as MXNet's gradient graph had it:
        its head gradient reaches an argument whose grad_req is not 'null', not stopped by a
        ``BlockGrad`` nor by a loss head (whose gradient ignores it)."""
        needs = self._needs_head_gradient.get(position)
        if needs is None:
            reached = reached_variables(self._symbol, head_gradient_inputs, [position])
            needs = any(self._arg_names[i] in reached for i in self._gradient_indices)
            self._needs_head_gradient[position] = needs
        return needs

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
        store_gradients(self.grad_arrays, [self._grad_req[name] for name in self._arg_names],
                        self._gradient_indices, pairs, head_storage)

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
            new_args.append(share_or_allocate(array, shape))
            new_grads.append(None if grad is None else share_or_allocate(grad, shape))
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
