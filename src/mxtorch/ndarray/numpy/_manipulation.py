"""More of ``mx.nd.np`` / ``mx.np``: tests, truth reductions, rounding, flips and rolls,
triangles and diagonals, ``take``, sorting, ``nonzero``, ``einsum``, and the functions NumPy
builds from others (``hstack``, ``atleast_2d``, ``append``, ``logspace``, ``meshgrid``, ...),
composed of the registered operators so that ``mx.sym.np`` builds the same graph."""
from __future__ import annotations

import numbers

import numpy as np

from ...exceptions import MXNetValueError
from ..numpy_array import call, is_number, is_symbol
from ...util import wrap_np_unary_func
from ._op import _count, _integer, _np, _same_dtypes, broadcast_to, concatenate, linspace, power, reshape, split
from ...ops.numpy_selection import NUMPY_TESTS

__all__ = sorted(NUMPY_TESTS) + [
    "any", "all", "sometrue", "alltrue", "around", "round", "round_", "fabs", "positive", "flip", "fliplr",
    "flipud", "roll", "rot90", "tril", "triu", "diag", "diagonal", "trace", "take", "sort", "argsort", "nonzero",
    "einsum", "hstack", "vstack", "row_stack", "dstack", "column_stack", "atleast_1d", "atleast_2d", "atleast_3d",
    "append", "hsplit", "vsplit", "dsplit", "logspace", "meshgrid", "broadcast_arrays", "ptp", "count_nonzero",
    "product", "average", "isclose", "allclose", "array_equal", "result_type"]


def _test_function(name):
    def function(x, out=None):
        if is_number(x):
            return getattr(np, name)(x)
        if out is not None and getattr(out, "dtype", None) != np.bool_:
            raise TypeError(f"{name}: the out= array must be of dtype bool, got {getattr(out, 'dtype', type(out))}")
        return call(f"_npi_{name}", _np(x), out=out)
    function.__name__ = function.__qualname__ = name
    function = wrap_np_unary_func(function)
    function.__doc__ = (f"NumPy's ``{name}``: a bool array (``out=`` must be bool: TypeError otherwise; the ufunc "
                        f"keywords only at their defaults).")
    return function


for _name in NUMPY_TESTS:
    globals()[_name] = _test_function(_name)


def any(a, axis=None, out=None, keepdims=False):  # noqa: A001
    """Whether any element (along ``axis``) is non-zero."""
    return call("_np_any", _np(a), axis=axis, keepdims=keepdims, out=out)


def all(a, axis=None, out=None, keepdims=False):  # noqa: A001
    """Whether every element (along ``axis``) is non-zero."""
    return call("_np_all", _np(a), axis=axis, keepdims=keepdims, out=out)


sometrue, alltrue = any, all


def around(x, decimals=0, out=None, **kwargs):  # noqa: ARG001
    """``x`` rounded to ``decimals`` (half to even)."""
    return call("_npi_around", _np(x), decimals=_integer(decimals, "around", "decimals"), out=out)


round = round_ = around  # noqa: A001


def fabs(x, out=None, **kwargs):  # noqa: ARG001
    """The absolute values."""
    return call("_npi_absolute", _np(x), out=out)


def positive(x, out=None, **kwargs):  # noqa: ARG001
    """``+x`` (a copy)."""
    return call("_np_copy", _np(x), out=out)


def flip(m, axis=None, out=None):
    """``m`` reversed along ``axis`` (None: all axes)."""
    return call("_npi_flip", _np(m), axis=axis, out=out)


def fliplr(m):
    """``m`` reversed left to right (axis 1)."""
    return flip(m, 1)


def flipud(m):
    """``m`` reversed up to down (axis 0)."""
    return flip(m, 0)


def roll(a, shift, axis=None):
    """``a`` rolled by ``shift`` along ``axis``."""
    shift = (shift,) if isinstance(shift, (numbers.Integral, np.integer)) else tuple(shift)
    return call("_np_roll", _np(a), shift=shift, axis=axis)


def rot90(m, k=1, axes=(0, 1)):
    """``m`` rotated ``k`` quarter turns in the plane of ``axes``."""
    return call("_npi_rot90", _np(m), k=_integer(k, "rot90", "k"), axes=tuple(axes))


def tril(m, k=0):
    """The lower triangle of ``m`` from diagonal ``k``."""
    return call("_npi_tril", _np(m), k=_integer(k, "tril", "k"))


def triu(m, k=0):
    """The upper triangle of ``m`` from diagonal ``k``."""
    return call("_npi_triu", _np(m), k=_integer(k, "triu", "k"))


def diag(v, k=0):
    """The diagonal of a 2-D array or the 2-D array of a 1-D diagonal."""
    return call("_np_diag", _np(v), k=_integer(k, "diag", "k"))


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal at ``offset`` of the plane ``axis1``, ``axis2``."""
    return call("_np_diagonal", _np(a), offset=_integer(offset, "diagonal", "offset"),
                axis1=_integer(axis1, "diagonal", "axis1"), axis2=_integer(axis2, "diagonal", "axis2"))


def trace(a, offset=0, axis1=0, axis2=1, out=None):
    """The sum of the diagonal at ``offset``."""
    return call("_np_trace", _np(a), offset=_integer(offset, "trace", "offset"),
                axis1=_integer(axis1, "trace", "axis1"), axis2=_integer(axis2, "trace", "axis2"), out=out)


def take(a, indices, axis=None, mode="raise", out=None):
    """Elements of ``a`` at ``indices`` along ``axis`` (None: of the flattened array)."""
    if is_number(indices):
        result = call("_npi_take", _np(a), _np(np.array(indices, dtype=np.int64)), axis=axis, mode=mode)
        return result
    return call("_npi_take", _np(a), _np(indices), axis=axis, mode=mode, out=out)


def sort(a, axis=-1, kind=None, order=None):  # noqa: ARG001
    """``a`` sorted along ``axis`` (None: flattened)."""
    return call("_npi_sort", _np(a), axis=axis)


def argsort(a, axis=-1, kind=None, order=None):  # noqa: ARG001
    """The indices (int64) that sort ``a`` along ``axis``."""
    return call("_npi_argsort", _np(a), axis=axis)


def nonzero(a):
    """The indices of the non-zero elements, one int64 array per axis; a 0-d array counts as
    1-d (MXNet 1.9.1 on NumPy 1; NumPy 2 raises ValueError for it)."""
    rows = call("_npx_nonzero", _np(a))
    ndim = max(_np(a).ndim, 1)
    return tuple(rows[:, axis] for axis in range(ndim))


def einsum(*operands, **kwargs):
    """NumPy's ``einsum(subscripts, *operands)``."""
    subscripts, arrays = operands[0], [_np(a) for a in operands[1:]]
    optimize = kwargs.pop("optimize", False)
    return call("_npi_einsum", *arrays, subscripts=subscripts, num_args=len(arrays), optimize=int(bool(optimize)),
                out=kwargs.pop("out", None))


def _atleast(rank, arys):
    """One array: it with at least ``rank`` axes; several: a tuple of them, as NumPy 2 (MXNet 1.9.1
    gave a list)."""
    result = call(f"_npi_atleast_{rank}d", *[_np(a) for a in arys], num_args=len(arys))
    return tuple(result) if len(arys) > 1 else (result[0] if isinstance(result, list) else result)


def atleast_1d(*arys):
    """Each array with at least one axis (one array: it; several: a tuple)."""
    return _atleast(1, arys)


def atleast_2d(*arys):
    """Each array with at least two axes (a 1-D array becomes one row)."""
    return _atleast(2, arys)


def atleast_3d(*arys):
    """Each array with at least three axes (NumPy's placement of the new ones)."""
    return _atleast(3, arys)


def _stacked(kind, arrays):
    arrays = [_np(a) for a in arrays]
    _same_dtypes(kind, arrays)
    return call(f"_npi_{kind}", *arrays, num_args=len(arrays))


def hstack(arrays):
    """Arrays joined along axis 1 (axis 0 for 1-D arrays)."""
    return _stacked("hstack", arrays)


def vstack(arrays):
    """Arrays joined along axis 0, 1-D arrays as rows."""
    return _stacked("vstack", arrays)


row_stack = vstack


def dstack(arrays):
    """Arrays joined along axis 2."""
    return _stacked("dstack", arrays)


def column_stack(tup):
    """1-D arrays as columns of a 2-D array (2-D arrays as they are)."""
    return _stacked("column_stack", tup)


def append(arr, values, axis=None):
    """``values`` appended to ``arr`` along ``axis`` (None: both flattened)."""
    return concatenate([_np(arr), _np(values)], axis=axis)


def hsplit(ary, indices_or_sections):
    """``split`` along axis 1 (axis 0 for 1-D arrays)."""
    if isinstance(indices_or_sections, (numbers.Integral, np.integer)):
        result = call("_npi_hsplit", _np(ary), sections=int(indices_or_sections))
    else:
        result = call("_npi_hsplit", _np(ary), indices=(0,) + tuple(int(i) for i in indices_or_sections))
    return list(result) if isinstance(result, list) else [result]


def _check_split_rank(function, ary, rank):
    """MXNetValueError (a ValueError, as NumPy and MXNet 1.9.1 raise) when array ``ary`` has
    fewer than ``rank`` axes; a symbol's rank is not known here and is not checked."""
    if not is_symbol(ary) and _np(ary).ndim < rank:
        raise MXNetValueError(f"{function} only works on arrays of {rank} or more dimensions, got an array of "
                              f"shape {tuple(_np(ary).shape)}")


def vsplit(ary, indices_or_sections):
    """``split`` along axis 0 of an array of 2 or more axes (MXNetValueError otherwise)."""
    _check_split_rank("vsplit", ary, 2)
    return split(ary, indices_or_sections, axis=0)


def dsplit(ary, indices_or_sections):
    """``split`` along axis 2 of an array of 3 or more axes (MXNetValueError otherwise)."""
    _check_split_rank("dsplit", ary, 3)
    return split(ary, indices_or_sections, axis=2)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, ctx=None):
    """``base ** linspace(start, stop, num)`` (float32 unless ``dtype``)."""
    num = _count(num, "logspace", "num")
    result = power(base, linspace(start, stop, num, endpoint=endpoint, axis=axis, ctx=ctx))
    return result if dtype is None else result.astype(dtype)


def broadcast_arrays(*args):
    """The arrays broadcast to their common shape, a tuple as NumPy 2 returns (MXNet 1.9.1 and
    NumPy 1: a list)."""
    arrays = [_np(a) for a in args]
    shape = np.broadcast_shapes(*[a.shape for a in arrays])
    return tuple(broadcast_to(a, shape) for a in arrays)


def meshgrid(*xi, **kwargs):
    """Coordinate matrices of the 1-D arrays ``xi`` (``indexing`` 'xy' or 'ij'), a tuple as
    NumPy 2 returns (MXNet 1.9.1 and NumPy 1: a list)."""
    indexing = kwargs.pop("indexing", "xy")
    arrays = [_np(x) for x in xi]
    count = len(arrays)
    shaped = []
    for index, array in enumerate(arrays):
        shape = [1] * count
        shape[index] = -1
        if indexing == "xy" and count > 1 and index < 2:
            shape[0], shape[1] = shape[1], shape[0]
        shaped.append(reshape(array, tuple(shape)))
    return broadcast_arrays(*shaped)


def ptp(a, axis=None, keepdims=False):
    """Maximum minus minimum along ``axis``."""
    a = _np(a)
    return a.max(axis=axis, keepdims=keepdims) - a.min(axis=axis, keepdims=keepdims)


def count_nonzero(a, axis=None):
    """The number of non-zero elements (int64) along ``axis``."""
    return (_np(a) != 0).astype("int64").sum(axis=axis)


def product(a, axis=None, dtype=None, out=None, keepdims=False):
    """``prod``."""
    return _np(a).prod(axis=axis, dtype=dtype, out=out, keepdims=keepdims)


def average(a, axis=None, weights=None, returned=False, out=None):
    """The (weighted) mean along ``axis`` (None: all); ``weights`` of ``a``'s shape, or 1-D along a
    single ``axis``.  ``returned``: also the sum of the weights (the count without weights),
    of the average's shape.  Integer input averages in float32."""
    if weights is None:
        result = call("_npi_average", _np(a), axis=axis, returned=returned, weighted=False, out=out)
    else:
        result = call("_npi_average", _np(a), _np(weights), axis=axis, returned=returned, weighted=True, out=out)
    if returned:
        return tuple(result)
    return result[0] if isinstance(result, list) else result


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Where ``|a - b| <= atol + rtol * |b|`` (bool)."""
    a, b = _np(a), _np(b)
    close = (a - b).__abs__() <= (b.__abs__() * rtol + atol)
    if equal_nan:
        close = close.__or__(call("_npi_isnan", a).__and__(call("_npi_isnan", b)))
    return close


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element is close (a bool array of no axes)."""
    return all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2):
    """Whether the arrays have the same shape and elements (a Python bool)."""
    a1, a2 = _np(a1), _np(a2)
    return a1.shape == a2.shape and bool(all(a1 == a2))


def result_type(*arrays_and_dtypes):
    """The dtype of a binary ``mx.np`` operator on these arrays or dtypes."""
    from ...base import numpy_type, torch_dtype
    from ...ops.numpy_ops import promote_types
    dtypes = [np.dtype(getattr(value, "dtype", value)) for value in arrays_and_dtypes]
    result = torch_dtype(dtypes[0].name)
    for dtype in dtypes[1:]:
        result = promote_types(result, torch_dtype(dtype.name))
    return np.dtype(numpy_type(result))



def cumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sums along ``axis`` (None: of the flattened array)."""
    return call("_np_cumsum", _np(a), axis=axis, dtype=dtype, out=out)


__all__.append("cumsum")
