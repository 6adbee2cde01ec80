"""Neural-network layers: FullyConnected, Convolution, Pooling, Activation, BatchNorm, Dropout."""
from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F

from ..base import MXNetError

from .registry import (Attr, Operator, register, Int, Float, Bool, Str, Shape, Choice, Dtype, optional,
                       known, merge_shape, product)

__all__ = []

# 2-D float32 CPU convolutions run on channels-last memory (see Convolution.forward)
_CHANNELS_LAST = True


def _check_geometry(op, **values):
    """Kernel, stride and dilation entries must be positive, padding non-negative."""
    for name, entries in values.items():
        smallest = 0 if name == "pad" else 1
        if any(entry < smallest for entry in entries):
            raise op.error(f"attribute {name!r} must have entries >= {smallest}, got {tuple(entries)}")


def _spatial(values, ndim, default, name, op):
    """Expand an MXNet spatial tuple attribute (empty means ``default`` in every dimension)."""
    if not values:
        return (default,) * ndim
    if len(values) != ndim:
        raise op.error(f"attribute {name!r} has {len(values)} values, the kernel has {ndim} dimensions")
    return tuple(values)


def _expand_conv_geometry(op):
    """Set ``op.stride_``, ``op.dilate_`` (default 1) and ``op.pad_`` (default 0): the
    convolution attributes expanded to one entry per kernel dimension."""
    ndim = len(op.kernel)
    op.stride_ = _spatial(op.stride, ndim, 1, "stride", op)
    op.dilate_ = _spatial(op.dilate, ndim, 1, "dilate", op)
    op.pad_ = _spatial(op.pad, ndim, 0, "pad", op)


def _conv_output_size(op, spatial):
    """Output spatial size of a convolution over input sizes ``spatial``:
    ``floor((x + 2 * pad - dilate * (kernel - 1) - 1) / stride) + 1`` per dimension from
    ``op.kernel``, ``op.stride_``, ``op.dilate_`` and ``op.pad_`` (an unknown size 0 stays 0);
    raises ``op.error`` when the dilated kernel is larger than the padded input."""
    sizes = []
    for x, k, s, d, p in zip(spatial, op.kernel, op.stride_, op.dilate_, op.pad_):
        if not x:
            sizes.append(0)
            continue
        size = (x + 2 * p - d * (k - 1) - 1) // s + 1
        if size <= 0:
            raise op.error(f"kernel {op.kernel} (dilate {op.dilate_}, pad {op.pad_}) is larger than the padded "
                           f"input {tuple(spatial)}")
        sizes.append(size)
    return tuple(sizes)


@register("FullyConnected")
class FullyConnected(Operator):
    """``output = data @ weight.T + bias``.

    data ``(batch, ...)`` is flattened to ``(batch, prod(rest))`` when ``flatten``
    (default), else the last axis is transformed; weight ``(num_hidden, input_dim)``,
    bias ``(num_hidden,)``.
    """

    quantized_name = "_contrib_quantized_fully_connected"

    sparse_storage = "dense"

    def plot_label(self, op_name, node_name):
        return f"{op_name}\n{self.num_hidden}", "weighted"

    def summary_parameters(self, input_channels, output_shape):
        return (input_channels + (0 if self.no_bias else 1)) * self.num_hidden

    traceable = True

    def dense_units(self):
        return self.num_hidden

    def channel_linear_rank(self):
        return 2 if self.flatten else None

    def with_bias(self):
        return type(self)({**self.attrs, "no_bias": "False"})

    def pointwise_fusion(self):
        return ("inner_product", {}) if self.flatten else None

    num_hidden = Attr(Int, required=True)
    no_bias = Attr(Bool, default=False)
    flatten = Attr(Bool, default=True)

    def validate(self):
        if self.num_hidden < 1:
            raise self.error(f"num_hidden must be positive, got {self.num_hidden}")

    def arguments(self):
        return ["data", "weight"] + ([] if self.no_bias else ["bias"])

    def infer_shape(self, in_shapes, out_shapes):
        data, weight, out = in_shapes[0], in_shapes[1], out_shapes[0]
        where = f"Operator {self.name}"
        if data is not None and len(data) > 0:
            if self.flatten:
                rows = product(data[1:]) if all(data[1:]) else 0
                out = merge_shape(out, (data[0], self.num_hidden), f"{where} output")
            else:
                rows = data[-1]
                out = merge_shape(out, tuple(data[:-1]) + (self.num_hidden,), f"{where} output")
            weight = merge_shape(weight, (self.num_hidden, rows), f"{where} argument 'weight'")
        # (as in MXNet, nothing is inferred for the weight while the data shape is unknown)
        # backward inference: the batch size from the output, the row size from the weight
        weight_rows = weight[1] if weight is not None and len(weight) == 2 else 0
        if out is not None and self.flatten:
            if data is None and weight_rows:
                data = (out[0], weight_rows)
            elif data is not None and len(data) >= 1:
                if data[0] == 0:
                    data = (out[0],) + tuple(data[1:])
                if len(data) == 2 and data[1] == 0 and weight_rows:
                    data = (data[0], weight_rows)
        shapes = [data, weight]
        if not self.no_bias:
            bias = in_shapes[2]
            if data is not None:
                bias = merge_shape(bias, (self.num_hidden,), f"{where} argument 'bias'")
            shapes.append(bias)
        return shapes, [out], []

    def forward(self, is_train, inputs, aux):
        data, weight = inputs[0], inputs[1]
        bias = None if self.no_bias else inputs[2]
        if self.flatten:
            data = data.reshape(data.shape[0], -1)
        return [F.linear(data, weight, bias)]


class _ConvolutionBase(Operator):
    kernel = Attr(Shape, required=True)
    stride = Attr(Shape, default=())
    dilate = Attr(Shape, default=())
    pad = Attr(Shape, default=())
    num_filter = Attr(Int, required=True)
    num_group = Attr(Int, default=1)
    workspace = Attr(Int, default=1024)
    no_bias = Attr(Bool, default=False)
    cudnn_tune = Attr(optional(Choice("off", "limited_workspace", "fastest")), default=None)
    cudnn_off = Attr(Bool, default=False)
    layout = Attr(optional(Choice("NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC")), default=None)

    def validate(self):
        if len(self.kernel) not in (1, 2, 3):
            raise self.error(f"kernel must have 1, 2 or 3 dimensions, got {self.kernel}")
        _expand_conv_geometry(self)
        _check_geometry(self, kernel=self.kernel, stride=self.stride_, dilate=self.dilate_, pad=self.pad_)
        if self.num_filter < 1:
            raise self.error(f"num_filter must be positive, got {self.num_filter}")
        if self.layout is not None and self.layout[1] != "C":
            raise self.error(f"layout {self.layout} is not supported; use channel-first layouts")
        if self.num_group < 1 or self.num_filter % self.num_group:
            raise self.error(f"num_filter={self.num_filter} must be divisible by num_group={self.num_group}")

    def arguments(self):
        return ["data", "weight"] + ([] if self.no_bias else ["bias"])

    traceable = True
    is_convolution = True
    # weight (num_filter, channels / num_group, *kernel): output channels first (Gluon's Conv layers ask)
    transposed_weight = False


@register("Convolution", "Convolution_v1")
class Convolution(_ConvolutionBase):

    quantized_name = "_contrib_quantized_conv"
    distinct_names = ("Convolution_v1",)
    """N-D convolution: data ``(batch, channel, *spatial)``, weight
    ``(num_filter, channel / num_group, *kernel)``, bias ``(num_filter,)``; output spatial
    size ``floor((x + 2 * pad - dilate * (kernel - 1) - 1) / stride) + 1``.
    """

    def plot_label(self, op_name, node_name):
        stride = "x".join(self.attr_digits("stride")) if "stride" in self.attrs else "1"
        return f"{op_name}\n{'x'.join(self.attr_digits('kernel'))}/{stride}, {self.num_filter}", "weighted"

    def summary_parameters(self, input_channels, output_shape):
        count = input_channels * self.num_filter // self.num_group
        for size in self.kernel:
            count *= size
        return count + (0 if self.no_bias else self.num_filter)

    def channel_linear_rank(self):
        return len(self.kernel) + 2     # layouts are channel-first (validate)

    def with_bias(self):
        return type(self)({**self.attrs, "no_bias": "False"})

    def pointwise_fusion(self):
        if len(self.kernel) != 2:
            return None
        return ("convolution2d", {"padding": list(self.pad_), "stride": list(self.stride_),
                                  "dilation": list(self.dilate_), "groups": self.num_group})

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        ndim = len(self.kernel)
        out = out_shapes[0]
        weight = in_shapes[1]
        if out is not None and len(out) == ndim + 2:
            # batch from the output; a spatial size too where the stride is 1 (as MXNet infers it)
            spatial = tuple(size + self.dilate_[i] * (self.kernel[i] - 1) - 2 * self.pad_[i]
                            if size and self.stride_[i] == 1 else 0 for i, size in enumerate(out[2:]))
            data = merge_shape(data, (out[0], 0) + spatial, f"Operator {self.name} argument 'data'")
        if data is not None:
            if len(data) != ndim + 2:
                raise self.error(f"data must have {ndim + 2} dimensions for a {ndim}-D kernel, got shape {tuple(data)}")
            channels = data[1]
            if channels and channels % self.num_group:
                raise self.error(f"input channels {channels} not divisible by num_group={self.num_group}")
            weight = merge_shape(weight, (self.num_filter, channels // self.num_group if channels else 0) + self.kernel,
                                 f"Operator {self.name} argument 'weight'")
            spatial = _conv_output_size(self, data[2:])
            out = merge_shape(out, (data[0], self.num_filter) + spatial, f"Operator {self.name} output")
        else:
            weight = merge_shape(weight, (self.num_filter, 0) + self.kernel, f"Operator {self.name} argument 'weight'")
        shapes = [data, weight]
        if not self.no_bias:
            shapes.append(merge_shape(in_shapes[2], (self.num_filter,), f"Operator {self.name} argument 'bias'"))
        return shapes, [out], []

    def forward(self, is_train, inputs, aux):
        data, weight = inputs[0], inputs[1]
        bias = None if self.no_bias else inputs[2]
        function = (F.conv1d, F.conv2d, F.conv3d)[len(self.kernel) - 1]
        if _CHANNELS_LAST and data.dim() == 4 and data.device.type == "cpu" and data.dtype == torch.float32:
            # oneDNN's CPU convolutions run much faster on channels-last (NHWC) memory; the
            # logical layout (and every shape) stays NCHW, and later layers keep the format
            data = data.contiguous(memory_format=torch.channels_last)
            weight = weight.contiguous(memory_format=torch.channels_last)
        return [function(data, weight, bias, self.stride_, self.pad_, self.dilate_, self.num_group)]


@register("Pooling", "Pooling_v1")
class Pooling(Operator):
    """Max/avg/sum/lp pooling over 1-3 spatial dimensions of ``(batch, channel, *spatial)``.

    ``pooling_convention`` 'valid' floors the output size, 'full' takes the ceiling
    (``ceil((x + 2 * pad - kernel) / stride) + 1``), 'same' gives ``ceil(x / stride)``.
    ``count_include_pad`` (default True) makes avg divide by the whole window including
    padding; windows running past the padded input (full) are never counted.  MXNet's
    avg + 'full' data gradient is not always the gradient of its forward: it mirrors
    MXNet's oneDNN backward (see ``_onednn_full_average_backward``).  ``layout`` NWC / NHWC /
    NDHWC takes and gives ``(batch, *spatial, channel)``; a layout whose rank differs from the
    data's raises MXNetError.
    """

    traceable = True
    quantized_name = "_contrib_quantized_pooling"

    def plot_label(self, op_name, node_name):
        kernel = "x".join(self.attr_digits("kernel")) if "kernel" in self.attrs else "[]"
        stride = "x".join(self.attr_digits("stride")) if "stride" in self.attrs else "1"
        return f"{op_name}\n{self.pool_type}, {kernel}/{stride}", "pooling"

    distinct_names = ("Pooling_v1",)

    kernel = Attr(Shape, default=())
    pool_type = Attr(Choice("max", "avg", "sum", "lp"), default="max")
    global_pool = Attr(Bool, default=False)
    cudnn_off = Attr(Bool, default=False)
    pooling_convention = Attr(Choice("valid", "full", "same"), default="valid")
    stride = Attr(Shape, default=())
    pad = Attr(Shape, default=())
    p_value = Attr(optional(Int), default=None)
    count_include_pad = Attr(optional(Bool), default=None)
    layout = Attr(optional(Choice("NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC")), default=None)

    def validate(self):
        if not self.global_pool and not self.kernel:
            raise self.error("attribute 'kernel' is required unless global_pool=True")
        if not self.global_pool:
            _check_geometry(self, kernel=self.kernel, stride=self.stride, pad=self.pad)
        if self.pooling_convention == "same" and any(self.pad):
            raise self.error(f"pooling_convention='same' does not take padding, got pad={tuple(self.pad)} "
                             f"(MXNet: 'Same pooling convention disables the use of pad parameter')")
        if self.layout is not None and len(self.kernel) and len(self.layout) != len(self.kernel) + 2:
            raise self.error(f"layout {self.layout} does not match the {len(self.kernel)}-D kernel {self.kernel}")

    @property
    def _channels_last(self):
        """NWC / NHWC / NDHWC: data (batch, spatial..., channel); pooled on the channel-first
        view (the same values, MXNet's layouts)."""
        return self.layout is not None and self.layout[-1] == "C"

    def outputs(self):
        # MXNet 1.9.1 (oneDNN build) gives windowed max pooling a hidden workspace output;
        # it shows in -symbol.json's node_row_ptr
        if self.pool_type == "max" and not self.global_pool:
            return ["output", "workspace"]
        return ["output"]

    def num_visible_outputs(self):
        return 1

    def _geometry(self, spatial_shape):
        ndim = len(spatial_shape)
        if self.global_pool:
            return tuple(spatial_shape), (1,) * ndim, (0,) * ndim
        if len(self.kernel) != ndim:
            raise self.error(f"kernel {self.kernel} has {len(self.kernel)} dimensions, data has {ndim} spatial dimensions")
        # 'same' takes no padding: an all-zero pad of any length is accepted, as MXNet did
        pad = (0,) * ndim if self.pooling_convention == "same" else _spatial(self.pad, ndim, 0, "pad", self)
        return (self.kernel, _spatial(self.stride, ndim, 1, "stride", self), pad)

    def _output_size(self, x, k, s, p):
        if self.global_pool:
            return 1
        if self.pooling_convention == "valid":
            return (x + 2 * p - k) // s + 1
        if self.pooling_convention == "full":
            return int(math.ceil((x + 2 * p - k) / s)) + 1
        return int(math.ceil(x / s))

    def infer_shape(self, in_shapes, out_shapes):
        if self._channels_last:
            def first(shape):
                return None if shape is None else (shape[0], shape[-1]) + tuple(shape[1:-1])

            def last(shape):
                return None if shape is None else (shape[0],) + tuple(shape[2:]) + (shape[1],)
            data, out = self._infer_channel_first(first(in_shapes[0]), first(out_shapes[0]))
            return [last(data)], [last(out)], []
        data, out = self._infer_channel_first(in_shapes[0], out_shapes[0])
        return [data], [out], []

    def _infer_channel_first(self, data, out):
        if data is not None:
            if self.layout is not None and len(data) != len(self.layout):
                raise self.error(f"data of shape {tuple(data)} does not match layout {self.layout}")
            if len(data) < 3 or len(data) > 5:
                raise self.error(f"data must be 3-D, 4-D or 5-D (batch, channel, spatial...), got shape {tuple(data)}")
            kernel, stride, pad = self._geometry(data[2:])
            spatial = []
            for x, k, s, p in zip(data[2:], kernel, stride, pad):
                if not x:
                    spatial.append(0)
                    continue
                size = self._output_size(x, k, s, p)
                if size <= 0:
                    raise self.error(f"kernel {tuple(kernel)} is larger than the padded input {tuple(data[2:])}")
                spatial.append(size)
            out = merge_shape(out, tuple(data[:2]) + tuple(spatial), f"Operator {self.name} output")
        return data, out

    def forward(self, is_train, inputs, aux):
        if self._channels_last:
            return [self._pool(inputs[0].movedim(-1, 1)).movedim(1, -1)]
        return [self._pool(inputs[0])]

    def declares_backward(self, inputs):
        return (self.pool_type == "avg" and self.pooling_convention == "full" and not self.global_pool
                and inputs[0].dtype == torch.float32)

    def backward(self, out_grads, inputs, outputs, aux):
        """avg + 'full': the gradient of the function MXNet's backward differentiates
        (``_pool(..., mxnet_gradient=True)``), found by autograd."""
        with torch.enable_grad():
            data = inputs[0].detach().requires_grad_(True)
            if self._channels_last:
                surrogate = self._pool(data.movedim(-1, 1), mxnet_gradient=True).movedim(1, -1)
            else:
                surrogate = self._pool(data, mxnet_gradient=True)
            return [torch.autograd.grad(surrogate, data, out_grads[0])[0]]

    def _pool(self, data, mxnet_gradient=False):
        """The pooled output; with ``mxnet_gradient`` the function whose gradient MXNet 1.9.1
        gives for it (they differ only for avg + 'full', see ``_onednn_full_average_backward``)."""
        spatial = tuple(data.shape[2:])
        ndim = len(spatial)
        kernel, stride, pad = self._geometry(spatial)
        outputs = [self._output_size(x, k, s, p) for x, k, s, p in zip(spatial, kernel, stride, pad)]
        if self.pooling_convention == "same" and not self.global_pool:
            before = []
            after = []
            for x, k, s, o in zip(spatial, kernel, stride, outputs):
                total = max((o - 1) * s + k - x, 0)
                before.append(total // 2)
                after.append(total - total // 2)
        else:
            before = list(pad)
            after = [max((o - 1) * s + k - x - p, 0) for x, k, s, p, o in zip(spatial, kernel, stride, pad, outputs)]
        padding = []
        for b, a in zip(reversed(before), reversed(after)):
            padding.extend([b, a])
        needs_pad = any(padding)
        max_pool = (F.max_pool1d, F.max_pool2d, F.max_pool3d)[ndim - 1]
        avg_pool = (F.avg_pool1d, F.avg_pool2d, F.avg_pool3d)[ndim - 1]
        if self.pool_type == "max":
            padded = F.pad(data, padding, value=-math.inf) if needs_pad else data
            if _CHANNELS_LAST and padded.dim() == 4 and padded.device.type == "cpu" \
                    and padded.dtype == torch.float32:
                # torch's CPU max pooling is several times faster on channels-last memory
                padded = padded.contiguous(memory_format=torch.channels_last)
            return max_pool(padded, kernel, stride)
        window = product(kernel)
        if self.pool_type == "lp":
            power = self.p_value or 2
            source = data.abs().pow(power) if power % 2 else data.pow(power)
        else:
            source = data
        padded = F.pad(source, padding) if needs_pad else source
        total = avg_pool(padded, kernel, stride) * window
        if self.pool_type == "sum":
            return total
        if self.pool_type == "lp":
            return total.pow(1.0 / (self.p_value or 2))
        include_pad = True if self.count_include_pad is None else self.count_include_pad
        if not needs_pad:
            return total / window
        ones = torch.ones((1, 1) + spatial, dtype=data.dtype, device=data.device)
        if include_pad:
            counted = F.pad(ones, [v for b, a in zip(reversed(before), reversed(pad)) for v in (b, a)], value=1.0)
            padding_rest = [v for a, p in zip(reversed(after), reversed(pad)) for v in (0, max(a - p, 0))]
            counted = F.pad(counted, padding_rest, value=0.0)
        else:
            counted = F.pad(ones, padding, value=0.0)
        count = avg_pool(counted, kernel, stride) * window
        output = total / count.clamp(min=1)
        if mxnet_gradient and include_pad and self._onednn_full_average_backward(data, outputs, kernel, stride, pad):
            # the gradient divides every window by the whole kernel size (see the docstring)
            return total / window
        return output

    def _onednn_full_average_backward(self, data, outputs, kernel, stride, pad):
        """Whether MXNet 1.9.1 (CPU build) computes this layer's data gradient with oneDNN.

        With ``pooling_convention='full'``, avg pooling and ``count_include_pad``, MXNet's
        forward divides a window that runs past the padded input by the number of positions
        inside it, but its backward runs oneDNN's include-padding average whenever the
        *output* shape passes oneDNN's symmetric-padding test
        (``(out + 2 * pad - kernel) % stride == 0`` in every dimension, float32 data):
        that gradient divides every window by the whole kernel size.  mxtorch reproduces
        both (the recorded fixtures Pooling_003 and Pooling_011 show it).
        """
        if self.pooling_convention != "full" or self.global_pool or data.dtype != torch.float32:
            return False
        return all((o + 2 * p - k) % s == 0 for o, k, s, p in zip(outputs, kernel, stride, pad))


_ACTIVATIONS = {
    "relu": torch.relu,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "softrelu": F.softplus,
    "softsign": F.softsign,
}


@register("Activation")
class Activation(Operator):
    """Elementwise activation ``act_type``: relu, sigmoid, tanh, softrelu (log(1 + e^x)),
    softsign (x / (1 + |x|)), the five MXNet 1.9.1 has.  Any shape."""

    lists_input_names = False

    quantized_name = "_contrib_quantized_act"

    def plot_label(self, op_name, node_name):
        return f"{op_name}\n{self.act_type}", "activation"

    act_type = Attr(Choice(*_ACTIVATIONS), required=True)
    traceable = True

    def activation_kind(self):
        return self.act_type

    def quantized_operator(self):
        return self.quantized_name if self.act_type == "relu" else None   # MXNet's int8 relu only

    def forward(self, is_train, inputs, aux):
        return [_ACTIVATIONS[self.act_type](inputs[0])]


@register("BatchNorm", "BatchNorm_v1", "_contrib_SyncBatchNorm")
class BatchNorm(Operator):
    distinct_names = ("BatchNorm_v1", "_contrib_SyncBatchNorm")
    """Batch normalisation over every axis except ``axis`` (default 1, channels).

    Arguments data, gamma ``(C,)``, beta ``(C,)``; aux states moving_mean and moving_var
    ``(C,)``.  Training uses the batch mean and biased variance and updates the moving
    statistics as ``momentum * old + (1 - momentum) * batch`` (in the forward pass; MXNet's
    CPU build did it in backward: same values after forward + backward).  ``fix_gamma``
    (default True) uses gamma = 1 and gives gamma a zero gradient.  ``use_global_stats``
    normalises with the moving statistics in training too.  ``output_mean_var`` adds the
    mean and the inverse standard deviation ``1 / sqrt(var + eps)`` as outputs.
    """

    def plot_label(self, op_name, node_name):
        return node_name, "normalization"

    def summary_parameters(self, input_channels, output_shape):
        """gamma and beta (needs the output shape)."""
        return 2 * int(output_shape[1]) if output_shape is not None and len(output_shape) > 1 else 0

    eps = Attr(Float, default=1e-3)
    momentum = Attr(Float, default=0.9)
    fix_gamma = Attr(Bool, default=True)
    use_global_stats = Attr(Bool, default=False)
    output_mean_var = Attr(Bool, default=False)
    traceable = True

    def channel_affine(self):
        return None if self.output_mean_var else (self.axis, self.eps, self.fix_gamma)
    axis = Attr(Int, default=1)
    cudnn_off = Attr(Bool, default=False)
    min_calib_range = Attr(optional(Float), default=None)
    max_calib_range = Attr(optional(Float), default=None)
    act_type = Attr(optional(Str), default=None)
    ndev = Attr(Int, default=1)
    key = Attr(Str, default="")

    def arguments(self):
        return ["data", "gamma", "beta"]

    def auxiliary_states(self):
        return ["moving_mean", "moving_var"]

    def input_variable_attrs(self, input_name):
        """MXNet marks the moving statistics' variables with their initializers."""
        return {"moving_mean": {"__init__": '["zero", {}]'},
                "moving_var": {"__init__": '["one", {}]'}}.get(input_name, {})

    def outputs(self):
        return ["output", "mean", "var"]

    def num_visible_outputs(self):
        return 3 if self.output_mean_var else 1

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name} argument 'data'")
        channel = None
        if data is not None:
            axis = self.axis % len(data) if data else 0
            if not data or axis >= len(data):
                raise self.error(f"axis {self.axis} is out of range for data of shape {tuple(data)}")
            channel = (data[axis],)
        names = ["gamma", "beta"]
        params = [merge_shape(s, channel, f"Operator {self.name} argument '{n}'") for s, n in zip(in_shapes[1:], names)]
        for p in params:
            channel = merge_shape(channel, p, f"Operator {self.name}")
        return [data] + [channel, channel], [data, channel, channel], [channel, channel]

    def infer_type(self, in_types):
        dtype = in_types[0]
        import numpy as np
        param = np.dtype(np.float32) if dtype is not None and np.dtype(dtype) == np.float16 else dtype
        return [dtype, param, param], [dtype, param, param], [param, param]

    def forward(self, is_train, inputs, aux):
        data, gamma, beta = inputs
        moving_mean, moving_var = aux
        axis = self.axis % data.dim()
        reduce_axes = [d for d in range(data.dim()) if d != axis]
        view = [1] * data.dim()
        view[axis] = data.shape[axis]
        if self.fix_gamma:
            if is_train:
                # MXNet's training pass writes 1 into a fixed gamma (saved checkpoints show it)
                with torch.no_grad():
                    gamma.detach().fill_(1.0)
            gamma = torch.ones_like(gamma)
        if axis == 1 and data.dtype in (torch.float32, torch.float64) and data.dim() >= 2 \
                and gamma.dtype == data.dtype and moving_mean.dtype == data.dtype:
            return self._fused(is_train, data, gamma, beta, moving_mean, moving_var)
        compute = data.float() if data.dtype == torch.float16 else data
        if is_train and not self.use_global_stats:
            mean = compute.mean(dim=reduce_axes)
            var = compute.var(dim=reduce_axes, unbiased=False)
            with torch.no_grad():
                moving_mean.mul_(self.momentum).add_(mean.detach().to(moving_mean.dtype), alpha=1 - self.momentum)
                moving_var.mul_(self.momentum).add_(var.detach().to(moving_var.dtype), alpha=1 - self.momentum)
        else:
            mean = moving_mean
            var = moving_var
        inverse_std = torch.rsqrt(var + self.eps)
        scale = (gamma * inverse_std).reshape(view)
        shift = (beta - mean * gamma * inverse_std).reshape(view)
        output = (compute * scale + shift).to(data.dtype)
        # MXNet passes no gradient back through the mean / inverse-std outputs
        return [output, mean.detach(), inverse_std.detach()]

    def _fused(self, is_train, data, gamma, beta, moving_mean, moving_var):
        """Channel-axis float32/float64 case on torch's fused batch-norm kernels."""
        if is_train and not self.use_global_stats:
            output, mean, inverse_std = torch.native_batch_norm(data, gamma, beta, None, None, True, 0.0, self.eps)
            with torch.no_grad():
                # the kernel returns 1 / sqrt(var + eps); MXNet's moving variance is the biased one
                variance = inverse_std.detach().pow(-2) - self.eps
                moving_mean.mul_(self.momentum).add_(mean.detach(), alpha=1 - self.momentum)
                moving_var.mul_(self.momentum).add_(variance, alpha=1 - self.momentum)
            return [output, mean.detach(), inverse_std.detach()]
        output = torch.nn.functional.batch_norm(data, moving_mean, moving_var, gamma, beta, False, 0.0, self.eps)
        return [output, moving_mean.detach(), torch.rsqrt(moving_var + self.eps).detach()]


@register("Dropout")
class Dropout(Operator):
    """Randomly zeroes elements with probability ``p`` in training and scales the rest by
    ``1 / (1 - p)``; identity in inference unless ``mode='always'``.  With ``p=1`` the
    training output and its gradient are NaN, as in MXNet 1.9.1 (its mask is ``0 * inf``).  ``axes`` shares one
    mask value along the listed axes (variational dropout).  Uses torch's RNG
    (``mx.random.seed``)."""

    p = Attr(Float, default=0.5)
    mode = Attr(Choice("training", "always"), default="training")
    axes = Attr(Shape, default=())
    cudnn_off = Attr(optional(Bool), default=False)

    @property
    def traceable(self):
        """The identity at inference, unless ``mode='always'`` (random then)."""
        return self.mode != "always"

    def validate(self):
        if not 0 <= self.p <= 1:
            raise self.error(f"p must be in [0, 1], got {self.p}")

    def outputs(self):
        return ["output", "mask"]

    def num_visible_outputs(self):
        return 1

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name}")
        return [data], [data, data], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        active = (is_train or self.mode == "always") and self.p > 0
        if not active:
            return [data, torch.ones_like(data)]
        mask_shape = list(data.shape)
        for axis in self.axes:
            mask_shape[axis] = 1
        keep = 1.0 - self.p
        # p = 1: MXNet's mask is 0 * (1 / 0), so output and gradient are NaN (its own tests
        # check this)
        scale = 1.0 / keep if keep else float("inf")
        mask = torch.empty(mask_shape, dtype=data.dtype, device=data.device).bernoulli_(keep) * scale
        return [data * mask, mask.expand_as(data)]


# -- LeakyReLU family, Embedding, SoftmaxActivation ------------------------------------------------
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@register("LeakyReLU")
class LeakyReLU(Operator):
    """Parametrised rectifiers, selected by ``act_type``; data of any shape.

    - 'leaky' (default): ``x`` for ``x > 0``, else ``slope * x`` (``slope`` default 0.25);
    - 'prelu': like leaky with a learned slope ``gamma`` (an extra argument) of shape
      ``(C,)`` applied along axis 1 of data ``(batch, C, ...)``; a ``(1,)`` gamma is shared;
      a gamma of several axes covers the leading axes of data (``(batch, C)`` for
      ``(batch, C, H, W)`` data), as MXNet 1.9.1.
      Its gamma gradient is always the true derivative ``sum(head * x * (x <= 0))``; MXNet
      1.9.1's graph executor multiplied it by gamma whenever the layer's input was another
      operator's output (a deliberate difference);
    - 'elu': ``x`` for ``x > 0``, else ``slope * (exp(x) - 1)``;
    - 'selu': ``scale * elu_alpha(x)`` with the fixed constants alpha = 1.6732632...,
      scale = 1.0507009...; its gradient for ``x <= 0`` is MXNet's ``scale * (output + alpha)``
      (not the exact ``scale * alpha * exp(x)``);
    - 'gelu': ``0.5 * x * (1 + erf(x / sqrt(2)))`` (the exact, erf form);
    - 'rrelu': in training a slope drawn uniformly from ``[lower_bound, upper_bound]`` for
      each element (torch's RNG, ``mx.random.seed``); in inference the mean slope
      ``(lower_bound + upper_bound) / 2``.  rrelu has a second output ``mask`` holding the
      slopes used (MXNet left it uninitialised in inference; mxtorch fills in the mean).
    """

    traceable = True

    def plot_label(self, op_name, node_name):
        return f"{op_name}\n{self.attrs.get('act_type', 'Leaky')}", "activation"

    act_type = Attr(Choice("elu", "gelu", "leaky", "prelu", "rrelu", "selu"), default="leaky")
    slope = Attr(Float, default=0.25)
    lower_bound = Attr(Float, default=0.125)
    upper_bound = Attr(Float, default=0.334)

    def validate(self):
        if self.act_type == "rrelu" and self.lower_bound > self.upper_bound:
            raise self.error(f"lower_bound={self.lower_bound} must not exceed upper_bound={self.upper_bound}")

    def arguments(self):
        return ["data", "gamma"] if self.act_type == "prelu" else ["data"]

    def input_variable_attrs(self, input_name):
        """MXNet initialises a prelu gamma variable to 0.25 (``__init__`` attribute)."""
        if input_name == "gamma":
            return {"__init__": '["Constant", {"value": 0.25}]'}
        return {}

    def outputs(self):
        return ["output", "mask"] if self.act_type == "rrelu" else ["output"]

    def infer_shape(self, in_shapes, out_shapes):
        where = f"Operator {self.name}"
        data = in_shapes[0]
        for out in out_shapes:
            data = merge_shape(data, out, f"{where} argument 'data'")
        shapes = [data]
        if self.act_type == "prelu":
            gamma = in_shapes[1]
            if data is not None:
                if len(data) < 2:
                    raise self.error(f"prelu needs data with a channel axis (at least 2 dimensions), "
                                     f"got shape {tuple(data)}")
                if gamma is not None and len(gamma) > 1:
                    # a gamma of several axes covers the leading axes of data (MXNet 1.9.1)
                    gamma = merge_shape(gamma, tuple(data[:len(gamma)]), f"{where} argument 'gamma'")
                elif gamma is None or tuple(gamma) != (1,):
                    gamma = merge_shape(gamma, (data[1],), f"{where} argument 'gamma'")
            shapes.append(gamma)
        return shapes, [data] * len(out_shapes), []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        kind = self.act_type
        if kind == "leaky":
            return [F.leaky_relu(data, self.slope)]
        if kind == "prelu":
            gamma = inputs[1]
            if gamma.dim() > 1:
                view = list(gamma.shape) + [1] * (data.dim() - gamma.dim())
            else:
                view = [1] * data.dim()
                view[1] = gamma.shape[0]
            return [torch.where(data > 0, data, data * gamma.reshape(view))]
        if kind == "elu":
            return [torch.where(data > 0, data, torch.expm1(torch.clamp(data, max=0)) * self.slope)]
        if kind == "selu":
            return [F.selu(data)]
        if kind == "gelu":
            return [F.gelu(data)]
        # rrelu
        if is_train:
            slopes = torch.empty_like(data).uniform_(self.lower_bound, self.upper_bound)
        else:
            slopes = torch.full_like(data, (self.lower_bound + self.upper_bound) / 2)
        return [torch.where(data > 0, data, data * slopes), slopes]

    def declares_backward(self, inputs):
        return self.act_type == "selu"

    def backward(self, out_grads, inputs, outputs, aux):
        """selu: MXNet 1.9.1's gradient for x <= 0 is ``scale * (output + alpha)``, not the exact
        ``scale * alpha * exp(x)``; the recorded gradients show it, so mxtorch mirrors it."""
        data, output = inputs[0], outputs[0]
        derivative = torch.where(data > 0, torch.full_like(data, _SELU_SCALE), _SELU_SCALE * (output + _SELU_ALPHA))
        return [out_grads[0] * derivative] + [None] * (len(inputs) - 1)


@register("Embedding")
class Embedding(Operator):
    """Row lookup: ``output[..., :] = weight[data[...], :]``.

    data: indices of any shape, stored as floats (or integers); they are truncated toward
    zero and clipped to ``[0, input_dim - 1]`` as in MXNet.  weight ``(input_dim,
    output_dim)`` of dtype ``dtype`` (default float32); output ``data.shape + (output_dim,)``.
    The weight gradient adds up the head gradients of repeated indices.  The data (index)
    argument has no gradient: a backward pass that asks for one raises MXNetError, as MXNet
    did.  ``sparse_grad`` is accepted; mxtorch always produces a dense weight gradient.
    """

    traceable = True
    quantized_name = "_contrib_quantized_embedding"
    quantized_inputs = ("weight",)

    sparse_storage = "dense"

    def summary_parameters(self, input_channels, output_shape):
        return self.input_dim * self.output_dim

    input_dim = Attr(Int, required=True)
    output_dim = Attr(Int, required=True)
    dtype = Attr(Dtype, default="float32")
    sparse_grad = Attr(Bool, default=False)

    def validate(self):
        if self.input_dim < 1 or self.output_dim < 1:
            raise self.error(f"input_dim and output_dim must be positive, got {self.input_dim}, {self.output_dim}")

    def arguments(self):
        return ["data", "weight"]

    def infer_shape(self, in_shapes, out_shapes):
        where = f"Operator {self.name}"
        data, weight, out = in_shapes[0], in_shapes[1], out_shapes[0]
        weight = merge_shape(weight, (self.input_dim, self.output_dim), f"{where} argument 'weight'")
        if data is not None:
            out = merge_shape(out, tuple(data) + (self.output_dim,), f"{where} output")
        if out is not None and len(out) >= 1:
            if out[-1] and out[-1] != self.output_dim:
                raise self.error(f"output last dimension {out[-1]} differs from output_dim={self.output_dim}")
            data = merge_shape(data, tuple(out[:-1]), f"{where} argument 'data'")
        return [data, weight], [out], []

    def infer_type(self, in_types):
        dtype = np.dtype(self.dtype or "float32")
        data = in_types[0] if in_types[0] is not None else np.dtype(np.float32)
        return [data, dtype], [dtype], []

    def forward(self, is_train, inputs, aux):
        data, weight = inputs
        index = data.detach()
        if index.is_floating_point():
            index = index.trunc()
        index = index.long().clamp(0, self.input_dim - 1)
        return [F.embedding(index, weight)]

    def declares_backward(self, inputs):
        return inputs[0].requires_grad

    def backward(self, out_grads, inputs, outputs, aux):
        raise MXNetError(f"Operator {self.name}: cannot compute the gradient of argument 'data' "
                         f"(integer indices); bind it with grad_req='null'")



@register("_contrib_SparseEmbedding")
class SparseEmbedding(Embedding):
    """MXNet's row-sparse-gradient embedding: the same lookup as ``Embedding`` (mxtorch's
    weight gradient is dense); ``deterministic`` is accepted (torch's result is always
    deterministic here)."""

    deterministic = Attr(Bool, default=False)

@register("SoftmaxActivation")
class SoftmaxActivation(Operator):
    """Softmax of data: over the last axis for ``mode='instance'`` (default; trailing axes of
    an N-D input are not flattened), over axis 1 for ``mode='channel'`` (data must have at
    least 3 dimensions, ``(batch, channel, ...)``).

    For instance mode on data of more than 2 dimensions MXNet 1.9.1's gradient is
    ``y * (g - sum(g * y, axis=1))`` (summing over axis 1, not over the softmax axis);
    mxtorch reproduces it.
    """

    lists_input_names = False

    traceable = True

    mode = Attr(Choice("instance", "channel"), default="instance")

    def infer_shape(self, in_shapes, out_shapes):
        shapes = super().infer_shape(in_shapes, out_shapes)
        data = shapes[0][0]
        if self.mode == "channel" and data is not None and len(data) < 3:
            raise self.error(f"mode='channel' needs data with at least 3 dimensions (batch, channel, ...), "
                             f"got shape {tuple(data)}")
        return shapes

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if self.mode == "channel":
            if data.dim() < 3:
                raise self.error(f"mode='channel' needs data with at least 3 dimensions, got shape {tuple(data.shape)}")
            return [torch.softmax(data, dim=1)]
        return [torch.softmax(data, dim=-1)]

    def declares_backward(self, inputs):
        return self.mode == "instance" and inputs[0].dim() > 2

    def backward(self, out_grads, inputs, outputs, aux):
        """MXNet 1.9.1's instance-mode gradient ``y * (g - sum(g * y, axis=1))``, which for data
        of more than 2 dimensions sums over axis 1 instead of the softmax axis."""
        output, grad = outputs[0], out_grads[0]
        return [output * (grad - (grad * output).sum(dim=1, keepdim=True))]
