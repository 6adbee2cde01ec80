"""Recurrent cells (MXNet's ``gluon.rnn.rnn_cell``): one time step each, and ``unroll`` over
a sequence.

A cell is called as ``output, new_states = cell(x_t, states)`` with ``x_t`` ``(batch,
input)`` and states as given by ``state_info`` / ``begin_state``.  ``unroll(length, inputs,
begin_state, layout, merge_outputs, valid_length)`` steps through ``inputs`` (one array
with a time axis per ``layout``, or a list of per-step arrays) and returns the outputs
(merged into one array or a list) and the final states; with ``valid_length`` ``(batch,)``
the outputs past each sequence's length are zero and the states are those of its last
valid step.  Parameter names are MXNet's (``lstm0_i2h_weight`` of shape
``(4 * hidden, input)``, ...), the gate order too (LSTM i, f, c, o; GRU r, z, n).
"""
from __future__ import annotations

import numbers

import numpy as np

from ... import ndarray, symbol
from ...base import MXNetError
from ..base_block import _indent
from ..block import Block, HybridBlock
from ..nn import LeakyReLU
from ..parameter import tensor_types

__all__ = ["RecurrentCell", "HybridRecurrentCell", "RNNCell", "LSTMCell", "GRUCell", "SequentialRNNCell",
           "HybridSequentialRNNCell", "DropoutCell", "ModifierCell", "ZoneoutCell", "ResidualCell",
           "BidirectionalCell"]

numeric_types = (numbers.Number, np.generic)
string_types = (str,)


def _as_list(value):
    if isinstance(value, symbol.Symbol):
        return list(value) if len(value.list_outputs()) > 1 else [value]
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _cells_state_info(cells, batch_size):
    return sum((cell.state_info(batch_size) for cell in cells), [])


def _cells_begin_state(cells, **kwargs):
    return sum((cell.begin_state(**kwargs) for cell in cells), [])


def _get_begin_state(cell, F, begin_state, inputs, batch_size):
    if begin_state is not None:
        return begin_state
    if F is ndarray:
        ctx = inputs.context if isinstance(inputs, tensor_types) else inputs[0].context
        return cell.begin_state(func=F.zeros, batch_size=batch_size, ctx=ctx)
    return cell.begin_state(func=F.zeros, batch_size=batch_size)


def _format_sequence(length, inputs, layout, merge, in_layout=None):
    """``inputs`` as a list of steps (``merge`` False), one array (True) or as given (None);
    returns ``(inputs, time axis, F, batch size)``."""
    if inputs is None:
        raise MXNetError("unroll(inputs=None) has been deprecated. Please create input variables outside unroll.")
    axis = layout.find("T")
    batch_axis = layout.find("N")
    batch_size = 0
    in_axis = in_layout.find("T") if in_layout is not None else axis
    if isinstance(inputs, symbol.Symbol):
        F = symbol
        if merge is False:
            if len(inputs.list_outputs()) != 1:
                raise MXNetError("unroll doesn't allow grouped symbol as input. Please convert to list with "
                                 "list(inputs) first or let unroll handle splitting.")
            inputs = list(symbol.split(inputs, axis=in_axis, num_outputs=length, squeeze_axis=1))
    elif isinstance(inputs, ndarray.NDArray):
        F = ndarray
        batch_size = inputs.shape[batch_axis]
        if merge is False:
            if length is not None and length != inputs.shape[in_axis]:
                raise MXNetError(f"unroll: length {length} differs from the input's time axis "
                                 f"{inputs.shape[in_axis]}")
            inputs = _as_list(ndarray.split(inputs, axis=in_axis, num_outputs=inputs.shape[in_axis],
                                            squeeze_axis=1))
    else:
        if length is not None and len(inputs) != length:
            raise MXNetError(f"unroll: length {length} differs from the number of inputs {len(inputs)}")
        if isinstance(inputs[0], symbol.Symbol):
            F = symbol
        else:
            F = ndarray
            batch_size = inputs[0].shape[0]     # each step is (batch, ...) whatever the layout
        if merge is True:
            inputs = F.concat(*[F.expand_dims(item, axis=axis) for item in inputs], dim=axis)
            in_axis = axis
    if isinstance(inputs, tensor_types) and axis != in_axis:
        inputs = F.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis, F, batch_size


def _mask_sequence_variable_length(F, data, length, valid_length, time_axis, merge):
    if not isinstance(data, tensor_types):
        data = F.stack(*data, axis=time_axis)
    outputs = F.SequenceMask(data, sequence_length=valid_length, use_sequence_length=True, axis=time_axis)
    if not merge:
        outputs = _as_list(F.split(outputs, num_outputs=length, axis=time_axis, squeeze_axis=True))
    return outputs


def _reverse_sequences(sequences, unroll_step, valid_length=None):
    F = symbol if isinstance(sequences[0], symbol.Symbol) else ndarray
    if valid_length is None:
        return list(reversed(sequences))
    reversed_sequences = F.SequenceReverse(F.stack(*sequences, axis=0), sequence_length=valid_length,
                                           use_sequence_length=True)
    if unroll_step > 1 or F is symbol:
        return _as_list(F.split(reversed_sequences, axis=0, num_outputs=unroll_step, squeeze_axis=True))
    return [reversed_sequences[0]]


class RecurrentCell(Block):
    """The base class of the cells.  ``state_info(batch_size)``: one dict (``shape``,
    ``__layout__``) per state; ``begin_state(batch_size, func=mx.nd.zeros, **kwargs)``: the
    initial states; ``reset()`` before a new sequence (``unroll`` does it)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self):
        """Restart the step counters (names of traced operators ``t<step>_...``)."""
        self._init_counter = -1
        self._counter = -1
        for cell in self._children.values():
            cell.reset()

    def state_info(self, batch_size=0):
        raise NotImplementedError

    def begin_state(self, batch_size=0, func=ndarray.zeros, **kwargs):
        if self._modified:
            raise MXNetError("After applying modifier cells (e.g. ZoneoutCell) the base cell cannot be called "
                             "directly. Call the modifier cell instead.")
        states = []
        for info in self.state_info(batch_size):
            self._init_counter += 1
            info = dict(info or {})
            info.update(kwargs)
            states.append(func(name=f"{self._prefix}begin_state_{self._init_counter}", **info))
        return states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        """Run ``length`` steps over ``inputs``; see the module docstring."""
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        outputs, all_states = [], []
        for step in range(length):
            output, states = self(inputs[step], states)
            outputs.append(output)
            if valid_length is not None:
                all_states.append(states)
        if valid_length is not None:
            states = [F.SequenceLast(F.stack(*step_states, axis=0), sequence_length=valid_length,
                                     use_sequence_length=True, axis=0) for step_states in zip(*all_states)]
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis, True)
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, F, inputs, activation, **kwargs):
        functions = {"tanh": F.tanh, "relu": F.relu, "sigmoid": F.sigmoid, "softsign": F.softsign}
        if isinstance(activation, str) and activation in functions:
            return functions[activation](inputs, **kwargs)
        if isinstance(activation, str):
            return F.Activation(inputs, act_type=activation, **kwargs)
        if isinstance(activation, LeakyReLU):
            return F.LeakyReLU(inputs, act_type="leaky", slope=activation._alpha, **kwargs)
        return activation(inputs, **kwargs)

    def forward(self, inputs, states):
        self._counter += 1
        return super().forward(inputs, states)


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    """A cell written as ``hybrid_forward(F, inputs, states, **params)``."""

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


class _GatedCell(HybridRecurrentCell):
    _gates = 1
    _num_states = 1

    def __init__(self, hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, input_size, prefix, params):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        rows = self._gates * hidden_size
        self.i2h_weight = self.params.get("i2h_weight", shape=(rows, input_size), init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=(rows, hidden_size), init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"} for _ in range(self._num_states)]

    def _projections(self, F, inputs, hidden, i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix):
        rows = self._gates * self._hidden_size
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias, num_hidden=rows, name=prefix + "i2h")
        h2h = F.FullyConnected(data=hidden, weight=h2h_weight, bias=h2h_bias, num_hidden=rows, name=prefix + "h2h")
        return i2h, h2h

    def __repr__(self):
        shape = self.i2h_weight.shape
        text = f"{type(self).__name__}({shape[1] if shape[1] else None} -> {shape[0] // self._gates}"
        if getattr(self, "_activation", None) is not None and type(self) is RNNCell:
            text += f", {self._activation}"
        return text + ")"


class RNNCell(_GatedCell):
    """Elman cell ``h' = activation(W_ih x + b_ih + W_hh h + b_hh)``; one state
    ``(batch, hidden_size)``."""

    def __init__(self, hidden_size, activation="tanh", i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation

    def _alias(self):
        return "rnn"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        i2h, h2h = self._projections(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix)
        output = self._get_activation(F, F.elemwise_add(i2h, h2h, name=prefix + "plus0"), self._activation,
                                      name=prefix + "out")
        return output, [output]


class _GatedRecurrentCell(_GatedCell):
    """LSTMCell and GRUCell: MXNet's signature, with the candidate's ``activation`` and the gates'
    ``recurrent_activation`` last."""

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None,
                 activation="tanh", recurrent_activation="sigmoid"):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation
        self._recurrent_activation = recurrent_activation


class LSTMCell(_GatedRecurrentCell):
    """LSTM cell (gates i, f, c, o); two states, hidden and cell, ``(batch, hidden_size)``."""

    _gates = 4
    _num_states = 2

    def _alias(self):
        return "lstm"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        i2h, h2h = self._projections(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix)
        gates = F.elemwise_add(i2h, h2h, name=prefix + "plus0")
        parts = F.SliceChannel(gates, num_outputs=4, name=prefix + "slice")
        act, recurrent = self._activation, self._recurrent_activation
        in_gate = self._get_activation(F, parts[0], recurrent, name=prefix + "i")
        forget_gate = self._get_activation(F, parts[1], recurrent, name=prefix + "f")
        candidate = self._get_activation(F, parts[2], act, name=prefix + "c")
        out_gate = self._get_activation(F, parts[3], recurrent, name=prefix + "o")
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name=prefix + "mul0"),
                                F.elemwise_mul(in_gate, candidate, name=prefix + "mul1"), name=prefix + "state")
        next_h = F.elemwise_mul(out_gate, self._get_activation(F, next_c, act, name=prefix + "activation0"),
                                name=prefix + "out")
        return next_h, [next_h, next_c]


class GRUCell(_GatedRecurrentCell):
    """GRU cell (gates r, z, n; ``h' = (1 - z) * n + z * h``); one state ``(batch,
    hidden_size)``."""

    _gates = 3

    def _alias(self):
        return "gru"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        previous = states[0]
        i2h, h2h = self._projections(F, inputs, previous, i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix)
        i2h_r, i2h_z, i2h_n = F.SliceChannel(i2h, num_outputs=3, name=prefix + "i2h_slice")
        h2h_r, h2h_z, h2h_n = F.SliceChannel(h2h, num_outputs=3, name=prefix + "h2h_slice")
        recurrent = self._recurrent_activation
        reset = self._get_activation(F, F.elemwise_add(i2h_r, h2h_r, name=prefix + "plus0"), recurrent,
                                     name=prefix + "r_act")
        update = self._get_activation(F, F.elemwise_add(i2h_z, h2h_z, name=prefix + "plus1"), recurrent,
                                      name=prefix + "z_act")
        candidate = self._get_activation(F, F.elemwise_add(i2h_n, F.elemwise_mul(reset, h2h_n, name=prefix + "mul0"),
                                                           name=prefix + "plus2"),
                                         self._activation, name=prefix + "h_act")
        ones = F.ones_like(update, name=prefix + "ones_like0")
        next_h = F.elemwise_add(F.elemwise_mul(ones - update, candidate, name=prefix + "mul1"),
                                F.elemwise_mul(update, previous, name=prefix + "mul20"), name=prefix + "out")
        return next_h, [next_h]


class _SequentialCellMixin:
    def __repr__(self):
        body = "\n".join(f"({key}): {_indent(repr(cell), 2)}" for key, cell in self._children.items())
        return f"{type(self).__name__}(\n{body}\n)"

    def add(self, cell):
        """Append ``cell``."""
        self.register_child(cell)

    def state_info(self, batch_size=0):
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        if self._modified:
            raise MXNetError("After applying modifier cells (e.g. ZoneoutCell) the base cell cannot be called "
                             "directly. Call the modifier cell instead.")
        return _cells_begin_state(self._children.values(), **kwargs)

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        self.reset()
        inputs, _, F, batch_size = _format_sequence(length, inputs, layout, None)
        cells = list(self._children.values())
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size)
        position = 0
        next_states = []
        for index, cell in enumerate(cells):
            count = len(cell.state_info())
            states = begin_state[position:position + count]
            position += count
            inputs, states = cell.unroll(length, inputs=inputs, begin_state=states, layout=layout,
                                         merge_outputs=None if index < len(cells) - 1 else merge_outputs,
                                         valid_length=valid_length)
            next_states.extend(states)
        return inputs, next_states

    def __call__(self, inputs, states):
        self._counter += 1
        next_states = []
        position = 0
        for cell in self._children.values():
            if isinstance(cell, BidirectionalCell):
                raise MXNetError("A BidirectionalCell inside a sequential cell cannot be stepped; use unroll")
            count = len(cell.state_info())
            state = states[position:position + count]
            position += count
            inputs, state = cell(inputs, state)
            next_states.append(state)
        return inputs, sum(next_states, [])

    def __getitem__(self, index):
        return self._children[str(index)]

    def __len__(self):
        return len(self._children)


class SequentialRNNCell(_SequentialCellMixin, RecurrentCell):
    """Cells stacked one on another (the output of each is the next one's input)."""

    def hybrid_forward(self, *args, **kwargs):
        raise NotImplementedError


class HybridSequentialRNNCell(_SequentialCellMixin, HybridRecurrentCell):
    """SequentialRNNCell of HybridRecurrentCells."""

    def hybrid_forward(self, F, inputs, states):
        return _SequentialCellMixin.__call__(self, inputs, states)


class DropoutCell(HybridRecurrentCell):
    """Dropout on the inputs (``rate``; ``axes`` share the mask); no state."""

    def __init__(self, rate, axes=(), prefix=None, params=None):
        super().__init__(prefix, params)
        if not isinstance(rate, numeric_types):
            raise MXNetError(f"DropoutCell: rate must be a number, got {type(rate).__name__}")
        self._rate = rate
        self._axes = axes

    def __repr__(self):
        return f"{type(self).__name__}(rate={self._rate}, axes={self._axes})"

    def state_info(self, batch_size=0):
        return []

    def _alias(self):
        return "dropout"

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            inputs = F.Dropout(data=inputs, p=self._rate, axes=self._axes, name=f"t{self._counter}_fwd")
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        self.reset()
        inputs, _, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, tensor_types):
            return self.hybrid_forward(F, inputs, begin_state if begin_state else [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout,
                              merge_outputs=merge_outputs, valid_length=None)


class ModifierCell(HybridRecurrentCell):
    """A cell that wraps ``base_cell`` and changes its behaviour (Zoneout, Residual); the
    Parameters are the base cell's."""

    def __init__(self, base_cell):
        if base_cell._modified:
            raise MXNetError(f"Cell {base_cell.name} is already modified. One cell cannot be modified twice")
        base_cell._modified = True
        super().__init__(prefix=base_cell.prefix + self._alias(), params=None)
        self.base_cell = base_cell

    @property
    def params(self):
        return self.base_cell.params

    def state_info(self, batch_size=0):
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func=symbol.zeros, **kwargs):
        if self._modified:
            raise MXNetError("After applying modifier cells (e.g. DropoutCell) the base cell cannot be called "
                             "directly. Call the modifier cell instead.")
        self.base_cell._modified = False
        begin = self.base_cell.begin_state(func=func, **kwargs)
        self.base_cell._modified = True
        return begin

    def hybrid_forward(self, F, inputs, states):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}({self.base_cell})"


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al. 2016): in training, each output / state element keeps its
    previous value with probability ``zoneout_outputs`` / ``zoneout_states``."""

    def __init__(self, base_cell, zoneout_outputs=0.0, zoneout_states=0.0):
        if isinstance(base_cell, BidirectionalCell):
            raise MXNetError("BidirectionalCell doesn't support zoneout since it doesn't support step. Please add "
                             "ZoneoutCell to the cells underneath instead.")
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self._prev_output = None

    def __repr__(self):
        return (f"{type(self).__name__}(p_out={self.zoneout_outputs}, p_state={self.zoneout_states}, "
                f"{self.base_cell})")

    def _alias(self):
        return "zoneout"

    def reset(self):
        super().reset()
        self._prev_output = None

    def hybrid_forward(self, F, inputs, states):
        cell, p_outputs, p_states = self.base_cell, self.zoneout_outputs, self.zoneout_states
        next_output, next_states = cell(inputs, states)

        def mask(p, like):
            return F.Dropout(F.ones_like(like), p=p)
        previous = self._prev_output
        if previous is None:
            previous = F.zeros_like(next_output)
        output = F.where(mask(p_outputs, next_output), next_output, previous) if p_outputs != 0.0 else next_output
        if p_states != 0.0:
            states = [F.where(mask(p_states, new), new, old) for new, old in zip(next_states, states)]
        else:
            states = next_states
        self._prev_output = output
        return output, states


class ResidualCell(ModifierCell):
    """Adds the input to the base cell's output (``output + x``)."""

    def _alias(self):
        return "residual"

    def hybrid_forward(self, F, inputs, states):
        output, states = self.base_cell(inputs, states)
        return F.elemwise_add(output, inputs, name=f"t{self._counter}_fwd"), states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        self.reset()
        self.base_cell._modified = False
        outputs, states = self.base_cell.unroll(length, inputs=inputs, begin_state=begin_state, layout=layout,
                                                merge_outputs=merge_outputs, valid_length=valid_length)
        self.base_cell._modified = True
        merge_outputs = isinstance(outputs, tensor_types) if merge_outputs is None else merge_outputs
        inputs, axis, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if valid_length is not None:
            inputs = _mask_sequence_variable_length(F, inputs, length, valid_length, axis, merge_outputs)
        if merge_outputs:
            outputs = F.elemwise_add(outputs, inputs)
        else:
            outputs = [F.elemwise_add(a, b) for a, b in zip(outputs, inputs)]
        return outputs, states


class BidirectionalCell(HybridRecurrentCell):
    """Runs ``l_cell`` forward and ``r_cell`` backward over the sequence and concatenates
    their outputs (``unroll`` only; it cannot be stepped)."""

    def __init__(self, l_cell, r_cell, output_prefix="bi_"):
        super().__init__(prefix="", params=None)
        self.register_child(l_cell, "l_cell")
        self.register_child(r_cell, "r_cell")
        self._output_prefix = output_prefix

    def __call__(self, inputs, states):
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    def __repr__(self):
        return (f"{type(self).__name__}(forward={self._children['l_cell']}, "
                f"backward={self._children['r_cell']})")

    def state_info(self, batch_size=0):
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        if self._modified:
            raise MXNetError("After applying modifier cells (e.g. DropoutCell) the base cell cannot be called "
                             "directly. Call the modifier cell instead.")
        return _cells_begin_state(self._children.values(), **kwargs)

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        reversed_inputs = list(_reverse_sequences(inputs, length, valid_length))
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        l_cell, r_cell = self._children.values()
        count = len(l_cell.state_info(batch_size))
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs, begin_state=states[:count], layout=layout,
                                            merge_outputs=merge_outputs, valid_length=valid_length)
        r_outputs, r_states = r_cell.unroll(length, inputs=reversed_inputs, begin_state=states[count:],
                                            layout=layout, merge_outputs=False, valid_length=valid_length)
        reversed_r_outputs = _reverse_sequences(r_outputs, length, valid_length)
        if merge_outputs is None:
            # as MXNet: merged when the left cell merged (a cell unrolled with valid_length does)
            merge_outputs = isinstance(l_outputs, tensor_types)
        l_outputs, _, _, _ = _format_sequence(None, l_outputs, layout, merge_outputs)
        if merge_outputs:
            outputs = F.concat(l_outputs, F.stack(*reversed_r_outputs, axis=axis), dim=2,
                               name=f"{self._output_prefix}out")
        else:
            outputs = [F.concat(l_o, r_o, dim=1, name=f"{self._output_prefix}t{i}")
                       for i, (l_o, r_o) in enumerate(zip(l_outputs, reversed_r_outputs))]
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis, merge_outputs)
        return outputs, l_states + r_states
