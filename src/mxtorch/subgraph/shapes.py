"""Shape inference through a subgraph node in both directions: the shapes of the node's
outputs, when known, constrain the subgraph's inputs (``sin`` in a subgraph whose output is a
convolution's weight gets its input shape from the convolution), as MXNet inferred shapes over
the whole graph.  Registered with ``ops.subgraph_op.use_shape_solver``."""
from __future__ import annotations

from ..ops.registry import merge_shape
from ..symbol.graph import topological_order
from ..symbol.inference import _refine, _variable_entries, _variable_shape

__all__ = ["input_output_shapes"]


def input_output_shapes(graph, in_shapes, out_shapes, where):
    """``(input shapes, output shapes)`` of the Symbol ``graph`` from partial shapes of its
    ``list_inputs()`` and of its outputs (None where unknown); MXNetError naming ``where`` for
    a conflict."""
    names = graph.list_inputs()
    known = {n: s for n, s in zip(names, in_shapes) if s is not None and len(s) and all(d > 0 for d in s)}
    nodes = topological_order(graph._outputs)
    shapes = _variable_entries(nodes, known, _variable_shape)
    for (node, index), shape in zip(graph._outputs, out_shapes):
        key = (id(node), index)
        if shape is not None:
            shapes[key] = merge_shape(shapes.get(key), tuple(shape), f"Operator {where}: output")
    operators = [node for node in nodes if node.op is not None]
    for _ in range(2 * len(nodes) + 2):
        changed = [_refine(node, shapes) for sweep in (operators, operators[::-1]) for node in sweep]
        if not any(changed):
            break
    variables = {n.name: shapes.get((id(n), 0)) for n in nodes if n.op is None}
    inputs = [merge_shape(given, variables.get(name), f"Operator {where}: input {name!r}")
              for name, given in zip(names, in_shapes)]
    return inputs, [shapes.get((id(node), index)) for node, index in graph._outputs]
