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

import torch

from .base import MXNetError
from .ndarray.gradients import backward, grad, mark_variables  # noqa: F401
from .ndarray.gradients import variable_leaf as _variable_leaf
from .ndarray.ndarray import NDArray
from .recording import (RecordedLeaf, grad_owner as _grad_owner, is_recording, is_training,  # noqa: F401
                        pause, predict_mode, record, set_recording, set_training, train_mode)
from .symbol.symbol import Node, Symbol
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


def get_symbol(x):
    """The Symbol of the recorded computation of the NDArray ``x``, as MXNet 1.9.1 returns it:
    one node per operator called (through ``mx.nd`` / NDArray arithmetic) inside ``record()``
    on the way to ``x``, named ``node_<k>`` (``k`` counts the calls recorded in this thread);
    its inputs that no recorded operator computed are variables named ``var<k>`` (arrays
    marked with ``attach_grad``) or ``null<k>`` (other arrays), numbered in the order the
    arrays were marked or first used inside ``record()``.
    Computations that are not registry operators (indexing, ``reshape`` views, ``astype``)
    are not nodes: their results are ``null`` variables.  A hybridized block's call is its
    operators (at most ``hybridize(inline_limit=2)`` of them) or one ``_CachedOp`` node.  A variable gives a one-variable
    Symbol; an array outside any recording raises MXNetError, as in MXNet."""
    if not isinstance(x, NDArray):
        raise MXNetError(f"autograd.get_symbol: x must be an NDArray, got {type(x).__name__}")
    entry = getattr(x._tensor, "_mx_recorded", None)
    if entry is None:
        if _variable_leaf(x).requires_grad and _grad_owner(_variable_leaf(x)) is None:
            raise MXNetError("autograd.get_symbol: the array was computed inside mx.autograd.record() by "
                             "something other than mx.nd operators or hybridized Gluon blocks (an "
                             "autograd.Function), whose graph mxtorch does not keep")
        if _grad_owner(_variable_leaf(x)) is None:
            raise MXNetError("autograd.get_symbol: NDArray is not part of a computation graph. Did you forget "
                             "to turn on recording? (compute it inside mx.autograd.record(), or mark it with "
                             "attach_grad())")
        entry = (RecordedLeaf(True), 0)
    root, root_index = entry
    built = {}
    leaves = []
    stack = [(root, False)]
    while stack:   # iterative depth-first post-order: long recordings do not hit the recursion limit
        item, expanded = stack.pop()
        if id(item) in built:
            continue
        if isinstance(item, RecordedLeaf):
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

# the C library object MXNet's module held (``from .base import _LIB``; see base_ctypes._CLibrary)
from .base_ctypes import _LIB  # noqa: E402,F401

# MXNet's private names of mxnet.autograd
from .recording import _Scope as _RecordingStateScope  # noqa: E402,F401  (same (is_record, train_mode) scope)
from .ndarray.ndarray import _GRAD_REQ_MAP  # noqa: E402,F401
from .ndarray.handles import ndarray_cls as _ndarray_cls  # noqa: E402,F401


def _parse_head(heads, head_grads):
    """``(head_handles, head_grad_handles)``: the handles of the head arrays as a ctypes array of
    ``c_void_p``, and those of the head gradients (``c_void_p(0)`` for ``None``: ones; a
    NULL entry for a ``None`` item), as MXNet passed them to its backward call.  One array
    counts as a list of one; AssertionError for lists of different lengths."""
    if isinstance(heads, NDArray):
        heads = [heads]
    if isinstance(head_grads, NDArray):
        head_grads = [head_grads]
    head_handles = (ctypes.c_void_p * len(heads))(*[head._as_parameter_.value for head in heads])
    if head_grads is None:
        return head_handles, ctypes.c_void_p(0)
    assert len(heads) == len(head_grads), "heads and head_grads must be lists of the same length"
    grad_handles = c_array(NDArrayHandle, [NDArrayHandle(g._as_parameter_.value) if g is not None
                                           else NDArrayHandle(0) for g in head_grads])
    return head_handles, grad_handles
