"""NDArray arithmetic: the element-wise functions of ``mx.nd`` (``add``, ``subtract``, ...,
``power``, the comparisons and logical functions, with MXNet's dispatch: two arrays run the
``broadcast_*`` operator, an array and a number the ``_*_scalar`` one, two numbers give a
number) and the Python operators of NDArray built on them (``a + b``, ``-3.0 % a``,
``a **= 2``), installed on the class when this file is imported, as MXNet's NDArray defined them."""
from __future__ import annotations

import numbers

import numpy as np
import torch

from ..base import MXNetError
from .ndarray import NDArray, _call

def _dispatch(function, lhs, rhs, array_op, scalar_op, reverse_scalar_op, on_scalars):
    """MXNet's rule for the ``mx.nd`` element-wise functions: two arrays run ``array_op``
    (broadcasting), an array and a number run ``scalar_op`` (``reverse_scalar_op`` when the
    number comes first; commutative functions reuse ``scalar_op``) with the number as a float,
    two numbers give ``on_scalars(lhs, rhs)`` as a Python number."""
    lhs_number = isinstance(lhs, (numbers.Number, np.generic))
    rhs_number = isinstance(rhs, (numbers.Number, np.generic))
    if lhs_number and rhs_number:
        return on_scalars(lhs, rhs)
    if lhs_number and isinstance(rhs, NDArray):
        return _call(reverse_scalar_op or scalar_op, rhs, scalar=float(lhs))
    if isinstance(lhs, NDArray) and rhs_number:
        return _call(scalar_op, lhs, scalar=float(rhs))
    if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
        return _call(array_op, lhs, rhs)
    raise MXNetError(f"{function}: operands must be NDArrays or numbers, got {type(lhs).__name__} "
                     f"and {type(rhs).__name__}")


def _ufunc_helper(lhs, rhs, fn_array, fn_scalar, lfn_scalar, rfn_scalar=None):
    """MXNet's dispatch helper of its element-wise functions, with the callables given: two
    numbers give ``fn_scalar(lhs, rhs)``; an array and a number ``lfn_scalar(array, float(number))``
    (``rfn_scalar(rhs, float(lhs))`` when the number comes first and ``rfn_scalar`` is given: a
    function that is not commutative); two NDArrays ``fn_array(lhs, rhs)``.  TypeError when
    ``rhs`` is of another type."""
    from ..base import numeric_types
    if isinstance(lhs, numeric_types):
        if isinstance(rhs, numeric_types):
            return fn_scalar(lhs, rhs)
        return (rfn_scalar or lfn_scalar)(rhs, float(lhs))
    if isinstance(rhs, numeric_types):
        return lfn_scalar(lhs, float(rhs))
    if isinstance(rhs, NDArray):
        return fn_array(lhs, rhs)
    raise TypeError(f"type {type(rhs)} not supported")


def _elementwise(function, array_op, scalar_op, reverse_scalar_op, on_scalars, summary):
    def apply(lhs, rhs):
        return _dispatch(function, lhs, rhs, array_op, scalar_op, reverse_scalar_op, on_scalars)
    apply.__name__ = function
    apply.__qualname__ = function
    apply.__doc__ = (f"{summary}, element by element with broadcasting.\n\nTwo NDArrays run ``{array_op}``; an "
                     f"NDArray and a number run ``{scalar_op}``"
                     + (f" (``{reverse_scalar_op}`` when the number is on the left)" if reverse_scalar_op else "")
                     + "; two numbers give a Python number.  The result has the array's dtype "
                     "(comparisons give 1 / 0 in it).  MXNetError for other operand types.")
    return apply


add = _elementwise("add", "broadcast_add", "_plus_scalar", None, lambda x, y: x + y, "``lhs + rhs``")
subtract = _elementwise("subtract", "broadcast_sub", "_minus_scalar", "_rminus_scalar", lambda x, y: x - y,
                        "``lhs - rhs``")
multiply = _elementwise("multiply", "broadcast_mul", "_mul_scalar", None, lambda x, y: x * y, "``lhs * rhs``")
divide = _elementwise("divide", "broadcast_div", "_div_scalar", "_rdiv_scalar", lambda x, y: x / y,
                      "``lhs / rhs``")
modulo = _elementwise("modulo", "broadcast_mod", "_mod_scalar", "_rmod_scalar", lambda x, y: x % y,
                      "``lhs % rhs``")
maximum = _elementwise("maximum", "broadcast_maximum", "_maximum_scalar", None,
                       lambda x, y: x if x > y else y, "The larger of ``lhs`` and ``rhs``")
minimum = _elementwise("minimum", "broadcast_minimum", "_minimum_scalar", None,
                       lambda x, y: x if x < y else y, "The smaller of ``lhs`` and ``rhs``")
equal = _elementwise("equal", "broadcast_equal", "_equal_scalar", None, lambda x, y: int(x == y),
                     "1 where ``lhs == rhs``, else 0")
not_equal = _elementwise("not_equal", "broadcast_not_equal", "_not_equal_scalar", None,
                         lambda x, y: int(x != y), "1 where ``lhs != rhs``, else 0")
greater = _elementwise("greater", "broadcast_greater", "_greater_scalar", "_lesser_scalar",
                       lambda x, y: int(x > y), "1 where ``lhs > rhs``, else 0")
greater_equal = _elementwise("greater_equal", "broadcast_greater_equal", "_greater_equal_scalar",
                             "_lesser_equal_scalar", lambda x, y: int(x >= y), "1 where ``lhs >= rhs``, else 0")
lesser = _elementwise("lesser", "broadcast_lesser", "_lesser_scalar", "_greater_scalar",
                      lambda x, y: int(x < y), "1 where ``lhs < rhs``, else 0")
lesser_equal = _elementwise("lesser_equal", "broadcast_lesser_equal", "_lesser_equal_scalar",
                            "_greater_equal_scalar", lambda x, y: int(x <= y), "1 where ``lhs <= rhs``, else 0")
logical_and = _elementwise("logical_and", "broadcast_logical_and", "_logical_and_scalar", None,
                           lambda x, y: int(bool(x and y)), "1 where both ``lhs`` and ``rhs`` are non-zero, else 0")
logical_or = _elementwise("logical_or", "broadcast_logical_or", "_logical_or_scalar", None,
                          lambda x, y: int(bool(x or y)), "1 where ``lhs`` or ``rhs`` is non-zero, else 0")
logical_xor = _elementwise("logical_xor", "broadcast_logical_xor", "_logical_xor_scalar", None,
                           lambda x, y: int(bool(x) != bool(y)), "1 where exactly one of ``lhs`` and ``rhs`` is "
                           "non-zero, else 0")


def power(base, exp):
    """``base ** exp`` element by element with broadcasting: two NDArrays run ``broadcast_power``,
    an NDArray and a number ``_power_scalar`` (``_rpower_scalar`` when the number is the base),
    two numbers give a Python number.  MXNetError for other operand types."""
    return _dispatch("power", base, exp, "broadcast_power", "_power_scalar", "_rpower_scalar",
                     lambda x, y: x ** y)


def true_divide(lhs, rhs):
    """The same as ``divide`` (MXNet keeps both names)."""
    return divide(lhs, rhs)


# -- the Python operators of NDArray -----------------------------------------------------------------
def _operand(array, other):
    """``other`` as an operand of ``array``'s operators: arrays and numbers as they are, a numpy
    array wrapped as an NDArray of ``array``'s dtype and device; NotImplemented otherwise."""
    if isinstance(other, (NDArray, numbers.Number, np.generic)):
        return other
    if isinstance(other, np.ndarray):
        return NDArray(torch.from_numpy(np.ascontiguousarray(other)).to(array._tensor), array._ctx)
    return NotImplemented


def _binary(function, reflected=False):
    def method(self, other):
        other = _operand(self, other)
        if other is NotImplemented:
            return other
        return function(other, self) if reflected else function(self, other)
    return method


def _inplace(function):
    def method(self, other):
        """``self op= other``: the operator writes into this array (MXNet's ``out=self``)."""
        self._check_writable("in-place arithmetic")
        other = _operand(self, other)
        if other is NotImplemented:
            return other
        result = function(self, other)
        with self._check_writable("in-place arithmetic", result, partial=True):
            self._tensor.copy_(result._tensor)
        return self
    return method


def _negative(self):
    return _call("_mul_scalar", self, scalar=-1.0)


_OPERATORS = {
    "add": add, "sub": subtract, "mul": multiply, "truediv": divide, "div": divide, "mod": modulo, "pow": power,
}
for _name, _function in _OPERATORS.items():
    setattr(NDArray, f"__{_name}__", _binary(_function))
    setattr(NDArray, f"__r{_name}__", _binary(_function, reflected=True))
    if _name != "pow":
        setattr(NDArray, f"__i{_name}__", _inplace(_function))
for _name, _function in {"eq": equal, "ne": not_equal, "gt": greater, "ge": greater_equal, "lt": lesser,
                         "le": lesser_equal}.items():
    setattr(NDArray, f"__{_name}__", _binary(_function))
NDArray.__neg__ = _negative
