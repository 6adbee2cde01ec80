"""Symbolic recurrent cells (MXNet 1.9.1's ``mx.rnn`` cells).

A cell builds the symbols of one time step (``cell(inputs, states)``) or of a
whole sequence (``cell.unroll(length, inputs)``).  The graphs are the ones
MXNet 1.9.1 builds, node for node: the same operators created in the same
order, so automatic names (``_plus0``, ``activation3``, ``split0``) and the
``-symbol.json`` written from them are identical, and checkpoints made with
MXNet's cells load into graphs built here.

Naming, for a cell with prefix ``P`` (``'lstm_'``):

- parameters ``P i2h_weight``, ``P i2h_bias``, ``P h2h_weight``,
  ``P h2h_bias`` (``FusedRNNCell``: one vector ``P parameters``);
- the nodes of step ``t`` are prefixed ``P t<t>_`` (``lstm_t0_i2h``);
- begin states are ``P begin_state_<k>``.

Tensor layouts: a step's input is ``(batch, features)`` (convolutional cells:
``(batch, channel, height, width)`` for ``conv_layout='NCHW'``); a sequence
is ``(batch, time, features)`` for layout ``'NTC'`` and
``(time, batch, features)`` for ``'TNC'``.  Unknown batch sizes in state
shapes are written 0 and filled in by shape inference.

Gate order inside the packed ``i2h`` / ``h2h`` matrices (rows): LSTM
input, forget, candidate (``c``), output; GRU reset, update, candidate
(``o``).  ``unpack_weights`` splits them into ``P i2h_i_weight`` ... and
``pack_weights`` joins them back.

Where MXNet asserted, mxtorch raises :class:`mxtorch.base.MXNetError` with a
message naming the cell and the argument.
"""
from __future__ import annotations

import functools
import warnings

import torch

from .. import initializer as init
from .. import symbol
from ..base import MXNetError, numeric_types
from ..ndarray import NDArray
# names MXNet 1.9.1's mxnet.rnn.rnn_cell had in its namespace from its ctypes binding
from ..base import string_types  # noqa: E402,F401

__all__ = ["RNNParams", "BaseRNNCell", "RNNCell", "LSTMCell", "GRUCell", "FusedRNNCell",
           "SequentialRNNCell", "DropoutCell", "ModifierCell", "ZoneoutCell", "ResidualCell",
           "BidirectionalCell", "BaseConvRNNCell", "ConvRNNCell", "ConvLSTMCell", "ConvGRUCell"]


# -- helpers over several cells ---------------------------------------------------------------------
def _state_info_of(cells):
    return [info for cell in cells for info in cell.state_info]


def _begin_state_of(cells, **kwargs):
    return [state for cell in cells for state in cell.begin_state(**kwargs)]


def _unpack_weights_of(cells, args):
    for cell in cells:
        args = cell.unpack_weights(args)
    return args


def _pack_weights_of(cells, args):
    for cell in cells:
        args = cell.pack_weights(args)
    return args


def _concatenate(arrays):
    """Join NDArrays along axis 0 on the first array's device (MXNet's ``nd.concatenate``)."""
    first = arrays[0]
    return NDArray(torch.cat([a._tensor.to(first._tensor.device) for a in arrays], dim=0), first.context)


def _pop(args, name, function):
    if name not in args:
        raise MXNetError(f"{function}: parameter {name!r} not found; given {sorted(args)}")
    return args.pop(name)


def _time_axis(layout, function):
    if not isinstance(layout, str) or "T" not in layout:
        raise MXNetError(f"{function}: layout must contain 'T' (e.g. 'NTC' or 'TNC'), got {layout!r}")
    return layout.find("T")


def _normalize_sequence(length, inputs, layout, merge, in_layout=None):
    """Bring ``inputs`` (one Symbol holding the whole sequence, or a list of per-step
    Symbols) into the requested form: a list of ``length`` steps when ``merge`` is False,
    one Symbol with the time axis of ``layout`` when ``merge`` is True, unchanged when
    ``merge`` is None.  Returns ``(inputs, time_axis)``.

    Splitting uses ``split`` (squeezing the time axis) and merging ``expand_dims`` +
    ``Concat``, as MXNet does, so the same nodes appear in the graph.
    """
    if inputs is None:
        raise MXNetError("unroll: inputs=None is not supported (MXNet 1.x removed it); create the input "
                         "symbol(s) first, e.g. mx.sym.Variable('data'), and pass them")
    axis = _time_axis(layout, "unroll")
    in_axis = _time_axis(in_layout, "unroll") if in_layout is not None else axis
    if isinstance(inputs, symbol.Symbol):
        if merge is False:
            if len(inputs.list_outputs()) != 1:
                raise MXNetError("unroll: inputs is a grouped symbol with "
                                 f"{len(inputs.list_outputs())} outputs; pass list(inputs) or one symbol "
                                 "holding the whole sequence")
            inputs = list(symbol.split(inputs, axis=in_axis, num_outputs=length, squeeze_axis=1))
    else:
        inputs = list(inputs)
        if length is not None and len(inputs) != length:
            raise MXNetError(f"unroll: length={length} but {len(inputs)} input symbols were given")
        if merge is True:
            inputs = [symbol.expand_dims(step, axis=axis) for step in inputs]
            inputs = symbol.Concat(*inputs, dim=axis)
            in_axis = axis
    if isinstance(inputs, symbol.Symbol) and axis != in_axis:
        inputs = symbol.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis


class RNNParams:
    """Container of parameter variables, shared between cells that should use the same
    weights.  ``get(name)`` returns the variable ``prefix + name``, creating it on first
    use (keyword arguments go to ``mx.sym.Variable``: ``init``, ``shape``, ...)."""

    def __init__(self, prefix=""):
        self._prefix = prefix
        self._params = {}

    def get(self, name, **kwargs):
        """The variable ``prefix + name``; created with ``mx.sym.Variable(prefix + name,
        **kwargs)`` the first time, returned as is afterwards (later kwargs are ignored)."""
        full_name = self._prefix + name
        if full_name not in self._params:
            self._params[full_name] = symbol.Variable(full_name, **kwargs)
        return self._params[full_name]


class BaseRNNCell:
    """Base class of the recurrent cells.

    ``prefix`` starts the names of the cell's nodes and, when ``params`` is None, of its
    parameter variables; ``params`` (an :class:`RNNParams`) shares parameters with other
    cells.  Subclasses define ``state_info`` and ``__call__``.
    """

    def __init__(self, prefix="", params=None):
        if params is None:
            params = RNNParams(prefix)
            self._own_params = True
        else:
            self._own_params = False
        self._prefix = prefix
        self._params = params
        self._modified = False
        self.reset()

    def reset(self):
        """Restart the step and begin-state counters (so a new unroll names its nodes
        ``<prefix>t0_...`` again); also resets the cells inside a container cell."""
        self._init_counter = -1
        self._counter = -1
        for cell in getattr(self, "_cells", ()):
            cell.reset()

    def __call__(self, inputs, states):
        """One time step: ``inputs`` a Symbol ``(batch, features)``, ``states`` the list from
        ``begin_state()`` or from the previous step.  Returns ``(output, new_states)``."""
        raise NotImplementedError(f"{type(self).__name__} does not implement a time step")

    @property
    def params(self):
        """The :class:`RNNParams` holding this cell's parameter variables.  Reading it marks
        the container as shared (MXNet's rule, checked by ``SequentialRNNCell.add``)."""
        self._own_params = False
        return self._params

    @property
    def state_info(self):
        """One dict per state: ``{'shape': ..., '__layout__': ...}`` (batch dimension 0)."""
        raise NotImplementedError(f"{type(self).__name__} does not define state_info")

    @property
    def state_shape(self):
        """The ``shape`` entry of every ``state_info`` dict."""
        return [info["shape"] for info in self.state_info]

    @property
    def _gate_names(self):
        return ()

    def _check_not_modified(self):
        if self._modified:
            raise MXNetError(f"{type(self).__name__} (prefix {self._prefix!r}) is wrapped by a modifier cell "
                             "(ZoneoutCell, ResidualCell, ...); call the modifier cell instead")

    def begin_state(self, func=symbol.zeros, **kwargs):
        """Initial states, one Symbol per ``state_info`` entry, created as
        ``func(name='<prefix>begin_state_<k>', shape=..., __layout__=..., **kwargs)``
        (``func``: ``mx.sym.zeros`` by default; ``mx.sym.Variable`` to feed states as inputs;
        ``mx.sym.uniform`` ...).  As in MXNet the info dicts update ``kwargs`` in turn.
        Raises MXNetError if the cell is wrapped by a modifier cell."""
        self._check_not_modified()
        states = []
        for info in self.state_info:
            self._init_counter += 1
            if info is not None:
                kwargs.update(info)
            states.append(func(name=f"{self._prefix}begin_state_{self._init_counter}", **kwargs))
        return states

    def unpack_weights(self, args):
        """A copy of ``args`` (name -> NDArray) where each packed ``<prefix>i2h_weight`` /
        ``h2h_weight`` / biases is replaced by one array per gate, named
        ``<prefix>i2h<gate>_weight`` (``lstm_i2h_f_weight``), each ``(num_hidden, ...)``."""
        args = dict(args)
        if not self._gate_names:
            return args
        hidden = self._num_hidden
        for group in ("i2h", "h2h"):
            weight = _pop(args, f"{self._prefix}{group}_weight", "unpack_weights")
            bias = _pop(args, f"{self._prefix}{group}_bias", "unpack_weights")
            for position, gate in enumerate(self._gate_names):
                rows = slice(position * hidden, (position + 1) * hidden)
                args[f"{self._prefix}{group}{gate}_weight"] = weight[rows].copy()
                args[f"{self._prefix}{group}{gate}_bias"] = bias[rows].copy()
        return args

    def pack_weights(self, args):
        """The inverse of :meth:`unpack_weights`: per-gate arrays are concatenated (gate order
        of the cell) into ``<prefix>i2h_weight``, ``<prefix>i2h_bias``, ...."""
        args = dict(args)
        if not self._gate_names:
            return args
        for group in ("i2h", "h2h"):
            weights, biases = [], []
            for gate in self._gate_names:
                weights.append(_pop(args, f"{self._prefix}{group}{gate}_weight", "pack_weights"))
                biases.append(_pop(args, f"{self._prefix}{group}{gate}_bias", "pack_weights"))
            args[f"{self._prefix}{group}_weight"] = _concatenate(weights)
            args[f"{self._prefix}{group}_bias"] = _concatenate(biases)
        return args

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """Apply the cell ``length`` times.

        ``inputs``: one Symbol ``(batch, length, ...)`` for layout 'NTC' or
        ``(length, batch, ...)`` for 'TNC' (split into steps), or a list of ``length``
        Symbols ``(batch, ...)``.  ``begin_state``: list of state Symbols (default
        ``begin_state()``).  ``merge_outputs``: True gives one Symbol with the time axis of
        ``layout``, False a list of per-step Symbols, None whichever is at hand.
        Returns ``(outputs, states)``, the states after the last step.
        """
        self.reset()
        inputs, _ = _normalize_sequence(length, inputs, layout, False)
        if begin_state is None:
            begin_state = self.begin_state()
        states = begin_state
        outputs = []
        for step in range(length):
            output, states = self(inputs[step], states)
            outputs.append(output)
        outputs, _ = _normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, inputs, activation, **kwargs):
        """``Activation(act_type=activation)`` for a string, else ``activation(inputs, **kwargs)``."""
        if isinstance(activation, str):
            return symbol.Activation(inputs, act_type=activation, **kwargs)
        return activation(inputs, **kwargs)


class RNNCell(BaseRNNCell):
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
        self._iW = self.params.get("i2h_weight")
        self._iB = self.params.get("i2h_bias")
        self._hW = self.params.get("h2h_weight")
        self._hB = self.params.get("h2h_bias")

    @property
    def state_info(self):
        return [{"shape": (0, self._num_hidden), "__layout__": "NC"}]

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


class LSTMCell(BaseRNNCell):
    """LSTM cell (gates input, forget, candidate, output, in that row order).

    ``num_hidden``: state size H.  Parameters ``<prefix>i2h_weight (4H, input)``,
    ``h2h_weight (4H, H)``, biases ``(4H,)``; ``i2h_bias`` carries the initializer
    ``LSTMBias(forget_bias)`` (forget-gate bias ``forget_bias``, the rest 0).  Two states
    ``(batch, H)``: hidden, then cell.
    """

    def __init__(self, num_hidden, prefix="lstm_", params=None, forget_bias=1.0):
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._iW = self.params.get("i2h_weight")
        self._hW = self.params.get("h2h_weight")
        self._iB = self.params.get("i2h_bias", init=init.LSTMBias(forget_bias=forget_bias))
        self._hB = self.params.get("h2h_bias")

    @property
    def state_info(self):
        return [{"shape": (0, self._num_hidden), "__layout__": "NC"},
                {"shape": (0, self._num_hidden), "__layout__": "NC"}]

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


class GRUCell(BaseRNNCell):
    """GRU cell in cuDNN's form: the reset gate multiplies ``W_h h + b_h`` of the candidate.

    Gates (rows of the packed matrices): reset, update, candidate.  Parameters
    ``<prefix>i2h_weight (3H, input)``, ``h2h_weight (3H, H)``, biases ``(3H,)``; one state
    ``(batch, H)``.  ``h' = (1 - z) * n + z * h``.
    """

    def __init__(self, num_hidden, prefix="gru_", params=None):
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._iW = self.params.get("i2h_weight")
        self._iB = self.params.get("i2h_bias")
        self._hW = self.params.get("h2h_weight")
        self._hB = self.params.get("h2h_bias")

    @property
    def state_info(self):
        return [{"shape": (0, self._num_hidden), "__layout__": "NC"}]

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


class FusedRNNCell(BaseRNNCell):
    """Several RNN / LSTM / GRU layers over the whole sequence in one ``RNN`` operator.

    ``mode``: 'rnn_relu', 'rnn_tanh', 'lstm' or 'gru'; ``num_layers`` stacked layers,
    ``bidirectional`` doubles the output features; ``dropout`` between layers (training
    only); ``get_next_state`` makes ``unroll`` return the final states.  All weights live in
    one vector ``<prefix>parameters`` (initializer ``FusedRNN``) laid out as the ``RNN``
    operator expects: for each layer and direction (``l`` forward, ``r`` reverse) the
    input-to-hidden matrices of every gate then the hidden-to-hidden ones, followed by all
    biases in the same order.  ``unpack_weights`` names the pieces
    ``<prefix><l|r><layer>_<i2h|h2h><gate>_<weight|bias>`` (``lstm_l0_i2h_i_weight``).
    States ``(layers * directions, batch, H)`` with layout 'LNC' (LSTM: hidden and cell).
    The cell cannot be stepped; :meth:`unfuse` gives the equivalent stack of cells.
    """

    _MODES = {"rnn_relu": [""], "rnn_tanh": [""], "lstm": ["_i", "_f", "_c", "_o"], "gru": ["_r", "_z", "_o"]}

    def __init__(self, num_hidden, num_layers=1, mode="lstm", bidirectional=False, dropout=0.,
                 get_next_state=False, forget_bias=1.0, prefix=None, params=None):
        if mode not in self._MODES:
            raise MXNetError(f"FusedRNNCell: mode must be one of {sorted(self._MODES)}, got {mode!r}")
        if prefix is None:
            prefix = f"{mode}_"
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._dropout = dropout
        self._get_next_state = get_next_state
        self._directions = ["l", "r"] if bidirectional else ["l"]
        initializer = init.FusedRNN(None, num_hidden, num_layers, mode, bidirectional, forget_bias)
        self._parameter = self.params.get("parameters", init=initializer)

    @property
    def state_info(self):
        directions = 2 if self._bidirectional else 1
        count = 2 if self._mode == "lstm" else 1
        return [{"shape": (directions * self._num_layers, 0, self._num_hidden), "__layout__": "LNC"}
                for _ in range(count)]

    @property
    def _gate_names(self):
        return self._MODES[self._mode]

    @property
    def _num_gates(self):
        return len(self._gate_names)

    def _pieces(self, input_size):
        """``[(name, shape)]`` of the packed vector's pieces, in storage order."""
        hidden = self._num_hidden
        directions = len(self._directions)
        weights, biases = [], []
        for layer in range(self._num_layers):
            layer_input = input_size if layer == 0 else directions * hidden
            for direction in self._directions:
                stem = f"{self._prefix}{direction}{layer}_"
                for group, columns in (("i2h", layer_input), ("h2h", hidden)):
                    for gate in self._gate_names:
                        weights.append((f"{stem}{group}{gate}_weight", (hidden, columns)))
                for group in ("i2h", "h2h"):
                    for gate in self._gate_names:
                        biases.append((f"{stem}{group}{gate}_bias", (hidden,)))
        return weights + biases

    def _input_size(self, total):
        """The input size that makes the packed vector ``total`` elements long."""
        directions = len(self._directions)
        hidden = self._num_hidden
        per_gate = directions * hidden * self._num_gates
        upper = (self._num_layers - 1) * (hidden + directions * hidden + 2)
        if total % per_gate or total // per_gate - upper - hidden - 2 < 1:
            raise MXNetError(f"FusedRNNCell (prefix {self._prefix!r}): a parameter vector of {total} elements "
                             f"does not fit mode={self._mode!r}, num_layers={self._num_layers}, "
                             f"bidirectional={self._bidirectional}, num_hidden={hidden}")
        return total // per_gate - upper - hidden - 2

    def unpack_weights(self, args):
        """A copy of ``args`` with ``<prefix>parameters`` replaced by its named pieces
        (see the class docstring); the input size is deduced from the vector's length."""
        args = dict(args)
        flat = _pop(args, self._parameter.name, "FusedRNNCell.unpack_weights")
        tensor = flat._tensor.reshape(-1)
        offset = 0
        for name, shape in self._pieces(self._input_size(tensor.numel())):
            count = 1
            for size in shape:
                count *= size
            args[name] = NDArray(tensor[offset:offset + count].reshape(shape).clone(), flat.context)
            offset += count
        return args

    def pack_weights(self, args):
        """The inverse of :meth:`unpack_weights`: the named pieces are removed from (a copy
        of) ``args`` and joined into ``<prefix>parameters`` on the device and dtype of
        ``<prefix>l0_i2h<first gate>_weight``."""
        args = dict(args)
        first = f"{self._prefix}l0_i2h{self._gate_names[0]}_weight"
        if first not in args:
            raise MXNetError(f"FusedRNNCell.pack_weights: parameter {first!r} not found; given {sorted(args)}")
        reference = args[first]
        pieces = []
        for name, shape in self._pieces(reference.shape[1]):
            value = _pop(args, name, "FusedRNNCell.pack_weights")
            if tuple(value.shape) != shape:
                raise MXNetError(f"FusedRNNCell.pack_weights: {name!r} has shape {tuple(value.shape)}, "
                                 f"expected {shape}")
            pieces.append(value._tensor.to(device=reference._tensor.device, dtype=reference._tensor.dtype)
                          .reshape(-1))
        args[self._parameter.name] = NDArray(torch.cat(pieces), reference.context)
        return args

    def __call__(self, inputs, states):
        raise NotImplementedError("FusedRNNCell cannot be stepped; use unroll (or unfuse() for a steppable cell)")

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """One ``RNN`` node over the sequence (see :meth:`BaseRNNCell.unroll`).  With layout
        'NTC' the inputs and outputs are swapped to and from the operator's 'TNC' layout.
        Returns ``(outputs, states)``; states is ``[]`` unless ``get_next_state``."""
        self.reset()
        inputs, axis = _normalize_sequence(length, inputs, layout, True)
        if axis == 1:
            warnings.warn("NTC layout detected. Consider using TNC for FusedRNNCell for faster speed")
            inputs = symbol.swapaxes(inputs, dim1=0, dim2=1)
        elif axis != 0:
            raise MXNetError(f"FusedRNNCell.unroll: layout must be 'NTC' or 'TNC', got {layout!r}")
        if begin_state is None:
            begin_state = self.begin_state()
        states = {"state": begin_state[0]}
        if self._mode == "lstm":
            states["state_cell"] = begin_state[1]
        rnn = symbol.RNN(data=inputs, parameters=self._parameter, state_size=self._num_hidden,
                         num_layers=self._num_layers, bidirectional=self._bidirectional, p=self._dropout,
                         state_outputs=self._get_next_state, mode=self._mode, name=self._prefix + "rnn",
                         **states)
        if not self._get_next_state:
            outputs, states = rnn, []
        else:
            count = 3 if self._mode == "lstm" else 2
            for index in range(1, count):
                rnn[index]._set_attr(__layout__="LNC")
            outputs, states = rnn[0], [rnn[index] for index in range(1, count)]
        if axis == 1:
            outputs = symbol.swapaxes(outputs, dim1=0, dim2=1)
        outputs, _ = _normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def unfuse(self):
        """The same network as a :class:`SequentialRNNCell` of per-layer cells (RNNCell /
        LSTMCell / GRUCell, wrapped in BidirectionalCell when bidirectional, DropoutCell
        between layers), whose parameter names are those of :meth:`unpack_weights` after
        ``pack_weights`` of each cell: ``<prefix>l<k>_`` and ``<prefix>r<k>_``."""
        makers = {
            "rnn_relu": lambda prefix: RNNCell(self._num_hidden, activation="relu", prefix=prefix),
            "rnn_tanh": lambda prefix: RNNCell(self._num_hidden, activation="tanh", prefix=prefix),
            "lstm": lambda prefix: LSTMCell(self._num_hidden, prefix=prefix),
            "gru": lambda prefix: GRUCell(self._num_hidden, prefix=prefix),
        }
        make = makers[self._mode]
        stack = SequentialRNNCell()
        for layer in range(self._num_layers):
            if self._bidirectional:
                stack.add(BidirectionalCell(make(f"{self._prefix}l{layer}_"), make(f"{self._prefix}r{layer}_"),
                                            output_prefix=f"{self._prefix}bi_l{layer}_"))
            else:
                stack.add(make(f"{self._prefix}l{layer}_"))
            if self._dropout > 0 and layer != self._num_layers - 1:
                stack.add(DropoutCell(self._dropout, prefix=f"{self._prefix}_dropout{layer}_"))
        return stack


class SequentialRNNCell(BaseRNNCell):
    """A stack of cells: each cell's output is the next cell's input.  The states are the
    concatenation of the cells' states.  ``params`` may only be given when the added cells
    have not read their own parameter container (MXNet's rule)."""

    def __init__(self, params=None):
        super().__init__(prefix="", params=params)
        self._override_cell_params = params is not None
        self._cells = []

    def add(self, cell):
        """Append ``cell`` to the stack."""
        self._cells.append(cell)
        if self._override_cell_params:
            if not cell._own_params:
                raise MXNetError("SequentialRNNCell.add: give params either to the SequentialRNNCell or to "
                                 f"its cells, not both ({type(cell).__name__} with prefix {cell._prefix!r} "
                                 "already uses its parameter container)")
            cell.params._params.update(self.params._params)
        self.params._params.update(cell.params._params)

    @property
    def state_info(self):
        return _state_info_of(self._cells)

    def begin_state(self, **kwargs):
        """The begin states of every cell, in order (keyword arguments as in
        :meth:`BaseRNNCell.begin_state`)."""
        self._check_not_modified()
        return _begin_state_of(self._cells, **kwargs)

    def unpack_weights(self, args):
        return _unpack_weights_of(self._cells, args)

    def pack_weights(self, args):
        return _pack_weights_of(self._cells, args)

    def __call__(self, inputs, states):
        self._counter += 1
        next_states = []
        position = 0
        for cell in self._cells:
            if isinstance(cell, BidirectionalCell):
                raise MXNetError("SequentialRNNCell: a BidirectionalCell inside cannot be stepped; use unroll")
            count = len(cell.state_info)
            inputs, cell_states = cell(inputs, states[position:position + count])
            position += count
            next_states.extend(cell_states)
        return inputs, next_states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """Unroll each cell over the whole sequence in turn (``merge_outputs`` applies to the
        last cell; the others return whatever is at hand)."""
        self.reset()
        if begin_state is None:
            begin_state = self.begin_state()
        position = 0
        next_states = []
        last = len(self._cells) - 1
        for index, cell in enumerate(self._cells):
            count = len(cell.state_info)
            inputs, states = cell.unroll(length, inputs=inputs, begin_state=begin_state[position:position + count],
                                         layout=layout, merge_outputs=merge_outputs if index == last else None)
            position += count
            next_states.extend(states)
        return inputs, next_states


class DropoutCell(BaseRNNCell):
    """Dropout on the input (rate ``dropout``, training only); no states, no parameters."""

    def __init__(self, dropout, prefix="dropout_", params=None):
        super().__init__(prefix, params)
        if not isinstance(dropout, numeric_types) or isinstance(dropout, bool):
            raise MXNetError(f"DropoutCell: dropout must be a number, got {type(dropout).__name__}")
        self.dropout = dropout

    @property
    def state_info(self):
        return []

    def __call__(self, inputs, states):
        if self.dropout > 0:
            inputs = symbol.Dropout(data=inputs, p=self.dropout)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """One Dropout over the whole sequence when it is (or is merged into) one Symbol,
        else one per step."""
        self.reset()
        inputs, _ = _normalize_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, symbol.Symbol):
            return self(inputs, [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout, merge_outputs=merge_outputs)


class ModifierCell(BaseRNNCell):
    """Base of the cells that wrap another cell (``base_cell``) and change its step.
    After wrapping, the base cell must not be used directly (its ``begin_state`` raises)."""

    def __init__(self, base_cell):
        super().__init__()
        base_cell._modified = True
        self.base_cell = base_cell

    @property
    def params(self):
        self._own_params = False
        return self.base_cell.params

    @property
    def state_info(self):
        return self.base_cell.state_info

    def begin_state(self, init_sym=symbol.zeros, **kwargs):
        """The base cell's begin states (named with the base cell's prefix), made by
        ``init_sym`` (also accepted as ``func=``, the name the other cells use, so that
        container cells can pass it on)."""
        self._check_not_modified()
        if "func" in kwargs:
            init_sym = kwargs.pop("func")
        self.base_cell._modified = False
        try:
            begin = self.base_cell.begin_state(func=init_sym, **kwargs)
        finally:
            self.base_cell._modified = True
        return begin

    def unpack_weights(self, args):
        return self.base_cell.unpack_weights(args)

    def pack_weights(self, args):
        return self.base_cell.pack_weights(args)

    def __call__(self, inputs, states):
        raise NotImplementedError(f"{type(self).__name__} does not implement a time step")


def _contains_bidirectional(cell):
    return isinstance(cell, BidirectionalCell) or any(_contains_bidirectional(c) for c in getattr(cell, "_cells", ()))


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al. 2016) on a base cell: in training each output element
    keeps the previous step's value with probability ``zoneout_outputs`` and each state
    element its previous value with probability ``zoneout_states`` (masks from
    ``Dropout`` of ones, so inference is the base cell unchanged)."""

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        if isinstance(base_cell, FusedRNNCell):
            raise MXNetError("ZoneoutCell: FusedRNNCell does not support zoneout; unfuse() it first")
        if _contains_bidirectional(base_cell):
            raise MXNetError("ZoneoutCell: a BidirectionalCell cannot be stepped; wrap the cells inside it instead")
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self.prev_output = None

    def reset(self):
        super().reset()
        self.prev_output = None

    def __call__(self, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)

        def keep_mask(rate, like):
            return symbol.Dropout(symbol.ones_like(like), p=rate)

        previous = self.prev_output if self.prev_output is not None else symbol.zeros((0, 0))
        if self.zoneout_outputs != 0.:
            output = symbol.where(keep_mask(self.zoneout_outputs, next_output), next_output, previous)
        else:
            output = next_output
        if self.zoneout_states != 0.:
            states = [symbol.where(keep_mask(self.zoneout_states, new), new, old)
                      for new, old in zip(next_states, states)]
        else:
            states = next_states
        self.prev_output = output
        return output, states


class ResidualCell(ModifierCell):
    """Residual connection (Wu et al. 2016): output = base cell output + input, added with
    ``elemwise_add`` named ``<output name>_plus_residual``.  Input and output sizes must
    agree."""

    def __call__(self, inputs, states):
        output, states = self.base_cell(inputs, states)
        output = symbol.elemwise_add(output, inputs, name=f"{output.name}_plus_residual")
        return output, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """Unroll the base cell, then add the inputs (merged or per step, as the outputs)."""
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs=inputs, begin_state=begin_state, layout=layout,
                                                    merge_outputs=merge_outputs)
        finally:
            self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, symbol.Symbol)
        inputs, _ = _normalize_sequence(length, inputs, layout, merge_outputs)
        if merge_outputs:
            outputs = symbol.elemwise_add(outputs, inputs, name=f"{outputs.name}_plus_residual")
        else:
            outputs = [symbol.elemwise_add(output, step, name=f"{output.name}_plus_residual")
                       for output, step in zip(outputs, inputs)]
        return outputs, states


class BidirectionalCell(BaseRNNCell):
    """Runs ``l_cell`` forward and ``r_cell`` backward in time and concatenates their
    outputs on the feature axis (``Concat`` named ``<output_prefix>t<k>`` per step, or
    ``<output_prefix>out`` merged).  ``unroll`` returns the states as
    ``[l_states, r_states]`` (a nested list, as MXNet).  Cannot be stepped."""

    def __init__(self, l_cell, r_cell, params=None, output_prefix="bi_"):
        super().__init__("", params=params)
        self._output_prefix = output_prefix
        self._override_cell_params = params is not None
        if self._override_cell_params:
            if not (l_cell._own_params and r_cell._own_params):
                raise MXNetError("BidirectionalCell: give params either to the BidirectionalCell or to its "
                                 "cells, not both")
            l_cell.params._params.update(self.params._params)
            r_cell.params._params.update(self.params._params)
        self.params._params.update(l_cell.params._params)
        self.params._params.update(r_cell.params._params)
        self._cells = [l_cell, r_cell]

    def unpack_weights(self, args):
        return _unpack_weights_of(self._cells, args)

    def pack_weights(self, args):
        return _pack_weights_of(self._cells, args)

    def __call__(self, inputs, states):
        raise NotImplementedError("BidirectionalCell cannot be stepped; use unroll")

    @property
    def state_info(self):
        return _state_info_of(self._cells)

    def begin_state(self, **kwargs):
        """The left cell's begin states, then the right cell's."""
        self._check_not_modified()
        return _begin_state_of(self._cells, **kwargs)

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        inputs, axis = _normalize_sequence(length, inputs, layout, False)
        if begin_state is None:
            begin_state = self.begin_state()
        l_cell, r_cell = self._cells
        split = len(l_cell.state_info)
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs, begin_state=begin_state[:split], layout=layout,
                                            merge_outputs=merge_outputs)
        r_outputs, r_states = r_cell.unroll(length, inputs=list(reversed(inputs)), begin_state=begin_state[split:],
                                            layout=layout, merge_outputs=merge_outputs)
        if merge_outputs is None:
            merge_outputs = isinstance(l_outputs, symbol.Symbol) and isinstance(r_outputs, symbol.Symbol)
            if not merge_outputs:
                if isinstance(l_outputs, symbol.Symbol):
                    l_outputs = list(symbol.SliceChannel(l_outputs, axis=axis, num_outputs=length, squeeze_axis=1))
                if isinstance(r_outputs, symbol.Symbol):
                    r_outputs = list(symbol.SliceChannel(r_outputs, axis=axis, num_outputs=length, squeeze_axis=1))
        if merge_outputs:
            l_outputs = [l_outputs]
            r_outputs = [symbol.reverse(r_outputs, axis=axis)]
        else:
            r_outputs = list(reversed(r_outputs))
        outputs = []
        for step, (left, right) in enumerate(zip(l_outputs, r_outputs)):
            name = f"{self._output_prefix}out" if merge_outputs else f"{self._output_prefix}t{step}"
            outputs.append(symbol.Concat(left, right, dim=1 + int(bool(merge_outputs)), name=name))
        if merge_outputs:
            outputs = outputs[0]
        return outputs, [l_states, r_states]


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
