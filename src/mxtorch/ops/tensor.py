"""Tensor manipulation: Flatten, Reshape, Concat, BlockGrad, identity, constant creators."""
from __future__ import annotations

import numpy as np
import torch

from .. import base as base_dtypes
from ..base import MXNetError
from .registry import (Attr, Operator, register, Int, Float, Bool, Shape, OptionalShape, Dtype, optional, known,
                       merge_shape, product, Choice)
from .shape_codes import infer_reshape

__all__ = []


@register("Flatten", "flatten", fluent="flatten")
class Flatten(Operator):
    """``(batch, d1, d2, ...)`` -> ``(batch, d1 * d2 * ...)``."""

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

    def plot_label(self, op_name, node_name):
        return node_name, "reshaping"

    shape = Attr(Shape, default=())
    reverse = Attr(Bool, default=False)
    target_shape = Attr(Shape, default=())
    keep_highest = Attr(Bool, default=False)

    def _target(self, data):
        if self.shape:
            return infer_reshape(data, self.shape, self.reverse, op_name=f"Operator {self.name}")
        if self.target_shape:
            codes = list(self.target_shape)
            if self.keep_highest:
                codes = [data[0]] + codes
            if 0 in codes:
                total = product(data)
                rest = product(c for c in codes if c)
                codes = [c if c else total // rest for c in codes]
            return infer_reshape(data, codes, False, op_name=f"Operator {self.name}")
        raise self.error("attribute 'shape' is empty")

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        if known(data):
            out = merge_shape(out, self._target(data), f"Operator {self.name} output")
        return [data], [out], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        return [data.reshape(self._target(tuple(data.shape)))]


@register("Concat", "concat")
class Concat(Operator):
    """Join ``num_args`` arrays along ``dim`` (default 1); the other axes must agree."""

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


@register("BlockGrad", "stop_gradient")
class BlockGrad(Operator):
    """Identity forward; no gradient flows back to ``data`` (declared zero gradient)."""

    def forward(self, is_train, inputs, aux):
        return [inputs[0].detach()]

    def backward(self, out_grads, inputs, outputs, aux):
        return [None]


@register("_copy", "identity")
class Identity(Operator):
    """Copy of ``data``."""

    def forward(self, is_train, inputs, aux):
        return [inputs[0].clone() if not inputs[0].requires_grad else inputs[0] * 1]


@register("_identity_with_attr_like_rhs")
class IdentityWithAttrLikeRhs(Operator):
    """``lhs`` unchanged, constrained to the shape of ``rhs`` (so shape inference can flow
    from ``rhs`` to ``lhs``); ``rhs`` gets no gradient."""

    def arguments(self):
        return ["lhs", "rhs"]

    def forward(self, is_train, inputs, aux):
        lhs, _ = inputs
        return [lhs.clone() if not lhs.requires_grad else lhs * 1]


class _Constant(Operator):
    shape = Attr(Shape, default=())
    ctx = Attr(optional(lambda v, n: str(v)), default=None)
    dtype = Attr(Dtype, default="float32")
    value = None

    def arguments(self):
        return []

    def infer_shape(self, in_shapes, out_shapes):
        return [], [merge_shape(out_shapes[0], tuple(self.shape), f"Operator {self.name} output")], []

    def infer_type(self, in_types):
        return [], [np.dtype(self.dtype or "float32")], []

    def forward(self, is_train, inputs, aux):
        # imperative call (mx.nd._zeros(shape=...)): the shape attribute must be complete
        if not known(tuple(self.shape)):
            raise MXNetError(f"Operator {self.name}: argument 'shape' {tuple(self.shape)} must be fully "
                             f"given outside a graph")
        return [self.create(tuple(self.shape), device_of(self.ctx))]

    def create(self, shape, device):
        dtype = torch.from_numpy(np.zeros(0, dtype=self.dtype or "float32")).dtype
        return torch.full(tuple(shape), self.value, dtype=dtype, device=device)


def context_of(ctx):
    """The Context named by an MXNet context string ('cpu(1)', 'gpu(0)'; empty or None: None)."""
    from ..context import Context
    text = (ctx or "").strip()
    if not text:
        return None
    kind = text.split("(")[0].strip()
    if kind not in Context.devstr2type:
        raise MXNetError(f"unknown context {ctx!r}; expected one of {sorted(Context.devstr2type)} with a device "
                         f"id, such as 'cpu(0)'")
    inside = text[text.find("(") + 1:text.find(")")] if "(" in text else "0"
    return Context(kind, int(inside or 0))


def device_of(ctx):
    """The torch device for an MXNet context string ('cpu(0)', 'gpu(1)'; empty or None: cpu)."""
    from ..context import Context
    context = context_of(ctx)
    return (context if context is not None else Context("cpu", 0)).torch_device


@register("_zeros", "zeros")
class Zeros(_Constant):
    """An array of zeros of ``shape`` (a 0 dimension is filled by shape inference)."""

    value = 0.0


@register("_ones", "ones")
class Ones(_Constant):
    """An array of ones of ``shape`` (a 0 dimension is filled by shape inference)."""

    value = 1.0


@register("_full", "full")
class Full(_Constant):
    """An array of ``shape`` filled with ``value``."""

    value = Attr(lambda v, n: float(v), default=0.0)


# -- helpers shared by the tensor, indexing, reduction and sequence operators ---------------------
def torch_dtype(name):
    """The torch dtype for an MXNet dtype name ('float32', 'int32', 'bfloat16', ...)."""
    return base_dtypes.torch_dtype(name)


def numpy_dtype(name):
    """The numpy dtype for an MXNet dtype name (MXNet's ``BFLOAT16`` stand-in for bfloat16)."""
    return base_dtypes.numpy_dtype(name)


def normalize_axis(op, axis, ndim, argument="axis", extra=0):
    """``axis`` as a non-negative index into ``ndim + extra`` dimensions.

    Raises MXNetError naming the operator, the argument, the valid range and the value.
    """
    size = ndim + extra
    if not -size <= axis < size:
        raise op.error(f"argument {argument!r} must be in [{-size}, {size - 1}] for a {ndim}-D input, got {axis}")
    return axis % size


def shape_text(shape):
    return "None" if shape is None else str(tuple(shape))


class _Unary(Operator):
    """One input ``data`` whose shape must be known to infer the output shape."""

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        if data is not None:
            out = merge_shape(out, self.output_shape(tuple(data)), f"Operator {self.name} output")
        return [data], [out], []

    def output_shape(self, data):
        return data


@register("reshape_like", fluent=True)
class ReshapeLike(Operator):
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

    def arguments(self):
        return ["lhs", "rhs"]

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

    def infer_shape(self, in_shapes, out_shapes):
        lhs, rhs = in_shapes
        out = out_shapes[0]
        if lhs is not None and rhs is not None:
            out = merge_shape(out, self.target(lhs, rhs), f"Operator {self.name} output")
        return [lhs, rhs], [out], []

    def infer_type(self, in_types):
        return [in_types[0], in_types[1] if in_types[1] is not None else in_types[0]], [in_types[0]], []

    def forward(self, is_train, inputs, aux):
        lhs, rhs = inputs
        return [lhs.reshape(self.target(tuple(lhs.shape), tuple(rhs.shape)))]


@register("transpose", fluent=True)
class Transpose(Operator):
    """Permute the axes of ``data``: output axis i is input axis ``axes[i]``; empty ``axes``
    (the default) reverses them."""

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


@register("SliceChannel", "split", fluent="split")
class SliceChannel(Operator):
    """Split ``data`` into ``num_outputs`` equal parts along ``axis`` (default 1); outputs
    ``output0``, ``output1``, ...  With ``squeeze_axis`` the split axis (which must then
    have size ``num_outputs``) is removed.  MXNetError if the axis size is not divisible.
    """

    num_outputs = Attr(Int, required=True)
    axis = Attr(Int, default=1)
    squeeze_axis = Attr(Bool, default=False)

    def __init__(self, attrs=None, **kwargs):
        super().__init__(attrs, **kwargs)
        # the attribute shares its name with Operator.num_outputs(): keep the method usable
        self.sections = self.__dict__.pop("num_outputs")

    def validate(self):
        if self.num_outputs < 1:
            raise self.error(f"argument 'num_outputs' must be positive, got {self.num_outputs}")

    def outputs(self):
        return [f"output{i}" for i in range(self.sections)]

    def _part(self, data):
        axis = normalize_axis(self, self.axis, len(data))
        size = data[axis]
        if size and size % self.sections:
            raise self.error(f"cannot split axis {axis} of 'data' {tuple(data)} into num_outputs="
                             f"{self.sections} equal parts")
        if self.squeeze_axis and size and size != self.sections:
            raise self.error(f"squeeze_axis=True needs axis {axis} of 'data' {tuple(data)} to have size "
                             f"num_outputs={self.sections}")
        part = size // self.sections
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
                from_outputs = tuple(first[:axis]) + (self.sections,) + tuple(first[axis:])
            else:
                from_outputs = tuple(first[:axis]) + (first[axis] * self.sections,) + tuple(first[axis + 1:])
            data = merge_shape(data, from_outputs, f"Operator {self.name} argument 'data'")
        if data is not None:
            part = self._part(data)
            outs = [merge_shape(o, part, f"Operator {self.name} output {i}") for i, o in enumerate(outs)]
        return [data], outs, []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        self._part(tuple(data.shape))
        axis = normalize_axis(self, self.axis, data.dim())
        parts = torch.chunk(data, self.sections, dim=axis)
        if self.squeeze_axis:
            parts = [p.squeeze(axis) for p in parts]
        return list(parts)


def _slice_channel_count(self):
    return self.sections


SliceChannel.num_outputs = _slice_channel_count


def _slice_indices(op, size, begin, end, step):
    """Python-style (start, stop, step) for one axis with MXNet's None defaults."""
    step = 1 if step is None else step
    if step == 0:
        raise op.error("argument 'step' must not be 0")
    return slice(begin, end, step).indices(size)


@register("slice", "crop", fluent=True)
class Slice(_Unary):
    """``data[begin[0]:end[0]:step[0], begin[1]:...]``: ``None`` entries take the defaults
    (the whole axis, in the direction of ``step``); negative values count from the end;
    axes beyond ``len(begin)`` are kept whole.  A negative ``step`` walks backwards.
    """

    begin = Attr(OptionalShape, required=True)
    end = Attr(OptionalShape, required=True)
    step = Attr(OptionalShape, default=())

    def _ranges(self, data):
        if len(self.begin) != len(self.end):
            raise self.error(f"arguments 'begin' {tuple(self.begin)} and 'end' {tuple(self.end)} "
                             f"must have the same length")
        if self.step and len(self.step) != len(self.begin):
            raise self.error(f"argument 'step' {tuple(self.step)} must have the length of 'begin' "
                             f"{tuple(self.begin)}")
        if len(self.begin) > len(data):
            raise self.error(f"argument 'begin' {tuple(self.begin)} has more axes than 'data' {tuple(data)}")
        ranges = []
        for axis, (b, e) in enumerate(zip(self.begin, self.end)):
            s = self.step[axis] if self.step else None
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

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        for axis, (b, e, s) in enumerate(self._ranges(tuple(data.shape))):
            data = _take_range(data, axis, b, e, s)
        return [data]


def _take_range(data, axis, begin, end, step):
    if step > 0:
        index = [slice(None)] * axis + [slice(begin, end, step)]
        return data[tuple(index)]
    positions = torch.arange(begin, end, step, device=data.device)
    return data.index_select(axis, positions)


@register("slice_axis", fluent=True)
class SliceAxis(_Unary):
    """``data`` sliced along one ``axis`` from ``begin`` to ``end`` (None: the end);
    negative values count from the end."""

    axis = Attr(Int, required=True)
    begin = Attr(Int, required=True)
    end = Attr(optional(Int), default=None)

    def _range(self, data):
        axis = normalize_axis(self, self.axis, len(data))
        b, e, _ = slice(self.begin, self.end).indices(data[axis])
        if e < b:
            raise self.error(f"empty slice [{self.begin}:{self.end}] of axis {axis} of 'data' {tuple(data)}")
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


@register("tile", fluent=True)
class Tile(_Unary):
    """Repeat ``data`` ``reps`` times per axis (numpy.tile: the shorter of ``reps`` and the
    shape is padded with leading ones)."""

    reps = Attr(Shape, required=True)

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


@register("Cast", "cast")
class Cast(_Unary):
    """``data`` converted to ``dtype``.  Float to integer truncates toward zero (out-of-range
    values wrap as in C); to bool gives ``data != 0``.  The gradient is the head gradient
    converted back to the input dtype (MXNet's rule), also through integer dtypes: the gradient
    through ``Cast(int32)`` then ``Cast(float32)`` is the head gradient truncated to integers.
    """

    dtype = Attr(Dtype, required=True)

    def infer_type(self, in_types):
        return [in_types[0]], [numpy_dtype(self.dtype)], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        target = torch_dtype(self.dtype)
        if data.is_floating_point() and not target.is_floating_point and target != torch.bool:
            return [data.trunc().to(torch.int64).to(target)]
        return [data.to(target)]

    def backward(self, out_grads, inputs, outputs, aux):
        return [out_grads[0].to(inputs[0].dtype)]


@register("zeros_like", fluent=True)
class ZerosLike(Operator):
    """An array of zeros with the shape and dtype of ``data`` (no gradient flows back)."""

    def forward(self, is_train, inputs, aux):
        return [torch.zeros_like(inputs[0]).detach()]


@register("ones_like", fluent=True)
class OnesLike(Operator):
    """An array of ones with the shape and dtype of ``data`` (no gradient flows back)."""

    def forward(self, is_train, inputs, aux):
        return [torch.ones_like(inputs[0]).detach()]


@register("shape_array", fluent=True)
class ShapeArray(_Unary):
    """The shape of ``data`` as a 1-D int64 array."""

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
class BroadcastLike(Operator):
    """Broadcast ``lhs`` to the shape of ``rhs``; with ``lhs_axes``/``rhs_axes`` only those
    axes of ``lhs`` take the sizes of the matching ``rhs`` axes.  ``rhs`` gets no gradient."""

    lhs_axes = Attr(optional(Shape), default=None)
    rhs_axes = Attr(optional(Shape), default=None)

    def arguments(self):
        return ["lhs", "rhs"]

    def _target(self, lhs, rhs):
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

    def infer_shape(self, in_shapes, out_shapes):
        lhs, rhs = in_shapes
        out = out_shapes[0]
        if lhs is not None and rhs is not None:
            out = merge_shape(out, self._target(lhs, rhs), f"Operator {self.name} output")
        return [lhs, rhs], [out], []

    def infer_type(self, in_types):
        return [in_types[0], in_types[1] if in_types[1] is not None else in_types[0]], [in_types[0]], []

    def forward(self, is_train, inputs, aux):
        lhs, rhs = inputs
        return [lhs.expand(*self._target(tuple(lhs.shape), tuple(rhs.shape)))]


@register("broadcast_axis", "broadcast_axes", fluent="broadcast_axes")
class BroadcastAxis(_Unary):
    """Broadcast the size-1 axes listed in ``axis`` of ``data`` to the sizes in ``size``."""

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


@register("clip", fluent=True)
class Clip(Operator):
    """``data`` limited to ``[a_min, a_max]``; the gradient passes where
    ``a_min <= data <= a_max`` (bounds included) and is zero elsewhere."""

    a_min = Attr(Float, required=True)
    a_max = Attr(Float, required=True)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if not data.is_floating_point():
            return [data.clamp(int(self.a_min), int(self.a_max))]
        return [data.clamp(self.a_min, self.a_max)]

    def backward(self, out_grads, inputs, outputs, aux):
        data = inputs[0]
        inside = (data >= self.a_min) & (data <= self.a_max)
        return [out_grads[0] * inside.to(out_grads[0].dtype)]


@register("where")
class Where(Operator):
    """``x`` where ``condition`` is non-zero, else ``y``.  ``condition`` has the shape of ``x``
    or is 1-D with ``x.shape[0]`` entries (then it selects whole rows).  ``condition``
    gets a zero gradient."""

    def arguments(self):
        return ["condition", "x", "y"]

    def infer_shape(self, in_shapes, out_shapes):
        condition, x, y = in_shapes
        where = f"Operator {self.name}"
        try:
            value = merge_shape(x, y, "")
            value = merge_shape(value, out_shapes[0], "")
        except MXNetError:
            raise self.error(f"arguments 'x' {shape_text(x)} and 'y' {shape_text(y)} must have the same "
                             f"shape") from None
        condition_known = known(condition)
        if condition is not None and value is not None:
            if len(condition) == 1 and len(value) > 1:
                if condition[0] and value[0] and condition[0] != value[0]:
                    raise self.error(f"a 1-D argument 'condition' {tuple(condition)} must have x.shape[0]="
                                     f"{value[0]} entries ('x' {tuple(value)})")
                # a 1-D condition is only checked, never inferred from 'x' (MXNet's rule)
            else:
                try:
                    condition = merge_shape(condition, value, where)
                except MXNetError:
                    raise self.error(f"argument 'condition' {tuple(condition)} must have the shape of 'x' "
                                     f"{tuple(value)} or be 1-D with x.shape[0] entries") from None
        # MXNet infers the output only once 'condition' is fully known
        out = value if condition_known else out_shapes[0]
        return [condition, value, value], [out], []

    def infer_type(self, in_types):
        condition, x, y = in_types
        dtype = x if x is not None else y
        return [condition if condition is not None else dtype, dtype, dtype], [dtype], []

    def forward(self, is_train, inputs, aux):
        condition, x, y = inputs
        mask = condition != 0
        if mask.dim() == 1 and x.dim() > 1:
            mask = mask.reshape((-1,) + (1,) * (x.dim() - 1))
        return [torch.where(mask, x, y)]


# -- creators with computed values (JSON names _arange, _linspace, _eye) ---------------------------
class _Creator(Operator):
    """No inputs; the executor calls ``create(shape, device)`` with the inferred shape."""

    ctx = Attr(lambda v, n: str(v), default="")
    dtype = Attr(Dtype, default="float32")

    def arguments(self):
        return []

    def infer_type(self, in_types):
        return [], [numpy_dtype(self.dtype)], []

    def infer_shape(self, in_shapes, out_shapes):
        return [], [merge_shape(out_shapes[0], self.output_shape(), f"Operator {self.name} output")], []

    def forward(self, is_train, inputs, aux):
        shape = self.output_shape()
        if not known(shape):
            raise self.error(f"the output shape {shape} cannot be computed from the attributes alone")
        return [self.create(shape, device_of(self.ctx))]

    def finish(self, values, device):
        return values.to(device=device, dtype=torch_dtype(self.dtype))


@register("_arange")
class Arange(_Creator):
    """``start, start + step, ...`` up to (excluding) ``stop`` (None: ``[0, start)``), each value
    repeated ``repeat`` times; float32 unless ``dtype``.  With ``infer_range`` the length
    comes from shape inference."""

    start = Attr(Float, required=True)
    stop = Attr(optional(Float), default=None)
    step = Attr(Float, default=1.0)
    repeat = Attr(Int, default=1)
    infer_range = Attr(Bool, default=False)

    def validate(self):
        if self.step == 0:
            raise self.error("argument 'step' must not be 0")
        if self.repeat < 1:
            raise self.error(f"argument 'repeat' must be positive, got {self.repeat}")

    def _range(self):
        return (0.0, self.start) if self.stop is None else (self.start, self.stop)

    def output_shape(self):
        if self.infer_range and self.stop is None:
            return (0,)
        begin, end = self._range()
        count = max(int(np.ceil((end - begin) / self.step)), 0)
        return (count * self.repeat,)

    def create(self, shape, device):
        begin, _ = self._range() if not (self.infer_range and self.stop is None) else (self.start, None)
        count = -(-shape[0] // self.repeat)
        values = begin + self.step * torch.arange(count, dtype=torch.float64)
        values = values.repeat_interleave(self.repeat)[:shape[0]]
        return self.finish(values, device)


@register("_linspace")
class Linspace(_Creator):
    """``num`` evenly spaced values from ``start`` to ``stop`` (included unless
    ``endpoint=False``)."""

    start = Attr(Float, required=True)
    stop = Attr(Float, required=True)
    num = Attr(Int, required=True)
    endpoint = Attr(Bool, default=True)

    def output_shape(self):
        return (self.num,)

    def create(self, shape, device):
        count = shape[0]
        divisor = (count - 1 if self.endpoint else count) or 1
        values = self.start + (self.stop - self.start) / divisor * torch.arange(count, dtype=torch.float64)
        return self.finish(values, device)


@register("_eye")
class Eye(_Creator):
    """``(N, M)`` matrix (``M=0``: square) with ones on diagonal ``k`` (positive: above)."""

    N = Attr(Int, required=True)
    M = Attr(Int, default=0)
    k = Attr(Int, default=0)

    def output_shape(self):
        return (self.N, self.M or self.N)

    def create(self, shape, device):
        rows, cols = shape
        values = torch.zeros(rows, cols, dtype=torch.float64)
        diagonal = torch.diagonal(values, offset=self.k)
        diagonal.fill_(1.0)
        return self.finish(values, device)


@register("_contrib_arange_like")
class ArangeLike(Operator):
    """``start + step * i`` (each value repeated ``repeat`` times) with the shape of ``data``
    (``axis=None``) or the length of ``data``'s axis ``axis``, in ``data``'s dtype; no
    gradient flows back."""

    start = Attr(Float, default=0.0)
    step = Attr(Float, default=1.0)
    repeat = Attr(Int, default=1)
    ctx = Attr(lambda v, n: str(v), default="")
    axis = Attr(optional(Int), default=None)

    def _shape(self, data):
        if self.axis is None:
            return tuple(data)
        return (data[normalize_axis(self, self.axis, len(data))],)

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        if data is not None:
            out = merge_shape(out, self._shape(data), f"Operator {self.name} output")
        return [data], [out], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        shape = self._shape(tuple(data.shape))
        total = product(shape)
        count = -(-total // self.repeat)
        values = self.start + self.step * torch.arange(count, dtype=torch.float64, device=data.device)
        values = values.repeat_interleave(self.repeat)[:total]
        return [values.reshape(shape).to(data.dtype)]


@register("_contrib_index_array")
class IndexArray(Operator):
    """For each position of ``data``, its index along ``axes`` (default: all axes): int64
    output of shape ``data.shape + (len(axes),)``."""

    axes = Attr(optional(Shape), default=None)

    def _axes(self, ndim):
        if self.axes is None:
            return list(range(ndim))
        return [normalize_axis(self, a, ndim, "axes") for a in self.axes]

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        if data is not None:
            out = merge_shape(out, tuple(data) + (len(self._axes(len(data))),), f"Operator {self.name} output")
        return [data], [out], []

    def infer_type(self, in_types):
        return [in_types[0]], [np.dtype(np.int64)], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        grids = torch.meshgrid(*[torch.arange(n, device=data.device) for n in data.shape], indexing="ij")
        return [torch.stack([grids[a] for a in self._axes(data.dim())], dim=-1).to(torch.int64)]


@register("diag", fluent=True)
class Diag(_Unary):
    """A 1-D ``data`` becomes a square matrix with it on diagonal ``k``; otherwise the
    diagonal ``k`` of the planes spanned by ``axis1`` and ``axis2`` is extracted (moved to
    the last axis)."""

    k = Attr(Int, default=0)
    axis1 = Attr(Int, default=0)
    axis2 = Attr(Int, default=1)

    def output_shape(self, data):
        if len(data) == 1:
            size = data[0] + abs(self.k) if data[0] else 0
            return (size, size)
        a = normalize_axis(self, self.axis1, len(data), "axis1")
        b = normalize_axis(self, self.axis2, len(data), "axis2")
        if a == b:
            raise self.error(f"arguments 'axis1' and 'axis2' must differ, both are {a}")
        rows, cols = data[a], data[b]
        size = max(min(rows, cols - self.k) if self.k >= 0 else min(rows + self.k, cols), 0)
        rest = tuple(d for i, d in enumerate(data) if i not in (a, b))
        return rest + (size,)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if data.dim() == 1:
            return [torch.diag_embed(data, offset=self.k)]
        a = normalize_axis(self, self.axis1, data.dim(), "axis1")
        b = normalize_axis(self, self.axis2, data.dim(), "axis2")
        return [torch.diagonal(data, offset=self.k, dim1=a, dim2=b)]


class _BlockRearrange(_Unary):
    block_size = Attr(Int, required=True)

    def validate(self):
        if self.block_size < 1:
            raise self.error(f"argument 'block_size' must be positive, got {self.block_size}")

    def _check(self, data):
        if len(data) != 4:
            raise self.error(f"argument 'data' must be (batch, channel, height, width), got {tuple(data)}")


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


def infer_outputs_from_data(op, in_shapes, out_shapes, output_shape):
    """``infer_shape`` result of operator ``op`` with the one input ``data`` whose outputs all
    have the shape ``output_shape(data shape)`` (``moments``, ``sample_multinomial``)."""
    data = in_shapes[0]
    outs = list(out_shapes)
    if data is not None:
        outs = [merge_shape(o, output_shape(data), f"Operator {op.name} output {i}") for i, o in enumerate(outs)]
    return [data], outs, []


@register("moments")
class Moments(Operator):
    """Mean and (biased) variance of ``data`` over ``axes`` (required in practice: MXNet
    rejects an empty list); outputs ``output0`` (mean) and ``output1`` (variance)."""

    axes = Attr(optional(Shape), default=None)
    keepdims = Attr(Bool, default=False)

    def outputs(self):
        return ["output0", "output1"]

    def _axes(self, ndim):
        if not self.axes:
            raise self.error("argument 'axes' must list the axes to reduce (MXNet rejects empty axes)")
        return tuple(sorted(normalize_axis(self, a, ndim, "axes") for a in self.axes))

    def _out(self, data):
        axes = self._axes(len(data))
        if self.keepdims:
            return tuple(1 if i in axes else d for i, d in enumerate(data))
        kept = tuple(d for i, d in enumerate(data) if i not in axes)
        return kept if kept else (1,)

    def infer_shape(self, in_shapes, out_shapes):
        return infer_outputs_from_data(self, in_shapes, out_shapes, self._out)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        axes = self._axes(data.dim())
        mean = data.mean(dim=axes, keepdim=True)
        variance = ((data - mean) ** 2).mean(dim=axes, keepdim=True)
        shape = self._out(tuple(data.shape))
        return [mean.reshape(shape), variance.reshape(shape)]


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


@register("_shuffle", "shuffle")
class Shuffle(Operator):
    """A copy of ``data`` with its first axis randomly permuted (torch's global generator)."""

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        order = torch.randperm(data.shape[0], device=data.device)
        return [data[order]]


@register("_ravel_multi_index", "ravel_multi_index")
class RavelMultiIndex(Operator):
    """Flat indices into an array of ``shape`` from ``data`` ``(len(shape), ...)`` holding one
    coordinate per row (row-major), in ``data``'s dtype."""

    shape = Attr(Shape, required=True)

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        if data is not None:
            if data[0] and data[0] != len(self.shape):
                raise self.error(f"argument 'data' {tuple(data)} must have {len(self.shape)} rows (one per "
                                 f"axis of shape {tuple(self.shape)})")
            out = merge_shape(out, tuple(data[1:]) or (1,), f"Operator {self.name} output")
        return [data], [out], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        coordinates = data.detach().to(torch.int64)
        strides = np.cumprod((1,) + tuple(self.shape[::-1]))[:-1][::-1]
        flat = sum(coordinates[i] * int(stride) for i, stride in enumerate(strides))
        return [flat.to(data.dtype).reshape(tuple(data.shape[1:]) or (1,))]


@register("_unravel_index", "unravel_index")
class UnravelIndex(Operator):
    """Coordinates (one row per axis of ``shape``) of the flat indices in ``data``, in
    ``data``'s dtype: output ``(len(shape),) + data.shape``."""

    shape = Attr(Shape, required=True)

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        if data is not None:
            out = merge_shape(out, (len(self.shape),) + tuple(data), f"Operator {self.name} output")
        return [data], [out], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        flat = data.detach().to(torch.int64)
        rows = []
        for size in reversed(self.shape):
            rows.append(flat.remainder(size))
            flat = torch.div(flat, size, rounding_mode="floor")
        return [torch.stack(rows[::-1]).to(data.dtype)]


@register("amp_cast")
class AmpCast(Cast):
    """Mixed-precision cast inserted by MXNet's AMP graph pass: floating ``data`` converted to
    ``dtype``; integer and boolean data pass through unchanged, as in MXNet
    (``remove_amp_cast`` drops these nodes when a symbol is saved)."""

    def infer_shape(self, in_shapes, out_shapes):
        # elementwise: the shape is known from either side (FC weights behind a cast)
        shape = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name}")
        return [shape], [shape], []

    def infer_type(self, in_types):
        given = in_types[0]
        if given is not None and np.dtype(given).kind != "f":
            return [given], [np.dtype(given)], []
        return super().infer_type(in_types)

    def forward(self, is_train, inputs, aux):
        if not inputs[0].is_floating_point():
            return [inputs[0]]
        return super().forward(is_train, inputs, aux)

    is_amp_cast = True


@register("amp_multicast")
class AmpMulticast(Operator):
    """Casts its ``num_outputs`` inputs to one common float type: the widest among them, or
    the narrowest with ``cast_narrow=True`` (MXNet's AMP pass inserts it)."""

    is_amp_cast = True

    variadic = True
    cast_narrow = Attr(Bool, default=False)

    def __init__(self, attrs=None, **kwargs):
        # the attribute is called num_outputs, which is also the Operator method's name
        given = dict(attrs or {})
        given.update(kwargs)
        if "num_outputs" not in given:
            raise self.error("required attribute 'num_outputs' is missing")
        count = given.pop("num_outputs")
        super().__init__(given)
        self.count = Int(count, "num_outputs")
        if self.count < 1:
            raise self.error(f"num_outputs must be positive, got {self.count}")
        self.attrs = {"num_outputs": str(count), **self.attrs}

    def arguments(self):
        return [f"data{i}" for i in range(self.count)]

    def outputs(self):
        return [f"output{i}" for i in range(self.count)]

    def infer_shape(self, in_shapes, out_shapes):
        shapes = [merge_shape(s, o, f"Operator {self.name}") for s, o in zip(in_shapes, out_shapes)]
        return shapes, list(shapes), []

    def _common(self, types):
        floats = [np.dtype(t) for t in types if t is not None and np.dtype(t).kind == "f"]
        if not floats:
            return None
        sizes = [t.itemsize for t in floats]
        return floats[sizes.index(min(sizes) if self.cast_narrow else max(sizes))]

    def infer_type(self, in_types):
        common = self._common(in_types)
        return list(in_types), [common if common is not None else t for t in in_types], []

    def forward(self, is_train, inputs, aux):
        common = self._common([numpy_dtype_of(t) for t in inputs])
        if common is None:
            return list(inputs)
        target = torch_dtype(common.name)
        return [t.to(target) if t.is_floating_point() else t for t in inputs]


@register("cast_storage", "_sparse_cast_storage")
class CastStorage(Operator):
    """Storage-type conversion.  mxtorch arrays are always dense, so this is the identity for
    every ``stype`` ('default', 'row_sparse', 'csr')."""

    stype = Attr(Choice("default", "row_sparse", "csr"), required=True)

    def forward(self, is_train, inputs, aux):
        return [inputs[0] * 1 if inputs[0].requires_grad else inputs[0].clone()]


def numpy_dtype_of(tensor):
    return np.dtype(str(tensor.dtype).replace("torch.", ""))
