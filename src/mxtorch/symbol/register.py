"""Symbolic front end: one ``mx.sym.<Name>`` function per registered operator (MXNet 1.9.1's
``mxnet.symbol.register``, which generated them from the C library's operator list).

``make_function(op_name)`` returns the function that composes a node of the operator:
input Symbols positionally or by argument name, attributes as keywords, ``name=`` and
``attr=``; ``install(namespace)`` puts one per registered operator into ``namespace``
(``mx.sym``), keeping the ``zeros`` / ``ones`` creators already there.
"""
from __future__ import annotations

from ..ops import registry as _registry
from .symbol import create
# names MXNet 1.9.1's mxnet.symbol.register had in its namespace (imported there, not defined)
from ..attribute import AttrScope  # noqa: F401
from ..base import check_call, mx_uint, py_str  # noqa: F401
from ..base_ctypes import SymbolBase  # noqa: F401
from ..name import NameManager  # noqa: F401

__all__ = ["make_function", "install"]


def make_function(op_name):
    """The ``mx.sym`` function of the registered operator ``op_name`` (MXNetError if unknown)."""
    op_class = _registry.get_operator(op_name)

    def function(*args, **kwargs):
        return create(op_name, *args, **kwargs)
    function.__name__ = op_name
    function.__doc__ = (op_class.__doc__ or f"The {op_name} operator.") + \
        "\n\nSymbolic form: input Symbols positionally or by argument name, attributes as keywords, " \
        "``name=`` and ``attr=``."
    return function


def install(namespace):
    """Add one function per registered operator to ``namespace`` (a module's globals)."""
    for op_name in _registry.list_operators():
        if op_name in namespace:
            continue        # the Python-level functions imported before (zeros, ones) win
        namespace[op_name] = make_function(op_name)
