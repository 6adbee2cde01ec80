"""Array handles: MXNet's private helpers that made arrays through C handles
(``mxnet.ndarray.ndarray._new_empty_handle`` / ``_new_alloc_handle`` / ``_storage_type``,
``mxnet.ndarray.sparse._new_alloc_handle`` / ``_ndarray_cls``), over mxtorch's arrays.

An mxtorch handle is the ``NDArrayHandle`` (``ctypes.c_void_p``) token of an array that the
handle owns until ``NDArray(handle)`` (or ``_ndarray_cls(handle)``) takes it over, as MXNet's
array took ownership of the handle the C library returned.  ``ndarray/__init__.py`` puts these
names into the modules where MXNet had them.
"""
from __future__ import annotations

import numpy as np
import torch

from ..base import MXNetError, NDArrayHandle, mx_real_t
from .ndarray import (_C_OWNED_HANDLES, _HANDLES, _SIGNED_INT32_UPPER_LIMIT, _STORAGE_TYPE_CSR,
                      _STORAGE_TYPE_DEFAULT, _STORAGE_TYPE_ROW_SPARSE, _STORAGE_TYPE_STR_TO_ID,
                      _STORAGE_TYPE_UNDEFINED, NDArray, _int64_enabled, to_torch_dtype)
from .sparse import CSRNDArray, RowSparseNDArray, _with_storage

__all__ = ["new_empty_handle", "new_alloc_handle", "new_sparse_alloc_handle", "storage_type",
           "ndarray_cls", "set_ndarray_class"]


def _hand_out(array):
    """The handle of ``array``, which the handle owns until an NDArray takes it."""
    _C_OWNED_HANDLES[id(array)] = array
    _HANDLES[id(array)] = array
    return NDArrayHandle(id(array))


def _array_of(handle):
    value = getattr(handle, "value", handle)
    array = _C_OWNED_HANDLES.get(value)
    if array is None:
        array = _HANDLES.get(value)
    if array is None:
        raise MXNetError(f"{handle!r} is not the handle of a live NDArray")
    return array


def new_empty_handle():
    """A new handle of an empty array (MXNet's ``_new_empty_handle``: the array that an
    operator's output is written into)."""
    return _hand_out(NDArray(torch.empty(0)))


def _check_size(shape, where):
    size = 1
    for extent in shape:
        size *= int(extent)
    if size > _SIGNED_INT32_UPPER_LIMIT and not _int64_enabled():
        raise MXNetError(f"[{where}] Size of tensor you are trying to allocate is larger than 2^31 elements. "
                         f"Please build with flag USE_INT64_TENSOR_SIZE=1")


def new_alloc_handle(shape, ctx, delay_alloc, dtype=mx_real_t):  # noqa: ARG001  (torch allocates at once)
    """A new handle of an array of ``shape`` and ``dtype`` on Context ``ctx`` (MXNet's
    ``mxnet.ndarray.ndarray._new_alloc_handle``).  Its values are not set (MXNet's contract; here
    zeros); ``delay_alloc`` was MXNet's lazy allocation, torch allocates at once."""
    shape = tuple(int(extent) for extent in shape)
    _check_size(shape, "_new_alloc_handle")
    tensor = torch.zeros(shape, dtype=to_torch_dtype(dtype), device=ctx.torch_device)
    return _hand_out(NDArray(tensor, ctx))


def new_sparse_alloc_handle(stype, shape, ctx, delay_alloc, dtype, aux_types, aux_shapes=None):  # noqa: ARG001
    """A new handle of an all-zero array of storage type ``stype`` ('row_sparse', 'csr'),
    ``shape`` and ``dtype`` on ``ctx`` (MXNet's ``mxnet.ndarray.sparse._new_alloc_handle``).
    ``aux_types`` must be int64 (NotImplementedError otherwise, as in MXNet); the auxiliary
    shapes do not matter, sparse arrays being held dense."""
    for aux_type in aux_types:
        if np.dtype(aux_type) != np.dtype("int64"):
            raise NotImplementedError("only int64 is supported for aux types")
    if stype not in _STORAGE_TYPE_STR_TO_ID or _STORAGE_TYPE_STR_TO_ID[stype] < 0:
        raise MXNetError(f"_new_alloc_handle: unknown storage type {stype!r}; expected 'default', "
                         f"'row_sparse' or 'csr'")
    shape = tuple(int(extent) for extent in shape)
    _check_size(shape, "_new_alloc_handle")
    tensor = torch.zeros(shape, dtype=to_torch_dtype(dtype), device=ctx.torch_device)
    return _hand_out(_with_storage(tensor, ctx, stype))


def storage_type(handle):
    """The storage-type id (0 default, 1 row_sparse, 2 csr) of the array behind ``handle``
    (MXNet's ``_storage_type``)."""
    return _STORAGE_TYPE_STR_TO_ID[_array_of(handle).stype]


def ndarray_cls(handle, writable=True, stype=_STORAGE_TYPE_UNDEFINED):
    """The array of ``handle`` as an NDArray, CSRNDArray or RowSparseNDArray, by ``stype``
    (read from the handle when undefined) -- MXNet's ``_ndarray_cls``, through which its
    operators wrapped their outputs.  Exception for an unknown storage type, as in MXNet."""
    if stype == _STORAGE_TYPE_UNDEFINED:
        stype = storage_type(handle)
    classes = {_STORAGE_TYPE_DEFAULT: NDArray, _STORAGE_TYPE_CSR: CSRNDArray,
               _STORAGE_TYPE_ROW_SPARSE: RowSparseNDArray}
    if stype not in classes:
        raise MXNetError(f"unknown storage type: {stype}")
    return classes[stype](handle, writable=writable)


_ARRAY_CLASS = [ndarray_cls]


def set_ndarray_class(cls):
    """Set the function that wraps handles into arrays (MXNet's ``_global_var._set_ndarray_class``;
    ``_ndarray_cls`` is the default).  Returns nothing, as MXNet's."""
    _ARRAY_CLASS[0] = cls


def wrap_output(array):
    """``array`` passed through the function set by ``set_ndarray_class`` as its handle, as
    MXNet wrapped each output of an operator call (``_imperative_invoke``)."""
    return _ARRAY_CLASS[0](_hand_out(array), True, _STORAGE_TYPE_STR_TO_ID[array.stype])
