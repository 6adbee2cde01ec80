"""Plan-level pattern fusion: unrolled ``LSTMCell`` chains run as torch's fused LSTM.

``mx.rnn.LSTMCell.unroll`` (and any graph written the same way) builds, per time step ``t``::

    gates   = FullyConnected(x_t, i2h_weight, i2h_bias) + FullyConnected(h_{t-1}, h2h_weight, h2h_bias)
    i, f, g, o = SliceChannel(gates, num_outputs=4)          # axis 1
    c_t     = sigmoid(f) * c_{t-1} + sigmoid(i) * tanh(g)
    h_t     = sigmoid(o) * tanh(c_t)

which is, gate for gate and in the same gate order, the recurrence of torch's LSTM
(``torch.nn.LSTM``: ``i, f, g, o`` chunks of ``x W_ih^T + b_ih + h W_hh^T + b_hh``).
:func:`fuse_lstm_chains` finds runs of such cells sharing their four weights, where each
cell's ``h`` and ``c`` feed the next one, and replaces each run of two or more by one step
calling ``torch._VF.lstm`` over the stacked inputs: one C++ loop (and its autograd graph)
instead of about fifteen operator calls per time step.

The replacement is made only where nothing else can tell: every intermediate value of a
cell (the two products, their sum, the gates) has no reader outside the cell and is not a
graph output; a cell's ``c_t`` is read only by its own ``tanh`` and the next cell (the last
cell's ``c_t`` may be read anywhere); the ``h_t`` of every cell may be read anywhere (it is
an output of the fused step); the data and states are 2-D float32/float64 with one hidden
size; both FullyConnected have biases or neither has; and no input of the run depends on an
output of the run (a decoder feeding its output back is left unfused).  The executor runs
the unfused plan when a monitor is installed (it reports every node) and under
``group2ctx`` placement; ``MXTORCH_FUSE_RNN=0`` turns the fusion off.
"""
from __future__ import annotations

import heapq
import os

import torch

__all__ = ["fuse_lstm_chains", "FusedLSTM"]

_ADD = frozenset({"elemwise_add", "_plus", "_Plus", "_add"})
_MUL = frozenset({"elemwise_mul", "_mul", "_Mul"})
_FLOATS = frozenset({"float32", "float64"})


def fusion_enabled():
    """``MXTORCH_FUSE_RNN`` is not '0' (read when an executor is bound)."""
    return os.environ.get("MXTORCH_FUSE_RNN", "1").strip().lower() not in ("0", "off", "false", "no")


class _Name:
    """Stands in for a graph node in a fused step (only the name is read)."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


class FusedLSTM:
    """The operator of a fused step: inputs ``x_0 .. x_{T-1}, h_0, c_0, W_ih, W_hh`` (then
    ``b_ih, b_hh`` with biases), each ``x_t`` ``(batch, input)``, states ``(batch, hidden)``;
    outputs ``h_1 .. h_T`` and ``c_T``."""

    name = "_fused_lstm"
    is_loss = False
    backward = None

    def __init__(self, length, has_biases):
        self.length = length
        self.has_biases = has_biases

    def arguments(self):
        return ["data"] * (self.length + 2) + ["weight", "weight"] + (["bias", "bias"] if self.has_biases else [])

    def auxiliary_states(self):
        return []

    def num_outputs(self):
        return self.length + 1

    def num_visible_outputs(self):
        return self.length + 1

    def forward(self, is_train, inputs, aux):
        length = self.length
        sequence = torch.stack(inputs[:length])
        hidden, cell = inputs[length], inputs[length + 1]
        params = inputs[length + 2:]
        output, _, last_cell = torch._VF.lstm(sequence, (hidden.unsqueeze(0), cell.unsqueeze(0)), params,
                                              self.has_biases, 1, 0.0, bool(is_train), False, False)
        return list(output.unbind(0)) + [last_cell[0]]

    apply = forward


class _Cell:
    """One matched time step: the positions of its steps and the slots it reads and writes."""
    __slots__ = ("positions", "fcs", "c_prev", "c_new", "h_new", "x", "h_prev", "i2h", "h2h")

    def __init__(self, positions, fcs, c_prev, c_new, h_new):
        self.positions = positions
        self.fcs = fcs          # the two FullyConnected steps (which is i2h is decided by the chain)
        self.c_prev = c_prev
        self.c_new = c_new
        self.h_new = h_new
        self.x = self.h_prev = self.i2h = self.h2h = None


def _weights(fc):
    return tuple(fc.inputs[1:])


def _match_cell(position, steps, producer, readers, outputs):
    """The cell whose SliceChannel is ``steps[position]``, or None."""
    split = steps[position]
    if split.op.name != "SliceChannel" or split.op.sections != 4 or split.op.squeeze_axis or split.op.axis != 1:
        return None

    def only_reader(slot, names):
        found = readers.get(slot, ())
        if len(found) != 1 or slot in outputs or steps[found[0]].op.name not in names:
            return None
        return found[0]

    def activation(slot, act_type):
        at = only_reader(slot, ("Activation",))
        return at if at is not None and steps[at].op.act_type == act_type else None

    gate_acts = [activation(slot, kind) for slot, kind in
                 zip(split.outputs, ("sigmoid", "sigmoid", "tanh", "sigmoid"))]
    if None in gate_acts:
        return None
    i_act, f_act, g_act, o_act = (steps[p] for p in gate_acts)
    forget_mul = only_reader(f_act.outputs[0], _MUL)
    input_mul = only_reader(i_act.outputs[0], _MUL)
    if forget_mul is None or input_mul is None or input_mul != only_reader(g_act.outputs[0], _MUL):
        return None
    if sorted(steps[input_mul].inputs) != sorted([i_act.outputs[0], g_act.outputs[0]]):
        return None
    forget_inputs = steps[forget_mul].inputs
    c_prev = forget_inputs[1] if forget_inputs[0] == f_act.outputs[0] else forget_inputs[0]
    if c_prev == f_act.outputs[0]:
        return None
    cell_add = only_reader(steps[forget_mul].outputs[0], _ADD)
    if cell_add is None or only_reader(steps[input_mul].outputs[0], _ADD) != cell_add:
        return None
    c_new = steps[cell_add].outputs[0]
    tanh_positions = [p for p in readers.get(c_new, ()) if steps[p].op.name == "Activation"
                      and steps[p].op.act_type == "tanh"]
    hidden_mul = only_reader(o_act.outputs[0], _MUL)
    tanh = next((p for p in tanh_positions if readers.get(steps[p].outputs[0]) == [hidden_mul]
                 and steps[p].outputs[0] not in outputs), None)
    if hidden_mul is None or tanh is None:
        return None
    if sorted(steps[hidden_mul].inputs) != sorted([o_act.outputs[0], steps[tanh].outputs[0]]):
        return None
    total = producer.get(split.inputs[0])
    if total is None or steps[total].op.name not in _ADD or only_reader(split.inputs[0], ("SliceChannel",)) is None:
        return None
    fcs = [producer.get(slot) for slot in steps[total].inputs]
    if None in fcs or fcs[0] == fcs[1] or any(only_reader(steps[total].inputs[k], _ADD) != total for k in (0, 1)):
        return None
    fc_steps = [steps[p] for p in fcs]
    if any(fc.op.name != "FullyConnected" for fc in fc_steps):
        return None
    if fc_steps[0].op.no_bias != fc_steps[1].op.no_bias:
        return None
    if fc_steps[0].op.num_hidden != fc_steps[1].op.num_hidden or fc_steps[0].op.num_hidden % 4:
        return None
    positions = [position, total, cell_add, tanh, hidden_mul, forget_mul, input_mul] + gate_acts + fcs
    return _Cell(positions, fc_steps, c_prev, c_new, steps[hidden_mul].outputs[0])


def _check_shapes(chain, shapes, dtypes):
    """Whether every tensor of the chain is 2-D, of one floating dtype, with one hidden size."""
    first = chain[0]
    hidden = first.i2h.op.num_hidden // 4
    slots = [first.h_prev, first.c_prev] + [cell.h_new for cell in chain] + [chain[-1].c_new]
    batch = None
    for slot in slots:
        shape = shapes.get(slot)
        if shape is None or len(shape) != 2 or shape[1] != hidden:
            return False
        batch = shape[0] if batch is None else batch
        if shape[0] != batch:
            return False
    for cell in chain:
        shape = shapes.get(cell.x)
        if shape is None or len(shape) != 2 or shape[0] != batch:
            return False
    kinds = {dtypes.get(slot) for slot in slots + [cell.x for cell in chain] + list(_weights(first.i2h))
             + list(_weights(first.h2h))}
    return len(kinds) == 1 and kinds.pop() in _FLOATS


def _chains(cells, readers, outputs):
    """Runs of linked cells (each one's ``c_new`` and ``h_new`` feeding the next, same weights)."""
    by_c_prev = {}
    for cell in cells:
        by_c_prev.setdefault(cell.c_prev, []).append(cell)
    followers = {}
    for cell in cells:
        nexts = by_c_prev.get(cell.c_new, [])
        # c_t read only by its own tanh and the next cell's forget product
        if len(nexts) == 1 and len(readers.get(cell.c_new, ())) == 2 and cell.c_new not in outputs:
            followers[id(cell)] = nexts[0]
    led = {id(cell) for cell in followers.values()}
    chains = []
    for cell in cells:
        if id(cell) in led:
            continue
        chain = [cell]
        while id(chain[-1]) in followers:
            chain.append(followers[id(chain[-1])])
        chains.extend(_split_consistent(chain))
    return chains


def _set_h2h(cell, h2h):
    cell.h2h = h2h
    cell.i2h = cell.fcs[1] if cell.fcs[0] is h2h else cell.fcs[0]
    cell.h_prev, cell.x = h2h.inputs[0], cell.i2h.inputs[0]


def _link(previous, cell, first):
    """Orient ``cell`` (and ``previous`` when it starts the run) and say whether it continues
    the run: it reads ``previous.h_new`` through an h2h with the run's weights."""
    candidates = [fc for fc in cell.fcs if fc.inputs[0] == previous.h_new]
    if len(candidates) == 2 and previous.h2h is not None:
        candidates = [fc for fc in candidates if _weights(fc) == _weights(previous.h2h)]
    if len(candidates) != 1:
        return False
    _set_h2h(cell, candidates[0])
    if _weights(cell.i2h) == _weights(cell.h2h):
        return False
    if first:
        # the run's first cell: its h2h is the FullyConnected with the follower's h2h weights
        same = [fc for fc in previous.fcs if _weights(fc) == _weights(cell.h2h)]
        if len(same) != 1:
            return False
        _set_h2h(previous, same[0])
    return _weights(cell.h2h) == _weights(previous.h2h) and _weights(cell.i2h) == _weights(previous.i2h)


def _split_consistent(chain):
    """Cut a run of c-linked cells where the h link or the weights do not continue."""
    runs, current = [], []
    for cell in chain:
        if current and _link(current[-1], cell, first=len(current) == 1):
            current.append(cell)
            continue
        if len(current) >= 2:
            runs.append(current)
        cell.h2h = cell.i2h = cell.h_prev = cell.x = None
        current = [cell]
    if len(current) >= 2:
        runs.append(current)
    return runs


def fuse_lstm_chains(steps, output_slots, shapes, dtypes, make_step):
    """``steps`` (the executor's plan) with each fusable LSTMCell run replaced by one step.

    ``shapes`` / ``dtypes``: ``{slot: shape}`` / ``{slot: dtype name}``; ``make_step(name, op,
    inputs, outputs)`` builds a plan step.  Returns the new list (``steps`` itself when nothing
    is fused), in an order where every step follows the producers of its inputs.
    """
    producer, readers = {}, {}
    for position, step in enumerate(steps):
        for slot in step.outputs:
            producer[slot] = position
        for slot in list(step.inputs) + list(step.aux):
            readers.setdefault(slot, []).append(position)
    outputs = set(output_slots)
    cells = [cell for cell in (_match_cell(p, steps, producer, readers, outputs) for p in range(len(steps)))
             if cell is not None]
    if len(cells) < 2:
        return steps
    chains = [chain for chain in _chains(cells, readers, outputs) if _check_shapes(chain, shapes, dtypes)]
    if not chains:
        return steps
    units, removed = [], set()
    for chain in chains:
        first = chain[0]
        has_biases = not first.i2h.op.no_bias
        params = [first.i2h.inputs[1], first.h2h.inputs[1]]
        if has_biases:
            params += [first.i2h.inputs[2], first.h2h.inputs[2]]
        op = FusedLSTM(len(chain), has_biases)
        step = make_step(_Name(f"{first.i2h.node.name}..{chain[-1].h2h.node.name}"), op,
                         [cell.x for cell in chain] + [first.h_prev, first.c_prev] + params,
                         [cell.h_new for cell in chain] + [chain[-1].c_new])
        units.append((min(p for cell in chain for p in cell.positions), step))
        removed.update(p for cell in chain for p in cell.positions)
    units.extend((position, step) for position, step in enumerate(steps) if position not in removed)
    ordered = _topological(units)
    return steps if ordered is None else ordered


def _topological(units):
    """The steps of ``units`` (``(priority, step)``) ordered so that producers come first, ties
    by priority (the original order); None on a cycle (a run whose input needs its output)."""
    made = {}
    for index, (_, step) in enumerate(units):
        for slot in step.outputs:
            made[slot] = index
    waiting = [0] * len(units)
    dependants = [[] for _ in units]
    for index, (_, step) in enumerate(units):
        sources = {made[slot] for slot in list(step.inputs) + list(step.aux) if slot in made}
        waiting[index] = len(sources)
        for source in sources:
            dependants[source].append(index)
    ready = [(units[i][0], i) for i in range(len(units)) if waiting[i] == 0]
    heapq.heapify(ready)
    ordered = []
    while ready:
        _, index = heapq.heappop(ready)
        ordered.append(units[index][1])
        for dependant in dependants[index]:
            waiting[dependant] -= 1
            if waiting[dependant] == 0:
                heapq.heappush(ready, (units[dependant][0], dependant))
    return ordered if len(ordered) == len(units) else None
