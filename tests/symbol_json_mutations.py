"""Structural mutations of MXNet symbol JSON graphs, shared by the property test
(``tests/test_symbol_json.py``, choices drawn by hypothesis) and the fuzz script
(``bench/fuzz_symbol_json.py``, choices drawn from ``random.Random``).

A mutation keeps the text valid JSON but breaks the graph: values of the wrong type,
missing keys, node indices out of range or pointing at the node itself or later nodes
(cycles), huge or malformed ``num_args`` / ``num_outputs``, malformed attribute strings,
operators swapped for other registered operators (so every operator's attribute parser
sees foreign attributes), old-format spellings, duplicated or reordered nodes.
"""
from __future__ import annotations

import copy
import json
import pathlib

DATA = pathlib.Path(__file__).resolve().parent / "data" / "symbol-json"

EDGE_INTEGERS = [-(2**63), -(2**31), -1, 0, 1, 2, 3, 7, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**64, 10**30]
BAD_ATTRIBUTE_STRINGS = [
    "", " ", "(", ")", "((1, 2)", "(1, 2", "[1, [2, 3]]", "(1, 'a')", "'a'", "None", "none", "True", "true",
    "-1", "0", "-0", "1e999", "-1e999", "nan", "inf", "1.5", "0x10", "1_000", "9" * 400, "(" + "1, " * 5000 + "1)",
    "(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)", "(-1, -2)", "(2147483648, 2147483648)", "\x00", "\u00e9\u03bb", "{}",
    "[]", "()", "(,)", "(None,)", "((((((((((((((((((((1))))))))))))))))))))", "[" * 300 + "]" * 300,
    "float32", "float128", "int8", "bool", "relu", "max", "NCHW", "NCDHW", "__import__('os')", "lambda: 0",
]
COUNT_STRINGS = ["0", "-1", "1", "2", "3", "1000", "65536", "1000000000", "1000000000000", "1e9", "2.5", "nan",
                 "inf", "-inf", "None", "", "x", "99999999999999999999999999"]
COUNT_KEYS = ["num_args", "num_outputs", "num_hidden", "num_filter", "num_layers", "state_size", "num_group",
              "axis", "dim", "shape", "kernel", "stride", "pad", "p", "scalar", "dtype", "act_type"]
OLD_NAMES = {"attrs": ["param", "attr"], "inputs": ["inputs"]}


class RandomChooser:
    """Draws choices from a ``random.Random``."""

    def __init__(self, rng):
        self.rng = rng

    def integer(self, low, high):
        return self.rng.randint(low, high)

    def choice(self, options):
        return options[self.rng.randrange(len(options))]


class HypothesisChooser:
    """Draws choices through hypothesis's ``data.draw`` (so failures shrink)."""

    def __init__(self, data):
        from hypothesis import strategies as st
        self.data = data
        self.st = st

    def integer(self, low, high):
        return self.data.draw(self.st.integers(low, high))

    def choice(self, options):
        return self.data.draw(self.st.sampled_from(list(options)))


def seed_graphs():
    """``{file name: graph}`` for every symbol-JSON fixture (the files as MXNet wrote them)."""
    index = json.loads((DATA / "index.json").read_text())
    return {case["file"]: json.loads((DATA / case["file"]).read_text(), strict=False) for case in index["cases"]}


def random_value(chooser, depth=0):
    """A JSON value of any type, biased to edge cases."""
    kind = chooser.choice(["null", "bool", "int", "float", "str", "list", "dict"] if depth < 3 else
                          ["null", "bool", "int", "float", "str"])
    if kind == "null":
        return None
    if kind == "bool":
        return chooser.choice([True, False])
    if kind == "int":
        return chooser.choice(EDGE_INTEGERS)
    if kind == "float":
        return chooser.choice([0.0, -1.5, 1e300, 3.0])
    if kind == "str":
        return chooser.choice(BAD_ATTRIBUTE_STRINGS + ["null", "FullyConnected", "data"])
    if kind == "list":
        return [random_value(chooser, depth + 1) for _ in range(chooser.integer(0, 3))]
    return {chooser.choice(["op", "name", "inputs", "attrs", "x"]): random_value(chooser, depth + 1)
            for _ in range(chooser.integer(0, 3))}


def _containers(value, path=()):
    """Every (path, container) pair inside ``value``."""
    found = []
    if isinstance(value, (dict, list)):
        found.append((path, value))
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, child in items:
            found.extend(_containers(child, path + (key,)))
    return found


def _node_dicts(graph):
    """The nodes of ``graph`` that are still objects (mutations may have broken the rest)."""
    nodes = graph.get("nodes") if isinstance(graph, dict) else None
    if not isinstance(nodes, list):
        return []
    return [n for n in nodes if isinstance(n, dict)]


def _op_nodes(graph):
    return [n for n in _node_dicts(graph) if n.get("op") not in (None, "null")]


def _entries(graph):
    """Every input or head entry (a list) in the graph."""
    entries = []
    if not isinstance(graph, dict):
        return entries
    nodes = graph.get("nodes")
    if isinstance(nodes, list):
        for node in nodes:
            if isinstance(node, dict) and isinstance(node.get("inputs"), list):
                entries.extend(e for e in node["inputs"] if isinstance(e, list))
    if isinstance(graph.get("heads"), list):
        entries.extend(e for e in graph["heads"] if isinstance(e, list))
    return entries


def _attribute_dicts(node):
    return [node[k] for k in ("attrs", "param", "attr") if isinstance(node.get(k), dict)]


def _some_attribute_dict(node, chooser):
    """One of the node's attribute objects, a new ``attrs`` object if it has none."""
    attrs = _attribute_dicts(node)
    if attrs:
        return chooser.choice(attrs)
    node["attrs"] = {}
    return node["attrs"]


def mutate_wrong_type(graph, chooser, operators):
    containers = _containers(graph)
    path, container = chooser.choice(containers)
    if isinstance(container, dict) and container:
        key = chooser.choice(sorted(container))
    elif isinstance(container, list) and container:
        key = chooser.integer(0, len(container) - 1)
    else:
        return
    container[key] = random_value(chooser)


def mutate_missing_key(graph, chooser, operators):
    dicts = [c for _, c in _containers(graph) if isinstance(c, dict) and c]
    if dicts:
        container = chooser.choice(dicts)
        del container[chooser.choice(sorted(container))]


def mutate_index(graph, chooser, operators):
    entries = _entries(graph)
    if entries:
        entry = chooser.choice(entries)
        if entry:
            position = chooser.integer(0, len(entry) - 1)
            count = len(graph.get("nodes", [])) if isinstance(graph.get("nodes"), list) else 0
            entry[position] = chooser.choice(EDGE_INTEGERS + [count, count - 1, count + 1])


def mutate_cycle(graph, chooser, operators):
    nodes = graph.get("nodes")
    if not isinstance(nodes, list) or not nodes:
        return
    position = chooser.integer(0, len(nodes) - 1)
    node = nodes[position]
    if not isinstance(node, dict):
        return
    target = chooser.choice([position, min(position + 1, len(nodes) - 1), len(nodes) - 1])
    inputs = node.get("inputs")
    if isinstance(inputs, list) and inputs and isinstance(inputs[0], list):
        inputs[chooser.integer(0, len(inputs) - 1)] = [target, 0, 0]
    else:
        node["inputs"] = [[target, 0, 0]]


def mutate_count(graph, chooser, operators):
    nodes = _op_nodes(graph)
    if nodes:
        node = chooser.choice(nodes)
        target = _some_attribute_dict(node, chooser)
        target[chooser.choice(COUNT_KEYS)] = chooser.choice(COUNT_STRINGS + BAD_ATTRIBUTE_STRINGS[:12])


def mutate_attribute_string(graph, chooser, operators):
    nodes = _node_dicts(graph)
    if not nodes:
        return
    node = chooser.choice(nodes)
    target = _some_attribute_dict(node, chooser)
    keys = sorted(target) + ["__shape__", "__dtype__", "__init__", "__lr_mult__", "lr_mult", "ctx_group",
                             "weight_lr_mult", "unknown_attribute", "__layout__"]
    target[chooser.choice(keys)] = chooser.choice(BAD_ATTRIBUTE_STRINGS)


PLAUSIBLE_VALUES = ["1", "2", "3", "(2, 2)", "(1, 1)", "(0, -1)", "(-1,)", "True", "False", "0.5", "1",
                    "float32", "relu", "max", "None", "NCHW", "valid", "sigmoid", "avg", "(3,)"]


def mutate_operator(graph, chooser, operators):
    """Swap a node's operator for another registered one with attributes from that
    operator's schema set to plausible or malformed strings (``operators`` maps each
    registered name to its attribute names)."""
    nodes = _node_dicts(graph)
    if not nodes:
        return
    node = chooser.choice(nodes)
    names = sorted(operators)
    node["op"] = chooser.choice(names + ["null", "NoSuchOperator", "", "Softmax", "split", "_Plus"])
    schema = sorted(operators.get(node["op"], ()))
    if schema and chooser.choice([True, True, False]):
        attrs = {}
        for _ in range(chooser.integer(0, min(4, len(schema)))):
            attrs[chooser.choice(schema)] = chooser.choice(PLAUSIBLE_VALUES + BAD_ATTRIBUTE_STRINGS + COUNT_STRINGS)
        node["attrs"] = attrs
        node.pop("param", None)
        node.pop("attr", None)


def mutate_old_format(graph, chooser, operators):
    kind = chooser.choice(["rename_attrs", "short_entries", "drop_version", "old_version", "drop_extras"])
    nodes = _node_dicts(graph)
    if kind == "rename_attrs" and nodes:
        node = chooser.choice(nodes)
        if "attrs" in node:
            node[chooser.choice(["param", "attr"])] = node.pop("attrs")
        node["backward_source_id"] = chooser.choice([-1, 0, "x"])
    elif kind == "short_entries":
        for entry in _entries(graph):
            del entry[2:]
    elif kind == "drop_version":
        graph.pop("attrs", None)
    elif kind == "old_version":
        graph["attrs"] = {"mxnet_version": ["int", chooser.choice([800, 900, 903, 904, 10000, 10900, 99999999])]}
    else:
        graph.pop("arg_nodes", None)
        graph.pop("node_row_ptr", None)


def mutate_reorder(graph, chooser, operators):
    nodes = graph.get("nodes") if isinstance(graph, dict) else None
    if not isinstance(nodes, list) or len(nodes) < 2:
        return
    first = chooser.integer(0, len(nodes) - 1)
    second = chooser.integer(0, len(nodes) - 1)
    if chooser.choice([True, False]):
        nodes[first], nodes[second] = nodes[second], nodes[first]
    else:
        nodes.insert(second, copy.deepcopy(nodes[first]))


MUTATIONS = [mutate_wrong_type, mutate_missing_key, mutate_index, mutate_cycle, mutate_count,
             mutate_attribute_string, mutate_operator, mutate_old_format, mutate_reorder]


def operator_schemas():
    """``{registered operator name: [attribute names]}`` from mxtorch's registry."""
    from mxtorch.ops import registry
    return {name: sorted(registry.get_operator(name).schema) for name in registry.list_operators()}


def mutated_text(graph, chooser, operators, max_mutations=4):
    """JSON text of ``graph`` after 1..max_mutations random structural mutations
    (``operators``: :func:`operator_schemas`)."""
    graph = copy.deepcopy(graph)
    for _ in range(chooser.integer(1, max_mutations)):
        mutation = chooser.choice(MUTATIONS)
        if not isinstance(graph, dict):
            break
        mutation(graph, chooser, operators)
    return json.dumps(graph, ensure_ascii=False)
