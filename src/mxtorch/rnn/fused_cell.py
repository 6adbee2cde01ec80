"""The fused recurrent cell: :class:`FusedRNNCell`, several layers over the whole sequence
in one ``RNN`` operator, with its packed parameter vector and :meth:`FusedRNNCell.unfuse`."""
from __future__ import annotations

import warnings

import torch

from .. import initializer as init
from .. import symbol
from ..base import MXNetError
from ..ndarray import NDArray
from .base_cell import BaseRNNCell, _normalize_sequence, _pop
from .container_cells import BidirectionalCell, DropoutCell, SequentialRNNCell
from .dense_cells import GRUCell, LSTMCell, RNNCell

__all__ = ["FusedRNNCell"]


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
