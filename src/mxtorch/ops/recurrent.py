"""The fused recurrent layer ``RNN`` (MXNet's cuDNN-compatible RNN operator).

Parameters live in one flat vector laid out as MXNet (and cuDNN) packs it:
first every weight matrix, then every bias vector.  Weights go layer by layer,
within a layer direction by direction (forward ``l<k>``, then reverse
``r<k>``), each as the input-to-hidden matrix ``(gates * state_size, input)``
followed by the hidden-to-hidden matrix ``(gates * state_size, state_size)``;
the biases follow in the same order (input-to-hidden, then hidden-to-hidden).
Gate order: LSTM i, f, c (candidate), o; GRU r (reset), z (update), n
(candidate).  This is PyTorch's gate order too, so the computation runs on
PyTorch's fused kernels (``torch._VF``).
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from .registry import Attr, Operator, register, Int, Float, Bool, Choice, optional, merge_shape

__all__ = ["rnn_parameter_count", "unpack_rnn_parameters"]

_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


def rnn_parameter_count(mode, num_layers, bidirectional, input_size, state_size, projection_size=None):
    """Length of the flat parameter vector of an ``RNN`` layer (MXNet's layout)."""
    gates = _GATES[mode]
    directions = 2 if bidirectional else 1
    output_size = projection_size or state_size
    total = 0
    for layer in range(num_layers):
        layer_input = input_size if layer == 0 else directions * output_size
        per_direction = gates * state_size * (layer_input + output_size) + 2 * gates * state_size
        if projection_size:
            per_direction += projection_size * state_size
        total += directions * per_direction
    return total


def unpack_rnn_parameters(flat, mode, num_layers, bidirectional, input_size, state_size):
    """Views of ``flat`` as ``[(w_ih, w_hh, b_ih, b_hh)]`` per layer and direction (forward
    first), in MXNet's packed order; gradients flow back into ``flat``.

    The pieces come from one ``torch.split``: its backward concatenates the pieces' gradients
    once, where a slice per piece would make a zero tensor of ``flat``'s size for each of them
    and add them up (the same values, 4 * layers * directions times the memory traffic)."""
    gates = _GATES[mode]
    directions = 2 if bidirectional else 1
    rows = gates * state_size
    shapes = []
    for layer in range(num_layers):
        layer_input = input_size if layer == 0 else directions * state_size
        shapes.extend([(rows, layer_input), (rows, state_size)] * directions)
    shapes.extend([(rows,)] * (2 * num_layers * directions))
    sizes = [math.prod(shape) for shape in shapes]
    used = sum(sizes)
    if used < flat.numel():
        # the caller checks the count; a longer vector keeps its tail out of the pieces
        sizes.append(flat.numel() - used)
    pieces = [piece.reshape(shape) for piece, shape in zip(torch.split(flat, sizes), shapes)]
    count = num_layers * directions
    matrices, biases = pieces[:2 * count], pieces[2 * count:]
    return [(matrices[2 * i], matrices[2 * i + 1], biases[2 * i], biases[2 * i + 1]) for i in range(count)]


def _cell(mode, x_part, hidden, cell, w_hh, b_hh, clip):
    """One time step given the precomputed input projection ``x_part`` (with its bias)."""
    h_part = F.linear(hidden, w_hh, b_hh)
    if mode == "lstm":
        i, f, g, o = (x_part + h_part).chunk(4, dim=-1)
        cell = torch.sigmoid(f) * cell + torch.sigmoid(i) * torch.tanh(g)
        if clip is not None:
            low, high, clip_nan = clip
            if clip_nan:
                cell = torch.nan_to_num(cell, nan=low)
            cell = cell.clamp(low, high)
        return torch.sigmoid(o) * torch.tanh(cell), cell
    if mode == "gru":
        x_r, x_z, x_n = x_part.chunk(3, dim=-1)
        h_r, h_z, h_n = h_part.chunk(3, dim=-1)
        reset = torch.sigmoid(x_r + h_r)
        update = torch.sigmoid(x_z + h_z)
        candidate = torch.tanh(x_n + reset * h_n)
        return (1 - update) * candidate + update * hidden, None
    total = x_part + h_part
    return (torch.relu(total) if mode == "rnn_relu" else torch.tanh(total)), None


@register("RNN")
class RNN(Operator):
    """Multi-layer (optionally bidirectional) vanilla RNN, LSTM or GRU over a whole sequence.

    Arguments: data ``(seq_length, batch, input_size)`` (layout TNC); parameters, the flat
    vector of :func:`rnn_parameter_count` elements (layout in the module docstring); state
    ``(num_layers * directions, batch, state_size)``; for LSTM state_cell of the same
    shape; with ``use_sequence_length`` sequence_length ``(batch,)``.  Outputs: output
    ``(seq_length, batch, directions * state_size)`` and, when ``state_outputs``, the final
    hidden state (and the final LSTM cell state), shaped like ``state``.

    ``mode``: 'rnn_relu', 'rnn_tanh', 'lstm', 'gru' (cuDNN equations: the GRU reset gate
    multiplies the hidden-to-hidden candidate term after its bias).  ``p`` is the dropout
    rate on the outputs of every layer but the last, in training only.
    ``lstm_state_clip_min`` / ``lstm_state_clip_max`` clip the LSTM cell state after every
    step (``lstm_state_clip_nan`` also replaces NaN by the minimum), and
    ``use_sequence_length`` stops each sequence at its length (zero outputs after it, final
    states taken at it), as MXNet's GPU kernels did; MXNet 1.9.1's CPU build ignored both.
    ``projection_size`` (LSTMP) is understood by shape inference but has no kernel in
    mxtorch (MXNet had none on CPU either): running it raises MXNetError.
    """

    state_size = Attr(Int, required=True)
    num_layers = Attr(Int, required=True)
    bidirectional = Attr(Bool, default=False)
    mode = Attr(Choice("gru", "lstm", "rnn_relu", "rnn_tanh"), required=True)
    p = Attr(Float, default=0.0)
    state_outputs = Attr(Bool, default=False)
    projection_size = Attr(optional(Int), default=None)
    lstm_state_clip_min = Attr(optional(Float), default=None)
    lstm_state_clip_max = Attr(optional(Float), default=None)
    lstm_state_clip_nan = Attr(Bool, default=False)
    use_sequence_length = Attr(Bool, default=False)

    def validate(self):
        if self.state_size < 1 or self.num_layers < 1:
            raise self.error(f"state_size and num_layers must be positive, got {self.state_size}, {self.num_layers}")
        if not 0 <= self.p < 1:
            raise self.error(f"p must be in [0, 1), got {self.p}")
        if self.projection_size is not None and self.mode != "lstm":
            raise self.error(f"projection_size is only available with mode='lstm', got mode={self.mode!r}")
        if (self.lstm_state_clip_min is None) != (self.lstm_state_clip_max is None):
            raise self.error("lstm_state_clip_min and lstm_state_clip_max must be given together")
        if self.lstm_state_clip_min is not None and self.lstm_state_clip_min > self.lstm_state_clip_max:
            raise self.error(f"lstm_state_clip_min={self.lstm_state_clip_min} exceeds "
                             f"lstm_state_clip_max={self.lstm_state_clip_max}")

    @property
    def directions(self):
        return 2 if self.bidirectional else 1

    def arguments(self):
        names = ["data", "parameters", "state"]
        if self.mode == "lstm":
            names.append("state_cell")
        if self.use_sequence_length:
            names.append("sequence_length")
        return names

    def outputs(self):
        if not self.state_outputs:
            return ["output"]
        return ["output", "state_output"] + (["statecell_output"] if self.mode == "lstm" else [])

    def num_visible_outputs(self):
        return self.num_outputs()

    def infer_shape(self, in_shapes, out_shapes):
        where = f"Operator {self.name}"
        names = self.arguments()
        shapes = dict(zip(names, in_shapes))
        data = merge_shape(shapes["data"], None, where)
        hidden_size = self.projection_size or self.state_size
        layers = self.num_layers * self.directions
        out = list(out_shapes)
        if data is not None:
            if len(data) != 3:
                raise self.error(f"data must be 3-D (seq_length, batch, input_size), got shape {tuple(data)}")
            seq_length, batch, input_size = data
            if input_size:
                count = rnn_parameter_count(self.mode, self.num_layers, self.bidirectional, input_size,
                                            self.state_size, self.projection_size)
                shapes["parameters"] = merge_shape(shapes["parameters"], (count,), f"{where} argument 'parameters'")
            shapes["state"] = merge_shape(shapes["state"], (layers, batch, hidden_size), f"{where} argument 'state'")
            if self.mode == "lstm":
                shapes["state_cell"] = merge_shape(shapes["state_cell"], (layers, batch, self.state_size),
                                                   f"{where} argument 'state_cell'")
            if self.use_sequence_length:
                shapes["sequence_length"] = merge_shape(shapes["sequence_length"], (batch,),
                                                        f"{where} argument 'sequence_length'")
            out[0] = merge_shape(out[0], (seq_length, batch, self.directions * hidden_size), f"{where} output")
            if self.state_outputs:
                out[1] = merge_shape(out[1], (layers, batch, hidden_size), f"{where} output 'state_output'")
            if self.mode == "lstm" and self.state_outputs:
                out[2] = merge_shape(out[2], (layers, batch, self.state_size), f"{where} output 'statecell_output'")
        return [shapes[n] for n in names], out, []

    def infer_type(self, in_types):
        names = self.arguments()
        dtype = next((t for n, t in zip(names, in_types) if t is not None and n != "sequence_length"), None)
        types = [dtype if n != "sequence_length" else (t if t is not None else dtype)
                 for n, t in zip(names, in_types)]
        return types, [dtype] * self.num_outputs(), []

    def forward(self, is_train, inputs, aux):
        if self.projection_size is not None:
            raise self.error("projection_size (LSTM with projection) is not supported by mxtorch")
        values = dict(zip(self.arguments(), inputs))
        data = values["data"]
        original = data.dtype
        compute = torch.float32 if original in (torch.float16, torch.bfloat16) else original
        data = data.to(compute)
        flat = values["parameters"].to(compute)
        hidden = values["state"].to(compute)
        cell = values["state_cell"].to(compute) if self.mode == "lstm" else None
        expected = rnn_parameter_count(self.mode, self.num_layers, self.bidirectional, data.shape[2], self.state_size)
        if flat.numel() != expected:
            raise self.error(f"argument 'parameters' has {flat.numel()} elements, expected {expected} for "
                             f"input size {data.shape[2]}")
        weights = unpack_rnn_parameters(flat, self.mode, self.num_layers, self.bidirectional, data.shape[2],
                                        self.state_size)
        clip = None
        if self.mode == "lstm" and self.lstm_state_clip_min is not None:
            clip = (self.lstm_state_clip_min, self.lstm_state_clip_max, self.lstm_state_clip_nan)
        lengths = values.get("sequence_length") if self.use_sequence_length else None
        if clip is None and lengths is None:
            results = self._fused(data, hidden, cell, weights, is_train)
        else:
            results = self._stepwise(data, hidden, cell, weights, is_train, clip, lengths)
        return [r.to(original) for r in results][:self.num_outputs()]

    def _fused(self, data, hidden, cell, weights, is_train):
        params = [tensor for entry in weights for tensor in entry]
        dropout = self.p if is_train else 0.0
        arguments = (params, True, self.num_layers, dropout, bool(is_train), self.bidirectional, False)
        if self.mode == "lstm":
            output, hidden_out, cell_out = torch._VF.lstm(data, (hidden, cell), *arguments)
            return [output, hidden_out, cell_out]
        function = {"gru": torch._VF.gru, "rnn_tanh": torch._VF.rnn_tanh, "rnn_relu": torch._VF.rnn_relu}[self.mode]
        output, hidden_out = function(data, hidden, *arguments)
        return [output, hidden_out]

    def _stepwise(self, data, hidden, cell, weights, is_train, clip, lengths):
        steps = data.shape[0]
        if lengths is not None:
            lengths = lengths.detach().reshape(-1).to(torch.long).to(data.device)
            active = torch.arange(steps, device=data.device).unsqueeze(1) < lengths.unsqueeze(0)   # (T, N)
        layer_input = data
        final_hidden, final_cell = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(self.directions):
                index = layer * self.directions + direction
                w_ih, w_hh, b_ih, b_hh = weights[index]
                projected = F.linear(layer_input, w_ih, b_ih)
                h = hidden[index]
                c = cell[index] if cell is not None else None
                sequence = [None] * steps
                order = range(steps) if direction == 0 else range(steps - 1, -1, -1)
                for t in order:
                    new_h, new_c = _cell(self.mode, projected[t], h, c, w_hh, b_hh, clip)
                    if lengths is not None:
                        mask = active[t].unsqueeze(1)
                        sequence[t] = torch.where(mask, new_h, torch.zeros_like(new_h))
                        h = torch.where(mask, new_h, h)
                        c = torch.where(mask, new_c, c) if c is not None else None
                    else:
                        sequence[t] = new_h
                        h, c = new_h, new_c
                outputs.append(torch.stack(sequence))
                final_hidden.append(h)
                if c is not None:
                    final_cell.append(c)
            layer_input = torch.cat(outputs, dim=2) if len(outputs) > 1 else outputs[0]
            if is_train and self.p > 0 and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.p, training=True)
        results = [layer_input, torch.stack(final_hidden)]
        if self.mode == "lstm":
            results.append(torch.stack(final_cell))
        return results
