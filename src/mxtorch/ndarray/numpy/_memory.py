"""``mx.np.shares_memory`` / ``mx.np.may_share_memory``: whether two arrays use the same memory.

An ``mx.np`` array is a torch tensor, and basic indexing gives views of it (``x[0, 2:5]``), so
two arrays overlap when their tensors' element ranges in one storage intersect.  On the CPU
the answer is NumPy's own, computed on NumPy views of the same memory (exact for strided views
too); on other devices it is the byte-range test, which MXNet 1.9.1 used for both functions
(its arrays were always contiguous, where the range test is exact).
"""
from __future__ import annotations

import numpy as _onp
import torch

from ...base import MXNetError
from ..ndarray import NDArray

__all__ = ["shares_memory", "may_share_memory"]


def _tensor_of(value, function):
    if not isinstance(value, NDArray):
        raise MXNetError(f"{function}: the arguments must be mx.np arrays, got {type(value).__name__}")
    return value._tensor


def _byte_range(tensor):
    """``(storage address, first byte, end byte)`` of the elements of ``tensor``; None if empty."""
    if tensor.numel() == 0:
        return None
    low = sum((size - 1) * stride for size, stride in zip(tensor.shape, tensor.stride()) if stride < 0)
    high = sum((size - 1) * stride for size, stride in zip(tensor.shape, tensor.stride()) if stride > 0)
    start = tensor.data_ptr() + low * tensor.element_size()
    return tensor.untyped_storage().data_ptr(), start, tensor.data_ptr() + (high + 1) * tensor.element_size()


def _ranges_overlap(a, b):
    first, second = _byte_range(a), _byte_range(b)
    if first is None or second is None or first[0] != second[0]:
        return False
    return first[1] < second[2] and second[1] < first[2]


def _numpy_view(tensor):
    """A NumPy array on ``tensor``'s memory (CPU tensors of NumPy dtypes), else None."""
    if tensor.device.type != "cpu" or tensor.dtype in (torch.bfloat16,) or tensor.is_quantized:
        return None
    try:
        return tensor.detach().numpy()
    except (TypeError, RuntimeError):
        return None


def _overlap(function, numpy_function, a, b, max_work):
    a, b = _tensor_of(a, function), _tensor_of(b, function)
    first, second = _numpy_view(a), _numpy_view(b)
    if first is not None and second is not None:
        return bool(numpy_function(first, second, max_work=max_work))
    return _ranges_overlap(a, b)


def shares_memory(a, b, max_work=None):
    """Whether ``a`` and ``b`` (``mx.np`` arrays) have an element in the same memory (a Python
    bool).  ``max_work`` as NumPy's (CPU arrays; NumPy raises ``numpy.exceptions.TooHardError``
    past it).  An empty array shares memory with nothing.  MXNetError for non-array arguments."""
    return _overlap("shares_memory", _onp.shares_memory, a, b, max_work)


def may_share_memory(a, b, max_work=None):
    """Whether ``a`` and ``b`` (``mx.np`` arrays) might share memory: NumPy's bounds test on the
    CPU, the byte-range test elsewhere (a Python bool).  MXNetError for non-array arguments."""
    return _overlap("may_share_memory", _onp.may_share_memory, a, b, max_work)
