"""``mx.autograd``: imperative differentiation of NDArray computations (MXNet's ``mxnet.autograd``).

Inside ``with record():`` every NDArray operation is recorded by torch's
autograd; arrays marked with ``NDArray.attach_grad()`` or
:func:`mark_variables` are the variables.  :func:`backward` writes (grad_req
'write') or adds ('add') the gradients of the heads into the variables'
gradient arrays; :func:`grad` returns them instead.  ``train_mode`` /
``predict_mode`` switch what operators such as Dropout and BatchNorm do,
independently of recording, as in MXNet.  :class:`Function` defines an
operation with a hand-written backward.

The recording flags are per thread, as MXNet's were.
"""
from __future__ import annotations

import threading
import weakref

import numpy as np
import torch

from .base import MXNetError
# names MXNet 1.9.1's mxnet.autograd had in its namespace from its ctypes binding
from ctypes import CFUNCTYPE, POINTER, c_int, c_void_p, cast  # noqa: E402,F401
from .base import (  # noqa: E402,F401
    MXCallbackList, NDArrayHandle, SymbolHandle, c_array, c_array_buf, c_handle_array,
    check_call, mx_uint, string_types,
)
# names MXNet 1.9.1's mxnet.autograd had in its namespace (imported there, not defined)
from array import array  # noqa: E402,F401
from threading import Lock  # noqa: E402,F401
import ctypes  # noqa: E402,F401
import traceback  # noqa: E402,F401

_OWN_NAMES = ["is_training", "is_recording", "set_training", "set_recording", "record", "pause",
           "train_mode", "predict_mode", "mark_variables", "backward", "grad", "Function", "get_symbol",
           "NDArray", "Symbol"]


def __getattr__(name):
    # MXNet's module exported NDArray and Symbol (``from mxnet.autograd import *`` gives them); they
    # are loaded lazily because ndarray imports this module
    if name == "NDArray":
        from .ndarray.ndarray import NDArray
        return NDArray
    if name == "Symbol":
        from .symbol.symbol import Symbol
        return Symbol
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

_state = threading.local()


def is_training():
    """Whether operators run in training mode now (Dropout drops, BatchNorm uses batch statistics)."""
    return getattr(_state, "training", False)


def is_recording():
    """Whether NDArray operations are being recorded for differentiation now."""
    return getattr(_state, "recording", False)


def set_training(train_mode):
    """Set the training flag of this thread; returns the previous value."""
    previous = is_training()
    _state.training = bool(train_mode)
    return previous


def set_recording(is_record):
    """Set the recording flag of this thread; returns the previous value."""
    previous = is_recording()
    _state.recording = bool(is_record)
    return previous


class _Scope:
    def __init__(self, recording, training):
        self._recording = recording
        self._training = training
        self._previous = None

    def __enter__(self):
        self._previous = (is_recording(), is_training())
        if self._recording is not None:
            set_recording(self._recording)
        if self._training is not None:
            set_training(self._training)

    def __exit__(self, *exc):
        set_recording(self._previous[0])
        set_training(self._previous[1])


def record(train_mode=True):
    """Scope that records NDArray operations; ``train_mode`` sets the training flag inside it."""
    return _Scope(True, train_mode)


def pause(train_mode=False):
    """Scope that stops recording; ``train_mode`` sets the training flag inside it."""
    return _Scope(False, train_mode)


def train_mode():
    """Scope in training mode; recording is left as it is."""
    return _Scope(None, True)


def predict_mode():
    """Scope in inference mode; recording is left as it is."""
    return _Scope(None, False)


# -- variables and gradients ---------------------------------------------------------------------------
_GRAD_REQS = ("write", "add", "null")


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def mark_variables(variables, gradients, grad_reqs="write"):
    """Mark NDArrays as variables whose gradients :func:`backward` computes.

    ``variables`` and ``gradients`` are NDArrays or equally long lists of them; each gradient
    array must have its variable's shape and is the very array the gradient is written into
    (``variable.grad`` is it).  ``grad_reqs`` is one of 'write', 'add', 'null' or a list of them.
    Raises MXNetError on mismatched lengths, shapes or an unknown request.
    """
    from .ndarray.ndarray import NDArray
    variables, gradients = _as_list(variables), _as_list(gradients)
    reqs = [grad_reqs] * len(variables) if isinstance(grad_reqs, str) else list(grad_reqs)
    if not (len(variables) == len(gradients) == len(reqs)):
        raise MXNetError(f"mark_variables: got {len(variables)} variables, {len(gradients)} gradients and "
                         f"{len(reqs)} grad_reqs; the lengths must be equal")
    for index, (variable, gradient, req) in enumerate(zip(variables, gradients, reqs)):
        if not isinstance(variable, NDArray) or not isinstance(gradient, NDArray):
            raise MXNetError(f"mark_variables: entry {index} must be two NDArrays, got "
                             f"{type(variable).__name__} and {type(gradient).__name__}")
        if req not in _GRAD_REQS:
            raise MXNetError(f"mark_variables: grad_req must be one of {_GRAD_REQS}, got {req!r}")
        if tuple(gradient.shape) != tuple(variable.shape):
            raise MXNetError(f"mark_variables: gradient {index} has shape {gradient.shape}, its variable "
                             f"{variable.shape}")
        _make_variable(variable, gradient, req)


def _make_variable(array, gradient, req):
    """Make ``array`` a variable (a fresh torch leaf sharing its memory) with ``gradient`` as grad.
    An integer array is a variable through a float carrier leaf (``registry.gradient_carrier``):
    MXNet differentiated integer arrays, their gradients truncated to integers."""
    from .ops.registry import attach_carrier
    array._grad = gradient
    array._grad_req = req
    array._fresh_grad = False
    if req == "null" or array._tensor.dtype == torch.bool:
        return
    if array._tensor.is_floating_point() or array._tensor.is_complex():
        array.use_storage(array._tensor, requires_grad=True)
        leaf = array._tensor
    else:
        array.use_storage(array._tensor)
        leaf = attach_carrier(array._tensor)
    array._tensor._mx_recorded = (_RecordedLeaf(True), 0)   # for get_symbol
    # a weak reference: the array owns its tensor, and a strong link back would make a
    # reference cycle that keeps both (and their memory) alive until the garbage collector
    # runs, while MXNet freed an array as soon as its last reference went
    leaf._mx_grad_owner = weakref.ref(array)


def _variable_leaf(array):
    """The torch leaf that records ``array``'s gradient: its tensor, or an integer array's carrier."""
    from .ops.registry import gradient_carrier
    return gradient_carrier(array._tensor)


def _grad_owner(tensor):
    """The NDArray that ``tensor`` is the variable of (attach_grad / mark_variables), or None."""
    owner = getattr(tensor, "_mx_grad_owner", None)
    return owner() if owner is not None else None


def _gradient_leaves(tensors):
    """The variable tensors (marked by attach_grad / mark_variables) the computation of ``tensors`` reaches."""
    leaves = {}
    seen = set()
    pending = []
    for tensor in tensors:
        if tensor.grad_fn is None:
            if _grad_owner(tensor) is not None:
                leaves[id(tensor)] = tensor
        else:
            pending.append(tensor.grad_fn)
    while pending:
        function = pending.pop()
        if function is None or function in seen:
            continue
        seen.add(function)
        variable = getattr(function, "variable", None)
        if variable is not None and _grad_owner(variable) is not None:
            leaves[id(variable)] = variable
        pending.extend(next_function for next_function, _ in function.next_functions)
    return list(leaves.values())


def head_gradient(tensor, given, mismatch):
    """The head gradient for ``tensor``: ones when ``given`` is None, else ``given`` (an NDArray or
    anything ``numpy.asarray`` takes) as a detached tensor on ``tensor``'s device and dtype.
    Raises MXNetError with the message ``mismatch(shape)`` when the shapes differ.  Shared by
    ``mx.autograd.backward`` / ``grad`` and ``Executor.backward``."""
    from .ndarray.ndarray import NDArray
    if given is None:
        return torch.ones_like(tensor)
    value = given._tensor if isinstance(given, NDArray) else torch.as_tensor(np.asarray(given))
    if tuple(value.shape) != tuple(tensor.shape):
        raise MXNetError(mismatch(tuple(value.shape)))
    return value.detach().to(device=tensor.device, dtype=tensor.dtype)


def _heads_and_grads(caller, heads, head_grads):
    from .ndarray.ndarray import NDArray
    from .ops.registry import gradient_carrier
    heads = _as_list(heads)
    if head_grads is None:
        head_grads = [None] * len(heads)
    else:
        head_grads = _as_list(head_grads)
    if len(head_grads) != len(heads):
        raise MXNetError(f"{caller}: got {len(heads)} heads and {len(head_grads)} head gradients")
    tensors, grads = [], []
    for index, (head, head_grad) in enumerate(zip(heads, head_grads)):
        if not isinstance(head, NDArray):
            raise MXNetError(f"{caller}: head {index} must be an NDArray, got {type(head).__name__}")
        tensor = gradient_carrier(head._tensor)   # integer heads: the float tensor autograd reaches
        head_grad = _head_gradient_memory(caller, index, tensor, head_grad)
        value = head_gradient(tensor, head_grad, lambda shape: f"{caller}: head gradient (out_grad) {index} has "
                                                               f"shape {shape}, its head {tuple(tensor.shape)}")
        tensors.append(tensor)
        grads.append(value)
    return tensors, grads


def _head_gradient_memory(caller, index, head, given):
    """``given`` as the head gradient of ``head``.  MXNet 1.9.1's imperative backward did not
    check the head gradient's shape: it read the head's number of elements from the start of
    the head gradient's memory.  A head gradient of another shape with at least as many
    elements is read that way here too (with a warning); a smaller one raises MXNetError (MXNet
    read past its end)."""
    import warnings
    from .ndarray.ndarray import NDArray
    if not isinstance(given, NDArray) or tuple(given.shape) == tuple(head.shape):
        return given
    count = head.numel()
    if given.size < count:
        return given        # head_gradient raises the shape mismatch
    warnings.warn(f"{caller}: head gradient (out_grad) {index} has shape {tuple(given.shape)}, its head "
                  f"{tuple(head.shape)}; as MXNet did, its first {count} elements are used")
    return NDArray(given._tensor.reshape(-1)[:count].reshape(head.shape), given.context)


def _differentiate(caller, tensors, grads, inputs, retain_graph, create_graph):
    recorded = [(t, g) for t, g in zip(tensors, grads) if t.requires_grad]
    if any(getattr(t, "_mx_graph_released", False) for t, _ in recorded):
        # torch frees only the buffers an operation saved (x + 1 saves none), MXNet always refused
        raise MXNetError(f"{caller}: this recording was already differentiated without retain_graph=True")
    if not recorded:
        raise MXNetError(f"{caller}: the heads were not computed inside mx.autograd.record() from an array "
                         f"marked with attach_grad() or mark_variables()")
    try:
        with torch.enable_grad():
            return torch.autograd.grad([t for t, _ in recorded], inputs, [g for _, g in recorded],
                                       retain_graph=retain_graph, create_graph=create_graph, allow_unused=True)
    except RuntimeError as error:
        raise MXNetError(f"{caller}: {error} (differentiate a recording once, or pass retain_graph=True)") from None
    finally:
        if not retain_graph:
            for tensor, _ in recorded:
                if tensor.grad_fn is not None:
                    tensor._mx_graph_released = True


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):  # noqa: ARG001
    """Compute the gradients of ``heads`` (an NDArray or a list) with respect to every variable the
    recorded computation reaches and store them in the variables' gradient arrays.

    ``head_grads``: one array per head (None or a None entry means ones).  ``retain_graph`` keeps the
    recording for another backward.  ``train_mode`` is accepted as in MXNet; the training flag took
    effect when the forward computation was recorded.  Raises MXNetError when nothing was recorded,
    a head gradient's shape differs from its head, or the recording was already used.
    """
    tensors, grads = _heads_and_grads("backward", heads, head_grads)
    leaves = _gradient_leaves(tensors)
    if not leaves:
        raise MXNetError("backward: the heads were not computed inside mx.autograd.record() from an array "
                         "marked with attach_grad() or mark_variables()")
    results = _differentiate("backward", tensors, grads, leaves, retain_graph, False)
    with torch.no_grad():
        for leaf, value in zip(leaves, results):
            owner = _grad_owner(leaf)
            if owner is None or owner._grad is None or owner._grad_req == "null" or _variable_leaf(owner) is not leaf:
                continue
            target = owner._grad._tensor
            if value is None:
                if owner._grad_req == "write":
                    target.zero_()
                continue
            if owner._grad_req == "add":
                target.add_(value.to(target.dtype))
            else:
                target.copy_(value)
            owner._fresh_grad = True


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False, train_mode=True):  # noqa: ARG001
    """The gradients of ``heads`` with respect to ``variables`` (an NDArray or a list), returned as a
    list of new NDArrays, one per variable, in order -- a list even when ``variables`` is one
    NDArray, as MXNet 1.9.1 returns it; the variables' own ``grad`` arrays are not touched.
    ``create_graph=True`` records the gradient computation so the result can be differentiated
    again (higher-order gradients); ``retain_graph`` defaults to ``create_graph``.  A variable
    the heads do not depend on gets zeros.  MXNetError for an empty ``variables`` list, a
    variable not marked with ``attach_grad``, or heads not recorded.
    """
    from .ndarray.ndarray import NDArray
    variables = _as_list(variables)
    if not variables:
        raise MXNetError("grad: variables cannot be an empty list")
    for index, variable in enumerate(variables):
        if not isinstance(variable, NDArray) or _grad_owner(_variable_leaf(variable)) is None:
            raise MXNetError(f"grad: variable {index} must be an NDArray marked with attach_grad() or "
                             f"mark_variables()")
    if retain_graph is None:
        retain_graph = create_graph
    tensors, grads = _heads_and_grads("grad", heads, head_grads)
    inputs = [_variable_leaf(variable) for variable in variables]
    results = _differentiate("grad", tensors, grads, inputs, retain_graph, create_graph)
    return [NDArray(_gradient_tensor(value, source, create_graph, variable._tensor.dtype), variable.context)
            for value, source, variable in zip(results, inputs, variables)]


def _gradient_tensor(value, source, create_graph, dtype):
    """The tensor :func:`grad` returns for one variable.  ``None`` (the heads do not reach the
    variable) and torch's lazy zero tensors become real zeros.  With ``create_graph`` the result
    stays part of the recording even where it is constant in the variables (the gradient of
    ``radians`` or ``relu``): MXNet records every gradient node, so differentiating it again gives
    zeros rather than an error; here it is anchored to a recorded scalar that no variable reaches.
    The gradient of an integer variable (``dtype``) is truncated to it, as MXNet computed it."""
    if value is None or value._is_zerotensor():
        value = torch.zeros(source.shape, dtype=source.dtype, device=source.device)
    if value.dtype != dtype:
        from .ops.registry import _to_dtype
        return _to_dtype(value.detach(), dtype)
    if not create_graph:
        return value.detach()
    if not value.requires_grad:
        anchor = torch.zeros((), dtype=value.dtype, device=value.device, requires_grad=True)
        value = value + anchor
    return value


class _RecordedCall:
    """An operator call made inside ``record()``, kept for :func:`get_symbol`: the Operator
    (its attributes) and its inputs as ``(_RecordedCall or _RecordedLeaf, output index)``.
    Holds no tensors, so it keeps no memory alive."""

    __slots__ = ("op", "inputs", "name")

    def __init__(self, op, inputs):
        self.op = op
        self.inputs = inputs
        # MXNet named the nodes at record time, counting every recorded call of the thread
        count = getattr(_state, "recorded_calls", 0)
        _state.recorded_calls = count + 1
        self.name = f"node_{count}"


class _RecordedLeaf:
    """An input of recorded calls that no recorded call computed: a variable (``attach_grad``)
    or a constant array."""

    __slots__ = ("variable", "order")

    def __init__(self, variable):
        self.variable = variable
        # MXNet numbered the variables of a rebuilt graph in the order the arrays entered the
        # recording machinery (attach_grad, or first use inside record())
        count = getattr(_state, "recorded_leaves", 0)
        _state.recorded_leaves = count + 1
        self.order = count


def _recorded_entry(tensor):
    """The ``(call or leaf, output index)`` that produced ``tensor`` (a leaf made and kept on it
    when no recorded call did)."""
    entry = getattr(tensor, "_mx_recorded", None)
    if entry is None:
        from .ops.registry import gradient_carrier
        entry = (_RecordedLeaf(_grad_owner(gradient_carrier(tensor)) is not None), 0)
        tensor._mx_recorded = entry
    return entry


def note_operator_call(op, inputs, outputs):
    """Record, for :func:`get_symbol`, that operator ``op`` (an Operator instance) computed the
    tensors ``outputs`` from the tensors ``inputs`` (arguments then aux states).  Called by the
    imperative front end (``mx.nd``) for each operator call inside ``record()`` only."""
    call = _RecordedCall(op, [_recorded_entry(tensor) for tensor in inputs])
    for index, tensor in enumerate(outputs):
        tensor._mx_recorded = (call, index)


def get_symbol(x):
    """The Symbol of the recorded computation of the NDArray ``x``, as MXNet 1.9.1 returns it:
    one node per operator called (through ``mx.nd`` / NDArray arithmetic) inside ``record()``
    on the way to ``x``, named ``node_<k>`` (``k`` counts the calls recorded in this thread);
    its inputs that no recorded operator computed are variables named ``var<k>`` (arrays
    marked with ``attach_grad``) or ``null<k>`` (other arrays), numbered in the order the
    arrays were marked or first used inside ``record()``.
    Computations that are not registry operators (indexing, ``reshape`` views, ``astype``)
    are not nodes: their results are ``null`` variables.  A variable gives a one-variable
    Symbol; an array outside any recording raises MXNetError, as in MXNet."""
    from .ndarray.ndarray import NDArray
    from .symbol.symbol import Node, Symbol
    if not isinstance(x, NDArray):
        raise MXNetError(f"autograd.get_symbol: x must be an NDArray, got {type(x).__name__}")
    entry = getattr(x._tensor, "_mx_recorded", None)
    if entry is None:
        if _variable_leaf(x).requires_grad and _grad_owner(_variable_leaf(x)) is None:
            raise MXNetError("autograd.get_symbol: the array was computed inside mx.autograd.record() by "
                             "something other than mx.nd operators (a hybridized Gluon block, an "
                             "autograd.Function), whose graph mxtorch does not keep; call the block "
                             "un-hybridized, or export it (HybridBlock.export) for its Symbol")
        if _grad_owner(_variable_leaf(x)) is None:
            raise MXNetError("autograd.get_symbol: NDArray is not part of a computation graph. Did you forget "
                             "to turn on recording? (compute it inside mx.autograd.record(), or mark it with "
                             "attach_grad())")
        entry = (_RecordedLeaf(True), 0)
    root, root_index = entry
    built = {}
    leaves = []
    stack = [(root, False)]
    while stack:   # iterative depth-first post-order: long recordings do not hit the recursion limit
        item, expanded = stack.pop()
        if id(item) in built:
            continue
        if isinstance(item, _RecordedLeaf):
            built[id(item)] = Node(None, "")
            leaves.append(item)
            continue
        if not expanded:
            stack.append((item, True))
            stack.extend((source, False) for source, _ in reversed(item.inputs))
            continue
        inputs = [(built[id(source)], index) for source, index in item.inputs]
        built[id(item)] = Node(item.op, item.name, dict(item.op.attrs), inputs)
    for rank, leaf in enumerate(sorted(leaves, key=lambda leaf: leaf.order)):
        built[id(leaf)].name = f"{'var' if leaf.variable else 'null'}{rank}"
    return Symbol([(built[id(root)], root_index)])


class Function:
    """An operation with a hand-written gradient (MXNet's ``mx.autograd.Function``).

    Subclass it and define ``forward(self, *inputs)`` returning an NDArray or a tuple of them and
    ``backward(self, *output_grads)`` returning one gradient array per input.  Call an instance
    on NDArrays (once per instance, as in MXNet); inside ``record()`` its outputs are recorded
    and differentiating them calls ``backward``.  ``save_for_backward(*arrays)`` keeps arrays
    that ``backward`` reads back as ``self.saved_tensors``.
    """

    def __init__(self):
        self.saved_tensors = ()

    def save_for_backward(self, *args):
        self.saved_tensors = args

    def forward(self, *inputs):
        raise NotImplementedError

    def backward(self, *output_grads):
        raise NotImplementedError

    def __call__(self, *inputs):
        from .ndarray.ndarray import NDArray
        for index, value in enumerate(inputs):
            if not isinstance(value, NDArray):
                raise MXNetError(f"{type(self).__name__}: input {index} must be an NDArray, got "
                                 f"{type(value).__name__}")
        function = self
        contexts = [value.context for value in inputs]
        shape_of_outputs = {}

        class _Bridge(torch.autograd.Function):
            @staticmethod
            def forward(ctx, *tensors):
                with pause(train_mode=is_training()):
                    outputs = function.forward(*[NDArray(t.detach(), c) for t, c in zip(tensors, contexts)])
                single = isinstance(outputs, NDArray)
                outputs = [outputs] if single else list(outputs)
                shape_of_outputs["single"] = single
                shape_of_outputs["contexts"] = [o.context for o in outputs]
                return tuple(o._tensor.detach().clone() for o in outputs)

            @staticmethod
            def backward(ctx, *output_grads):
                grads_in = [NDArray(g.detach() if g is not None else torch.zeros(()), c)
                            for g, c in zip(output_grads, shape_of_outputs["contexts"])]
                with pause():
                    results = function.backward(*grads_in)
                results = [results] if isinstance(results, NDArray) else list(results)
                if len(results) != len(contexts):
                    raise MXNetError(f"{type(function).__name__}.backward returned {len(results)} gradients "
                                     f"for {len(contexts)} inputs")
                return tuple(r._tensor if isinstance(r, NDArray) else None for r in results)

        tensors = [value._tensor for value in inputs]
        if is_recording():
            outputs = _Bridge.apply(*tensors)
        else:
            with torch.no_grad():
                outputs = _Bridge.apply(*tensors)
        arrays = [NDArray(t, c) for t, c in zip(outputs, shape_of_outputs["contexts"])]
        return arrays[0] if shape_of_outputs["single"] else tuple(arrays)


# what ``from mxnet.autograd import *`` gave (MXNet had no __all__ here: every public global)
from .util import star_exports  # noqa: E402
__all__ = star_exports(__name__, globals(), _OWN_NAMES)
