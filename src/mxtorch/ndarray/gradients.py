"""The gradient engine of the imperative front end: variables, head gradients, ``backward`` and
``grad`` over NDArray computations recorded inside ``mx.autograd.record()`` (MXNet's
``mxnet.autograd`` functions of the same names, re-exported there).

Torch's autograd does the differentiation.  The variables are the arrays marked with
``attach_grad`` / ``mark_variables``; an integer variable records its gradient on a float
carrier (``recording.gradient_carrier``).  ``NDArray.attach_grad`` and ``NDArray.backward``
reach this file through ``ndarray.provide`` (it imports the array class, so the class cannot
import it).
"""
from __future__ import annotations

import warnings
import weakref

import numpy as np
import torch

from ..base import MXNetError
from ..ops.registry import _to_dtype
from ..recording import RecordedLeaf, attach_carrier, differentiate, gradient_carrier, grad_owner
from .ndarray import NDArray, provide

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
        make_variable(variable, gradient, req)


@provide("make_variable")
def make_variable(array, gradient, req):
    """Make ``array`` a variable (a fresh torch leaf sharing its memory) with ``gradient`` as grad.
    An integer array is a variable through a float carrier leaf (``registry.gradient_carrier``):
    MXNet differentiated integer arrays, their gradients truncated to integers."""
    array._grad = gradient
    array._grad_req = req
    array._fresh_grad = False
    # a 'null' variable is a variable too: the recording reaches it (so that, as in MXNet, a
    # backward that does not retain the graph drops its gradient array), but it is never one of
    # the differentiated inputs
    if array._tensor.is_floating_point() or array._tensor.is_complex():
        array.use_storage(array._tensor, requires_grad=True)
        leaf = array._tensor
    else:
        array.use_storage(array._tensor)
        leaf = attach_carrier(array._tensor)
    array._tensor._mx_recorded = (RecordedLeaf(True), 0)   # for get_symbol
    # a weak reference: the array owns its tensor, and a strong link back would make a
    # reference cycle that keeps both (and their memory) alive until the garbage collector
    # runs, while MXNet freed an array as soon as its last reference went
    leaf._mx_grad_owner = weakref.ref(array)


def hand_over_variable(old, new):
    """Make ``new`` (an array on ``old``'s tensor, such as ``old.as_np_ndarray()``) the variable
    ``old`` was, for a caller that replaces ``old`` by ``new`` (a Parameter's arrays converted
    under ``npx.set_np()``): the gradient leaf refers back to its owner weakly, so without this
    the leaf would lose its owner once ``old`` is dropped.  Nothing changes when ``old`` is not
    a variable."""
    leaf = variable_leaf(old)
    if grad_owner(leaf) is old:
        new._grad, new._grad_req, new._fresh_grad = old._grad, old._grad_req, old._fresh_grad
        leaf._mx_grad_owner = weakref.ref(new)


def variable_leaf(array):
    """The torch leaf that records ``array``'s gradient: its tensor, or an integer array's carrier."""
    return gradient_carrier(array._tensor)


def _gradient_leaves(tensors):
    """The variable tensors (marked by attach_grad / mark_variables) the computation of ``tensors`` reaches."""
    leaves = {}
    seen = set()
    pending = []
    for tensor in tensors:
        if tensor.grad_fn is None:
            if grad_owner(tensor) is not None:
                leaves[id(tensor)] = tensor
        else:
            pending.append(tensor.grad_fn)
    while pending:
        function = pending.pop()
        if function is None or function in seen:
            continue
        seen.add(function)
        variable = getattr(function, "variable", None)
        if variable is not None and grad_owner(variable) is not None:
            leaves[id(variable)] = variable
        pending.extend(next_function for next_function, _ in function.next_functions)
    return list(leaves.values())


def _requested(leaf):
    """Whether the variable of ``leaf`` asks for its gradient (grad_req 'write' or 'add')."""
    owner = grad_owner(leaf)
    return owner is not None and owner._grad_req != "null"


def _drop_null_gradients(reached):
    """MXNet 1.9.1 freed the recorded graph after a backward that did not retain it, and with it
    the gradient array of every grad_req='null' variable the graph reached: their ``grad`` is None
    afterwards (``attach_grad`` gives a new one)."""
    for leaf in reached:
        owner = grad_owner(leaf)
        if owner is not None and owner._grad_req == "null" and variable_leaf(owner) is leaf:
            owner._grad = None


def head_gradient(tensor, given, mismatch):
    """The head gradient for ``tensor``: ones when ``given`` is None, else ``given`` (an NDArray or
    anything ``numpy.asarray`` takes) as a detached tensor on ``tensor``'s device and dtype.
    Raises MXNetError with the message ``mismatch(shape)`` when the shapes differ.  Shared by
    ``mx.autograd.backward`` / ``grad`` and ``Executor.backward``."""
    if given is None:
        return torch.ones_like(tensor)
    value = given._tensor if isinstance(given, NDArray) else torch.as_tensor(np.asarray(given))
    if tuple(value.shape) != tuple(tensor.shape):
        raise MXNetError(mismatch(tuple(value.shape)))
    return value.detach().to(device=tensor.device, dtype=tensor.dtype)


def _heads_and_grads(caller, heads, head_grads):
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
            return differentiate([t for t, _ in recorded], inputs, [g for _, g in recorded],
                                 retain_graph=retain_graph, create_graph=create_graph)
    except RuntimeError as error:
        raise MXNetError(f"{caller}: {error} (differentiate a recording once, or pass retain_graph=True)") from None
    finally:
        if not retain_graph:
            for tensor, _ in recorded:
                if tensor.grad_fn is not None:
                    tensor._mx_graph_released = True


@provide("backward")
def backward(heads, head_grads=None, retain_graph=False, train_mode=True):  # noqa: ARG001
    """Compute the gradients of ``heads`` (an NDArray or a list) with respect to every variable the
    recorded computation reaches and store them in the variables' gradient arrays.

    ``head_grads``: one array per head (None or a None entry means ones).  ``retain_graph`` keeps the
    recording for another backward.  ``train_mode`` is accepted as in MXNet; the training flag took
    effect when the forward computation was recorded.  Raises MXNetError when nothing was recorded,
    a head gradient's shape differs from its head, or the recording was already used.
    """
    tensors, grads = _heads_and_grads("backward", heads, head_grads)
    reached = _gradient_leaves(tensors)
    leaves = [leaf for leaf in reached if _requested(leaf)]
    if not leaves:
        raise MXNetError("backward: the heads were not computed inside mx.autograd.record() from an array "
                         "marked with attach_grad() or mark_variables() with grad_req 'write' or 'add'")
    results = _differentiate("backward", tensors, grads, leaves, retain_graph, False)
    if not retain_graph:
        _drop_null_gradients(reached)
    with torch.no_grad():
        for leaf, value in zip(leaves, results):
            owner = grad_owner(leaf)
            if owner is None or owner._grad is None or variable_leaf(owner) is not leaf:
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
    variables = _as_list(variables)
    if not variables:
        raise MXNetError("grad: variables cannot be an empty list")
    for index, variable in enumerate(variables):
        if not isinstance(variable, NDArray) or grad_owner(variable_leaf(variable)) is None:
            raise MXNetError(f"grad: variable {index} must be an NDArray marked with attach_grad() or "
                             f"mark_variables()")
    if retain_graph is None:
        retain_graph = create_graph
    tensors, grads = _heads_and_grads("grad", heads, head_grads)
    inputs = [variable_leaf(variable) for variable in variables]
    results = _differentiate("grad", tensors, grads, inputs, retain_graph, create_graph)
    if not retain_graph:
        _drop_null_gradients(_gradient_leaves(tensors))
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
        return _to_dtype(value.detach(), dtype)
    if not create_graph:
        return value.detach()
    if not value.requires_grad:
        anchor = torch.zeros((), dtype=value.dtype, device=value.device, requires_grad=True)
        value = value + anchor
    return value
