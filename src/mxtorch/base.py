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
    MXNetIndexError, MXNetUserWarning, MissingDependencyError, NotImplementedForSymbol,
    NotSupportedForSparseNDArray,
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

# MXNet's names for the class-property helpers (``mxnet.base._MXClassPropertyDescriptor`` and
# ``_MXClassPropertyMetaClass``; Context, NameManager and AttrScope were built on them)
from .base_ctypes import _ClassProperty as _MXClassPropertyDescriptor  # noqa: E402,F401
from .base_ctypes import _ClassPropertyMeta as _MXClassPropertyMetaClass  # noqa: E402,F401
from .base_ctypes import _error_name as _find_error_type  # noqa: E402,F401


def _valid_error_name(name):
    """True when ``name`` can name an error class: letters, digits, ``_`` and ``.`` only."""
    return all(ch.isalnum() or ch in "_." for ch in name)


def _load_lib():
    """MXNet loaded ``libmxnet.so`` here; mxtorch has no C library, so this returns the object
    that stands in for it (``_LIB``: the C entry points that carry over to torch memory)."""
    return _LIB


def _notify_shutdown():
    """Tell the library the process is shutting down (``MXNotifyShutdown``: pending work is
    finished first)."""
    check_call(_LIB.MXNotifyShutdown())


# -- operator names and the generated operator modules -------------------------------------------------
_OP_NAME_PREFIX_LIST = ['_contrib_', '_linalg_', '_sparse_', '_image_', '_random_']
"""The prefixes of operator names that put an operator in a submodule (``_contrib_X`` is
``mx.nd.contrib.X``), in MXNet's order."""
_NP_OP_PREFIX = '_np_'
_NP_OP_SUBMODULE_LIST = ['_random_', '_linalg_']
_NP_EXT_OP_PREFIX = '_npx_'
_NP_EXT_OP_SUBMODULE_LIST = ['_image_', '_random_']
_NP_INTERNAL_OP_PREFIX = '_npi_'
_NP_OUTPUT_IS_LIST_OPERATORS = {'_npi_split', '_npi_hsplit'}


def _get_op_name_prefix(op_name):
    """The prefix of ``_OP_NAME_PREFIX_LIST`` that ``op_name`` starts with, '' when none."""
    for prefix in _OP_NAME_PREFIX_LIST:
        if op_name.startswith(prefix):
            return prefix
    return ""


def _is_np_op(op_name):
    """True for the NumPy front end's operators (``_np_``, ``_npx_``, ``_npi_`` names)."""
    return op_name.startswith((_NP_OP_PREFIX, _NP_EXT_OP_PREFIX, _NP_INTERNAL_OP_PREFIX))


def _output_is_list(op_name):
    """True when the NumPy front end returns the operator's output as a list even when there
    is one (``_npi_split``, ``_npi_hsplit``); False for every other operator."""
    return _is_np_op(op_name) and op_name in _NP_OUTPUT_IS_LIST_OPERATORS


def _get_op_submodule_name(op_name, op_name_prefix, submodule_name_list):
    """The entry of ``submodule_name_list`` that follows ``op_name_prefix`` in ``op_name``
    (``'_random_'`` for ``_np_random_uniform``), '' when none.  AssertionError when ``op_name``
    does not start with ``op_name_prefix``."""
    assert op_name.startswith(op_name_prefix)
    rest = op_name[len(op_name_prefix):]
    for submodule_name in submodule_name_list:
        if rest.startswith(submodule_name):
            return submodule_name
    return ""


def _all_op_names():
    """Every operator name the library lists (``MXListAllOpNames``)."""
    import ctypes
    names = ctypes.POINTER(ctypes.c_char_p)()
    size = ctypes.c_uint()
    check_call(_LIB.MXListAllOpNames(ctypes.byref(size), ctypes.byref(names)))
    return [py_str(names[i]) for i in range(size.value)]


def _op_handle(op_name):
    """The operator handle of ``op_name`` (``NNGetOpHandle``)."""
    import ctypes
    handle = OpHandle()
    check_call(_LIB.NNGetOpHandle(c_str(op_name), ctypes.byref(handle)))
    return handle


def _add_to_module(module, function, module_name):
    """Set ``function`` on ``module`` (a module or a generated namespace) and list it in the
    module's ``__all__`` when it has one."""
    function.__module__ = module_name
    setattr(module, function.__name__, function)
    names = getattr(module, "__all__", None)
    if isinstance(names, list) and function.__name__ not in names:
        names.append(function.__name__)


def _init_op_module(root_namespace, module_name, make_op_func):
    """Put one function per (non-NumPy) operator, made by ``make_op_func(handle, op_name,
    func_name)``, into ``root_namespace.module_name``'s submodules as MXNet did: a name with a
    prefix of ``_OP_NAME_PREFIX_LIST`` goes, without it, to that submodule (``_contrib_X`` is
    ``mxnet.ndarray.contrib.X``, also ``mxnet.contrib.ndarray.X``; ``_random_X`` only when it ends
    in ``_like``), another underscore name to ``._internal``, the rest to ``.op``.  The modules
    are looked up in ``sys.modules`` (KeyError when one is not imported, as in MXNet)."""
    import sys
    module_op = sys.modules[f"{root_namespace}.{module_name}.op"]
    module_internal = sys.modules[f"{root_namespace}.{module_name}._internal"]
    contrib_old_name = f"{root_namespace}.contrib.{module_name}"
    contrib_old = sys.modules[contrib_old_name]
    submodules = {prefix: sys.modules[f"{root_namespace}.{module_name}.{prefix[1:-1]}"]
                  for prefix in _OP_NAME_PREFIX_LIST}
    for name in _all_op_names():
        if _is_np_op(name):
            continue
        prefix = _get_op_name_prefix(name)
        local_module_name = module_name
        if prefix and (prefix != '_random_' or name.endswith('_like')):
            func_name, target = name[len(prefix):], submodules[prefix]
            local_module_name = f"{root_namespace}.{module_name}.{prefix[1:-1]}"
        elif name.startswith('_'):
            func_name, target = name, module_internal
        else:
            func_name, target = name, module_op
        _add_to_module(target, make_op_func(_op_handle(name), name, func_name), local_module_name)
        if prefix == '_contrib_':
            _add_to_module(contrib_old, make_op_func(_op_handle(name), name, name[len(prefix):]),
                           contrib_old_name)


def _init_np_op_module(root_module_name, np_module_name, mx_module_name, make_op_func):
    """Put one function per NumPy-front-end operator, made by ``make_op_func(handle, op_name,
    func_name)``, into MXNet's modules: for ``np_module_name`` 'numpy' the ``_np_`` operators,
    'numpy_extension' the ``_npx_`` ones, 'numpy._internal' the ``_npi_`` ones (names without the
    prefix); ``mx_module_name`` None for ``mxnet.numpy._op`` / ``mxnet.numpy_extension._op``,
    'ndarray' or 'symbol' for the front ends' modules.  Submodule operators
    (``_np_random_X``) go to ``<module>.random``.  ValueError for other module names."""
    import sys
    if np_module_name == 'numpy':
        prefix, submodule_names = _NP_OP_PREFIX, _NP_OP_SUBMODULE_LIST
    elif np_module_name == 'numpy_extension':
        prefix, submodule_names = _NP_EXT_OP_PREFIX, _NP_EXT_OP_SUBMODULE_LIST
    elif np_module_name == 'numpy._internal':
        prefix, submodule_names = _NP_INTERNAL_OP_PREFIX, []
    else:
        raise ValueError(f'unsupported np module name {np_module_name}')
    if mx_module_name is None:
        op_module_name = f"{root_module_name}.{np_module_name}._op"
        submodule_format = f"{root_module_name}.{np_module_name}.%s"
    elif mx_module_name in ('ndarray', 'symbol'):
        op_module_name = f"{root_module_name}.{mx_module_name}.{np_module_name}"
        if prefix != _NP_INTERNAL_OP_PREFIX:
            op_module_name += '._op'
        submodule_format = f"{root_module_name}.{mx_module_name}.{np_module_name}.%s"
    else:
        raise ValueError(f'unsupported mxnet module {mx_module_name}')
    op_module = sys.modules[op_module_name]
    submodules = {name: sys.modules[submodule_format % name[1:-1]] for name in submodule_names}
    for name in _all_op_names():
        if not name.startswith(prefix):
            continue
        submodule_name = _get_op_submodule_name(name, prefix, submodule_names)
        if submodule_name:
            func_name = name[len(prefix) + len(submodule_name):]
            target, target_name = submodules[submodule_name], submodule_format % submodule_name[1:-1]
        else:
            func_name, target, target_name = name[len(prefix):], op_module, op_module_name
        _add_to_module(target, make_op_func(_op_handle(name), name, func_name), target_name)


_LICENSE_HEADER = "\n".join([
    "# Licensed to the Apache Software Foundation (ASF) under one",
    "# or more contributor license agreements.  See the NOTICE file",
    "# distributed with this work for additional information",
    "# regarding copyright ownership.  The ASF licenses this file",
    "# to you under the Apache License, Version 2.0 (the",
    "# \"License\"); you may not use this file except in compliance",
    "# with the License.  You may obtain a copy of the License at",
    "#",
    "#   http://www.apache.org/licenses/LICENSE-2.0",
    "#",
    "# Unless required by applicable law or agreed to in writing,",
    "# software distributed under the License is distributed on an",
    "# \"AS IS\" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY",
    "# KIND, either express or implied.  See the License for the",
    "# specific language governing permissions and limitations",
    "# under the License.",
    "",
])


def _generate_op_module_signature(root_namespace, module_name, op_code_gen_func):
    """Write the signatures of the generated operator functions to source files, as MXNet did
    for IDEs: ``op_code_gen_func(handle, op_name, func_name, True)`` returns ``(code, doc)`` for
    each (non-NumPy) operator, written to ``gen_op.py``, ``gen__internal.py`` and
    ``gen_<submodule>.py`` (one per prefix of ``_OP_NAME_PREFIX_LIST``) in the folder of
    ``root_namespace.module_name`` (the package's ``ndarray`` or ``symbol`` folder), each ending
    with its ``__all__``."""
    import importlib
    folder = os.path.dirname(importlib.import_module(f"{root_namespace}.{module_name}").__file__)
    base_class = {"symbol": "SymbolBase", "ndarray": "NDArrayBase"}[module_name]
    header = ("# coding: utf-8" + _LICENSE_HEADER + "# File content is auto-generated. Do not modify.\n"
              "# pylint: skip-file\n" + f"from ._internal import {base_class}\nfrom ..base import _Null")
    files = {}

    def section(short_name):
        if short_name not in files:
            files[short_name] = ([header], [])
        return files[short_name]

    for short_name in ["op", "_internal"] + [prefix[1:-1] for prefix in _OP_NAME_PREFIX_LIST]:
        section(short_name)
    for name in _all_op_names():
        if _is_np_op(name):
            continue
        prefix = _get_op_name_prefix(name)
        if prefix:
            func_name, short_name = name[len(prefix):], prefix[1:-1]
        elif name.startswith('_'):
            func_name, short_name = name, "_internal"
        else:
            func_name, short_name = name, "op"
        code, _ = op_code_gen_func(_op_handle(name), name, func_name, True)
        chunks, names = section(short_name)
        chunks.append("\n" + code)
        names.append(func_name)
    for short_name, (chunks, names) in files.items():
        with open(os.path.join(folder, f"gen_{short_name}.py"), "w", encoding="utf-8") as handle:
            handle.write("".join(chunks))
            handle.write("\n\n__all__ = [" + ", ".join(f"'{n}'" for n in names) + "]")
