"""MXNet 1.9.1's ctypes helpers, handle types and error registry (``mxnet.base``'s C-binding part).

MXNet's Python modules called its C library through these names, and legacy code written against
MXNet (custom operators, plug-ins, converters) still imports them from ``mxnet.base`` and the
modules that re-exported them.  mxtorch has no C library, but the helpers themselves are plain
ctypes and Python: each one here behaves as MXNet's did on the same ctypes values.

- Handle types (``NDArrayHandle``, ``SymbolHandle``, ...) are ``ctypes.c_void_p``, as in MXNet.
- ``c_str`` / ``c_str_array`` / ``c_array`` / ``c_array_buf`` / ``c_handle_array`` build ctypes
  values; ``ctypes2buffer`` / ``ctypes2numpy_shared`` read memory behind a ctypes pointer.
- ``check_call(ret)`` returns for 0 and raises the last recorded error for any other value, the
  error class chosen through ``register_error`` / ``error_types`` from the message's
  ``"TypeName: ..."`` prefix, as MXNet's FFI error handler did.
- ``_LIB`` stands in for MXNet's C library: the C API calls that have a meaning here, provided by
  the layers that implement them (``MXNDArrayFromDLPack``; the subgraph calls and
  ``MXListAllOpNames``); any other name raises AttributeError naming what to use.
- ``handle_of`` / ``give_handle`` / ``object_of_handle``: Python objects passed as opaque handles
  (``sym.handle``, ``Symbol(handle)``); ``c_api_function`` turns errors into MXNet's -1 status.
- ``classproperty`` and ``with_metaclass`` are the class-level property and six-style metaclass
  helpers MXNet's ``Context`` / ``NameManager`` / ``AttrScope`` used.

This module imports only ``exceptions`` from the rest of mxtorch (``base`` re-exports it).
"""
from __future__ import annotations

import ctypes
import inspect
import sys
import threading
import weakref

import numpy as np

from .exceptions import MXNetError

__all__ = [
    "NDArrayHandle", "FunctionHandle", "OpHandle", "CachedOpHandle", "SymbolHandle", "ExecutorHandle",
    "DataIterCreatorHandle", "DataIterHandle", "KVStoreHandle", "RecordIOHandle", "RtcHandle",
    "CudaModuleHandle", "CudaKernelHandle", "ProfileHandle", "DLPackHandle",
    "mx_int", "mx_uint", "mx_int64", "mx_float", "mx_float_p", "basestring", "long",
    "c_str", "c_str_array", "c_array", "c_array_buf", "c_handle_array", "ctypes2buffer",
    "ctypes2numpy_shared", "build_param_doc", "add_fileline_to_docstring",
    "error_types", "register_error", "c2pyerror", "get_last_ffi_error", "check_call",
    "MXCallbackList", "classproperty", "with_metaclass", "NDArrayBase", "SymbolBase", "_LIB",
    "handle_of", "give_handle", "object_of_handle", "c_api_function",
]

basestring = str
"""Python 2's string base class as MXNet aliased it on Python 3: ``str``."""
long = int
"""Python 2's long integer as MXNet aliased it on Python 3: ``int``."""

# -- C types ------------------------------------------------------------------------------------------
mx_int = ctypes.c_int
mx_uint = ctypes.c_uint
mx_int64 = ctypes.c_int64
mx_float = ctypes.c_float
mx_float_p = ctypes.POINTER(mx_float)

# Every MXNet handle is an opaque pointer.
NDArrayHandle = ctypes.c_void_p
FunctionHandle = ctypes.c_void_p
OpHandle = ctypes.c_void_p
CachedOpHandle = ctypes.c_void_p
SymbolHandle = ctypes.c_void_p
ExecutorHandle = ctypes.c_void_p
DataIterCreatorHandle = ctypes.c_void_p
DataIterHandle = ctypes.c_void_p
KVStoreHandle = ctypes.c_void_p
RecordIOHandle = ctypes.c_void_p
RtcHandle = ctypes.c_void_p
CudaModuleHandle = ctypes.c_void_p
CudaKernelHandle = ctypes.c_void_p
ProfileHandle = ctypes.c_void_p
DLPackHandle = ctypes.c_void_p


class MXCallbackList(ctypes.Structure):
    """The C structure of callbacks MXNet passed to a custom operator's property object:
    ``num_callbacks`` (int), ``callbacks`` (pointer to ``int (*)()`` functions) and ``contexts``
    (pointer to ``void *``), field for field as MXNet 1.9.1 declared it."""
    _fields_ = [
        ("num_callbacks", ctypes.c_int),
        ("callbacks", ctypes.POINTER(ctypes.CFUNCTYPE(ctypes.c_int))),
        ("contexts", ctypes.POINTER(ctypes.c_void_p)),
    ]


# -- building ctypes values ---------------------------------------------------------------------------
def c_str(string):
    """``string`` (str) encoded as UTF-8 in a ``ctypes.c_char_p``; ``.value`` gives the bytes back."""
    return ctypes.c_char_p(string.encode("utf-8"))


def c_str_array(strings):
    """A ``(ctypes.c_char_p * len(strings))`` array of the UTF-8 encodings of ``strings``."""
    array = (ctypes.c_char_p * len(strings))()
    array[:] = [text.encode("utf-8") for text in strings]
    return array


def c_array(ctype, values):
    """A ``(ctype * len(values))`` ctypes array filled with ``values`` (a list or tuple), e.g.
    ``c_array(mx_float, [1, 2, 3])[1] == 2.0``.  Values the ctype cannot hold raise TypeError."""
    array = (ctype * len(values))()
    array[:] = values
    return array


def c_array_buf(ctype, buf):
    """A ``(ctype * len(buf))`` ctypes array sharing memory with the writable buffer ``buf``
    (an ``array.array``, ``bytearray`` or NumPy array) without copying, as MXNet's fast path."""
    return (ctype * len(buf)).from_buffer(buf)


_NO_HANDLE_ERROR = []
_MISSING = object()


def _no_handle_error(obj):
    """The error for an object without a C pointer handle: an MXNetError that is also the
    AttributeError MXNet raised (the class is made on first use)."""
    if not _NO_HANDLE_ERROR:
        class NoCHandleError(MXNetError, AttributeError):
            """An object passed where MXNet wanted a C handle has none."""
        _NO_HANDLE_ERROR.append(NoCHandleError)
    return _NO_HANDLE_ERROR[0](
        f"c_handle_array: a {type(obj).__name__} has no C handle (mxtorch objects live in PyTorch, with "
        f"no MXNet C library behind them; an NDArray's .handle is its torch.Tensor); expected objects "
        f"whose .handle is a ctypes pointer")


def c_handle_array(objs):
    """A ``(ctypes.c_void_p * len(objs))`` array of the ``.handle`` of each object (a ctypes
    pointer, an address or None).

    mxtorch's NDArray and Symbol have no C handle (``NDArray.handle`` is its torch tensor): they
    raise an error that is both an MXNetError and an AttributeError (MXNet raised AttributeError
    for objects without a handle), naming the object's type."""
    handles = []
    for obj in objs:
        handle = getattr(obj, "handle", _MISSING)
        if isinstance(handle, ctypes.c_void_p):
            handle = handle.value
        if handle is not None and not isinstance(handle, int):
            raise _no_handle_error(obj)
        handles.append(handle)
    array = (ctypes.c_void_p * len(objs))()
    array[:] = handles
    return array


def ctypes2buffer(cptr, length):
    """A ``bytearray`` copy of the first ``length`` bytes behind ``cptr``, which must be a
    ``ctypes.POINTER(ctypes.c_char)`` (TypeError otherwise, as MXNet)."""
    if not isinstance(cptr, ctypes.POINTER(ctypes.c_char)):
        raise TypeError("expected char pointer")
    result = bytearray(length)
    target = (ctypes.c_char * length).from_buffer(result)
    if not ctypes.memmove(target, cptr, length):
        raise RuntimeError("memmove failed")
    return result


def ctypes2numpy_shared(cptr, shape):
    """A float32 NumPy array of ``shape`` that shares memory with the floats behind ``cptr``
    (a ``ctypes.POINTER(mx_float)``; RuntimeError otherwise, as MXNet): writes through either
    side show in the other."""
    if not isinstance(cptr, ctypes.POINTER(mx_float)):
        raise RuntimeError("expected float pointer")
    count = 1
    for extent in shape:
        count *= extent
    memory = (mx_float * count).from_address(ctypes.addressof(cptr.contents))
    return np.frombuffer(memory, dtype=np.float32).reshape(shape)


# -- docstrings ---------------------------------------------------------------------------------------
def build_param_doc(arg_names, arg_types, arg_descs, remove_dup=True):
    """A NumPy-style ``Parameters`` section from parallel lists of names, type strings and
    descriptions: one ``name : type`` line per argument, the description indented by four spaces
    below it when not empty.  ``num_args`` is left out; with ``remove_dup`` a repeated name keeps
    only its first entry.  Ends with a newline after the last entry, as MXNet's."""
    seen = set()
    entries = []
    for name, type_info, description in zip(arg_names, arg_types, arg_descs):
        if (name in seen and remove_dup) or name == "num_args":
            continue
        seen.add(name)
        entry = f"{name} : {type_info}"
        if description:
            entry += "\n    " + description
        entries.append(entry)
    return "Parameters\n----------\n" + "\n".join(entries) + "\n"


def add_fileline_to_docstring(module, incursive=True):
    """Append ``From:<source file>:<line>`` to the docstring of each documented function of
    ``module`` (a module or its name in ``sys.modules``) and, with ``incursive``, of the methods
    of its classes; docstrings already carrying ``From:`` and objects without source are left
    alone."""
    def annotate(obj):
        if obj.__doc__ is None or "From:" in obj.__doc__:
            return
        try:
            filename = inspect.getsourcefile(obj)
            line = inspect.getsourcelines(obj)[-1]
        except (OSError, TypeError):
            return
        if filename is None:
            return
        obj.__doc__ += f"\n\nFrom:{filename}:{line}"

    if isinstance(module, str):
        module = sys.modules[module]
    for _, obj in inspect.getmembers(module):
        if inspect.isbuiltin(obj):
            continue
        if inspect.isfunction(obj):
            annotate(obj)
        if inspect.ismethod(obj):
            annotate(obj.__func__)
        if inspect.isclass(obj) and incursive:
            add_fileline_to_docstring(obj, False)


# -- errors -------------------------------------------------------------------------------------------
error_types = {}
"""Error name -> exception class, consulted by ``get_last_ffi_error`` (MXNet's registry)."""


def register_error(func_name=None, cls=None):
    """Register an exception class under a name for ``get_last_ffi_error``.

    ``@register_error`` registers a class under its own name; ``@register_error("Name")`` or
    ``register_error("Name", cls)`` under ``Name``.  Returns the class (or the decorator)."""
    if callable(func_name):
        cls = func_name
        func_name = cls.__name__

    def register(error_class):
        name = func_name if isinstance(func_name, str) else error_class.__name__
        error_types[name] = error_class
        return error_class

    return register if cls is None else register(cls)


def _error_name(first_line):
    """The ``TypeName`` of a ``"TypeName: message"`` line (letters, digits, ``_`` and ``.``), or None."""
    end = first_line.find(":")
    if end == -1:
        return None
    name = first_line[:end]
    return name if all(ch.isalnum() or ch in "_." for ch in name) else None


def c2pyerror(err_msg):
    """Turn a C++ error message into Python's style: returns ``(message, error_name)``.

    Lines under a ``Stack trace`` header that start with two spaces are the frames: they move,
    in reverse order, under a leading ``Traceback (most recent call last):``; the other lines
    follow.  ``error_name`` is the ``TypeName`` before the first colon of the first line (None
    when there is none)."""
    lines = err_msg.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    name = _error_name(lines[0]) if lines else None
    frames, message, in_trace = [], [], False
    for line in lines:
        if in_trace:
            if line.startswith("  "):
                frames.append(line)
                continue
            in_trace = False
        if line.startswith("Stack trace"):
            in_trace = True
        else:
            message.append(line)
    text = ""
    if frames:
        text = "Traceback (most recent call last):\n" + "\n".join(reversed(frames)) + "\n"
    return text + "\n".join(message), name


_last_error = threading.local()


def _set_last_error(message):
    """Record ``message`` as this thread's last error, the text ``check_call`` reports next
    (the role of MXNet's ``MXAPISetLastError``)."""
    _last_error.message = str(message)


def get_last_ffi_error():
    """The exception for this thread's last recorded error: its class looked up in
    ``error_types`` by the message's ``TypeName:`` prefix (``mxnet.error.`` stripped),
    MXNetError when none matches.  With no error recorded, an MXNetError saying so (MXNet
    failed with IndexError there)."""
    message = getattr(_last_error, "message", "")
    if not message:
        return MXNetError("a C API call failed, but no error message was recorded "
                          "(mxtorch has no MXNet C library; the call had no effect)")
    text, name = c2pyerror(message)
    if name is not None and name.startswith("mxnet.error."):
        name = name[len("mxnet.error."):]
    return error_types.get(name, MXNetError)(text)


def check_call(ret):
    """Return when the C API status ``ret`` is 0; otherwise raise ``get_last_ffi_error()``."""
    if ret != 0:
        raise get_last_ffi_error()


# -- class helpers ------------------------------------------------------------------------------------
class _ClassProperty:
    """A property read (and, with ``.setter``, written) on the class itself as well as on
    instances; setting through the class needs ``with_metaclass(_ClassPropertyMeta)``."""

    def __init__(self, fget, fset=None):
        self.fget = fget
        self.fset = fset

    def __get__(self, obj, owner=None):
        owner = type(obj) if owner is None else owner
        return self.fget.__get__(obj, owner)()

    def __set__(self, obj, value):
        if not self.fset:
            raise MXNetError(f"cannot use the setter: {getattr(obj, '__name__', obj)} to set attribute")
        owner = obj if inspect.isclass(obj) else type(obj)
        return self.fset.__get__(None if inspect.isclass(obj) else obj, owner)(value)

    def setter(self, func):
        if not isinstance(func, (classmethod, staticmethod)):
            func = classmethod(func)
        self.fset = func
        return self


class _ClassPropertyMeta(type):
    """Metaclass that routes ``Class.name = value`` to a classproperty's setter."""

    def __setattr__(cls, key, value):
        descriptor = cls.__dict__.get(key)
        if isinstance(descriptor, _ClassProperty):
            return descriptor.__set__(cls, value)
        return super().__setattr__(key, value)


def classproperty(func):
    """Decorator: ``func(cls)`` as a property of the class (``Context.default_ctx``-style),
    readable from the class and its instances; ``.setter`` adds a class-level setter."""
    if not isinstance(func, (classmethod, staticmethod)):
        func = classmethod(func)
    return _ClassProperty(func)


def with_metaclass(meta, *bases):
    """A base class that makes the class deriving from it an instance of ``meta`` with
    ``bases`` as its bases (six's ``with_metaclass``): ``class C(with_metaclass(Meta, Base))``."""
    class _Temporary(meta):
        def __new__(cls, name, _ignored_bases, namespace):
            return meta(name, bases, namespace)

        @classmethod
        def __prepare__(cls, name, _ignored_bases):
            return meta.__prepare__(name, bases)

    return type.__new__(_Temporary, "temporary_class", (), {})


# MXNet's base set these two return types on ctypes.pythonapi at import, and DLPack code written
# for MXNet (capsules built or opened by hand) relies on them: without them the pointer that
# PyCapsule_GetPointer returns is cut to a C int
ctypes.pythonapi.PyCapsule_New.restype = ctypes.py_object
ctypes.pythonapi.PyCapsule_GetPointer.restype = ctypes.c_void_p


# -- the C library ------------------------------------------------------------------------------------
def _output_pointer(out):
    """The ctypes object behind an output argument given as ``ctypes.byref(x)`` or as ``x``."""
    target = getattr(out, "_obj", out)
    if not isinstance(target, ctypes.c_void_p):
        raise TypeError(f"expected ctypes.byref(<handle>) for the output handle, got {out!r}")
    return target


class _CLibrary:
    """``mxnet.base._LIB``: MXNet's C library.  mxtorch has none; this object provides the C API
    entry points whose meaning carries over to torch memory, with MXNet's calling convention
    (ctypes arguments, output handles through ``ctypes.byref``, status 0 returned for
    ``check_call``):

    - ``MXNDArrayFromDLPack(dlpack, byref(handle))``: ``dlpack`` the address of a
      ``DLManagedTensor`` (as ``PyCapsule_GetPointer`` returns it from a ``'dltensor'``
      capsule); ``handle`` becomes an ``NDArrayHandle`` for ``mx.nd.NDArray(handle=handle)``,
      which shares that memory.  The array owns the tensor from then on (MXNet's contract:
      the caller renames the capsule to ``'used_dltensor'`` and removes its destructor).
    - the subgraph API (``mxtorch.subgraph.c_api``): ``MXBuildSubgraphByOpNames``,
      ``MXSetSubgraphPropertyOpNames[V2]``, ``MXRemoveSubgraphPropertyOpNames[V2]``, and
      ``MXListAllOpNames``.

    Any other name raises AttributeError saying that the function is not available and what to
    use instead."""

    def __init__(self):
        self._functions = {}

    def provide(self, name, function):
        """Register ``function`` as the C API entry point ``name`` (called by the layer that
        implements it: ``mxtorch.ndarray`` provides ``MXNDArrayFromDLPack``)."""
        self._functions[name] = function

    def __getattr__(self, name):
        functions = self.__dict__.get("_functions", {})
        if name in functions:
            return functions[name]
        raise AttributeError(
            f"mxnet.base._LIB.{name}: mxtorch has no MXNet C library; of MXNet's C API it provides "
            f"only {', '.join(sorted(functions)) or 'nothing yet (import mxtorch first)'}. Call the "
            f"Python API that does the same work (mx.nd, mx.sym, mx.autograd, ...) instead of the C function")

    def __repr__(self):
        return f"<mxtorch stand-in for MXNet's C library ({', '.join(sorted(self._functions))})>"


_LIB = _CLibrary()


# -- handles of Python objects ------------------------------------------------------------------------
# MXNet's C API passes objects as opaque pointers (``sym.handle``, ``SymbolHandle`` outputs).  Here
# a handle is the object's id: objects whose handle was read are found again through a weak table;
# objects a C API function returns through an output handle are held until ``object_of_handle``
# gives them back to the caller (``Symbol(handle)``), as MXNet's caller took ownership.
_HANDLE_OBJECTS = weakref.WeakValueDictionary()
_HANDLE_OWNED = {}


def handle_of(obj):
    """The ``ctypes.c_void_p`` handle of ``obj`` (the same value on every call while it lives)."""
    _HANDLE_OBJECTS[id(obj)] = obj
    return ctypes.c_void_p(id(obj))


def give_handle(obj, out):
    """Store the handle of ``obj`` into the output handle ``out`` (``ctypes.byref(h)`` or ``h``),
    keeping ``obj`` alive until ``object_of_handle`` takes it."""
    _HANDLE_OWNED[id(obj)] = obj
    _output_pointer(out).value = id(obj)


def object_of_handle(handle, expected=object):
    """The object behind ``handle`` (a ``c_void_p`` or an address) made by :func:`handle_of` or
    :func:`give_handle`; MXNetError when the handle is unknown or not an ``expected`` instance."""
    address = handle.value if isinstance(handle, ctypes.c_void_p) else handle
    obj = _HANDLE_OWNED.pop(address, None)
    if obj is not None:
        _HANDLE_OBJECTS[address] = obj
    else:
        obj = _HANDLE_OBJECTS.get(address) if address is not None else None
    if obj is None or not isinstance(obj, expected):
        raise MXNetError(f"handle {address!r} is not the handle of a live {expected.__name__} "
                         f"(handles come from .handle or from a C API output)")
    return obj


def c_api_function(function):
    """Wrap ``function`` as a C API entry point: it returns 0, and any MXNetError it raises is
    recorded as the last error and -1 returned, so that ``check_call`` raises it, as MXNet's C
    library reported errors."""
    def entry(*args):
        try:
            function(*args)
        except MXNetError as error:
            _set_last_error(f"{type(error).__name__}: {error}")
            return -1
        return 0
    entry.__name__ = function.__name__
    entry.__doc__ = function.__doc__
    return entry


# -- the handle-holding base classes ------------------------------------------------------------------
class NDArrayBase:
    """Base class of ``NDArray`` (MXNet's ``mxnet._ctypes.ndarray.NDArrayBase``, the holder of the
    C handle).  Under mxtorch an array holds a torch tensor, not a handle; the class stays so that
    ``isinstance(x, NDArrayBase)`` checks in legacy code keep working."""
    __slots__ = ()


class SymbolBase:
    """Base class of ``Symbol`` (MXNet's ``mxnet._ctypes.symbol.SymbolBase``, the holder of the C
    handle).  Under mxtorch a Symbol holds its graph nodes; the class stays so that
    ``isinstance(s, SymbolBase)`` checks in legacy code keep working."""
    __slots__ = ()
