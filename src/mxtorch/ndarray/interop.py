"""NumPy and DLPack interoperation of NDArrays (MXNet's ``mx.nd.from_numpy``, ``from_dlpack``
and the C entry point ``MXNDArrayFromDLPack`` behind ``base._LIB``)."""
from __future__ import annotations

import ctypes

import numpy as np
import torch
import torch.utils.dlpack

from .. import base as _dtypes
from ..base import MXNetError, MXNetValueError, check_call
from ..base_ctypes import _LIB, _output_pointer
from ..context import Context
from .creation import array
from .ndarray import _C_OWNED_HANDLES, _HANDLES, NDArray, to_numpy_dtype, waitall

def from_numpy(ndarray, zero_copy=True, array_cls=NDArray):
    """An NDArray for a NumPy array.  With ``zero_copy=True`` (default) the NDArray shares the
    NumPy array's memory, which must be C-contiguous, and, as in MXNet, the NumPy array is made
    read-only (write through the NDArray); with ``zero_copy=False`` the data are copied.  The
    dtype is kept; MXNetError for a dtype mxtorch does not support, MXNetValueError (a ValueError, as MXNet)
    for a non-contiguous array."""
    if not isinstance(ndarray, np.ndarray):
        raise MXNetError(f"from_numpy: expected a numpy.ndarray, got {type(ndarray).__name__}")
    to_numpy_dtype(ndarray.dtype)
    if not zero_copy:
        return array(ndarray, dtype=ndarray.dtype)
    if not ndarray.flags["C_CONTIGUOUS"]:
        # a ValueError as in MXNet 1.9.1 (also an MXNetError)
        raise MXNetValueError("from_numpy: zero_copy needs a C-contiguous array; use numpy.ascontiguousarray "
                              "or zero_copy=False")
    tensor = torch.from_numpy(ndarray)
    ndarray.flags["WRITEABLE"] = False
    result = array_cls(tensor, Context("cpu", 0)) if isinstance(array_cls, type) and \
        issubclass(array_cls, NDArray) else NDArray(tensor, Context("cpu", 0))
    return result


def from_dlpack(dlpack):
    """An NDArray sharing the memory of a DLPack capsule (from ``to_dlpack_for_*`` or another
    framework; a capsule is consumed once) or of an object with ``__dlpack__``.  MXNetError when
    the capsule was already used or holds an unsupported dtype."""
    try:
        tensor = torch.utils.dlpack.from_dlpack(dlpack)
    except (RuntimeError, TypeError, ValueError, BufferError) as error:
        raise MXNetError(f"from_dlpack: {error}") from None
    if tensor.dtype not in _dtypes.torch_dtypes():
        raise MXNetError(f"from_dlpack: dtype {tensor.dtype} is not supported")
    return NDArray(tensor)


# the capsule name: PyCapsule keeps the pointer, not a copy, so the bytes must outlive the capsule
_DLTENSOR_NAME = ctypes.c_char_p(b"dltensor")


def _handle_from_dlpack_pointer(pointer):
    """The C handle (an int) of a new NDArray on the memory of the ``DLManagedTensor`` at address
    ``pointer`` (MXNet's ``MXNDArrayFromDLPack``).  The array takes over the tensor: its deleter
    runs when the array's memory is freed, so the caller must not call it (MXNet's contract; its
    ``from_dlpack`` renamed the capsule to ``'used_dltensor'`` and removed its destructor).  The
    handle keeps the array alive until ``NDArray(handle)`` takes it."""
    if not pointer:
        raise MXNetError("MXNDArrayFromDLPack: the DLManagedTensor pointer is NULL")
    # a capsule without destructor: torch.from_dlpack marks it used and owns the tensor from then
    # on (PyCapsule_New returns a py_object: base_ctypes sets the restype as MXNet's base did)
    capsule = ctypes.pythonapi.PyCapsule_New(ctypes.c_void_p(pointer), _DLTENSOR_NAME, None)
    array = from_dlpack(capsule)
    _C_OWNED_HANDLES[id(array)] = array
    _HANDLES[id(array)] = array
    return id(array)


def _ndarray_from_dlpack(dlpack, out):
    """MXNet's C entry point ``MXNDArrayFromDLPack(dlpack, byref(handle))`` (see
    ``base._LIB``): ``handle`` becomes the handle of an NDArray on the ``DLManagedTensor`` at
    ``dlpack`` (an address or a ``c_void_p``)."""
    pointer = getattr(dlpack, "value", dlpack)
    _output_pointer(out).value = _handle_from_dlpack_pointer(pointer)
    return 0


_LIB.provide("MXNDArrayFromDLPack", _ndarray_from_dlpack)


# -- MXNet's DLPack capsule destructor (``mxnet.ndarray.ndarray._dlpack_deleter``) ---------------------
class _DLManagedTensorHead(ctypes.Structure):
    """The leading fields of DLPack's ``DLManagedTensor`` up to its deleter: the ``DLTensor``
    (data, device type and id, ndim, dtype code / bits / lanes, shape, strides, byte offset),
    ``manager_ctx`` and ``deleter``."""
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int), ("device_id", ctypes.c_int),
                ("ndim", ctypes.c_int), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16), ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                ("byte_offset", ctypes.c_uint64), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.CFUNCTYPE(None, ctypes.c_void_p))]


_c_str_dltensor = ctypes.c_char_p(b"dltensor")
_c_str_used_dltensor = ctypes.c_char_p(b"used_dltensor")


def _call_dlpack_deleter(pointer):
    """``MXNDArrayCallDLPackDeleter(ptr)``: run the deleter of the ``DLManagedTensor`` at
    ``pointer`` (nothing for NULL or a tensor without deleter)."""
    address = getattr(pointer, "value", pointer)
    if address:
        head = _DLManagedTensorHead.from_address(address)
        if head.deleter:
            head.deleter(address)
    return 0


def _dlpack_deleter(pycapsule):
    """The destructor MXNet gave its DLPack capsules: a capsule still named ``'dltensor'``
    (not consumed by a framework, which renames it ``'used_dltensor'``) frees its tensor
    through the tensor's own deleter.  ``pycapsule`` is the capsule's address."""
    capsule = ctypes.c_void_p(pycapsule)
    if ctypes.pythonapi.PyCapsule_IsValid(capsule, _c_str_dltensor):
        pointer = ctypes.c_void_p(ctypes.pythonapi.PyCapsule_GetPointer(capsule, _c_str_dltensor))
        check_call(_LIB.MXNDArrayCallDLPackDeleter(pointer))


_c_dlpack_deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(_dlpack_deleter)
_LIB.provide("MXNDArrayCallDLPackDeleter", _call_dlpack_deleter)


def _notify_shutdown():
    """``MXNotifyShutdown()``: finish the work queued on the devices before the process ends."""
    waitall()
    return 0


_LIB.provide("MXNotifyShutdown", _notify_shutdown)
