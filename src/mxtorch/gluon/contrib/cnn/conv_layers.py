"""MXNet 1.9.1's ``gluon.contrib.cnn.conv_layers``: DeformableConvolution, a 2-D convolution
whose sampling positions are shifted by offsets that a plain convolution predicts from the
input (``_contrib_DeformableConvolution``), and ModulatedDeformableConvolution (v2), whose
offset convolution also predicts a per-position mask (``_contrib_ModulatedDeformableConvolution``)."""
from __future__ import annotations

import numbers

from ....base import numeric_types  # noqa: F401  (MXNet's module exposes it)
from ....base import MXNetValueError
from ...block import HybridBlock
from ...nn import Activation

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution"]


def _pair(value):
    return (value, value) if isinstance(value, numbers.Integral) else tuple(value)


class _DeformableBase(HybridBlock):
    """What the two deformable layers share: an offset convolution of the input predicting
    ``offset_factor * kh * kw * num_deformable_group`` channels (``offset_groups`` groups), the
    deformable convolution's weight and bias, MXNet's parameter names, deferred ``in_channels``."""

    offset_factor = 2
    layer = "DeformableConvolution"

    def __init__(self, channels, kernel_size, strides, padding, dilation, groups, num_deformable_group, layout,
                 use_bias, in_channels, activation, weight_initializer, bias_initializer,
                 offset_weight_initializer, offset_bias_initializer, offset_use_bias, offset_groups, prefix, params):
        super().__init__(prefix=prefix, params=params)
        if layout != "NCHW":
            raise MXNetValueError(f"{self.layer}: only layout 'NCHW' is supported, got {layout!r}")
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            kernel = _pair(kernel_size)
            self._common = {"kernel": kernel, "stride": _pair(strides), "dilate": _pair(dilation),
                            "pad": _pair(padding)}
            offset_channels = self.offset_factor * kernel[0] * kernel[1] * num_deformable_group
            self._split = 2 * kernel[0] * kernel[1] * num_deformable_group     # offsets, then the mask
            self._offset_kwargs = dict(self._common, num_filter=offset_channels, num_group=offset_groups,
                                       no_bias=not offset_use_bias)
            self._kwargs = dict(self._common, num_filter=channels, num_group=groups,
                                num_deformable_group=num_deformable_group, no_bias=not use_bias)
            offset_inputs = in_channels // offset_groups if in_channels else 0
            self.offset_weight = self.params.get("offset_weight", shape=(offset_channels, offset_inputs) + kernel,
                                                 init=offset_weight_initializer, allow_deferred_init=True)
            self.offset_bias = self.params.get("offset_bias", shape=(offset_channels,), init=offset_bias_initializer,
                                               allow_deferred_init=True) if offset_use_bias else None
            self.deformable_conv_weight = self.params.get(
                "deformable_conv_weight", shape=(channels, in_channels // groups if in_channels else 0) + kernel,
                init=weight_initializer, allow_deferred_init=True)
            self.deformable_conv_bias = self.params.get("deformable_conv_bias", shape=(channels,),
                                                        init=bias_initializer,
                                                        allow_deferred_init=True) if use_bias else None
            self.act = Activation(activation, prefix=activation + "_") if activation is not None else None

    def _offsets(self, F, x, offset_weight, offset_bias):
        inputs = [x, offset_weight] + ([offset_bias] if offset_bias is not None else [])
        return F.Convolution(*inputs, name="offset", **self._offset_kwargs)

    def _finish(self, out):
        return self.act(out) if self.act is not None else out

    def __repr__(self):
        shape = self.deformable_conv_weight.shape
        inputs = shape[1] * self._kwargs["num_group"] if shape[1] else None
        return (f"{type(self).__name__}({inputs} -> {self._channels}, kernel_size={self._common['kernel']}, "
                f"stride={self._common['stride']}, padding={self._common['pad']})")


class DeformableConvolution(_DeformableBase):
    """Deformable 2-D convolution on ``(batch, in_channels, height, width)`` (layout NCHW).

    Parameters (MXNet's names): ``offset_weight`` ``(2 * kh * kw * num_deformable_group,
    in_channels, kh, kw)`` and ``offset_bias`` (initialised to zeros, so training starts as a
    plain convolution), ``deformable_conv_weight`` ``(channels, in_channels / groups, kh, kw)``
    and ``deformable_conv_bias``.  ``in_channels=0`` infers the input channels on the first call.
    Only layout 'NCHW' (MXNetValueError otherwise).
    """

    def __init__(self, channels, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1,
                 num_deformable_group=1, layout="NCHW", use_bias=True, in_channels=0, activation=None,
                 weight_initializer=None, bias_initializer="zeros", offset_weight_initializer="zeros",
                 offset_bias_initializer="zeros", offset_use_bias=True, op_name="DeformableConvolution", adj=None,
                 prefix=None, params=None):
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, num_deformable_group, layout,
                         use_bias, in_channels, activation, weight_initializer, bias_initializer,
                         offset_weight_initializer, offset_bias_initializer, offset_use_bias, 1, prefix, params)

    def _alias(self):
        return "deformable_conv"

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        offset = self._offsets(F, x, offset_weight, offset_bias)
        inputs = [x, offset, deformable_conv_weight] + \
            ([deformable_conv_bias] if deformable_conv_bias is not None else [])
        return self._finish(F.contrib.DeformableConvolution(*inputs, name="fwd", **self._kwargs))


class ModulatedDeformableConvolution(_DeformableBase):
    """Modulated deformable 2-D convolution (deformable ConvNets v2) on ``(batch, in_channels,
    height, width)`` (layout NCHW), as MXNet 1.9.1's layer: a plain convolution of the input
    (``num_group=groups``) predicts ``3 * kh * kw * num_deformable_group`` channels; the first
    two thirds are the offsets, the last third through ``2 * sigmoid`` the mask.

    Parameters (MXNet's names): ``offset_weight`` ``(3 * kh * kw * num_deformable_group,
    in_channels / groups, kh, kw)`` and ``offset_bias`` (zeros: training starts as a plain
    convolution with mask 1), ``deformable_conv_weight`` ``(channels, in_channels / groups, kh,
    kw)`` and ``deformable_conv_bias``.  ``in_channels=0`` infers the input channels on the first
    call.  Only layout 'NCHW' (MXNetValueError otherwise).
    """

    offset_factor = 3
    layer = "ModulatedDeformableConvolution"

    def __init__(self, channels, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1,
                 num_deformable_group=1, layout="NCHW", use_bias=True, in_channels=0, activation=None,
                 weight_initializer=None, bias_initializer="zeros", offset_weight_initializer="zeros",
                 offset_bias_initializer="zeros", offset_use_bias=True, op_name="ModulatedDeformableConvolution",
                 adj=None, prefix=None, params=None):
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, num_deformable_group, layout,
                         use_bias, in_channels, activation, weight_initializer, bias_initializer,
                         offset_weight_initializer, offset_bias_initializer, offset_use_bias, groups, prefix, params)

    def _alias(self):
        return "modulated_deformable_conv"

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        predicted = self._offsets(F, x, offset_weight, offset_bias)
        offset = F.slice_axis(predicted, axis=1, begin=0, end=self._split)
        mask = F.sigmoid(F.slice_axis(predicted, axis=1, begin=self._split, end=None)) * 2
        inputs = [x, offset, mask, deformable_conv_weight] + \
            ([deformable_conv_bias] if deformable_conv_bias is not None else [])
        return self._finish(F.contrib.ModulatedDeformableConvolution(*inputs, name="fwd", **self._kwargs))
