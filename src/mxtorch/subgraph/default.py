"""MXNet 1.9.1's ``default`` and ``default_v2`` subgraph properties: subgraphs of the operators
named in a set, each run by a ``_CachedOp`` node named ``_CachedOp<i>``.

The set of operator names comes from the C API, as in MXNet's tests:
``MXSetSubgraphPropertyOpNamesV2(backend, n, names)`` gives it to the backend (``optimize_for``,
``get_backend_symbol``, ``HybridBlock.hybridize(backend=...)``) until
``MXRemoveSubgraphPropertyOpNamesV2(backend)``; ``MXBuildSubgraphByOpNames(sym, backend, n,
names, byref(out))`` partitions one symbol with the names given.  A node is selected when its
operator's name (as written to symbol JSON: ``elemwise_add`` for ``a + b``) is in the set;
variables never are.  ``MXSetSubgraphPropertyOpNames`` / ``MXRemoveSubgraphPropertyOpNames``
(MXNet's first form, read by the executor under ``MXNET_SUBGRAPH_BACKEND``) keep their own set.
"""
from __future__ import annotations

from ..base import MXNetError
from ..ops.subgraph_op import CachedOp
from ..symbol.graph import Node
from ..symbol.subgraph_backends import register_backend
from .partition import SubgraphProperty, SubgraphSelector, build_subgraph

__all__ = ["ContainOpSelector", "DefaultProperty", "DefaultBackend", "set_op_names", "remove_op_names",
           "op_names_of", "BIND_OP_NAMES"]

DEFAULT_BACKENDS = ("default", "default_v2")

_OP_NAMES = {}
"""Backend name -> the operator names set by ``MXSetSubgraphPropertyOpNamesV2``."""

BIND_OP_NAMES = {}
"""Backend name -> the operator names set by ``MXSetSubgraphPropertyOpNames`` (MXNet's first form)."""


def set_op_names(backend, names):
    """Give the property of ``backend`` the operator names ``names``."""
    _OP_NAMES[backend] = frozenset(names)


def remove_op_names(backend):
    """Forget the operator names of ``backend`` (nothing happens when none were set)."""
    _OP_NAMES.pop(backend, None)


def op_names_of(backend, where):
    """The operator names set for ``backend``; MXNetError, as MXNet's, when none are set."""
    try:
        return _OP_NAMES[backend]
    except KeyError:
        raise MXNetError(f"{where}: Cannot find attribute op_names in SubgraphProperty of backend {backend!r} "
                         f"(set them with MXSetSubgraphPropertyOpNamesV2)") from None


def _operator_name(node):
    return None if node.op is None else node.op.json_name


class ContainOpSelector(SubgraphSelector):
    """Selects the operator nodes whose operator is in ``op_names``, growing through inputs and
    outputs alike (MXNet's ``ContainOpSelector``)."""

    def __init__(self, op_names):
        self.op_names = frozenset(op_names)

    def select(self, node):
        return _operator_name(node) in self.op_names

    def select_input(self, node, input_node):
        return _operator_name(input_node) in self.op_names

    def select_output(self, node, output_node):
        return _operator_name(output_node) in self.op_names


class DefaultProperty(SubgraphProperty):
    """The ``default`` property: every subgraph of the selected operators becomes a
    ``_CachedOp`` node named ``_CachedOp<subgraph id>`` holding the subgraph."""

    def __init__(self, op_names):
        self.op_names = frozenset(op_names)

    def create_selector(self):
        return ContainOpSelector(self.op_names)

    def create_subgraph_node(self, symbol, selector, subgraph_id):
        op = CachedOp()
        op.subgraphs = [symbol]
        return Node(op, f"_CachedOp{subgraph_id}", {}, [])

    def connect_inputs(self, node, entries):
        entries = list(entries)
        if node.op.aux_repeated:
            # an auxiliary state before an argument: every input as an argument, then the
            # auxiliary states again (see ops/subgraph_op.py)
            names, flags, _ = node.op._inputs_layout()
            entries = entries + [entry for entry, is_aux in zip(entries, flags) if is_aux]
        node.inputs = entries


class DefaultBackend:
    """The backend ``optimize_for`` / ``get_backend_symbol`` reach under ``name``."""

    def __init__(self, name):
        self.name = name

    def partition(self, symbol, args, aux, options):
        """``symbol`` partitioned with the operator names set for this backend; the option
        ``dedup_subgraph`` shares one input per entry; ``args`` / ``aux`` stay as they are
        (the property adds no parameters)."""
        names = op_names_of(self.name, "optimize_for")
        return build_subgraph(symbol, DefaultProperty(names), dedup=_flag(options.get("dedup_subgraph", False)))


def _flag(value):
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true")
    return bool(value)


for _name in DEFAULT_BACKENDS:
    register_backend(_name, DefaultBackend(_name))
