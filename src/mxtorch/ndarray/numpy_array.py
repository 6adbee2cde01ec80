"""``mx.np.ndarray``: the NDArray class with NumPy semantics (MXNet's ``mxnet.numpy.ndarray``).

It is a subclass of :class:`~mxtorch.ndarray.ndarray.NDArray` holding the same torch tensor,
so ``as_np_ndarray()`` / ``as_nd_ndarray()`` convert without a copy and autograd, the
operator registry, serialization and devices are the classic ones.  What changes is the
semantics, as MXNet 1.9.1 had them:

- indexing keeps zero-dim results (``x[0, 1]`` has shape ``()``), boolean masks select;
- arithmetic and comparisons broadcast and promote dtypes as NumPy (the ``_npi_*``
  operators of ``ops/numpy_ops.py``); comparisons give bool arrays;
- ``dtype`` is a ``numpy.dtype``; ``repr`` prints ``array([...])`` as NumPy does, without
  ``dtype=float32`` (MXNet's default) and with ``dtype=`` for every other type but bool;
- the methods (``sum``, ``reshape``, ``transpose``, ...) take NumPy's arguments.

Every operator call goes through :func:`call`, which runs the registered operator with this
class as the result class; ``ndarray/numpy/`` builds the ``mx.nd.np`` / ``mx.np`` functions on it.
"""
from __future__ import annotations

import numbers
import threading

import numpy as np
import torch

from .. import recording as _recording
from ..exceptions import MXNetTypeError
from ..ops import registry
from ..ops.numpy_arrays import _BroadcastShape, _NewShape
from ..ops.numpy_ops import numpy_argument
from ..schema import NumpyShape
from ..util import is_np_shape
from . import indexing as _indexing
from .ndarray import NDArray, _provided, _recorded, provide

__all__ = ["ndarray", "call", "binary", "wrap", "is_number"]


# -- the symbolic front end's registration point -------------------------------------------------
# ``mx.sym.np`` (symbol/numpy, a layer above) runs the same functions on symbols: it registers
# here what a symbol is and how a node is built, and its functions run inside ``symbolic()``
# so that functions without array inputs (``zeros``, ``random.uniform``) build nodes too.
_SYMBOL_FRONT = {}
_SYMBOLIC = threading.local()


def register_symbol_front(is_symbol, build):
    """Called by ``mxtorch.symbol.numpy``: ``is_symbol(value)`` tells its symbols apart and
    ``build(op_name, inputs, attrs)`` makes the node of operator ``op_name``."""
    _SYMBOL_FRONT.update(is_symbol=is_symbol, build=build)


def is_symbol(value):
    """Whether ``value`` is a symbol of the registered symbolic front end."""
    test = _SYMBOL_FRONT.get("is_symbol")
    return test is not None and test(value)


class symbolic:  # noqa: N801 -- a context manager used like a function
    """``with symbolic():`` the ``mx.np`` functions build symbols (``mx.sym.np``)."""

    def __enter__(self):
        _SYMBOLIC.depth = getattr(_SYMBOLIC, "depth", 0) + 1

    def __exit__(self, *exc):
        _SYMBOLIC.depth -= 1
        return False


def call(op_name, *inputs, **attrs):
    """Run the registered operator ``op_name`` on ``inputs`` with ``attrs``; results are
    ``mx.np.ndarray``s (a list when it has several outputs).  On symbols, or inside
    ``symbolic()``, the node of the operator is built instead (``mx.sym.np``)."""
    if _SYMBOL_FRONT and (getattr(_SYMBOLIC, "depth", 0) or any(is_symbol(value) for value in inputs)):
        attrs.pop("out", None)
        return _SYMBOL_FRONT["build"](op_name, inputs, attrs)
    return _provided("invoke")(registry.get_operator(op_name), inputs, attrs, result_class=ndarray)


def wrap(tensor, ctx=None):
    """A torch tensor as an ``mx.np.ndarray`` (no copy)."""
    return ndarray(tensor, ctx)


def is_number(value):
    """Whether ``value`` is a Python or NumPy scalar (a bool included)."""
    return isinstance(value, (numbers.Number, np.generic))


# (name, reversed name): the operator run when the number is on the left; None: commutative
_REVERSED = {"subtract": "rsubtract", "true_divide": "rtrue_divide", "mod": "rmod", "power": "rpower",
             "arctan2": "rarctan2", "copysign": "rcopysign", "ldexp": "rldexp", "greater": "less", "less": "greater",
             "greater_equal": "less_equal", "less_equal": "greater_equal"}
_COMMUTATIVE = {"add", "multiply", "maximum", "minimum", "equal", "not_equal", "hypot", "logical_and",
                "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "lcm"}
_ON_NUMBERS = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "true_divide": np.true_divide,
               "mod": np.mod, "power": np.power, "maximum": np.maximum, "minimum": np.minimum,
               "equal": np.equal, "not_equal": np.not_equal, "greater": np.greater, "less": np.less,
               "greater_equal": np.greater_equal, "less_equal": np.less_equal, "hypot": np.hypot,
               "arctan2": np.arctan2, "copysign": np.copysign, "logical_and": np.logical_and,
               "logical_or": np.logical_or, "logical_xor": np.logical_xor, "bitwise_and": np.bitwise_and,
               "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor, "lcm": np.lcm, "ldexp": np.ldexp}


def binary(name, lhs, rhs, out=None):
    """MXNet's ``_ufunc_helper``: two arrays run ``_npi_<name>``, an array and a number
    ``_npi_<name>_scalar`` (``_npi_r<name>_scalar`` or the mirrored comparison when the number is
    on the left), two numbers NumPy's function.  A NumPy array operand raises TypeError, as in
    MXNet 1.9.1."""
    extra = {} if out is None else {"out": out}
    left_number, right_number = is_number(lhs), is_number(rhs)
    if left_number and right_number:
        return _ON_NUMBERS[name](lhs, rhs)
    for value in (lhs, rhs):
        if not (is_number(value) or isinstance(value, NDArray) or is_symbol(value)):
            raise TypeError(f"type {type(value)} not supported")
    if right_number:
        return call(f"_npi_{name}_scalar", lhs, scalar=float(rhs), is_int=isinstance(rhs, (int, np.integer)),
                    **extra)
    if left_number:
        # a commutative operator takes the number on either side; the others have a reversed
        # form (rsubtract, ...) or a mirrored comparison (3 < x is x > 3)
        reverse = name if name in _COMMUTATIVE else _REVERSED[name]
        return call(f"_npi_{reverse}_scalar", rhs, scalar=float(lhs), is_int=isinstance(lhs, (int, np.integer)),
                    **extra)
    return call(f"_npi_{name}", _as_np(lhs), _as_np(rhs), **extra)


def _as_np(value):
    if isinstance(value, ndarray) or is_symbol(value):
        return value
    return ndarray(value._tensor, value._ctx)


# NumPy's dispatch protocols (NEP 18 / NEP 13): ``numpy.sum(x)`` on an ``mx.np.ndarray`` runs
# ``mx.np.sum``; ``mxnet.numpy_dispatch_protocol`` fills these tables (NumPy function -> mx.np
# function; ufunc name -> mx.np function).  Functions missing from them run NumPy's own on copies.
_NUMPY_ARRAY_FUNCTION_DICT = {}
_NUMPY_ARRAY_UFUNC_DICT = {}
# ``import mxtorch`` does not load the NumPy front end (docs/performance.md, "Start-up and memory"); the
# package sets this to a callable that imports ``mxnet.numpy_dispatch_protocol``, run once by the
# first dispatch, so ``numpy.sum(x)`` finds ``mx.np.sum`` however ``x`` was made.
_load_dispatch_tables = None


def _dispatch_tables():
    """The (function, ufunc) tables, filled on first use."""
    global _load_dispatch_tables
    loader = _load_dispatch_tables
    if loader is not None:
        _load_dispatch_tables = None
        loader()
    return _NUMPY_ARRAY_FUNCTION_DICT, _NUMPY_ARRAY_UFUNC_DICT


def _to_numpy(value):
    if isinstance(value, NDArray):
        return value.asnumpy()
    if isinstance(value, (list, tuple)):
        return type(value)(_to_numpy(v) for v in value)
    return value


def _from_numpy(value, ctx):
    """A fallback's result with NumPy's arrays as ``mx.np`` arrays on ``ctx``.  A NumPy scalar
    (``np.int32(5)``: NumPy's result of a ufunc on 0-d arrays) becomes a 0-d array, as the
    ``mx.np`` functions give (MXNet 1.9.1 passed the scalar through); lists, tuples and named
    tuples (NumPy 2's ``EigResult``, ...) keep their type."""
    if isinstance(value, (np.ndarray, np.generic)) and not isinstance(value, np.ndarray) and \
            value.dtype.kind in "biufc":
        value = np.asarray(value)
    if isinstance(value, np.ndarray):
        return ndarray(torch.from_numpy(np.array(value, copy=True, order="C")).to(ctx.torch_device), ctx)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_from_numpy(v, ctx) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_from_numpy(v, ctx) for v in value)
    return value


def _first_context(values):
    for value in values:
        if isinstance(value, NDArray):
            return value.context
        if isinstance(value, (list, tuple)):
            found = _first_context(value)
            if found is not None:
                return found
    return None


def _numpy_fallback(function, args, kwargs):
    """``function`` (NumPy's) run on host copies of the arrays, its arrays brought back."""
    if _recording.is_recording():
        raise ValueError(f"Falling back to NumPy operator {getattr(function, '__name__', function)} with autograd "
                         f"active is not supported. Please consider moving the operator to the outside of the "
                         f"autograd scope.")
    ctx = _first_context(list(args) + list(kwargs.values()))
    if ctx is None:
        # no array among the arguments (np.pv(0.05, 10, -100)): results go to the current context
        from ..context import current_context
        ctx = current_context()
    result = function(*_to_numpy(list(args)), **{k: _to_numpy(v) for k, v in kwargs.items()})
    return _from_numpy(result, ctx)


def _binary_method(name, reflected=False, inplace=False):
    def method(self, other):
        if inplace:
            self._check_writable(f"__i{name}__", other, partial=True)
            return binary(name, self, other, out=self)
        if reflected:
            return binary(name, other, self)
        return binary(name, self, other)
    method.__name__ = f"__{'r' if reflected else 'i' if inplace else ''}{name}__"
    method.__doc__ = f"NumPy's ``{name}`` ({'reflected' if reflected else 'in place' if inplace else 'binary'})."
    return method


def _axis_keywords(axis, keepdims, **more):
    return dict(axis=axis, keepdims=keepdims, **{k: v for k, v in more.items() if v is not None})


class ndarray(NDArray):  # noqa: N801 -- MXNet's class name
    """An array of MXNet's NumPy front end (``mx.np.ndarray``): an NDArray with NumPy's
    indexing, broadcasting, dtype promotion and printing (see the module docstring)."""

    __slots__ = ()

    # -- properties ---------------------------------------------------------------------------
    @property
    def dtype(self):
        """The ``numpy.dtype`` of the elements."""
        return np.dtype(super().dtype)

    @property
    def T(self):
        """The transpose (axes reversed)."""
        return self.transpose()

    # -- conversion ---------------------------------------------------------------------------
    def as_nd_ndarray(self):
        """This array as a classic ``mx.nd.NDArray`` on the same tensor (no copy)."""
        result = NDArray(self._tensor, self._ctx)
        result._grad, result._grad_req = self._grad, self._grad_req
        return result

    def as_np_ndarray(self):
        """This array itself."""
        return self

    def item(self, *args):
        """An element as a Python scalar (the only one without arguments)."""
        return self.asnumpy().item(*args)

    def tolist(self):
        """The values as nested Python lists (a scalar for a zero-dim array)."""
        return self.asnumpy().tolist()

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):  # noqa: ARG002
        """A copy converted to ``dtype`` (this array when ``copy=False`` and already of it)."""
        result = NDArray.astype(self, dtype, copy=copy)
        return result if result is self else _as_np(result)

    def copy(self, order="C"):
        """A new array of the same values (``order='C'`` only)."""
        if order != "C":
            raise NotImplementedError(f"ndarray.copy: only order='C' is supported, got {order!r}")
        return _as_np(NDArray.copy(self))

    def copyto(self, other):
        """Copy into ``other`` (an array) or onto a Context (a new ``mx.np.ndarray``)."""
        result = NDArray.copyto(self, other)
        return result if isinstance(other, NDArray) else _as_np(result)

    def as_in_ctx(self, ctx):
        """This array on ``ctx`` (itself when already there)."""
        return self if ctx == self._ctx else self.copyto(ctx)

    as_in_context = as_in_ctx

    def detach(self):
        """This array's values, out of the recorded graph."""
        return _as_np(NDArray.detach(self))

    @property
    def grad(self):
        """The gradient array given by ``attach_grad`` (an ``mx.np.ndarray``)."""
        grad = self._grad
        return grad if grad is None or isinstance(grad, ndarray) else _as_np(grad)

    # -- NumPy's dispatch protocols ----------------------------------------------------------
    def __array_function__(self, func, types, args, kwargs):
        """``numpy.<func>(x, ...)``: the ``mx.np`` function registered for it, else NumPy's on copies."""
        function = _dispatch_tables()[0].get(func)
        if function is None:
            return _numpy_fallback(func, args, kwargs)
        if not all(issubclass(t, ndarray) for t in types):
            return NotImplemented
        return function(*args, **kwargs)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """``numpy.<ufunc>(x, ...)``: the ``mx.np`` function of the same name, else NumPy's on copies."""
        if "out" in kwargs:
            out = kwargs["out"]
            if len(out) != 1:
                raise ValueError("The `out` parameter must have exactly one ndarray")
            kwargs["out"] = out[0]
        if method != "__call__":
            return NotImplemented
        function = _dispatch_tables()[1].get(ufunc.__name__)
        if function is None:
            return _numpy_fallback(ufunc, inputs, kwargs)
        return function(*inputs, **kwargs)

    # -- printing -----------------------------------------------------------------------------
    def __repr__(self):
        text = repr(self.asnumpy())
        dtype = self.dtype
        if "dtype=" in text:
            if dtype == np.float32:
                text = text[:text.rindex(",")] + ")"
        elif dtype not in (np.float32, np.bool_):
            text = text[:-1] + f", dtype={dtype})"
        if self._ctx.device_type == "cpu":
            return text
        return text[:-1] + f", ctx={self._ctx})"

    def __str__(self):
        text = str(self.asnumpy())
        if self._ctx.device_type == "cpu" or self.ndim == 0:
            return text
        return f"{text} @{self._ctx}"

    # -- python protocol ----------------------------------------------------------------------
    def __format__(self, spec):
        """``format(x, spec)``: a zero-dim array formats as its value; others only with an empty spec."""
        if self.ndim == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to mxnet.numpy.ndarray.__format__")
        return str(self)

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __bool__(self):
        if self.size == 0:
            return False
        if self.size == 1:
            return bool(self.item())
        raise ValueError("The truth value of an ndarray with multiple elements is ambiguous.")

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.ndim == 0 and not self._tensor.is_floating_point():
            return int(self.item())
        raise TypeError("only integer scalar arrays can be converted to a scalar index")

    def __reduce__(self):
        return (ndarray, (None,), self.__getstate__())

    def __getitem__(self, key):
        """NumPy indexing, as MXNet 1.9.1: a basic key selecting one contiguous block of memory
        (``x[0]``, ``x[1:3]``, ``x[0, 0, 2:5]``) gives a view, other basic keys a copy; integer
        and boolean index arrays select (a copy); ``x[()]`` is ``x`` itself.  A result of no
        axes has shape ``()`` under NumPy shape semantics (``npx.set_np()``), ``(1,)``
        otherwise."""
        if isinstance(key, tuple) and not key:
            return self         # MXNet 1.9.1: x[()] is x itself, of any rank
        numpy_shapes = is_np_shape()

        def read(tensor):
            result = _indexing.getitem(tensor, key, _unwrap_index)
            if result._base is not None and not result.is_contiguous():
                # MXNet 1.9.1 gave a view only for a contiguous block (x[0], x[0, 2:5]); other
                # basic keys (x[2:5, 0]) gave a copy, which shares no memory with x
                result = result.clone()
            return result.reshape(1) if result.dim() == 0 and not numpy_shapes else result
        return ndarray(_recorded(read, self._tensor), self._ctx)

    __hash__ = NDArray.__hash__

    # -- arithmetic -----------------------------------------------------------------------------
    __add__ = _binary_method("add")
    __radd__ = _binary_method("add", reflected=True)
    __iadd__ = _binary_method("add", inplace=True)
    __sub__ = _binary_method("subtract")
    __rsub__ = _binary_method("subtract", reflected=True)
    __isub__ = _binary_method("subtract", inplace=True)
    __mul__ = _binary_method("multiply")
    __rmul__ = _binary_method("multiply", reflected=True)
    __imul__ = _binary_method("multiply", inplace=True)
    __truediv__ = _binary_method("true_divide")
    __rtruediv__ = _binary_method("true_divide", reflected=True)
    __itruediv__ = _binary_method("true_divide", inplace=True)
    __mod__ = _binary_method("mod")
    __rmod__ = _binary_method("mod", reflected=True)
    __imod__ = _binary_method("mod", inplace=True)
    __pow__ = _binary_method("power")
    __rpow__ = _binary_method("power", reflected=True)
    __ipow__ = _binary_method("power", inplace=True)
    __and__ = _binary_method("bitwise_and")
    __or__ = _binary_method("bitwise_or")
    __xor__ = _binary_method("bitwise_xor")
    __eq__ = _binary_method("equal")
    __ne__ = _binary_method("not_equal")
    __lt__ = _binary_method("less")
    __le__ = _binary_method("less_equal")
    __gt__ = _binary_method("greater")
    __ge__ = _binary_method("greater_equal")

    def __floordiv__(self, other):
        raise TypeError(f"unsupported operand type(s) for //: 'ndarray' and '{type(other).__name__}'")

    def __neg__(self):
        return call("_npi_negative", self)

    def __pos__(self):
        return self

    def __abs__(self):
        return call("_npi_absolute", self)

    def __invert__(self):
        return call("_npi_bitwise_not", self)

    def __matmul__(self, other):
        return call("_npi_matmul", self, _as_np(other))

    # -- NumPy methods --------------------------------------------------------------------------
    def reshape(self, *args, **kwargs):
        """NumPy's ``reshape``: ``x.reshape(2, 3)``, ``x.reshape((2, -1))``, ``order='C'``."""
        order = kwargs.pop("order", "C")
        shape = kwargs.pop("newshape", kwargs.pop("shape", None))
        if kwargs:
            raise TypeError(f"reshape: unexpected keyword arguments {sorted(kwargs)}")
        if shape is None:
            if not args:
                raise MXNetTypeError("mx.np.ndarray.reshape: expected the new shape, got no argument")
            shape = args[0] if len(args) == 1 else args
        shape = numpy_argument(_NewShape, shape, "mx.np.ndarray.reshape", "newshape")
        return call("_np_reshape", self, newshape=shape, order=order)

    def transpose(self, *axes):
        """NumPy's ``transpose`` (``x.transpose(1, 0)`` or ``x.transpose((1, 0))``; none: reversed)."""
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        return call("_np_transpose", self, axes=tuple(axes) if axes else None)

    def swapaxes(self, axis1, axis2):
        """The array with ``axis1`` and ``axis2`` interchanged."""
        return call("_npi_swapaxes", self, dim1=axis1, dim2=axis2)

    def flatten(self, order="C"):
        """A 1-D copy of the array."""
        return call("_np_reshape", self, newshape=(-1,), order=order)

    def ravel(self, order="C"):
        """The array as 1-D."""
        return self.flatten(order)

    def squeeze(self, axis=None):
        """The array without its size-1 axes (or only ``axis``)."""
        return call("_np_squeeze", self, axis=axis)

    def expand_dims(self, axis):
        """A size-1 axis inserted at ``axis``."""
        return call("_npi_expand_dims", self, axis=axis)

    def broadcast_to(self, shape):
        """The array broadcast to ``shape``."""
        shape = numpy_argument(_BroadcastShape, shape, "mx.np.ndarray.broadcast_to", "shape")
        return call("_np_broadcast_to", self, shape=shape)

    def repeat(self, repeats, axis=None):
        """Each element repeated ``repeats`` times along ``axis``."""
        repeats = numpy_argument(NumpyShape, repeats, "mx.np.ndarray.repeat", "repeats")
        return call("_npi_repeats", self, repeats=repeats, axis=axis)

    def tile(self, reps):
        """The array tiled ``reps`` times (None: once, as MXNet 1.9.1)."""
        reps = () if reps is None else numpy_argument(NumpyShape, reps, "mx.np.ndarray.tile", "reps")
        return call("_npi_tile", self, reps=reps)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False, initial=None):
        """Sum over ``axis`` (NumPy's arguments)."""
        return call("_np_sum", self, out=out, **_axis_keywords(axis, keepdims, dtype=dtype, initial=initial))

    def prod(self, axis=None, dtype=None, out=None, keepdims=False, initial=None):
        """Product over ``axis``."""
        return call("_np_prod", self, out=out, **_axis_keywords(axis, keepdims, dtype=dtype, initial=initial))

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        """Mean over ``axis`` (float32 for integer arrays)."""
        return call("_npi_mean", self, out=out, **_axis_keywords(axis, keepdims, dtype=dtype))

    def max(self, axis=None, out=None, keepdims=False):
        """Maximum over ``axis``."""
        return call("_np_max", self, out=out, **_axis_keywords(axis, keepdims))

    def min(self, axis=None, out=None, keepdims=False):
        """Minimum over ``axis``."""
        return call("_np_min", self, out=out, **_axis_keywords(axis, keepdims))

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """Standard deviation over ``axis``."""
        return call("_npi_std", self, out=out, ddof=ddof, **_axis_keywords(axis, keepdims, dtype=dtype))

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """Variance over ``axis``."""
        return call("_npi_var", self, out=out, ddof=ddof, **_axis_keywords(axis, keepdims, dtype=dtype))

    def argmax(self, axis=None, out=None):
        """Indices (int64) of the maxima along ``axis``."""
        return call("_npi_argmax", self, axis=axis, keepdims=False, out=out)

    def argmin(self, axis=None, out=None):
        """Indices (int64) of the minima along ``axis``."""
        return call("_npi_argmin", self, axis=axis, keepdims=False, out=out)

    def clip(self, min=None, max=None, out=None):  # noqa: A002 -- NumPy's argument names
        """Values limited to [``min``, ``max``]."""
        return call("_npi_clip", self, a_min=min, a_max=max, out=out)

    def cumsum(self, axis=None, dtype=None, out=None):
        """Cumulative sums along ``axis`` (None: of the flattened array)."""
        return call("_np_cumsum", self, axis=axis, dtype=dtype, out=out)

    def any(self, axis=None, out=None, keepdims=False):
        """Whether any element (along ``axis``) is non-zero."""
        return call("_np_any", self, axis=axis, keepdims=keepdims, out=out)

    def all(self, axis=None, out=None, keepdims=False):
        """Whether every element (along ``axis``) is non-zero."""
        return call("_np_all", self, axis=axis, keepdims=keepdims, out=out)

    def take(self, indices, axis=None, mode="raise"):
        """Elements at ``indices`` along ``axis``."""
        return call("_npi_take", self, _as_np(indices), axis=axis, mode=mode)

    def sort(self, axis=-1, kind=None, order=None):  # noqa: ARG002
        """The array sorted along ``axis`` (MXNet returned the sorted copy)."""
        return call("_npi_sort", self, axis=axis)

    def argsort(self, axis=-1, kind=None, order=None):  # noqa: ARG002
        """The indices (int64) that sort the array along ``axis``."""
        return call("_npi_argsort", self, axis=axis)

    def round(self, decimals=0, out=None):
        """The values rounded to ``decimals``."""
        return call("_npi_around", self, decimals=decimals, out=out)

    def nonzero(self):
        """The indices of the non-zero elements, one int64 array per axis."""
        rows = call("_npx_nonzero", self)
        return tuple(rows[:, axis] for axis in range(self.ndim))

    def dot(self, b, out=None):
        """NumPy's ``dot`` with ``b``."""
        return call("_np_dot", self, _as_np(b), out=out)


def _unwrap_index(value):
    return value._tensor if isinstance(value, NDArray) else value


@provide("as_np_ndarray")
def as_np_ndarray(array):
    """``NDArray.as_np_ndarray``: the same tensor as an ``mx.np.ndarray`` (no copy)."""
    result = ndarray(array._tensor, array._ctx)
    result._grad, result._grad_req = array._grad, array._grad_req
    return result

ndarray.__module__ = "mxtorch.numpy"   # MXNet: mxnet.numpy.ndarray (pickles by that path)
