"""``mx.sym.contrib.foreach / while_loop / cond``: control flow whose body is a subgraph.

Each front end calls the user's Python function once on placeholder variables, inside
``AttrScope(__subgraph_name__=<unique name>)`` so that every node the function creates is marked
as part of the subgraph, exactly as MXNet 1.9.1 does.  The graph the function returns is then
*cut*: wherever a marked node reads an entry computed outside (a free variable, an outer
expression), the entry is replaced by a new variable named after that entry's output, and the
outer entry becomes an input of the control-flow node.  The node (``_foreach``, ``_while_loop``,
``_cond`` in ``ops/control_flow.py``) holds the subgraphs and the input positions as MXNet's
attributes, so the result is written to and read from symbol JSON the way MXNet writes it.

Inputs and outputs may be nested lists of Symbols; outputs come back in the same nesting.
Errors (a non-Symbol input, states whose nesting changes, a loop variable the body does not
use) raise MXNetError naming the function and what was given.
"""
from __future__ import annotations

import copy
from collections import defaultdict

from ..attribute import AttrScope
from ..base import MXNetError, MXNetAssertionError, _as_list as _base_as_list
from ..name import NameManager
from ..ops import registry
from ..util import flatten_nested, regroup_nested
from .symbol import Node, Symbol, Group, topological_order, var, create

__all__ = ["foreach", "while_loop", "cond"]

SUBGRAPH_KEY = "__subgraph_name__"

if not hasattr(AttrScope, "_subgraph_names"):
    # how many subgraphs of each name were made (MXNet's class-level counter, reset by its tests)
    AttrScope._subgraph_names = defaultdict(int)


# -- nested lists ----------------------------------------------------------------------------------------
def _symbol_format(item):
    """The nesting format of a Symbol (0 with one output, else its output count), None for
    anything else (``util.flatten_nested``)."""
    if not isinstance(item, Symbol):
        return None
    count = len(item.list_outputs())
    return count if count > 1 else 0


def _flatten(args, where):
    """``(flat list of Symbols, format)``; the format is 0 for one single-output Symbol, the
    output count for a group, or a list of formats for a (nested) list."""
    return flatten_nested(args, _symbol_format, lambda item: MXNetError(
        f"{where} must be a Symbol or a (nested) list of Symbols, got {type(item).__name__}"))



def _check_symbols(values, where):
    for value in values:
        if not isinstance(value, Symbol):
            raise MXNetError(f"{where} must be a Symbol or a (nested) list of Symbols, got {type(value).__name__}")


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


# -- subgraph construction -------------------------------------------------------------------------------
def _unique_subgraph_name(name):
    """``name`` numbered per name (``foreach0``, ``foreach1``), prefixed with the enclosing
    subgraph's name and ``$`` when nested, as MXNet names them."""
    outer = AttrScope.current._attr.get(SUBGRAPH_KEY, "")
    if outer:
        name = f"{outer}${name}"
    AttrScope._subgraph_names[name] += 1
    return f"{name}{AttrScope._subgraph_names[name] - 1}"


def _placeholder_name(symbol):
    """MXNet's name for the variable standing for ``symbol`` inside a body: ``<name>-<output index>``."""
    node, index = symbol._outputs[0]
    return f"{node.name}-{index}"


def _in_subgraph(symbol, name):
    return symbol._outputs[0][0].attrs.get(SUBGRAPH_KEY, "") == name


def _close_outputs(outputs, name):
    """A Group of ``outputs`` in which every output that is a graph input or was computed outside
    the subgraph ``name`` goes through an ``identity`` node (made inside the subgraph's scope)."""
    input_names = set(Group(outputs).list_inputs())
    closed = []
    seen = set()
    for symbol in outputs:
        if symbol.name in input_names or symbol.name in seen or not _in_subgraph(symbol, name):
            symbol = create("identity", symbol)
        seen.add(symbol.name)
        closed.append(symbol)
    return Group(closed)


def _cut_subgraph(graph):
    """Replace, in place, every input of a node of ``graph``'s subgraph that comes from outside
    the subgraph by a new variable named after that entry's output; returns ``{variable name:
    Symbol of the outer entry}`` (MXNet's ``MXSymbolCutSubgraph``)."""
    name = graph._outputs[0][0].attrs.get(SUBGRAPH_KEY)
    if name is None:
        return {}
    replaced = {}
    cut = {}
    for node in topological_order(graph._outputs):
        if node.attrs.get(SUBGRAPH_KEY) != name:
            continue
        for position, (child, index) in enumerate(node.inputs):
            if child.attrs.get(SUBGRAPH_KEY) == name:
                continue
            key = (id(child), index)
            if key not in replaced:
                var_name = child.output_names()[index]
                replaced[key] = Node(None, var_name)
                cut[var_name] = Symbol([(child, index)])
            node.inputs[position] = (replaced[key], 0)
    return cut


def _graph_inputs(graph):
    return {node.name: Symbol([(node, 0)]) for node in topological_order(graph._outputs) if node.op is None}


def _make_node(op_name, subgraphs, inputs, attrs):
    """The control-flow node with its subgraphs; attributes as MXNet writes them (lists as
    ``"[0, 1]"``, ``num_args`` counting the subgraphs)."""
    strings = {key: str(list(value)) if isinstance(value, (list, tuple)) else str(value)
               for key, value in attrs.items()}
    strings["num_args"] = str(len(inputs) + len(subgraphs))
    op = registry.get_operator(op_name)(strings)
    op.subgraphs = list(subgraphs)
    node_attrs = dict(op.attrs)
    node_attrs.update(AttrScope.current.get(None))
    entries = []
    for position, symbol in enumerate(inputs):
        if len(symbol._outputs) != 1:
            raise MXNetError(f"{op_name}: input {position} must be a single-output Symbol")
        entries.append(symbol._outputs[0])
    node = Node(op, NameManager.current.get(None, op_name), node_attrs, entries)
    return [Symbol([(node, i)]) for i in range(op.num_outputs())]


def _unique_inputs(graph, where):
    names = graph.list_inputs()
    if len(set(names)) != len(names):
        raise MXNetError(f"{where}: the inputs of the subgraph do not have unique names: {names}")
    return names


# -- foreach -----------------------------------------------------------------------------------------------
def foreach(body, data, init_states, name="foreach"):
    """Run ``body(data_slice, states) -> (outputs, new_states)`` for each slice of ``data``
    along axis 0, as one ``_foreach`` node (MXNet's ``mx.sym.contrib.foreach``).

    ``data`` and ``init_states`` are Symbols or nested lists of them.  Returns ``(outputs,
    states)``: each output stacked over the steps (shape ``(T,) + step shape``) and the final
    states, in the nesting ``body`` returned them.  MXNetError when an input is not a Symbol or
    the states' nesting changes; MXNetAssertionError (also an AssertionError, as MXNet asserted)
    when a data or state input is not used by the body.
    """
    flat_data, data_fmt = _flatten(data, "foreach: data")
    _check_symbols(flat_data, "foreach: data")
    flat_states, state_fmt = _flatten(init_states, "foreach: init_states")
    _check_symbols(flat_states, "foreach: init_states")
    name = _unique_subgraph_name(name)
    with AttrScope(**{SUBGRAPH_KEY: name}):
        slices, _ = regroup_nested([var(_placeholder_name(s)) for s in flat_data], data_fmt)
        states, _ = regroup_nested([var(_placeholder_name(s)) for s in flat_states], copy.deepcopy(state_fmt))
        outputs, new_states = body(slices, states)
        flat_out, out_fmt = _flatten(outputs, "foreach: the body's outputs")
        flat_new, new_fmt = _flatten(new_states, "foreach: the body's states")
        if new_fmt != state_fmt:
            raise MXNetError(f"foreach: the body returned states nested as {new_fmt}, the initial states "
                             f"are nested as {state_fmt}")
        graph = _close_outputs(flat_out + flat_new, name)
    cut = _cut_subgraph(graph)
    inputs = _graph_inputs(graph)
    names = _unique_inputs(graph, "foreach")
    data_names = [_placeholder_name(s) for s in flat_data]
    state_names = [_placeholder_name(s) for s in flat_states]
    for label, wanted in (("data", data_names), ("state", state_names)):
        for item in wanted:
            if item not in names:
                # MXNet asserted this: the error is also an AssertionError
                raise MXNetAssertionError(f"foreach: the {label} input {item!r} is not used by the loop body")
    ordered = list(flat_data) + list(flat_states)
    remain_locs = []
    for position, input_name in enumerate(names):
        if input_name in cut:
            ordered.append(cut[input_name])
        elif input_name not in data_names and input_name not in state_names:
            ordered.append(copy.deepcopy(inputs[input_name]))
        else:
            continue
        remain_locs.append(position)
    num_outputs = len(flat_out) + len(flat_new)
    result = _make_node("_foreach", [graph], ordered, {
        "num_outputs": num_outputs, "num_out_data": len(flat_out),
        "in_state_locs": [names.index(n) for n in state_names],
        "in_data_locs": [names.index(n) for n in data_names], "remain_locs": remain_locs})
    outs, _ = regroup_nested(result[:len(flat_out)], out_fmt)
    finals, _ = regroup_nested(result[len(flat_out):], new_fmt)
    return outs, finals


# -- while_loop ------------------------------------------------------------------------------------------
def _scalar(value, kind, label):
    if hasattr(value, "asscalar"):
        value = value.asscalar()
    try:
        return kind(value)
    except (TypeError, ValueError):
        raise MXNetError(f"while_loop: cannot convert {label} {value!r} to {kind.__name__}") from None


def _subgraph_of(graph_vars, function, subgraph_name, placeholder):
    """``(graph, number of data outputs, output format)`` of ``function`` called on placeholder
    variables for ``graph_vars`` inside a fresh subgraph scope."""
    subgraph_name = _unique_subgraph_name(subgraph_name)
    with AttrScope(**{SUBGRAPH_KEY: subgraph_name}):
        flat, fmt = _flatten(graph_vars, "loop_vars")
        placeholders, _ = regroup_nested([var(placeholder(s)) for s in flat], fmt) if flat else ([], [])
        outputs, finals, out_fmt = function(placeholders)
        graph = _close_outputs(outputs + finals, subgraph_name)
    return graph, len(outputs), out_fmt


def _union_inputs(graphs, loop_vars=()):
    """Cut each graph and collect the outer Symbols every graph reads: ``(inputs, [input
    positions per graph], [loop-variable positions per graph])``.  A Symbol read by several
    graphs (the same object) is one input."""
    loop_by_name = {_placeholder_name(s): s for s in loop_vars}
    loop_position = {_placeholder_name(s): i for i, s in enumerate(loop_vars)}
    inputs, positions, var_positions = [], [], []
    position_of = {}
    by_name = {}
    for graph in graphs:
        cut = _cut_subgraph(graph)
        graph_inputs = _graph_inputs(graph)
        names = _unique_inputs(graph, "control flow")
        locs, var_locs = [], [-1] * len(loop_vars)
        for input_name in names:
            if input_name in loop_by_name:
                symbol = loop_by_name[input_name]
            elif not loop_vars and input_name in by_name:
                symbol = by_name[input_name]
            elif input_name in cut:
                symbol = cut[input_name]
            else:
                symbol = copy.deepcopy(graph_inputs[input_name])
            if id(symbol) not in position_of:
                position_of[id(symbol)] = len(inputs)
                inputs.append(symbol)
                by_name.setdefault(symbol.name, symbol)
            locs.append(position_of[id(symbol)])
            if input_name in loop_position:
                var_locs[loop_position[input_name]] = len(locs) - 1
        positions.append(locs)
        var_positions.append(var_locs)
    return inputs, positions, var_positions


def while_loop(cond, func, loop_vars, max_iterations=None, name="while_loop"):
    """Run ``func(*loop_vars) -> (step_output, new_loop_vars)`` while ``cond(*loop_vars)`` is
    true, at most ``max_iterations`` times, as one ``_while_loop`` node (MXNet's
    ``mx.sym.contrib.while_loop``).

    Returns ``(outputs, final_loop_vars)``: each step output stacked on axis 0 into
    ``max_iterations`` rows (rows past the last step are zeros) and the final loop variables in
    the nesting of ``loop_vars``.  MXNetError when ``max_iterations`` is missing, ``loop_vars``
    is empty, ``cond`` does not return a Symbol, the number of loop variables changes, or a loop
    variable does not take part in ``func``.
    """
    if max_iterations is None:
        raise MXNetError("while_loop: max_iterations should be specified")
    max_iterations = _scalar(max_iterations, int, "max_iterations")
    flat_vars, var_fmt = _flatten(loop_vars, "while_loop: loop_vars")
    _check_symbols(flat_vars, "while_loop: loop_vars")
    if not flat_vars:
        raise MXNetError("while_loop: loop_vars should contain at least one element")

    def cond_body(placeholders):
        result = cond(*_as_list(placeholders))
        if not isinstance(result, Symbol):
            raise MXNetError(f"while_loop: cond must return a Symbol, got {type(result).__name__}")
        return [], [result], []

    def func_body(placeholders):
        step_output, new_vars = func(*_as_list(placeholders))
        step_output = [] if step_output is None else step_output
        new_vars = [] if new_vars is None else new_vars
        step_output, out_fmt = _flatten(list(step_output) if isinstance(step_output, tuple) else step_output,
                                        "while_loop: step output")
        new_vars, _ = _flatten(list(new_vars) if isinstance(new_vars, tuple) else new_vars,
                               "while_loop: new loop_vars")
        if len(new_vars) != len(flat_vars):
            raise MXNetError(f"while_loop: func returned {len(new_vars)} loop_vars, {len(flat_vars)} were given")
        return step_output, new_vars, out_fmt

    cond_graph, _, _ = _subgraph_of(loop_vars, cond_body, name + "_cond", _placeholder_name)
    func_graph, num_out_data, out_fmt = _subgraph_of(loop_vars, func_body, name + "_func", _placeholder_name)
    inputs, (cond_locs, func_locs), (_, func_var_locs) = _union_inputs([cond_graph, func_graph], flat_vars)
    for position, loc in enumerate(func_var_locs, 1):
        if loc == -1:
            raise MXNetError(f"while_loop: loop_var {position} does not take part in the computation of func")
    num_outputs = num_out_data + len(flat_vars)
    result = _make_node("_while_loop", [cond_graph, func_graph], inputs, {
        "max_iterations": max_iterations, "cond_input_locs": cond_locs, "func_input_locs": func_locs,
        "func_var_locs": func_var_locs, "num_out_data": num_out_data, "num_outputs": num_outputs})
    outputs, _ = regroup_nested(result[:num_out_data], out_fmt)
    finals, _ = regroup_nested(result[num_out_data:], var_fmt)
    return outputs, finals


# -- cond ----------------------------------------------------------------------------------------------------
def cond(pred, then_func, else_func, name="cond"):
    """``then_func()`` if the scalar ``pred`` is true, else ``else_func()``, as one ``_cond``
    node (MXNet's ``mx.sym.contrib.cond``).  Both functions take no arguments and return a
    Symbol or a nested list of Symbols with the same number of outputs; the result has their
    nesting.  MXNetError when ``pred`` has more than one output or the branches' output counts
    differ."""
    def branch(function, label):
        def body(_):
            outputs, fmt = _flatten(function(), f"cond: the {label} outputs")
            return outputs, [], fmt
        return body

    graphs, formats = [], []
    for function, suffix in ((lambda: pred, "_pred"), (then_func, "_then"), (else_func, "_else")):
        graph, count, fmt = _subgraph_of([], branch(function, suffix[1:]), name + suffix, _placeholder_name)
        graphs.append(graph)
        formats.append((count, fmt))
    if formats[0][0] != 1:
        raise MXNetError(f"cond: pred must be a single output, got {formats[0][0]}")
    if formats[1][0] != formats[2][0]:
        raise MXNetError(f"cond: the then branch gives {formats[1][0]} outputs, the else branch {formats[2][0]}")
    inputs, (cond_locs, then_locs, else_locs), _ = _union_inputs(graphs)
    result = _make_node("_cond", graphs, inputs, {
        "cond_input_locs": cond_locs, "then_input_locs": then_locs, "else_input_locs": else_locs,
        "num_outputs": formats[1][0]})
    outputs, _ = regroup_nested(result, formats[1][1])
    return outputs


# -- MXNet 1.9.1's private helpers of mxnet.symbol.contrib, by their names and signatures -------------
def _regroup(args, fmt):
    """The inverse of ``_flatten``: ``(nested value, rest of args)`` for the format ``fmt``."""
    return regroup_nested(args, fmt, lambda value: MXNetError(
        f"output must be (nested) list of Symbol, but got {value} of type {type(value)}"))


def _get_sym_uniq_name(sym):
    """``<name>-<output index>``: the name a control-flow operator gives the variable standing
    for ``sym`` inside its body."""
    return _placeholder_name(sym)


def _get_graph_inputs(subg):
    """The input variables of the graph ``subg`` as Symbols, in ``list_inputs`` order."""
    inputs = _graph_inputs(subg)
    return [inputs[name] for name in subg.list_inputs()]


def _cut_subgraph_symbols(subg):
    """Cut the graph ``subg`` out of its surroundings (see ``_cut_subgraph``) and return the
    Symbols of the outer entries that its nodes read, as MXNet's ``_cut_subgraph`` did."""
    return list(_cut_subgraph(subg).values())


def _construct_subgraph(sym_out, sym_states, name):
    """A Group of the outputs ``sym_out`` then the states ``sym_states`` of the body of subgraph
    ``name``, each passed through ``identity`` when it is a graph input, was made outside the
    subgraph (or, for a state, is also an output), so that outputs are nodes of their own."""
    sym_out, sym_states = _as_list(sym_out), _as_list(sym_states)
    input_names = set(Group(sym_out + sym_states).list_inputs())
    output_names = {symbol.name for symbol in sym_out}
    closed = []
    for symbol in sym_out:
        outside = symbol.name in input_names or not _in_subgraph(symbol, name)
        closed.append(create("identity", symbol) if outside else symbol)
    for symbol in sym_states:
        outside = symbol.name in input_names or symbol.name in output_names or not _in_subgraph(symbol, name)
        closed.append(create("identity", symbol) if outside else symbol)
    return Group(closed)


def _check_data(inputs, in_type, msg):
    """AssertionError with ``msg`` unless ``inputs`` is an ``in_type`` or a list of them."""
    if isinstance(inputs, list):
        assert all(isinstance(item, in_type) for item in inputs), msg
    else:
        assert isinstance(inputs, in_type), msg


def _mxnet_flatten(args, inout_str):
    """``(flat list of Symbols, format)`` of a Symbol or (nested) list of them (MXNet's
    ``_flatten``; ``inout_str`` names the value in the error)."""
    return _flatten(args, inout_str)


# the names as mxnet.symbol.contrib had them (``symbol/__init__.py`` gives them to mx.sym.contrib)
MXNET_PRIVATE_NAMES = {
    "_as_list": _base_as_list, "_check_data": _check_data, "_construct_subgraph": _construct_subgraph,
    "_cut_subgraph": _cut_subgraph_symbols, "_flatten": _mxnet_flatten, "_get_graph_inputs": _get_graph_inputs,
    "_get_sym_uniq_name": _get_sym_uniq_name, "_get_unique_subgraph_name": _unique_subgraph_name,
    "_regroup": _regroup,
}
