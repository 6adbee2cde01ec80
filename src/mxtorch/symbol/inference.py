"""Shape and dtype inference over a whole graph.

Each operator refines the partial shapes of its inputs and outputs
(``Operator.infer_shape``); the graph repeats forward and backward sweeps
until nothing changes, so shapes flow both ways as in MXNet (a parameter's
shape follows from the data, a ``_zeros`` begin state's batch size from the
node it feeds).
"""
from __future__ import annotations

import numpy as np

from ..base import MXNetError, dtype_name, parse_tuple, numpy_dtype, dtype_from_flag
from ..ops.registry import merge_shape
from .graph import topological_order, _aux_variable_ids

__all__ = ["infer_shapes", "infer_shapes_settled", "infer_types", "graph_shapes", "settled_entries"]



def _variable_entries(nodes, known, read_variable):
    """``{(id(node), 0): read_variable(node, known)}`` for the variables among ``nodes``: the
    starting point of the shape and dtype sweeps."""
    return {(id(node), 0): read_variable(node, known) for node in nodes if node.op is None}


def _arguments_outputs_auxiliaries(symbol, nodes, entries):
    """``(argument values, output values, auxiliary-state values)`` read from the per-entry
    ``entries`` (shapes or dtypes; None where unknown), in MXNet's list order."""
    aux = _aux_variable_ids(nodes)
    arguments = [entries.get((id(n), 0)) for n in nodes if n.op is None and id(n) not in aux]
    auxiliaries = [entries.get((id(n), 0)) for n in nodes if n.op is None and id(n) in aux]
    outputs = [entries.get((id(node), index)) for node, index in symbol._outputs]
    return arguments, outputs, auxiliaries


def _variable_shape(node, known):
    if node.name in known:
        value = known[node.name]
        return tuple(int(d) for d in value)
    text = node.attrs.get("__shape__")
    if text:
        shape = parse_tuple(text, "__shape__")
        if shape and all(d is not None for d in shape):
            return tuple(0 if d < 0 else d for d in shape)   # -1: unknown (NumPy shape semantics)
    return None


def graph_shapes(symbol, known):
    """Shapes of every entry: ``{(id(node), index): shape}`` plus the node list."""
    nodes = topological_order(symbol._outputs)
    shapes = _variable_entries(nodes, known, _variable_shape)
    for _ in range(2 * len(nodes) + 2):
        changed = False
        for sweep in (nodes, reversed(nodes)):
            for node in sweep:
                if node.op is None:
                    continue
                if _refine(node, shapes):
                    changed = True
        if not changed:
            break
    return nodes, shapes


def _refine(node, shapes):
    op = node.op
    count = len(op.arguments())
    in_keys = [(id(child), index) for child, index in node.inputs]
    in_shapes = [shapes.get(key) for key in in_keys[:count]]
    aux_keys = in_keys[count:]
    out_keys = [(id(node), i) for i in range(op.num_outputs())]
    out_shapes = [shapes.get(key) for key in out_keys]
    try:
        new_in, new_out, new_aux = op.infer_shape(list(in_shapes), list(out_shapes))
    except MXNetError as error:
        raise MXNetError(f"Error in operator {node.name} ({op.name}): {error}") from None
    changed = False
    names = op.arguments() + op.auxiliary_states()
    updates = list(zip(in_keys[:count], new_in, names)) + list(zip(aux_keys, new_aux, names[count:]))
    updates += [(key, value, f"output {i}") for i, (key, value) in enumerate(zip(out_keys, new_out))]
    for key, value, label in updates:
        if value is None:
            continue
        value = tuple(int(d) for d in value)
        old = shapes.get(key)
        try:
            merged = merge_shape(old, value, "")
        except MXNetError:
            raise MXNetError(f"Error in operator {node.name} ({op.name}): shape of {label!r} is inconsistent: "
                             f"inferred {value}, but it is {old}") from None
        if merged != old:
            shapes[key] = merged
            changed = True
    return changed


def infer_shapes(symbol, known):
    """``(arg_shapes, out_shapes, aux_shapes)`` lists with None or partial tuples."""
    nodes, shapes = graph_shapes(symbol, known)
    return _arguments_outputs_auxiliaries(symbol, nodes, shapes)


def infer_shapes_settled(symbol, known):
    """``(arg_shapes, out_shapes, aux_shapes)`` as :func:`infer_shapes`, and for each of the three
    lists a list of flags: True where the shape is known, its zero dimensions included (see
    :func:`settled_entries`)."""
    nodes, shapes = graph_shapes(symbol, known)
    settled = settled_entries(nodes, shapes)
    flags = {key: key in settled for key in shapes}
    return (_arguments_outputs_auxiliaries(symbol, nodes, shapes),
            _arguments_outputs_auxiliaries(symbol, nodes, flags))


def settled_entries(nodes, shapes):
    """The entries ``(id(node), index)`` whose inferred shape is known for certain.

    Inference spells an unknown dimension 0, so a zero-size result (``slice`` with begin past
    end gives ``(1, 0)``) reads like a partly unknown shape.  MXNet 1.9.1 told them apart and
    reported such a graph as fully inferred.  Here an entry is settled when its shape has no
    zero; when it is an operator's output (not None) and every input of that operator is
    settled; or when it is a variable, not None, that every operator reading it sees beside
    settled inputs only, one of them holding a zero dimension (the zero-size value it was
    inferred from: ``slice(...) + v``, the weight of a FullyConnected on an empty slice).  A
    zero dimension the user gave stays unknown, as MXNet reads 0 outside ``np_shape``."""
    settled = {key for key, shape in shapes.items() if shape is not None and all(d > 0 for d in shape)}
    readers = {}
    for node in nodes:
        if node.op is not None:
            for child, index in node.inputs:
                readers.setdefault((id(child), index), []).append(node)
    changed = True
    while changed:
        changed = False
        for node in nodes:
            if node.op is None:
                key = (id(node), 0)
                if key in settled or shapes.get(key) is None or key not in readers:
                    continue
                if all(_explains(reader, key, shapes, settled) for reader in readers[key]):
                    settled.add(key)
                    changed = True
                continue
            inputs = [(id(child), index) for child, index in node.inputs]
            if not all(key in settled for key in inputs):
                continue
            for index in range(node.op.num_outputs()):
                key = (id(node), index)
                if key not in settled and shapes.get(key) is not None:
                    settled.add(key)
                    changed = True
    return settled


def _explains(reader, key, shapes, settled):
    """Whether the other inputs of operator node ``reader`` are settled and one holds a zero."""
    others = [(id(child), index) for child, index in reader.inputs if (id(child), index) != key]
    return all(other in settled for other in others) and \
        any(0 in shapes[other] for other in others)


def _variable_type(node, known):
    if node.name in known:
        return numpy_dtype(known[node.name])
    text = node.attrs.get("__dtype__")
    if text is not None:
        # MXNet writes the type flag ("12"); older files and hand-written graphs the name
        return numpy_dtype(dtype_from_flag(text) if text.strip().lstrip("-").isdigit() else text)
    return None


def _type_conflict(node, key, in_keys, count, old, new):
    """MXNet 1.9.1's "Incompatible attr in node ... : expected <known>, got <inferred>" for the
    entry ``key`` of ``node`` whose known dtype ``old`` the operator's inference contradicts."""
    op = node.op
    if key[0] == id(node) and key not in in_keys:
        names = op.outputs()
        where = f"output {names[key[1]]!r}" if key[1] < len(names) else f"output {key[1]}"
    else:
        position = in_keys.index(key)
        names = list(op.arguments()) + list(op.auxiliary_states())
        name = names[position] if position < len(names) else f"input{position}"
        kind = "input" if position < count else "auxiliary state"
        where = f"{position}-th {kind} {name!r}"
    return (f"Error in operator {node.name} ({op.name}): Incompatible attr in node {node.name} at {where}: "
            f"expected {_dtype_text(old)}, got {_dtype_text(new)} (give the inputs one dtype, or cast one "
            f"with Cast)")


def _dtype_text(dtype):
    try:
        return dtype_name(dtype)
    except MXNetError:
        return np.dtype(dtype).name


def graph_types(symbol, known):
    """Dtypes of every entry of the graph of ``symbol`` from the known variable dtypes ``known``
    (``{name: dtype}``; ``__dtype__`` attributes too), inferred forward through each operator's
    ``infer_type``, as MXNet 1.9.1's InferType pass: ``(nodes, {(id(node), index): dtype})``.  A
    dtype that an operator infers for an entry already known as another dtype raises MXNetError
    naming the node, the entry and both dtypes, as MXNet did ("Incompatible attr in node ...:
    expected int32, got float32")."""
    nodes = topological_order(symbol._outputs)
    types = _variable_entries(nodes, known, _variable_type)
    for _ in range(3):
        changed = False
        for node in nodes:
            if node.op is None:
                continue
            op = node.op
            count = len(op.arguments())
            in_keys = [(id(child), index) for child, index in node.inputs]
            in_types = [types.get(key) for key in in_keys[:count]]
            try:
                new_in, new_out, new_aux = op.infer_type(in_types)
            except MXNetError as error:
                raise MXNetError(f"Error in operator {node.name} ({op.name}): {error}") from None
            pairs = list(zip(in_keys[:count], new_in)) + list(zip(in_keys[count:], new_aux)) + \
                [((id(node), i), t) for i, t in enumerate(new_out)]
            for key, value in pairs:
                if value is None:
                    continue
                value = np.dtype(value)
                old = types.get(key)
                if old is None:
                    types[key] = value
                    changed = True
                elif old != value:
                    raise MXNetError(_type_conflict(node, key, in_keys, count, old, value))
        if not changed:
            break
    return nodes, types


class GraphInference:
    """Shapes and dtypes of every entry of a graph, inferred once for a bind.

    ``nodes`` (topological order), ``shapes`` / ``types`` (``{(id(node), index): value}``);
    ``arg_shapes`` ... ``aux_types`` are read from them in MXNet's list order.  The executor
    builds its plan from the same object, so a bind infers the graph once."""

    __slots__ = ("nodes", "shapes", "types", "arg_shapes", "out_shapes", "aux_shapes", "arg_types",
                 "out_types", "aux_types")

    def __init__(self, symbol, nodes, shapes, types):
        self.nodes, self.shapes, self.types = nodes, shapes, types
        self.arg_shapes, self.out_shapes, self.aux_shapes = _arguments_outputs_auxiliaries(symbol, nodes, shapes)
        self.arg_types, self.out_types, self.aux_types = _arguments_outputs_auxiliaries(symbol, nodes, types)

    def matches(self, arg_shapes, aux_shapes):
        """True when the inferred argument and auxiliary shapes are these (tuples)."""
        return ([tuple(s or ()) for s in self.arg_shapes] == [tuple(s) for s in arg_shapes]
                and [tuple(s or ()) for s in self.aux_shapes] == [tuple(s) for s in aux_shapes])


def infer_graph(symbol, shapes, types):
    """:class:`GraphInference` from known input ``shapes`` and ``types`` (``{name: value}``).
    Inputs whose dtype nothing determines are float32, as MXNet's bind allocated them."""
    nodes, entry_shapes = graph_shapes(symbol, shapes)
    _, entry_types = graph_types(symbol, types)
    variables = [n for n in nodes if n.op is None]
    if any(entry_types.get((id(n), 0)) is None for n in variables):
        completed = {n.name: entry_types.get((id(n), 0)) or np.dtype(np.float32) for n in variables}
        _, entry_types = graph_types(symbol, completed)
    return GraphInference(symbol, nodes, entry_shapes, entry_types)


def infer_types(symbol, known):
    nodes, types = graph_types(symbol, known)
    return _arguments_outputs_auxiliaries(symbol, nodes, types)


def input_output_shapes(graph, in_shapes, where):
    """``(input shapes, output shapes)`` of the Symbol ``graph`` (a subgraph of ``_foreach``,
    ``_while_loop``, ``_cond``) from partial input shapes, one per ``list_inputs()`` entry (None
    where unknown).  ``where`` names the operator in the MXNetError of a conflict."""
    names = graph.list_inputs()
    known = {n: s for n, s in zip(names, in_shapes) if s is not None and len(s) and all(d > 0 for d in s)}
    # partially known inputs enter as variable shapes through the __shape__ route: merge them after
    nodes, shapes = graph_shapes(graph, known)
    variables = {n.name: shapes.get((id(n), 0)) for n in topological_order(graph._outputs) if n.op is None}
    inputs = [merge_shape(given, variables.get(name), f"Operator {where}: input {name!r}")
              for name, given in zip(names, in_shapes)]
    return inputs, [shapes.get((id(node), index)) for node, index in graph._outputs]


def input_output_types(graph, in_types):
    """``(input dtypes, output dtypes)`` of the Symbol ``graph`` from partial input dtypes."""
    names = graph.list_inputs()
    nodes, types = graph_types(graph, {n: t for n, t in zip(names, in_types) if t is not None})
    variables = {n.name: types.get((id(n), 0)) for n in topological_order(graph._outputs) if n.op is None}
    inputs = [given if given is not None else variables.get(name) for name, given in zip(names, in_types)]
    return inputs, [types.get((id(node), index)) for node, index in graph._outputs]
