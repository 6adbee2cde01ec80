"""``mx.executor``: a Symbol bound to arrays."""
from .executor import Executor  # noqa: F401
from .binding import normalize_grad_req  # noqa: F401
from ..symbol.symbol import register_binder as _register_binder

_register_binder(Executor)        # Symbol.bind / simple_bind construct it
# names MXNet 1.9.1's mxnet.executor had in its namespace from its ctypes binding
from ..base import (  # noqa: E402,F401
    ExecutorHandle, NDArrayHandle, SymbolHandle, c_array_buf, c_handle_array, c_str_array,
    check_call, mx_int, mx_uint, py_str,
)
# names MXNet 1.9.1's mxnet.executor had in its namespace (imported there, not defined)
from array import array as py_array  # noqa: E402,F401
from ..ndarray.ndarray import NDArray  # noqa: E402,F401

# the C library object MXNet's module held (``from .base import _LIB``; see base_ctypes._CLibrary)
from ..base_ctypes import _LIB  # noqa: E402,F401
from ..ndarray.handles import ndarray_cls as _ndarray_cls  # noqa: E402,F401


def _monitor_callback_wrapper(callback):
    """The C-callback form of a monitor callback: ``handle(name, array, _)`` calls
    ``callback(name, array)`` (MXNet's wrapper of ``Executor.set_monitor_callback``'s function)."""
    def callback_handle(name, array, _):
        callback(name, array)
    return callback_handle
# (MXNet's _split_input_slice, _check_arguments, _load_data and _load_label, which it imported from
# the executor manager above this layer, are added by the package's __init__)
