"""``BatchNorm``: batch normalisation with moving statistics."""
from __future__ import annotations

import numpy as np
import torch

from ...base import BFLOAT16

from ..registry import Attr, Operator, register, Int, Float, Bool, Str, optional, merge_shape

__all__ = []


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

    def channel_axis(self, shape):
        """The channel axis of data of ``shape`` (``axis``, negative counting from the end).
        As in MXNet 1.9.1 ("Channel axis out of range") it must lie inside the data's axes (the
        default axis 1 needs 2-D data or more): MXNetError naming the axis and the shape."""
        ndim = len(shape)
        axis = self.axis + ndim if self.axis < 0 else self.axis
        if not 0 <= axis < ndim:
            valid = f"in [{-ndim}, {ndim - 1}]" if ndim else "(0-D data has none)"
            raise self.error(f"channel axis {self.axis} is out of range for 'data' of shape {tuple(shape)} "
                             f"({ndim}-D); the axis must be {valid}")
        return axis

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name} argument 'data'")
        channel = None
        if data is not None:
            axis = self.channel_axis(data)
            channel = (data[axis],)
        names = ["gamma", "beta"]
        params = [merge_shape(s, channel, f"Operator {self.name} argument '{n}'") for s, n in zip(in_shapes[1:], names)]
        for p in params:
            channel = merge_shape(channel, p, f"Operator {self.name}")
        return [data] + [channel, channel], [data, channel, channel], [channel, channel]

    def infer_type(self, in_types):
        dtype = in_types[0]
        # float16 and bfloat16 data keep float32 parameters and statistics, as MXNet
        param = np.dtype(np.float32) if dtype is not None and np.dtype(dtype) in (np.float16, BFLOAT16) else dtype
        return [dtype, param, param], [dtype, param, param], [param, param]

    def forward(self, is_train, inputs, aux):
        data, gamma, beta = inputs
        moving_mean, moving_var = aux
        axis = self.channel_axis(tuple(data.shape))
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
        compute = data.float() if data.dtype in (torch.float16, torch.bfloat16) else data
        if is_train and not self.use_global_stats:
            if reduce_axes:
                mean = compute.mean(dim=reduce_axes)
                var = compute.var(dim=reduce_axes, unbiased=False)
            else:
                # 1-D data along axis 0: one value per channel (torch reads dim=[] as "all axes")
                mean, var = compute, torch.zeros_like(compute)
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
