"""The Python-level functions of ``mx.sym`` (MXNet 1.9.1's ``mxnet.symbol.symbol`` functions of
the same names): the creators ``zeros``, ``ones``, ``full``, ``arange``, ``linspace``, ``eye`` and
the functions that dispatch on Symbol or number operands (``pow``, ``power``, ``maximum``,
``minimum``, ``hypot``) and ``histogram``."""
from __future__ import annotations

import numbers

import numpy as np

from ..base import MXNetError, dtype_name
from .symbol import Symbol, create

def zeros(shape, dtype=None, **kwargs):
    """A symbol producing zeros of ``shape``."""
    return create("_zeros", shape=tuple(shape) if not isinstance(shape, int) else (shape,),
                  dtype=dtype_name(dtype or np.float32), **kwargs)


def ones(shape, dtype=None, **kwargs):
    """A symbol producing ones of ``shape``."""
    return create("_ones", shape=tuple(shape) if not isinstance(shape, int) else (shape,),
                  dtype=dtype_name(dtype or np.float32), **kwargs)


def full(shape, val, dtype=None, **kwargs):
    """A symbol producing an array of ``shape`` filled with ``val`` (float32 unless ``dtype``),
    the ``_full`` operator."""
    return create("_full", shape=tuple(shape) if not isinstance(shape, numbers.Integral) else (shape,),
                  dtype=dtype_name(dtype or np.float32), value=float(val), **kwargs)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, name=None, dtype=None):
    """``start, start + step, ...`` up to (excluding) ``stop`` (``arange(n)``: ``[0, n)``), each
    repeated ``repeat`` times, float32 unless ``dtype``: the ``_arange`` operator.  With
    ``infer_range=True`` and no ``stop`` the length comes from shape inference."""
    return create("_arange", start=start, stop=stop, step=step, repeat=repeat, infer_range=infer_range,
                  name=name, dtype=dtype_name(dtype or np.float32))


def linspace(start, stop, num, endpoint=True, name=None, dtype=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` (included unless ``endpoint=False``),
    float32 unless ``dtype``: the ``_linspace`` operator."""
    return create("_linspace", start=start, stop=stop, num=num, endpoint=endpoint, name=name,
                  dtype=dtype_name(dtype or np.float32))


def eye(N, M=0, k=0, dtype=None, **kwargs):
    """An ``(N, M)`` matrix (``M=0``: square) with ones on diagonal ``k``, float32 unless ``dtype``:
    the ``_eye`` operator."""
    return create("_eye", N=N, M=M, k=k, dtype=dtype_name(dtype or np.float32), **kwargs)


def _symbol_dispatch(function, left, right, array_op, scalar_op, reverse_scalar_op, on_numbers):
    """MXNet's rule for ``mx.sym.pow / maximum / minimum / hypot``: two symbols use ``array_op``,
    a symbol and a number ``scalar_op`` (``reverse_scalar_op`` when the number comes first), two
    numbers give ``on_numbers(left, right)``."""
    left_number = isinstance(left, numbers.Number)
    right_number = isinstance(right, numbers.Number)
    if isinstance(left, Symbol) and isinstance(right, Symbol):
        return create(array_op, left, right)
    if isinstance(left, Symbol) and right_number:
        return create(scalar_op, left, scalar=right)
    if left_number and isinstance(right, Symbol):
        return create(reverse_scalar_op, right, scalar=left)
    if left_number and right_number:
        return on_numbers(left, right)
    raise MXNetError(f"{function}: operands must be Symbols or numbers, got {type(left).__name__} and "
                     f"{type(right).__name__}")


def pow(base, exp):  # noqa: A001 - MXNet's name
    """``base ** exp`` element by element: ``_Power`` for two symbols, ``_PowerScalar`` /
    ``_RPowerScalar`` with a number, a Python number for two numbers."""
    return _symbol_dispatch("pow", base, exp, "_Power", "_PowerScalar", "_RPowerScalar", lambda x, y: x ** y)


def power(base, exp):
    """The same as ``pow``."""
    return pow(base, exp)


def maximum(left, right):
    """The larger of ``left`` and ``right`` element by element: ``_Maximum`` for two symbols,
    ``_MaximumScalar`` with a number (on either side), a Python number for two numbers."""
    return _symbol_dispatch("maximum", left, right, "_Maximum", "_MaximumScalar", "_MaximumScalar",
                            lambda x, y: x if x > y else y)


def minimum(left, right):
    """The smaller of ``left`` and ``right`` element by element: ``_Minimum`` for two symbols,
    ``_MinimumScalar`` with a number (on either side), a Python number for two numbers."""
    return _symbol_dispatch("minimum", left, right, "_Minimum", "_MinimumScalar", "_MinimumScalar",
                            lambda x, y: x if x < y else y)


def hypot(left, right):
    """``sqrt(left ** 2 + right ** 2)`` element by element: ``_Hypot`` for two symbols,
    ``_HypotScalar`` with a number (on either side), ``numpy.hypot`` for two numbers."""
    return _symbol_dispatch("hypot", left, right, "_Hypot", "_HypotScalar", "_HypotScalar", np.hypot)


def histogram(a, bins=10, range=None, **kwargs):  # noqa: A002 - MXNet's argument name
    """Counts of ``a``'s values in bins, the ``_histogram`` operator (outputs: counts, edges).
    ``bins`` a Symbol of edges, or an int with ``range=(low, high)`` (required in symbol mode).
    MXNetError otherwise."""
    if isinstance(bins, Symbol):
        return create("_histogram", data=a, bins=bins, **kwargs)
    if isinstance(bins, numbers.Integral) and not isinstance(bins, bool):
        if range is None:
            raise MXNetError("histogram: range=(low, high) is required in symbol mode when bins is an int")
        return create("_histogram", data=a, bin_cnt=bins, range=range, **kwargs)
    raise MXNetError(f"histogram: bins must be an int or a Symbol of edges, got {type(bins).__name__}")
