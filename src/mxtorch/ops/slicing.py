"""Slicing and splitting: slice, slice_axis, slice_like, SliceChannel (split) and split_v2."""
from __future__ import annotations

import torch

from ..base import MXNetError
from .registry import Attr, Bool, Float, Int, known, merge_shape, Operator, optional, OptionalShape, register, Shape
from .helpers import _Unary, normalize_axis

__all__ = []


@register("SliceChannel", "split", fluent="split")
class SliceChannel(Operator):
    """Split ``data`` into ``num_outputs`` equal parts along ``axis`` (default 1); outputs
    ``output0``, ``output1``, ...  With ``squeeze_axis`` the split axis (which must then
    have size ``num_outputs``) is removed.  MXNetError if the axis size is not divisible.
    """

    num_outputs = Attr(Int, required=True)
    axis = Attr(Int, default=1)
    squeeze_axis = Attr(Bool, default=False)

    def validate(self):
        if self.output_count < 1:
            raise self.error(f"argument 'num_outputs' must be positive, got {self.output_count}")

    def outputs(self):
        return [f"output{i}" for i in range(self.output_count)]

    traceable = True

    def split_sections(self):
        return None if self.squeeze_axis else (self.output_count, self.axis)

    def _part(self, data):
        axis = normalize_axis(self, self.axis, len(data))
        size = data[axis]
        if size and size % self.output_count:
            raise self.error(f"cannot split axis {axis} of 'data' {tuple(data)} into num_outputs="
                             f"{self.output_count} equal parts")
        if self.squeeze_axis and size and size != self.output_count:
            raise self.error(f"squeeze_axis=True needs axis {axis} of 'data' {tuple(data)} to have size "
                             f"num_outputs={self.output_count}")
        part = size // self.output_count
        if self.squeeze_axis:
            return tuple(data[:axis]) + tuple(data[axis + 1:])
        return tuple(data[:axis]) + (part,) + tuple(data[axis + 1:])

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        outs = list(out_shapes)
        first = None
        for index, out in enumerate(outs):
            first = merge_shape(first, out, f"Operator {self.name} output {index}")
        if first:
            # the input follows from the (merged) outputs, also where it is partly known
            axis = self.axis % (len(first) + (1 if self.squeeze_axis else 0))
            if self.squeeze_axis:
                from_outputs = tuple(first[:axis]) + (self.output_count,) + tuple(first[axis:])
            else:
                from_outputs = tuple(first[:axis]) + (first[axis] * self.output_count,) + tuple(first[axis + 1:])
            data = merge_shape(data, from_outputs, f"Operator {self.name} argument 'data'")
        if data is not None:
            part = self._part(data)
            outs = [merge_shape(o, part, f"Operator {self.name} output {i}") for i, o in enumerate(outs)]
        return [data], outs, []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        self._part(tuple(data.shape))
        axis = normalize_axis(self, self.axis, data.dim())
        parts = torch.chunk(data, self.output_count, dim=axis)
        if self.squeeze_axis:
            parts = [p.squeeze(axis) for p in parts]
        return list(parts)


def _slice_indices(op, size, begin, end, step):
    """Python-style (start, stop, step) for one axis with MXNet's None defaults."""
    step = 1 if step is None else step
    if step == 0:
        raise op.error("argument 'step' must not be 0")
    return slice(begin, end, step).indices(size)


class _SliceRegion:
    """The region ``begin`` / ``end`` / ``step`` of :class:`Slice` (shared with the slice assignments)."""

    begin = Attr(OptionalShape, required=True)
    end = Attr(OptionalShape, required=True)
    step = Attr(OptionalShape, default=())

    def _ranges(self, data):
        if len(self.begin) != len(self.end):
            raise self.error(f"arguments 'begin' {tuple(self.begin)} and 'end' {tuple(self.end)} "
                             f"must have the same length")
        steps = self.step if self.step and any(s is not None for s in self.step) else ()
        if steps and len(steps) != len(self.begin):
            raise self.error(f"argument 'step' {tuple(self.step)} must have the length of 'begin' "
                             f"{tuple(self.begin)}")
        if len(self.begin) > len(data):
            raise self.error(f"argument 'begin' {tuple(self.begin)} has more axes than 'data' {tuple(data)}")
        ranges = []
        for axis, (b, e) in enumerate(zip(self.begin, self.end)):
            s = steps[axis] if steps else None
            ranges.append(_slice_indices(self, data[axis], b, e, s))
        return ranges

    def output_shape(self, data):
        if data is None or not data:
            return None
        # an axis of unknown size (0) stays unknown, the others are sliced (MXNet's partial rule)
        stand_in = tuple(d if d else 1 for d in data)
        shape = list(data)
        for axis, (b, e, s) in enumerate(self._ranges(stand_in)):
            shape[axis] = len(range(b, e, s)) if data[axis] else 0
        return tuple(shape)


@register("slice", "crop", fluent=True)
class Slice(_SliceRegion, _Unary):
    """``data[begin[0]:end[0]:step[0], begin[1]:...]``: ``None`` entries take the defaults
    (the whole axis, in the direction of ``step``); negative values count from the end;
    axes beyond ``len(begin)`` are kept whole.  A negative ``step`` walks backwards.  A csr
    input sliced without steps gives a csr array; other sparse inputs a dense one.
    """

    lists_input_names = False

    def sparse_storage(self, stypes):
        stepless = all(s in (None, 1) for s in (self.step or ()))
        return ["csr" if stypes[0] == "csr" and stepless else "default"]

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        for axis, (b, e, s) in enumerate(self._ranges(tuple(data.shape))):
            data = _take_range(data, axis, b, e, s)
        return [data]


def _take_range(data, axis, begin, end, step):
    if step > 0:
        index = [slice(None)] * axis + [slice(begin, end, step)]
        return data[tuple(index)]
    if len(range(begin, end, step)) == 0:
        return data.narrow(axis, 0, 0)
    positions = torch.arange(begin, end, step, device=data.device)
    return data.index_select(axis, positions)


@register("slice_axis", fluent=True)
class SliceAxis(_Unary):
    """``data`` sliced along one ``axis`` from ``begin`` to ``end`` (None: the end);
    negative values count from the end.  As in MXNet, the range must lie inside the axis
    and hold at least one element (MXNetError otherwise); an axis of size 0 gives an empty
    slice."""

    lists_input_names = False

    traceable = True

    axis = Attr(Int, required=True)
    begin = Attr(Int, required=True)
    end = Attr(optional(Int), default=None)

    def _range(self, data):
        axis = normalize_axis(self, self.axis, len(data))
        size = data[axis]
        b = self.begin + size if self.begin < 0 else self.begin
        e = size if self.end is None else (self.end + size if self.end < 0 else self.end)
        where = f"axis {axis} of 'data' {tuple(data)} (size {size})"
        if e > size:
            raise self.error(f"invalid end={self.end} for {where}")
        if b < 0:
            raise self.error(f"invalid begin={self.begin} for {where}")
        if b >= e:
            raise self.error(f"begin={self.begin}, end={self.end} select no element of {where}; begin must "
                             f"come before end")
        return axis, b, e

    def output_shape(self, data):
        axis = normalize_axis(self, self.axis, len(data))
        if not data[axis]:
            return tuple(data)
        axis, b, e = self._range(data)
        return tuple(data[:axis]) + (e - b,) + tuple(data[axis + 1:])

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        axis, b, e = self._range(tuple(data.shape))
        return [data.narrow(axis, b, e - b)]


@register("slice_like", fluent=True)
class SliceLike(Operator):
    """``data`` sliced from the start to the shape of ``shape_like`` on ``axes`` (default: all
    axes of ``shape_like``, which must not be larger).  ``shape_like`` gets no gradient."""

    axes = Attr(Shape, default=())

    def arguments(self):
        return ["data", "shape_like"]

    def _target(self, data, like):
        if self.axes:
            axes = [normalize_axis(self, a, len(data), "axes") for a in self.axes]
        else:
            if len(like) > len(data):
                raise self.error(f"argument 'shape_like' {tuple(like)} has more axes than 'data' {tuple(data)}")
            axes = range(len(like))
        shape = list(data)
        for axis in axes:
            if axis >= len(like):
                raise self.error(f"axis {axis} is out of range for argument 'shape_like' {tuple(like)}")
            if data[axis] and like[axis] > data[axis]:
                raise self.error(f"argument 'shape_like' {tuple(like)} is larger than 'data' {tuple(data)} "
                                 f"on axis {axis}")
            shape[axis] = like[axis]
        return tuple(shape)

    def infer_shape(self, in_shapes, out_shapes):
        data, like = in_shapes
        out = out_shapes[0]
        if data is not None and like is not None:
            out = merge_shape(out, self._target(data, like), f"Operator {self.name} output")
        return [data, like], [out], []

    def infer_type(self, in_types):
        return [in_types[0], in_types[1] if in_types[1] is not None else in_types[0]], [in_types[0]], []

    def forward(self, is_train, inputs, aux):
        data, like = inputs
        target = self._target(tuple(data.shape), tuple(like.shape))
        return [data[tuple(slice(0, size) for size in target)]]


@register("_split_v2")
class SplitV2(Operator):
    """Split ``data`` along ``axis`` at ``indices`` (a list starting with 0, as the JSON
    stores it) or into ``sections`` equal parts; ``squeeze_axis`` drops a size-1 axis."""

    indices = Attr(Shape, required=True)
    axis = Attr(Int, default=1)
    squeeze_axis = Attr(Bool, default=False)
    sections = Attr(Int, default=0)

    def outputs(self):
        count = self.sections if self.sections > 0 else len(self.indices)
        return [f"output{i}" for i in range(count)]

    def _bounds(self, size):
        if self.sections > 0:
            if size % self.sections:
                raise self.error(f"axis size {size} cannot be split into sections={self.sections} equal parts")
            part = size // self.sections
            starts = [i * part for i in range(self.sections)]
        else:
            starts = list(self.indices)
        ends = starts[1:] + [size]
        for begin, end in zip(starts, ends):
            if not 0 <= begin <= end <= size:
                raise self.error(f"argument 'indices' {tuple(self.indices)} does not fit an axis of size {size}")
        return list(zip(starts, ends))

    def _parts(self, data):
        axis = normalize_axis(self, self.axis, len(data))
        shapes = []
        for begin, end in self._bounds(data[axis]):
            if self.squeeze_axis:
                if end - begin != 1:
                    raise self.error(f"squeeze_axis=True needs parts of size 1, got {end - begin}")
                shapes.append(tuple(data[:axis]) + tuple(data[axis + 1:]))
            else:
                shapes.append(tuple(data[:axis]) + (end - begin,) + tuple(data[axis + 1:]))
        return shapes

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        outs = list(out_shapes)
        if known(data):
            outs = [merge_shape(o, p, f"Operator {self.name} output {i}")
                    for i, (o, p) in enumerate(zip(outs, self._parts(data)))]
        return [data], outs, []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        axis = normalize_axis(self, self.axis, data.dim())
        results = []
        for begin, end in self._bounds(data.shape[axis]):
            part = data.narrow(axis, begin, end - begin)
            results.append(part.squeeze(axis) if self.squeeze_axis else part)
        return results


class _SliceAssignBase(_SliceRegion, Operator):
    """The region of ``lhs`` selected as :class:`Slice` selects it (``begin`` / ``end`` / ``step``)."""

    def _region(self, shape, device):
        """Broadcastable index tensors (numpy's ``ix_``) of the selected region of ``shape``."""
        ranges = self._ranges(tuple(shape))
        ranges += [(0, size, 1) for size in shape[len(ranges):]]
        ndim = len(shape)
        return tuple(torch.arange(b, e, s, device=device).reshape((-1,) + (1,) * (ndim - axis - 1))
                     for axis, (b, e, s) in enumerate(ranges))

    def _region_shape(self, shape):
        return self.output_shape(shape)


@register("_slice_assign", "_crop_assign")
class SliceAssign(_SliceAssignBase):
    """A copy of ``lhs`` whose region ``lhs[begin:end:step]`` is replaced by ``rhs`` (of the
    region's shape); MXNet's ``_slice_assign`` (alias ``_crop_assign``), what ``x[a:b] = y``
    runs.  Gradients: ``lhs`` the head gradient with the region zeroed, ``rhs`` the head
    gradient's region."""

    def arguments(self):
        return ["lhs", "rhs"]

    def infer_shape(self, in_shapes, out_shapes):
        lhs, rhs = in_shapes
        lhs = merge_shape(lhs, out_shapes[0], f"Operator {self.name} output")
        if known(lhs):
            region = self._region_shape(lhs)
            try:
                rhs = merge_shape(rhs, region, "")
            except MXNetError:
                raise self.error(f"rhs {tuple(rhs)} must have the shape {region} of the region "
                                 f"begin={tuple(self.begin)} end={tuple(self.end)} of lhs {tuple(lhs)}") from None
        return [lhs, rhs], [lhs], []

    def forward(self, is_train, inputs, aux):
        lhs, rhs = inputs
        out = lhs.clone()
        out[self._region(lhs.shape, lhs.device)] = rhs.to(lhs.dtype)
        return [out]


@register("_slice_assign_scalar", "_crop_assign_scalar")
class SliceAssignScalar(_SliceAssignBase):
    """A copy of ``data`` whose region ``data[begin:end:step]`` holds ``scalar`` (default 0);
    MXNet's ``_slice_assign_scalar`` (alias ``_crop_assign_scalar``).  The gradient is the head
    gradient with the region zeroed."""

    scalar = Attr(Float, default=0.0)

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name} output")
        return [data], [data], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        out = data.clone()
        out[self._region(data.shape, data.device)] = self.scalar
        return [out]
