"""MXNet 1.9.1's ``gluon.contrib.rnn.rnn_cell``: LSTMPCell (an LSTM with a projected recurrent
state, Sak et al. 2014) and VariationalDropoutCell (one dropout mask per sequence, Gal &
Ghahramani 2016)."""
from __future__ import annotations

from ...rnn.rnn_cell import (BidirectionalCell, HybridRecurrentCell, LSTMCell, ModifierCell,  # noqa: F401
                             SequentialRNNCell)
from ...parameter import tensor_types  # noqa: F401  (MXNet's module exposes it)
from .... import ndarray
from ....base import MXNetError, MXNetValueError

__all__ = ["LSTMPCell", "VariationalDropoutCell", "dynamic_unroll"]


class LSTMPCell(LSTMCell):
    """LSTM whose output and recurrent state is ``r = W_hr (o * tanh(c))`` of size
    ``projection_size``.  States: ``r`` ``(batch, projection_size)`` and ``c`` ``(batch,
    hidden_size)``.  Parameters ``i2h_weight`` ``(4 * hidden, input)``, ``h2h_weight``
    ``(4 * hidden, projection)``, ``h2r_weight`` ``(projection, hidden)``, ``i2h_bias``,
    ``h2h_bias``."""

    def __init__(self, hidden_size, projection_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 h2r_weight_initializer=None, i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 input_size=0, prefix=None, params=None):
        HybridRecurrentCell.__init__(self, prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        self._projection_size = projection_size
        self._activation = "tanh"
        self._recurrent_activation = "sigmoid"
        rows = 4 * hidden_size
        self.i2h_weight = self.params.get("i2h_weight", shape=(rows, input_size), init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=(rows, projection_size),
                                          init=h2h_weight_initializer, allow_deferred_init=True)
        self.h2r_weight = self.params.get("h2r_weight", shape=(projection_size, hidden_size),
                                          init=h2r_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def _alias(self):
        return "lstmp"

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._projection_size), "__layout__": "NC"},
                {"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, h2r_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        i2h, h2h = self._projections(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix)
        gates = F.elemwise_add(i2h, h2h, name=prefix + "plus0")
        parts = F.SliceChannel(gates, num_outputs=4, name=prefix + "slice")
        in_gate = F.sigmoid(parts[0], name=prefix + "i")
        forget_gate = F.sigmoid(parts[1], name=prefix + "f")
        candidate = F.tanh(parts[2], name=prefix + "c")
        out_gate = F.sigmoid(parts[3], name=prefix + "o")
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name=prefix + "mul0"),
                                F.elemwise_mul(in_gate, candidate, name=prefix + "mul1"), name=prefix + "state")
        hidden = F.elemwise_mul(out_gate, F.tanh(next_c, name=prefix + "activation0"), name=prefix + "hidden")
        next_r = F.FullyConnected(data=hidden, weight=h2r_weight, no_bias=True, num_hidden=self._projection_size,
                                  name=prefix + "out")
        return next_r, [next_r, next_c]

    def __repr__(self):
        shape = self.i2h_weight.shape
        return f"{type(self).__name__}({shape[1] if shape[1] else None} -> {self._hidden_size} -> " \
               f"{self._projection_size})"


class VariationalDropoutCell(ModifierCell):
    """Dropout on the inputs (``drop_inputs``), the first state (``drop_states``) and the
    outputs (``drop_outputs``) of ``base_cell`` with masks drawn once per sequence (at the first
    step after ``reset()``, which ``unroll`` calls) and reused at every step."""

    def __init__(self, base_cell, drop_inputs=0.0, drop_states=0.0, drop_outputs=0.0):
        for name, rate in (("drop_inputs", drop_inputs), ("drop_states", drop_states),
                           ("drop_outputs", drop_outputs)):
            if not 0 <= rate < 1:
                raise MXNetValueError(f"VariationalDropoutCell: {name} must be in [0, 1), got {rate}")
        super().__init__(base_cell)
        self.drop_inputs = drop_inputs
        self.drop_states = drop_states
        self.drop_outputs = drop_outputs
        self._masks = {}

    def _alias(self):
        return "vardrop"

    def reset(self):
        super().reset()
        self._masks = {}

    def _mask(self, F, key, like, rate):
        if key not in self._masks:
            self._masks[key] = F.Dropout(F.ones_like(like), p=rate)
        return self._masks[key]

    def hybrid_forward(self, F, inputs, states):
        states = list(states)
        if self.drop_states:
            states[0] = states[0] * self._mask(F, "states", states[0], self.drop_states)
        if self.drop_inputs:
            inputs = inputs * self._mask(F, "inputs", inputs, self.drop_inputs)
        output, next_states = self.base_cell(inputs, states)
        if self.drop_outputs:
            output = output * self._mask(F, "outputs", output, self.drop_outputs)
        return output, next_states

    def __repr__(self):
        return (f"{type(self).__name__}(p_out={self.drop_outputs}, p_state={self.drop_states}, "
                f"p_in={self.drop_inputs}, {self.base_cell})")


def dynamic_unroll(cell, inputs, begin_state, drop_inputs=0, drop_outputs=0, layout="TNC", valid_length=None):
    """Run ``cell`` over the whole sequence ``inputs`` (an NDArray in ``layout`` 'TNC' or 'NTC')
    from ``begin_state``; dropout ``drop_inputs`` / ``drop_outputs`` on the inputs and outputs.
    Returns ``(outputs, states)``: outputs merged in ``layout``; with ``valid_length``
    ``(batch,)`` the outputs past each sequence's length are 0 and the states are those of its
    last valid step.

    MXNet built this on ``F.contrib.foreach`` so that a symbol of unknown length could be
    unrolled; mxtorch unrolls NDArray sequences step by step (the length is the time axis) and
    raises MXNetError for a Symbol."""
    if not isinstance(inputs, ndarray.NDArray):
        raise MXNetError("dynamic_unroll: mxtorch unrolls NDArray sequences only (no contrib.foreach over "
                         "Symbols); use cell.unroll(length, ...) for a Symbol")
    if layout not in ("TNC", "NTC"):
        raise MXNetError(f"dynamic_unroll: layout must be 'TNC' or 'NTC', got {layout!r}")
    if drop_inputs:
        inputs = ndarray.Dropout(inputs, p=drop_inputs, axes=(layout.find("T"),))
    length = inputs.shape[layout.find("T")]
    outputs, states = cell.unroll(length, inputs, begin_state=begin_state, layout=layout, merge_outputs=True,
                                  valid_length=valid_length)
    if drop_outputs:
        outputs = ndarray.Dropout(outputs, p=drop_outputs, axes=(layout.find("T"),))
    return outputs, states

# MXNet's module imported these helpers from mxnet.base and mxnet.gluon.rnn.rnn_cell
from ....base import _as_list  # noqa: E402,F401
from ...rnn.rnn_cell import _format_sequence, _get_begin_state, _mask_sequence_variable_length  # noqa: E402,F401
