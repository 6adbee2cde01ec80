"""The fully connected recurrent cells, one time step per call: :class:`RNNCell`,
:class:`LSTMCell`, :class:`GRUCell` (MXNet 1.9.1's graphs, node for node; naming and gate
order as described in :mod:`mxtorch.rnn.base_cell`)."""
from __future__ import annotations

from .. import initializer as init
from .. import symbol
from .base_cell import BaseRNNCell

__all__ = ["RNNCell", "LSTMCell", "GRUCell"]


class _DenseCell(BaseRNNCell):
    """Base of the fully connected cells: ``_num_states`` states ``(batch, num_hidden)``
    (layout 'NC') and, from :meth:`_create_parameters`, the four packed parameters."""

    _num_states = 1

    def _create_parameters(self):
        """Create ``<prefix>i2h_weight``, ``i2h_bias``, ``h2h_weight``, ``h2h_bias`` in this
        order (MXNet's order for RNNCell and GRUCell)."""
        self._iW = self.params.get("i2h_weight")
        self._iB = self.params.get("i2h_bias")
        self._hW = self.params.get("h2h_weight")
        self._hB = self.params.get("h2h_bias")

    @property
    def state_info(self):
        return [{"shape": (0, self._num_hidden), "__layout__": "NC"} for _ in range(self._num_states)]


class RNNCell(_DenseCell):
    """Elman RNN cell: ``h' = activation(W_i x + b_i + W_h h + b_h)``.

    ``num_hidden``: state size H; ``activation``: an ``Activation`` act_type ('tanh',
    'relu', ...) or a function ``f(symbol, name=...)``.  Parameters ``<prefix>i2h_weight``
    ``(H, input)``, ``i2h_bias (H,)``, ``h2h_weight (H, H)``, ``h2h_bias (H,)``; one state
    ``(batch, H)``.
    """

    def __init__(self, num_hidden, activation="tanh", prefix="rnn_", params=None):
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._activation = activation
        self._create_parameters()

    @property
    def _gate_names(self):
        return ("",)

    def __call__(self, inputs, states):
        self._counter += 1
        name = f"{self._prefix}t{self._counter}_"
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB, num_hidden=self._num_hidden,
                                    name=f"{name}i2h")
        h2h = symbol.FullyConnected(data=states[0], weight=self._hW, bias=self._hB,
                                    num_hidden=self._num_hidden, name=f"{name}h2h")
        output = self._get_activation(i2h + h2h, self._activation, name=f"{name}out")
        return output, [output]


class LSTMCell(_DenseCell):
    """LSTM cell (gates input, forget, candidate, output, in that row order).

    ``num_hidden``: state size H.  Parameters ``<prefix>i2h_weight (4H, input)``,
    ``h2h_weight (4H, H)``, biases ``(4H,)``; ``i2h_bias`` carries the initializer
    ``LSTMBias(forget_bias)`` (forget-gate bias ``forget_bias``, the rest 0).  Two states
    ``(batch, H)``: hidden, then cell.
    """

    _num_states = 2

    def __init__(self, num_hidden, prefix="lstm_", params=None, forget_bias=1.0):
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._iW = self.params.get("i2h_weight")
        self._hW = self.params.get("h2h_weight")
        self._iB = self.params.get("i2h_bias", init=init.LSTMBias(forget_bias=forget_bias))
        self._hB = self.params.get("h2h_bias")

    @property
    def _gate_names(self):
        return ["_i", "_f", "_c", "_o"]

    def __call__(self, inputs, states):
        self._counter += 1
        name = f"{self._prefix}t{self._counter}_"
        hidden = self._num_hidden * 4
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB, num_hidden=hidden,
                                    name=f"{name}i2h")
        h2h = symbol.FullyConnected(data=states[0], weight=self._hW, bias=self._hB, num_hidden=hidden,
                                    name=f"{name}h2h")
        gates = symbol.SliceChannel(i2h + h2h, num_outputs=4, name=f"{name}slice")
        input_gate = symbol.Activation(gates[0], act_type="sigmoid", name=f"{name}i")
        forget_gate = symbol.Activation(gates[1], act_type="sigmoid", name=f"{name}f")
        candidate = symbol.Activation(gates[2], act_type="tanh", name=f"{name}c")
        output_gate = symbol.Activation(gates[3], act_type="sigmoid", name=f"{name}o")
        next_cell = symbol._internal._plus(forget_gate * states[1], input_gate * candidate,
                                           name=f"{name}state")
        next_hidden = symbol._internal._mul(output_gate, symbol.Activation(next_cell, act_type="tanh"),
                                            name=f"{name}out")
        return next_hidden, [next_hidden, next_cell]


class GRUCell(_DenseCell):
    """GRU cell in cuDNN's form: the reset gate multiplies ``W_h h + b_h`` of the candidate.

    Gates (rows of the packed matrices): reset, update, candidate.  Parameters
    ``<prefix>i2h_weight (3H, input)``, ``h2h_weight (3H, H)``, biases ``(3H,)``; one state
    ``(batch, H)``.  ``h' = (1 - z) * n + z * h``.
    """

    def __init__(self, num_hidden, prefix="gru_", params=None):
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._create_parameters()

    @property
    def _gate_names(self):
        return ["_r", "_z", "_o"]

    def __call__(self, inputs, states):
        self._counter += 1
        name = f"{self._prefix}t{self._counter}_"
        previous = states[0]
        hidden = self._num_hidden * 3
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB, num_hidden=hidden,
                                    name=f"{name}_i2h")
        h2h = symbol.FullyConnected(data=previous, weight=self._hW, bias=self._hB, num_hidden=hidden,
                                    name=f"{name}_h2h")
        i2h_reset, i2h_update, i2h_candidate = symbol.SliceChannel(i2h, num_outputs=3, name=f"{name}_i2h_slice")
        h2h_reset, h2h_update, h2h_candidate = symbol.SliceChannel(h2h, num_outputs=3, name=f"{name}_h2h_slice")
        reset_gate = symbol.Activation(i2h_reset + h2h_reset, act_type="sigmoid", name=f"{name}_r_act")
        update_gate = symbol.Activation(i2h_update + h2h_update, act_type="sigmoid", name=f"{name}_z_act")
        candidate = symbol.Activation(i2h_candidate + reset_gate * h2h_candidate, act_type="tanh",
                                      name=f"{name}_h_act")
        next_hidden = symbol._internal._plus((1. - update_gate) * candidate, update_gate * previous,
                                             name=f"{name}out")
        return next_hidden, [next_hidden]
