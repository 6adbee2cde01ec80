"""Variable-length sequence operators: SequenceMask, SequenceLast, SequenceReverse.

``data`` is ``(max_length, batch, ...)`` with ``axis=0`` (the default) or
``(batch, max_length, ...)`` with ``axis=1``.  With ``use_sequence_length`` a second
input ``sequence_length`` ``(batch,)`` (floats holding integers, as in MXNet; a
fractional value is truncated) gives each sequence's length; otherwise every
sequence has the full length.  ``sequence_length`` gets a zero gradient.
"""
from __future__ import annotations

import torch

from .registry import Attr, Operator, register, Int, Float, Bool, merge_shape
from .helpers import shape_text

__all__ = []


class _Sequence(Operator):
    use_sequence_length = Attr(Bool, default=False)
    axis = Attr(Int, default=0)

    def validate(self):
        if self.axis not in (0, 1):
            raise self.error(f"argument 'axis' must be 0 (time-major) or 1 (batch-major), got {self.axis}")

    def arguments(self):
        return ["data", "sequence_length"] if self.use_sequence_length else ["data"]

    def infer_type(self, in_types):
        dtype = in_types[0]
        types = [dtype] + [t if t is not None else dtype for t in in_types[1:]]
        return types, [dtype], []

    def _batch_axis(self):
        return 1 - self.axis

    def _check(self, data, length):
        where = f"Operator {self.name}"
        if data is not None and len(data) < 2:
            raise self.error(f"argument 'data' must have at least 2 axes (time and batch), got {tuple(data)}")
        if self.use_sequence_length and data is not None:
            expected = (data[self._batch_axis()],)
            if length is not None and (len(length) != 1 or (length[0] and expected[0] and
                                                             length[0] != expected[0])):
                raise self.error(f"argument 'sequence_length' must have shape {expected} (the batch size of "
                                 f"'data' {tuple(data)}), got {shape_text(length)}")
            length = merge_shape(length, expected, where)
        return length

    def _input_shapes(self, data, in_shapes):
        """``[data]``, plus the checked ``sequence_length`` shape with ``use_sequence_length``."""
        if self.use_sequence_length:
            return [data, self._check(data, in_shapes[1])]
        self._check(data, None)
        return [data]

    def infer_shape(self, in_shapes, out_shapes):
        """Output of data's shape (SequenceMask, SequenceReverse)."""
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name} argument 'data'")
        return self._input_shapes(data, in_shapes), [data], []

    def _lengths(self, inputs):
        """Per-sequence lengths as int64 ``(batch,)`` clamped to ``[0, max_length]``."""
        data = inputs[0]
        steps = data.shape[self.axis]
        batch = data.shape[self._batch_axis()]
        if not self.use_sequence_length:
            return torch.full((batch,), steps, dtype=torch.int64, device=data.device)
        return inputs[1].detach().reshape(-1).to(torch.int64).clamp(0, steps)

    def _time_positions(self, data):
        """``(T, N)`` (axis 0) or ``(N, T)`` (axis 1) time index, broadcastable over ``data``."""
        steps = data.shape[self.axis]
        positions = torch.arange(steps, device=data.device)
        shape = [1] * data.dim()
        shape[self.axis] = steps
        return positions.reshape(shape)

    def _length_view(self, lengths, data):
        shape = [1] * data.dim()
        shape[self._batch_axis()] = lengths.shape[0]
        return lengths.reshape(shape)


@register("SequenceMask")
class SequenceMask(_Sequence):
    """``data`` with the steps at and after each sequence's length replaced by ``value``
    (default 0); those positions get zero gradient."""

    value = Attr(Float, default=0.0)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if not self.use_sequence_length:
            return [data * 1 if data.requires_grad else data.clone()]
        lengths = self._lengths(inputs)
        keep = self._time_positions(data) < self._length_view(lengths, data)
        fill = torch.full((), self.value, dtype=data.dtype, device=data.device)
        return [torch.where(keep, data, fill)]


@register("SequenceLast")
class SequenceLast(_Sequence):
    """The last valid step of each sequence: output ``data`` without the time axis (step
    ``length - 1``; a length of 0 reads step 0)."""

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        shapes = self._input_shapes(data, in_shapes)
        if data is not None:
            out = merge_shape(out, tuple(d for i, d in enumerate(data) if i != self.axis),
                              f"Operator {self.name} output")
        return shapes, [out], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        lengths = self._lengths(inputs)
        last = (lengths - 1).clamp(min=0)
        index_shape = list(data.shape)
        index_shape[self.axis] = 1
        index = self._length_view(last, data).expand(index_shape)
        return [data.gather(self.axis, index).squeeze(self.axis)]


@register("SequenceReverse")
class SequenceReverse(_Sequence):
    """Each sequence's first ``length`` steps in reverse order; steps after the length stay
    in place."""

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        lengths = self._length_view(self._lengths(inputs), data)
        positions = self._time_positions(data)
        source = torch.where(positions < lengths, lengths - 1 - positions, positions)
        return [data.gather(self.axis, source.expand(data.shape))]
