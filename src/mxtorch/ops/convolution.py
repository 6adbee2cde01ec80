"""The convolutions: N-D ``Convolution``, transposed convolution ``Deconvolution`` (1-D, 2-D
and 3-D) and contrib ``DeformableConvolution`` / ``ModulatedDeformableConvolution``."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from ..base import MXNetError
from .geometry import _check_geometry, _conv_output_size, _expand_conv_geometry, _spatial
from .helpers import _check_inputs, _check_ndim, _compute_dtype, _where, capturing_graph
from .memory_format import ChannelsLastKernels, _is_vmapped
from .registry import Attr, Operator, register, Int, Bool, Shape, Choice, optional, merge_shape, uniform_dtype

__all__ = ["deconvolution_geometry"]

# output positions (height * width) up to which a 2-D CPU convolution's weight gradient is one
# matrix product of the unfolded input: oneDNN's backward-weight kernel blocks over the output's
# positions and runs 2-8x slower than the product when there are only one to four of them
# (a ResNet's last stages on 28-64 pixel images)
_SMALL_OUTPUT_POSITIONS = 4


class _SmallOutputConv2d(torch.autograd.Function):
    """``F.conv2d`` (one group) whose weight gradient is ``grad_out (O, N*L) @ unfold(x) (N*L, C*kh*kw)``;
    the input gradient is torch's (``torch.nn.grad.conv2d_input``), the bias gradient the sum of
    ``grad_out``.  Used by :class:`Convolution` for small outputs on the CPU (the same values to
    float32 rounding: only the order of the sums differs)."""

    @staticmethod
    def forward(data, weight, bias, stride, pad, dilate):
        return F.conv2d(data, weight, bias, stride, pad, dilate, 1)

    @staticmethod
    def setup_context(ctx, inputs, output):
        data, weight, bias, stride, pad, dilate = inputs
        ctx.save_for_backward(data, weight)
        ctx.geometry = (stride, pad, dilate)
        ctx.has_bias = bias is not None

    @staticmethod
    def backward(ctx, grad_out):
        data, weight = ctx.saved_tensors
        stride, pad, dilate = ctx.geometry
        grad_data = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_data = torch.nn.grad.conv2d_input(data.shape, weight, grad_out, stride, pad, dilate, 1)
        if ctx.needs_input_grad[1]:
            out_channels = weight.shape[0]
            columns = F.unfold(data, weight.shape[2:], dilation=dilate, padding=pad, stride=stride)  # N, C*kh*kw, L
            grad_weight = (grad_out.transpose(0, 1).reshape(out_channels, -1) @
                           columns.transpose(1, 2).reshape(-1, columns.shape[1])).reshape(weight.shape)
        if ctx.has_bias and ctx.needs_input_grad[2]:
            grad_bias = grad_out.sum(dim=(0, 2, 3))
        return grad_data, grad_weight, grad_bias, None, None, None


class _ConvolutionFamily(Operator):
    """The attributes and checks Convolution and Deconvolution share (in MXNet's order).
    ``adj`` and ``target_shape`` are Deconvolution's: Convolution removes them."""

    kernel = Attr(Shape, required=True)
    stride = Attr(Shape, default=())
    dilate = Attr(Shape, default=())
    pad = Attr(Shape, default=())
    adj = Attr(Shape, default=())
    target_shape = Attr(Shape, default=())
    num_filter = Attr(Int, required=True)
    num_group = Attr(Int, default=1)
    workspace = Attr(Int, default=1024)
    no_bias = Attr(Bool, default=False)
    cudnn_tune = Attr(optional(Choice("off", "limited_workspace", "fastest")), default=None)
    cudnn_off = Attr(Bool, default=False)
    layout = Attr(optional(Choice("NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC")), default=None)

    traceable = True
    is_convolution = True

    def validate(self):
        if len(self.kernel) not in (1, 2, 3):
            raise self.error(f"kernel must have 1, 2 or 3 dimensions, got {self.kernel}")
        _expand_conv_geometry(self)
        self._check_window()
        if self.num_filter < 1:
            raise self.error(f"num_filter must be positive, got {self.num_filter}")
        if self.layout is not None and self.layout[1] != "C":
            raise self.error(f"layout {self.layout} is not supported; use channel-first layouts")
        if self.num_group < 1 or self.num_filter % self.num_group:
            raise self.error(f"num_filter={self.num_filter} must be divisible by num_group={self.num_group}")

    def _check_window(self):
        """The family member's own checks of the expanded geometry."""

    def _compute(self, function, inputs, *args):
        """``function(*inputs, *args)``; a torch error from inputs of different dtypes becomes
        the MXNetError of :func:`uniform_dtype` (checked only on failure: no cost per call)."""
        try:
            return function(*inputs, *args)
        except RuntimeError:
            uniform_dtype(self, self.arguments(), [None if x is None else x.dtype for x in inputs])
            raise

    def arguments(self):
        return ["data", "weight"] + ([] if self.no_bias else ["bias"])


@register("Convolution", "Convolution_v1")
class Convolution(ChannelsLastKernels, _ConvolutionFamily):
    """N-D convolution: data ``(batch, channel, *spatial)``, weight
    ``(num_filter, channel / num_group, *kernel)``, bias ``(num_filter,)``; output spatial
    size ``floor((x + 2 * pad - dilate * (kernel - 1) - 1) / stride) + 1``.  2-D float32
    CPU convolutions compute on channels-last memory (``ops/memory_format.py``).
    """

    quantized_name = "_contrib_quantized_conv"
    distinct_names = ("Convolution_v1",)
    adj = None
    target_shape = None
    # weight (num_filter, channels / num_group, *kernel): output channels first (Gluon's Conv layers ask)
    transposed_weight = False

    def _check_window(self):
        _check_geometry(self, kernel=self.kernel, stride=self.stride_, dilate=self.dilate_, pad=self.pad_)

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
        if self.wants_channels_last(data):
            # oneDNN's CPU convolutions run much faster on channels-last (NHWC) memory; the
            # logical layout (and every shape) stays NCHW, and later layers keep the format
            data = data.contiguous(memory_format=torch.channels_last)
            weight = weight.contiguous(memory_format=torch.channels_last)
        if bias is None and len(self.kernel) == 3 and capturing_graph():
            # torch.onnx's exporter gives a bias-free Conv3d a zero bias of shape (O, 1) that
            # onnxruntime refuses ("bias must be a 1D tensor"): a captured graph gets a 1-D one
            bias = torch.zeros(weight.shape[0], dtype=weight.dtype, device=weight.device)
        if self._small_output_gradient(data, weight):
            return [self._compute(_SmallOutputConv2d.apply, (data, weight, bias), self.stride_, self.pad_,
                                  self.dilate_)]
        return [self._compute(function, (data, weight, bias), self.stride_, self.pad_, self.dilate_,
                              self.num_group)]

    def _small_output_gradient(self, data, weight):
        """Whether this call's weight gradient is taken as one matrix product
        (:class:`_SmallOutputConv2d`): a 2-D, one-group, floating-point CPU convolution recorded
        for a gradient of its weight, with at most ``_SMALL_OUTPUT_POSITIONS`` output positions."""
        if (len(self.kernel) != 2 or self.num_group != 1 or data.device.type != "cpu" or data.dim() != 4
                or not (weight.requires_grad and torch.is_grad_enabled()) or not data.is_floating_point()
                or torch.jit.is_tracing() or _is_vmapped(data)):
            return False
        height, width = _conv_output_size(self, tuple(data.shape[2:]))
        return height * width <= _SMALL_OUTPUT_POSITIONS


def deconvolution_geometry(op, spatial):
    """``(pad, adj, output_size)`` per spatial axis for input sizes ``spatial`` (0 = unknown).

    Without ``target_shape`` the output size is
    ``stride * (x - 1) + dilate * (kernel - 1) + 1 - 2 * pad + adj``.  A non-zero
    ``target_shape`` entry replaces pad and adj on its axis, as in MXNet: with
    ``total = stride * (x - 1) + dilate * (kernel - 1) + 1 - target``,
    ``pad = ceil(total / 2)`` and ``adj = total % 2``.
    """
    pads, adjs, sizes = [], [], []
    target = tuple(op.target_shape) if op.target_shape else (0,) * len(spatial)
    for axis, x in enumerate(spatial):
        k, s, d = op.kernel[axis], op.stride_[axis], op.dilate_[axis]
        pad, adj = op.pad_[axis], op.adj_[axis]
        if not x:
            pads.append(pad)
            adjs.append(adj)
            sizes.append(target[axis])
            continue
        natural = s * (x - 1) + d * (k - 1) + 1
        if target[axis]:
            if target[axis] > natural:
                raise op.error(f"target_shape {tuple(op.target_shape)} is too big: axis {axis} can reach at most "
                               f"{natural} from input size {x} (kernel {k}, stride {s}, dilate {d})")
            total = natural - target[axis]
            pad, adj = (total + 1) // 2, total % 2
        if adj >= s:
            raise op.error(f"adj {adj} on axis {axis} must be smaller than stride {s}"
                           + (f" (implied by target_shape {tuple(op.target_shape)})" if target[axis] else ""))
        size = natural - 2 * pad + adj
        if size <= 0:
            raise op.error(f"pad {op.pad_} is too large for input size {tuple(spatial)} (output size {size})")
        pads.append(pad)
        adjs.append(adj)
        sizes.append(size)
    return tuple(pads), tuple(adjs), tuple(sizes)


@register("Deconvolution")
class Deconvolution(_ConvolutionFamily):
    """Transposed (fractionally strided) convolution, the gradient of ``Convolution``.

    data ``(batch, C_in, *spatial)`` with 1-3 spatial axes, weight
    ``(C_in, num_filter / num_group, *kernel)`` (MXNet's layout, the same as
    ``torch.nn.functional.conv_transpose*``), bias ``(num_filter,)`` only when
    ``no_bias=False`` (the default is **True**, unlike Convolution).  Output
    ``(batch, num_filter, *out)`` with ``out = stride * (x - 1) + dilate * (kernel - 1) + 1
    - 2 * pad + adj``; ``adj`` must be smaller than ``stride``.  ``target_shape`` fixes the
    output spatial size and overrides ``pad`` / ``adj`` (see :func:`deconvolution_geometry`).
    Only channel-first layouts are supported; ``workspace`` and the cuDNN options are
    accepted and ignored.
    """

    # weight (channels, num_filter / num_group, *kernel): input channels first
    transposed_weight = True
    workspace = Attr(Int, default=512)
    no_bias = Attr(Bool, default=True)

    def _check_window(self):
        if any(k < 1 for k in self.kernel):
            raise self.error(f"kernel sizes must be positive, got {self.kernel}")
        self.adj_ = _spatial(self.adj, len(self.kernel), 0, "adj", self)
        if self.target_shape and len(self.target_shape) != len(self.kernel):
            raise self.error(f"target_shape {self.target_shape} has {len(self.target_shape)} values, "
                             f"the kernel has {len(self.kernel)} dimensions")

    def infer_shape(self, in_shapes, out_shapes):
        where = f"Operator {self.name}"
        ndim = len(self.kernel)
        data, weight, out = in_shapes[0], in_shapes[1], out_shapes[0]
        per_group = self.num_filter // self.num_group
        if weight is not None and len(weight) == ndim + 2 and weight[0] and (data is None or not data[1]):
            data = merge_shape(data, (0, weight[0]) + (0,) * ndim, f"{where} argument 'data'")
        if out is not None and data is not None and len(out) == ndim + 2 and out[0]:
            data = merge_shape(data, (out[0],) + (0,) * (ndim + 1), f"{where} argument 'data'")
        if data is not None:
            if len(data) != ndim + 2:
                raise self.error(f"data must have {ndim + 2} dimensions (batch, channel, spatial...) for a "
                                 f"{ndim}-D kernel {self.kernel}, got shape {tuple(data)}")
            channels = data[1]
            if channels and channels % self.num_group:
                raise self.error(f"input channels {channels} of data {tuple(data)} are not divisible by "
                                 f"num_group={self.num_group}")
            weight = merge_shape(weight, (channels, per_group) + tuple(self.kernel), f"{where} argument 'weight'")
            _, _, sizes = deconvolution_geometry(self, data[2:])
            out = merge_shape(out, (data[0], self.num_filter) + sizes, f"{where} output")
        else:
            weight = merge_shape(weight, (0, per_group) + tuple(self.kernel), f"{where} argument 'weight'")
        shapes = [data, weight]
        if not self.no_bias:
            shapes.append(merge_shape(in_shapes[2], (self.num_filter,), f"{where} argument 'bias'"))
        return shapes, [out], []

    def forward(self, is_train, inputs, aux):
        data, weight = inputs[0], inputs[1]
        bias = None if self.no_bias else inputs[2]
        pad, adj, _ = deconvolution_geometry(self, tuple(data.shape[2:]))
        function = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[len(self.kernel) - 1]
        return [self._compute(function, (data, weight, bias), self.stride_, pad, adj, self.num_group,
                              self.dilate_)]


# -- deformable convolution ------------------------------------------------------------------------
@register("_contrib_DeformableConvolution")
class DeformableConvolution(Operator):
    """2-D deformable convolution (Deformable ConvNets v1).

    data ``(batch, C, H, W)``; offset ``(batch, 2 * num_deformable_group * kh * kw, out_h,
    out_w)`` holds for every deformable group and kernel tap ``(i, j)`` (channels
    ``2 * (i * kw + j)`` and ``+ 1``) the (y, x) displacement of the sampling point
    ``(oh * stride - pad + i * dilate + dy, ow * stride - pad + j * dilate + dx)``; weight
    ``(num_filter, C / num_group, kh, kw)``; bias ``(num_filter,)`` unless ``no_bias``.
    Sampling follows MXNet's kernels: a point outside ``[0, H) x [0, W)`` reads 0, a point
    inside is bilinearly interpolated, and beyond the last row / column (``[H - 1, H)``) it
    reads that row / column.  Output ``(batch, num_filter, out_h, out_w)`` with
    ``out = floor((x + 2 * pad - dilate * (kernel - 1) - 1) / stride) + 1``.

    Gradients flow to data, offset, weight and bias.  Only 2-D kernels exist (as in MXNet);
    the offset shape is inferred from data when not given.
    """

    kernel = Attr(Shape, required=True)
    stride = Attr(Shape, default=())
    dilate = Attr(Shape, default=())
    pad = Attr(Shape, default=())
    num_filter = Attr(Int, required=True)
    num_group = Attr(Int, default=1)
    num_deformable_group = Attr(Int, default=1)
    workspace = Attr(Int, default=1024)
    no_bias = Attr(Bool, default=False)
    layout = Attr(optional(Choice("NCDHW", "NCHW", "NCW")), default=None)

    def validate(self):
        if len(self.kernel) != 2:
            raise self.error(f"only 2-D kernels are supported (as in MXNet), got kernel {self.kernel}")
        if min(self.kernel) < 1:
            raise self.error(f"kernel sizes must be positive, got {self.kernel}")
        if self.layout not in (None, "NCHW"):
            raise self.error(f"layout must be NCHW for a 2-D kernel, got {self.layout}")
        _expand_conv_geometry(self)
        if self.num_filter < 1 or self.num_group < 1 or self.num_deformable_group < 1:
            raise self.error(f"num_filter, num_group and num_deformable_group must be positive, got "
                             f"{self.num_filter}, {self.num_group} and {self.num_deformable_group}")
        if self.num_filter % self.num_group:
            raise self.error(f"num_filter={self.num_filter} must be divisible by num_group={self.num_group}")

    def arguments(self):
        return ["data", "offset", "weight"] + ([] if self.no_bias else ["bias"])

    def infer_shape(self, in_shapes, out_shapes):
        where = _where(self)
        data, offset, weight = in_shapes[0], in_shapes[1], in_shapes[2]
        out = out_shapes[0]
        taps = self.kernel[0] * self.kernel[1]
        _check_ndim(self, "data", data, 4, "(batch, channel, height, width)")
        _check_ndim(self, "offset", offset, 4, "(batch, 2 * num_deformable_group * kh * kw, out_h, out_w)")
        if data is not None:
            channels = data[1]
            if channels and channels % self.num_group:
                raise self.error(f"input channels {channels} of data {tuple(data)} are not divisible by "
                                 f"num_group={self.num_group}")
            if channels and channels % self.num_deformable_group:
                raise self.error(f"input channels {channels} of data {tuple(data)} are not divisible by "
                                 f"num_deformable_group={self.num_deformable_group}")
            weight = merge_shape(weight, (self.num_filter, channels // self.num_group if channels else 0)
                                 + tuple(self.kernel), f"{where} argument 'weight'")
            spatial = _conv_output_size(self, data[2:])
            expected = (data[0], 2 * self.num_deformable_group * taps) + spatial
            try:
                offset = merge_shape(offset, expected, where)
            except MXNetError:
                raise self.error(f"offset must have shape {expected} = (batch, 2 * num_deformable_group * kh * kw, "
                                 f"out_h, out_w) for data {tuple(data)}, got {tuple(offset)}") from None
            out = merge_shape(out, (data[0], self.num_filter) + spatial, f"{where} output")
        else:
            weight = merge_shape(weight, (self.num_filter, 0) + tuple(self.kernel), f"{where} argument 'weight'")
        shapes = [data, offset, weight]
        if not self.no_bias:
            shapes.append(merge_shape(in_shapes[3], (self.num_filter,), f"{where} argument 'bias'"))
        return shapes, [out], []

    def forward(self, is_train, inputs, aux):
        _check_inputs(self, inputs)
        data, offset, weight = inputs[0], inputs[1], inputs[2]
        bias = None if self.no_bias else inputs[3]
        batch, channels, height, width = data.shape
        out_h, out_w = _conv_output_size(self, (height, width))
        kernel_h, kernel_w = self.kernel
        taps = kernel_h * kernel_w
        groups = self.num_deformable_group
        dtype = _compute_dtype(data)
        device = data.device
        # sampling points (N, G, taps, L) with L = out_h * out_w
        offset = offset.to(dtype).reshape(batch, groups, taps, 2, out_h * out_w)
        tap_y = torch.arange(kernel_h, device=device, dtype=dtype).repeat_interleave(kernel_w) * self.dilate_[0]
        tap_x = torch.arange(kernel_w, device=device, dtype=dtype).repeat(kernel_h) * self.dilate_[1]
        grid_y = (torch.arange(out_h, device=device, dtype=dtype) * self.stride_[0] - self.pad_[0])
        grid_x = (torch.arange(out_w, device=device, dtype=dtype) * self.stride_[1] - self.pad_[1])
        base_y = (tap_y[:, None, None] + grid_y[None, :, None]).expand(taps, out_h, out_w).reshape(taps, -1)
        base_x = (tap_x[:, None, None] + grid_x[None, None, :]).expand(taps, out_h, out_w).reshape(taps, -1)
        ys = base_y + offset[:, :, :, 0]
        xs = base_x + offset[:, :, :, 1]
        inside = (ys >= 0) & (ys < height) & (xs >= 0) & (xs < width)
        ys = torch.minimum(ys, torch.tensor(height - 1, dtype=dtype, device=device))
        xs = torch.minimum(xs, torch.tensor(width - 1, dtype=dtype, device=device))
        y_low = torch.floor(ys).clamp(0, height - 1)
        x_low = torch.floor(xs).clamp(0, width - 1)
        frac_y, frac_x = ys - y_low, xs - x_low
        y_low, x_low = y_low.long(), x_low.long()
        y_high = (y_low + 1).clamp(max=height - 1)
        x_high = (x_low + 1).clamp(max=width - 1)
        inside = inside.to(dtype)
        per_group = channels // groups
        image = data.to(dtype).reshape(batch, groups, per_group, height * width)
        columns = 0
        for rows, weight_y in ((y_low, 1 - frac_y), (y_high, frac_y)):
            for cols, weight_x in ((x_low, 1 - frac_x), (x_high, frac_x)):
                position = (rows * width + cols).reshape(batch, groups, 1, taps * out_h * out_w)
                values = torch.gather(image, 3, position.expand(batch, groups, per_group, position.shape[-1]))
                factor = (weight_y * weight_x * inside).reshape(batch, groups, 1, -1)
                columns = columns + values * factor
        # (N, C * taps, L): channel-major, tap-minor, as the weight (F, C / g, kh, kw) flattens
        columns = columns.reshape(batch, self.num_group, channels // self.num_group * taps, out_h * out_w)
        kernels = weight.to(dtype).reshape(self.num_group, self.num_filter // self.num_group, -1)
        output = torch.matmul(kernels[None], columns).reshape(batch, self.num_filter, out_h, out_w)
        if bias is not None:
            output = output + bias.to(dtype).reshape(1, -1, 1, 1)
        return [output.to(data.dtype)]


@register("_contrib_ModulatedDeformableConvolution")
class ModulatedDeformableConvolution(DeformableConvolution):
    """2-D modulated deformable convolution (Deformable ConvNets v2, MXNet's
    ``contrib.ModulatedDeformableConvolution``): ``DeformableConvolution`` whose every sample
    is multiplied by ``mask`` ``(batch, num_deformable_group * kh * kw, out_h, out_w)`` (tap
    ``i * kw + j`` of each group).  Sampling follows MXNet's v2 kernel: a point with
    ``-1 < y < H`` and ``-1 < x < W`` is bilinearly interpolated with the corners outside the
    map reading 0; other points read 0.  Gradients flow to data, offset, mask, weight and bias.
    ``im2col_step`` (MXNet's batch chunking) does not change the numbers."""

    im2col_step = Attr(Int, default=64)

    def arguments(self):
        return ["data", "offset", "mask", "weight"] + ([] if self.no_bias else ["bias"])

    def infer_shape(self, in_shapes, out_shapes):
        plain = [in_shapes[0], in_shapes[1]] + list(in_shapes[3:])
        shapes, outs, _ = super().infer_shape(plain, out_shapes)
        mask = in_shapes[2]
        if shapes[1] is not None:
            offset = shapes[1]
            mask = merge_shape(mask, (offset[0], offset[1] // 2) + tuple(offset[2:]), f"{_where(self)} argument 'mask'")
        return [shapes[0], shapes[1], mask] + list(shapes[2:]), outs, []

    def forward(self, is_train, inputs, aux):
        data, offset, mask, weight = inputs[:4]
        bias = None if self.no_bias else inputs[4]
        batch, channels, height, width = data.shape
        out_h, out_w = _conv_output_size(self, (height, width))
        kernel_h, kernel_w = self.kernel
        taps, groups = kernel_h * kernel_w, self.num_deformable_group
        dtype, device = _compute_dtype(data), data.device
        points = out_h * out_w
        offset = offset.to(dtype).reshape(batch, groups, taps, 2, points)
        tap_y = torch.arange(kernel_h, device=device, dtype=dtype).repeat_interleave(kernel_w) * self.dilate_[0]
        tap_x = torch.arange(kernel_w, device=device, dtype=dtype).repeat(kernel_h) * self.dilate_[1]
        grid_y = torch.arange(out_h, device=device, dtype=dtype) * self.stride_[0] - self.pad_[0]
        grid_x = torch.arange(out_w, device=device, dtype=dtype) * self.stride_[1] - self.pad_[1]
        ys = (tap_y[:, None, None] + grid_y[None, :, None]).expand(taps, out_h, out_w).reshape(taps, -1) + offset[:, :, :, 0]
        xs = (tap_x[:, None, None] + grid_x[None, None, :]).expand(taps, out_h, out_w).reshape(taps, -1) + offset[:, :, :, 1]
        sampled = ((ys > -1) & (ys < height) & (xs > -1) & (xs < width)).to(dtype)
        sampled = sampled * mask.to(dtype).reshape(batch, groups, taps, points)
        y_low, x_low = torch.floor(ys), torch.floor(xs)
        frac_y, frac_x = ys - y_low, xs - x_low
        y_low, x_low = y_low.long(), x_low.long()
        per_group = channels // groups
        image = data.to(dtype).reshape(batch, groups, per_group, height * width)
        columns = 0
        for rows, weight_y in ((y_low, 1 - frac_y), (y_low + 1, frac_y)):
            for cols, weight_x in ((x_low, 1 - frac_x), (x_low + 1, frac_x)):
                valid = ((rows >= 0) & (rows < height) & (cols >= 0) & (cols < width)).to(dtype)
                position = (rows.clamp(0, height - 1) * width + cols.clamp(0, width - 1))
                position = position.reshape(batch, groups, 1, taps * points)
                values = torch.gather(image, 3, position.expand(batch, groups, per_group, position.shape[-1]))
                factor = (weight_y * weight_x * valid * sampled).reshape(batch, groups, 1, -1)
                columns = columns + values * factor
        columns = columns.reshape(batch, self.num_group, channels // self.num_group * taps, points)
        kernels = weight.to(dtype).reshape(self.num_group, self.num_filter // self.num_group, -1)
        output = torch.matmul(kernels[None], columns).reshape(batch, self.num_filter, out_h, out_w)
        if bias is not None:
            output = output + bias.to(dtype).reshape(1, -1, 1, 1)
        return [output.to(data.dtype)]
