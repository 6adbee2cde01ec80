"""``mx.libinfo``: the version, and where MXNet's native library and headers live.

mxtorch has no native library of its own (the arithmetic is PyTorch's), so the path
finders raise MXNetError (a RuntimeError, as MXNet raised when it found no library);
code that loads extension libraries through them cannot work on mxtorch.
"""
from __future__ import annotations

from .base import MXNetError

__all__ = ["find_lib_path", "find_include_path", "find_conf_path", "__version__"]

__version__ = "1.9.1"

_NO_LIBRARY = ("mxtorch runs on PyTorch and ships no libmxnet library, headers or build configuration; "
               "C++ extensions and operator libraries built for MXNet cannot be loaded")


def find_lib_path(prefix="libmxnet"):
    """MXNet's shared library paths: raises MXNetError (no such library in mxtorch)."""
    raise MXNetError(f"find_lib_path({prefix!r}): {_NO_LIBRARY}")


def find_include_path():
    """MXNet's C++ header folder: raises MXNetError (none in mxtorch)."""
    raise MXNetError(f"find_include_path: {_NO_LIBRARY}")


def find_conf_path(prefix="tvmop"):
    """MXNet's operator-library configuration file: raises MXNetError (none in mxtorch)."""
    raise MXNetError(f"find_conf_path({prefix!r}): {_NO_LIBRARY}")
