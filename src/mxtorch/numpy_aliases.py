"""NumPy names and behaviours that NumPy 1.24 / 2.0 removed, restored for legacy MXNet programs.

MXNet 1.x programs were written against NumPy 1.x and often use names that
current NumPy no longer has: ``np.float`` / ``np.int`` / ``np.object`` /
``np.str`` / ``np.unicode`` (aliases of the Python builtins, removed in 1.24),
``np.asscalar`` (removed in 1.23), the NumPy 2.0 removals (``np.float_``,
``np.NaN``, ``np.Inf``, ``np.product``, ``np.alltrue``, ...), ``np.trapz`` and
``np.in1d`` (2.4), and the binary mode of ``np.fromstring``
(``np.fromstring(buf, dtype=np.uint8)``, removed in 2.3), which MXNet's own MNIST
example reader uses.  ``_removals()`` is the one table of what is restored and which
NumPy release removed it; the warning names that release.  On NumPy 2 such a program fails however good the
rest of the stack is.

``enable_numpy_aliases()`` (``mxtorch run --numpy-aliases``,
``MXTORCH_NUMPY_ALIASES=1``, ``mxtorch.install_as_mxnet(numpy_aliases=True)``)
patches the imported ``numpy`` module of this process:

- removed names are served by a module ``__getattr__`` placed in front of
  NumPy's own, so they exist only for code that asks for them and
  ``hasattr(np, 'float')`` becomes true, as on NumPy 1.23;
- ``np.fromstring`` with ``sep=''`` (its default) reads the bytes as
  ``np.frombuffer(...).copy()`` did in NumPy 1.x (a writable copy); the text mode
  (``sep`` given) is NumPy's own;
- ``np.array``, ``np.asarray`` and ``np.asanyarray`` of a ragged nested sequence
  (``np.array([[1, 2], [3]])``), which NumPy >= 1.24 refuses with ``ValueError: ... inhomogeneous
  shape``, give NumPy 1's object array (``array([list([1, 2]), list([3])], dtype=object)``);
  ``np.save`` of a ragged list goes through ``np.asanyarray`` and so saves that object array
  (``np.load(..., allow_pickle=True)`` reads it back, as with NumPy 1).  An explicit ``dtype``
  keeps NumPy's error.  Cost: these three functions become Python wrappers around NumPy's
  (0.1-0.5 us more per call made through the ``numpy`` module; code that imported the
  function object before the switch keeps NumPy's own), and a ragged input is examined twice.
- ``np.full(shape, fill_value, dtype)`` with a Python ``int`` outside an integer ``dtype``'s range
  (``np.full(3, -1, dtype=np.uint8)``, which GluonNLP's ``batchify.Pad`` does for a ``pad_val`` of
  -1 on uint8 data), which NumPy 2 refuses with ``OverflowError`` (NEP 50), gives NumPy 1's C cast
  (two's complement wrap-around: 255).  Any other OverflowError is NumPy's.

The first use of any restored name or behaviour emits one ``NumpyAliasWarning``
naming it (and pointing at the caller's line); later uses are silent.  Names that
the installed NumPy still has are never replaced.
"""
from __future__ import annotations

import builtins
import threading
import warnings

import numpy

__all__ = ["enable_numpy_aliases", "numpy_aliases_enabled", "removed_in", "RESTORED_NAMES", "NumpyAliasWarning"]


class NumpyAliasWarning(UserWarning):
    """Emitted once, at the first use of a NumPy name or behaviour restored by numpy aliases."""


def _asscalar(array):
    """``np.asscalar(a)``: the one element of ``a`` as a Python scalar (``a.item()``)."""
    return numpy.asarray(array).item()


def _find_common_type(array_types, scalar_types):
    return numpy.result_type(*array_types) if array_types else numpy.result_type(*scalar_types)


_BEHAVIOUR = object()      # a table row for a behaviour (patched below), not a name


def _removals():
    """THE table: ``{name: (release, value)}`` for every NumPy name and behaviour restored here.

    ``release`` is the NumPy release that removed it (checked against the numpy wheels of each
    release, 1.23.5 to 2.4.6, besides the release notes), ``value`` what NumPy 1.x had under the
    name, or ``_BEHAVIOUR`` for a behaviour (its key is then what the warning calls it)."""
    builtin_aliases = {"float": builtins.float, "int": builtins.int, "bool": builtins.bool,
                       "object": builtins.object, "str": builtins.str, "unicode": builtins.str,
                       "complex": builtins.complex, "long": builtins.int}
    numpy_2_0 = {
        "float_": numpy.float64, "complex_": numpy.complex128, "string_": numpy.bytes_,
        "unicode_": numpy.str_, "longfloat": numpy.longdouble, "singlecomplex": numpy.complex64,
        "cfloat": numpy.complex128, "longcomplex": numpy.clongdouble, "clongfloat": numpy.clongdouble,
        "bool8": numpy.bool_, "int0": numpy.intp, "uint0": numpy.uintp,
        "Inf": numpy.inf, "Infinity": numpy.inf, "infty": numpy.inf, "PINF": numpy.inf, "NINF": -numpy.inf,
        "NaN": numpy.nan, "PZERO": 0.0, "NZERO": -0.0,
        "product": numpy.prod, "cumproduct": numpy.cumprod, "alltrue": numpy.all, "sometrue": numpy.any,
        "round_": numpy.round, "asfarray": lambda a, dtype=numpy.float64: numpy.asarray(a, dtype=dtype),
        "msort": lambda a: numpy.sort(a, axis=0), "find_common_type": _find_common_type,
        "issubclass_": builtins.issubclass, "mat": numpy.asmatrix,
    }
    numpy_2_4 = {}
    if hasattr(numpy, "trapezoid"):
        numpy_2_4["trapz"] = numpy.trapezoid
    if hasattr(numpy, "isin"):
        numpy_2_4["in1d"] = lambda a, b, assume_unique=False, invert=False: numpy.isin(
            numpy.ravel(a), b, assume_unique=assume_unique, invert=invert)
    table = {"asscalar": ("1.23", _asscalar)}
    table.update({name: ("1.24", value) for name, value in builtin_aliases.items()})
    table.update({name: ("2.0", value) for name, value in numpy_2_0.items()})
    table.update({name: ("2.4", value) for name, value in numpy_2_4.items()})
    table.update({
        _RAGGED: ("1.24", _BEHAVIOUR),       # ValueError: ... inhomogeneous shape
        _FULL_WRAP: ("2.1", _BEHAVIOUR),     # OverflowError: Python integer -1 out of bounds for uint8
        _FROMSTRING: ("2.3", _BEHAVIOUR),    # ValueError: The binary mode of fromstring is removed
    })
    return table


_RAGGED = "np.array / np.asarray / np.asanyarray of a ragged nested sequence (NumPy 1's object array)"
_FULL_WRAP = "np.full with an integer fill value out of the dtype's range (NumPy 1's wrap-around cast)"
_FROMSTRING = "the binary mode of np.fromstring (sep='')"


def _removed_names():
    """``{name: value}`` of what NumPy 1.x had under each removed name."""
    return {name: value for name, (_, value) in _removals().items() if value is not _BEHAVIOUR}


def removed_in(name):
    """The NumPy release that removed ``name`` (``'float'``) or behaviour, from the table."""
    return _removals()[name][0]


RESTORED_NAMES = tuple(sorted(_removed_names()))

_lock = threading.Lock()
_state = {"enabled": False, "warned": False}


def _warn_first_use(key, what=None):
    """Warn once per process: ``key`` is a name (``'float'``) or a behaviour of the table,
    ``what`` the text naming this use (default ``np.<key>`` or the behaviour's text)."""
    if _state["warned"]:
        return
    _state["warned"] = True
    release = removed_in(key)
    what = what or (f"np.{key}" if key.isidentifier() else key)
    warnings.warn(f"mxtorch numpy-aliases: {what} was removed in NumPy {release} (this is NumPy "
                  f"{numpy.__version__}); it works here as in NumPy 1.x because numpy aliases are enabled "
                  f"(MXTORCH_NUMPY_ALIASES / --numpy-aliases). Only this first use is reported.",
                  NumpyAliasWarning, stacklevel=3)


def numpy_aliases_enabled():
    """Whether ``enable_numpy_aliases()`` has patched this process's ``numpy``."""
    return _state["enabled"]


def enable_numpy_aliases():
    """Restore the removed NumPy names and the binary ``np.fromstring`` in this process.

    Idempotent; returns the list of names restored (those the installed NumPy lacks).
    """
    with _lock:
        if _state["enabled"]:
            return [name for name in RESTORED_NAMES if name in _served]
        table = {name: value for name, value in _removed_names().items() if name not in vars(numpy)}
        _served.update(table)
        original_getattr = vars(numpy).get("__getattr__")

        def __getattr__(name):
            if name in _served:
                _warn_first_use(name)
                return _served[name]
            if original_getattr is None:
                raise AttributeError(f"module 'numpy' has no attribute {name!r}")
            return original_getattr(name)

        numpy.__getattr__ = __getattr__
        original_fromstring = numpy.fromstring

        def fromstring(string, dtype=float, count=-1, *, sep="", like=None):
            if sep != "":
                if like is not None:
                    return original_fromstring(string, dtype=dtype, count=count, sep=sep, like=like)
                return original_fromstring(string, dtype=dtype, count=count, sep=sep)
            _warn_first_use(_FROMSTRING)
            data = string.encode("latin-1") if isinstance(string, str) else string
            return numpy.frombuffer(data, dtype=dtype, count=count).copy()

        fromstring.__doc__ = original_fromstring.__doc__
        fromstring.__wrapped__ = original_fromstring
        numpy.fromstring = fromstring
        for name in _RAGGED_CONSTRUCTORS:
            setattr(numpy, name, _object_array_for_ragged(getattr(numpy, name), name))
        numpy.full = _full_with_wrapping_integer_fill(numpy.full)
        _state["enabled"] = True
        return sorted(_served)


_served: dict = {}


def _full_with_wrapping_integer_fill(original):
    """``original`` (``np.full``), except that a Python ``int`` fill value outside the range of an
    integer ``dtype`` is cast as NumPy 1 cast it (C conversion: ``-1`` -> ``255`` for uint8)
    instead of raising NumPy 2's ``OverflowError``."""

    def full(shape, fill_value, dtype=None, order="C", **kwargs):
        try:
            return original(shape, fill_value, dtype, order, **kwargs)
        except OverflowError:
            integer_fill = isinstance(fill_value, int) and not isinstance(fill_value, bool)
            if dtype is None or not integer_fill or numpy.dtype(dtype).kind not in "iu":
                raise
            try:
                wrapped = numpy.array(fill_value, dtype=numpy.int64 if fill_value < 0 else numpy.uint64)
            except OverflowError:
                raise OverflowError(f"np.full: fill value {fill_value} does not fit in 64 bits") from None
        _warn_first_use(_FULL_WRAP, f"np.full with the out-of-range integer fill value {fill_value} for "
                                    f"{numpy.dtype(dtype)} (NumPy 1's wrap-around cast)")
        return original(shape, wrapped.astype(dtype), dtype, order, **kwargs)

    full.__name__ = full.__qualname__ = "full"
    full.__doc__ = original.__doc__
    full.__wrapped__ = original
    return full

_RAGGED_CONSTRUCTORS = ("array", "asarray", "asanyarray")


def _is_ragged_error(error):
    return "inhomogeneous" in str(error)


def _object_array_for_ragged(original, name):
    """``original`` (``np.array`` / ``np.asarray`` / ``np.asanyarray``), except that a ragged nested
    sequence without an explicit dtype gives NumPy 1's object array instead of ValueError."""

    def constructor(obj, *args, **kwargs):
        try:
            return original(obj, *args, **kwargs)
        except ValueError as error:
            dtype_given = (args and args[0] is not None) or kwargs.get("dtype") is not None
            if dtype_given or not _is_ragged_error(error):
                raise
        _warn_first_use(_RAGGED, f"np.{name} of a ragged nested sequence (NumPy 1's object array)")
        kwargs.pop("dtype", None)
        return original(obj, object, *args[1:], **kwargs)

    constructor.__name__ = name
    constructor.__qualname__ = name
    constructor.__doc__ = original.__doc__
    constructor.__wrapped__ = original
    return constructor
