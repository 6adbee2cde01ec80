"""``mx.contrib.autograd``: the experimental autograd interface of MXNet 0.11, kept by 1.9.1.

``train_section()`` / ``test_section()`` are scopes that record in training or
inference mode, ``set_is_training`` switches both flags together, and
``grad_and_loss`` / ``grad`` turn a function of NDArrays into one returning
its gradients.  Everything runs on :mod:`mxtorch.autograd`.
"""
from __future__ import annotations

import functools

from .. import autograd as _autograd
from ..base import MXNetError
from .. import ndarray as _nd
from ..ndarray.ndarray import NDArray
# names MXNet 1.9.1's mxnet.contrib.autograd had in its namespace from its ctypes binding
from ..base import (  # noqa: E402,F401
    NDArrayHandle, c_array, c_array_buf, c_handle_array, check_call, mx_uint, string_types,
)
# names MXNet 1.9.1's mxnet.contrib.autograd had in its namespace (imported there, not defined)
from array import array  # noqa: E402,F401

__all__ = ["set_is_training", "TrainingStateScope", "train_section", "test_section", "mark_variables",
           "backward", "compute_gradient", "grad_and_loss", "grad"]


def set_is_training(is_train):
    """Switch recording and training mode on or off together; returns the previous training flag."""
    previous = _autograd.set_training(is_train)
    _autograd.set_recording(is_train)
    return previous


class TrainingStateScope:
    """Scope that sets recording and training mode to ``enter_state`` and restores them on exit."""

    def __init__(self, enter_state):
        self._enter_state = bool(enter_state)
        self._previous = None

    def __enter__(self):
        self._previous = (_autograd.is_recording(), _autograd.is_training())
        _autograd.set_recording(self._enter_state)
        _autograd.set_training(self._enter_state)

    def __exit__(self, *exc):
        _autograd.set_recording(self._previous[0])
        _autograd.set_training(self._previous[1])


def train_section():
    """Scope that records in training mode (``with train_section():``)."""
    return TrainingStateScope(True)


def test_section():
    """Scope that neither records nor trains (inference inside a train_section)."""
    return TrainingStateScope(False)


def mark_variables(variables, gradients, grad_reqs="write"):
    """Mark ``variables`` with their gradient arrays (see :func:`mxtorch.autograd.mark_variables`)."""
    _autograd.mark_variables(variables, gradients, grad_reqs)


def backward(outputs, out_grads=None, retain_graph=False):
    """Gradients of ``outputs`` into the marked variables (see :func:`mxtorch.autograd.backward`)."""
    _autograd.backward(outputs, out_grads, retain_graph=retain_graph)


def compute_gradient(outputs):
    """``backward(outputs)`` with ones as head gradients (MXNet's deprecated spelling)."""
    backward(outputs)


def grad_and_loss(func, argnum=None):
    """Wrap ``func`` (NDArrays in, an NDArray or list out) into a function returning
    ``(gradients, outputs)``: the gradients of the outputs with respect to the arguments whose
    positions ``argnum`` (an int or list; all when None) names."""
    @functools.wraps(func)
    def wrapped(*args):
        variables = args
        if argnum is not None:
            positions = argnum if isinstance(argnum, list) else [argnum]
            variables = [args[i] for i in positions]
        for value in variables:
            if not isinstance(value, NDArray):
                raise MXNetError(f"grad_and_loss: the differentiated arguments must be NDArrays, "
                                 f"got {type(value).__name__}")
        grads = [_nd.zeros_like(value) for value in variables]
        mark_variables(variables, grads)
        with train_section():
            outputs = func(*args)
        compute_gradient([outputs] if isinstance(outputs, NDArray) else outputs)
        return grads, outputs
    return wrapped


def grad(func, argnum=None):
    """Wrap ``func`` into a function returning only the gradients (see :func:`grad_and_loss`)."""
    with_loss = grad_and_loss(func, argnum)

    @functools.wraps(with_loss)
    def wrapped(*args):
        return with_loss(*args)[0]
    return wrapped

# names MXNet 1.9.1's mxnet.contrib.autograd had in its namespace (imported there, not defined)
from ..ndarray import zeros_like  # noqa: E402,F401

# the C library object MXNet's module held (``from .base import _LIB``; see base_ctypes._CLibrary)
from ..base_ctypes import _LIB  # noqa: E402,F401
from ..ndarray.ndarray import _GRAD_REQ_MAP  # noqa: E402,F401  (MXNet's module imported it)
