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

__all__ = ['NDARRAY_UNSUPPORTED_INDEXING', 'NDARRAY_BASIC_INDEXING', 'NDARRAY_ADVANCED_INDEXING', 'NDARRAY_EMPTY_TUPLE_INDEXING', 'NDARRAY_NO_ZERO_DIM_BOOL_ARRAY', 'NDARRAY_ZERO_DIM_BOOL_ARRAY_FALSE', 'NDARRAY_ZERO_DIM_BOOL_ARRAY_TRUE', 'check_boolean_array_dimension', 'indexing_key_expand_implicit_axes', 'get_indexing_dispatch_code', 'get_oshape_of_gather_nd_op']


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
