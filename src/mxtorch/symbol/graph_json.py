"""Reading and writing MXNet's graph JSON (``-symbol.json``).

Writes the 1.x NNVM layout: ``nodes`` (op, name, attrs, inputs as
``[node_id, output_index, version]``), ``arg_nodes``, ``node_row_ptr``,
``heads`` and ``attrs.mxnet_version``.  Reads that layout and the older
spellings: ``param`` for operator attributes, ``attr`` for node attributes,
``backward_source_id``, no ``node_row_ptr``, two-element input entries.
"""
from __future__ import annotations

import json

from ..base import MXNetError
from ..ops import registry

MXNET_VERSION = 10901
_AMP_CASTS = ("amp_cast", "amp_multicast")


def to_json(symbol, remove_amp_cast=True):
    from .symbol import topological_order
    outputs = symbol._outputs
    if remove_amp_cast:
        outputs = _strip_amp_casts(outputs)
    nodes = topological_order(outputs)
    index_of = {id(node): i for i, node in enumerate(nodes)}
    records = []
    arg_nodes = []
    row_pointer = [0]
    for i, node in enumerate(nodes):
        record = {"op": "null" if node.op is None else node.op.name, "name": node.name}
        if node.attrs:
            record["attrs"] = {k: node.attrs[k] for k in sorted(node.attrs)}
        record["inputs"] = [[index_of[id(child)], index, 0] for child, index in node.inputs]
        records.append(record)
        if node.op is None:
            arg_nodes.append(i)
        row_pointer.append(row_pointer[-1] + node.num_outputs())
    graph = {
        "nodes": records,
        "arg_nodes": arg_nodes,
        "node_row_ptr": row_pointer,
        "heads": [[index_of[id(node)], index, 0] for node, index in outputs],
        "attrs": {"mxnet_version": ["int", MXNET_VERSION]},
    }
    return _dumps(graph)


def _dumps(graph):
    # MXNet's writer puts each node on several lines and short lists on one; any layout parses the same
    lines = ["{", '  "nodes": [']
    node_texts = []
    for record in graph["nodes"]:
        parts = [f'      "op": {json.dumps(record["op"])}', f'      "name": {json.dumps(record["name"])}']
        if "attrs" in record:
            parts.append(f'      "attrs": {json.dumps(record["attrs"])}')
        parts.append(f'      "inputs": {json.dumps(record["inputs"])}')
        node_texts.append("    {\n" + ", \n".join(parts) + "\n    }")
    lines.append(", \n".join(node_texts))
    lines.append("  ], ")
    lines.append(f'  "arg_nodes": {json.dumps(graph["arg_nodes"])}, ')
    lines.append(f'  "node_row_ptr": {json.dumps(graph["node_row_ptr"])}, ')
    lines.append(f'  "heads": {json.dumps(graph["heads"])}, ')
    lines.append(f'  "attrs": {json.dumps(graph["attrs"])}')
    lines.append("}")
    return "\n".join(lines)


def _strip_amp_casts(outputs):
    from .symbol import topological_order
    nodes = topological_order(outputs)
    replace = {}
    for node in nodes:
        node.inputs = [replace.get((id(child), index), (child, index)) for child, index in node.inputs]
        if node.op is not None and node.op.name in _AMP_CASTS:
            for position, entry in enumerate(node.inputs[:node.op.num_outputs()]):
                replace[(id(node), position)] = entry
    return [replace.get((id(node), index), (node, index)) for node, index in outputs]


def from_json(text):
    from .symbol import Node, Symbol
    try:
        graph = json.loads(text)
    except (ValueError, TypeError) as error:
        raise MXNetError(f"symbol JSON is not valid JSON: {error}") from None
    if not isinstance(graph, dict) or not isinstance(graph.get("nodes"), list) or "heads" not in graph:
        raise MXNetError("symbol JSON must be an object with 'nodes' and 'heads'")
    nodes = []
    for position, record in enumerate(graph["nodes"]):
        if not isinstance(record, dict) or "op" not in record or "name" not in record:
            raise MXNetError(f"symbol JSON node {position} needs 'op' and 'name', got {record!r:.200}")
        op_name = record["op"]
        name = record["name"]
        attrs = {}
        for key in ("param", "attr", "attrs"):
            value = record.get(key)
            if value:
                if not isinstance(value, dict):
                    raise MXNetError(f"symbol JSON node {name!r}: {key!r} must be an object")
                attrs.update({str(k): str(v) for k, v in value.items()})
        inputs = []
        for entry in record.get("inputs", []):
            if not isinstance(entry, list) or len(entry) < 2:
                raise MXNetError(f"symbol JSON node {name!r}: bad input entry {entry!r}")
            source, index = int(entry[0]), int(entry[1])
            if not 0 <= source < len(nodes):
                raise MXNetError(f"symbol JSON node {name!r}: input refers to node {source}, "
                                 f"which is not defined before it")
            inputs.append((nodes[source], index))
        if op_name == "null":
            nodes.append(Node(None, name, attrs, []))
            continue
        try:
            op_class = registry.get_operator(op_name)
        except MXNetError:
            raise MXNetError(f"symbol JSON node {name!r} uses operator {op_name!r}, "
                             f"which mxtorch does not implement") from None
        op_attrs = {k: v for k, v in attrs.items() if not (k.startswith("__") and k.endswith("__"))}
        op_attrs = _drop_legacy_attrs(op_class, op_attrs)
        try:
            op = op_class(op_attrs)
        except MXNetError as error:
            raise MXNetError(f"symbol JSON node {name!r}: {error}") from None
        expected = len(op.arguments()) + len(op.auxiliary_states())
        if len(inputs) != expected:
            raise MXNetError(f"symbol JSON node {name!r} ({op_name}) has {len(inputs)} inputs, the operator "
                             f"takes {expected}: {op.arguments() + op.auxiliary_states()}")
        node_attrs = dict(op.attrs)
        node_attrs.update({k: v for k, v in attrs.items() if k.startswith("__") and k.endswith("__")})
        nodes.append(Node(op, name, node_attrs, inputs))
    heads = []
    for entry in graph["heads"]:
        if not isinstance(entry, list) or len(entry) < 2 or not 0 <= int(entry[0]) < len(nodes):
            raise MXNetError(f"symbol JSON: bad head entry {entry!r}")
        node = nodes[int(entry[0])]
        if int(entry[1]) >= node.num_outputs():
            raise MXNetError(f"symbol JSON: head {entry!r} refers to output {entry[1]} of node {node.name!r}, "
                             f"which has {node.num_outputs()}")
        heads.append((node, int(entry[1])))
    return Symbol(heads)


def _drop_legacy_attrs(op_class, attrs):
    """Old JSON files carry attributes that later MXNet versions dropped; MXNet ignored them too."""
    legacy = getattr(op_class, "legacy_attributes", ())
    return {k: v for k, v in attrs.items() if k not in legacy}
