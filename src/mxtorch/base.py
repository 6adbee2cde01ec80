"""Errors and MXNet's string forms of attribute values.

MXNet stores every operator attribute as a string (``"(3, 3)"``, ``"True"``,
``"relu"``, ``"None"``, ``"0.9"``), both in Python calls after conversion and
in ``-symbol.json`` files.  This module parses those strings into Python
values and prints values back in the form MXNet writes.
"""
from __future__ import annotations

import ast
import numbers
import os
import platform

import numpy as np
import torch

__all__ = [
    "MXNetError", "MXNetValueError", "MXNetTypeError", "MXNetAssertionError", "MXNetIndexError", "NotImplementedForSymbol", "NotSupportedForSparseNDArray", "string_types",
    "numeric_types", "integer_types", "mx_real_t", "py_str", "data_dir_default", "data_dir",
    "parse_bool", "parse_tuple", "format_value",
    "BFLOAT16", "dtype_name", "torch_dtypes", "dtype_flag", "dtype_from_flag", "numpy_dtype", "numpy_type", "torch_dtype", "dtype_names",
]


def _as_list(obj):
    """``obj`` itself when it is a list or tuple, else ``[obj]`` (MXNet's ``base._as_list``)."""
    return obj if isinstance(obj, (list, tuple)) else [obj]


string_types = (str,)
numeric_types = (float, int, np.generic)
integer_types = (int, np.integer)
mx_real_t = np.float32
"""The default floating-point type of arrays and parameters (MXNet's ``mx_real_t``)."""


from .exceptions import (  # noqa: F401  (MXNet's mxnet.base names)
    MXNetError, OperatorRunError, MXNetValueError, MXNetTypeError, MXNetAssertionError,
    MXNetIndexError, MXNetUserWarning, NotImplementedForSymbol, NotSupportedForSparseNDArray,
)


class _NullType:
    """Placeholder for an argument not given (MXNet 1.9.1's ``mxnet.base._Null``, which
    training scripts import as a default value)."""

    def __repr__(self):
        return "_Null"


_Null = _NullType()


def data_dir_default():
    """The folder MXNet keeps downloaded files in when ``MXNET_HOME`` is not set:
    ``%APPDATA%\\mxnet`` on Windows, ``~/.mxnet`` elsewhere."""
    if platform.system() == "Windows":
        return os.path.join(os.environ.get("APPDATA", ""), "mxnet")
    return os.path.join(os.path.expanduser("~"), ".mxnet")


def data_dir():
    """The folder for downloaded files (models, data sets): ``$MXNET_HOME`` if set, else
    ``data_dir_default()``.  The folder is not created."""
    return os.getenv("MXNET_HOME", data_dir_default())


def py_str(value):
    """Decode bytes to str (MXNet's helper); str passes through."""
    return value.decode("utf-8") if isinstance(value, bytes) else value


_TRUE = {"true", "1"}
_FALSE = {"false", "0"}


def parse_bool(text, name="value"):
    """Parse MXNet's boolean strings: ``True/False/true/false/1/0``."""
    if isinstance(text, (bool, np.bool_)):
        return bool(text)
    if isinstance(text, numbers.Integral):
        return bool(text)
    lowered = str(text).strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise MXNetError(f"attribute {name!r}: expected a boolean (True/False/1/0), got {text!r}")


def parse_tuple(text, name="value", element=int):
    """Parse a shape-like tuple from ``"(3, 3)"``, ``"[2,2]"``, ``"3"`` or ``"()"``.

    A bare number gives a 1-tuple, as MXNet's TShape parser accepts ``"3"``.
    ``None`` entries (``"(None, 2)"``) are kept for optional-int tuples.
    """
    if isinstance(text, (tuple, list)):
        values = text
    elif isinstance(text, numbers.Number):
        values = (text,)
    else:
        stripped = str(text).strip()
        if stripped in ("", "()", "[]"):
            return ()
        try:
            parsed = ast.literal_eval(stripped)
        except (ValueError, SyntaxError):
            raise MXNetError(f"attribute {name!r}: expected a tuple such as (3, 3), got {text!r}") from None
        values = parsed if isinstance(parsed, (tuple, list)) else (parsed,)
    result = []
    for item in values:
        if item is None:
            result.append(None)
            continue
        if element is int:
            if isinstance(item, float) and not item.is_integer():
                raise MXNetError(f"attribute {name!r}: expected integers, got {text!r}")
            if not isinstance(item, (numbers.Number, np.generic)):
                raise MXNetError(f"attribute {name!r}: expected integers, got {text!r}")
            result.append(int(item))
        else:
            result.append(element(item))
    return tuple(result)


def format_value(value):
    """Write a Python value the way MXNet prints attributes into JSON.

    Booleans become ``True``/``False``, tuples ``(3, 3)`` (a 1-tuple ``(3,)``),
    ``None`` stays ``None``, floats use Python's shortest repr and strings
    pass through unchanged.
    """
    if isinstance(value, str):
        return value
    if value is None:
        return "None"
    if isinstance(value, (bool, np.bool_)):
        return "True" if value else "False"
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(format_value(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, np.dtype) and value == BFLOAT16:
        return "bfloat16"
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, type) and issubclass(value, np.generic):
        return np.dtype(value).name
    if isinstance(value, torch.dtype):
        return dtype_name(value)
    if isinstance(value, (np.integer,)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return str(value)


# -- dtypes: MXNet's type flags, names, NumPy and torch types in one table ----------------------------
BFLOAT16 = np.dtype([("bfloat16", "<u2")])
"""MXNet 1.9.1's NumPy stand-in for bfloat16 (NumPy has none): a structured 16-bit dtype.  It is
what ``infer_type`` and ``NDArray.dtype`` report for bfloat16, and it is accepted, like the
string ``'bfloat16'``, wherever a dtype is."""

# (mshadow type flag, name, NumPy dtype, torch dtype), in flag order
_DTYPES = (
    (0, "float32", np.dtype(np.float32), torch.float32),
    (1, "float64", np.dtype(np.float64), torch.float64),
    (2, "float16", np.dtype(np.float16), torch.float16),
    (3, "uint8", np.dtype(np.uint8), torch.uint8),
    (4, "int32", np.dtype(np.int32), torch.int32),
    (5, "int8", np.dtype(np.int8), torch.int8),
    (6, "int64", np.dtype(np.int64), torch.int64),
    (7, "bool", np.dtype(np.bool_), torch.bool),
    (8, "int16", np.dtype(np.int16), torch.int16),
    (12, "bfloat16", BFLOAT16, torch.bfloat16),
)
# flags MXNet 1.9.1 defines but neither it nor mxtorch computes with
UNSUPPORTED_DTYPE_FLAGS = {9: "uint16", 10: "uint32", 11: "uint64"}
_BY_NAME = {name: (flag, name, numpy, torch_type) for flag, name, numpy, torch_type in _DTYPES}
_BY_FLAG = {row[0]: row for row in _DTYPES}
_BY_TORCH = {row[3]: row for row in _DTYPES}


def torch_dtypes():
    """The torch dtypes mxtorch computes with."""
    return tuple(_BY_TORCH)


def dtype_names():
    """The dtype names mxtorch computes with, in MXNet's flag order."""
    return [row[1] for row in _DTYPES]


def _row(dtype):
    if isinstance(dtype, torch.dtype):
        row = _BY_TORCH.get(dtype)
        if row is None:
            raise MXNetError(f"dtype {dtype} is not supported; expected one of {dtype_names()}")
        return row
    if isinstance(dtype, str) and dtype.strip() in _BY_NAME:
        return _BY_NAME[dtype.strip()]
    if isinstance(dtype, np.dtype) and dtype == BFLOAT16:
        return _BY_NAME["bfloat16"]
    try:
        name = np.dtype(dtype).name
    except TypeError:
        raise MXNetTypeError(f"unknown dtype {dtype!r}; expected one of {dtype_names()}") from None
    if name not in _BY_NAME or name == "bfloat16":
        raise MXNetError(f"dtype {name} is not supported; expected one of {dtype_names()}")
    return _BY_NAME[name]


def dtype_name(dtype):
    """MXNet's name (``'float32'``, ``'bfloat16'``, ...) of a dtype given as a name, NumPy type or
    dtype (``BFLOAT16`` included) or torch dtype; MXNetError naming the accepted ones otherwise."""
    return _row(dtype)[1]


def dtype_flag(dtype):
    """MXNet's type flag (0 float32, 1 float64, 2 float16, 3 uint8, 4 int32, 5 int8, 6 int64,
    7 bool, 8 int16, 12 bfloat16) of a dtype in any accepted spelling."""
    return _row(dtype)[0]


def dtype_from_flag(flag):
    """The name of MXNet type flag ``flag``; MXNetError for flags mxtorch does not compute with."""
    try:
        return _BY_FLAG[int(flag)][1]
    except (KeyError, ValueError, TypeError):
        known = UNSUPPORTED_DTYPE_FLAGS.get(flag)
        detail = f" ({known}, which MXNet 1.9.1 could not compute with either)" if known else ""
        raise MXNetError(f"unsupported dtype flag {flag!r}{detail}; expected one of "
                         f"{sorted(_BY_FLAG)}") from None


def numpy_dtype(dtype):
    """The NumPy dtype of a dtype in any accepted spelling (``BFLOAT16`` for bfloat16)."""
    return _row(dtype)[2]


def numpy_type(dtype):
    """What MXNet's Python API reports for a dtype: the NumPy scalar type (``numpy.float32``), or
    the ``BFLOAT16`` dtype for bfloat16 (NumPy has no scalar type for it)."""
    row = _row(dtype)
    return row[2] if row[1] == "bfloat16" else row[2].type


def torch_dtype(dtype):
    """The torch dtype of a dtype in any accepted spelling."""
    return _row(dtype)[3]


# -- MXNet's ctypes vocabulary ------------------------------------------------------------------------
# The helpers MXNet's Python modules built C calls with.  mxtorch has no C library behind them, but
# legacy code (custom operators, plug-ins, tools) imports them from mxnet.base and uses them on
# plain ctypes values, so they are defined once in base_ctypes with MXNet 1.9.1's behaviour and
# re-exported by every module whose namespace had them.
from .base_ctypes import (  # noqa: E402,F401
    CachedOpHandle, CudaKernelHandle, CudaModuleHandle, DLPackHandle, DataIterCreatorHandle,
    DataIterHandle, ExecutorHandle, FunctionHandle, KVStoreHandle, MXCallbackList, NDArrayHandle,
    OpHandle, ProfileHandle, RecordIOHandle, RtcHandle, SymbolHandle, add_fileline_to_docstring,
    basestring, build_param_doc, c2pyerror, c_array, c_array_buf, c_handle_array, c_str,
    c_str_array, check_call, classproperty, ctypes2buffer, ctypes2numpy_shared, error_types,
    get_last_ffi_error, long, mx_float, mx_float_p, mx_int, mx_int64, mx_uint, register_error,
    with_metaclass, _LIB,
)

register_error(NotImplementedForSymbol)
# Python's own error names in a recorded message map to the Python classes (as mxnet.error did).
for _builtin in (ValueError, TypeError, AttributeError, IndexError, NotImplementedError):
    register_error(_builtin)
del _builtin
