"""Array creation: zeros / ones / full, zeros_like / ones_like, arange, linspace, eye,
arange_like, index_array and diag."""
from __future__ import annotations

import numpy as np
import torch

from ..base import MXNetError
from .registry import (ArrayShape, Attr, Bool, Dtype, Float, Int, known, merge_shape, Operator, optional, product,
                       register, Shape)
from .helpers import _Unary, device_of, normalize_axis, numpy_dtype, torch_dtype

__all__ = []


class _Constant(Operator):
    # sizes of at least -1 (MXNetError otherwise, as MXNet's TShape); 0 and -1 are left to inference
    shape = Attr(ArrayShape, default=())
    ctx = Attr(optional(lambda v, n: str(v)), default=None)
    dtype = Attr(Dtype, default="float32")
    value = None

    def arguments(self):
        return []

    def infer_shape(self, in_shapes, out_shapes):
        # as in MXNet 1.9.1, a -1 (like a 0) in ``shape`` is a dimension left to shape inference
        given = tuple(0 if size == -1 else size for size in self.shape)
        return [], [merge_shape(out_shapes[0], given, f"Operator {self.name} output")], []

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


@register("_zeros", "zeros")
class Zeros(_Constant):
    """An array of zeros of ``shape`` (a 0 or -1 dimension is filled by shape inference)."""

    value = 0.0


@register("_ones", "ones")
class Ones(_Constant):
    """An array of ones of ``shape`` (a 0 or -1 dimension is filled by shape inference)."""

    value = 1.0


@register("_full", "full")
class Full(_Constant):
    """An array of ``shape`` filled with ``value``."""

    value = Attr(Float, default=0.0)


@register("zeros_like", fluent=True)
class ZerosLike(Operator):
    """An array of zeros with the shape and dtype of ``data`` (no gradient flows back)."""

    lists_input_names = False

    sparse_storage = "preserve"

    def forward(self, is_train, inputs, aux):
        return [torch.zeros_like(inputs[0]).detach()]


@register("ones_like", fluent=True)
class OnesLike(Operator):
    """An array of ones with the shape and dtype of ``data`` (no gradient flows back)."""

    lists_input_names = False

    def forward(self, is_train, inputs, aux):
        return [torch.ones_like(inputs[0]).detach()]


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


def range_values(start, step, repeat, total, dtype, device):
    """``total`` values ``start + (i // repeat) * step`` of torch ``dtype``, computed as
    MXNet 1.9.1's range kernel does: ``start`` and ``step`` are first converted to the
    output dtype (an integer dtype truncates them toward zero: ``arange(1.3, 5, 1.3,
    dtype='int32')`` is ``[1, 2, 3]``) and the arithmetic is the dtype's (float32 in float32,
    integers wrapping around).  MXNet truncates them to integers for float16 too (its
    kernel treats every type that C++ does not call signed, ``half_t`` included, as
    unsigned), so a float16 ``arange(0.1, 3, 0.1)`` is all zeros."""
    index = torch.div(torch.arange(total, dtype=torch.int64, device=device), repeat, rounding_mode="floor")
    if dtype in (torch.float16, torch.bfloat16):
        start, step = int(start), int(step)
    if dtype.is_floating_point:
        first = torch.tensor(start, dtype=dtype, device=device)
        return first + index.to(dtype) * torch.tensor(step, dtype=dtype, device=device)
    return (int(start) + index * int(step)).to(dtype)


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
        if self.infer_range and self.stop is None:
            return
        # as MXNet 1.9.1, a range holding no value is refused (arange(5, 0, 1), arange(0))
        begin, end = self._range()
        if self.step > 0 and not begin < end:
            raise self.error(f"invalid range (start, stop, step) = ({begin:g}, {end:g}, {self.step:g}): with a "
                             f"positive 'step', 'start' must be less than 'stop'")
        if self.step < 0 and not begin > end:
            raise self.error(f"invalid range (start, stop, step) = ({begin:g}, {end:g}, {self.step:g}): with a "
                             f"negative 'step', 'start' must be greater than 'stop'")

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
        return range_values(begin, self.step, self.repeat, shape[0], torch_dtype(self.dtype), device)


@register("_linspace")
class Linspace(_Creator):
    """``num`` evenly spaced values from ``start`` to ``stop`` (included unless
    ``endpoint=False``)."""

    start = Attr(Float, required=True)
    stop = Attr(Float, required=True)
    num = Attr(Int, required=True)
    endpoint = Attr(Bool, default=True)

    def validate(self):
        if self.num < 0:
            raise self.error(f"argument 'num' (the number of values) must be 0 or more, got {self.num}")

    def output_shape(self):
        return (self.num,)

    def forward(self, is_train, inputs, aux):
        if self.num == 0:
            # MXNet 1.9.1: linspace(start, stop, 0) is an empty (0,) array, not an unknown shape
            return [self.create((0,), device_of(self.ctx))]
        return super().forward(is_train, inputs, aux)

    def create(self, shape, device):
        count = shape[0]
        divisor = (count - 1 if self.endpoint else count) or 1
        values = self.start + (self.stop - self.start) / divisor * torch.arange(count, dtype=torch.float64)
        return self.finish(values, device)


@register("_eye")
class Eye(_Creator):
    """``(N, M)`` matrix (``M`` 0 or less: ``N`` columns, as MXNet) with ones on diagonal ``k``
    (positive: above).  ``N`` must be 0 or more; ``N=0`` gives an empty matrix."""

    N = Attr(Int, required=True)
    M = Attr(Int, default=0)
    k = Attr(Int, default=0)

    def validate(self):
        if self.N < 0:
            raise self.error(f"argument 'N' (the number of rows) must be 0 or more, got {self.N}")

    def output_shape(self):
        return (self.N, self.M if self.M > 0 else self.N)

    def forward(self, is_train, inputs, aux):
        if self.N == 0:
            # MXNet 1.9.1: eye(0) is an empty (0, 0) array (eye(0, 3): (0, 3)), not an unknown shape
            return [self.create(self.output_shape(), device_of(self.ctx))]
        return super().forward(is_train, inputs, aux)

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

    lists_input_names = False

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
        values = range_values(self.start, self.step, self.repeat, product(shape), data.dtype, data.device)
        return [values.reshape(shape)]


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
        if data.dim() == 0:
            # a scalar has no axes to index: a (0,) array, as MXNet 1.9.1 (under np_shape)
            return [torch.zeros((0,), dtype=torch.int64, device=data.device)]
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
        if (rows and -self.k > rows) or (cols and self.k > cols):
            raise self.error(f"diagonal k={self.k} does not exist in the ({rows}, {cols}) planes of 'data' "
                             f"{tuple(data)} (MXNet: 'Diagonal does not exist')")
        size = max(min(rows, cols - self.k) if self.k >= 0 else min(rows + self.k, cols), 0)
        rest = tuple(d for i, d in enumerate(data) if i not in (a, b))
        return rest + (size,)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if data.dim() == 1:
            return [torch.diag_embed(data, offset=self.k)]
        self.output_shape(tuple(data.shape))
        a = normalize_axis(self, self.axis1, data.dim(), "axis1")
        b = normalize_axis(self, self.axis2, data.dim(), "axis2")
        return [torch.diagonal(data, offset=self.k, dim1=a, dim2=b)]
