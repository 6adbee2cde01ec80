"""The graph under a Symbol: nodes (operator, name, attributes, input entries) and the walk
in MXNet's order.  The shape and type inference, the JSON reader and writer and the Symbol class
are built on it."""
from __future__ import annotations


class Node:
    """One graph node: ``op`` (an Operator, or None for a variable), ``name``, string ``attrs``
    (operator attributes plus hidden ``__key__`` attributes) and ``inputs`` (list of
    ``(Node, output_index)``)."""

    __slots__ = ("op", "name", "attrs", "inputs", "__weakref__")

    def __init__(self, op, name, attrs=None, inputs=()):
        self.op = op
        self.name = name
        self.attrs = dict(attrs or {})
        self.inputs = list(inputs)

    @property
    def is_variable(self):
        return self.op is None

    def num_outputs(self):
        return 1 if self.op is None else self.op.num_outputs()

    def output_names(self):
        if self.op is None:
            return [self.name]
        if not self.name:  # an atomic symbol (no name): the bare output names, as MXNet
            return list(self.op.outputs())
        return [f"{self.name}_{suffix}" for suffix in self.op.outputs()]

    def num_arguments(self):
        return len(self.inputs) if self.op is None else len(self.op.arguments())

    def __repr__(self):
        return f"Node({self.op.name if self.op else 'null'}, {self.name!r})"


def topological_order(entries, resolve=None):
    """Nodes reachable from ``entries`` in MXNet's order: depth-first, inputs in order, post-order.
    ``resolve(entry) -> entry``, when given, reads each input through it (the JSON writer skips
    amp casts that way without changing the graph)."""
    order = []
    visited = set()
    stack = []
    for node, _ in entries:
        if id(node) in visited:
            continue
        stack.append((node, 0))
        visited.add(id(node))
        while stack:
            current, position = stack.pop()
            if position < len(current.inputs):
                stack.append((current, position + 1))
                entry = current.inputs[position]
                child = (resolve(entry) if resolve is not None else entry)[0]
                if id(child) not in visited:
                    visited.add(id(child))
                    stack.append((child, 0))
            else:
                order.append(current)
    return order


def _aux_variable_ids(nodes):
    aux = set()
    for node in nodes:
        if node.op is None:
            continue
        count = len(node.op.arguments())
        for child, _ in node.inputs[count:]:
            if child.op is None:
                aux.add(id(child))
    return aux
