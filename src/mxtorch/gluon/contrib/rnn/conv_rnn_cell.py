"""Convolutional recurrent cells (Shi et al. 2015, "Convolutional LSTM Network"), MXNet 1.9.1's
``gluon.contrib.rnn.conv_rnn_cell``.

The gate arithmetic is ``gluon.rnn``'s RNNCell / LSTMCell / GRUCell; only the input-to-hidden
and hidden-to-hidden projections are convolutions instead of dense layers.  ``input_shape`` is
one sample's shape, channels first for the NC* layouts (``(C, W)``, ``(C, H, W)``,
``(C, D, H, W)``; ``C = 0`` is inferred on the first call).  The states are
``(batch, hidden_channels, *spatial)`` with the spatial size of the input-to-hidden convolution's
output; the hidden-to-hidden convolution keeps it ("same" padding, so ``h2h_kernel`` must be
odd).  Parameters: ``i2h_weight`` ``(gates * hidden_channels, C, *i2h_kernel)``, ``h2h_weight``
``(gates * hidden_channels, hidden_channels, *h2h_kernel)``, ``i2h_bias``, ``h2h_bias``.
"""
from __future__ import annotations

import numbers
from math import floor  # noqa: F401  (MXNet's module exposes it)

from ....base import MXNetValueError, numeric_types  # noqa: F401
from ...rnn.rnn_cell import GRUCell, HybridRecurrentCell, LSTMCell, RNNCell

__all__ = ["Conv1DRNNCell", "Conv2DRNNCell", "Conv3DRNNCell", "Conv1DLSTMCell", "Conv2DLSTMCell", "Conv3DLSTMCell",
           "Conv1DGRUCell", "Conv2DGRUCell", "Conv3DGRUCell"]


def _tuple(value, dims, name):
    if isinstance(value, numbers.Integral):
        return (int(value),) * dims
    value = tuple(int(v) for v in value)
    if len(value) != dims:
        raise MXNetValueError(f"{name} must be an int or {dims} ints, got {value}")
    return value


class _ConvCellMixin:
    """Replaces a gated cell's dense projections by convolutions."""

    def _setup(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad, i2h_dilate, h2h_dilate,
               i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer, dims,
               conv_layout, activation):
        self._hidden_size = self._hidden_channels = hidden_channels
        self._input_shape = tuple(input_shape)
        self._conv_layout = conv_layout
        self._activation = activation
        if not conv_layout.startswith("NC"):
            raise MXNetValueError(f"{type(self).__name__}: only channel-first layouts (NCW, NCHW, NCDHW) are "
                                  f"supported, got {conv_layout!r}")
        if len(self._input_shape) != dims + 1:
            raise MXNetValueError(f"{type(self).__name__}: input_shape must be (channels, {dims} spatial sizes), "
                                  f"got {self._input_shape}")
        self._i2h_kernel = _tuple(i2h_kernel, dims, "i2h_kernel")
        self._h2h_kernel = _tuple(h2h_kernel, dims, "h2h_kernel")
        if any(k % 2 == 0 for k in self._h2h_kernel):
            raise MXNetValueError(f"{type(self).__name__}: h2h_kernel must be odd (the state keeps its size), "
                                  f"got {self._h2h_kernel}")
        self._i2h_pad = _tuple(i2h_pad, dims, "i2h_pad")
        self._i2h_dilate = _tuple(i2h_dilate, dims, "i2h_dilate")
        self._h2h_dilate = _tuple(h2h_dilate, dims, "h2h_dilate")
        self._h2h_pad = tuple(d * (k - 1) // 2 for d, k in zip(self._h2h_dilate, self._h2h_kernel))
        self._state_spatial = tuple(
            (size + 2 * pad - dilate * (kernel - 1) - 1) + 1
            for size, pad, dilate, kernel in zip(self._input_shape[1:], self._i2h_pad, self._i2h_dilate,
                                                 self._i2h_kernel))
        rows = self._gates * hidden_channels
        self.i2h_weight = self.params.get("i2h_weight", shape=(rows, self._input_shape[0]) + self._i2h_kernel,
                                          init=i2h_weight_initializer, allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=(rows, hidden_channels) + self._h2h_kernel,
                                          init=h2h_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def state_info(self, batch_size=0):
        shape = (batch_size, self._hidden_channels) + self._state_spatial
        return [{"shape": shape, "__layout__": self._conv_layout} for _ in range(self._num_states)]

    def _projections(self, F, inputs, hidden, i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix):
        rows = self._gates * self._hidden_channels
        i2h = F.Convolution(inputs, i2h_weight, i2h_bias, kernel=self._i2h_kernel, pad=self._i2h_pad,
                            dilate=self._i2h_dilate, num_filter=rows, name=prefix + "i2h")
        h2h = F.Convolution(hidden, h2h_weight, h2h_bias, kernel=self._h2h_kernel, pad=self._h2h_pad,
                            dilate=self._h2h_dilate, num_filter=rows, name=prefix + "h2h")
        return i2h, h2h

    def __repr__(self):
        return (f"{type(self).__name__}({self._input_shape} -> {self._hidden_channels}, i2h_kernel="
                f"{self._i2h_kernel}, h2h_kernel={self._h2h_kernel})")


def _make(name, gated, dims, layout, has_activation=True):
    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad=(0,) * dims,
                 i2h_dilate=(1,) * dims, h2h_dilate=(1,) * dims, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 conv_layout=layout, activation="tanh", prefix=None, params=None):
        HybridRecurrentCell.__init__(self, prefix=prefix, params=params)
        self._recurrent_activation = "sigmoid"
        self._setup(input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad, i2h_dilate, h2h_dilate,
                    i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                    dims, conv_layout, activation)

    def _alias(self):
        return gated._alias(self)

    doc = (f"{dims}-D convolutional {gated.__name__[:-4]} cell (layout {layout}); see the module docstring.")
    return type(name, (_ConvCellMixin, gated), {"__init__": __init__, "_alias": _alias, "__doc__": doc,
                                                  "__module__": __name__})


Conv1DRNNCell = _make("Conv1DRNNCell", RNNCell, 1, "NCW")
Conv2DRNNCell = _make("Conv2DRNNCell", RNNCell, 2, "NCHW")
Conv3DRNNCell = _make("Conv3DRNNCell", RNNCell, 3, "NCDHW")
Conv1DLSTMCell = _make("Conv1DLSTMCell", LSTMCell, 1, "NCW")
Conv2DLSTMCell = _make("Conv2DLSTMCell", LSTMCell, 2, "NCHW")
Conv3DLSTMCell = _make("Conv3DLSTMCell", LSTMCell, 3, "NCDHW")
Conv1DGRUCell = _make("Conv1DGRUCell", GRUCell, 1, "NCW")
Conv2DGRUCell = _make("Conv2DGRUCell", GRUCell, 2, "NCHW")
Conv3DGRUCell = _make("Conv3DGRUCell", GRUCell, 3, "NCDHW")
