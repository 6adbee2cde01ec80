"""Shape manipulation: Flatten, Reshape(_like), transpose / swapaxis / expand_dims / squeeze,
Concat and stack, tile / repeat / reverse, the broadcast_to family, depth_to_space /
space_to_depth, shape_array and size_array."""
from __future__ import annotations

import numpy as np
import torch

from ..base import MXNetError
from .registry import Attr, Bool, Int, known, merge_shape, Operator, optional, product, register, Shape
from .shape_codes import infer_reshape
from .helpers import _Unary, infer_output_from_pair, normalize_axis, shape_text

__all__ = []


@register("Flatten", "flatten", fluent="flatten")
class Flatten(Operator):
    """``(batch, d1, d2, ...)`` -> ``(batch, d1 * d2 * ...)``."""

    lists_input_names = False

    traceable = True
    quantized_name = "_contrib_quantized_flatten"

    def plot_label(self, op_name, node_name):
        return node_name, "reshaping"

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        if data is not None:
            if len(data) == 0:
                raise self.error("data must have at least one dimension")
            rest = product(data[1:]) if all(data[1:]) else 0
            out = merge_shape(out, (data[0], rest), f"Operator {self.name} output")
        return [data], [out], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        return [data.reshape(data.shape[0], -1) if data.dim() else data.reshape(1, 1)]


@register("Reshape", "reshape", fluent="reshape")
class Reshape(Operator):
    """Reshape with MXNet's codes (0 copy, -1 infer, -2 rest, -3 merge, -4 split),
    matched from the right when ``reverse``.  ``target_shape`` (deprecated) is honoured
    too.  Unlike MXNet's shape inference, a target whose element count differs from the
    input raises MXNetError.
    """

    lists_input_names = False

    traceable = True

    def plot_label(self, op_name, node_name):
        return node_name, "reshaping"

    shape = Attr(Shape, default=())
    reverse = Attr(Bool, default=False)
    target_shape = Attr(Shape, default=())
    keep_highest = Attr(Bool, default=False)

    def _target(self, data, partial=False):
        """The output shape for input shape ``data``; with ``partial`` a 0 in ``data`` is
        unknown and so is every output dimension that depends on it."""
        where = f"Operator {self.name}"
        if self.shape:
            return infer_reshape(data, self.shape, self.reverse, op_name=where, partial=partial)
        if self.target_shape:
            codes = list(self.target_shape)
            if self.keep_highest:
                codes = [data[0]] + codes
            if 0 in codes:
                if partial and not known(data):
                    return tuple(codes)
                total = product(data)
                rest = product(c for c in codes if c)
                codes = [c if c else total // rest for c in codes]
            return infer_reshape(data, codes, False, op_name=where, partial=partial)
        raise self.error("attribute 'shape' is empty")

    def infer_shape(self, in_shapes, out_shapes):
        """Both ways, as MXNet 1.9.1's ``ReshapeShape``: the output from the input's known
        dimensions, then one unknown input dimension from a fully known output's size."""
        data = in_shapes[0]
        out = out_shapes[0]
        if data is not None and len(data):
            out = merge_shape(out, self._target(data, partial=True), f"Operator {self.name} output")
        if data is not None and known(out) and not known(data):
            data = _fill_one_unknown(data, product(out))
        return [data], [out], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        return [data.reshape(self._target(tuple(data.shape)))]


def _fill_one_unknown(shape, size):
    """``shape`` with its single unknown (0) dimension set so that it holds ``size`` elements;
    unchanged when more than one dimension is unknown (MXNet's ``ReverseReshapeInferShape``)."""
    missing = [i for i, d in enumerate(shape) if not d]
    if len(missing) != 1:
        return shape
    rest = product(d for d in shape if d)
    filled = list(shape)
    filled[missing[0]] = size // rest
    return tuple(filled)


@register("Concat", "concat")
class Concat(Operator):
    """Join ``num_args`` arrays along ``dim`` (default 1); the other axes must agree.  csr
    arrays joined along ``dim=0`` give a csr array; other sparse inputs a dense one."""

    quantized_name = "_contrib_quantized_concat"

    def sparse_storage(self, stypes):
        return ["csr" if self.dim == 0 and all(s == "csr" for s in stypes) else "default"]

    traceable = True

    def plot_label(self, op_name, node_name):
        return node_name, "reshaping"

    variadic = True
    num_args = Attr(Int, required=True)
    dim = Attr(Int, default=1)

    def infer_shape(self, in_shapes, out_shapes):
        where = f"Operator {self.name}"
        reference = next((s for s in list(in_shapes) + list(out_shapes) if s is not None), None)
        if reference is None:
            return list(in_shapes), list(out_shapes), []
        ndim = len(reference)
        axis = self.dim % ndim
        common = [0] * ndim
        for index, shape in enumerate(list(in_shapes) + list(out_shapes)):
            if shape is None:
                continue
            if len(shape) != ndim:
                raise MXNetError(f"{where}: input {index} has {len(shape)} dimensions, expected {ndim} "
                                 f"(shapes {[tuple(s) if s is not None else None for s in in_shapes]})")
            for d in range(ndim):
                if d == axis:
                    continue
                if shape[d] and common[d] and shape[d] != common[d]:
                    raise MXNetError(f"{where}: dimension {d} differs between inputs: "
                                     f"{[tuple(s) if s is not None else None for s in in_shapes]}")
                common[d] = common[d] or shape[d]
        result = []
        for shape in in_shapes:
            if shape is None:
                result.append(tuple(common))
            else:
                result.append(tuple(shape[d] if d == axis else common[d] for d in range(ndim)))
        sizes = [s[axis] for s in result]
        out = out_shapes[0]
        if all(sizes):
            total = tuple(common[d] if d != axis else sum(sizes) for d in range(ndim))
            out = merge_shape(out, total, f"{where} output")
        elif out is not None and out[axis] and sizes.count(0) == 1:
            missing = sizes.index(0)
            fill = out[axis] - sum(sizes)
            result[missing] = tuple(fill if d == axis else common[d] for d in range(ndim))
        return result, [out if out is None else tuple(out)], []

    def forward(self, is_train, inputs, aux):
        return [torch.cat(list(inputs), dim=self.dim)]


class _ShapedLike(Operator):
    """``lhs`` given a shape taken from ``rhs``: the output shape is ``target(lhs, rhs)``, the
    dtype is ``lhs``'s."""

    def arguments(self):
        return ["lhs", "rhs"]

    def target(self, lhs, rhs):
        raise NotImplementedError

    def infer_shape(self, in_shapes, out_shapes):
        return infer_output_from_pair(self, in_shapes, out_shapes, self.target)

    def infer_type(self, in_types):
        return [in_types[0], in_types[1] if in_types[1] is not None else in_types[0]], [in_types[0]], []


@register("reshape_like", fluent=True)
class ReshapeLike(_ShapedLike):
    """Reshape ``lhs`` to the shape of ``rhs`` (same element count).

    With ``lhs_begin``/``lhs_end``/``rhs_begin``/``rhs_end`` only the axes
    ``lhs[lhs_begin:lhs_end]`` are replaced by ``rhs.shape[rhs_begin:rhs_end]``
    (None means the start or the end, negative values count from the end).
    ``rhs`` receives no gradient.  MXNetError when the element counts differ.
    """

    lhs_begin = Attr(optional(Int), default=None)
    lhs_end = Attr(optional(Int), default=None)
    rhs_begin = Attr(optional(Int), default=None)
    rhs_end = Attr(optional(Int), default=None)


    @staticmethod
    def _range(begin, end, ndim):
        begin = 0 if begin is None else (begin + ndim if begin < 0 else begin)
        end = ndim if end is None else (end + ndim if end < 0 else end)
        return begin, end

    def target(self, lhs, rhs):
        lb, le = self._range(self.lhs_begin, self.lhs_end, len(lhs))
        rb, re_ = self._range(self.rhs_begin, self.rhs_end, len(rhs))
        if not (0 <= lb <= le <= len(lhs)) or not (0 <= rb <= re_ <= len(rhs)):
            raise self.error(f"axis range lhs[{self.lhs_begin}:{self.lhs_end}] / rhs[{self.rhs_begin}:"
                             f"{self.rhs_end}] is invalid for lhs {tuple(lhs)} and rhs {tuple(rhs)}")
        shape = tuple(lhs[:lb]) + tuple(rhs[rb:re_]) + tuple(lhs[le:])
        if known(lhs) and known(shape) and product(shape) != product(lhs):
            raise self.error(f"cannot reshape argument 'lhs' of shape {tuple(lhs)} to {shape} "
                             f"(from argument 'rhs' of shape {tuple(rhs)}): the element counts differ")
        return shape


    def forward(self, is_train, inputs, aux):
        lhs, rhs = inputs
        return [lhs.reshape(self.target(tuple(lhs.shape), tuple(rhs.shape)))]


@register("transpose", fluent=True)
class Transpose(Operator):
    """Permute the axes of ``data``: output axis i is input axis ``axes[i]``; empty ``axes``
    (the default) reverses them."""

    lists_input_names = False

    traceable = True

    axes = Attr(Shape, default=())

    def _axes(self, ndim):
        if not self.axes:
            return tuple(reversed(range(ndim)))
        if len(self.axes) != ndim:
            raise self.error(f"argument 'axes' {tuple(self.axes)} must list all {ndim} axes of the input")
        axes = tuple(normalize_axis(self, a, ndim, "axes") for a in self.axes)
        if sorted(axes) != list(range(ndim)):
            raise self.error(f"argument 'axes' {tuple(self.axes)} is not a permutation of {ndim} axes")
        return axes

    def infer_shape(self, in_shapes, out_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            axes = self._axes(len(data))
            out = merge_shape(out, tuple(data[a] for a in axes), f"Operator {self.name} output")
        if out is not None:
            axes = self._axes(len(out))
            inverse = [0] * len(axes)
            for position, axis in enumerate(axes):
                inverse[axis] = out[position]
            data = merge_shape(data, tuple(inverse), f"Operator {self.name} argument 'data'")
        return [data], [out], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        return [data.permute(*self._axes(data.dim()))]


@register("SwapAxis", "swapaxes", fluent="swapaxes")
class SwapAxis(_Unary):
    """Exchange axes ``dim1`` and ``dim2`` of ``data``."""

    traceable = True

    dim1 = Attr(Int, default=0)
    dim2 = Attr(Int, default=0)

    def output_shape(self, data):
        a = normalize_axis(self, self.dim1, len(data), "dim1")
        b = normalize_axis(self, self.dim2, len(data), "dim2")
        shape = list(data)
        shape[a], shape[b] = shape[b], shape[a]
        return tuple(shape)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        self.output_shape(tuple(data.shape))
        return [data.transpose(self.dim1, self.dim2)]


@register("expand_dims", fluent=True)
class ExpandDims(_Unary):
    """Insert a size-1 axis at position ``axis`` (in ``[-ndim-1, ndim]``)."""

    lists_input_names = False

    traceable = True

    axis = Attr(Int, required=True)

    def output_shape(self, data):
        axis = normalize_axis(self, self.axis, len(data), extra=1)
        return tuple(data[:axis]) + (1,) + tuple(data[axis:])

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        return [data.reshape(self.output_shape(tuple(data.shape)))]


@register("squeeze", fluent=True)
class Squeeze(_Unary):
    """Remove size-1 axes: all of them (``axis=None``) or those listed in ``axis`` (each must
    have size 1).  A result with no axes left has shape ``(1,)``, as in MXNet."""

    traceable = True

    axis = Attr(optional(Shape), default=None)

    def output_shape(self, data):
        if self.axis is None:
            keep = [d for d in data if d != 1]
        else:
            axes = {normalize_axis(self, a, len(data)) for a in self.axis}
            for a in axes:
                if data[a] not in (0, 1):
                    raise self.error(f"argument 'axis': axis {a} of 'data' {tuple(data)} has size {data[a]}, "
                                     f"only size-1 axes can be squeezed")
            keep = [d for i, d in enumerate(data) if i not in axes]
        return tuple(keep) if keep else (1,)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        return [data.reshape(self.output_shape(tuple(data.shape)))]


@register("stack")
class Stack(Operator):
    """Join ``num_args`` arrays of one shape along a new axis ``axis`` (in ``[-ndim-1, ndim]``).

    Unlike MXNet 1.9.1's shape inference, inputs of different shapes raise MXNetError
    (MXNet silently took the first input's shape).
    """

    variadic = True
    num_args = Attr(Int, required=True)
    axis = Attr(Int, default=0)

    def infer_shape(self, in_shapes, out_shapes):
        common = None
        for index, shape in enumerate(in_shapes):
            try:
                common = merge_shape(common, shape, "")
            except MXNetError:
                raise self.error(f"all inputs must have the same shape; input {index} (arg{index}) has "
                                 f"{tuple(shape)}, the others {tuple(common)} (shapes "
                                 f"{[shape_text(s) for s in in_shapes]})") from None
        out = out_shapes[0]
        if out is not None:
            axis = normalize_axis(self, self.axis, len(out) - 1, extra=1)
            if out[axis] and out[axis] != self.num_args:
                raise self.error(f"output axis {axis} must have size num_args={self.num_args}, got {tuple(out)}")
            common = merge_shape(common, tuple(out[:axis]) + tuple(out[axis + 1:]), f"Operator {self.name}")
        if common is not None:
            axis = normalize_axis(self, self.axis, len(common), extra=1)
            out = merge_shape(out, tuple(common[:axis]) + (self.num_args,) + tuple(common[axis:]),
                              f"Operator {self.name} output")
        return [common] * len(in_shapes), [out], []

    def forward(self, is_train, inputs, aux):
        axis = normalize_axis(self, self.axis, inputs[0].dim(), extra=1)
        return [torch.stack(list(inputs), dim=axis)]


@register("tile", fluent=True)
class Tile(_Unary):
    """Repeat ``data`` ``reps`` times per axis (numpy.tile: the shorter of ``reps`` and the
    shape is padded with leading ones)."""

    reps = Attr(Shape, required=True)

    def validate(self):
        if any(r < 1 for r in self.reps):
            raise self.error(f"argument 'reps' must have positive entries, got {tuple(self.reps)}")

    def _aligned(self, data):
        ndim = max(len(data), len(self.reps))
        shape = (1,) * (ndim - len(data)) + tuple(data)
        reps = (1,) * (ndim - len(self.reps)) + tuple(self.reps)
        return shape, reps

    def output_shape(self, data):
        shape, reps = self._aligned(data)
        return tuple(d * r for d, r in zip(shape, reps))

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        shape, reps = self._aligned(tuple(data.shape))
        if not reps:
            return [data]
        return [data.reshape(shape).repeat(*reps)]

    def declares_backward(self, inputs):
        return bool(self._aligned(tuple(inputs[0].shape))[1])

    def backward(self, out_grads, inputs, outputs, aux):
        """The copies' head gradients added with Kahan summation (MXNet's sum is that exact)."""
        shape, reps = self._aligned(tuple(inputs[0].shape))
        interleaved = []
        for r, d in zip(reps, shape):
            interleaved += [r, d]
        ndim = len(shape)
        order = [2 * i for i in range(ndim)] + [2 * i + 1 for i in range(ndim)]
        copies = out_grads[0].reshape(interleaved).permute(*order).reshape((product(reps),) + tuple(shape))
        return [kahan_sum(copies).reshape(inputs[0].shape)]


def kahan_sum(values):
    """Sum over axis 0 with compensated (Kahan) summation, in order: the accumulation MXNet's
    CPU reductions use, so that copy-like gradients (tile) match it bit for bit.  Falls back
    to a float64 sum for very long axes."""
    if values.shape[0] > 4096 or not values.is_floating_point():
        return values.sum(0, dtype=torch.float64 if values.is_floating_point() else None).to(values.dtype)
    total = torch.zeros_like(values[0])
    compensation = torch.zeros_like(total)
    for value in values:
        corrected = value - compensation
        running = total + corrected
        compensation = (running - total) - corrected
        total = running
    return total


@register("repeat", fluent=True)
class Repeat(_Unary):
    """Repeat each element ``repeats`` times along ``axis``; ``axis=None`` flattens first."""

    repeats = Attr(Int, required=True)
    axis = Attr(optional(Int), default=None)

    def validate(self):
        if self.repeats < 0:
            raise self.error(f"argument 'repeats' must be non-negative, got {self.repeats}")

    def output_shape(self, data):
        if self.axis is None:
            return (product(data) * self.repeats,) if known(data) else (0,)
        axis = normalize_axis(self, self.axis, len(data))
        return tuple(data[:axis]) + (data[axis] * self.repeats,) + tuple(data[axis + 1:])

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if self.axis is None:
            return [data.reshape(-1).repeat_interleave(self.repeats)]
        axis = normalize_axis(self, self.axis, data.dim())
        return [data.repeat_interleave(self.repeats, dim=axis)]


@register("reverse", "flip", fluent="flip")
class Reverse(_Unary):
    """Reverse the order of the elements of ``data`` along each axis in ``axis``."""

    axis = Attr(Shape, required=True)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        axes = [normalize_axis(self, a, data.dim()) for a in self.axis]
        return [torch.flip(data, axes)]


@register("shape_array", fluent=True)
class ShapeArray(_Unary):
    """The shape of ``data`` as a 1-D int64 array."""

    lists_input_names = False

    def output_shape(self, data):
        return (len(data),)

    def infer_type(self, in_types):
        return [in_types[0]], [np.dtype(np.int64)], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        return [torch.tensor(list(data.shape), dtype=torch.int64, device=data.device)]


@register("size_array", fluent=True)
class SizeArray(_Unary):
    """The number of elements of ``data`` as an int64 array of shape ``(1,)``."""

    lists_input_names = False

    def output_shape(self, data):
        return (1,)

    def infer_type(self, in_types):
        return [in_types[0]], [np.dtype(np.int64)], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        return [torch.tensor([data.numel()], dtype=torch.int64, device=data.device)]


def _broadcast_check(op, data, target, argument="shape"):
    for axis, (have, want) in enumerate(zip(data, target)):
        if have and want and have != want and have != 1:
            raise op.error(f"cannot broadcast 'data' of shape {tuple(data)} to {argument} {tuple(target)}: "
                           f"axis {axis} has size {have}")


@register("broadcast_to", fluent=True)
class BroadcastTo(_Unary):
    """Broadcast size-1 axes of ``data`` to ``shape`` (same number of axes; 0 keeps the axis)."""

    lists_input_names = False

    shape = Attr(Shape, default=())

    def output_shape(self, data):
        if len(self.shape) != len(data):
            raise self.error(f"argument 'shape' {tuple(self.shape)} must have as many axes as 'data' {tuple(data)}")
        target = tuple(want if want else have for have, want in zip(data, self.shape))
        _broadcast_check(self, data, target)
        return target

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        return [data.expand(*self.output_shape(tuple(data.shape)))]


@register("broadcast_like", fluent=True)
class BroadcastLike(_ShapedLike):
    """Broadcast ``lhs`` to the shape of ``rhs``; with ``lhs_axes``/``rhs_axes`` only those
    axes of ``lhs`` take the sizes of the matching ``rhs`` axes.  ``rhs`` gets no gradient."""

    lhs_axes = Attr(optional(Shape), default=None)
    rhs_axes = Attr(optional(Shape), default=None)

    def validate(self):
        for name in ("lhs_axes", "rhs_axes"):
            if getattr(self, name) == ():
                raise self.error(f"argument {name!r} must not be an empty tuple (give None to broadcast every axis)")


    def target(self, lhs, rhs):
        if self.lhs_axes is None and self.rhs_axes is None:
            if len(lhs) != len(rhs):
                raise self.error(f"arguments 'lhs' {tuple(lhs)} and 'rhs' {tuple(rhs)} must have the same "
                                 f"number of axes")
            target = tuple(rhs)
        else:
            lhs_axes = self.lhs_axes or ()
            rhs_axes = self.rhs_axes or ()
            if len(lhs_axes) != len(rhs_axes):
                raise self.error(f"arguments 'lhs_axes' {tuple(lhs_axes)} and 'rhs_axes' {tuple(rhs_axes)} "
                                 f"must have the same length")
            target = list(lhs)
            for a, b in zip(lhs_axes, rhs_axes):
                target[normalize_axis(self, a, len(lhs), "lhs_axes")] = \
                    rhs[normalize_axis(self, b, len(rhs), "rhs_axes")]
            target = tuple(target)
        _broadcast_check(self, lhs, target, "the shape of 'rhs'")
        return target


    def forward(self, is_train, inputs, aux):
        lhs, rhs = inputs
        return [lhs.expand(*self.target(tuple(lhs.shape), tuple(rhs.shape)))]


@register("broadcast_axis", "broadcast_axes", fluent="broadcast_axes")
class BroadcastAxis(_Unary):
    """Broadcast the size-1 axes listed in ``axis`` of ``data`` to the sizes in ``size``."""

    lists_input_names = False

    axis = Attr(Shape, default=())
    size = Attr(Shape, default=())

    def output_shape(self, data):
        if len(self.axis) != len(self.size):
            raise self.error(f"arguments 'axis' {tuple(self.axis)} and 'size' {tuple(self.size)} must have "
                             f"the same length")
        target = list(data)
        for a, s in zip(self.axis, self.size):
            axis = normalize_axis(self, a, len(data))
            if data[axis] not in (0, 1) and data[axis] != s:
                raise self.error(f"axis {axis} of 'data' {tuple(data)} has size {data[axis]}; only size-1 "
                                 f"axes can be broadcast (to {s})")
            target[axis] = s
        return tuple(target)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        return [data.expand(*self.output_shape(tuple(data.shape)))]


class _BlockRearrange(_Unary):
    block_size = Attr(Int, required=True)

    def validate(self):
        if self.block_size < 1:
            raise self.error(f"argument 'block_size' must be positive, got {self.block_size}")

    def _check(self, data):
        if len(data) != 4:
            raise self.error(f"argument 'data' must be (batch, channel, height, width), got {tuple(data)}")

    def apply(self, is_train, inputs, aux):
        # in a shape, 0 is an unknown size; an array with a zero-size axis is refused, as MXNet 1.9.1
        if 0 in inputs[0].shape:
            raise self.error(f"argument 'data' {tuple(inputs[0].shape)} has a zero-size axis")
        return super().apply(is_train, inputs, aux)


@register("depth_to_space", fluent=True)
class DepthToSpace(_BlockRearrange):
    """``(N, C, H, W)`` -> ``(N, C / b^2, H * b, W * b)``, ``b = block_size``: the channel axis
    is read as ``(b, b, C / b^2)`` (depth-column-row order, as MXNet)."""

    def output_shape(self, data):
        self._check(data)
        b = self.block_size
        if data[1] and data[1] % (b * b):
            raise self.error(f"the channels of 'data' {tuple(data)} must be divisible by block_size^2={b * b}")
        return (data[0], data[1] // (b * b), data[2] * b, data[3] * b)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        n, c, h, w = data.shape
        b = self.block_size
        self.output_shape(tuple(data.shape))
        blocks = data.reshape(n, b, b, c // (b * b), h, w).permute(0, 3, 4, 1, 5, 2)
        return [blocks.reshape(n, c // (b * b), h * b, w * b)]


@register("space_to_depth", fluent=True)
class SpaceToDepth(_BlockRearrange):
    """The inverse of depth_to_space: ``(N, C, H, W)`` -> ``(N, C * b^2, H / b, W / b)``."""

    def output_shape(self, data):
        self._check(data)
        b = self.block_size
        if (data[2] and data[2] % b) or (data[3] and data[3] % b):
            raise self.error(f"the height and width of 'data' {tuple(data)} must be divisible by block_size={b}")
        return (data[0], data[1] * b * b, data[2] // b, data[3] // b)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        n, c, h, w = data.shape
        b = self.block_size
        self.output_shape(tuple(data.shape))
        blocks = data.reshape(n, c, h // b, b, w // b, b).permute(0, 3, 5, 1, 2, 4)
        return [blocks.reshape(n, c * b * b, h // b, w // b)]
