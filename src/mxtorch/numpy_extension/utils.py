"""``npx.save`` / ``npx.load``: ``mx.np`` arrays in MXNet's ``.npz``-free binary format (the
``mx.nd.save`` format, so files cross between the two front ends and MXNet)."""
from ..ndarray import serialization as _serialization
from ..ndarray.ndarray import NDArray
from ..util import is_np_array, is_np_shape  # noqa: F401  (MXNet's module namespace)
from ..ndarray.numpy_array import ndarray  # noqa: F401
from ..base import (NDArrayHandle, _LIB, c_handle_array, c_str, c_str_array, check_call, mx_uint,  # noqa: F401
                    py_str, string_types)

__all__ = ["save", "load"]


def save(file, arr):
    """Save an ``mx.np.ndarray``, a list of them or a dict of name -> array to ``file``."""
    if isinstance(arr, NDArray):
        arr = [arr]
    if isinstance(arr, dict):
        values = {name: value.as_nd_ndarray() for name, value in arr.items()}
    elif isinstance(arr, (list, tuple)):
        values = [value.as_nd_ndarray() for value in arr]
    else:
        raise TypeError(f"save: only ndarray, a list or a dict of them is supported, got {type(arr).__name__}")
    _serialization.save(file, values)


def load(file):
    """The arrays saved in ``file``: a dict of name -> ``mx.np.ndarray`` when they were named,
    else a list."""
    loaded = _serialization.load(file)
    if isinstance(loaded, dict):
        return {name: value.as_np_ndarray() for name, value in loaded.items()}
    return [value.as_np_ndarray() for value in loaded]

