"""``mx.sym.npx``: the NumPy front end's extension operators on symbols, one function per
``_npx_*`` registered name (as ``mx.nd.npx``), building ``_Symbol`` nodes."""
import functools as _functools

from ...ops.numpy_arrays import npx_operators as _npx_operators
from ..numpy._symbol import _build


def _make(name, op_name):
    function = _functools.partial(lambda op, *args, **kwargs: _build(op, args, kwargs), op_name)
    function.__name__ = name
    function.__doc__ = f"``mx.sym.npx.{name}``: a node of the operator registered as {op_name!r}."
    return function


__all__ = sorted(_npx_operators())
globals().update({name: _make(name, op_name) for name, op_name in _npx_operators().items()})
