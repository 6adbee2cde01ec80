"""Plan-level pattern fusion: unrolled ``LSTMCell`` / ``GRUCell`` runs as torch's fused RNN.

``mx.rnn.LSTMCell.unroll`` (and any graph written the same way) builds, per time step ``t``::

    gates   = FullyConnected(x_t, i2h_weight, i2h_bias) + FullyConnected(h_{t-1}, h2h_weight, h2h_bias)
    i, f, g, o = SliceChannel(gates, num_outputs=4)          # axis 1
    c_t     = sigmoid(f) * c_{t-1} + sigmoid(i) * tanh(g)
    h_t     = sigmoid(o) * tanh(c_t)

which is, gate for gate and in the same gate order, the recurrence of torch's LSTM
(``torch.nn.LSTM``: ``i, f, g, o`` chunks of ``x W_ih^T + b_ih + h W_hh^T + b_hh``).
Each node is recognised by what its operator declares (``arithmetic_kind()``,
``activation_kind()``, ``split_sections()``, ``dense_units()``), not by its name, so the
same recurrence written with ``sigmoid`` / ``tanh`` / ``split`` is found too.
``mx.rnn.GRUCell`` splits i2h and h2h into ``r, z, n`` thirds and computes
``n = tanh(i2h_n + r * h2h_n)``, ``h_t = (1 - z) * n + z * h_{t-1}``: torch's GRU, gate for gate.
:func:`fuse_recurrent_chains` finds runs of such cells sharing their four weights, where each
cell's states feed the next one, and replaces each run of two or more by one step calling
``torch._VF.lstm`` / ``torch._VF.gru`` over the stacked inputs: one C++ (oneDNN) kernel and
its autograd node instead of about fifteen operator calls per time step.

The replacement is made only where nothing else can tell: every intermediate value of a
cell (the FullyConnected outputs, the slices, gates and products) has no reader outside the
cell and is not a graph output; an LSTM cell's ``c_t`` is read only by its own ``tanh`` and
the next cell (the last cell's ``c_t`` may be read anywhere); every ``h_t`` may be read
anywhere (it is an output of the fused step); the data and states are 2-D float32/float64
with one hidden size; both FullyConnected have biases or neither has; and no input of the run
depends on an output of the run (a decoder feeding its output back is left unfused).  The
executor runs the unfused plan when a monitor is installed (it reports every node) and under
``group2ctx`` placement; ``MXTORCH_FUSE_RNN=0`` (read when an executor is bound) turns the
fusion off.
"""
from __future__ import annotations

import heapq
import os

import torch

from ..ops.registry import Operator

__all__ = ["fuse_recurrent_chains", "FusedRecurrent"]

_FLOATS = frozenset({"float32", "float64"})


# what a node of a cell must compute, asked of its operator
def _adds(op):
    return op.arithmetic_kind() == "add"


def _multiplies(op):
    return op.arithmetic_kind() == "multiply"


def _is_dense(op):
    return op.dense_units() is not None


def _splits(op):
    return op.split_sections() is not None


def _activation(kind):
    def test(op):
        return op.activation_kind() == kind
    return test


def fusion_enabled():
    """``MXTORCH_FUSE_RNN`` is not '0' (read when an executor is bound)."""
    return os.environ.get("MXTORCH_FUSE_RNN", "1").strip().lower() not in ("0", "off", "false", "no")


class _Name:
    """Stands in for a graph node in a fused step (only the name is read)."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


class FusedRecurrent(Operator):
    """The operator of a fused step, ``mode`` 'lstm' or 'gru': inputs ``x_0 .. x_{T-1}``, the
    initial states (``h_0, c_0`` / ``h_0``), ``W_ih, W_hh`` (then ``b_ih, b_hh`` with biases), each
    ``x_t`` ``(batch, input)``, states ``(batch, hidden)``; outputs ``h_1 .. h_T`` (and ``c_T``).
    A plan step, not a registered operator."""

    def __init__(self, mode, length, has_biases):
        self.attrs = {}
        self.mode = mode
        self.name = f"_fused_{mode}"
        self.length = length
        self.has_biases = has_biases
        self.states = 2 if mode == "lstm" else 1

    def arguments(self):
        return (["data"] * (self.length + self.states) + ["weight", "weight"]
                + (["bias", "bias"] if self.has_biases else []))

    def auxiliary_states(self):
        return []

    def num_outputs(self):
        return self.length + self.states - 1

    def num_visible_outputs(self):
        return self.num_outputs()

    def forward(self, is_train, inputs, aux):
        length = self.length
        sequence = torch.stack(inputs[:length])
        states = [state.unsqueeze(0) for state in inputs[length:length + self.states]]
        params = inputs[length + self.states:]
        if self.mode == "lstm":
            output, _, last_cell = torch._VF.lstm(sequence, tuple(states), params, self.has_biases, 1, 0.0,
                                                  bool(is_train), False, False)
            return list(output.unbind(0)) + [last_cell[0]]
        output, _ = torch._VF.gru(sequence, states[0], params, self.has_biases, 1, 0.0, bool(is_train), False, False)
        return list(output.unbind(0))

    apply = forward


class _Cell:
    """One matched time step: the positions of its steps and the slots it reads and writes."""
    __slots__ = ("mode", "positions", "fcs", "c_prev", "c_new", "h_new", "x", "h_prev", "i2h", "h2h")

    def __init__(self, positions, fcs, c_prev, c_new, h_new, mode="lstm"):
        self.mode = mode
        self.positions = positions
        self.fcs = fcs          # the two FullyConnected steps (which is i2h is decided by the chain)
        self.c_prev = c_prev
        self.c_new = c_new
        self.h_new = h_new
        self.x = self.h_prev = self.i2h = self.h2h = None


def _weights(fc):
    return tuple(fc.inputs[1:])


def _reader_finder(steps, readers, outputs):
    def only_reader(slot, test):
        """The position of the one step reading ``slot`` when its operator passes ``test`` and
        ``slot`` is not a graph output, else None."""
        found = readers.get(slot, ())
        if len(found) != 1 or slot in outputs or not test(steps[found[0]].op):
            return None
        return found[0]
    return only_reader


def _is_split(step, sections):
    return step.op.split_sections() == (sections, 1)


def _match_cell(position, steps, producer, readers, outputs):
    """The LSTM cell whose SliceChannel is ``steps[position]``, or None."""
    split = steps[position]
    if not _is_split(split, 4):
        return None
    only_reader = _reader_finder(steps, readers, outputs)

    def activation(slot, act_type):
        return only_reader(slot, _activation(act_type))

    gate_acts = [activation(slot, kind) for slot, kind in
                 zip(split.outputs, ("sigmoid", "sigmoid", "tanh", "sigmoid"))]
    if None in gate_acts:
        return None
    i_act, f_act, g_act, o_act = (steps[p] for p in gate_acts)
    forget_mul = only_reader(f_act.outputs[0], _multiplies)
    input_mul = only_reader(i_act.outputs[0], _multiplies)
    if forget_mul is None or input_mul is None or input_mul != only_reader(g_act.outputs[0], _multiplies):
        return None
    if sorted(steps[input_mul].inputs) != sorted([i_act.outputs[0], g_act.outputs[0]]):
        return None
    forget_inputs = steps[forget_mul].inputs
    c_prev = forget_inputs[1] if forget_inputs[0] == f_act.outputs[0] else forget_inputs[0]
    if c_prev == f_act.outputs[0]:
        return None
    cell_add = only_reader(steps[forget_mul].outputs[0], _adds)
    if cell_add is None or only_reader(steps[input_mul].outputs[0], _adds) != cell_add:
        return None
    c_new = steps[cell_add].outputs[0]
    tanh_positions = [p for p in readers.get(c_new, ()) if steps[p].op.activation_kind() == "tanh"]
    hidden_mul = only_reader(o_act.outputs[0], _multiplies)
    tanh = next((p for p in tanh_positions if readers.get(steps[p].outputs[0]) == [hidden_mul]
                 and steps[p].outputs[0] not in outputs), None)
    if hidden_mul is None or tanh is None:
        return None
    if sorted(steps[hidden_mul].inputs) != sorted([o_act.outputs[0], steps[tanh].outputs[0]]):
        return None
    total = producer.get(split.inputs[0])
    if total is None or not _adds(steps[total].op) or only_reader(split.inputs[0], _splits) is None:
        return None
    fcs = [producer.get(slot) for slot in steps[total].inputs]
    if None in fcs or fcs[0] == fcs[1] or any(only_reader(steps[total].inputs[k], _adds) != total for k in (0, 1)):
        return None
    fc_steps = [steps[p] for p in fcs]
    if not _dense_pair(fc_steps, 4):
        return None
    positions = [position, total, cell_add, tanh, hidden_mul, forget_mul, input_mul] + gate_acts + fcs
    return _Cell(positions, fc_steps, c_prev, c_new, steps[hidden_mul].outputs[0])


def _match_gru_cell(position, steps, producer, readers, outputs):
    """The GRU cell (``mx.rnn.GRUCell``: r, z, n slices of i2h and h2h; ``n = tanh(i2h_n + r *
    h2h_n)``; ``h = (1 - z) * n + z * h_prev``) whose candidate tanh is ``steps[position]``."""
    tanh = steps[position]
    if tanh.op.activation_kind() != "tanh":
        return None
    only_reader = _reader_finder(steps, readers, outputs)

    def made_by(slot, test):
        at = producer.get(slot)
        return at if at is not None and test(steps[at].op) else None

    def part(slot):
        """``(split position, index)`` when ``slot`` is an output of a 3-way split read only once."""
        at = producer.get(slot)
        if at is None or not _is_split(steps[at], 3) or len(readers.get(slot, ())) != 1 or slot in outputs:
            return None
        return at, steps[at].outputs.index(slot)

    candidate_add = made_by(tanh.inputs[0], _adds)
    if candidate_add is None or only_reader(tanh.inputs[0], _activation("tanh")) != position:
        return None
    reset_mul = x_part = None
    for first, second in (steps[candidate_add].inputs, steps[candidate_add].inputs[::-1]):
        if made_by(second, _multiplies) is not None and part(first) is not None and part(first)[1] == 2:
            reset_mul, x_part = made_by(second, _multiplies), part(first)
            break
    if reset_mul is None or only_reader(steps[reset_mul].outputs[0], _adds) != candidate_add:
        return None
    reset_act = h_part = None
    for first, second in (steps[reset_mul].inputs, steps[reset_mul].inputs[::-1]):
        act = made_by(first, _activation("sigmoid"))
        if act is not None and part(second) is not None and part(second)[1] == 2:
            reset_act, h_part = act, part(second)
            break
    if reset_act is None or x_part[0] == h_part[0] or only_reader(steps[reset_act].outputs[0], _multiplies) != reset_mul:
        return None
    split_x, split_h = steps[x_part[0]], steps[h_part[0]]

    def gate(index, reader=None):
        """The sigmoid over ``split_x[index] + split_h[index]``."""
        total = only_reader(split_x.outputs[index], _adds)
        if total is None or only_reader(split_h.outputs[index], _adds) != total:
            return None
        act = only_reader(steps[total].outputs[0], _activation("sigmoid")) if reader is None else reader
        if act is None or not _activation("sigmoid")(steps[act].op) or steps[act].inputs[0] != steps[total].outputs[0]:
            return None
        return total, act
    reset = gate(0, reset_act)
    update_total = only_reader(split_x.outputs[1], _adds)
    if reset is None or update_total is None:
        return None
    update_readers = readers.get(steps[update_total].outputs[0], ())
    update = gate(1, update_readers[0] if len(update_readers) == 1 else None)
    if update is None:
        return None
    z = steps[update[1]].outputs[0]
    z_readers = readers.get(z, ())
    if z in outputs or len(z_readers) != 2:
        return None
    minus = next((p for p in z_readers if steps[p].op.arithmetic_kind() == "one_minus"), None)
    keep = next((p for p in z_readers if _multiplies(steps[p].op)), None)
    if minus is None or keep is None:
        return None
    new_mul = only_reader(steps[minus].outputs[0], _multiplies)
    if new_mul is None or only_reader(tanh.outputs[0], _multiplies) != new_mul:
        return None
    keep_inputs = steps[keep].inputs
    h_prev = keep_inputs[1] if keep_inputs[0] == z else keep_inputs[0]
    out = only_reader(steps[new_mul].outputs[0], _adds)
    if out is None or only_reader(steps[keep].outputs[0], _adds) != out:
        return None
    i2h, h2h = made_by(split_x.inputs[0], _is_dense), made_by(split_h.inputs[0], _is_dense)
    if i2h is None or h2h is None or steps[h2h].inputs[0] != h_prev:
        return None
    if only_reader(split_x.inputs[0], _splits) is None or only_reader(split_h.inputs[0], _splits) is None:
        return None
    fc_x, fc_h = steps[i2h], steps[h2h]
    if not _dense_pair([fc_x, fc_h], 3):
        return None
    positions = [position, candidate_add, reset_mul, reset_act, x_part[0], h_part[0], reset[0], update[0],
                 update[1], minus, keep, new_mul, out, i2h, h2h]
    cell = _Cell(positions, [fc_x, fc_h], None, None, steps[out].outputs[0], mode="gru")
    _set_h2h(cell, fc_h)
    return cell


def _dense_pair(fcs, gates):
    """Whether the two steps ``fcs`` are dense layers (``dense_units()``) of one size, divisible
    by ``gates``, both with biases or neither."""
    units = [fc.op.dense_units() for fc in fcs]
    return (units[0] is not None and units[0] == units[1] and units[0] % gates == 0
            and len(fcs[0].inputs) == len(fcs[1].inputs))


def _check_shapes(chain, shapes, dtypes):
    """Whether every tensor of the chain is 2-D, of one floating dtype, with one hidden size."""
    first = chain[0]
    hidden = first.i2h.op.dense_units() // (4 if first.mode == "lstm" else 3)
    slots = [first.h_prev] + [cell.h_new for cell in chain]
    if first.mode == "lstm":
        slots += [first.c_prev, chain[-1].c_new]
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
    return [run for chain in _runs(cells, followers) for run in _split_consistent(chain)]


def _runs(cells, followers):
    """The maximal runs ``[cell, followers[cell], ...]`` of ``cells`` (``followers`` keyed by
    ``id``), each starting at a cell that follows none."""
    led = {id(cell) for cell in followers.values()}
    chains = []
    for cell in cells:
        if id(cell) in led:
            continue
        chain = [cell]
        while id(chain[-1]) in followers:
            chain.append(followers[id(chain[-1])])
        chains.append(chain)
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


def _gru_chains(cells):
    """Runs of GRU cells, each reading the previous one's output through h2h, same weights."""
    by_h_prev = {}
    for cell in cells:
        by_h_prev.setdefault(cell.h_prev, []).append(cell)
    followers = {}
    for cell in cells:
        nexts = [n for n in by_h_prev.get(cell.h_new, []) if _weights(n.h2h) == _weights(cell.h2h)
                 and _weights(n.i2h) == _weights(cell.i2h)]
        if len(nexts) == 1 and _weights(cell.i2h) != _weights(cell.h2h):
            followers[id(cell)] = nexts[0]
    return [chain for chain in _runs(cells, followers) if len(chain) >= 2]


def fuse_recurrent_chains(steps, output_slots, shapes, dtypes, make_step):
    """``steps`` (the executor's plan) with each fusable LSTMCell / GRUCell run replaced by one
    step.

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
    lstm = [cell for cell in (_match_cell(p, steps, producer, readers, outputs) for p in range(len(steps)))
            if cell is not None]
    gru = [cell for cell in (_match_gru_cell(p, steps, producer, readers, outputs) for p in range(len(steps)))
           if cell is not None]
    chains = (_chains(lstm, readers, outputs) if len(lstm) >= 2 else []) + (_gru_chains(gru) if len(gru) >= 2 else [])
    chains = [chain for chain in chains if _check_shapes(chain, shapes, dtypes)]
    if not chains:
        return steps
    units, removed = [], set()
    for chain in chains:
        first = chain[0]
        has_biases = len(first.i2h.inputs) == 3
        params = [first.i2h.inputs[1], first.h2h.inputs[1]]
        if has_biases:
            params += [first.i2h.inputs[2], first.h2h.inputs[2]]
        op = FusedRecurrent(first.mode, len(chain), has_biases)
        states = [first.h_prev] + ([first.c_prev] if first.mode == "lstm" else [])
        results = [cell.h_new for cell in chain] + ([chain[-1].c_new] if first.mode == "lstm" else [])
        step = make_step(_Name(f"{first.i2h.node.name}..{chain[-1].h2h.node.name}"), op,
                         [cell.x for cell in chain] + states + params, results)
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
