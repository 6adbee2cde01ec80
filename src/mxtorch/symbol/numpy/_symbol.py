"""``mx.sym.np``'s symbol class ``_Symbol`` (MXNet's ``mxnet.symbol.numpy._Symbol``) and the
functions of ``mx.sym.np``.

The functions are those of ``mx.nd.np`` (``mxtorch.ndarray.numpy``) run inside
``numpy_array.symbolic()``: every operator call then builds a node of the same registered
operator instead of computing, so the NumPy front end's Python-level logic (scalar or array
operands, dtype defaults, ``axis`` forms) is written once for both front ends.  ``_Symbol``
takes its NumPy methods (``sum``, ``reshape``, ``T``, ``+``, ``<``, ...) from ``mx.np.ndarray``
for the same reason.
"""
from __future__ import annotations

import functools
import numbers

from ...ndarray import numpy_array as _numpy_array
from ...ndarray.numpy_array import ndarray as _ndarray
from ..symbol import Symbol, create, provide_np_symbol

__all__ = ["_Symbol", "symbolic_function"]

# the NumPy methods and operators _Symbol shares with mx.np.ndarray
_SHARED = ["T", "reshape", "transpose", "swapaxes", "flatten", "ravel", "squeeze", "expand_dims", "broadcast_to",
           "repeat", "tile", "sum", "prod", "mean", "max", "min", "std", "var", "argmax", "argmin", "clip", "dot",
           "cumsum", "any", "all", "take", "sort", "argsort", "round",
           "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
           "__mod__", "__rmod__", "__pow__", "__rpow__", "__and__", "__or__", "__xor__", "__eq__", "__ne__",
           "__lt__", "__le__", "__gt__", "__ge__", "__neg__", "__abs__", "__invert__", "__matmul__"]


class _Symbol(Symbol):
    """A symbol of MXNet's NumPy front end: a Symbol whose operators and methods are NumPy's
    (``_npi_*`` nodes), as ``mx.np.ndarray``'s are."""

    __hash__ = Symbol.__hash__

    def as_nd_ndarray(self):
        """This graph as a classic ``mx.sym.Symbol``."""
        return Symbol(self._outputs)

    def as_np_ndarray(self):
        """This symbol itself."""
        return self

    def astype(self, dtype, **kwargs):  # noqa: ARG002
        """The symbol cast to ``dtype`` (``_npi_cast``: MXNet's ``Cast``)."""
        return _Symbol(create("Cast", Symbol(self._outputs), dtype=dtype)._outputs)

    def __iadd__(self, other):
        return self.__add__(other)

    def __isub__(self, other):
        return self.__sub__(other)

    def __imul__(self, other):
        return self.__mul__(other)

    def __itruediv__(self, other):
        return self.__truediv__(other)

    def __getitem__(self, key):
        """A group of several outputs: output ``key`` (an int) or the outputs ``key`` selects (a
        slice), as Symbol's.  A single output: NumPy basic indexing of its array, as MXNet
        1.9.1's ``_Symbol.__getitem__``; ``key`` is an int, a slice or a tuple of them (one
        entry per leading axis; ``()`` is the symbol itself).  The node built is ``slice``
        (begin / end / step per axis), followed by ``_npx_reshape`` dropping the int-indexed
        axes.  Raises IndexError for other keys (None, Ellipsis, arrays) and ValueError for a
        zero slice step."""
        if len(self._outputs) > 1:
            result = Symbol.__getitem__(self, key)
            return _Symbol(result._outputs) if isinstance(result, Symbol) else result
        if isinstance(key, tuple) and not key:
            return self
        entries = key if isinstance(key, tuple) else (key,)
        begin, end, step, newshape = [], [], [], []
        for entry in entries:
            if isinstance(entry, slice):
                if entry.step == 0:
                    raise ValueError("slice step cannot be zero")
                begin.append(entry.start)
                end.append(entry.stop)
                step.append(entry.step)
                newshape.append(-2)
            elif isinstance(entry, numbers.Integral) and not isinstance(entry, bool):
                entry = int(entry)
                begin.append(entry)
                end.append(entry + 1 if entry != -1 else None)
                step.append(1)
                newshape.append(-3)
            else:
                raise IndexError(f"Only integer, slice, or tuple of these types are supported! Received key={key!r}")
        sliced = create("slice", Symbol(self._outputs), begin=tuple(begin), end=tuple(end), step=tuple(step))
        if -3 not in newshape:
            return _Symbol(sliced._outputs)
        return _Symbol(create("_npx_reshape", sliced, newshape=tuple(newshape) + (-4,))._outputs)


for _name in _SHARED:
    setattr(_Symbol, _name, _ndarray.__dict__[_name])


def _build(op_name, inputs, attrs):
    """The node of ``op_name`` on ``inputs`` (classic symbols are taken as they are); a
    multi-output operator gives the list of its outputs."""
    inputs = [Symbol(value._outputs) if isinstance(value, Symbol) else value for value in inputs]
    attrs = {key: Symbol(value._outputs) if isinstance(value, Symbol) else value for key, value in attrs.items()}
    result = create(op_name, *inputs, **attrs)
    if len(result._outputs) > 1:
        return [_Symbol([output]) for output in result._outputs]
    return _Symbol(result._outputs)


def symbolic_function(function):
    """``function`` (an ``mx.nd.np`` function) building symbols: its operator calls make nodes."""
    @functools.wraps(function)
    def symbolic(*args, **kwargs):
        with _numpy_array.symbolic():
            return function(*args, **kwargs)
    return symbolic


_numpy_array.register_symbol_front(lambda value: isinstance(value, Symbol), _build)


@provide_np_symbol
def _as_np_symbol(symbol):
    return _Symbol(symbol._outputs)
