"""The C API entry points of MXNet 1.9.1's graph partitioning, offered through
``mxnet.base._LIB`` (``base_ctypes._LIB.provide``) with MXNet's calling convention:

- ``MXBuildSubgraphByOpNames(sym.handle, c_str(backend), mx_uint(n), c_str_array(names),
  byref(out))``: ``out`` becomes the handle of the partitioned symbol (``Symbol(out)``);
- ``MXSetSubgraphPropertyOpNamesV2`` / ``MXRemoveSubgraphPropertyOpNamesV2(c_str(backend))``:
  the operator names ``optimize_for(backend)`` and ``hybridize(backend=...)`` select;
- ``MXSetSubgraphPropertyOpNames`` / ``MXRemoveSubgraphPropertyOpNames``: MXNet's first form,
  kept apart (its executor read them under ``MXNET_SUBGRAPH_BACKEND``);

Each returns 0, or -1 with the error recorded for ``check_call``.
"""
from __future__ import annotations

import ctypes

from ..base import MXNetError
from ..base_ctypes import _LIB, c_api_function, give_handle, object_of_handle
from ..symbol.subgraph_backends import list_backends
from ..symbol.symbol import Symbol
from . import default
from .partition import build_subgraph

__all__ = []


def _text(value, what):
    raw = getattr(value, "value", value)
    if isinstance(raw, bytes):
        return raw.decode("utf-8")
    if isinstance(raw, str):
        return raw
    raise MXNetError(f"{what}: expected a c_str, got {type(value).__name__}")


def _names(count, array, what):
    count = int(getattr(count, "value", count))
    names = [_text(array[i], what) for i in range(count)]
    return names


def _known_backend(backend, where):
    if backend not in list_backends():
        raise MXNetError(f"{where}: subgraph backend {backend!r} is not registered; registered backends: "
                         f"{list_backends()}")


def _default_backend(backend, where):
    if backend not in default.DEFAULT_BACKENDS:
        raise MXNetError(f"{where}: the property of backend {backend!r} takes no operator names; the "
                         f"operator-name properties are {list(default.DEFAULT_BACKENDS)}")


@c_api_function
def MXBuildSubgraphByOpNames(sym_handle, backend, count, names, out):
    """Partition the symbol behind ``sym_handle`` with the property of ``backend`` selecting
    the operators ``names``; the result's handle goes to ``out``."""
    backend = _text(backend, "MXBuildSubgraphByOpNames")
    _default_backend(backend, "MXBuildSubgraphByOpNames")
    symbol = object_of_handle(sym_handle, Symbol)
    result = build_subgraph(symbol, default.DefaultProperty(_names(count, names, "MXBuildSubgraphByOpNames")))
    give_handle(result, out)


@c_api_function
def MXSetSubgraphPropertyOpNamesV2(backend, count, names):
    """Give the property of ``backend`` the operator names to select."""
    backend = _text(backend, "MXSetSubgraphPropertyOpNamesV2")
    _known_backend(backend, "MXSetSubgraphPropertyOpNamesV2")
    default.set_op_names(backend, _names(count, names, "MXSetSubgraphPropertyOpNamesV2"))


@c_api_function
def MXRemoveSubgraphPropertyOpNamesV2(backend):
    """Remove the operator names of the property of ``backend``."""
    backend = _text(backend, "MXRemoveSubgraphPropertyOpNamesV2")
    _known_backend(backend, "MXRemoveSubgraphPropertyOpNamesV2")
    default.remove_op_names(backend)


@c_api_function
def MXSetSubgraphPropertyOpNames(backend, count, names):
    """MXNet's first form: the operator names of ``backend`` for binding."""
    backend = _text(backend, "MXSetSubgraphPropertyOpNames")
    _known_backend(backend, "MXSetSubgraphPropertyOpNames")
    default.BIND_OP_NAMES[backend] = frozenset(_names(count, names, "MXSetSubgraphPropertyOpNames"))


@c_api_function
def MXRemoveSubgraphPropertyOpNames(backend):
    """MXNet's first form: remove the binding operator names of ``backend``."""
    default.BIND_OP_NAMES.pop(_text(backend, "MXRemoveSubgraphPropertyOpNames"), None)


for _function in (MXBuildSubgraphByOpNames, MXSetSubgraphPropertyOpNamesV2, MXRemoveSubgraphPropertyOpNamesV2,
                  MXSetSubgraphPropertyOpNames, MXRemoveSubgraphPropertyOpNames):
    _LIB.provide(_function.__name__, _function)
