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
        # MXNet 1.9.1 registered no output names for quantize / quantize_v2: 'output0'...
        return ["output0", "output1", "output2"]


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


def _smoothed(distribution, eps=1e-4):
    """``distribution`` with ``eps`` moved onto its zero entries from its non-zero ones (float32),
    or None when it has no non-zero entry or the move would empty them."""
    zeros = distribution == 0
    nonzero = int((~zeros).sum())
    if not nonzero:
        return None
    taken = np.float32(eps) * np.float32(zeros.sum()) / np.float32(nonzero)
    if taken >= 1.0:
        return None
    return (distribution + np.float32(eps) * zeros - taken * ~zeros).astype(np.float32)


def _kl_divergence(p, q):
    p = p / p.sum(dtype=np.float32)
    q = q / q.sum(dtype=np.float32)
    return float(np.sum(p * np.log(p / q), dtype=np.float32))


@register("_contrib_calibrate_entropy")
class CalibrateEntropy(Operator):
    """The clipping threshold that minimises the KL divergence between a histogram and its
    ``num_quantized_bins``-level quantization (MXNet's ``contrib.calibrate_entropy``, the entropy
    calibration of int8 graphs).  ``hist`` ``(num_bins,)`` float32 counts over the symmetric
    edges ``hist_edges`` ``(num_bins + 1,)``; for every window of ``2 i + 1`` central bins
    (``i`` from ``num_quantized_bins // 2`` to ``num_bins // 2``) the outside counts fold into the
    two end bins, the window is merged into ``num_quantized_bins`` groups spread back over its
    non-zero bins, both are smoothed and compared.  Outputs the threshold (the window's right
    edge) and its divergence, ``(1,)`` float32 each; computed on the host in float32 as MXNet."""

    num_quantized_bins = Attr(lambda v, n: int(v), default=255)

    def arguments(self):
        return ["hist", "hist_edges"]

    def outputs(self):
        return ["threshold", "divergence"]

    def infer_shape(self, in_shapes, out_shapes):
        hist, edges = in_shapes
        if hist is not None:
            edges = merge_shape(edges, (hist[0] + 1,), f"Operator {self.name} hist_edges")
        return [hist, edges], [(1,), (1,)], []

    def infer_type(self, in_types):
        f32 = np.dtype(np.float32)
        return [f32, f32], [f32, f32], []

    def forward(self, is_train, inputs, aux):
        hist = inputs[0].detach().cpu().numpy().astype(np.float32).reshape(-1)
        edges = inputs[1].detach().cpu().numpy().astype(np.float32).reshape(-1)
        if edges.size != hist.size + 1:
            raise self.error(f"hist_edges must have len(hist) + 1 = {hist.size + 1} values, got {edges.size}")
        levels = self.num_quantized_bins
        centre = hist.size // 2
        if levels // 2 > centre:
            raise self.error(f"num_quantized_bins={levels} needs at least {levels} histogram bins, got {hist.size}")
        best = (np.float32(np.finfo(np.float32).max), 0.0)
        # an even bin count makes the widest window one bin wider than the histogram (MXNet read
        # past its arrays there); the missing bin counts 0 and the threshold is the last edge
        hist = np.concatenate([hist, np.zeros(2 * centre + 1 - hist.size, dtype=np.float32)])
        edges = np.concatenate([edges, np.repeat(edges[-1:], 2 * centre + 2 - edges.size)])
        for half in range(levels // 2, centre + 1):
            start, stop = centre - half, centre + half + 1
            window = np.zeros(stop - start, dtype=np.int64)
            window[1:] = hist[start + 1:stop].astype(np.int64)      # MXNet counts in integers
            p = hist[start:stop].copy()
            p[0] = hist[:start + 1].sum(dtype=np.float32)
            p[-1] = hist[stop - 1] + hist[stop:].sum(dtype=np.float32)
            merged = window.size // levels
            # group j covers bins [j * merged, (j + 1) * merged); the last one runs to the end
            group_of = np.minimum(np.arange(window.size) // merged, levels - 1)
            groups = np.bincount(group_of, weights=window, minlength=levels).astype(np.float32)
            counts = np.bincount(group_of, weights=(window != 0), minlength=levels)
            spread = np.where(counts > 0, groups / np.maximum(counts, 1).astype(np.float32), 0).astype(np.float32)
            q = np.where((p != 0) & (counts[group_of] > 0), spread[group_of], 0).astype(np.float32)
            p, q = _smoothed(p), _smoothed(q)
            divergence = np.float32(np.inf) if q is None or p is None else np.float32(_kl_divergence(p, q))
            if divergence < best[0]:
                best = (divergence, float(edges[stop]))
        device = inputs[0].device
        return [torch.tensor([best[1]], dtype=torch.float32, device=device),
                torch.tensor([float(best[0])], dtype=torch.float32, device=device)]
