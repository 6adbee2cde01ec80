"""Reading and writing MXNet's graph JSON (``-symbol.json``).

Writing produces the MXNet 1.9.1 (NNVM) layout, byte for byte as MXNet's own
writer lays it out: ``nodes`` (``op``, ``name``, ``attrs`` when there are any,
``inputs`` as ``[node_id, output_index, version]``), ``arg_nodes``,
``node_row_ptr``, ``heads`` and ``attrs.mxnet_version = ["int", 10901]``.

Reading accepts that layout and everything older MXNet versions wrote, and
upgrades old files the way MXNet 1.9.1 does:

* ``param`` (operator attributes) and ``attr`` (node attributes) instead of
  ``attrs``; ``backward_source_id``; no ``node_row_ptr`` / ``arg_nodes``;
  two-element input entries (version 0); no ``mxnet_version`` (0.8.0).
* Files older than 1.9.1: the attribute keys ``ctx_group``, ``lr_mult``,
  ``wd_mult``, ``force_mirroring`` and ``mirror_stage`` become their hidden
  ``__key__`` form, and an operator attribute ``<input>_<key>`` (for example
  ``weight_lr_mult`` on a FullyConnected node) moves to the variable bound to
  that input as ``__<key>__``.
* Files older than 0.9.0: operators saved without their auxiliary-state
  inputs (BatchNorm's ``moving_mean`` / ``moving_var``) get them as new
  variables ``<node>_<state>`` carrying a copy of the node's attributes.
* Files older than 0.9.4: variables bound to operator inputs get the
  attributes the operator sets on its input variables when composed (MXNet's
  ``FSetInputVarAttrOnCompose``; BatchNorm's ``__init__`` for its statistics).
  An operator declares them with a method ``input_variable_attrs(input_name)``
  returning ``{key: value}``; values already present are kept.

The version field of each input entry is kept as read, so a file loaded and
saved again is unchanged; graphs built in Python get MXNet's versions (each
auxiliary-state use of a variable counts one up).

Operator names resolve through the registry, aliases and deprecated names
included (``Softmax``, ``split``, ``_Plus``); nodes are written under the
registered name.  A node whose operator mxtorch does not implement fails at
load with an MXNetError naming the operator and the node.

Every malformed input (bad JSON, wrong types, missing keys, node indices out
of range or pointing forward, which also rules out cycles, wrong input counts,
bad attribute strings) raises MXNetError; nothing else escapes ``from_json``.
"""
from __future__ import annotations

import json
import numbers
import weakref

from ..base import MXNetError
from ..ops import registry
from .graph import Node, topological_order

__all__ = ["to_json", "from_json", "HIDDEN_KEYS", "hidden_key", "hide_keys", "reported_attributes",
           "set_input_variable_attrs", "MXNET_VERSION"]

MXNET_VERSION = 10901
_VERSION_0_8_0 = 800
_VERSION_0_9_0 = 900
_VERSION_0_9_4 = 904

#: Attribute keys MXNet stores in hidden ``__key__`` form but also reports (in
#: ``list_attr`` / ``attr_dict``) and accepts (in ``attr``) under the plain name.
HIDDEN_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage")

#: Attributes that count inputs or outputs of one node; a larger value is rejected at load
#: before the operator lists its inputs or outputs (a corrupt file must not allocate them).
_COUNT_ATTRIBUTES = ("num_args", "num_outputs")
_MAX_OUTPUTS_PER_NODE = 1 << 16

# input-entry versions read from a file: node -> tuple of (input node, output index, version)
_ENTRY_VERSIONS = weakref.WeakKeyDictionary()


# -- attribute keys ----------------------------------------------------------------------------------
def hidden_key(key):
    """``key`` as MXNet stores it: ``lr_mult`` -> ``__lr_mult__`` for the keys in
    :data:`HIDDEN_KEYS`, any other key unchanged (MXNet's ``MXSymbolSetAttr``)."""
    return f"__{key}__" if key in HIDDEN_KEYS else key


def hide_keys(attrs):
    """A copy of ``attrs`` with :data:`HIDDEN_KEYS` in their ``__key__`` form."""
    return {hidden_key(key): value for key, value in attrs.items()}


def reported_attributes(attrs):
    """The attributes of one node as MXNet 1.9.1's ``list_attr`` / ``attr_dict`` report
    them: every stored key, plus the plain name of each hidden key of :data:`HIDDEN_KEYS`
    (``__lr_mult__`` is reported both as ``__lr_mult__`` and ``lr_mult``; ``__init__``,
    ``__shape__`` and ``__dtype__`` only as stored)."""
    result = {}
    for key, value in attrs.items():
        result[key] = value
        if key.startswith("__") and key.endswith("__") and key[2:-2] in HIDDEN_KEYS:
            result[key[2:-2]] = value
    return result


def _is_hidden(key):
    return len(key) > 4 and key.startswith("__") and key.endswith("__")


# -- writing -----------------------------------------------------------------------------------------
def to_json(symbol, remove_amp_cast=True, graph_attrs=True):
    """The graph of ``symbol`` as MXNet 1.9.1 writes it (``Symbol.tojson``).

    ``remove_amp_cast`` drops ``amp_cast`` / ``amp_multicast`` nodes read by other nodes (their
    consumers read the cast's input instead); a cast that is itself an output of ``symbol``
    stays, as in MXNet's RemoveAmpCast pass.  ``symbol`` itself is not changed.  A node whose operator runs
    subgraphs (``_foreach``, ``_while_loop``, ``_cond``) carries them under ``"subgraphs"``,
    each written as a graph without the ``attrs`` block (``graph_attrs=False``), as MXNet does.
    """
    outputs = list(symbol._outputs)
    replace = _amp_cast_replacements(outputs) if remove_amp_cast else {}

    def resolve(entry):
        node, index = entry
        return replace.get((id(node), index), entry)

    # visit with amp casts bypassed, without touching the nodes' own inputs
    order = topological_order(outputs, resolve) if replace else topological_order(outputs)
    index_of = {id(node): i for i, node in enumerate(order)}
    mutation_count = {}
    records = []
    arg_nodes = []
    row_pointer = [0]
    for position, node in enumerate(order):
        inputs = [resolve(entry) for entry in node.inputs]
        versions = _entry_versions(node, inputs, mutation_count)
        order = None if node.op is None else node.op.json_input_order()
        if order is not None:
            inputs, versions = [inputs[i] for i in order], [versions[i] for i in order]
        records.append((node, [(index_of[id(child)], index, version)
                               for (child, index), version in zip(inputs, versions)]))
        if node.op is None:
            arg_nodes.append(position)
        row_pointer.append(row_pointer[-1] + node.num_outputs())
    head_entries = [(index_of[id(node)], index, 0) for node, index in outputs]
    return _write_graph(records, arg_nodes, row_pointer, head_entries, remove_amp_cast, graph_attrs)


def _amp_cast_replacements(outputs):
    """``{(id(cast_node), output): entry}``: what each amp-cast output stands for."""
    replace = {}
    for node in topological_order(outputs):
        if node.op is None or not node.op.is_amp_cast:
            continue
        for position, entry in enumerate(node.inputs[:node.num_outputs()]):
            child, index = entry
            replace[(id(node), position)] = replace.get((id(child), index), entry)
    return replace


def _entry_versions(node, inputs, mutation_count):
    """Version of each input entry: as read from a file when the inputs are unchanged
    since, otherwise MXNet's rule (a variable's version counts its uses as a mutated
    auxiliary-state input so far)."""
    recorded = _ENTRY_VERSIONS.get(node)
    if recorded is not None and len(recorded) == len(inputs) and all(
            child is recorded_child and index == recorded_index
            for (child, index), (recorded_child, recorded_index, _) in zip(inputs, recorded)):
        return [version for _, _, version in recorded]
    versions = [0] * len(inputs)
    if node.op is not None:
        first_aux = len(node.op.arguments())
        for position in range(first_aux, len(inputs)):
            child = inputs[position][0]
            if child.op is None:
                mutation_count[id(child)] = mutation_count.get(id(child), 0) + 1
                versions[position] = mutation_count[id(child)]
    return versions


def _string(text):
    """A JSON string as MXNet's writer escapes it (``\\r \\n \\t \\\\ \\"`` only; other
    characters, UTF-8 included, are written as they are, which MXNet's reader expects)."""
    escaped = (text.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "\\r")
               .replace("\n", "\\n").replace("\t", "\\t"))
    return f'"{escaped}"'


def _int_array(values, indent):
    # MXNet's writer puts arrays of plain values on one line up to 10 items, else one per line
    if len(values) <= 10:
        return "[" + ", ".join(values) + "]"
    inner = " " * (indent + 2)
    return "[\n" + ", \n".join(inner + v for v in values) + "\n" + " " * indent + "]"


def _entries(entries, indent):
    return _int_array([f"[{n}, {i}, {v}]" for n, i, v in entries], indent)


def _subgraphs_text(op, remove_amp_cast):
    """The ``"subgraphs"`` field of a node running subgraphs, indented as MXNet writes it."""
    texts = []
    for graph in getattr(op, "subgraphs", None) or ():
        text = to_json(graph, remove_amp_cast, graph_attrs=False)
        texts.append("\n".join(" " * 8 + line for line in text.split("\n")))
    return '"subgraphs": [\n' + ", \n".join(texts) + "\n      ]"


def _write_graph(records, arg_nodes, row_pointer, head_entries, remove_amp_cast=True, graph_attrs=True):
    node_texts = []
    for node, inputs in records:
        fields = [f'"op": {_string("null" if node.op is None else node.op.json_name)}',
                  f'"name": {_string(node.name)}']
        if node.attrs:
            keys = sorted(node.attrs)
            items = [f"{_string(key)}: {_string(str(node.attrs[key]))}" for key in keys]
            if len(items) == 1:
                fields.append('"attrs": {' + items[0] + "}")
            else:
                fields.append('"attrs": {\n' + ", \n".join(" " * 8 + item for item in items) + "\n      }")
        fields.append(f'"inputs": {_entries(inputs, 6)}')
        if node.op is not None and getattr(node.op, "subgraphs", None):
            fields.append(_subgraphs_text(node.op, remove_amp_cast))
        node_texts.append("    {\n" + ", \n".join(" " * 6 + field for field in fields) + "\n    }")
    nodes_text = "[\n" + ", \n".join(node_texts) + "\n  ]" if node_texts else "[]"
    lines = [
        "{",
        f'  "nodes": {nodes_text}, ',
        f'  "arg_nodes": {_int_array([str(i) for i in arg_nodes], 2)}, ',
        f'  "node_row_ptr": {_int_array([str(i) for i in row_pointer], 2)}, ',
        f'  "heads": {_entries(head_entries, 2)}' + (", " if graph_attrs else ""),
    ] + ([_graph_attrs_text()] if graph_attrs else []) + [
        "}",
    ]
    return "\n".join(lines)


# -- reading -----------------------------------------------------------------------------------------
def _graph_attrs_text():
    """The graph ``attrs`` block; under NumPy shape semantics MXNet also wrote ``is_np_shape``."""
    from ..util import is_np_shape
    if is_np_shape():
        return ('  "attrs": {\n    "is_np_shape": ["int", 1], \n'
                f'    "mxnet_version": ["int", {MXNET_VERSION}]\n  }}')
    return f'  "attrs": {{"mxnet_version": ["int", {MXNET_VERSION}]}}'


def from_json(text, symbol_class):
    """A Symbol (an instance of ``symbol_class``, made from the list of output entries) from
    MXNet graph JSON (any MXNet 1.x or older layout; see the module docstring).  Raises
    MXNetError naming the node and what is wrong for any malformed input, and for an operator
    mxtorch does not implement."""
    graph = _parse(text)
    version = _file_version(graph)
    records = graph["nodes"]
    nodes = []
    for position, record in enumerate(records):
        nodes.append(_read_node(record, position, nodes, version, symbol_class))
    heads = graph["heads"]
    if not isinstance(heads, list) or not heads:
        raise MXNetError(f"symbol JSON: 'heads' must be a non-empty list of [node, output] entries, "
                         f"got {_short(heads)}")
    outputs = []
    for entry in heads:
        source, index, _ = _entry(entry, "symbol JSON: head", len(nodes))
        node = nodes[source]
        if index >= node.num_outputs():
            raise MXNetError(f"symbol JSON: head {_short(entry)} refers to output {index} of node "
                             f"{node.name!r}, which has {node.num_outputs()} output(s)")
        outputs.append((node, index))
    return symbol_class(outputs)


def _parse(text):
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as error:
            raise MXNetError(f"symbol JSON is not UTF-8 text: {error}") from None
    if not isinstance(text, str):
        raise MXNetError(f"symbol JSON must be a str, got {type(text).__name__}")
    try:
        # strict=False: MXNet's writer leaves control characters in strings unescaped
        graph = json.loads(text, strict=False)
    except RecursionError:
        raise MXNetError("symbol JSON is nested too deeply to be a graph") from None
    except ValueError as error:
        raise MXNetError(f"symbol JSON is not valid JSON: {error}") from None
    if not isinstance(graph, dict):
        raise MXNetError(f"symbol JSON must be an object with 'nodes' and 'heads', got {type(graph).__name__}")
    for key in ("nodes", "heads"):
        if key not in graph:
            raise MXNetError(f"symbol JSON has no {key!r} entry (keys: {sorted(graph)[:10]})")
    if not isinstance(graph["nodes"], list):
        raise MXNetError(f"symbol JSON: 'nodes' must be a list, got {type(graph['nodes']).__name__}")
    return graph


def _file_version(graph):
    """The writer's MXNet version as an int (``10901`` for 1.9.1); 0.8.0 when absent."""
    attrs = graph.get("attrs")
    if attrs is None:
        return _VERSION_0_8_0
    if not isinstance(attrs, dict):
        raise MXNetError(f"symbol JSON: graph 'attrs' must be an object, got {_short(attrs)}")
    value = attrs.get("mxnet_version")
    if value is None:
        return _VERSION_0_8_0
    if (isinstance(value, list) and len(value) == 2 and value[0] == "int" and _is_int(value[1])):
        return value[1]
    raise MXNetError(f"symbol JSON: 'mxnet_version' must be [\"int\", <version>], got {_short(value)}")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _short(value, limit=120):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _entry(entry, where, node_count):
    """``(node_id, output_index, version)`` from ``[node, index]`` or ``[node, index, version]``."""
    if not isinstance(entry, list) or len(entry) not in (2, 3) or not all(_is_int(v) for v in entry):
        raise MXNetError(f"{where}: an entry must be [node, output] or [node, output, version] of "
                         f"integers, got {_short(entry)}")
    source, index = entry[0], entry[1]
    version = entry[2] if len(entry) == 3 else 0
    if not 0 <= source < node_count:
        raise MXNetError(f"{where}: entry {_short(entry)} refers to node {source}; only nodes 0.."
                         f"{node_count - 1} are defined before it")
    if index < 0 or version < 0:
        raise MXNetError(f"{where}: entry {_short(entry)} has a negative output index or version")
    return source, index, version


def _attributes(record, name):
    """The node's string attributes from ``param``, ``attr`` and ``attrs`` (later wins)."""
    attrs = {}
    for key in ("param", "attr", "attrs"):
        value = record.get(key)
        if value is None:
            continue
        if not isinstance(value, dict):
            raise MXNetError(f"symbol JSON node {name!r}: {key!r} must be an object of strings, "
                             f"got {_short(value)}")
        for attribute, text in value.items():
            if isinstance(text, bool):
                text = "True" if text else "False"
            elif isinstance(text, numbers.Real):
                text = repr(text) if isinstance(text, float) else str(text)
            elif not isinstance(text, str):
                raise MXNetError(f"symbol JSON node {name!r}: attribute {attribute!r} must be a string, "
                                 f"got {_short(text)}")
            attrs[attribute] = text
    return attrs


def _read_node(record, position, nodes, version, symbol_class):
    if not isinstance(record, dict):
        raise MXNetError(f"symbol JSON node {position} must be an object, got {_short(record)}")
    op_name = record.get("op")
    name = record.get("name")
    if not isinstance(op_name, str) or not isinstance(name, str):
        raise MXNetError(f"symbol JSON node {position} needs string 'op' and 'name', got "
                         f"op={_short(op_name)} name={_short(name)}")
    attrs = _attributes(record, name)
    raw_inputs = record.get("inputs", [])
    if not isinstance(raw_inputs, list):
        raise MXNetError(f"symbol JSON node {name!r}: 'inputs' must be a list, got {_short(raw_inputs)}")
    entries = [_entry(entry, f"symbol JSON node {name!r} input", position) for entry in raw_inputs]
    if version < MXNET_VERSION:
        attrs = hide_keys(attrs)
    if op_name == "null":
        if entries:
            raise MXNetError(f"symbol JSON node {name!r}: a variable (op 'null') cannot have inputs")
        return Node(None, name, attrs, [])

    inputs = []
    for source, index, _ in entries:
        child = nodes[source]
        if index >= child.num_outputs():
            raise MXNetError(f"symbol JSON node {name!r}: input [{source}, {index}] refers to output "
                             f"{index} of node {child.name!r}, which has {child.num_outputs()} output(s)")
        inputs.append((child, index))
    versions = [entry_version for _, _, entry_version in entries]

    try:
        op_class = registry.get_operator(op_name)
    except MXNetError:
        raise MXNetError(f"symbol JSON node {name!r} uses operator {op_name!r}, "
                         f"which mxtorch does not implement") from None
    hidden = {k: v for k, v in attrs.items() if _is_hidden(k)}
    op_attrs = _drop_legacy_attrs(op_class, {k: v for k, v in attrs.items() if not _is_hidden(k)})
    # old files: '<input>_<hidden key>' attributes belong to the variable bound to that input
    transfers = {}
    if version < MXNET_VERSION:
        for key in list(op_attrs):
            if key not in op_class.schema and any(key.endswith("_" + h) for h in HIDDEN_KEYS):
                transfers[key] = op_attrs.pop(key)
    _check_counts(op_class, op_attrs, name, len(inputs))
    op, arguments, auxiliary = _make_operator(op_class, op_attrs, name, op_name)
    read_subgraphs = "subgraphs" in record
    if read_subgraphs:
        # the subgraphs can fix the operator's inputs (the subgraph operators)
        op.subgraphs = _read_subgraphs(record, name, op, symbol_class)
        arguments, auxiliary = list(op.arguments()), list(op.auxiliary_states())

    input_names = arguments + auxiliary
    order = op.json_input_order()
    if order is not None and len(order) == len(inputs):
        # MXNet's input order -> arguments then auxiliary states
        placed, placed_versions = [None] * len(inputs), [0] * len(inputs)
        for json_position, position in enumerate(order):
            placed[position], placed_versions[position] = inputs[json_position], versions[json_position]
        inputs, versions = placed, placed_versions
    for key, value in transfers.items():
        target = next((i for i, input_name in enumerate(input_names)
                       if any(key == f"{input_name}_{h}" for h in HIDDEN_KEYS)), None)
        if target is None:
            valid = ", ".join(sorted(op_class.schema)) or "none"
            raise MXNetError(f"symbol JSON node {name!r}: Operator {op.name}: unknown attribute {key!r} "
                             f"(valid attributes: {valid})")
        if target < len(inputs) and inputs[target][0].op is None:
            inputs[target][0].attrs[hidden_key(key[len(input_names[target]) + 1:])] = value

    if len(inputs) == len(arguments) and auxiliary and version < _VERSION_0_9_0:
        # files from MXNet 0.8 list no auxiliary states: add them as 1.9.1 does on load
        node_attrs = dict(op.attrs)
        node_attrs.update(hidden)
        for state in auxiliary:
            variable = Node(None, f"{name}_{state}", dict(node_attrs), [])
            inputs.append((variable, 0))
            versions.append(0)
            set_input_variable_attrs(op, state, variable)
    if len(inputs) != len(input_names):
        raise MXNetError(f"symbol JSON node {name!r} ({op_name}) has {len(inputs)} inputs, the operator "
                         f"takes {len(input_names)}: {input_names}")
    if version < _VERSION_0_9_4:
        for input_name, (child, _) in zip(input_names, inputs):
            if child.op is None:
                set_input_variable_attrs(op, input_name, child)

    if not read_subgraphs and hasattr(op, "subgraphs"):
        op.subgraphs = _read_subgraphs(record, name, op, symbol_class)
    node_attrs = dict(op.attrs)
    node_attrs.update(hidden)
    node = Node(op, name, node_attrs, inputs)
    try:
        node.num_outputs()
    except MXNetError as error:
        raise MXNetError(f"symbol JSON node {name!r}: {error}") from None
    except Exception as error:  # an operator bug must not escape as another exception type
        raise MXNetError(f"symbol JSON node {name!r}: operator {op_name} failed to count its outputs "
                         f"({type(error).__name__}: {error})") from None
    _ENTRY_VERSIONS[node] = tuple((child, index, entry_version)
                                  for (child, index), entry_version in zip(inputs, versions))
    return node


def _read_subgraphs(record, name, op, symbol_class):
    """The Symbols of a node's ``"subgraphs"`` list (graphs in the same JSON layout); MXNetError
    when the list is malformed or the operator takes no / other subgraphs."""
    graphs = record.get("subgraphs", [])
    expected = getattr(op, "subgraph_names", ())
    if not isinstance(graphs, list) or len(graphs) != len(expected):
        raise MXNetError(f"symbol JSON node {name!r} ({op.name}): 'subgraphs' must be a list of "
                         f"{len(expected)} graph(s) ({', '.join(expected) or 'none'}), got {_short(graphs)}")
    result = []
    for position, graph in enumerate(graphs):
        if not isinstance(graph, dict):
            raise MXNetError(f"symbol JSON node {name!r}: subgraph {position} must be an object, got {_short(graph)}")
        graph = dict(graph)
        graph.setdefault("attrs", {"mxnet_version": ["int", MXNET_VERSION]})
        try:
            result.append(from_json(json.dumps(graph), symbol_class))
        except MXNetError as error:
            raise MXNetError(f"symbol JSON node {name!r}: subgraph {position}: {error}") from None
    return result


def _check_counts(op_class, op_attrs, name, input_count):
    """Reject implausible input/output counts before the operator builds lists of that size."""
    for key in _COUNT_ATTRIBUTES:
        if key not in op_attrs or key not in op_class.schema:
            continue
        try:
            count = registry.Int(op_attrs[key], key)
        except MXNetError:
            continue  # the operator's own parser reports it
        # operators running subgraphs count them among num_args (MXNet's _foreach, _while_loop, _cond)
        extra = len(getattr(op_class, "subgraph_names", ()))
        limit = input_count + extra if key == "num_args" else _MAX_OUTPUTS_PER_NODE
        if count > limit:
            bound = f"the number of inputs given ({limit})" if key == "num_args" else limit
            raise MXNetError(f"symbol JSON node {name!r}: attribute {key}={op_attrs[key]!r} is larger than {bound}")


def _make_operator(op_class, op_attrs, name, op_name):
    """The operator instance and its argument / auxiliary-state names; MXNetError for any
    failure, naming the node."""
    try:
        op = op_class(op_attrs).use_name(op_name)
        return op, list(op.arguments()), list(op.auxiliary_states())
    except MXNetError as error:
        raise MXNetError(f"symbol JSON node {name!r}: {error}") from None
    except RecursionError:
        raise MXNetError(f"symbol JSON node {name!r}: operator {op_name} could not parse its "
                         f"attributes {_short(op_attrs)}") from None
    except Exception as error:  # an operator bug must not escape as another exception type
        raise MXNetError(f"symbol JSON node {name!r}: operator {op_name} rejected its attributes "
                         f"{_short(op_attrs)} ({type(error).__name__}: {error})") from None


def set_input_variable_attrs(op, input_name, variable):
    """Apply the operator's ``input_variable_attrs(input_name)`` defaults to ``variable``
    (MXNet's FSetInputVarAttrOnCompose): keys already set are kept."""
    hook = getattr(op, "input_variable_attrs", None)
    if hook is None:
        return
    try:
        defaults = dict(hook(input_name) or {})
    except MXNetError:
        raise
    except Exception as error:  # an operator bug must not escape as another exception type
        raise MXNetError(f"Operator {op.name}: input_variable_attrs({input_name!r}) failed "
                         f"({type(error).__name__}: {error})") from None
    for key, value in defaults.items():
        variable.attrs.setdefault(key, str(value))


def _drop_legacy_attrs(op_class, attrs):
    """Old JSON files carry attributes that later MXNet versions renamed or dropped: the
    operator's ``legacy_attributes`` maps each old name to its new one (None: dropped, as MXNet
    ignored it); a value given under both names keeps the new name's."""
    legacy = op_class.legacy_attributes
    upgraded = {}
    for key, value in attrs.items():
        if key not in legacy:
            upgraded[key] = value
        elif legacy[key] is not None and legacy[key] not in attrs:
            upgraded[legacy[key]] = value
    return upgraded
