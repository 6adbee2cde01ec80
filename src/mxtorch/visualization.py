"""``mx.viz``: a text summary of a Symbol's layers and a Graphviz drawing of its graph.

Both functions read the graph the way MXNet 1.9.1's did, from the Symbol's JSON
(``symbol.tojson()``) and, when input shapes are given, from the shapes of every
internal output (``symbol.get_internals().infer_shape(**shape)``), so their text,
parameter counts, labels and colours are MXNet's.

``plot_network`` needs the ``graphviz`` Python package (``pip install graphviz``, or the
``viz`` extra of mxtorch); it is imported only when ``plot_network`` is called.  Rendering
the returned ``graphviz.Digraph`` to a file (``dot.render()``) also needs Graphviz's
``dot`` program; building it and reading ``dot.source`` does not.
"""
from __future__ import annotations

import json
import re
import warnings

import numpy as np

from .base import MXNetError, parse_bool
from .symbol.symbol import topological_order
# names MXNet 1.9.1's mxnet.visualization had in its namespace (imported there, not defined)
from .symbol import Symbol  # noqa: E402,F401

__all__ = ["print_summary", "plot_network"]

# Fill colours of plot_network's nodes, by kind of layer (MXNet's palette).
_INPUT_COLOR = "#8dd3c7"
_WEIGHTED_LAYER_COLOR = "#fb8072"          # Convolution, FullyConnected
_ACTIVATION_COLOR = "#ffffb3"              # Activation, LeakyReLU
_NORMALIZATION_COLOR = "#bebada"           # BatchNorm
_POOLING_COLOR = "#80b1d3"
_RESHAPING_COLOR = "#fdb462"               # Concat, Flatten, Reshape
_SOFTMAX_COLOR = "#b3de69"                 # the operator named "Softmax"
_OTHER_COLOR = "#fccde5"

# Variables whose names end like this are parameters or auxiliary states, not inputs.
_PARAMETER_SUFFIXES = ("_weight", "_bias", "_beta", "_gamma",
                       "_moving_var", "_moving_mean", "_running_var", "_running_mean")


def _check_symbol(symbol, function):
    if not isinstance(symbol, Symbol):
        raise MXNetError(f"{function}: symbol must be a mx.sym.Symbol, got {type(symbol).__name__}")


# kind -> (what a value is, the inference method, the message's plural and its ending, conversion)
_INFERENCE = {
    "shape": ("shape tuple", "infer_shape", "shapes", "shape; give the shape of every data input",
              lambda value: tuple(int(d) for d in value)),
    "dtype": ("numpy type", "infer_type", "types", "type", np.dtype),
}


def _internal_attrs(symbol, given, function, kind):
    """``{internal output name: value}`` inferred from the inputs' ``given`` values (a dict of
    input name -> shape tuple for ``kind='shape'``, -> numpy type for ``kind='dtype'``)."""
    value_name, method, plural, ending, convert = _INFERENCE[kind]
    if not isinstance(given, dict):
        raise MXNetError(f"{function}: {kind} must be a dict of input name -> {value_name}, "
                         f"got {type(given).__name__}")
    internals = symbol.get_internals()
    _, outputs, _ = getattr(internals, method)(**given)
    if outputs is None or any(value is None for value in outputs):
        raise MXNetError(f"{function}: the input {plural} {given} do not determine every layer's {ending}")
    return {name: convert(value) for name, value in zip(internals.list_outputs(), outputs)}


def _internal_shapes(symbol, shape, function):
    """``{internal output name: shape tuple}`` from input shapes ``shape`` (a dict)."""
    return _internal_attrs(symbol, shape, function, "shape")


def _internal_dtypes(symbol, dtype, function):
    """``{internal output name: numpy dtype}`` from input dtypes ``dtype`` (a dict)."""
    return _internal_attrs(symbol, dtype, function, "dtype")


def _digits(text):
    """The numbers written in a tuple attribute, as strings: ``"(3, 3)"`` -> ``['3', '3']``."""
    return re.findall(r"\d+", text)


def _joined_shape(shape):
    """``(8, 16, 16)`` -> ``'8x16x16'``; ``()`` -> ``''``."""
    return "x".join(str(d) for d in shape)


def _format_row(fields, stops):
    """One table row: field ``i`` written up to column ``stops[i]`` (cut or padded to it)."""
    line = ""
    for field, stop in zip(fields, stops):
        line = (line + str(field))[:stop]
        line += " " * (stop - len(line))
    return line


def _operators_by_name(symbol):
    """``{node name: Operator}`` of the symbol's operator nodes: the declarations that say how
    each is drawn and counted (``Operator.plot_label`` / ``summary_parameters``)."""
    return {node.name: node.op for node in topological_order(symbol._outputs) if node.op is not None}


def _layer_parameters(node, operators, input_channels, shapes):
    """Number of learned values of one layer, counted as MXNet's summary counts them (the
    operator's ``summary_parameters``; 0 for operators that declare none).

    ``input_channels`` is the sum of axis 1 of the inputs that are layers (or the first
    variable); it is 0 without shapes.
    """
    op = operators.get(node["name"])
    if op is None:
        return 0
    output = shapes.get(node["name"] + "_output") if shapes else None
    return op.summary_parameters(input_channels, output)


def print_summary(symbol, shape=None, line_length=120, positions=[.44, .64, .74, 1.]):
    """Print a table of ``symbol``'s layers, as MXNet 1.9.1's ``mx.viz.print_summary``.

    One row per operator node (and the graph's first variable, normally ``data``):
    ``name(op)``, the output shape without the batch axis (``8x16x16``; blank without
    ``shape`` or for a layer with several outputs), the number of parameters and the
    previous layers (one per row).  Then ``Total params: N``.

    Parameters
    ----------
    symbol : Symbol
    shape : dict of str -> tuple, optional
        Input shapes, e.g. ``{'data': (32, 3, 224, 224)}``; without it no shapes are
        shown and Convolution / FullyConnected count only their biases, BatchNorm nothing
        (MXNet's counts).
    line_length : int
        Width of the table in characters.
    positions : list of 4 numbers
        Where each column ends: fractions of ``line_length`` when the last is <= 1,
        else character positions.

    Raises MXNetError when ``symbol`` is not a Symbol or ``shape`` leaves a layer's shape
    unknown.  Returns None (the table goes to standard output).
    """
    _check_symbol(symbol, "print_summary")
    shapes = _internal_shapes(symbol, shape, "print_summary") if shape is not None else None
    graph = json.loads(symbol.tojson())
    nodes = graph["nodes"]
    operators = _operators_by_name(symbol)
    # MXNet treats the numbers of the first head entry [node, output, version] as the set of
    # "head" nodes; node 0 (the first variable, normally 'data') is always among them, so it
    # is listed as a layer and as a previous layer.
    head_numbers = set(graph["heads"][0])
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]

    def output_shape(index):
        node = nodes[index]
        key = node["name"] + ("_output" if node["op"] != "null" else "")
        return shapes.get(key) if shapes else None

    lines = ["_" * line_length,
             _format_row(["Layer (type)", "Output Shape", "Param #", "Previous Layer"], positions),
             "=" * line_length]
    total = 0
    for index, node in enumerate(nodes):
        if node["op"] == "null" and index > 0:
            continue
        previous, input_channels = [], 0
        if node["op"] != "null":
            for source, *_ in node["inputs"]:
                if nodes[source]["op"] == "null" and source not in head_numbers:
                    continue
                previous.append(nodes[source]["name"])
                source_shape = output_shape(source)
                if source_shape is not None and len(source_shape) > 1:
                    input_channels += source_shape[1]
        shown = output_shape(index) if (node["op"] != "null" or index in head_numbers) else None
        parameters = _layer_parameters(node, operators, input_channels, shapes)
        total += parameters
        lines.append(_format_row([f"{node['name']}({node['op']})", _joined_shape(shown[1:] if shown else ()),
                                  parameters, previous[0] if previous else ""], positions))
        lines.extend(_format_row(["", "", "", name], positions) for name in previous[1:])
        lines.append(("=" if index == len(nodes) - 1 else "_") * line_length)
    lines.append(f"Total params: {total}")
    lines.append("_" * line_length)
    print("\n".join(lines))


def _import_digraph():
    try:
        from graphviz import Digraph
    except ImportError:
        raise MXNetError("plot_network needs the graphviz Python package: pip install graphviz "
                         "(or pip install 'mxtorch[viz]')") from None
    return Digraph


_KIND_COLORS = {"weighted": _WEIGHTED_LAYER_COLOR, "activation": _ACTIVATION_COLOR,
                "normalization": _NORMALIZATION_COLOR, "pooling": _POOLING_COLOR, "reshaping": _RESHAPING_COLOR,
                "softmax": _SOFTMAX_COLOR, "other": _OTHER_COLOR}


def _node_label_and_color(node, operators):
    """``(label, fill colour)`` of an operator node in plot_network: the operator's
    ``plot_label`` (MXNet's labels and colour groups)."""
    op = operators.get(node["name"])
    if op is None:
        return node["name"], _OTHER_COLOR
    label, kind = op.plot_label(node["op"], node["name"])
    return label, _KIND_COLORS[kind]


def plot_network(symbol, title="plot", save_format="pdf", shape=None, dtype=None, node_attrs={},
                 hide_weights=True):
    """A ``graphviz.Digraph`` drawing ``symbol``'s graph, as MXNet 1.9.1's ``mx.viz.plot_network``.

    Inputs are ovals, operators boxes (``node_attrs`` overrides any Graphviz node
    attribute, e.g. ``{"shape": "oval", "fixedsize": "false"}``), labelled and coloured by
    operator (``Convolution\\n3x3/1, 8``, ``FullyConnected\\n10``, ``Activation\\nrelu``,
    ``Pooling\\nmax, 2x2/2x2``, ...).  Edges point from a layer back to its inputs; with
    ``shape`` (dict of input name -> shape tuple) they are labelled with the input's shape
    without the batch axis, with ``dtype`` (dict of input name -> numpy type) also with
    ``(float32)``.  Variables named like parameters (``*_weight``, ``*_bias``, ``*_gamma``,
    ``*_beta``, ``*_moving_mean``, ...) get no node; with ``hide_weights=True`` their edges
    are left out too.  The Digraph is named ``title`` and renders as ``save_format``.

    An edge from a layer with several outputs is labelled with the shape of the output
    the consumer reads (MXNet labelled every such edge with the last output's shape).

    Raises MXNetError when graphviz is not installed, ``symbol`` is not a Symbol, or
    ``shape`` / ``dtype`` leave a layer's shape / type unknown; warns (RuntimeWarning)
    when several nodes share a name.
    """
    Digraph = _import_digraph()
    _check_symbol(symbol, "plot_network")
    shapes = _internal_shapes(symbol, shape, "plot_network") if shape is not None else None
    dtypes = _internal_dtypes(symbol, dtype, "plot_network") if dtype is not None else None
    nodes = json.loads(symbol.tojson())["nodes"]
    operators = _operators_by_name(symbol)
    names = [node["name"] for node in nodes]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        warnings.warn("There are multiple variables with the same name in your graph, this may result in "
                      "cyclic graph. Repeated names: " + ",".join(repeated), RuntimeWarning)

    base_attributes = {"shape": "box", "fixedsize": "true", "width": "1.3", "height": "0.8034",
                       "style": "filled"}
    base_attributes.update(node_attrs)
    dot = Digraph(name=title, format=save_format)
    hidden = set()
    for node in nodes:
        attributes = dict(base_attributes)
        if node["op"] == "null":
            if node["name"].endswith(_PARAMETER_SUFFIXES):
                if hide_weights:
                    hidden.add(node["name"])
                continue
            label, attributes["shape"], attributes["fillcolor"] = node["name"], "oval", _INPUT_COLOR
        else:
            label, attributes["fillcolor"] = _node_label_and_color(node, operators)
        dot.node(name=node["name"], label=label, **attributes)

    def output_key(source, output_index):
        """Name of the internal output ``output_index`` of node ``source``."""
        node = nodes[source]
        if node["op"] == "null":
            return node["name"]
        single = node["name"] + "_output"
        table = shapes if shapes is not None else dtypes
        return single if single in table else f"{single}{output_index}"

    for node in nodes:
        if node["op"] == "null":
            continue
        op = operators.get(node["name"])
        inputs = node["inputs"][:op.plot_input_count] if op is not None else node["inputs"]
        for source, output_index, *_ in inputs:
            source_name = nodes[source]["name"]
            if source_name in hidden:
                continue
            label = ""
            if shapes is not None or dtypes is not None:
                key = output_key(source, output_index)
                if shapes is not None:
                    label = _joined_shape(shapes.get(key, ())[1:])
                if dtypes is not None and key in dtypes:
                    label += f"({dtypes[key].name})"
            dot.edge(tail_name=node["name"], head_name=source_name, dir="back", arrowtail="open", label=label)
    return dot
