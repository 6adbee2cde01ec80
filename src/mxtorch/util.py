"""``mx.util``: environment variables, GPU queries, MXNet's NumPy-semantics switches, and
mxtorch's shared helper ``atomic_write``.

NumPy *shape* semantics (``set_np_shape(True)``, ``with np_shape():``, ``@use_np_shape``) are a
per-thread switch as in MXNet: while on, shape inference reports an unknown dimension as -1 and
an unknown shape as None (off: 0 and ``()``), and given shapes use -1 for unknown dimensions.
mxtorch's arrays always allow scalar ``()`` and zero-size shapes, so nothing else changes.
NumPy *array* semantics (``npx.set_np()``, ``with np_array():``, ``@use_np_array``) are a
per-thread switch as well: while on, Gluon makes ``mx.np.ndarray`` parameters and outputs and
``is_np_array()`` answers True.  ``set_np()`` / ``@use_np`` switch both on.
"""
from __future__ import annotations

import functools
import inspect
import json
import os
import secrets
import threading

from .base import MXNetError, MXNetTypeError
# names MXNet 1.9.1's mxnet.util had in its namespace from its ctypes binding
from .base import (c_str, check_call, py_str)  # noqa: E402,F401

__all__ = ["atomic_write", "atomic_write_group", "recover_group", "getenv", "setenv", "get_gpu_count", "get_gpu_memory",
           "get_cuda_compute_capability", "is_np_shape", "is_np_array", "set_np_shape", "set_np",
           "reset_np", "np_shape", "np_array", "use_np_shape", "use_np_array", "use_np", "set_module"]


def _write_target(fname):
    """The path a write to ``fname`` lands on: symbolic links are followed, as open() does."""
    return os.path.realpath(os.fspath(fname))


def _open_temporary(path):
    """Create a new temporary file beside ``path`` (same folder, so a rename replaces ``path``
    atomically); returns (descriptor, name).  The mode follows the umask, as for open()."""
    folder, base = os.path.split(path)
    temporary = os.path.join(folder, f".{base}.{secrets.token_hex(6)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    return descriptor, temporary


def temporary_beside(path):
    """An empty temporary file beside ``path`` for a library that writes by file name (torch.save,
    torch.onnx.export); rename it onto ``path`` when complete.  Raises MXNetError naming the folder
    when it does not exist (folders are not created, as for checkpoints)."""
    path = _write_target(path)
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        raise MXNetError(f"cannot write {path!r}: the folder {folder!r} does not exist")
    descriptor, temporary = _open_temporary(path)
    os.close(descriptor)
    return temporary


def _stage(path, payload):
    """Write ``payload`` (bytes or an iterable of bytes) to a new temporary file beside
    ``path``; returns its name.  The mode follows the umask, as for a file made by open()."""
    descriptor, temporary = _open_temporary(path)
    try:
        with os.fdopen(descriptor, "wb") as stream:
            for chunk in ([payload] if isinstance(payload, (bytes, bytearray, memoryview)) else payload):
                stream.write(chunk)
            stream.flush()
            os.fsync(stream.fileno())
    except BaseException:
        _remove_quietly(temporary)
        raise
    return temporary


def _remove_quietly(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def _sync_folder(path):
    """fsync the folder holding ``path``, so renames in it survive a power loss (POSIX)."""
    try:
        descriptor = os.open(os.path.dirname(path) or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _write_journal(journal, renames):
    """Write the list of (temporary, target) renames to ``journal`` atomically and durably."""
    payload = json.dumps({"renames": renames}).encode("utf-8")
    temporary = _stage(journal, payload)
    os.replace(temporary, journal)
    _sync_folder(journal)


def recover_group(journal, targets=()):
    """Finish a group write that was interrupted (a killed process, a power loss).

    ``journal`` is the file :func:`atomic_write_group` wrote once every temporary file was
    complete and before the first rename: if it exists, its remaining renames are done (roll
    forward: the group being written becomes the current one) and it is removed.  Leftover
    temporary files of ``targets`` from a write that was interrupted before its journal (the
    previous files are then intact) are removed.  Returns True when a journal was replayed.
    Safe to call at any time; not safe while another process writes the same group."""
    journal = _write_target(journal)
    replayed = False
    if os.path.exists(journal):
        try:
            with open(journal, "rb") as handle:
                renames = json.loads(handle.read().decode("utf-8"))["renames"]
        except (OSError, ValueError, KeyError, TypeError):
            renames = []        # written atomically, so never partial; an unreadable one has nothing to do
        for temporary, target in renames:
            if os.path.exists(temporary):
                os.replace(temporary, target)
        _sync_folder(journal)
        _remove_quietly(journal)
        replayed = True
    for target in list(targets) + [journal]:
        path = _write_target(target)
        folder, base = os.path.split(path)
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in names:
            if name.startswith(f".{base}.") and name.endswith(".tmp") and len(name) == len(base) + 18:
                _remove_quietly(os.path.join(folder, name))
    return replayed


def atomic_write_group(items, journal=None):
    """Write several files so that either all of them are replaced or none is.

    ``items`` is a list of ``(fname, payload)`` with ``payload`` bytes or an iterable of
    bytes chunks.  Every payload is first written completely (and fsynced) to a temporary
    file beside its target; only when all have been written are they renamed over their
    targets (a rename within one folder is atomic).  A failure while writing removes the
    temporary files and leaves every previous file untouched: a checkpoint's
    ``-symbol.json``, ``.params`` and ``.states`` stay a matching set.

    With ``journal`` (a path), the renames are also safe against the process being killed
    between them: the list of renames is written to ``journal`` before the first rename and
    removed after the last, and :func:`recover_group` (which checkpoint loading calls)
    completes the renames of a journal it finds.  So after a SIGKILL at any moment, the
    files are the previous complete set or, once recovered, the new complete set.

    Symbolic links are written through; a target that is not a regular file (a device, a
    pipe) is written directly, as MXNet did.

    Raises MXNetError naming the file that could not be written.
    """
    staged = []
    journaled = False       # from here on, recover_group finishes the renames: keep the temporaries
    try:
        for fname, payload in items:
            path = _write_target(fname)
            if os.path.exists(path) and not os.path.isfile(path):
                staged.append((fname, path, None, payload))
                continue
            try:
                staged.append((fname, path, _stage(path, payload), None))
            except OSError as error:
                raise MXNetError(f"cannot write {os.fspath(fname)!r}: {error.strerror or error}") from None
        renames = [[temporary, path] for _, path, temporary, _ in staged if temporary is not None]
        if journal is not None and len(renames) > 1:
            try:
                _write_journal(_write_target(journal), renames)
                journaled = True
            except OSError as error:
                raise MXNetError(f"cannot write {os.fspath(journal)!r}: {error.strerror or error}") from None
        for fname, path, temporary, payload in staged:
            try:
                if temporary is None:
                    with open(path, "wb") as stream:
                        for chunk in ([payload] if isinstance(payload, (bytes, bytearray, memoryview))
                                      else payload):
                            stream.write(chunk)
                else:
                    os.replace(temporary, path)
            except OSError as error:
                raise MXNetError(f"cannot write {os.fspath(fname)!r}: {error.strerror or error}") from None
        if renames:
            _sync_folder(renames[0][1])
        if journaled:
            _remove_quietly(_write_target(journal))
            journaled = False
    finally:
        for _, _, temporary, _ in ([] if journaled else staged):
            if temporary is not None and os.path.exists(temporary):
                _remove_quietly(temporary)


def atomic_write(fname, payload):
    """Write ``payload`` (bytes or an iterable of bytes) to ``fname`` atomically: through a
    temporary file in the same folder and a rename, so a crash or a full disk never leaves a
    half-written file behind (see :func:`atomic_write_group`).  Raises MXNetError naming the
    file when it cannot be written."""
    atomic_write_group([(fname, payload)])


def getenv(name):
    """The value (str) of environment variable ``name``, or None when it is not set."""
    return os.environ.get(name)


def setenv(name, value):
    """Set environment variable ``name`` to ``value`` (str) for this process and the
    libraries it loaded; ``value=None`` removes it."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = str(value)


def get_gpu_count():
    """Number of CUDA devices torch can see (0 without CUDA); under gpu-as-cpu, the number
    pretended (``mxtorch.context.num_gpus``)."""
    from .context import num_gpus
    return num_gpus()


def get_gpu_memory(gpu_dev_id):
    """``(free, total)`` memory of CUDA device ``gpu_dev_id`` in bytes.  Raises MXNetError
    without CUDA or for a device id that does not exist."""
    count = get_gpu_count()
    if not 0 <= int(gpu_dev_id) < count:
        raise MXNetError(f"get_gpu_memory: gpu_dev_id must be in [0, {count}) "
                         f"({count} CUDA device(s) visible), got {gpu_dev_id}")
    import torch
    free, total = torch.cuda.mem_get_info(int(gpu_dev_id))
    return int(free), int(total)


def get_cuda_compute_capability(ctx):
    """Compute capability of GPU context ``ctx`` as an int (``major * 10 + minor``, e.g. 90
    for 9.0).  Raises MXNetError for a non-GPU context or without CUDA."""
    from .context import Context
    if not isinstance(ctx, Context) or ctx.device_type != "gpu":
        raise MXNetError(f"get_cuda_compute_capability: expected a GPU context such as mx.gpu(0), got {ctx!r}")
    get_gpu_memory(ctx.device_id)                  # validates the device id
    import torch
    major, minor = torch.cuda.get_device_capability(ctx.device_id)
    return major * 10 + minor


_np_shape_state = threading.local()


# MXNet's set_np_shape(2): NumPy shape semantics on in every thread (GlobalOn)
_np_shape_everywhere = [False]


def is_np_shape():
    """Whether NumPy shape semantics are on in this thread (see the module docstring): switched
    on here, or in every thread by ``set_np_shape(2)``."""
    return _np_shape_everywhere[0] or getattr(_np_shape_state, "active", False)


def is_np_array():
    """Whether NumPy array semantics are on in this thread: the ``_is_np_array`` of the
    :class:`_NumpyArrayScope` in force (False when the thread never entered one)."""
    scope = getattr(_NumpyArrayScope._current, "value", None)
    return bool(scope._is_np_array) if scope is not None else False


def set_np_shape(active):
    """Switch NumPy shape semantics on or off in this thread (``active`` 1 / True or 0 / False;
    off also ends a global switch) or on in every thread (``active=2``, MXNet's GlobalOn);
    returns the previous state."""
    previous = is_np_shape()
    if active == 2 and not isinstance(active, bool):
        _np_shape_everywhere[0] = True
    elif not active:
        _np_shape_everywhere[0] = False
    _np_shape_state.active = bool(active)
    return previous


def _set_np_array(active):
    """Switch NumPy array semantics on or off in this thread; returns the previous state."""
    previous = is_np_array()
    _NumpyArrayScope._current.value = _NumpyArrayScope(active)
    return previous


def set_np(shape=True, array=True):
    """Switch NumPy shape and array semantics (``npx.set_np()``): ``mx.np`` arrays from
    Gluon, zero-dim and zero-size shapes.  ``array`` without ``shape`` raises ValueError, as
    in MXNet 1.9.1."""
    if array and not shape:
        raise ValueError("NumPy Shape semantics is required in using NumPy array semantics.")
    _set_np_array(array)
    set_np_shape(shape)


def reset_np():
    """Switch NumPy shape and array semantics off (``npx.reset_np()``)."""
    set_np(shape=False, array=False)


class _NumpyArrayScope:
    """The NumPy-array-semantics scope ``np_array(active)`` returns (MXNet's class of this name).

    The scope in force is per thread: ``_NumpyArrayScope._current.value`` of this thread,
    read by :func:`is_np_array` (False when the thread never entered one).  Scopes nest and
    restore the previous one on exit.
    """
    _current = threading.local()

    def __init__(self, is_np_array):  # noqa: A002 -- MXNet's argument name
        self._old_scope = None
        self._is_np_array = bool(is_np_array)

    def __enter__(self):
        current = _NumpyArrayScope._current
        self._old_scope = getattr(current, "value", None) or _NumpyArrayScope(False)
        current.value = self
        return self

    def __exit__(self, *exc):
        _NumpyArrayScope._current.value = self._old_scope
        return False


class _ShapeSemantics:
    """``with np_shape(active):``: NumPy shape semantics on (or off) inside the block."""

    def __init__(self, active):
        self._active = bool(active)
        self._previous = None

    def __enter__(self):
        self._previous = set_np_shape(self._active)

    def __exit__(self, *exc):
        set_np_shape(self._previous)
        return False


def np_shape(active=True):
    """Scope of NumPy shape semantics (on by default, ``active=False`` switches them off inside)."""
    return _ShapeSemantics(active)


def np_array(active=True):
    """Scope of NumPy array semantics, a :class:`_NumpyArrayScope` (``active=False`` switches
    them off inside the block)."""
    return _NumpyArrayScope(active)


def _scoped(scope, decorator, func):
    """``func`` (a function, or every function and property of a class) running inside
    ``scope()`` (a context manager), as MXNet's ``use_np_shape`` / ``use_np_array`` did.

    For a class, every Python function and property the class has, its own and the ones it
    inherits (MXNet walked ``inspect.getmembers``, so a ``HybridBlock`` subclass gets its
    inherited ``__call__``, ``forward`` and ``initialize`` scoped too), is replaced on the
    class by the scoped one.  Static and class methods keep their kind (MXNet turned them
    into plain methods)."""
    if inspect.isclass(func):
        for name, _ in inspect.getmembers(
                func, lambda m: inspect.isfunction(m) or inspect.ismethod(m) or isinstance(m, property)):
            member = inspect.getattr_static(func, name)
            if isinstance(member, property):
                setattr(func, name, property(_scoped(scope, decorator, member.fget) if member.fget else None,
                                             _scoped(scope, decorator, member.fset) if member.fset else None,
                                             member.fdel, member.__doc__))
            elif isinstance(member, staticmethod):
                setattr(func, name, staticmethod(_scoped(scope, decorator, member.__func__)))
            elif isinstance(member, classmethod):
                setattr(func, name, classmethod(_scoped(scope, decorator, member.__func__)))
            elif inspect.isfunction(member):
                setattr(func, name, _scoped(scope, decorator, member))
        return func
    if not callable(func):
        raise TypeError(f"{decorator} can only decorate classes and callable objects, while received a "
                        f"{type(func)}")

    @functools.wraps(func)
    def scoped(*args, **kwargs):
        with scope():
            return func(*args, **kwargs)
    return scoped


def use_np_shape(func):
    """Decorator running ``func`` (or every method of a class) under NumPy shape semantics."""
    return _scoped(lambda: np_shape(True), "use_np_shape", func)


def use_np_array(func):
    """Decorator running ``func`` (or every method of a class) under NumPy array semantics."""
    return _scoped(lambda: np_array(True), "use_np_array", func)


def use_np(func):
    """Decorator running ``func`` (or every method of a class) under NumPy shape and array
    semantics (MXNet's ``use_np``: ``use_np_shape(use_np_array(func))``)."""
    return use_np_shape(use_np_array(func))


def set_module(module):
    """Decorator setting ``__module__`` of a function or class to ``module`` (a str), so it
    is documented and pickled under that name."""
    def decorate(function):
        if module is not None:
            function.__module__ = module
        return function
    return decorate


# The most pixels OpenCV may decode from one image (its OPENCV_IO_MAX_IMAGE_PIXELS; OpenCV's own
# default is 2**30).  An image header from an untrusted record claiming more is refused instead of
# allocating gigabytes; a user's own setting of the variable wins.
MAX_IMAGE_PIXELS = 2 ** 27


def import_opencv(purpose):
    """The ``cv2`` module, imported with mxtorch's bound on decoded image size (the environment
    variable ``OPENCV_IO_MAX_IMAGE_PIXELS``, default ``MAX_IMAGE_PIXELS`` when unset, read by
    OpenCV when it first decodes).  ``purpose`` names the caller in the MXNetError raised when
    OpenCV is not installed."""
    os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(MAX_IMAGE_PIXELS))
    try:
        import cv2
    except ImportError:
        raise MXNetError(f"{purpose} needs OpenCV to encode and decode images; install the "
                         f"'opencv-python-headless' package (the 'image' extra)") from None
    return cv2


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_chunks_fit(encoded):
    """False for a PNG stream with a chunk whose length field points past the end of the bytes.

    OpenCV's PNG reader allocates the length a chunk header claims (up to 4 GiB) before noticing
    the stream is shorter, so a single flipped length byte in an untrusted record costs seconds
    and gigabytes; such a stream cannot decode anyway.  Chunks are walked up to IEND (trailing
    bytes after it are ignored, as decoders do); anything that is not a PNG passes."""
    data = memoryview(encoded).cast("B")
    if bytes(data[:8]) != _PNG_SIGNATURE:
        return True
    position, end = 8, len(data)
    while position + 8 <= end:
        length = int.from_bytes(data[position:position + 4], "big")
        kind = bytes(data[position + 4:position + 8])
        position += 12 + length          # length, type, data, CRC
        if position > end:
            return False
        if kind == b"IEND":
            return True
    return True


def decode_image(cv2, encoded, flag):
    """``cv2.imdecode(encoded, flag)`` for bytes from any source: None when OpenCV cannot decode
    them, including images whose header claims more than ``OPENCV_IO_MAX_IMAGE_PIXELS`` pixels
    (OpenCV raises for those; the callers report None with the record it came from)."""
    if encoded.size == 0 or not _png_chunks_fit(encoded):
        return None
    try:
        return cv2.imdecode(encoded, flag)
    except cv2.error:
        return None


class ThreadCurrent(type):
    """Metaclass giving a scope class MXNet's class property ``current``: the calling thread's
    instance, readable and assignable on the class (``AttrScope.current``,
    ``NameManager.current``).  The class declares ``_current = threading.local()``; a thread
    that never set one gets ``cls()`` of the class that declared it.  Assigning something that
    is not an instance of that class raises MXNetValueError."""

    def _declaring(cls):
        return next(klass for klass in cls.__mro__ if "_current" in vars(klass))

    @property
    def current(cls):
        owner = cls._declaring()
        value = getattr(owner._current, "value", None)
        if value is None:
            value = owner()
            owner._current.value = value
        return value

    @current.setter
    def current(cls, value):
        from .base import MXNetValueError
        owner = cls._declaring()
        if not isinstance(value, owner):
            article = "an" if owner.__name__[0] in "AEIOU" else "a"
            raise MXNetValueError(f"{owner.__name__}.current: expected {article} {owner.__name__}, got {type(value).__name__}")
        owner._current.value = value



# -- nested lists of arrays or symbols (control flow, HybridBlock inputs and outputs) ----------------
def flatten_nested(value, leaf_format, error):
    """``(flat list, format)`` of ``value``, a leaf or a (nested) list / tuple of them.

    ``leaf_format(item)`` is the format of a leaf (an int: 0 one item, ``n > 0`` a group of
    ``n`` outputs kept as one item, -1 a ``None``), or None when ``item`` is not a leaf; a
    non-leaf that is not a list or tuple raises ``error(item)``.  The format of a list is the
    list of its items' formats.  :func:`regroup_nested` inverts it."""
    fmt = leaf_format(value)
    if fmt is not None:
        return [value], fmt
    if not isinstance(value, (list, tuple)):
        raise error(value)
    flat, formats = [], []
    for item in value:
        items, item_format = flatten_nested(item, leaf_format, error)
        flat.extend(items)
        formats.append(item_format)
    return flat, formats


def regroup_nested(flat, fmt, error=None):
    """The inverse of :func:`flatten_nested`: ``(nested value, the items of flat left over)``;
    a format 0 takes one item, ``n > 0`` the next ``n`` items as a list, -1 a ``None``
    (MXNetError for anything else there).  With ``error``, a ``flat`` that is not a list or tuple
    where a list format is expected raises ``error(flat)``."""
    if isinstance(fmt, int):
        if fmt == 0:
            return flat[0], flat[1:]
        if fmt == -1:
            if flat[0] is not None:
                raise MXNetError(f"expected None where the nesting format has a None, got {type(flat[0]).__name__}")
            return None, flat[1:]
        return flat[:fmt], flat[fmt:]
    if error is not None and not isinstance(flat, (list, tuple)):
        raise error(flat)
    result = []
    for item_format in fmt:
        value, flat = regroup_nested(flat, item_format, error)
        result.append(value)
    return result, flat


# -- NumPy ufunc keyword checks (MXNet 1.9.1's util.np_ufunc_legal_option / wrap_np_*_func) ----------
_NP_UFUNC_DEFAULTS = {"where": True, "casting": "same_kind", "order": "K", "dtype": None, "subok": True}
_NP_UFUNC_DTYPES = {"int8", "uint8", "int32", "int64", "float16", "float32", "float64"}


class UfuncOptionNotImplemented(MXNetError, NotImplementedError):
    """A NumPy ufunc keyword with a legal but unsupported value (``casting='unsafe'``): both an
    MXNetError and the NotImplementedError MXNet raised."""


def np_ufunc_legal_option(key, value):
    """Whether ``key=value`` is a value NumPy's ufuncs accept: any ``where``; ``casting`` one of
    no / equiv / safe / same_kind / unsafe; ``order`` a string; ``dtype`` one of int8, uint8,
    int32, int64, float16, float32, float64 (name or NumPy type); ``subok`` a bool.  False for
    any other key."""
    if key == "where":
        return True
    if key == "casting":
        return value in ("no", "equiv", "safe", "same_kind", "unsafe")
    if key == "order":
        return isinstance(value, str)
    if key == "dtype":
        if isinstance(value, str):
            return value in _NP_UFUNC_DTYPES
        return isinstance(value, type) and getattr(value, "__name__", None) in _NP_UFUNC_DTYPES \
            and value.__module__ == "numpy"
    if key == "subok":
        return isinstance(value, bool)
    return False


def _check_ufunc_keywords(function_name, kwargs, unary):
    for key, value in kwargs.items():
        if key not in _NP_UFUNC_DEFAULTS:
            raise MXNetTypeError(f"{key} is an invalid keyword to function '{function_name}'")
        if value != _NP_UFUNC_DEFAULTS[key]:
            if np_ufunc_legal_option(key, value):
                suffix = f" for operator {function_name}" if unary else ""
                raise UfuncOptionNotImplemented(f"{key}={value} is not implemented yet{suffix}")
            if unary:
                raise MXNetTypeError(f"{key}={value} not understood for operator {function_name}")
            raise MXNetTypeError(f"{key} {value} not understood")


def wrap_np_unary_func(func):
    """Decorator for a NumPy-style unary function ``func(x, out=None)``: the ufunc keywords
    (where, casting, order, dtype, subok) are accepted at their NumPy defaults; another value
    raises NotImplementedError when NumPy allows it and TypeError otherwise, as does an unknown
    keyword (both errors are also MXNetErrors)."""
    @functools.wraps(func)
    def wrapper(x, out=None, **kwargs):
        _check_ufunc_keywords(func.__name__, kwargs, unary=True)
        return func(x, out=out)
    return wrapper


def wrap_np_binary_func(func):
    """Decorator for a NumPy-style binary function ``func(x1, x2, out=None)`` with the keyword
    checks of ``wrap_np_unary_func``."""
    @functools.wraps(func)
    def wrapper(x1, x2, out=None, **kwargs):
        _check_ufunc_keywords(func.__name__, kwargs, unary=False)
        return func(x1, x2, out=out)
    return wrapper


# -- ``from mxnet.<module> import *`` ---------------------------------------------------------------
def star_exports(module_name, namespace, own=(), resolves=None):
    """``__all__`` for the mxtorch module ``module_name`` (``mxtorch.operator``): its own public
    names ``own`` plus the names ``from mxnet.<module> import *`` gave under MXNet 1.9.1
    (``star_exports.MXNET_STAR_NAMES``, generated from MXNet by tools/gen_star_exports.py) that
    the module has in ``namespace``, or that ``resolves(name)`` says its module ``__getattr__``
    provides.  MXNet's tests and legacy programs use what came through a star import
    (``ctypes``, ``c_str``, ``check_call`` from ``mxnet.operator``)."""
    from .star_exports import MXNET_STAR_NAMES
    key = module_name.split(".", 1)[1]
    names = [name for name in MXNET_STAR_NAMES.get(key, ())
             if name in namespace or (resolves is not None and resolves(name))]
    return list(dict.fromkeys(list(own) + names))


def optional_module(namespace, name, import_name, placeholder):
    """Import the optional module ``import_name`` into ``namespace`` (a module's globals) under
    ``name`` on first use, or ``placeholder`` when it is not installed (MXNet's notebook modules
    bound ``bokeh`` / ``pd`` to a ``*_Failed_To_Import`` class then); for a module ``__getattr__``."""
    import importlib
    try:
        module = importlib.import_module(import_name)
    except ImportError:
        module = placeholder
    namespace[name] = module
    return module

# the C library object MXNet's module held (``from .base import _LIB``; see base_ctypes._CLibrary)
from .base_ctypes import _LIB  # noqa: E402,F401
