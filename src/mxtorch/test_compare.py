"""Comparisons of ``mx.test_utils`` (MXNet 1.9.1): the per-dtype default tolerances,
``almost_equal`` / ``assert_almost_equal`` and their relatives (NaN-ignoring, with a tolerated
error rate, element-wise over tuples), equality and shape checks, and the NumPy reference
reductions ``np_reduce`` / ``collapse_sum_like``.

Comparisons accept numpy arrays, NDArrays, torch tensors and numbers and use
``|a - b| <= atol + rtol * |b|``; a tolerance left as ``None`` takes a per-dtype default (the
larger of the two operands'), as MXNet did.
"""
from __future__ import annotations

import numbers

import numpy as np
import torch

from .ndarray.ndarray import NDArray

__all__ = ["default_rtols", "default_atols", "default_numeric_eps", "effective_dtype", "get_tolerance",
           "get_tols", "get_rtol", "get_atol", "get_etol", "almost_equal", "locationError",
           "assert_almost_equal", "assert_almost_equal_ignore_nan", "assert_allclose",
           "assert_exception", "same", "same_array", "checkShapes", "compare_ndarray_tuple",
           "np_reduce", "collapse_sum_like", "assert_almost_equal_with_err"]


# -- tolerances ------------------------------------------------------------------------------------
def default_rtols():
    """Per-dtype default relative tolerances (MXNet 1.9.1's values)."""
    return {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-5,
            np.dtype(np.bool_): 0, np.dtype(np.int8): 0, np.dtype(np.uint8): 0, np.dtype(np.int32): 0,
            np.dtype(np.uint32): 0, np.dtype(np.int64): 0, np.dtype(np.uint64): 0}


def default_atols():
    """Per-dtype default absolute tolerances (MXNet 1.9.1's values)."""
    return {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3, np.dtype(np.float64): 1e-20,
            np.dtype(np.bool_): 0, np.dtype(np.int8): 0, np.dtype(np.uint8): 0, np.dtype(np.int32): 0,
            np.dtype(np.uint32): 0, np.dtype(np.int64): 0, np.dtype(np.uint64): 0}


def default_numeric_eps():
    """Per-dtype finite-difference steps: 2**-6 (float16), 2**-9 (float32), 2**-14 (float64)."""
    return {np.dtype(np.float16): 1.0 / 2 ** 6, np.dtype(np.float32): 1.0 / 2 ** 9,
            np.dtype(np.float64): 1.0 / 2 ** 14}


def effective_dtype(dat):
    """The numpy dtype whose tolerances apply to ``dat`` (array, NDArray or number)."""
    if isinstance(dat, numbers.Number):
        return np.asarray(dat).dtype
    return np.dtype(dat.dtype)


def get_tolerance(dat, tol, default_tol):
    """``tol`` if it is a number, else ``tol[dtype]`` (a dict) or ``default_tol[dtype]``."""
    if isinstance(tol, numbers.Number):
        return tol
    dtype = effective_dtype(dat)
    table = dict(default_tol)
    table.update(tol or {})
    if dtype not in table:
        return 0
    return table[dtype]


def get_tols(x, y, rtol, atol):
    """(rtol, atol) for comparing ``x`` and ``y``: the larger default of the two dtypes."""
    rtol = max(get_tolerance(x, rtol, default_rtols()), get_tolerance(y, rtol, default_rtols()))
    atol = max(get_tolerance(x, atol, default_atols()), get_tolerance(y, atol, default_atols()))
    return rtol, atol


def get_rtol(rtol=None, dtype=np.dtype(np.float64)):
    """``rtol``, or the default relative tolerance of ``dtype``."""
    return rtol if isinstance(rtol, numbers.Number) else default_rtols().get(np.dtype(dtype), 1e-5)


def get_atol(atol=None, dtype=np.dtype(np.float64)):
    """``atol``, or the default absolute tolerance of ``dtype``."""
    return atol if isinstance(atol, numbers.Number) else default_atols().get(np.dtype(dtype), 1e-20)


def get_etol(etol=None):
    """The fraction of elements allowed to violate the tolerance (default 0)."""
    return 0 if etol is None else etol


# -- comparisons ----------------------------------------------------------------------------------
def _as_numpy(value):
    if isinstance(value, NDArray):
        return value.asnumpy()
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    return np.asarray(value)


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """True when ``|a - b| <= atol + rtol * |b|`` everywhere (see :func:`get_tols`)."""
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _as_numpy(a), _as_numpy(b)
    if not use_broadcast and a.shape != b.shape:
        return False
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def locationError(a, b, index, names, maxError=False):
    """A message giving the values of ``a`` and ``b`` at ``index``."""
    label = "Maximum error" if maxError else "Error"
    index = tuple(int(i) for i in index)
    return f"{label} at index {index}: {names[0]}={_item(a[index])}, {names[1]}={_item(b[index])}"


def _item(value):
    return value.item() if hasattr(value, "item") else value


def assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False, use_broadcast=True,
                        mismatches=(10, 10)):
    """Raise AssertionError unless ``a`` and ``b`` agree within ``atol + rtol * |b|``.

    The message names the operands (``names``), the tolerances, the largest violation with
    its index and values, and up to ``mismatches[0]`` mismatching positions.
    """
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _as_numpy(a), _as_numpy(b)
    if not use_broadcast and a.shape != b.shape:
        raise AssertionError(f"{names[0]} has shape {a.shape}, {names[1]} has shape {b.shape}")
    try:
        a_full, b_full = np.broadcast_arrays(a, b)
    except ValueError:
        raise AssertionError(f"{names[0]} of shape {a.shape} and {names[1]} of shape {b.shape} "
                             f"cannot be compared") from None
    if np.allclose(a_full, b_full, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    a64 = a_full.astype(np.float64) if a_full.dtype != np.bool_ else a_full.astype(np.float64)
    b64 = b_full.astype(np.float64) if b_full.dtype != np.bool_ else b_full.astype(np.float64)
    with np.errstate(invalid="ignore"):
        excess = np.abs(a64 - b64) - (atol + rtol * np.abs(b64))
        bad = ~np.isclose(a64, b64, rtol=rtol, atol=atol, equal_nan=equal_nan)
    excess = np.where(np.isnan(excess), np.inf, excess)
    worst = np.unravel_index(int(np.argmax(np.where(bad, excess, -np.inf))), a_full.shape) if a_full.ndim \
        else ()
    positions = np.argwhere(bad)
    lines = [f"Items are not equal (rtol={rtol}, atol={atol}): {len(positions)} of {bad.size} elements "
             f"differ.", locationError(a_full, b_full, worst, names, maxError=True)]
    for position in positions[:mismatches[0]]:
        key = tuple(int(i) for i in position)
        lines.append(f"  {key}: {names[0]}={_item(a_full[key])} {names[1]}={_item(b_full[key])}")
    lines.append(f" {names[0]}: {np.array2string(a_full, threshold=50)}")
    lines.append(f" {names[1]}: {np.array2string(b_full, threshold=50)}")
    raise AssertionError("\n".join(lines))


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=("a", "b")):
    """assert_almost_equal after setting positions that are NaN in either operand to 0."""
    a, b = np.copy(_as_numpy(a)), np.copy(_as_numpy(b))
    nan = np.logical_or(np.isnan(a), np.isnan(b))
    a[nan] = 0
    b[nan] = 0
    assert_almost_equal(a, b, rtol, atol, names)


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    """numpy.testing.assert_allclose on arrays or NDArrays."""
    np.testing.assert_allclose(_as_numpy(a), _as_numpy(b), rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_exception(f, exception_type, *args, **kwargs):
    """Assert that ``f(*args, **kwargs)`` raises ``exception_type``."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError(f"{getattr(f, '__name__', f)} did not raise {exception_type.__name__}")


def same(a, b):
    """True when ``a`` and ``b`` have the same shape and the same elements."""
    return bool(np.array_equal(_as_numpy(a), _as_numpy(b)))


def same_array(array1, array2):
    """True when two NDArrays share their memory (a write through one shows in the other)."""
    if array1.shape != array2.shape:
        return False
    return array1._tensor.data_ptr() == array2._tensor.data_ptr()


def checkShapes(a, b):
    """Assert that ``a`` and ``b`` have the same shape."""
    assert a.shape == b.shape, f"shapes differ: {a.shape} vs {b.shape}"


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None):
    """assert_almost_equal element by element over (nested) tuples of arrays; None skips."""
    if t1 is None or t2 is None:
        return
    if isinstance(t1, (tuple, list)):
        for a, b in zip(t1, t2):
            compare_ndarray_tuple(a, b, rtol, atol)
    else:
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """Reduce ``dat`` with ``numpy_reduce_func`` (np.sum, np.max, ...) over ``axis`` (None,
    an int or a list of ints), keeping reduced axes as size 1 when ``keepdims``."""
    if isinstance(axis, int):
        axis = [axis]
    else:
        axis = list(axis) if axis is not None else list(range(len(dat.shape)))
    result = dat
    for a in sorted((a % dat.ndim for a in axis), reverse=True):
        result = numpy_reduce_func(result, axis=a)
    if keepdims:
        shape = list(dat.shape)
        for a in axis:
            shape[a % dat.ndim] = 1
        result = np.asarray(result).reshape(shape)
    return result


def collapse_sum_like(a, shape):
    """Sum ``a`` over the axes on which it was broadcast from ``shape``."""
    a = _as_numpy(a)
    shape = tuple(shape)
    leading = a.ndim - len(shape)
    result = a.sum(axis=tuple(range(leading))) if leading else a
    axes = tuple(i for i, size in enumerate(shape) if size == 1 and result.shape[i] != 1)
    return result.sum(axis=axes, keepdims=True) if axes else result


def assert_almost_equal_with_err(a, b, rtol=None, atol=None, etol=None, names=("a", "b"), equal_nan=False,
                                 mismatches=(10, 10)):
    """Like ``assert_almost_equal``, but up to a fraction ``etol`` of the elements may differ.

    With ``etol`` > 0 the arrays pass when the fraction of elements outside
    ``atol + rtol * |b|`` is at most ``etol``; otherwise AssertionError gives that fraction,
    the tolerances and the largest violations (``mismatches[0]`` of them).  With ``etol`` None
    or 0 this is ``assert_almost_equal``."""
    etol = get_etol(etol)
    if etol <= 0:
        assert_almost_equal(a, b, rtol=rtol, atol=atol, names=names, equal_nan=equal_nan, mismatches=mismatches)
        return
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = np.broadcast_arrays(_as_numpy(a), _as_numpy(b))
    close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    error_rate = 1 - np.count_nonzero(close) / close.size
    if error_rate <= etol:
        return
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(invalid="ignore"):
        excess = np.where(close, -np.inf, np.abs(a64 - b64) - (atol + rtol * np.abs(b64)))
    excess = np.where(np.isnan(excess), np.inf, excess)
    order = np.argsort(excess, axis=None)[::-1][:max(int(mismatches[0]), 1)]
    lines = [f"Error rate {error_rate:.6f} exceeds etol={etol} (rtol={rtol}, atol={atol}): "
             f"{close.size - np.count_nonzero(close)} of {close.size} elements differ."]
    for flat in order:
        index = np.unravel_index(int(flat), a.shape) if a.ndim else ()
        if close[index]:
            break
        lines.append("  " + locationError(a, b, index, names))
    raise AssertionError("\n".join(lines))
