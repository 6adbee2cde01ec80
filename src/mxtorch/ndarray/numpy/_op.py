"""The functions of ``mx.nd.np`` (and so of ``mx.np``): NumPy's API on the ``_npi_*`` / ``_np_*``
operators of ``ops/numpy_ops.py`` and ``ops/numpy_arrays.py``, with MXNet 1.9.1's defaults
(float32 arrays unless a NumPy array or ``dtype`` says otherwise)."""
from __future__ import annotations

import numbers

import numpy as np
import torch

from ...base import MXNetError
from ...context import current_context
from ...util import is_np_shape, wrap_np_binary_func, wrap_np_unary_func
from ..ndarray import NDArray
from ..numpy_array import binary, call, is_number, is_symbol, ndarray
from ...ops.numpy_arrays import _BroadcastShape as _BROADCAST_SHAPE, _NewShape as _NEWSHAPE
from ...ops.numpy_ops import NUMPY_BINARY, NUMPY_UNARY, NumpyArgumentTypeError, numpy_argument
from ...schema import NumpyInt, NumpyShape, numpy_integer, numpy_shape, optional

__all__ = ["array", "asarray", "zeros", "ones", "full", "empty", "arange", "linspace", "eye", "identity",
           "zeros_like", "ones_like", "full_like", "empty_like", "copy",
           "true_divide", "divide", "remainder", "clip", "where", "invert", "logical_not", "bitwise_not",
           "sum", "mean", "max", "min", "amax", "amin", "prod", "std", "var", "argmax", "argmin",
           "reshape", "transpose", "expand_dims", "squeeze", "concatenate", "stack", "split", "array_split",
           "swapaxes", "broadcast_to", "tile", "repeat", "ravel", "moveaxis",
           "dot", "matmul", "tensordot", "vdot", "inner", "outer", "shape", "size", "ndim"]
__all__ += sorted(set(NUMPY_BINARY) | set(NUMPY_UNARY))


def _ctx_text(ctx):
    return str(ctx if ctx is not None else current_context())


def _dtype_text(dtype, default="float32"):
    if dtype is None:
        return default
    if isinstance(dtype, torch.dtype):
        from ...base import numpy_type
        dtype = numpy_type(dtype)
    return str(np.dtype(dtype))


# how MXNet 1.9.1's front end read these arguments (schema.numpy_shape / numpy_integer): integers
# only (2.5 and 2.0 raise TypeError, not cut to 2), sizes of at least 0 (ValueError); ``zeros`` and
# ``empty`` (its FFI functions) refused a string and took a bool as 0 / 1, the others took a
# string as the text of a shape (``ones('3')``) and refused a bool
_ZEROS_SHAPE = numpy_shape(text=False, bools=True)
_COUNT = numpy_integer(low=0)


def _shape(shape, function, argument="shape", parser=NumpyShape):
    """The shape argument ``argument`` of the ``mx.np`` function ``function`` as a tuple of ints;
    NumpyArgumentTypeError / ValueError naming both for anything else."""
    return numpy_argument(parser, shape, f"mx.np.{function}", argument)


def _count(value, function, argument, parser=_COUNT):
    """The integer argument ``argument`` (``N``, ``num``, ``n``) of the ``mx.np`` function ``function``."""
    return numpy_argument(parser, value, f"mx.np.{function}", argument)


def _integer(value, function, argument):
    """The integer argument ``argument`` (a diagonal offset ``k``, an axis, a count) of the
    ``mx.np`` function ``function``: Python / NumPy integers and their text; floats (``1.5``, and
    ``2.0`` too), None and bools raise NumpyArgumentTypeError naming both, where a cast would
    silently drop the fraction (MXNet 1.9.1 refused them: "expect int but value='1.5'")."""
    return numpy_argument(NumpyInt, value, f"mx.np.{function}", argument)


def _created_shape(shape, function, op_name, parser=NumpyShape):
    """``shape`` of a creation function; outside NumPy shape semantics a zero-dim or zero-size
    shape is an unknown one, which MXNet 1.9.1 refused."""
    shape = _shape(shape, function, parser=parser)
    if not is_np_shape() and (not shape or 0 in shape):
        raise MXNetError(f"Operator {op_name} inferring shapes failed: shape {shape} is unknown outside NumPy "
                         f"shape semantics (npx.set_np())")
    return shape


# -- creation -------------------------------------------------------------------------------------
def array(object, dtype=None, ctx=None):  # noqa: A002 -- NumPy's argument name
    """An ``mx.np.ndarray`` holding a copy of ``object`` (a list, number, NumPy array or array).
    The dtype is ``dtype``, else the NumPy array's or the array's own, else float32 (MXNet's
    default for Python lists and numbers, integers and bools included)."""
    ctx = ctx if ctx is not None else current_context()
    if isinstance(object, NDArray):
        tensor = object._tensor.detach()
        if dtype is not None:
            tensor = tensor.to(_torch(dtype))
        return ndarray(tensor.to(ctx.torch_device, copy=True), ctx)
    if isinstance(object, np.ndarray):
        values = object.astype(np.dtype(dtype)) if dtype is not None else object
    else:
        try:
            values = np.array(object, dtype=np.dtype(dtype) if dtype is not None else None)
        except OverflowError:
            # NumPy 2 refuses Python ints out of the dtype's range; MXNet 1.9.1 (NumPy 1.x)
            # wrapped them around as a C cast does (np.array([1621], dtype=np.uint8) is [85])
            values = np.array(object).astype(np.dtype(dtype))
        if dtype is None and values.dtype != np.float32:
            values = values.astype(np.float32)
    tensor = torch.from_numpy(np.array(values, copy=True, order="C"))
    return ndarray(tensor.to(ctx.torch_device), ctx)


def asarray(obj, dtype=None, ctx=None):
    """``obj`` as an ``mx.np.ndarray`` (itself when it already is one of that dtype)."""
    if isinstance(obj, ndarray) and (dtype is None or np.dtype(dtype) == obj.dtype):
        return obj
    return array(obj, dtype=dtype, ctx=ctx)


def _torch(dtype):
    from ...base import torch_dtype
    return torch_dtype(np.dtype(dtype).name if not isinstance(dtype, str) else dtype)


def _check_order(function, order):
    if order != "C":
        raise NotImplementedError(f"{function}: only order='C' is supported, got {order!r}")


def zeros(shape, dtype=None, order="C", ctx=None):
    """An array of zeros (float32 unless ``dtype``)."""
    _check_order("zeros", order)
    return call("_npi_zeros", shape=_created_shape(shape, "zeros", "_npi_zeros", _ZEROS_SHAPE), ctx=_ctx_text(ctx),
                dtype=_dtype_text(dtype))


def ones(shape, dtype=None, order="C", ctx=None):
    """An array of ones (float32 unless ``dtype``)."""
    _check_order("ones", order)
    return call("_npi_ones", shape=_created_shape(shape, "ones", "_npi_ones"), ctx=_ctx_text(ctx),
                dtype=_dtype_text(dtype))


def empty(shape, dtype=None, order="C", ctx=None):
    """An uninitialised array (here: zeros)."""
    _check_order("empty", order)
    return zeros(_shape(shape, "empty", parser=_ZEROS_SHAPE), dtype, order, ctx)


def full(shape, fill_value, dtype=None, order="C", ctx=None, out=None):  # noqa: ARG001
    """An array of ``shape`` filled with ``fill_value`` (float32 unless ``dtype``; an array
    ``fill_value`` is broadcast)."""
    if isinstance(fill_value, NDArray) or is_symbol(fill_value):
        result = broadcast_to(fill_value.as_np_ndarray(), _shape(shape, "full"))
        if dtype is not None:
            return result.astype(dtype)
        return result if is_symbol(result) else result.copy()
    if not (is_number(fill_value) or (isinstance(fill_value, np.ndarray) and fill_value.ndim == 0)):
        # MXNet 1.9.1: "Invalid Parameter format for value expect double but value='None'"
        raise NumpyArgumentTypeError(f"mx.np.full: argument 'fill_value': expected a number or an array, got "
                                     f"{type(fill_value).__name__} {fill_value!r}")
    return call("_npi_full", shape=_created_shape(shape, "full", "_npi_full"), ctx=_ctx_text(ctx),
                dtype=_dtype_text(dtype), value=float(fill_value), out=out)


def arange(start, stop=None, step=1, dtype=None, ctx=None):
    """NumPy's ``arange`` (float32 unless ``dtype``, as MXNet's np; ``step`` None is 1)."""
    if step is None:
        step = 1
    if step == 0:
        raise ZeroDivisionError("arange: step cannot be 0")
    if stop is None:
        start, stop = 0, start
    return call("_npi_arange", start=float(start), stop=float(stop), step=float(step), ctx=_ctx_text(ctx),
                dtype=_dtype_text(dtype))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, ctx=None):
    """NumPy's ``linspace`` (float32 unless ``dtype``); ``retstep`` also gives the step."""
    if axis != 0:
        raise NotImplementedError("linspace: only axis=0 is supported")
    num = _count(num, "linspace", "num")
    result = call("_npi_linspace", start=float(start), stop=float(stop), num=num, endpoint=endpoint,
                  ctx=_ctx_text(ctx), dtype=_dtype_text(dtype))
    if retstep:
        step = (stop - start) / ((num - 1) if endpoint else num) if num > (1 if endpoint else 0) else float("nan")
        return result, step
    return result


def eye(N, M=None, k=0, dtype=None, ctx=None, **kwargs):  # noqa: N803 -- NumPy's argument names
    """``N`` x ``M`` with ones on diagonal ``k`` (float32 unless ``dtype``)."""
    return call("_npi_eye", N=_count(N, "eye", "N"), M=_count(M, "eye", "M", optional(_COUNT)),
                k=_count(k, "eye", "k", numpy_integer()), ctx=_ctx_text(ctx), dtype=_dtype_text(dtype))


def identity(n, dtype=None, ctx=None):
    """The ``n`` x ``n`` identity (float32 unless ``dtype``); ``n`` an integer (MXNet 1.9.1: TypeError
    for a string, ValueError when negative)."""
    n = _count(n, "identity", "n", numpy_integer(low=0, text=False))
    return call("_npi_identity", shape=(n, n), ctx=_ctx_text(ctx), dtype=_dtype_text(dtype))


def zeros_like(a, dtype=None, order="C", ctx=None, out=None):  # noqa: ARG001
    """Zeros of ``a``'s shape and dtype (or ``dtype``)."""
    return full_like(a, 0, dtype=dtype, ctx=ctx, out=out)


def ones_like(a, dtype=None, order="C", ctx=None, out=None):  # noqa: ARG001
    """Ones of ``a``'s shape and dtype (or ``dtype``)."""
    return full_like(a, 1, dtype=dtype, ctx=ctx, out=out)


def full_like(a, fill_value, dtype=None, order="C", ctx=None, out=None):  # noqa: ARG001
    """``fill_value`` in ``a``'s shape and dtype (or ``dtype``)."""
    return call("_npi_full_like", _np(a), fill_value=float(fill_value), ctx=_ctx_text(ctx),
                dtype=None if dtype is None else _dtype_text(dtype), out=out)


def empty_like(prototype, dtype=None, order="C", subok=False, shape=None):  # noqa: ARG001
    """An uninitialised array like ``prototype`` (here: zeros)."""
    if shape is not None:
        return zeros(shape, dtype=dtype or prototype.dtype, ctx=prototype.context)
    return zeros_like(prototype, dtype=dtype)


def copy(a):
    """A copy of ``a``."""
    return call("_np_copy", _np(a))


def _np(value):
    if isinstance(value, ndarray) or is_symbol(value):
        return value
    if isinstance(value, NDArray):
        return value.as_np_ndarray()
    if is_number(value) or isinstance(value, (list, tuple)):
        return array(value)
    raise TypeError(f"type {type(value)} not supported")


# -- element-wise ---------------------------------------------------------------------------------
def _same_dtypes(function, arrays):
    """MXNet's type inference: the inputs of ``function`` must share one dtype."""
    dtypes = {array.dtype for array in arrays if isinstance(array, NDArray)}
    if len(dtypes) > 1:
        first, *rest = [array.dtype for array in arrays if isinstance(array, NDArray)]
        other = next(dtype for dtype in rest if dtype != first)
        raise MXNetError(f"{function}: Type inconsistent, Provided = {np.dtype(other).name}, inferred type = "
                         f"{np.dtype(first).name}")


# NumPy's ufunc keywords (where, casting, order, dtype, subok) are taken at their defaults only,
# by MXNet's wrappers (util.wrap_np_unary_func / wrap_np_binary_func): another legal value raises
# NotImplementedError, an illegal one or an unknown keyword TypeError
def _binary_function(name):
    def function(x1, x2, out=None):
        return binary(name, x1, x2, out=out)
    function.__name__ = function.__qualname__ = name
    function = wrap_np_binary_func(function)
    function.__doc__ = (f"NumPy's ``{name}(x1, x2)`` element by element, broadcasting (MXNet's dtype rules); "
                        f"the ufunc keywords only at their defaults.")
    return function


def _unary_function(name):
    def function(x, out=None):
        if is_number(x):
            return getattr(np, name)(x)
        return call(f"_npi_{name}", _np(x), out=out)
    function.__name__ = function.__qualname__ = name
    function = wrap_np_unary_func(function)
    function.__doc__ = (f"NumPy's ``{name}(x)`` element by element (the input's dtype kept, as MXNet 1.9.1); the "
                        f"ufunc keywords only at their defaults.")
    return function


for _name in NUMPY_BINARY:
    globals()[_name] = _binary_function(_name)
for _name in NUMPY_UNARY:
    globals()[_name] = _unary_function(_name)
true_divide = _binary_function("true_divide")
divide = true_divide
remainder = globals()["mod"]


@wrap_np_unary_func
def logical_not(x, out=None):
    """True where ``x`` is zero (the ufunc keywords only at their defaults)."""
    return call("_npi_logical_not", _np(x), out=out)


@wrap_np_unary_func
def bitwise_not(x, out=None):
    """NumPy's ``invert`` of an integer or bool array (the ufunc keywords only at their defaults)."""
    return call("_npi_bitwise_not", _np(x), out=out)


@wrap_np_unary_func
def invert(x, out=None):
    """NumPy's ``invert``: ``bitwise_not``."""
    return call("_npi_bitwise_not", _np(x), out=out)


def clip(a, a_min, a_max, out=None):
    """``a`` limited to [``a_min``, ``a_max``] (None: no bound on that side)."""
    if a_min is None and a_max is None:
        raise ValueError("array_clip: must set either max or min")
    return call("_npi_clip", _np(a), a_min=None if a_min is None else float(a_min),
                a_max=None if a_max is None else float(a_max), out=out)


def where(condition, x=None, y=None):
    """``x`` where ``condition`` is non-zero, else ``y`` (numbers or arrays, broadcasting)."""
    if x is None and y is None:
        raise NotImplementedError("where(condition): use np.nonzero")
    condition = _np(condition)
    if is_number(x) and is_number(y):
        return call("_npi_where_scalar2", condition, x=float(x), y=float(y))
    if is_number(x):
        return call("_npi_where_lscalar", condition, _np(y), scalar=float(x))
    if is_number(y):
        return call("_npi_where_rscalar", condition, _np(x), scalar=float(y))
    x, y = _np(x), _np(y)
    _same_dtypes("where", [x, y])
    return call("_npi_where", condition, x, y)


# -- reductions -----------------------------------------------------------------------------------
def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None):  # noqa: A001
    """Sum of ``a`` over ``axis``."""
    return _np(a).sum(axis=axis, dtype=dtype, out=out, keepdims=keepdims, initial=initial)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None):
    """Product of ``a`` over ``axis``."""
    return _np(a).prod(axis=axis, dtype=dtype, out=out, keepdims=keepdims, initial=initial)


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    """Mean of ``a`` over ``axis`` (float32 for integers)."""
    return _np(a).mean(axis=axis, dtype=dtype, out=out, keepdims=keepdims)


def max(a, axis=None, out=None, keepdims=False):  # noqa: A001
    """Maximum of ``a`` over ``axis``."""
    return _np(a).max(axis=axis, out=out, keepdims=keepdims)


def min(a, axis=None, out=None, keepdims=False):  # noqa: A001
    """Minimum of ``a`` over ``axis``."""
    return _np(a).min(axis=axis, out=out, keepdims=keepdims)


amax, amin = max, min


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """Standard deviation of ``a`` over ``axis``."""
    return _np(a).std(axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """Variance of ``a`` over ``axis``."""
    return _np(a).var(axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)


def argmax(a, axis=None, out=None):
    """Indices (int64) of the maxima."""
    return _np(a).argmax(axis=axis, out=out)


def argmin(a, axis=None, out=None):
    """Indices (int64) of the minima."""
    return _np(a).argmin(axis=axis, out=out)


# -- shapes ---------------------------------------------------------------------------------------
def reshape(a, newshape, order="C"):
    """``a`` in ``newshape``."""
    return _np(a).reshape(_shape(newshape, "reshape", "newshape", _NEWSHAPE), order=order)


def transpose(a, axes=None):
    """``a`` with ``axes`` permuted (reversed by default)."""
    return _np(a).transpose(axes)


def expand_dims(a, axis):
    """A size-1 axis inserted at ``axis``."""
    return _np(a).expand_dims(axis)


def squeeze(x, axis=None):
    """``x`` without its size-1 axes."""
    return _np(x).squeeze(axis)


def swapaxes(a, axis1, axis2):
    """``a`` with two axes interchanged."""
    return _np(a).swapaxes(axis1, axis2)


def moveaxis(a, source, destination):
    """``a`` with the axes ``source`` (an int or a sequence) moved to ``destination``."""
    source = (source,) if isinstance(source, (numbers.Integral, np.integer)) else tuple(source)
    destination = (destination,) if isinstance(destination, (numbers.Integral, np.integer)) else tuple(destination)
    return call("_np_moveaxis", _np(a), source=tuple(int(s) for s in source),
                destination=tuple(int(d) for d in destination))


def broadcast_to(array, shape):  # noqa: A002,F811 -- NumPy's argument name
    """``array`` broadcast to ``shape``."""
    return _np(array).broadcast_to(_shape(shape, "broadcast_to", parser=_BROADCAST_SHAPE))


def tile(A, reps):  # noqa: N803
    """``A`` repeated ``reps`` times."""
    return _np(A).tile(() if reps is None else _shape(reps, "tile", "reps"))


def repeat(a, repeats, axis=None):
    """Each element of ``a`` repeated ``repeats`` times."""
    return _np(a).repeat(_shape(repeats, "repeat", "repeats"), axis)


def ravel(x, order="C"):
    """``x`` flattened."""
    return _np(x).flatten(order)


def concatenate(seq, axis=0, out=None):
    """The arrays of ``seq`` joined along ``axis`` (None: flattened first)."""
    seq = [_np(a) for a in seq]
    _same_dtypes("concatenate", seq)
    return call("_npi_concatenate", *seq, num_args=len(seq), axis=axis, out=out)


def stack(arrays, axis=0, out=None):
    """The arrays joined along a new ``axis``."""
    arrays = [_np(a) for a in arrays]
    _same_dtypes("stack", arrays)
    return call("_npi_stack", *arrays, num_args=len(arrays), axis=axis, out=out)


def split(ary, indices_or_sections, axis=0):
    """``ary`` split into equal sections or at indices along ``axis`` (a list of arrays)."""
    ary = _np(ary)
    if isinstance(indices_or_sections, (numbers.Integral, np.integer)):
        result = call("_npi_split", ary, sections=int(indices_or_sections), axis=axis)
    else:
        result = call("_npi_split", ary, indices=(0,) + tuple(int(i) for i in indices_or_sections), axis=axis)
    return list(result) if isinstance(result, list) else [result]


def array_split(ary, indices_or_sections, axis=0):
    """As ``split``, but sections may differ by one element."""
    ary = _np(ary)
    if isinstance(indices_or_sections, (numbers.Integral, np.integer)):
        if int(indices_or_sections) <= 0:
            raise ValueError("number sections must be larger than 0")
        result = call("_npi_array_split", ary, sections=int(indices_or_sections), axis=axis)
    else:
        result = call("_npi_array_split", ary, indices=(0,) + tuple(int(i) for i in indices_or_sections), axis=axis)
    return list(result) if isinstance(result, list) else [result]


# -- products -------------------------------------------------------------------------------------
def dot(a, b, out=None):
    """NumPy's ``dot``."""
    return call("_np_dot", _np(a), _np(b), out=out)


def matmul(a, b, out=None):
    """NumPy's ``matmul``."""
    return call("_npi_matmul", _np(a), _np(b), out=out)


def tensordot(a, b, axes=2):
    """NumPy's ``tensordot``: ``axes`` an int (last of ``a`` with first of ``b``) or two lists."""
    if isinstance(axes, (numbers.Integral, np.integer)):
        return call("_npi_tensordot_int_axes", _np(a), _np(b), axes=int(axes))
    a_axes, b_axes = axes
    a_axes = (a_axes,) if isinstance(a_axes, int) else tuple(a_axes)
    b_axes = (b_axes,) if isinstance(b_axes, int) else tuple(b_axes)
    if len(a_axes) != len(b_axes):
        raise ValueError("tensordot: shape-mismatch for sum")
    return call("_npi_tensordot", _np(a), _np(b), a_axes_summed=a_axes, b_axes_summed=b_axes)


def vdot(a, b):
    """The dot product of the flattened arrays."""
    return dot(ravel(a), ravel(b))


def inner(a, b):
    """The inner product over the last axes."""
    return tensordot(a, b, ([-1], [-1]))


def outer(a, b):
    """The outer product of the flattened arrays."""
    return tensordot(ravel(a), ravel(b), 0)


# -- attributes -----------------------------------------------------------------------------------
def shape(a):
    """The shape of ``a``."""
    return _np(a).shape


def size(a, axis=None):
    """The number of elements of ``a`` (along ``axis``)."""
    a = _np(a)
    return a.size if axis is None else a.shape[axis]


def ndim(a):
    """The number of dimensions of ``a``."""
    return _np(a).ndim

