"""Quantization operators of MXNet's ``contrib`` namespace: ``quantize``, ``quantize_v2`` and
``dequantize`` (float32 to int8 / uint8 and back).

A quantized array travels with its float range as two ``(1,)`` float32 arrays ``min_range`` and
``max_range``.  The rules are those of MXNet 1.9.1's CPU build (its oneDNN kernels, which the
released packages run): with ``real = max(|min|, |max|)`` a value ``x`` becomes
``saturate(round_half_even(x * q / real))``, where ``q`` is 127 (int8) or 255 (uint8) for
``quantize`` and 127.5 / 255.5 for ``quantize_v2``; uint8 is not shifted by ``min`` (negative
values saturate to 0).  ``dequantize`` multiplies by ``real / q`` with ``q`` 127.5 (int8), 255.5
(uint8) or 2147483647 (int32).  Computed in float32; none of them has a gradient.
"""
from __future__ import annotations

import numpy as np
import torch

from .registry import Attr, Choice, Float, Operator, merge_shape, optional, register

__all__ = []

_SATURATION = {"int8": (-128, 127, torch.int8), "uint8": (0, 255, torch.uint8)}
_DEQUANTIZE_RANGE = {"int8": 127.5, "uint8": 255.5, "int32": 2147483647.0}


def _quantize(data, low, high, out_type, levels):
    """``[quantized, min_out, max_out]`` of ``data`` for the range ``[low, high]``, ``levels``
    quantized steps covering ``max(|low|, |high|)``."""
    data = data.detach().to(torch.float32)
    low = torch.as_tensor(low, dtype=torch.float32, device=data.device).reshape(1)
    high = torch.as_tensor(high, dtype=torch.float32, device=data.device).reshape(1)
    real = torch.maximum(low.abs(), high.abs())
    smallest, largest, dtype = _SATURATION[out_type]
    quantized = torch.round(data * (levels / real)).clamp(smallest, largest).to(dtype)
    if out_type == "uint8":
        return [quantized, low, high]
    return [quantized, -real, real]


class _QuantizeShapes:
    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name} output")
        ranges = [(1,)] * (len(in_shapes) - 1)
        return [data] + ranges, [data, (1,), (1,)], []

    def outputs(self):
        return ["output", "min_output", "max_output"]


@register("_contrib_quantize")
class Quantize(_QuantizeShapes, Operator):
    """float32 ``data`` of any shape to ``out_type`` (``'uint8'``, the default, or ``'int8'``)
    over the range given by the ``(1,)`` float32 inputs ``min_range`` / ``max_range``.  Outputs the
    quantized array and its range, two ``(1,)`` float32 arrays (see the module rules)."""

    out_type = Attr(Choice("uint8", "int8"), default="uint8")

    def arguments(self):
        return ["data", "min_range", "max_range"]

    def infer_type(self, in_types):
        f32 = np.dtype(np.float32)
        return [f32] * 3, [np.dtype(self.out_type), f32, f32], []

    def forward(self, is_train, inputs, aux):
        data, low, high = inputs
        levels = 127.0 if self.out_type == "int8" else 255.0
        return _quantize(data, low.reshape(-1)[0], high.reshape(-1)[0], self.out_type, levels)


@register("_contrib_quantize_v2")
class QuantizeV2(_QuantizeShapes, Operator):
    """float32 ``data`` to ``out_type`` ``'int8'`` (default), ``'uint8'`` or ``'auto'`` (uint8 when
    ``min_calib_range >= 0``, else int8) over ``[min_calib_range, max_calib_range]``, or, when the
    calibration range is not given, over the data's own minimum and maximum.  Outputs the
    quantized array and its range (two ``(1,)`` float32 arrays).  An int8 / uint8 ``data``
    passes through unchanged with the calibration range (else ``(-127.5, 127.5)`` for int8,
    ``(0, 255.5)`` for uint8, as MXNet's CPU kernel reports)."""

    out_type = Attr(Choice("auto", "int8", "uint8"), default="int8")
    min_calib_range = Attr(optional(Float), default=None)
    max_calib_range = Attr(optional(Float), default=None)

    def validate(self):
        if (self.min_calib_range is None) != (self.max_calib_range is None):
            raise self.error("min_calib_range and max_calib_range must be given together")

    def _resolved_type(self):
        if self.out_type != "auto":
            return self.out_type
        return "uint8" if self.min_calib_range is not None and self.min_calib_range >= 0 else "int8"

    def infer_type(self, in_types):
        data = in_types[0] if in_types[0] is not None else np.dtype(np.float32)
        if data not in (np.dtype(np.float32), np.dtype(np.int8), np.dtype(np.uint8)):
            raise self.error(f"data must be float32, int8 or uint8, got {np.dtype(data).name}")
        f32 = np.dtype(np.float32)
        return [data], [np.dtype(self._resolved_type()), f32, f32], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        calibrated = self.min_calib_range is not None
        if data.dtype in (torch.int8, torch.uint8):
            if calibrated:
                low, high = self.min_calib_range, self.max_calib_range
            else:
                low, high = (-127.5, 127.5) if data.dtype == torch.int8 else (0.0, 255.5)
            ranges = [torch.tensor([value], dtype=torch.float32, device=data.device) for value in (low, high)]
            return [data.clone()] + ranges
        if calibrated:
            low, high = self.min_calib_range, self.max_calib_range
        else:
            values = data.detach().to(torch.float32)
            low, high = values.min(), values.max()
        out_type = self._resolved_type()
        return _quantize(data, low, high, out_type, 127.5 if out_type == "int8" else 255.5)


@register("_contrib_dequantize")
class Dequantize(Operator):
    """A uint8 / int8 / int32 ``data`` with its range ``min_range`` / ``max_range`` (``(1,)`` float32
    each) back to float32: ``x * max(|min|, |max|) / q`` with ``q`` 255.5 (uint8), 127.5 (int8) or
    2147483647 (int32); see the module rules."""

    out_type = Attr(Choice("float32"), default="float32")

    def arguments(self):
        return ["data", "min_range", "max_range"]

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name} output")
        return [data, (1,), (1,)], [data], []

    def infer_type(self, in_types):
        data = in_types[0]
        if data is not None and np.dtype(data).name not in _DEQUANTIZE_RANGE:
            raise self.error(f"data must be uint8, int8 or int32, got {np.dtype(data).name}")
        f32 = np.dtype(np.float32)
        return [data, f32, f32], [f32], []

    def forward(self, is_train, inputs, aux):
        data, low, high = inputs
        kind = str(data.dtype).replace("torch.", "")
        if kind not in _DEQUANTIZE_RANGE:
            raise self.error(f"data must be uint8, int8 or int32, got {kind}")
        low = low.detach().to(torch.float32).reshape(-1)[0]
        high = high.detach().to(torch.float32).reshape(-1)[0]
        real = torch.maximum(low.abs(), high.abs())
        return [data.detach().to(torch.float32) * (real / _DEQUANTIZE_RANGE[kind])]
