"""Normalisation layers: InstanceNorm, LayerNorm, GroupNorm, L2Normalization, LRN.

All statistics use the biased (population) variance, as MXNet does.  float16
inputs are normalised in float32 and the result cast back.  The ``mean`` /
``std`` outputs of LayerNorm and GroupNorm (``output_mean_var=True``) carry
no gradient, as in MXNet.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from .registry import upcast_half, Attr, Operator, register, Int, Float, Bool, Choice, merge_shape
from .nn.batch_norm import BatchNorm

__all__ = []



def _moments(data, dims):
    """Mean and biased variance of ``data`` over ``dims`` (kept as size-1 axes)."""
    mean = data.mean(dim=dims, keepdim=True)
    variance = (data - mean).pow(2).mean(dim=dims, keepdim=True)
    return mean, variance


def _merge_parameters(op, in_shapes, names, shape):
    """Merge each parameter argument (gamma, beta) with ``shape``; errors name the argument."""
    merged = []
    for given, name in zip(in_shapes, names):
        merged.append(merge_shape(given, shape, f"Operator {op.name} argument '{name}'"))
    for value in merged:
        shape = merge_shape(shape, value, f"Operator {op.name} arguments {names}")
    return [shape if shape is not None else value for value in merged]


@register("InstanceNorm")
class InstanceNorm(Operator):
    """Normalise each (sample, channel) slice over its spatial axes:
    ``gamma[c] * (x - mean) / sqrt(var + eps) + beta[c]``.

    data ``(batch, channel, *spatial)`` with at least 3 dimensions; gamma and beta
    ``(channel,)``; ``eps`` default 1e-3.  Raises MXNetError for data of fewer than 3
    dimensions (MXNet failed at run time).
    """

    traceable = True

    eps = Attr(Float, default=1e-3)

    def arguments(self):
        return ["data", "gamma", "beta"]

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name} argument 'data'")
        channel = None
        if data is not None:
            if len(data) < 3:
                raise self.error(f"data must have at least 3 dimensions (batch, channel, spatial...), "
                                 f"got shape {tuple(data)}")
            channel = (data[1],)
        params = _merge_parameters(self, in_shapes[1:], ["gamma", "beta"], channel)
        return [data] + params, [data], []

    def forward(self, is_train, inputs, aux):
        data, gamma, beta = inputs
        compute = upcast_half(data)
        mean, variance = _moments(compute, list(range(2, data.dim())))
        view = [1, data.shape[1]] + [1] * (data.dim() - 2)
        output = (compute - mean) * torch.rsqrt(variance + self.eps) * gamma.reshape(view).to(compute.dtype) \
            + beta.reshape(view).to(compute.dtype)
        return [output.to(data.dtype)]


class _NormWithMeanStd(Operator):
    """LayerNorm and GroupNorm: inputs data, gamma and beta; outputs ``output``, ``mean`` and
    ``std``, the last two visible only with the ``output_mean_var`` attribute."""

    def arguments(self):
        return ["data", "gamma", "beta"]

    def outputs(self):
        return ["output", "mean", "std"]

    def num_visible_outputs(self):
        return 3 if self.output_mean_var else 1


@register("LayerNorm")
class LayerNorm(_NormWithMeanStd):
    """Normalise over one axis: ``gamma * (x - mean) / sqrt(var + eps) + beta``.

    data of any shape; ``axis`` (default -1) is the normalised axis, gamma and beta have
    shape ``(data.shape[axis],)``; ``eps`` default 1e-5.  With ``output_mean_var`` the
    outputs ``mean`` and ``std`` (= ``sqrt(var + eps)``) have data's shape with ``axis``
    reduced to 1; they pass no gradient back.
    """

    traceable = True

    axis = Attr(Int, default=-1)
    eps = Attr(Float, default=1e-5)
    output_mean_var = Attr(Bool, default=False)

    def _axis(self, ndim):
        axis = self.axis + ndim if self.axis < 0 else self.axis
        if not 0 <= axis < ndim:
            raise self.error(f"axis {self.axis} is out of range for data with {ndim} dimensions")
        return axis

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name} argument 'data'")
        channel = reduced = None
        if data is not None:
            axis = self._axis(len(data))
            channel = (data[axis],)
            reduced = tuple(1 if d == axis else size for d, size in enumerate(data))
        params = _merge_parameters(self, in_shapes[1:], ["gamma", "beta"], channel)
        return [data] + params, [data, reduced, reduced], []

    def forward(self, is_train, inputs, aux):
        data, gamma, beta = inputs
        axis = self._axis(data.dim())
        compute = upcast_half(data)
        mean, variance = _moments(compute, [axis])
        std = torch.sqrt(variance + self.eps)
        view = [1] * data.dim()
        view[axis] = data.shape[axis]
        output = (compute - mean) / std * gamma.reshape(view).to(compute.dtype) + beta.reshape(view).to(compute.dtype)
        return [output.to(data.dtype), mean.detach().to(data.dtype), std.detach().to(data.dtype)]


@register("GroupNorm")
class GroupNorm(_NormWithMeanStd):
    """Group normalisation (MXNet 1.x form): the channels of data ``(batch, C, ...)`` are
    split into ``num_groups`` groups of ``C / num_groups`` channels; each (sample, group)
    is normalised over its channels and spatial positions, then scaled and shifted with
    ``gamma[g]`` and ``beta[g]``.

    gamma and beta have shape ``(num_groups,)`` — one value per group, as in MXNet 1.9.1
    (not per channel).  ``eps`` default 1e-5.  With ``output_mean_var`` the outputs
    ``mean`` and ``std`` (= ``sqrt(var + eps)``) have shape ``(batch, num_groups)`` and
    pass no gradient back.  Raises MXNetError when C is not divisible by num_groups.
    """

    num_groups = Attr(Int, default=1)
    eps = Attr(Float, default=1e-5)
    output_mean_var = Attr(Bool, default=False)

    def validate(self):
        if self.num_groups < 1:
            raise self.error(f"num_groups must be positive, got {self.num_groups}")

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name} argument 'data'")
        statistics = None
        if data is not None:
            if len(data) < 2:
                raise self.error(f"data must have at least 2 dimensions (batch, channel, ...), got shape {tuple(data)}")
            if data[1] and data[1] % self.num_groups:
                raise self.error(f"the {data[1]} channels of data {tuple(data)} are not divisible by "
                                 f"num_groups={self.num_groups}")
            statistics = (data[0], self.num_groups)
        params = _merge_parameters(self, in_shapes[1:], ["gamma", "beta"], (self.num_groups,))
        return [data] + params, [data, statistics, statistics], []

    def forward(self, is_train, inputs, aux):
        data, gamma, beta = inputs
        batch = data.shape[0]
        compute = upcast_half(data)
        grouped = compute.reshape(batch, self.num_groups, -1)
        mean, variance = _moments(grouped, [2])
        std = torch.sqrt(variance + self.eps)
        output = (grouped - mean) / std * gamma.reshape(1, -1, 1).to(compute.dtype) \
            + beta.reshape(1, -1, 1).to(compute.dtype)
        return [output.reshape(data.shape).to(data.dtype), mean.reshape(batch, -1).detach().to(data.dtype),
                std.reshape(batch, -1).detach().to(data.dtype)]


@register("L2Normalization")
class L2Normalization(Operator):
    """Divide data by its L2 norm: ``x / sqrt(sum(x ** 2) + eps)`` (``eps`` default 1e-10).

    ``mode`` chooses the sum: 'instance' (default) over every axis but the first, 'channel'
    over axis 1 (one norm per sample and spatial position), 'spatial' over axes 2 and up
    (one norm per sample and channel).  'channel' and 'spatial' need data with at least 3
    dimensions.
    """

    traceable = True

    eps = Attr(Float, default=1e-10)
    mode = Attr(Choice("channel", "instance", "spatial"), default="instance")

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name} argument 'data'")
        if data is not None and self.mode != "instance" and len(data) < 3:
            raise self.error(f"mode={self.mode!r} needs data with at least 3 dimensions, got shape {tuple(data)}")
        return [data], [data], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        compute = upcast_half(data)
        if self.mode == "instance":
            dims = list(range(1, data.dim()))
        elif self.mode == "channel":
            dims = [1]
        else:
            dims = list(range(2, data.dim()))
        squares = compute * compute
        total = squares.sum(dim=dims, keepdim=True) if dims else squares
        return [(compute * torch.rsqrt(total + self.eps)).to(data.dtype)]


@register("LRN")
class LRN(Operator):
    """Local response normalisation across channels of data ``(batch, channel, ...)``:
    ``x / (knorm + alpha / nsize * sum(x ** 2 over nsize neighbouring channels)) ** beta``.

    ``nsize`` (required, odd; MXNetError otherwise) is the window of channels centred on each
    channel; defaults ``alpha=1e-4``, ``beta=0.75``, ``knorm=2``.
    """

    traceable = True

    alpha = Attr(Float, default=1e-4)
    beta = Attr(Float, default=0.75)
    knorm = Attr(Float, default=2.0)
    nsize = Attr(Int, required=True)

    def validate(self):
        if self.nsize < 1 or self.nsize % 2 == 0:
            raise self.error(f"nsize must be a positive odd number (MXNet's LRN supports only odd windows), "
                             f"got {self.nsize}")

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name} argument 'data'")
        if data is not None and len(data) < 3:
            raise self.error(f"data must have at least 3 dimensions (batch, channel, ...), got shape {tuple(data)}")
        return [data], [data], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        compute = upcast_half(data)
        output = F.local_response_norm(compute, self.nsize, alpha=self.alpha, beta=self.beta, k=self.knorm)
        return [output.to(data.dtype)]


@register("_contrib_BatchNormWithReLU")
class BatchNormWithReLU(BatchNorm):
    """``relu(BatchNorm(data))``: BatchNorm with the same attributes, inputs, moving statistics
    and outputs, its normalised output passed through relu (MXNet's
    ``contrib.BatchNormWithReLU``, which MXNet 1.9.1 ran with its oneDNN backend only).  The
    gradient is that of the composition."""

    def forward(self, is_train, inputs, aux):
        outputs = list(super().forward(is_train, inputs, aux))
        outputs[0] = torch.relu(outputs[0])
        return outputs
