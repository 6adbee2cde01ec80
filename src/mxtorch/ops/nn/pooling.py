"""``Pooling``: max / avg / sum / lp pooling over 1-3 spatial dimensions."""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from ..geometry import _check_geometry, _spatial
from ..memory_format import ChannelsLastKernels
from ..registry import Attr, Operator, register, Int, Bool, Shape, Choice, optional, merge_shape, product
from ...recording import differentiate

__all__ = []


@register("Pooling", "Pooling_v1")
class Pooling(ChannelsLastKernels, Operator):
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
    def _channels_last_layout(self):
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
        if self._channels_last_layout:
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
        if self._channels_last_layout:
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
            if self._channels_last_layout:
                surrogate = self._pool(data.movedim(-1, 1), mxnet_gradient=True).movedim(1, -1)
            else:
                surrogate = self._pool(data, mxnet_gradient=True)
            return [differentiate([surrogate], [data], [out_grads[0]])[0]]

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
            if self.wants_channels_last(padded):
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
