"""Indexing operators: take, pick, batch_take, gather_nd, scatter_nd, one_hot, and the
sorting family (topk, sort, argsort, argmax, argmin, argmax_channel), plus
ravel_multi_index / unravel_index.

Indices arrive as floats (MXNet's convention for index inputs) or integers; a
fractional index is truncated toward zero.  Index inputs get zero gradients.
Integer results that MXNet returns in a float dtype (``argmax``, ``topk``
indices) are returned in that dtype too.
"""
from __future__ import annotations

import numpy as np
import torch

from ..base import MXNetError, MXNetIndexError, OperatorRunError
from .registry import (Attr, Operator, register, Int, Float, Bool, Shape, Dtype, Choice, optional, known,
                       merge_shape, product)
from .helpers import host_check_failed, normalize_axis, torch_dtype, numpy_dtype

__all__ = []


def _as_index(indices):
    """Integer positions from an index tensor (floats truncated toward zero)."""
    return indices.detach().to(torch.int64)


def _bound(op, index, size, mode, argument):
    """Apply ``mode`` ('clip', 'wrap' or 'raise') to positions for an axis of ``size``."""
    if mode == "clip":
        return index.clamp(0, size - 1)
    if mode == "wrap":
        return index.remainder(size)
    if host_check_failed((index < 0) | (index >= size)):
        low, high = int(index.min()), int(index.max())
        # checked while computing in MXNet: reported at the next wait on the output
        raise OperatorRunError(f"Operator {op.name}: argument {argument!r} holds indices outside "
                               f"[0, {size - 1}] (from {low} to {high}) with mode='raise'")
    return index


class _IndexTypes:
    """dtype inference: the data dtype for the output, index inputs keep their own."""

    data_position = 0

    def infer_type(self, in_types):
        dtype = in_types[self.data_position]
        types = [t if t is not None else (dtype if i == self.data_position else np.dtype(np.float32))
                 for i, t in enumerate(in_types)]
        return types, [dtype], []


@register("take", fluent=True)
class Take(_IndexTypes, Operator):
    """Elements of ``a`` at positions ``indices`` along ``axis``: output shape
    ``a.shape[:axis] + indices.shape + a.shape[axis + 1:]``.  ``mode``: 'clip' (default)
    clamps to the axis, 'wrap' wraps around (negative indices too), 'raise' raises
    MXNetError for out-of-range indices.  The gradient of ``a`` sums repeated positions.
    """

    axis = Attr(Int, default=0)
    mode = Attr(Choice("clip", "raise", "wrap"), default="clip")

    def arguments(self):
        return ["a", "indices"]

    def sparse_storage(self, stypes):
        """MXNet's take storage rule: rows (``axis=0``) of a csr array by dense indices are csr;
        everything else is dense."""
        return ["csr" if stypes[:2] == ["csr", "default"] and self.axis == 0 else "default"]

    def infer_shape(self, in_shapes, out_shapes):
        a, indices = in_shapes
        out = out_shapes[0]
        if a is not None and indices is not None:
            axis = normalize_axis(self, self.axis, len(a))
            out = merge_shape(out, tuple(a[:axis]) + tuple(indices) + tuple(a[axis + 1:]),
                              f"Operator {self.name} output")
        return [a, indices], [out], []

    def forward(self, is_train, inputs, aux):
        a, indices = inputs
        axis = normalize_axis(self, self.axis, a.dim())
        index = _bound(self, _as_index(indices), a.shape[axis], self.mode, "indices")
        picked = a.index_select(axis, index.reshape(-1))
        shape = tuple(a.shape[:axis]) + tuple(indices.shape) + tuple(a.shape[axis + 1:])
        return [picked.reshape(shape)]


@register("batch_take")
class BatchTake(_IndexTypes, Operator):
    """``out[i] = a[i, indices[i]]`` with ``a`` viewed as ``(indices.size, a.shape[-1])``;
    out-of-range indices are clipped.  Output shape: ``indices.shape``.  MXNet registered no
    gradient: a graph needing one through it does not bind (``has_gradient``)."""

    has_gradient = False

    def arguments(self):
        return ["a", "indices"]

    def infer_shape(self, in_shapes, out_shapes):
        a, indices = in_shapes
        out = merge_shape(indices, out_shapes[0], f"Operator {self.name} output")
        if a is not None and known(a) and out is not None and known(out):
            if product(a) // a[-1] != product(out):
                raise self.error(f"argument 'indices' {tuple(out)} must have one entry per row of 'a' "
                                 f"{tuple(a)} ({product(a) // a[-1]} rows)")
        return [a, out], [out], []

    def forward(self, is_train, inputs, aux):
        a, indices = inputs
        rows = a.reshape(-1, a.shape[-1])
        if rows.shape[0] != indices.numel():
            raise self.error(f"argument 'indices' {tuple(indices.shape)} must have one entry per row of 'a' "
                             f"{tuple(a.shape)}")
        index = _as_index(indices).reshape(-1, 1).clamp(0, a.shape[-1] - 1)
        return [rows.gather(1, index).reshape(indices.shape)]


@register("pick", "choose_element_0index", fluent=True)
class Pick(_IndexTypes, Operator):
    """``data`` picked at ``index`` along ``axis``: ``index`` has the shape of ``data``
    without ``axis`` (or with size 1 there); ``keepdims`` keeps the axis with size 1.
    ``mode`` 'clip' (default) or 'wrap'."""

    axis = Attr(optional(Int), default=-1)
    keepdims = Attr(Bool, default=False)
    mode = Attr(Choice("clip", "wrap"), default="clip")

    def validate(self):
        if self.axis is None:
            raise self.error("axis=None is not supported (as in MXNet 1.9.1); give an axis")

    def arguments(self):
        return ["data", "index"]

    def _out(self, data):
        axis = normalize_axis(self, self.axis, len(data))
        if self.keepdims:
            return tuple(data[:axis]) + (1,) + tuple(data[axis + 1:])
        return tuple(data[:axis]) + tuple(data[axis + 1:])

    def infer_shape(self, in_shapes, out_shapes):
        data, index = in_shapes
        out = out_shapes[0]
        if data is not None:
            out = merge_shape(out, self._out(data), f"Operator {self.name} output")
            axis = normalize_axis(self, self.axis, len(data))
            expected = tuple(data[:axis]) + tuple(data[axis + 1:])
            if index is not None and len(index) == len(data):
                expected = tuple(data[:axis]) + (1,) + tuple(data[axis + 1:])
            try:
                index = merge_shape(index, expected, "")
            except MXNetError:
                raise self.error(f"argument 'index' has shape {tuple(index)}, expected {expected} for "
                                 f"'data' {tuple(data)} and axis={self.axis}") from None
        return [data, index], [out], []

    def forward(self, is_train, inputs, aux):
        data, index = inputs
        axis = normalize_axis(self, self.axis, data.dim())
        position = _bound(self, _as_index(index), data.shape[axis], self.mode, "index")
        position = position.reshape(tuple(data.shape[:axis]) + (1,) + tuple(data.shape[axis + 1:]))
        picked = data.gather(axis, position)
        return [picked if self.keepdims else picked.squeeze(axis)]


@register("gather_nd")
class GatherND(_IndexTypes, Operator):
    """``out[i...] = data[indices[0, i...], ..., indices[M-1, i...], ...]``: ``indices`` of shape
    ``(M, ...)`` addresses the first M axes of ``data``; output shape
    ``indices.shape[1:] + data.shape[M:]``.  Negative indices count from the end.  The
    gradient of ``data`` sums repeated positions."""

    def arguments(self):
        return ["data", "indices"]

    def infer_shape(self, in_shapes, out_shapes):
        data, indices = in_shapes
        out = out_shapes[0]
        if data is not None and indices is not None and indices[0]:
            if indices[0] > len(data):
                raise self.error(f"argument 'indices' {tuple(indices)} addresses {indices[0]} axes, "
                                 f"'data' {tuple(data)} has {len(data)}")
            out = merge_shape(out, tuple(indices[1:]) + tuple(data[indices[0]:]), f"Operator {self.name} output")
        return [data, indices], [out], []

    def forward(self, is_train, inputs, aux):
        data, indices = inputs
        index = _as_index(indices)
        count = index.shape[0]
        if count > data.dim():
            raise self.error(f"argument 'indices' {tuple(indices.shape)} addresses {count} axes, 'data' "
                             f"{tuple(data.shape)} has {data.dim()}")
        for i in range(count):
            size = data.shape[i]
            bad = (index[i] >= size) | (index[i] < -size)
            if host_check_failed(bad):
                value = int(index[i][bad].flatten()[0])
                raise MXNetIndexError(f"Operator {self.name}: index {value} is out of bounds for axis {i} "
                                      f"with size {size} (data {tuple(data.shape)})")
        keys = tuple(index[i].remainder(data.shape[i]) for i in range(count))
        return [data[keys]]


@register("scatter_nd")
class ScatterND(_IndexTypes, Operator):
    """The inverse of gather_nd: an array of ``shape`` filled with zeros except
    ``out[indices[:, i...]] = data[i...]`` (the last write wins for repeated positions)."""

    shape = Attr(Shape, required=True)

    def arguments(self):
        return ["data", "indices"]

    def infer_shape(self, in_shapes, out_shapes):
        data, indices = in_shapes
        out = merge_shape(out_shapes[0], tuple(self.shape), f"Operator {self.name} output")
        if indices is not None and indices[0]:
            data = merge_shape(data, tuple(indices[1:]) + tuple(self.shape[indices[0]:]),
                               f"Operator {self.name} argument 'data'")
        return [data, indices], [out], []

    def forward(self, is_train, inputs, aux):
        data, indices = inputs
        index = _as_index(indices)
        keys = tuple(index[i].remainder(self.shape[i]) for i in range(index.shape[0]))
        out = torch.zeros(tuple(self.shape), dtype=data.dtype, device=data.device)
        return [out.index_put(keys, data)]


@register("one_hot", fluent=True)
class OneHot(Operator):
    """``indices.shape + (depth,)`` array holding ``on_value`` at each index and
    ``off_value`` elsewhere, in ``dtype`` (float32).  Rows whose index is outside
    ``[0, depth)`` are all ``off_value``."""

    depth = Attr(Int, required=True)
    on_value = Attr(Float, default=1.0)
    off_value = Attr(Float, default=0.0)
    dtype = Attr(Dtype, default="float32")

    def validate(self):
        if self.depth < 0:
            raise self.error(f"argument 'depth' (the number of classes) must be 0 or more, got {self.depth}")

    def arguments(self):
        return ["indices"]

    def infer_shape(self, in_shapes, out_shapes):
        indices = in_shapes[0]
        out = out_shapes[0]
        if indices is not None:
            out = merge_shape(out, tuple(indices) + (self.depth,), f"Operator {self.name} output")
        return [indices], [out], []

    def infer_type(self, in_types):
        return [in_types[0] or np.dtype(np.float32)], [numpy_dtype(self.dtype)], []

    def forward(self, is_train, inputs, aux):
        index = _as_index(inputs[0])
        classes = torch.arange(self.depth, device=index.device)
        hit = index.unsqueeze(-1) == classes
        dtype = torch_dtype(self.dtype)
        on = torch.tensor(self.on_value, dtype=torch.float64).to(dtype)
        off = torch.tensor(self.off_value, dtype=torch.float64).to(dtype)
        return [torch.where(hit, on.to(index.device), off.to(index.device))]


def _sorted(data, axis, descending):
    """Stable sort along ``axis`` (ties keep their order, as in MXNet)."""
    return torch.sort(data, dim=axis, descending=descending, stable=True)


class _AxisOrNone:
    def _layout(self, data):
        """(tensor, axis): ``axis=None`` works on the flattened array."""
        if self.axis is None:
            return data.reshape(-1), 0
        return data, normalize_axis(self, self.axis, data.dim())

    def _shape_layout(self, shape):
        if self.axis is None:
            return ((product(shape) if known(shape) else 0),), 0
        return tuple(shape), normalize_axis(self, self.axis, len(shape))


@register("topk", fluent=True)
class TopK(_AxisOrNone, Operator):
    """The ``k`` largest (smallest with ``is_ascend``) elements along ``axis`` (None: the
    flattened array; ``k < 1``: all, sorted).  ``ret_typ``: 'indices' (default, in ``dtype``,
    float32), 'value', 'both' (values then indices; outputs ``output0``, ``output1``) or
    'mask' (1 at the selected positions, in the data dtype).  Ties keep their order.
    The gradient of the values flows back to the selected positions."""

    lists_input_names = False

    axis = Attr(optional(Int), default=-1)
    k = Attr(Int, default=1)
    ret_typ = Attr(Choice("both", "indices", "mask", "value"), default="indices")
    is_ascend = Attr(Bool, default=False)
    dtype = Attr(Dtype, default="float32")

    def outputs(self):
        return ["output0", "output1"] if self.ret_typ == "both" else ["output"]

    def _count(self, size):
        if self.k < 1:
            return size
        if size and self.k > size:
            raise self.error(f"argument 'k'={self.k} is larger than the axis size {size}")
        return self.k

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        outs = list(out_shapes)
        if data is not None:
            shape, axis = self._shape_layout(data)
            if self.ret_typ == "mask":
                target = tuple(data)
            else:
                size = shape[axis]
                count = self._count(size) if size or self.k >= 1 else 0
                target = tuple(shape[:axis]) + (count,) + tuple(shape[axis + 1:])
            outs = [merge_shape(o, target, f"Operator {self.name} output {i}") for i, o in enumerate(outs)]
        return [data], outs, []

    def infer_type(self, in_types):
        dtype = in_types[0]
        index_type = numpy_dtype(self.dtype)
        if self.ret_typ == "both":
            return [dtype], [dtype, index_type], []
        if self.ret_typ == "indices":
            return [dtype], [index_type], []
        return [dtype], [dtype], []

    def forward(self, is_train, inputs, aux):
        original = inputs[0]
        data, axis = self._layout(original)
        count = self._count(data.shape[axis])
        values, indices = _sorted(data, axis, descending=not self.is_ascend)
        values = values.narrow(axis, 0, count)
        indices = indices.narrow(axis, 0, count)
        if self.ret_typ == "mask":
            mask = torch.zeros_like(data).scatter(axis, indices, 1).detach()
            return [mask.reshape(original.shape)]
        picked = data.gather(axis, indices)
        positions = indices.to(torch_dtype(self.dtype))
        if self.ret_typ == "value":
            return [picked]
        if self.ret_typ == "indices":
            return [positions]
        return [picked, positions]


@register("sort", fluent=True)
class Sort(_AxisOrNone, Operator):
    """``data`` sorted along ``axis`` (None: flattened), ascending unless ``is_ascend=False``;
    stable (ties keep their order)."""

    lists_input_names = False

    axis = Attr(optional(Int), default=-1)
    is_ascend = Attr(Bool, default=True)

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        if data is not None:
            out = merge_shape(out, self._shape_layout(data)[0], f"Operator {self.name} output")
        return [data], [out], []

    def forward(self, is_train, inputs, aux):
        data, axis = self._layout(inputs[0])
        _, indices = _sorted(data.detach(), axis, descending=not self.is_ascend)
        return [data.gather(axis, indices)]


@register("argsort", fluent=True)
class Argsort(Sort):
    """Positions that sort ``data`` along ``axis`` (stable), in ``dtype`` (float32)."""

    dtype = Attr(Dtype, default="float32")

    def infer_type(self, in_types):
        return [in_types[0]], [numpy_dtype(self.dtype)], []

    def forward(self, is_train, inputs, aux):
        data, axis = self._layout(inputs[0])
        _, indices = _sorted(data.detach(), axis, descending=not self.is_ascend)
        return [indices.to(torch_dtype(self.dtype))]


class _ArgReduce(Operator):
    lists_input_names = False
    axis = Attr(optional(Int), default=None)
    keepdims = Attr(Bool, default=False)
    function = None

    def _out(self, data):
        if self.axis is None:
            return (1,) * len(data) if self.keepdims else (1,)
        axis = normalize_axis(self, self.axis, len(data))
        if self.keepdims:
            return tuple(data[:axis]) + (1,) + tuple(data[axis + 1:])
        shape = tuple(data[:axis]) + tuple(data[axis + 1:])
        return shape if shape else (1,)

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        if data is not None:
            out = merge_shape(out, self._out(data), f"Operator {self.name} output")
        return [data], [out], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0].detach()
        if self.axis is None:
            result = type(self).function(data.reshape(-1))
        else:
            result = type(self).function(data, dim=normalize_axis(self, self.axis, data.dim()))
        return [result.to(data.dtype).reshape(self._out(tuple(data.shape)))]


@register("argmax", fluent=True)
class Argmax(_ArgReduce):
    """Position of the largest element along ``axis`` (None: in the flattened array; output
    ``(1,)``), in the input dtype (float32 for float32 data); the first one on ties."""

    function = staticmethod(torch.argmax)


@register("argmin", fluent=True)
class Argmin(_ArgReduce):
    """Position of the smallest element along ``axis`` (None: in the flattened array), in the
    input dtype; the first one on ties."""

    function = staticmethod(torch.argmin)


@register("argmax_channel", fluent=True)
class ArgmaxChannel(Operator):
    """Position of the largest element along axis 1 (the channel axis of ``(batch, channel,
    ...)``; the last axis of a matrix), in the input dtype."""

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        if data is not None:
            if len(data) < 2:
                raise self.error(f"argument 'data' must have at least 2 axes, got {tuple(data)}")
            out = merge_shape(out, (data[0],) + tuple(data[2:]), f"Operator {self.name} output")
        return [data], [out], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0].detach()
        if data.dim() < 2:
            raise self.error(f"argument 'data' must have at least 2 axes, got {tuple(data.shape)}")
        return [torch.argmax(data, dim=1).to(data.dtype)]


@register("fill_element_0index")
class FillElement0Index(Operator):
    """A copy of ``lhs`` ``(N, M)`` with ``out[i, rhs[i]] = mhs[i]`` (``mhs``, ``rhs`` of shape
    ``(N,)``; ``rhs`` holds column indices)."""

    def arguments(self):
        return ["lhs", "mhs", "rhs"]

    # MXNet 1.9.1 takes values and column indices of any dtype (the values are cast to lhs's)
    free_dtype_inputs = ("mhs", "rhs")

    def infer_shape(self, in_shapes, out_shapes):
        lhs = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name} argument 'lhs'")
        mhs, rhs = in_shapes[1], in_shapes[2]
        if lhs is not None:
            if len(lhs) != 2:
                raise self.error(f"argument 'lhs' must be a matrix, got {tuple(lhs)}")
            mhs = merge_shape(mhs, (lhs[0],), f"Operator {self.name} argument 'mhs'")
            rhs = merge_shape(rhs, (lhs[0],), f"Operator {self.name} argument 'rhs'")
        return [lhs, mhs, rhs], [lhs], []

    def forward(self, is_train, inputs, aux):
        lhs, mhs, rhs = inputs
        columns = _as_index(rhs).reshape(-1, 1).clamp(0, lhs.shape[1] - 1)
        return [lhs.scatter(1, columns, mhs.reshape(-1, 1).to(lhs.dtype))]


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
    ``data``'s dtype: output ``(len(shape),) + data.shape``.  As in MXNet 1.9.1 the first
    axis's size is never used (it may be -1): the first row is what is left after dividing
    by the other axes, and the division truncates toward zero (a flat index -5 in shape
    ``(3, 4)`` gives ``(-1, -1)``)."""

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
        for size in reversed(self.shape[1:]):
            quotient = torch.div(flat, size, rounding_mode="trunc")
            rows.append(flat - quotient * size)
            flat = quotient
        rows.append(flat)
        return [torch.stack(rows[::-1]).to(data.dtype)]


@register("_contrib_index_copy")
class IndexCopy(Operator):
    """A copy of ``old_tensor`` whose rows ``index_vector[i]`` (along the first axis) are
    replaced by ``new_tensor[i]`` (MXNet's ``contrib.index_copy``).  ``new_tensor`` has shape
    ``(len(index_vector),) + old_tensor.shape[1:]``; the output has ``old_tensor``'s shape and
    dtype.  Gradients: ``old_tensor`` gets the head gradient with the replaced rows zeroed,
    ``new_tensor`` the head gradient's rows at ``index_vector``, the index none."""

    def arguments(self):
        return ["old_tensor", "index_vector", "new_tensor"]

    def infer_shape(self, in_shapes, out_shapes):
        old, index, new = in_shapes
        old = merge_shape(old, out_shapes[0], f"Operator {self.name} output")
        if index is not None and len(index) != 1:
            raise self.error(f"index_vector must be 1-D, got shape {tuple(index)}")
        if old is not None and index is not None:
            new = merge_shape(new, (index[0],) + tuple(old[1:]), f"Operator {self.name} new_tensor")
        return [old, index, new], [old], []

    def infer_type(self, in_types):
        # MXNet 1.9.1 ties only the output to old_tensor: new_tensor may have another dtype (it is
        # cast to old_tensor's), the index any
        old, index, new = in_types
        dtype = old if old is not None else new
        return ([dtype, index if index is not None else np.dtype(np.float32), new if new is not None else dtype],
                [dtype], [])

    def forward(self, is_train, inputs, aux):
        old, index, new = inputs
        positions = _as_index(index)
        if positions.numel() and host_check_failed((positions < 0) | (positions >= old.shape[0])):
            raise self.error(f"index_vector holds positions outside [0, {old.shape[0] - 1}]")
        return [old.index_copy(0, positions, new.to(old.dtype))]


@register("_contrib_backward_index_copy")
class IndexCopyBackward(Operator):
    """The gradient node of ``contrib.index_copy``: from the head gradient ``out_grad`` (the
    shape of ``old_tensor``) and the forward inputs, the gradients of ``old_tensor`` (the head
    gradient with the rows ``index_vector`` zeroed), of ``index_vector`` (zeros) and of
    ``new_tensor`` (the head gradient's rows ``index_vector``).  MXNet 1.9.1's imperative front
    end could not pass it inputs; here it computes the three gradients."""

    def arguments(self):
        return ["out_grad", "old_tensor", "index_vector", "new_tensor"]

    def outputs(self):
        return ["old_tensor_grad", "index_vector_grad", "new_tensor_grad"]

    # as in index_copy, the index and new_tensor may have other dtypes; each gradient has the
    # dtype of its input
    free_dtype_inputs = ("index_vector", "new_tensor")

    def infer_type(self, in_types):
        inputs, outputs, aux = super().infer_type(in_types)
        outputs[1] = inputs[2]
        if inputs[3] is not None:
            outputs[2] = inputs[3]
        return inputs, outputs, aux

    def infer_shape(self, in_shapes, out_shapes):
        grad, old, index, new = in_shapes
        old = merge_shape(grad, old, f"Operator {self.name} old_tensor")
        return [old, old, index, new], [old, index, new], []

    def forward(self, is_train, inputs, aux):
        out_grad, old, index, new = inputs
        positions = _as_index(index)
        old_grad = out_grad.index_fill(0, positions, 0)
        return [old_grad, torch.zeros_like(index), out_grad.index_select(0, positions).to(new.dtype)]


@register("_contrib_boolean_mask")
class BooleanMask(Operator):
    """The rows of ``data`` (along ``axis`` 0, the only axis MXNet supports) where the 1-D
    ``index`` is non-zero, in order (MXNet's ``contrib.boolean_mask``).  The output's first
    dimension depends on the values, so symbolic shape inference leaves it unknown; no rows
    selected gives shape ``(0,) + data.shape[1:]``.  The gradient scatters the head gradient
    back to the selected rows (zero elsewhere); ``index`` gets none."""

    axis = Attr(Int, default=0)

    def validate(self):
        if self.axis != 0:
            raise self.error(f"only axis=0 is supported (as in MXNet), got axis={self.axis}")

    def arguments(self):
        return ["data", "index"]

    def infer_shape(self, in_shapes, out_shapes):
        data, index = in_shapes
        if index is not None and len(index) != 1:
            raise self.error(f"index must be 1-D, got shape {tuple(index)}")
        if data is not None and index is not None and index[0] and data[0] and index[0] != data[0]:
            raise self.error(f"index has {index[0]} entries but data {tuple(data)} has {data[0]} rows")
        return [data, index], [out_shapes[0]], []

    def infer_type(self, in_types):
        data, index = in_types
        return [data, index if index is not None else data], [data], []

    def forward(self, is_train, inputs, aux):
        data, index = inputs
        self.infer_shape([tuple(data.shape), tuple(index.shape)], [None])
        keep = torch.nonzero(index.detach() != 0).reshape(-1)
        return [data.index_select(0, keep.to(data.device))]
