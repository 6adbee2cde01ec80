"""Fused recurrent layers (MXNet's ``gluon.rnn.RNN``, ``LSTM``, ``GRU``) on the registered
``RNN`` operator.

Parameters are MXNet's: per layer ``k`` and direction ``l`` (forward) / ``r`` (reverse)
``{l,r}{k}_i2h_weight`` ``(gates * hidden, input)``, ``{l,r}{k}_h2h_weight``
``(gates * hidden, hidden)`` and the two biases ``(gates * hidden,)``; they are concatenated
(all weights, then all biases) into the operator's packed vector at each call.
``save_parameters`` names them ``_unfused.<k>.<name>`` (``_unfused.<k>.<l|r>_cell.<name>``
when bidirectional) as MXNet 1.9.1 did, so its files load.

Input ``(seq_len, batch, input)`` for layout 'TNC' or ``(batch, seq_len, input)`` for
'NTC'; output ``(..., directions * hidden)``.  Called with ``states`` (a list of
``(num_layers * directions, batch, hidden)`` arrays; LSTM has two) the layer returns
``(output, new_states)``, without them only ``output``.
"""
from __future__ import annotations

import re

from ... import ndarray, symbol
from ...base import MXNetError, MXNetValueError
from ..block import HybridBlock
from ...util import is_np_array  # noqa: F401  (MXNet's module namespace)
from ..parameter import tensor_types
from . import rnn_cell

__all__ = ["RNN", "LSTM", "GRU"]

_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


class _RNNLayer(HybridBlock):
    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                 mode, projection_size, h2r_weight_initializer, lstm_state_clip_min, lstm_state_clip_max,
                 lstm_state_clip_nan, dtype, use_sequence_length=False, **kwargs):
        super().__init__(**kwargs)
        if layout not in ("TNC", "NTC"):
            raise MXNetError(f"Invalid layout {layout}; must be one of ['TNC' or 'NTC']")
        self._hidden_size = hidden_size
        self._projection_size = projection_size if projection_size else None
        self._num_layers = num_layers
        self._mode = mode
        self._layout = layout
        self._dropout = dropout
        self._dir = 2 if bidirectional else 1
        self._input_size = input_size
        self._lstm_state_clip_min = lstm_state_clip_min
        self._lstm_state_clip_max = lstm_state_clip_max
        self._lstm_state_clip_nan = lstm_state_clip_nan
        self._dtype = dtype
        self._use_sequence_length = use_sequence_length
        self._gates = _GATES[mode]
        self.skip_states = None
        self._initializers = {"i2h_weight_initializer": i2h_weight_initializer,
                              "h2h_weight_initializer": h2h_weight_initializer,
                              "i2h_bias_initializer": i2h_bias_initializer,
                              "h2h_bias_initializer": h2h_bias_initializer}
        gates, inputs, hidden = self._gates, input_size, hidden_size
        projection = self._projection_size
        for layer in range(num_layers):
            for direction in ("l", "r")[:self._dir]:
                self._register_param(f"{direction}{layer}_i2h_weight", (gates * hidden, inputs),
                                     i2h_weight_initializer, dtype)
                self._register_param(f"{direction}{layer}_h2h_weight", (gates * hidden, projection or hidden),
                                     h2h_weight_initializer, dtype)
                self._register_param(f"{direction}{layer}_i2h_bias", (gates * hidden,), i2h_bias_initializer, dtype)
                self._register_param(f"{direction}{layer}_h2h_bias", (gates * hidden,), h2h_bias_initializer, dtype)
                if projection:
                    self._register_param(f"{direction}{layer}_h2r_weight", (projection, hidden),
                                         h2r_weight_initializer, dtype)
            inputs = (projection or hidden) * self._dir

    def _register_param(self, name, shape, init, dtype):
        param = self.params.get(name, shape=shape, init=init, allow_deferred_init=True, dtype=dtype)
        setattr(self, name, param)
        return param

    def __repr__(self):
        text = f"{type(self).__name__}({{mapping}}, {self._layout}"
        if self._num_layers != 1:
            text += f", num_layers={self._num_layers}"
        if self._dropout != 0:
            text += f", dropout={self._dropout}"
        if self._dir == 2:
            text += ", bidirectional"
        text += ")"
        shape = self.l0_i2h_weight.shape
        return text.format(mapping=f"{shape[1] if shape[1] else None} -> {shape[0] // self._gates}")

    def _collect_params_with_prefix(self, prefix=""):
        if prefix:
            prefix += "."
        pattern = re.compile(r"(l|r)(\d+)_(i2h|h2h|h2r)_(weight|bias)\Z")
        bidirectional = any(pattern.match(key).group(1) == "r" for key in self._reg_params)

        def convert(match):
            direction, layer, kind, what = (match.group(i) for i in range(1, 5))
            if bidirectional:
                return f"_unfused.{layer}.{direction}_cell.{kind}_{what}"
            return f"_unfused.{layer}.{kind}_{what}"
        result = {prefix + convert(pattern.match(key)): value for key, value in self._reg_params.items()}
        for name, child in self._children.items():
            result.update(child._collect_params_with_prefix(prefix + name))
        return result

    def state_info(self, batch_size=0):
        raise NotImplementedError

    def _unfuse(self):
        """The same network as a HybridSequentialRNNCell of cells sharing this layer's
        Parameters (layer by layer; BidirectionalCell when bidirectional; DropoutCell between
        layers)."""
        if self._projection_size:
            raise MXNetError("_unfuse does not support projection layer yet!")
        if self._lstm_state_clip_min is not None or self._lstm_state_clip_max is not None:
            raise MXNetError("_unfuse does not support state clipping yet!")
        hidden = self._hidden_size
        makers = {"rnn_relu": lambda **kw: rnn_cell.RNNCell(hidden, activation="relu", **kw),
                  "rnn_tanh": lambda **kw: rnn_cell.RNNCell(hidden, activation="tanh", **kw),
                  "lstm": lambda **kw: rnn_cell.LSTMCell(hidden, **kw),
                  "gru": lambda **kw: rnn_cell.GRUCell(hidden, **kw)}
        make = makers[self._mode]
        stack = rnn_cell.HybridSequentialRNNCell(prefix=self.prefix, params=self.params)
        with stack.name_scope():
            inputs = self._input_size
            for layer in range(self._num_layers):
                kwargs = dict(self._initializers, input_size=inputs)
                if self._dir == 2:
                    stack.add(rnn_cell.BidirectionalCell(make(prefix=f"l{layer}_", **kwargs),
                                                         make(prefix=f"r{layer}_", **kwargs)))
                else:
                    stack.add(make(prefix=f"l{layer}_", **kwargs))
                if self._dropout > 0 and layer != self._num_layers - 1:
                    stack.add(rnn_cell.DropoutCell(self._dropout))
                inputs = hidden * self._dir
        return stack

    def cast(self, dtype):
        super().cast(dtype)
        self._dtype = dtype

    def begin_state(self, batch_size=0, func=ndarray.zeros, **kwargs):
        """Initial states: ``func(name=..., shape=..., dtype=..., **kwargs)`` for each entry of
        ``state_info(batch_size)`` (zeros by default)."""
        states = []
        for index, info in enumerate(self.state_info(batch_size)):
            info = dict(info or {})
            info.update(kwargs)
            states.append(func(name=f"{self.prefix}h0_{index}", **info))
        return states

    def _fill_input_size(self, inputs):
        """The input size of the first layer from the data (its last axis in both layouts)."""
        size = inputs.shape[-1] if isinstance(inputs, ndarray.NDArray) else 0
        if size:
            for direction in ("l", "r")[:self._dir]:
                param = getattr(self, f"{direction}0_i2h_weight")
                if param.shape and param.shape[1] == 0:
                    param.shape = (param.shape[0], size)

    def _check_input_rank(self, inputs):
        """An array input must be 3-D in the layer's layout (MXNet: IndexError for a 1-D input,
        a deferred-initialization ValueError for a 2-D one)."""
        if isinstance(inputs, ndarray.NDArray) and len(inputs.shape) != 3:
            axes = {"TNC": "sequence length, batch size, input size",
                    "NTC": "batch size, sequence length, input size"}[self._layout]
            raise MXNetValueError(f"{type(self).__name__} {self.name}: inputs must be a 3-D array of layout "
                                  f"{self._layout} ({axes}), got a {len(inputs.shape)}-D array of shape "
                                  f"{tuple(inputs.shape)}")

    def __call__(self, inputs, states=None, sequence_length=None, **kwargs):
        self._check_input_rank(inputs)
        if self.skip_states is not None and self.skip_states != (states is None):
            self._clear_cached_op()     # the traced graph's outputs depend on whether states are returned
        self.skip_states = states is None
        if states is None:
            if isinstance(inputs, ndarray.NDArray):
                batch_size = inputs.shape[self._layout.find("N")]
                states = self.begin_state(batch_size, ctx=inputs.context, dtype=inputs.dtype)
            else:
                states = self.begin_state(0, func=symbol.zeros)
        if isinstance(states, tensor_types):
            states = [states]
        self._fill_input_size(inputs)
        if self._use_sequence_length:
            return super().__call__(inputs, states, sequence_length, **kwargs)
        return super().__call__(inputs, states, **kwargs)

    def infer_shape(self, inputs, *args):
        self._fill_input_size(inputs)
        super().infer_shape(inputs, *args)

    def hybrid_forward(self, F, inputs, states, sequence_length=None, **kwargs):
        if F is ndarray:
            batch_size = inputs.shape[self._layout.find("N")]
            for state, info in zip(states, self.state_info(batch_size)):
                if state.shape != info["shape"]:
                    raise MXNetError(f"Invalid recurrent state shape. Expecting {info['shape']}, got {state.shape}.")
        out = self._forward_kernel(F, inputs, states, sequence_length, **kwargs)
        return out[0] if self.skip_states else out

    def _forward_kernel(self, F, inputs, states, sequence_length, **kwargs):
        if self._layout == "NTC":
            inputs = F.swapaxes(inputs, dim1=0, dim2=1)
        kinds = ["i2h", "h2h"] + (["h2r"] if self._projection_size else [])
        weights = [kwargs[f"{d}{layer}_{kind}_weight"].reshape(-1) for layer in range(self._num_layers)
                   for d in ("l", "r")[:self._dir] for kind in kinds]
        biases = [kwargs[f"{d}{layer}_{kind}_bias"].reshape(-1) for layer in range(self._num_layers)
                  for d in ("l", "r")[:self._dir] for kind in ("i2h", "h2h")]
        params = F.concat(*(weights + biases), dim=0)
        rnn_args = list(states) + ([sequence_length] if self._use_sequence_length else [])
        rnn = F.RNN(inputs, params, *rnn_args, use_sequence_length=self._use_sequence_length,
                    state_size=self._hidden_size, projection_size=self._projection_size,
                    num_layers=self._num_layers, bidirectional=self._dir == 2, p=self._dropout, state_outputs=True,
                    mode=self._mode, lstm_state_clip_min=self._lstm_state_clip_min,
                    lstm_state_clip_max=self._lstm_state_clip_max, lstm_state_clip_nan=self._lstm_state_clip_nan)
        if self._mode == "lstm":
            outputs, states = rnn[0], [rnn[1], rnn[2]]
        else:
            outputs, states = rnn[0], [rnn[1]]
        if self._layout == "NTC":
            outputs = F.swapaxes(outputs, dim1=0, dim2=1)
        return outputs, states


class RNN(_RNNLayer):
    """Elman RNN ``h_t = activation(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh)``; ``activation``
    'relu' or 'tanh'.  One state ``(num_layers * directions, batch, hidden_size)``."""

    def __init__(self, hidden_size, num_layers=1, activation="relu", layout="TNC", dropout=0, bidirectional=False,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", input_size=0, dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         "rnn_" + activation, None, None, None, None, False, dtype, **kwargs)

    def state_info(self, batch_size=0):
        return [{"shape": (self._num_layers * self._dir, batch_size, self._hidden_size), "__layout__": "LNC",
                 "dtype": self._dtype}]


class LSTM(_RNNLayer):
    """Long short-term memory (gates i, f, c, o).  Two states: hidden and cell, each
    ``(num_layers * directions, batch, hidden_size)``.  ``state_clip_min`` / ``_max`` /
    ``_nan`` clip the cell state.  ``projection_size`` raises MXNetError when run (not
    supported by mxtorch's RNN operator)."""

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", projection_size=None, h2r_weight_initializer=None,
                 state_clip_min=None, state_clip_max=None, state_clip_nan=False, dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         "lstm", projection_size, h2r_weight_initializer, state_clip_min, state_clip_max,
                         state_clip_nan, dtype, **kwargs)

    def state_info(self, batch_size=0):
        hidden = self._projection_size or self._hidden_size
        return [{"shape": (self._num_layers * self._dir, batch_size, hidden), "__layout__": "LNC",
                 "dtype": self._dtype},
                {"shape": (self._num_layers * self._dir, batch_size, self._hidden_size), "__layout__": "LNC",
                 "dtype": self._dtype}]


class GRU(_RNNLayer):
    """Gated recurrent unit (gates r, z, n as in cuDNN / MXNet).  One state
    ``(num_layers * directions, batch, hidden_size)``."""

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         "gru", None, None, None, None, False, dtype, **kwargs)

    def state_info(self, batch_size=0):
        return [{"shape": (self._num_layers * self._dir, batch_size, self._hidden_size), "__layout__": "LNC",
                 "dtype": self._dtype}]
