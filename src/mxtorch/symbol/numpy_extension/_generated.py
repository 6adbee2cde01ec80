"""The ``mx.sym.npx`` functions, one per ``_npx_*`` registered name, building ``_Symbol`` nodes."""
import functools

from ...ops.numpy_arrays import npx_operators
from ..numpy._symbol import _build


def _make(name, op_name):
    function = functools.partial(lambda op, *args, **kwargs: _build(op, args, kwargs), op_name)
    function.__name__ = name
    function.__doc__ = f"``mx.sym.npx.{name}``: a node of the operator registered as {op_name!r}."
    return function


def functions(submodule=""):
    """``{name: function}`` of ``mx.sym.npx`` (``submodule='image'``: of ``mx.sym.npx.image``)."""
    return {name: _make(name, op_name) for name, op_name in npx_operators(submodule).items()}
