"""Control-flow operators whose body is a graph: ``_foreach``, ``_while_loop``, ``_cond``.

MXNet 1.9.1 builds them with ``mx.sym.contrib.foreach / while_loop / cond``
(``symbol/control_flow.py``): the loop body, condition or branches are Symbols held by the node
(``op.subgraphs``, written to symbol JSON under the node's ``"subgraphs"`` key) and the node's
inputs are the outer entries the subgraphs read.  Attributes, as MXNet writes them:

- ``_foreach``: ``num_args`` (inputs + subgraphs, as for the other two), ``num_outputs``,
  ``num_out_data`` and the positions, among the body's ``list_inputs()``, of the sliced data (``in_data_locs``), of the loop states
  (``in_state_locs``) and of the other inputs (``remain_locs``).  The node's inputs are the data
  arrays, the initial states, then the remaining inputs.  Outputs: the per-step outputs stacked
  on a new axis 0, then the final states.
- ``_while_loop``: subgraphs ``[cond, func]``; ``cond_input_locs`` / ``func_input_locs`` map each
  subgraph input to a node input; ``func_var_locs[i]`` is the position among the body's inputs of
  loop variable ``i``; ``max_iterations``.  Outputs: the step outputs stacked and padded with zeros
  to ``max_iterations`` rows, then the final loop variables.
- ``_cond``: subgraphs ``[pred, then, else]`` with ``cond_input_locs`` / ``then_input_locs`` /
  ``else_input_locs``; the outputs are those of the branch ``pred`` selects.

Forward runs the subgraphs with an :class:`~mxtorch.executor.Executor` per input signature
(``Executor.run_tensors``) under the caller's autograd mode, so gradients flow through every
step the loop took, as MXNet's backward does.  Shape and dtype inference run the subgraphs'
inference and carry shapes both ways (a parameter used in the body gets its shape from it).
"""
from __future__ import annotations

import torch

from ..base import MXNetError, parse_tuple, numpy_dtype, torch_dtype
from ..context import Context
from .registry import Attr, Operator, register, Int, merge_shape


def _locations(value, name):
    return tuple(int(v) for v in parse_tuple(value, name, int))


class _SubgraphOperator(Operator):
    """Base of the operators that run Symbols: ``subgraphs`` is the list of them (set by the
    front end or the JSON reader before the node is used)."""

    variadic = True
    exportable = False
    export_note = "its body is a subgraph run step by step in Python"
    subgraph_names = ()
    num_args = Attr(Int, required=True)
    num_outputs = Attr(Int, default=1)

    def __init__(self, attrs=None, **kwargs):
        super().__init__(attrs, **kwargs)
        self.subgraphs = []
        self._executors = {}
        self._inferred = {}    # (kind, subgraph, given inputs) -> result: graph sweeps ask repeatedly

    def arguments(self):
        # MXNet counts the subgraphs among num_args
        return [f"arg{i}" for i in range(self.num_args - len(self.subgraph_names))]

    def outputs(self):
        return ["output"] if self.output_count == 1 else [f"output{i}" for i in range(self.output_count)]

    def check_subgraphs(self, where):
        if len(self.subgraphs) != len(self.subgraph_names):
            raise MXNetError(f"{where}: operator {self.name} needs {len(self.subgraph_names)} subgraph(s) "
                             f"({', '.join(self.subgraph_names)}), got {len(self.subgraphs)}")

    # -- running a subgraph ---------------------------------------------------------------------------
    def run_subgraph(self, position, is_train, tensors):
        """Outputs (torch tensors) of subgraph ``position`` given one tensor per entry of its
        ``list_inputs()``, recorded by torch autograd when gradients are enabled.  The subgraph
        (a Symbol) is bound once per input signature (``simple_bind``)."""
        self.check_subgraphs("forward")
        graph = self.subgraphs[position]
        names = graph.list_inputs()
        by_name = dict(zip(names, tensors))
        key = (position,) + tuple((tuple(t.shape), t.dtype, t.device) for t in tensors)
        executor = self._executors.get(key)
        if executor is None:
            device = tensors[0].device if tensors else torch.device("cpu")
            ctx = Context("gpu", device.index or 0) if device.type == "cuda" else Context("cpu", 0)
            executor = graph.simple_bind(ctx, grad_req="null",
                                         type_dict={n: numpy_dtype(t.dtype) for n, t in by_name.items()},
                                         **{n: tuple(t.shape) for n, t in by_name.items()})
            self._executors[key] = executor
        return executor.run_tensors([by_name[n] for n in graph.list_arguments()],
                                    [by_name[n] for n in graph.list_auxiliary_states()], is_train)

    # -- inference over a subgraph --------------------------------------------------------------------
    def subgraph_shapes(self, position, in_shapes):
        """``(input shapes, output shapes)`` of subgraph ``position`` from partial input shapes
        (one per ``list_inputs()`` entry, None where unknown)."""
        key = ("shape", position, tuple(None if s is None else tuple(s) for s in in_shapes))
        if key not in self._inferred:
            self._inferred[key] = self.subgraphs[position].infer_input_output_shapes(in_shapes, self.name)
        return self._inferred[key]

    def subgraph_types(self, position, in_types):
        """``(input dtypes, output dtypes)`` of subgraph ``position`` (None where unknown)."""
        key = ("type", position, tuple(in_types))
        if key not in self._inferred:
            self._inferred[key] = self.subgraphs[position].infer_input_output_types(in_types)
        return self._inferred[key]


def _stack_steps(steps, count, template_shapes, dtypes, device):
    """Per-output stacks of the step outputs ``steps`` (a list of lists), padded with zero rows to
    ``count`` rows; ``template_shapes`` / ``dtypes`` give the row shape when no step ran."""
    stacked = []
    for position in range(len(template_shapes)):
        rows = [step[position] for step in steps]
        if rows:
            value = torch.stack(rows, 0)
        else:
            shape = template_shapes[position]
            if shape is None:
                raise MXNetError("_while_loop: the loop body never ran and the shape of its output "
                                 f"{position} could not be inferred")
            value = torch.zeros((0,) + tuple(shape), dtype=dtypes[position], device=device)
        if value.shape[0] < count:
            pad = torch.zeros((count - value.shape[0],) + tuple(value.shape[1:]), dtype=value.dtype,
                              device=value.device)
            value = torch.cat([value, pad], 0)
        stacked.append(value)
    return stacked


def _step_slice(data, step):
    """Step ``step`` of a foreach data input: ``data[step]``, or for 1-D data the slice of shape
    ``(1,)``, as MXNet 1.9.1 gives it (no 0-d arrays)."""
    return data[step:step + 1] if data.dim() == 1 else data[step]


def _step_shape(shape):
    """The shape of one step of a foreach data input of ``shape`` (see :func:`_step_slice`)."""
    if not shape:
        return None
    return tuple(shape[1:]) if len(shape) > 1 else (1,)


@register("_foreach")
class Foreach(_SubgraphOperator):
    """Runs the body subgraph once per slice of the data inputs along axis 0, carrying the states
    (``mx.sym.contrib.foreach``).  Outputs: each body data output stacked over the steps
    (shape ``(T,) + step shape``), then the final states."""

    subgraph_names = ("body",)
    num_out_data = Attr(Int, default=0)
    in_state_locs = Attr(_locations, default=())
    in_data_locs = Attr(_locations, default=())
    remain_locs = Attr(_locations, default=())

    def _split(self, values):
        n_data, n_state = len(self.in_data_locs), len(self.in_state_locs)
        return values[:n_data], values[n_data:n_data + n_state], values[n_data + n_state:]

    def _body_inputs(self, data, states, remain):
        count = len(self.in_data_locs) + len(self.in_state_locs) + len(self.remain_locs)
        values = [None] * count
        for locs, items in ((self.in_data_locs, data), (self.in_state_locs, states), (self.remain_locs, remain)):
            for loc, item in zip(locs, items):
                values[loc] = item
        return values

    def forward(self, is_train, inputs, aux):
        data, states, remain = self._split(list(inputs))
        if not data:
            raise self.error("needs at least one data input")
        length = data[0].shape[0]
        steps = []
        states = list(states)
        for t in range(length):
            results = self.run_subgraph(0, is_train, self._body_inputs([_step_slice(d, t) for d in data], states,
                                                                       remain))
            steps.append(results[:self.num_out_data])
            states = list(results[self.num_out_data:])
        if length == 0:
            raise self.error("the data inputs have length 0 along axis 0")
        return _stack_steps(steps, length, [None] * self.num_out_data, [None] * self.num_out_data,
                            data[0].device) + states

    def infer_shape(self, in_shapes, out_shapes):
        self.check_subgraphs("infer_shape")
        data, states, remain = self._split(list(in_shapes))
        length = next((s[0] for s in data if s), 0)
        states = list(states)
        for index, shape in enumerate(out_shapes[self.num_out_data:]):
            states[index] = merge_shape(states[index], shape, f"Operator {self.name}: state {index}")
        outputs = [None] * self.output_count
        for _ in range(2):   # loop-carried states: the body's output states refine its input states
            body_in = self._body_inputs([_step_shape(s) for s in data], states, remain)
            body_in, body_out = self.subgraph_shapes(0, body_in)
            for index, loc in enumerate(self.in_state_locs):
                states[index] = merge_shape(body_in[loc], body_out[self.num_out_data + index],
                                            f"Operator {self.name}: state {index}")
            outputs = [None if s is None else (length,) + tuple(s) for s in body_out[:self.num_out_data]]
            outputs += states
        data = [merge_shape(d, None if body_in[loc] is None else (length,) if d is not None and len(d) == 1
                            else (length,) + tuple(body_in[loc]))
                if length else d for d, loc in zip(data, self.in_data_locs)]
        remain = [body_in[loc] for loc in self.remain_locs]
        return list(data) + states + remain, outputs, []

    def infer_type(self, in_types):
        self.check_subgraphs("infer_type")
        data, states, remain = self._split(list(in_types))
        body_in, body_out = self.subgraph_types(0, self._body_inputs(data, states, remain))
        data, states, remain = ([body_in[loc] for loc in locs] for locs in
                                (self.in_data_locs, self.in_state_locs, self.remain_locs))
        return data + states + remain, list(body_out), []


@register("_while_loop")
class WhileLoop(_SubgraphOperator):
    """Runs the body subgraph while the condition subgraph gives a true scalar, at most
    ``max_iterations`` times (``mx.sym.contrib.while_loop``).  Outputs: the step outputs stacked
    on axis 0 and padded with zeros to ``max_iterations`` rows, then the final loop variables."""

    subgraph_names = ("cond", "func")
    num_out_data = Attr(Int, default=0)
    max_iterations = Attr(Int, required=True)
    cond_input_locs = Attr(_locations, default=())
    func_input_locs = Attr(_locations, default=())
    func_var_locs = Attr(_locations, default=())

    def forward(self, is_train, inputs, aux):
        values = list(inputs)
        steps = []
        while len(steps) < self.max_iterations:
            (flag,) = self.run_subgraph(0, is_train, [values[i] for i in self.cond_input_locs])
            if flag.numel() != 1:
                raise self.error(f"the condition must give one value, got shape {tuple(flag.shape)}")
            if not bool(flag.reshape(()).item()):
                break
            results = self.run_subgraph(1, is_train, [values[i] for i in self.func_input_locs])
            steps.append(results[:self.num_out_data])
            for var, loc in enumerate(self.func_var_locs):
                values[self.func_input_locs[loc]] = results[self.num_out_data + var]
        finals = [values[self.func_input_locs[loc]] for loc in self.func_var_locs]
        templates, dtypes = [None] * self.num_out_data, [None] * self.num_out_data
        if not steps and self.num_out_data:
            _, shapes = self.subgraph_shapes(1, [tuple(values[i].shape) for i in self.func_input_locs])
            _, types = self.subgraph_types(1, [numpy_dtype(values[i].dtype) for i in self.func_input_locs])
            templates = shapes[:self.num_out_data]
            dtypes = [torch_dtype(t) if t is not None else torch.float32 for t in types[:self.num_out_data]]
        device = values[0].device if values else torch.device("cpu")
        return _stack_steps(steps, self.max_iterations, templates, dtypes, device) + finals

    def infer_shape(self, in_shapes, out_shapes):
        self.check_subgraphs("infer_shape")
        values = list(in_shapes)
        for var, loc in enumerate(self.func_var_locs):
            given = out_shapes[self.num_out_data + var]
            position = self.func_input_locs[loc]
            values[position] = merge_shape(values[position], given, f"Operator {self.name}: loop var {var}")
        func_in, func_out = self.subgraph_shapes(1, [values[i] for i in self.func_input_locs])
        cond_in, _ = self.subgraph_shapes(0, [values[i] for i in self.cond_input_locs])
        for locs, refined in ((self.func_input_locs, func_in), (self.cond_input_locs, cond_in)):
            for position, shape in zip(locs, refined):
                values[position] = merge_shape(values[position], shape, f"Operator {self.name}")
        outputs = [None if s is None else (self.max_iterations,) + tuple(s) for s in func_out[:self.num_out_data]]
        outputs += [values[self.func_input_locs[loc]] for loc in self.func_var_locs]
        return values, outputs, []

    def infer_type(self, in_types):
        self.check_subgraphs("infer_type")
        values = list(in_types)
        func_in, func_out = self.subgraph_types(1, [values[i] for i in self.func_input_locs])
        cond_in, _ = self.subgraph_types(0, [values[i] for i in self.cond_input_locs])
        for locs, refined in ((self.func_input_locs, func_in), (self.cond_input_locs, cond_in)):
            for position, dtype in zip(locs, refined):
                values[position] = values[position] if values[position] is not None else dtype
        outputs = list(func_out[:self.num_out_data]) + [values[self.func_input_locs[loc]]
                                                        for loc in self.func_var_locs]
        return values, outputs, []


@register("_cond")
class Cond(_SubgraphOperator):
    """Runs the then or the else subgraph as the scalar the pred subgraph gives is true or false
    (``mx.sym.contrib.cond``); the outputs are the chosen branch's."""

    subgraph_names = ("pred", "then", "else")
    cond_input_locs = Attr(_locations, default=())
    then_input_locs = Attr(_locations, default=())
    else_input_locs = Attr(_locations, default=())

    def forward(self, is_train, inputs, aux):
        (flag,) = self.run_subgraph(0, is_train, [inputs[i] for i in self.cond_input_locs])
        if flag.numel() != 1:
            raise self.error(f"pred must give one value, got shape {tuple(flag.shape)}")
        branch, locs = (1, self.then_input_locs) if bool(flag.reshape(()).item()) else (2, self.else_input_locs)
        return list(self.run_subgraph(branch, is_train, [inputs[i] for i in locs]))

    def infer_shape(self, in_shapes, out_shapes):
        self.check_subgraphs("infer_shape")
        values = list(in_shapes)
        outputs = list(out_shapes)
        for position, locs in ((0, self.cond_input_locs), (1, self.then_input_locs), (2, self.else_input_locs)):
            refined, result = self.subgraph_shapes(position, [values[i] for i in locs])
            for i, shape in zip(locs, refined):
                values[i] = merge_shape(values[i], shape, f"Operator {self.name}")
            if position:
                outputs = [merge_shape(o, r, f"Operator {self.name}: output") for o, r in zip(outputs, result)]
        return values, outputs, []

    def infer_type(self, in_types):
        self.check_subgraphs("infer_type")
        values = list(in_types)
        outputs = [None] * self.output_count
        for position, locs in ((0, self.cond_input_locs), (1, self.then_input_locs), (2, self.else_input_locs)):
            refined, result = self.subgraph_types(position, [values[i] for i in locs])
            for i, dtype in zip(locs, refined):
                values[i] = values[i] if values[i] is not None else dtype
            if position:
                outputs = [o if o is not None else r for o, r in zip(outputs, result)]
        return values, outputs, []
