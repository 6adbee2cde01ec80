"""Names of MXNet 1.9.1's ``mxnet.ndarray.ndarray`` from its C era: the DLPack ctypes structures
and the deprecated ``imdecode``.

- ``DLContext``, ``DLDataType``, ``DLTensor``, ``DLManagedTensor`` are the DLPack C structures
  (field for field as MXNet declared them, DLPack 0.x naming); ``DeleterFunc`` the
  ``void (*)(DLManagedTensor *)`` callback type and ``PyCapsuleDestructor`` the
  ``void (*)(void *)`` one.  ``dl_managed_tensor_deleter`` is the DeleterFunc MXNet used for
  tensors it exported from NumPy: it drops the reference to the Python object kept in
  ``manager_ctx``.  mxtorch's own DLPack exchange goes through ``torch.utils.dlpack``
  (``to_dlpack_for_read`` / ``from_dlpack``); these are for code that builds capsules itself.
- ``imdecode(str_img, ...)`` decodes an encoded image into a ``(channels, height, width)`` array.
"""
from __future__ import annotations

import ctypes

import numpy as np

from ..base import MXNetError
from .creation import array
from .ndarray import NDArray

__all__ = ["DLContext", "DLDataType", "DLTensor", "DLManagedTensor", "DeleterFunc", "PyCapsuleDestructor",
           "dl_managed_tensor_deleter", "imdecode"]

PyCapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLContext(ctypes.Structure):
    """DLPack's device: ``device_type`` (1 CPU, 2 CUDA, 3 CUDA host) and ``device_id``."""
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    """DLPack's element type: ``type_code`` (0 int, 1 uint, 2 float), ``bits`` and ``lanes``.
    ``TYPE_MAP`` gives the triple of each dtype name MXNet exchanged (bool as a 1-bit uint)."""
    _fields_ = [("type_code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]
    TYPE_MAP = {
        "int32": (0, 32, 1), "int64": (0, 64, 1), "bool": (1, 1, 1), "uint8": (1, 8, 1),
        "uint32": (1, 32, 1), "uint64": (1, 64, 1), "float16": (2, 16, 1), "float32": (2, 32, 1),
        "float64": (2, 64, 1),
    }


class DLTensor(ctypes.Structure):
    """DLPack's tensor view: data pointer, device, ndim, dtype, shape / strides (int64
    pointers) and byte offset."""
    _fields_ = [("data", ctypes.c_void_p), ("ctx", DLContext), ("ndim", ctypes.c_int),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    """A DLTensor with its owner: ``dl_tensor``, ``manager_ctx`` (opaque) and ``deleter``."""


DeleterFunc = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", DeleterFunc)]


@DeleterFunc
def dl_managed_tensor_deleter(dl_managed_tensor_handle):
    """Release the Python object whose address is the tensor's ``manager_ctx`` (one reference)."""
    owner = ctypes.cast(dl_managed_tensor_handle.contents.manager_ctx, ctypes.py_object)
    ctypes.pythonapi.Py_DecRef(owner)


def imdecode(str_img, clip_rect=(0, 0, 0, 0), out=None, index=0, channels=3, mean=None):
    """Decode an encoded image (bytes) into an NDArray of shape ``(channels, height, width)``
    (deprecated in MXNet in favour of ``mx.img.imdecode``).

    The pixels keep OpenCV's channel order (BGR for colour images) as MXNet's decoder did;
    ``channels=1`` decodes to grey scale.  ``clip_rect=(x0, y0, x1, y1)`` keeps columns x0..x1-1
    and rows y0..y1-1 (all zeros: the whole image).  ``mean``, an NDArray of the output's
    ``(channels, height, width)`` shape, is subtracted, and the result takes its dtype (float32
    without it).  With ``out`` given (3-d, or 4-d written at ``out[index]``) the pixels go there
    and ``out`` is returned.  MXNetError when the bytes do not decode or a shape does not match.
    (MXNet 1.9.1's own ``mx.nd.imdecode`` could not decode Python bytes at all.)
    """
    from ..util import decode_image, import_opencv
    cv2 = import_opencv("imdecode")
    encoded = np.frombuffer(bytes(str_img), dtype=np.uint8)
    image = decode_image(cv2, encoded, 0 if channels == 1 else -1)
    if image is None:
        raise MXNetError("imdecode: OpenCV failed to decode the image bytes")
    if image.ndim == 2:
        image = image[:, :, None]
    if channels > image.shape[2]:
        raise MXNetError(f"imdecode: channels={channels} asked for, but the image has {image.shape[2]}")
    x0, y0, x1, y1 = (int(v) for v in clip_rect)
    if y1 - y0 == 0:
        x0, y0, x1, y1 = 0, 0, image.shape[1], image.shape[0]
    if x1 > image.shape[1] or y1 > image.shape[0]:
        raise MXNetError(f"imdecode: clip_rect {tuple(clip_rect)} reaches outside the "
                         f"{image.shape[1]}x{image.shape[0]} image")
    pixels = image[y0:y1, x0:x1, :channels].transpose(2, 0, 1)
    dtype = np.float32
    if mean is not None:
        if tuple(mean.shape) != pixels.shape:
            raise MXNetError(f"imdecode: mean has shape {tuple(mean.shape)}, expected {pixels.shape} "
                             f"(channels, height, width)")
        dtype = mean.dtype
        pixels = pixels.astype(dtype) - mean.asnumpy()
    result = array(pixels.astype(dtype), dtype=dtype)
    if out is None:
        return result
    if not isinstance(out, NDArray):
        raise MXNetError(f"imdecode: out must be an NDArray, got {type(out).__name__}")
    target = out if out.ndim == 3 else out[index] if out.ndim == 4 else None
    if target is None or tuple(target.shape) != pixels.shape:
        raise MXNetError(f"imdecode: out has shape {tuple(out.shape)}; expected {pixels.shape} or "
                         f"(n,) + {pixels.shape}")
    target[:] = result
    return out
