"""MXNet's helpers for index keys (``mxnet.ndarray.ndarray.indexing_key_expand_implicit_axes``,
``get_indexing_dispatch_code``, ``get_oshape_of_gather_nd_op``, ``check_boolean_array_dimension``
and the ``NDARRAY_*`` dispatch codes), on NDArray keys.  NDArray's own indexing works on tensors
in ``indexing.py``."""
from __future__ import annotations

import numbers

import numpy as np

from ..base import MXNetError
from ..util import is_np_array
from .creation import array
from .ndarray import NDArray

__all__ = ['NDARRAY_UNSUPPORTED_INDEXING', 'NDARRAY_BASIC_INDEXING', 'NDARRAY_ADVANCED_INDEXING', 'NDARRAY_EMPTY_TUPLE_INDEXING', 'NDARRAY_NO_ZERO_DIM_BOOL_ARRAY', 'NDARRAY_ZERO_DIM_BOOL_ARRAY_FALSE', 'NDARRAY_ZERO_DIM_BOOL_ARRAY_TRUE', 'check_boolean_array_dimension', 'indexing_key_expand_implicit_axes', 'get_indexing_dispatch_code', 'get_oshape_of_gather_nd_op',
           # MXNet 1.9.1's private names of the same helpers (mxnet.ndarray.ndarray)
           '_NDARRAY_UNSUPPORTED_INDEXING', '_NDARRAY_BASIC_INDEXING', '_NDARRAY_ADVANCED_INDEXING',
           '_NDARRAY_EMPTY_TUPLE_INDEXING', '_NDARRAY_NO_ZERO_DIM_BOOL_ARRAY',
           '_NDARRAY_ZERO_DIM_BOOL_ARRAY_FALSE', '_NDARRAY_ZERO_DIM_BOOL_ARRAY_TRUE', '_int_to_slice',
           '_shape_for_bcast', '_is_advanced_index', '_get_index_range', '_get_dim_size', '_get_slice_len',
           '_get_broadcast_shape', '_broadcast_shapes']


# -- MXNet 1.9.1's public indexing helpers (``mxnet.ndarray.ndarray``) --------------------------------
# Dispatch codes of ``get_indexing_dispatch_code`` and the 0-d boolean markers of
# ``indexing_key_expand_implicit_axes``, with MXNet's values.
NDARRAY_UNSUPPORTED_INDEXING = -1
NDARRAY_BASIC_INDEXING = 0
NDARRAY_ADVANCED_INDEXING = 1
NDARRAY_EMPTY_TUPLE_INDEXING = 2
NDARRAY_NO_ZERO_DIM_BOOL_ARRAY = -1
NDARRAY_ZERO_DIM_BOOL_ARRAY_FALSE = 0
NDARRAY_ZERO_DIM_BOOL_ARRAY_TRUE = 1


def check_boolean_array_dimension(array_shape, axis, bool_shape):
    """Raise IndexError unless a boolean index of shape ``bool_shape`` matches ``array_shape``
    from axis ``axis`` on, extent for extent (MXNet's check before turning it into indices)."""
    for offset, extent in enumerate(bool_shape):
        if array_shape[axis + offset] != extent:
            raise IndexError(f"boolean index did not match indexed array along axis {axis + offset}; "
                             f"size is {array_shape[axis + offset]} but corresponding boolean size "
                             f"is {extent}")


def indexing_key_expand_implicit_axes(key, shape):
    """``(expanded_key, prepend)`` for an index ``key`` of an array of ``shape``.

    The implicit axes (an ``Ellipsis``, or axes the key leaves out at the end) become explicit
    ``slice(None)`` entries; a 0-d integer NDArray becomes a Python int; a boolean NDArray becomes
    its ``nonzero()`` index arrays (under NumPy semantics only, ``mx.npx.set_np()``: ValueError
    otherwise, as MXNet).  ``prepend`` is -1 normally, 0 or 1 when the key holds a 0-d boolean
    array False or True (an extra empty or length-1 axis).  IndexError for two ellipses."""
    if not isinstance(key, tuple):
        key = (key,)
    ellipsis_at, new_axes, axis = None, 0, 0
    prepend = NDARRAY_NO_ZERO_DIM_BOOL_ARRAY
    explicit = []
    for position, item in enumerate(key):
        if item is Ellipsis:
            if ellipsis_at is not None:
                raise IndexError("Cannot use more than one ellipsis (`...`) for indexing")
            ellipsis_at = position
            continue
        if isinstance(item, bool):
            item = array(item, dtype=np.bool_)
        if item is None:
            new_axes += 1
        is_bool = isinstance(item, NDArray) and item.dtype == np.bool_
        if isinstance(item, NDArray) and item.ndim == 0 and is_bool:
            prepend = NDARRAY_ZERO_DIM_BOOL_ARRAY_TRUE if bool(item.asscalar()) else NDARRAY_ZERO_DIM_BOOL_ARRAY_FALSE
        elif isinstance(item, NDArray) and item.ndim == 0:
            explicit.append(int(item.asscalar()))
            axis += 1
        elif is_bool:
            check_boolean_array_dimension(shape, axis, item.shape)
            if not is_np_array():
                raise ValueError("Cannot perform boolean indexing in legacy mode. Please activate numpy "
                                 "semantics by calling `npx.set_np()` in the global scope before calling "
                                 "this function.")
            explicit.extend(array(indices, dtype=np.int64) for indices in np.nonzero(item.asnumpy()))
            axis += item.ndim
        else:
            explicit.append(item)
            axis += 1
    explicit = tuple(explicit)
    if ellipsis_at is None:
        ellipsis_at = len(explicit)
    filled = len(shape) + new_axes - len(explicit)
    return explicit[:ellipsis_at] + (slice(None),) * filled + explicit[ellipsis_at:], prepend


def get_indexing_dispatch_code(key):
    """MXNet's dispatch code for a tuple ``key``: 1 (advanced) when an entry is an NDArray, NumPy
    array, list, tuple or range, 2 for an empty tuple entry, 0 (basic) when all entries are
    slices, integers or None; ValueError for any other entry type."""
    if not isinstance(key, tuple):
        raise MXNetError(f"get_indexing_dispatch_code: expected a tuple key, got {type(key).__name__}")
    for item in key:
        if isinstance(item, (NDArray, np.ndarray, list, tuple, range)):
            if isinstance(item, tuple) and not item:
                return NDARRAY_EMPTY_TUPLE_INDEXING
            return NDARRAY_ADVANCED_INDEXING
        if not (item is None or isinstance(item, (slice, numbers.Integral))):
            raise ValueError(f"NDArray does not support slicing with key {item} of type {type(item)}.")
    return NDARRAY_BASIC_INDEXING


def get_oshape_of_gather_nd_op(dshape, ishape):
    """The output shape of ``gather_nd(data, indices)`` for a data shape ``dshape`` and an index
    shape ``ishape``: ``ishape[1:] + dshape[ishape[0]:]``."""
    if not dshape or not ishape:
        raise MXNetError(f"gather_nd: data and indices need at least one axis each, got shapes "
                         f"{tuple(dshape)} and {tuple(ishape)}")
    return tuple(ishape[1:]) + (tuple(dshape[ishape[0]:]) if ishape[0] < len(dshape) else ())


# -- MXNet 1.9.1's private indexing helpers (``mxnet.ndarray.ndarray``) -------------------------------
_NDARRAY_UNSUPPORTED_INDEXING = NDARRAY_UNSUPPORTED_INDEXING
_NDARRAY_BASIC_INDEXING = NDARRAY_BASIC_INDEXING
_NDARRAY_ADVANCED_INDEXING = NDARRAY_ADVANCED_INDEXING
_NDARRAY_EMPTY_TUPLE_INDEXING = NDARRAY_EMPTY_TUPLE_INDEXING
_NDARRAY_NO_ZERO_DIM_BOOL_ARRAY = NDARRAY_NO_ZERO_DIM_BOOL_ARRAY
_NDARRAY_ZERO_DIM_BOOL_ARRAY_FALSE = NDARRAY_ZERO_DIM_BOOL_ARRAY_FALSE
_NDARRAY_ZERO_DIM_BOOL_ARRAY_TRUE = NDARRAY_ZERO_DIM_BOOL_ARRAY_TRUE


def _int_to_slice(idx):
    """The slice that selects what the integer index ``idx`` selects, keeping the axis
    (``slice(-1, None)`` for -1)."""
    return slice(-1, None) if idx == -1 else slice(idx, idx + 1)


def _shape_for_bcast(shape, target_ndim, new_axes):
    """``shape`` extended to ``target_ndim`` axes for broadcasting: when it is shorter, the axes
    ``new_axes`` are 1; the remaining axes take ``shape``'s extents from the right, then 1."""
    new_shape = [None] * target_ndim
    if len(shape) < target_ndim:
        for axis in new_axes:
            new_shape[axis] = 1
    taken = 1
    for axis in range(1, target_ndim + 1):
        if new_shape[-axis] is None:
            if taken <= len(shape):
                new_shape[-axis] = shape[-taken]
                taken += 1
            else:
                new_shape[-axis] = 1
    return tuple(new_shape)


def _is_advanced_index(idx):
    """True for an index taking part in advanced indexing (an NDArray, NumPy array, integer,
    list, tuple or range), False for a slice or None; RuntimeError for anything else."""
    if isinstance(idx, (NDArray, np.ndarray, numbers.Integral, np.integer, list, tuple, range)):
        return True
    if isinstance(idx, slice) or idx is None:
        return False
    raise RuntimeError(f"illegal index type {type(idx)}")


def _get_index_range(start, stop, length, step=1):
    """``(start, stop, step)`` of a slice over ``length`` entries made absolute: negative bounds
    count from the end and are clipped to ``[0, length]``; a missing stop with a negative step is
    -1 (before the first entry).  ValueError for a zero step or a negative length."""
    if step == 0:
        raise ValueError("step size cannot be zero")
    if length < 0:
        raise ValueError("array length cannot be less than zero")
    step = 1 if step is None else step
    if start is None:
        start = 0 if step > 0 else length - 1
    elif start < 0:
        start = max(start + length, 0)
    elif start >= length:
        start = length
    if stop is None:
        stop = length if step > 0 else -1
    elif stop < 0:
        stop = max(stop + length, 0)
    elif stop > length:
        stop = length
    return start, stop, step


def _get_dim_size(start, stop, step):
    """The number of entries from ``start`` to ``stop`` (exclusive) by ``step``, for bounds from
    ``_get_index_range``; AssertionError for a zero step or bounds in the wrong order."""
    assert step != 0
    if stop == start:
        return 0
    if step > 0:
        assert start < stop
        return (stop - start - 1) // step + 1
    assert stop < start
    return (start - stop - 1) // (-step) + 1


def _get_slice_len(slc, seq_length):
    """The number of entries slice ``slc`` selects from a sequence of ``seq_length``."""
    start, stop, step = slc.indices(seq_length)
    return max(0, (stop - start + (step - (1 if step > 0 else -1))) // step)


def _get_broadcast_shape(shape1, shape2):
    """The shape two shapes broadcast to (NumPy's rule); ValueError when they do not."""
    if shape1 == shape2:
        return shape1
    shape = list(shape1) if len(shape1) > len(shape2) else list(shape2)
    position = max(len(shape1), len(shape2)) - 1
    for a, b in zip(shape1[::-1], shape2[::-1]):
        if a != 1 and b != 1 and a != b:
            raise ValueError(f"shape1={shape1} is not broadcastable to shape2={shape2}")
        shape[position] = b if a == 1 else a
        position -= 1
    return tuple(shape)


def _broadcast_shapes(seq):
    """The shape that the ``shape`` of every entry of ``seq`` broadcasts to (``()`` for none)."""
    result = ()
    for item in seq:
        result = _get_broadcast_shape(result, item.shape)
    return result
