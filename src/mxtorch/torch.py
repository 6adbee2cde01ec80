"""MXNet 1.9.1's ``mxnet.torch`` (``mx.th``): NDArray functions from MXNet's Lua Torch plug-in.

In MXNet this module listed the ``_th_*`` functions of the plug-in compiled in with
``USE_TORCH=1`` (Lua Torch 7 through LuaJIT) and added one function per entry.  mxtorch has no
such plug-in: the module keeps the names MXNet's had (the ctypes helpers it imported and
``NDArray``), and asking it for any plug-in function raises an error that is both an MXNetError
and an AttributeError, saying why and what to use instead.  MXNet 1.9.1 builds without the
plug-in had no such functions either.
"""
from .base import (MXNetError, FunctionHandle, c_array, c_handle_array, c_str_array,  # noqa: F401
                   check_call, mx_float, mx_uint, py_str)
from .ndarray import NDArray  # noqa: F401


class TorchPluginUnavailable(MXNetError, AttributeError):
    """A Lua Torch plug-in function was asked for; no plug-in exists under mxtorch."""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise TorchPluginUnavailable(
        f"mxnet.torch.{name}: MXNet's Lua Torch plug-in (built with USE_TORCH=1) is not available "
        f"under mxtorch, which runs on PyTorch; use the mx.nd operator of the same purpose, or PyTorch "
        f"itself through DLPack (torch.from_dlpack(array.to_dlpack_for_read()), and "
        f"mx.nd.from_dlpack back)")

# the C library object MXNet's module held (``from .base import _LIB``; see base_ctypes._CLibrary)
from .base_ctypes import _LIB  # noqa: E402,F401
