"""More of ``mx.nd.np`` / ``mx.np``: window functions, index grids, ``resize``, ``diagflat``,
differences, ``nan_to_num``, counting (``bincount``, ``histogram``), ``percentile`` /
``quantile``, ``polyval`` and ``shares_memory``, on the operators of
``ops/numpy_manipulation.py`` (so ``mx.sym.np`` builds the same nodes).  Signatures and
defaults are MXNet 1.9.1's."""
from __future__ import annotations

import numbers

import numpy as np

from ...context import current_context
from ...ops.numpy_ops import numpy_argument
from ...schema import NumpyShape
from ..ndarray import NDArray
from ..numpy_array import call, is_number, is_symbol
from ._op import _integer, _np

__all__ = ["hanning", "hamming", "blackman", "indices", "diag_indices_from", "unravel_index", "resize", "diagflat",
           "diff", "ediff1d", "nan_to_num", "bincount", "histogram", "percentile", "quantile", "polyval",
           "shares_memory", "may_share_memory", "pad", "insert", "delete", "unique"]


def _ctx(ctx):
    return str(ctx if ctx is not None else current_context())


def _window_function(kind):
    def window(M, dtype=np.float32, ctx=None):  # noqa: N803 -- NumPy's argument name
        return call(f"_npi_{kind}", M=int(M), dtype=str(np.dtype(dtype)), ctx=_ctx(ctx))
    window.__name__ = window.__qualname__ = kind
    window.__doc__ = (f"NumPy's ``{kind}`` window of ``M`` points: empty for ``M < 1``, ``[1.]`` for ``M == 1``; "
                      f"float32 unless ``dtype`` (MXNet 1.9.1's default).")
    return window


hanning, hamming, blackman = (_window_function(kind) for kind in ("hanning", "hamming", "blackman"))


def indices(dimensions, dtype=np.int32, ctx=None):
    """The index grid of ``dimensions`` (a tuple of ints): shape ``(len(dimensions),) +
    dimensions``, int32 unless ``dtype``.  Other ``dimensions`` raise ValueError."""
    if not isinstance(dimensions, (tuple, list)):
        raise ValueError("The dimensions must be sequence of ints")
    dimensions = numpy_argument(NumpyShape, dimensions, "mx.np.indices", "dimensions")
    return call("_npi_indices", dimensions=dimensions, dtype=str(np.dtype(dtype)),
                ctx=_ctx(ctx))


def _rows(result):
    # the one (k, ...) array of the operator, as NumPy's tuple of k arrays (a symbol stays one)
    return result if is_symbol(result) else tuple(result[i] for i in range(result.shape[0]))


def diag_indices_from(arr):
    """The indices of the main diagonal of the square (n, n, ..., n) ``arr``: a tuple of
    ``arr.ndim`` int64 arrays of length n."""
    return _rows(call("_npi_diag_indices_from", _np(arr)))


def unravel_index(indices, shape, order="C"):  # noqa: A002 -- NumPy's argument names
    """The coordinates in an array of ``shape`` of the flat ``indices`` (C order only;
    ``order='F'`` raises NotImplementedError): a tuple of arrays of ``indices``' shape and dtype
    (NumPy's function for a number)."""
    if order != "C":
        raise NotImplementedError("Do not support column-major (Fortran-style) order at this moment")
    shape = (int(shape),) if isinstance(shape, (numbers.Integral, np.integer)) else tuple(int(d) for d in shape)
    if is_number(indices):
        return np.unravel_index(indices, shape)
    return _rows(call("_npi_unravel_index_fallback", _np(indices), shape=shape))


def resize(a, new_shape):
    """``a`` flattened and repeated cyclically to fill ``new_shape`` (NumPy's ``resize``)."""
    new_shape = (int(new_shape),) if isinstance(new_shape, (numbers.Integral, np.integer)) else \
        tuple(int(d) for d in new_shape)
    return call("_npi_resize_fallback", _np(a), new_shape=new_shape)


def diagflat(v, k=0):
    """A square 2-D array with the flattened ``v`` on its ``k``-th diagonal."""
    return call("_npi_diagflat", _np(v), k=_integer(k, "diagflat", "k"))


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The ``n``-th difference of ``a`` along ``axis``; ``prepend`` / ``append`` raise
    NotImplementedError (MXNet 1.9.1)."""
    if prepend is not None or append is not None:
        raise NotImplementedError("prepend and append options are not supported yet")
    return call("_npi_diff", _np(a), n=_integer(n, "diff", "n"), axis=_integer(axis, "diff", "axis"))


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of the flattened ``ary``, with ``to_begin`` before and ``to_end`` after
    (numbers, arrays or None), in ``ary``'s dtype."""
    inputs, attrs = [_np(ary)], {}
    for key, value in (("to_begin", to_begin), ("to_end", to_end)):
        given = value is not None and not is_number(value)
        attrs[f"{key}_arr_given"] = given
        attrs[f"{key}_scalar"] = float(value) if value is not None and is_number(value) else None
        if given:
            inputs.append(_np(value))
    return call("_npi_ediff1d", *inputs, **attrs)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None, **kwargs):  # noqa: ARG001
    """NaN replaced by ``nan``, infinities by ``posinf`` / ``neginf`` (None: the dtype's largest
    / smallest value); ``copy=False`` writes into ``x``.  A number gives NumPy's result."""
    if is_number(x):
        return np.nan_to_num(x, copy, nan, posinf, neginf)
    if not (isinstance(x, NDArray) or is_symbol(x)):
        raise TypeError(f"type {type(x)} not supported")
    attrs = dict(copy=copy, nan=float(nan), posinf=None if posinf is None else float(posinf),
                 neginf=None if neginf is None else float(neginf))
    if not copy and not is_symbol(x):
        return call("_npi_nan_to_num", x, out=x, **attrs)
    return call("_npi_nan_to_num", _np(x), **attrs)


def bincount(x, weights=None, minlength=0):
    """Counts (int64) of each non-negative integer of the 1-D ``x``, at least ``minlength``
    bins; with ``weights`` their sums (float64).  ``x`` not an array raises TypeError, a
    negative ``minlength`` ValueError."""
    if not (isinstance(x, NDArray) or is_symbol(x)):
        raise TypeError("Input data should be NDarray")
    if minlength < 0:
        raise ValueError("Minlength value should greater than 0")
    if weights is None:
        return call("_npi_bincount", _np(x), minlength=int(minlength), has_weights=False)
    return call("_npi_bincount", _np(x), _np(weights), minlength=int(minlength), has_weights=True)


def histogram(a, bins=10, range=None, normed=None, weights=None, density=None):  # noqa: A002
    """``(counts, bin_edges)`` of ``a``: ``bins`` equal bins over ``range`` (both needed) or the
    bin edges given as an array.  ``normed``, ``weights``, ``density`` and string bins raise
    NotImplementedError (MXNet 1.9.1)."""
    if normed is True:
        raise NotImplementedError("normed is not supported yet...")
    if weights is not None:
        raise NotImplementedError("weights is not supported yet...")
    if density is True:
        raise NotImplementedError("density is not supported yet...")
    if isinstance(bins, numbers.Number):
        if range is None:
            raise NotImplementedError("automatic range is not supported yet...")
        return tuple(call("_npi_histogram", _np(a), bin_cnt=int(bins), range=tuple(float(v) for v in range)))
    if isinstance(bins, (list, tuple)):
        raise NotImplementedError("array_like bins is not supported yet...")
    if isinstance(bins, str):
        raise NotImplementedError("string bins is not supported yet...")
    if isinstance(bins, NDArray) or is_symbol(bins):
        return tuple(call("_npi_histogram", _np(a), _np(bins)))
    raise ValueError("np.histogram fails with", locals())


def percentile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear", keepdims=False):
    """The ``q``-th percentiles (a number or an array, in [0, 100]) of ``a`` along ``axis``;
    ``interpolation`` one of linear, lower, higher, midpoint, nearest.  ``overwrite_input``
    raises NotImplementedError."""
    if overwrite_input is not None:
        raise NotImplementedError("overwrite_input is not supported yet")
    if is_number(q):
        return call("_npi_percentile", _np(a), q_scalar=float(q), axis=axis, interpolation=interpolation,
                    keepdims=keepdims, out=out)
    return call("_npi_percentile", _np(a), _np(q), q_scalar=None, axis=axis, interpolation=interpolation,
                keepdims=keepdims, out=out)


def quantile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear", keepdims=False):
    """``percentile`` at ``q * 100`` (``q`` in [0, 1])."""
    return percentile(a, q * 100, axis=axis, out=out, overwrite_input=overwrite_input,
                      interpolation=interpolation, keepdims=keepdims)


def polyval(p, x):
    """The polynomial of coefficients ``p`` (highest power first) at ``x``: arrays run the
    operator (differentiable in both), numbers NumPy's function; anything else TypeError."""
    if (isinstance(p, NDArray) or is_symbol(p)) and (isinstance(x, NDArray) or is_symbol(x)):
        return call("_npi_polyval", _np(p), _np(x))
    if not isinstance(p, NDArray) and not isinstance(x, NDArray) and not is_symbol(p) and not is_symbol(x):
        return np.polyval(p, x)
    raise TypeError("type not supported")


def shares_memory(a, b, max_work=None):  # noqa: ARG001
    """Whether ``a`` and ``b`` (views of one array, say) overlap in memory (a Python bool)."""
    return bool(call("_npi_share_memory", a, b).item())


def may_share_memory(a, b, max_work=None):  # noqa: ARG001
    """As ``shares_memory`` (MXNet 1.9.1 computes the same exact answer)."""
    return shares_memory(a, b)


_PAD_KEYWORDS = {"constant": ["constant_values"], "edge": [], "linear_ramp": ["end_values"],
                 "maximum": ["stat_length"], "mean": ["stat_length"], "median": ["stat_length"],
                 "minimum": ["stat_length"], "reflect": ["reflect_type"], "symmetric": ["reflect_type"], "wrap": []}


def pad(x, pad_width, mode="constant", **kwargs):
    """``x`` padded by ``pad_width`` (an int, a (before, after) pair, or one pair per axis) in
    ``mode`` constant (``constant_values``, a number), edge, reflect, symmetric (``reflect_type``
    'even'), maximum or minimum (no ``stat_length``).  The other NumPy modes (linear_ramp, wrap,
    mean, median, empty, a function) raise ValueError, as do keywords the mode does not take;
    a non-integer ``pad_width`` raises TypeError (MXNet 1.9.1)."""
    if not np.asarray(pad_width).dtype.kind == "i":
        raise TypeError("`pad_width` must be of integral type.")
    if callable(mode) or mode not in _PAD_KEYWORDS or mode in ("linear_ramp", "wrap", "median", "mean"):
        raise ValueError(f"mode {{'{mode if isinstance(mode, str) else '<function>'}'}} is not supported.")
    for key in kwargs:
        if key not in _PAD_KEYWORDS[mode]:
            raise ValueError(f"{key} keyword not in allowed keywords {_PAD_KEYWORDS[mode]}")
    widths = np.asarray(pad_width)
    pairs = tuple(tuple(int(v) for v in pair) for pair in np.broadcast_to(widths, widths.shape if widths.ndim == 2
                                                                           else (max(widths.ndim, 1), 2)))
    attrs = {}
    if mode == "constant":
        value = kwargs.get("constant_values", 0)
        if isinstance(value, tuple):
            raise TypeError("unsupported constant_values type: {'tuple'}.")
        attrs["constant_value"] = float(value)
    elif mode in ("reflect", "symmetric"):
        if kwargs.get("reflect_type", "even") not in ("even", None):
            raise ValueError(f"unsupported reflect_type '{kwargs['reflect_type']}'")
    elif mode in ("maximum", "minimum") and kwargs.get("stat_length") is not None:
        raise ValueError(f"unsupported stat_length '{kwargs['stat_length']}'")
    return call("_npi_pad", _np(x), pad_width=pairs, mode=mode, **attrs)


def _is_integer(value):
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, bool)


def insert(arr, obj, values, axis=None):
    """``arr`` with ``values`` (a number or an array, broadcast as NumPy does) inserted before
    ``obj`` (an int, a slice or an int64 array of indices) along ``axis`` (None: of the
    flattened array); the result keeps ``arr``'s dtype.  Other types raise TypeError."""
    if not (isinstance(arr, NDArray) or is_symbol(arr)):
        raise TypeError("'arr' can not support type {}".format(str(type(arr))))
    if is_number(values):
        inputs, attrs = [], {"val": float(values)}
    elif isinstance(values, NDArray) or is_symbol(values):
        inputs, attrs = [_np(values)], {"val": None}
    else:
        raise TypeError("'values' can not support type {}".format(str(type(values))))
    if isinstance(obj, slice):
        return call("_npi_insert_slice", _np(arr), *inputs, start=obj.start, stop=obj.stop,
                    step=1 if obj.step is None else obj.step, axis=axis, **attrs)
    if _is_integer(obj):
        return call("_npi_insert_scalar", _np(arr), *inputs, int_ind=int(obj), axis=axis, **attrs)
    if isinstance(obj, NDArray) or is_symbol(obj):
        return call("_npi_insert_tensor", _np(arr), *inputs, _np(obj), axis=axis, **attrs)
    raise TypeError("'obj' can not support type {}".format(str(type(obj))))


def delete(arr, obj, axis=None):
    """``arr`` without the entries at ``obj`` (an int, a slice, or an int or bool array) along
    ``axis`` (None: of the flattened array).  Other types raise TypeError."""
    if not (isinstance(arr, NDArray) or is_symbol(arr)):
        raise TypeError("'arr' can not support type {}".format(str(type(arr))))
    if isinstance(obj, slice):
        return call("_npi_delete", _np(arr), start=obj.start, stop=obj.stop, step=1 if obj.step is None else obj.step,
                    axis=axis)
    if _is_integer(obj):
        return call("_npi_delete", _np(arr), int_ind=int(obj), axis=axis)
    if isinstance(obj, NDArray) or is_symbol(obj):
        return call("_npi_delete", _np(arr), _np(obj), axis=axis)
    raise TypeError("'obj' can not support type {}".format(str(type(obj))))


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None):
    """The sorted unique elements of ``ar`` (``axis`` None: flattened) or its unique subarrays
    along ``axis``; with ``return_index`` / ``return_inverse`` / ``return_counts`` a tuple that
    adds the first occurrences, the rebuilding indices (1-D, MXNet 1.9.1) and the counts (int64)."""
    result = call("_npi_unique", _np(ar), return_index=bool(return_index), return_inverse=bool(return_inverse),
                  return_counts=bool(return_counts), axis=axis)
    return tuple(result) if isinstance(result, list) else result
