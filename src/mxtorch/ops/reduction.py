"""Reductions (sum, mean, prod, max, min, nansum, nanprod, norm) the softmax family
(softmax, log_softmax, softmin) and ``moments`` (mean and variance).

Reductions take ``axis`` (None or ``()``: every axis; an int or a tuple, negative
values count from the end), ``keepdims`` and ``exclude`` (reduce every axis *not*
listed).  As in MXNet 1.x a reduction to no axes has shape ``(1,)``.  Integer
inputs give integer results in the input dtype (``mean`` truncates).  ``max`` /
``min`` send the head gradient to every element equal to the extreme (ties all
receive it, as in MXNet).
"""
from __future__ import annotations

import numpy as np
import torch

from .registry import (Attr, Operator, register, Int, Float, Bool, Shape, Dtype, optional, merge_shape,
                       product)
from .helpers import torch_dtype, numpy_dtype, normalize_axis, infer_outputs_from_data

__all__ = ["reduce_axes"]


def reduce_axes(op, axis, ndim, exclude=False):
    """The sorted tuple of axes to reduce; MXNetError for out-of-range or repeated axes."""
    if axis is None or len(axis) == 0:
        return tuple(range(ndim))
    axes = [normalize_axis(op, a, ndim) for a in axis]
    if len(set(axes)) != len(axes):
        raise op.error(f"argument 'axis' {tuple(axis)} lists an axis twice for a {ndim}-D input")
    if exclude:
        return tuple(a for a in range(ndim) if a not in axes)
    return tuple(sorted(axes))


def reduced_shape(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    kept = tuple(d for i, d in enumerate(shape) if i not in axes)
    return kept if kept else (1,)


class _Reduce(Operator):
    lists_input_names = False
    deterministic = True
    axis = Attr(optional(Shape), default=None)
    keepdims = Attr(Bool, default=False)
    exclude = Attr(Bool, default=False)

    def _axes(self, ndim):
        return reduce_axes(self, self.axis, ndim, self.exclude)

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        if data is not None:
            out = merge_shape(out, reduced_shape(data, self._axes(len(data)), self.keepdims),
                              f"Operator {self.name} output")
        return [data], [out], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        axes = self._axes(data.dim())
        if not axes:
            return [data * 1 if data.requires_grad else data.clone()]
        result = self.reduce(data, axes)
        if result.dtype != data.dtype:
            result = result.to(data.dtype)
        return [result.reshape(reduced_shape(tuple(data.shape), axes, self.keepdims))]

    def reduce(self, data, axes):
        raise NotImplementedError


@register("sum", "sum_axis", fluent=True)
class Sum(_Reduce):
    """Sum over ``axis``."""

    traceable = True
    sparse_storage = "dense"

    def reduce(self, data, axes):
        return data.sum(dim=axes)


@register("_square_sum")
class SquareSum(_Reduce):
    """Sum of squares over ``axis`` (MXNet's row-sparse ``_square_sum``, used by
    factorization machines): ``sum(data * data, axis)``.  A row_sparse input reduced over
    ``axis=1`` with ``keepdims`` gives a row_sparse result, any other call a dense one (MXNet's
    storage rule)."""

    def reduce(self, data, axes):
        return (data * data).sum(dim=axes)

    def sparse_storage(self, stypes):
        axis = self.axis if isinstance(self.axis, (tuple, list)) else (self.axis,)
        return ["row_sparse" if stypes[0] == "row_sparse" and tuple(axis) in ((1,), (-1,)) and self.keepdims
                else "default"]


@register("mean", fluent=True)
class Mean(_Reduce):
    """Mean over ``axis`` (integer inputs: the sum divided with truncation)."""

    traceable = True
    sparse_storage = "dense"

    def reduce(self, data, axes):
        if data.is_floating_point():
            return data.mean(dim=axes)
        count = int(np.prod([data.shape[a] for a in axes]))
        return torch.div(data.sum(dim=axes), count, rounding_mode="trunc")


@register("prod", fluent=True)
class Prod(_Reduce):
    """Product over ``axis``.  Its gradient is exact at zeros (MXNet divided by the input and
    returned NaN there)."""

    def reduce(self, data, axes):
        result = data
        for axis in reversed(axes):
            result = result.prod(dim=axis)
        return result


@register("nansum", fluent=True)
class NanSum(_Reduce):
    """Sum over ``axis`` treating NaN as 0 (NaN positions get zero gradient)."""

    def reduce(self, data, axes):
        if not data.is_floating_point():
            return data.sum(dim=axes)
        return torch.where(torch.isnan(data), torch.zeros_like(data), data).sum(dim=axes)


@register("nanprod", fluent=True)
class NanProd(_Reduce):
    """Product over ``axis`` treating NaN as 1 (NaN positions get zero gradient)."""

    def reduce(self, data, axes):
        if data.is_floating_point():
            data = torch.where(torch.isnan(data), torch.ones_like(data), data)
        result = data
        for axis in reversed(axes):
            result = result.prod(dim=axis)
        return result


class _Extreme(_Reduce):
    """max / min.  MXNet's gradient gives the head gradient to every position that ties with
    the extreme (torch's amax/amin would split it between them)."""

    function = None

    def reduce(self, data, axes):
        return type(self).function(data, dim=axes)

    def backward(self, out_grads, inputs, outputs, aux):
        data = inputs[0]
        axes = self._axes(data.dim())
        kept = reduced_shape(tuple(data.shape), axes, True)
        if not axes:
            return [out_grads[0]]
        tied = (data == outputs[0].reshape(kept)).to(out_grads[0].dtype)
        return [out_grads[0].reshape(kept) * tied]


@register("max", "max_axis", fluent=True)
class Max(_Extreme):
    """Maximum over ``axis``; every element equal to the maximum receives the head gradient."""

    function = staticmethod(torch.amax)


@register("min", "min_axis", fluent=True)
class Min(_Extreme):
    """Minimum over ``axis``; every element equal to the minimum receives the head gradient."""

    function = staticmethod(torch.amin)


@register("norm", fluent=True)
class Norm(Operator):
    """L1 (``ord=1``: sum of absolute values) or L2 (``ord=2``, default) norm over ``axis``
    (None: every element), result in ``out_dtype`` (default: the input dtype).  The L2
    gradient at an all-zero input is 0 (MXNet returned NaN)."""

    lists_input_names = False

    sparse_storage = "dense"

    ord = Attr(Int, default=2)
    axis = Attr(optional(Shape), default=None)
    out_dtype = Attr(Dtype, default=None)
    keepdims = Attr(Bool, default=False)

    def validate(self):
        if self.ord not in (1, 2):
            raise self.error(f"argument 'ord' must be 1 or 2, got {self.ord}")

    def _axes(self, ndim):
        return reduce_axes(self, self.axis, ndim, False)

    infer_shape = _Reduce.infer_shape

    def infer_type(self, in_types):
        dtype = in_types[0]
        out = numpy_dtype(self.out_dtype) if self.out_dtype else dtype
        return [dtype], [out], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        axes = self._axes(data.dim())
        work = data if data.is_floating_point() else data.to(torch.float64)
        result = torch.linalg.vector_norm(work, ord=self.ord, dim=axes, keepdim=self.keepdims)
        dtype = torch_dtype(self.out_dtype) if self.out_dtype else data.dtype
        shape = reduced_shape(tuple(data.shape), axes, self.keepdims)
        return [result.to(dtype).reshape(shape)]


class _SoftmaxBase(Operator):
    deterministic = True
    axis = Attr(Int, default=-1)
    temperature = Attr(optional(Float), default=None)
    dtype = Attr(Dtype, default=None)
    use_length = Attr(optional(Bool), default=False)

    def infer_type(self, in_types):
        dtype = in_types[0]
        out = numpy_dtype(self.dtype) if self.dtype else dtype
        types = [dtype] + [in_types[i] if in_types[i] is not None else np.dtype(np.int32)
                           for i in range(1, len(in_types))]
        return types, [out], []

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name} argument 'data'")
        return [data] + list(in_shapes[1:]), [data], []

    def _logits(self, data):
        if not data.is_floating_point():
            raise self.error(f"argument 'data' must be a floating-point array, got {data.dtype}")
        compute = torch_dtype(self.dtype) if self.dtype else data.dtype
        if compute == torch.float16 or data.dtype == torch.float16:
            compute = torch.float32 if compute != torch.float64 else compute
        logits = data.to(compute)
        if self.temperature is not None and self.temperature != 1.0:
            logits = logits / self.temperature
        return logits

    def _out_dtype(self, data):
        return torch_dtype(self.dtype) if self.dtype else data.dtype


@register("softmax", fluent=True)
class Softmax(_SoftmaxBase):
    """``exp(x / T) / sum(exp(x / T))`` along ``axis`` (default -1), ``T = temperature``
    (default 1), result in ``dtype`` (default: the input dtype).  With ``use_length`` a
    second input ``length`` (integers, the data shape without ``axis``) gives how many
    leading entries of each slice take part; the rest are 0."""

    traceable = True

    def arguments(self):
        return ["data", "length"] if self.use_length else ["data"]

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name} argument 'data'")
        shapes = [data]
        if self.use_length:
            length = in_shapes[1]
            if data is not None:
                axis = normalize_axis(self, self.axis, len(data))
                expected = tuple(data[:axis]) + tuple(data[axis + 1:])
                length = merge_shape(length, expected or (1,), f"Operator {self.name} argument 'length'")
            shapes.append(length)
        return shapes, [data], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        axis = normalize_axis(self, self.axis, data.dim())
        logits = self._logits(data)
        if not self.use_length:
            return [torch.softmax(logits, dim=axis).to(self._out_dtype(data))]
        length = inputs[1].detach().to(torch.int64).reshape(
            tuple(data.shape[:axis]) + (1,) + tuple(data.shape[axis + 1:]))
        positions = torch.arange(data.shape[axis], device=data.device).reshape(
            (-1,) + (1,) * (data.dim() - axis - 1))
        valid = positions < length
        lowest = torch.finfo(logits.dtype).min
        masked = logits.masked_fill(~valid, lowest)
        probability = torch.softmax(masked, dim=axis)
        probability = torch.where(valid, probability, torch.zeros_like(probability))
        return [probability.to(self._out_dtype(data))]


class _SoftmaxWithoutLength(_SoftmaxBase):
    """log_softmax and softmin: ``use_length`` is rejected; ``_normalize(logits, axis)`` maps the
    temperature-scaled logits to the result, which is cast to ``dtype``."""

    def validate(self):
        if self.use_length:
            raise self.error("use_length=True is only supported by softmax (as in MXNet 1.9.1)")

    def _normalize(self, logits, axis):
        raise NotImplementedError(f"{type(self).__name__} must implement _normalize")

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        axis = normalize_axis(self, self.axis, data.dim())
        return [self._normalize(self._logits(data), axis).to(self._out_dtype(data))]


@register("log_softmax", fluent=True)
class LogSoftmax(_SoftmaxWithoutLength):
    """``log(softmax(x / T))`` along ``axis``, computed stably; result in ``dtype``."""

    traceable = True

    def _normalize(self, logits, axis):
        return torch.log_softmax(logits, dim=axis)


@register("softmin", fluent=True)
class Softmin(_SoftmaxWithoutLength):
    """``softmax(-x / T)`` along ``axis``; result in ``dtype``."""

    def _normalize(self, logits, axis):
        return torch.softmax(-logits, dim=axis)


@register("cumsum", "_np_cumsum")
class Cumsum(Operator):
    """Cumulative sum along ``axis`` (the flattened array when ``axis`` is None), in ``dtype``
    when given."""

    axis = Attr(optional(Int), default=None)
    dtype = Attr(Dtype, default=None)

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        if data is None:
            return [data], [out_shapes[0]], []
        out = tuple(data) if self.axis is not None else (product(data),) if all(data) else (0,)
        return [data], [merge_shape(out_shapes[0], out, f"Operator {self.name} output")], []

    def infer_type(self, in_types):
        return [in_types[0]], [np.dtype(self.dtype) if self.dtype else in_types[0]], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if self.axis is None:
            data = data.reshape(-1)
        target = getattr(torch, self.dtype) if self.dtype else None
        return [torch.cumsum(data, dim=self.axis or 0, dtype=target)]


def bin_counts(values, edges, uniform=None):
    """int64 counts of ``values`` (any shape) in the bins between neighbouring ``edges`` (float64,
    increasing): values outside ``[edges[0], edges[-1]]`` are not counted and the last bin is
    closed.  ``uniform=(low, high, count)`` bins by arithmetic, as MXNet does for equal bins."""
    values = values.detach().reshape(-1).double()
    inside = (values >= edges[0]) & (values <= edges[-1])
    values = values[inside]
    count = edges.numel() - 1
    if uniform is not None:
        low, high, count = uniform
        index = torch.floor((values - low) * (count / (high - low))).long()
    else:
        index = torch.bucketize(values, edges, right=True) - 1
    index = index.clamp(0, count - 1)
    return torch.bincount(index, minlength=count).to(torch.int64)


@register("_histogram")
class Histogram(Operator):
    """Counts of ``data`` in bins: outputs int64 counts ``(bins,)`` and the float edges
    ``(bins + 1,)``.  Either ``bin_cnt`` equal bins over ``range=(low, high)``, or, without
    ``bin_cnt``, a second input ``bins`` of increasing edges.  No gradient (as in MXNet: a graph
    needing one through it does not bind, ``has_gradient``)."""

    has_gradient = False

    bin_cnt = Attr(optional(Int), default=None)
    range = Attr(optional(lambda value, name: tuple(float(v) for v in _parse_pair(value, name))), default=None)

    def validate(self):
        if self.bin_cnt is not None:
            if self.bin_cnt < 1:
                raise self.error(f"bin_cnt must be positive, got {self.bin_cnt}")
            if self.range is None or len(self.range) != 2 or not self.range[0] < self.range[1]:
                raise self.error(f"range must be (low, high) with low < high when bin_cnt is given, "
                                 f"got {self.range}")

    def arguments(self):
        return ["data"] if self.bin_cnt is not None else ["data", "bins"]

    def outputs(self):
        return ["output0", "output1"]

    def infer_shape(self, in_shapes, out_shapes):
        if self.bin_cnt is not None:
            count = self.bin_cnt
        else:
            bins = in_shapes[1]
            if bins is None or not bins or not bins[0]:
                return list(in_shapes), list(out_shapes), []
            if len(bins) != 1 or bins[0] < 2:
                raise self.error(f"argument 'bins' must be a vector of at least 2 edges, got {tuple(bins)}")
            count = bins[0] - 1
        where = f"Operator {self.name} output"
        return list(in_shapes), [merge_shape(out_shapes[0], (count,), where),
                                 merge_shape(out_shapes[1], (count + 1,), where)], []

    def infer_type(self, in_types):
        return list(in_types), [np.dtype(np.int64), in_types[0]], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if self.bin_cnt is not None:
            low, high = self.range
            edges = torch.linspace(low, high, self.bin_cnt + 1, dtype=torch.float64, device=data.device)
            counts = bin_counts(data, edges, uniform=(low, high, self.bin_cnt))
            return [counts, edges.to(data.dtype)]
        edges = inputs[1].detach().reshape(-1)
        return [bin_counts(data, edges.double()), edges.clone()]


def _parse_pair(value, name):
    from ..base import parse_tuple
    return parse_tuple(value, name, float)


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
