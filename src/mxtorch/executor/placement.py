"""Model-parallel placement (MXNet's ``group2ctx``): the context each node of a bound graph
runs on, and where bind allocates each variable."""
from __future__ import annotations

from ..base import MXNetError
from ..context import Context

__all__ = ["node_contexts", "variable_contexts"]


def node_contexts(symbol, ctx, group2ctx):
    """Model-parallel placement (MXNet's ``group2ctx``): ``{id(node): Context}`` for every node.

    An operator node whose ``__ctx_group__`` attribute (set with ``mx.AttrScope(ctx_group=...)``)
    names a key of ``group2ctx`` runs on that context, any other on ``ctx``.  A variable takes
    its own group's context, or else that of the first operator reading it, so parameters live
    where they are used.  ``group2ctx`` values are Contexts; MXNetError otherwise.
    """
    from ..symbol.symbol import topological_order
    nodes = topological_order(symbol._outputs)
    group2ctx = group2ctx or {}
    for group, value in group2ctx.items():
        if not isinstance(value, Context):
            raise MXNetError(f"bind: group2ctx[{group!r}] must be a Context such as mx.gpu(1), got {value!r}")
    placed = {}
    for node in nodes:
        group = node.attrs.get("__ctx_group__")
        if group in group2ctx:
            placed[id(node)] = group2ctx[group]
    for node in nodes:
        if node.op is None:
            continue
        placed.setdefault(id(node), ctx)
        for child, _ in node.inputs:
            if child.op is None:
                placed.setdefault(id(child), placed[id(node)])
    for node in nodes:
        placed.setdefault(id(node), ctx)
    return placed


def variable_contexts(symbol, ctx, group2ctx):
    """``{variable name: Context}`` of ``node_contexts`` (where bind allocates each array)."""
    from ..symbol.symbol import topological_order
    placed = node_contexts(symbol, ctx, group2ctx)
    return {node.name: placed[id(node)] for node in topological_order(symbol._outputs) if node.op is None}
