"""``mx.nd.utils``: the array constructors and file functions, as MXNet's ``mxnet.ndarray.utils``
grouped them (dense arrays only)."""
from .creation import array, empty, zeros  # noqa: F401
from .serialization import save, load, load_frombuffer  # noqa: F401
# names MXNet 1.9.1's mxnet.ndarray.utils had in its namespace from its ctypes binding
from ..base import (  # noqa: E402,F401
    NDArrayHandle, c_array, c_handle_array, c_str, c_str_array, check_call, mx_uint, py_str,
    string_types,
)
# names MXNet 1.9.1's mxnet.ndarray.utils had in its namespace (imported there, not defined)
from .ndarray import NDArray  # noqa: E402,F401

# MXNet's private names of the dense and sparse constructors it dispatched to
from ..base_ctypes import _LIB  # noqa: E402,F401
from .creation import array as _array, empty as _empty_ndarray, zeros as _zeros_ndarray  # noqa: E402,F401
# (``_sparse_array``, ``_empty_sparse_ndarray``, ``_zeros_sparse_ndarray`` and ``_ndarray_cls``
# come from sparse.py and handles.py: the package's __init__ adds them once sparse.py is loaded)

__all__ = ["array", "empty", "zeros", "save", "load", "load_frombuffer"]
