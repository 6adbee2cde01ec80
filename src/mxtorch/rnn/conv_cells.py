"""The convolutional recurrent cells (Shi et al. 2015): :class:`BaseConvRNNCell`,
:class:`ConvRNNCell`, :class:`ConvLSTMCell`, :class:`ConvGRUCell`."""
from __future__ import annotations

import functools

from .. import symbol
from ..base import MXNetError
from .base_cell import BaseRNNCell

__all__ = ["BaseConvRNNCell", "ConvRNNCell", "ConvLSTMCell", "ConvGRUCell"]


class BaseConvRNNCell(BaseRNNCell):
    """Base of the convolutional recurrent cells (Shi et al. 2015): the input-to-state
    and state-to-state transforms are ``Convolution``s instead of ``FullyConnected``.

    ``input_shape``: shape of one step's input including a batch dimension
    (``(batch, channel, height, width)`` for ``conv_layout='NCHW'``); the state shape is
    the ``i2h`` convolution's output shape with batch 0.  ``h2h_kernel`` must be odd
    (the ``h2h`` convolution pads to keep the state size).  ``*_initializer``: initializer
    (or its name) stored on the parameter variables.  ``activation``: an ``Activation``
    act_type or a function ``f(symbol, name=...)`` (default leaky ReLU, slope 0.2).
    """

    def __init__(self, input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride, i2h_pad,
                 i2h_dilate, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, activation, prefix="", params=None, conv_layout="NCHW"):
        super().__init__(prefix=prefix, params=params)
        if len(h2h_kernel) < 2 or h2h_kernel[0] % 2 != 1 or h2h_kernel[1] % 2 != 1:
            raise MXNetError(f"{type(self).__name__}: h2h_kernel must be odd in both dimensions, got {h2h_kernel}")
        self._h2h_kernel = h2h_kernel
        self._h2h_pad = (h2h_dilate[0] * (h2h_kernel[0] - 1) // 2, h2h_dilate[1] * (h2h_kernel[1] - 1) // 2)
        self._h2h_dilate = h2h_dilate
        self._i2h_kernel = i2h_kernel
        self._i2h_stride = i2h_stride
        self._i2h_pad = i2h_pad
        self._i2h_dilate = i2h_dilate
        self._num_hidden = num_hidden
        self._input_shape = input_shape
        self._conv_layout = conv_layout
        self._activation = activation
        # the state shape is that of the i2h convolution's output; MXNet infers it from a
        # throw-away Convolution symbol (which also takes one automatic 'convolution' name)
        probe = symbol.Convolution(data=symbol.Variable("data"), num_filter=self._num_hidden,
                                   kernel=self._i2h_kernel, stride=self._i2h_stride, pad=self._i2h_pad,
                                   dilate=self._i2h_dilate, layout=conv_layout)
        shapes = probe.infer_shape(data=input_shape)[1]
        if shapes is None:
            raise MXNetError(f"{type(self).__name__}: cannot infer the state shape from input_shape={input_shape}")
        self._state_shape = (0,) + tuple(shapes[0][1:])
        self._iW = self.params.get("i2h_weight", init=i2h_weight_initializer)
        self._hW = self.params.get("h2h_weight", init=h2h_weight_initializer)
        self._iB = self.params.get("i2h_bias", init=i2h_bias_initializer)
        self._hB = self.params.get("h2h_bias", init=h2h_bias_initializer)

    @property
    def _num_gates(self):
        return len(self._gate_names)

    # how many states of the state shape the cell carries (two for the base, as MXNet)
    _num_states = 2

    @property
    def state_info(self):
        return [{"shape": self._state_shape, "__layout__": self._conv_layout} for _ in range(self._num_states)]

    def _conv_forward(self, inputs, states):
        """Start one step: advance the counter and return ``(name, i2h, h2h)``, the step's
        name prefix and the two convolutions of ``inputs`` and ``states[0]``."""
        self._counter += 1
        name = f"{self._prefix}t{self._counter}_"
        filters = self._num_hidden * self._num_gates
        i2h = symbol.Convolution(name=f"{name}i2h", data=inputs, num_filter=filters, kernel=self._i2h_kernel,
                                 stride=self._i2h_stride, pad=self._i2h_pad, dilate=self._i2h_dilate,
                                 weight=self._iW, bias=self._iB, layout=self._conv_layout)
        h2h = symbol.Convolution(name=f"{name}h2h", data=states[0], num_filter=filters, kernel=self._h2h_kernel,
                                 dilate=self._h2h_dilate, pad=self._h2h_pad, stride=(1, 1), weight=self._hW,
                                 bias=self._hB, layout=self._conv_layout)
        return name, i2h, h2h

    def __call__(self, inputs, states):
        raise NotImplementedError("BaseConvRNNCell is the abstract base of the convolutional cells")


_LEAKY = functools.partial(symbol.LeakyReLU, act_type="leaky", slope=0.2)


def _conv_cell_init(default_prefix):
    """The ``__init__`` of a concrete convolutional cell: MXNet's defaults (3x3 kernels,
    stride 1, pad 1, leaky ReLU) with ``prefix`` defaulting to ``default_prefix``."""
    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1), i2h_kernel=(3, 3),
                 i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1), i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 activation=_LEAKY, prefix=default_prefix, params=None, conv_layout="NCHW"):
        BaseConvRNNCell.__init__(self, input_shape=input_shape, num_hidden=num_hidden, h2h_kernel=h2h_kernel,
                                 h2h_dilate=h2h_dilate, i2h_kernel=i2h_kernel, i2h_stride=i2h_stride,
                                 i2h_pad=i2h_pad, i2h_dilate=i2h_dilate,
                                 i2h_weight_initializer=i2h_weight_initializer,
                                 h2h_weight_initializer=h2h_weight_initializer,
                                 i2h_bias_initializer=i2h_bias_initializer,
                                 h2h_bias_initializer=h2h_bias_initializer, activation=activation, prefix=prefix,
                                 params=params, conv_layout=conv_layout)
    return __init__


class ConvRNNCell(BaseConvRNNCell):
    """Convolutional Elman cell: ``h' = activation(conv_i(x) + conv_h(h))``; one state.
    Arguments as :class:`BaseConvRNNCell`."""

    _num_states = 1
    __init__ = _conv_cell_init("ConvRNN_")

    @property
    def _gate_names(self):
        return ("",)


    def __call__(self, inputs, states):
        name, i2h, h2h = self._conv_forward(inputs, states)
        output = self._get_activation(i2h + h2h, self._activation, name=f"{name}out")
        return output, [output]


class ConvLSTMCell(BaseConvRNNCell):
    """Convolutional LSTM (Shi et al. 2015): gates input, forget, candidate, output split on
    the channel axis; ``activation`` replaces tanh for the candidate and the cell output.
    Two states (hidden, cell).  Arguments as :class:`BaseConvRNNCell`."""

    __init__ = _conv_cell_init("ConvLSTM_")

    @property
    def _gate_names(self):
        return ["_i", "_f", "_c", "_o"]

    def __call__(self, inputs, states):
        name, i2h, h2h = self._conv_forward(inputs, states)
        gates = symbol.SliceChannel(i2h + h2h, num_outputs=4, axis=self._conv_layout.find("C"), name=f"{name}slice")
        input_gate = symbol.Activation(gates[0], act_type="sigmoid", name=f"{name}i")
        forget_gate = symbol.Activation(gates[1], act_type="sigmoid", name=f"{name}f")
        candidate = self._get_activation(gates[2], self._activation, name=f"{name}c")
        output_gate = symbol.Activation(gates[3], act_type="sigmoid", name=f"{name}o")
        next_cell = symbol._internal._plus(forget_gate * states[1], input_gate * candidate, name=f"{name}state")
        next_hidden = symbol._internal._mul(output_gate, self._get_activation(next_cell, self._activation),
                                            name=f"{name}out")
        return next_hidden, [next_hidden, next_cell]


class ConvGRUCell(BaseConvRNNCell):
    """Convolutional GRU: gates reset, update, candidate (split on axis 1, as MXNet does for
    every layout); ``activation`` replaces tanh for the candidate.  One state.  Arguments
    as :class:`BaseConvRNNCell`."""

    _num_states = 1
    __init__ = _conv_cell_init("ConvGRU_")

    @property
    def _gate_names(self):
        return ["_r", "_z", "_o"]


    def __call__(self, inputs, states):
        name, i2h, h2h = self._conv_forward(inputs, states)
        i2h_reset, i2h_update, i2h_candidate = symbol.SliceChannel(i2h, num_outputs=3, name=f"{name}_i2h_slice")
        h2h_reset, h2h_update, h2h_candidate = symbol.SliceChannel(h2h, num_outputs=3, name=f"{name}_h2h_slice")
        reset_gate = symbol.Activation(i2h_reset + h2h_reset, act_type="sigmoid", name=f"{name}_r_act")
        update_gate = symbol.Activation(i2h_update + h2h_update, act_type="sigmoid", name=f"{name}_z_act")
        candidate = self._get_activation(i2h_candidate + reset_gate * h2h_candidate, self._activation,
                                         name=f"{name}_h_act")
        next_hidden = symbol._internal._plus((1. - update_gate) * candidate, update_gate * states[0],
                                             name=f"{name}out")
        return next_hidden, [next_hidden]
