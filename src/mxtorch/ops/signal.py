"""Signal operators of ``mx.nd.contrib``: ``fft``, ``ifft`` (complex numbers stored as interleaved
real / imaginary pairs along the last axis) and ``count_sketch``.

MXNet 1.9.1 ran the three on GPUs only (cuFFT and a CUDA kernel) and raised on CPU; here they
run on any device with the same numbers.
"""
from __future__ import annotations

import torch

from .registry import Attr, Int, Operator, merge_shape, register

__all__ = []


class _FourierTransform(Operator):
    compute_size = Attr(Int, default=128)    # MXNet's sub-batch size for cuFFT; no effect on the numbers

    def _check_rank(self, shape):
        if shape is not None and len(shape) not in (2, 4):
            raise self.error(f"argument 'data' must be 2-D or 4-D, got shape {tuple(shape)}")


@register("_contrib_fft")
class FFT(_FourierTransform):
    """Discrete Fourier transform of each row (the last axis) of a real ``data`` of shape
    ``(n, d)`` or ``(n, c, h, d)``: the output has shape ``(..., 2 * d)``, each complex
    coefficient written as its real then imaginary part (MXNet's ``contrib.fft``, cuFFT's
    unnormalised forward transform, ``numpy.fft.fft``).  The gradient is the real part of the
    unnormalised inverse transform of the head gradient, as MXNet's."""

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        self._check_rank(data)
        if data is None:
            return list(in_shapes), list(out_shapes), []
        out = tuple(data[:-1]) + (data[-1] * 2,)
        return [data], [merge_shape(out_shapes[0], out, f"Operator {self.name} output")], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        self._check_rank(tuple(data.shape))
        spectrum = torch.fft.fft(data.to(torch.float64 if data.dtype == torch.float64 else torch.float32), dim=-1)
        return [torch.view_as_real(spectrum).reshape(tuple(data.shape[:-1]) + (-1,)).to(data.dtype)]


@register("_contrib_ifft")
class IFFT(_FourierTransform):
    """Inverse transform of each row of ``data`` of shape ``(n, 2 * d)`` or ``(n, c, h, 2 * d)``
    holding complex numbers as interleaved real / imaginary parts: the output, shape
    ``(..., d)``, is the real part of the unnormalised inverse transform (``d *
    numpy.fft.ifft``; MXNet's ``contrib.ifft`` does not divide by ``d``)."""

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        self._check_rank(data)
        if data is None:
            return list(in_shapes), list(out_shapes), []
        if data[-1] % 2:
            raise self.error(f"the last axis of 'data' holds (real, imaginary) pairs and must be even, "
                             f"got shape {tuple(data)}")
        out = tuple(data[:-1]) + (data[-1] // 2,)
        return [data], [merge_shape(out_shapes[0], out, f"Operator {self.name} output")], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        self._check_rank(tuple(data.shape))
        if data.shape[-1] % 2:
            raise self.error(f"the last axis of 'data' must be even, got shape {tuple(data.shape)}")
        pairs = data.to(torch.float64 if data.dtype == torch.float64 else torch.float32)
        pairs = pairs.reshape(tuple(data.shape[:-1]) + (-1, 2)).contiguous()
        signal = torch.fft.ifft(torch.view_as_complex(pairs), dim=-1, norm="forward")
        return [signal.real.to(data.dtype)]


@register("_contrib_count_sketch")
class CountSketch(Operator):
    """Count sketch of each row of ``data`` ``(n, in_dim)``: ``out[i, h[j]] += s[j] * data[i, j]``
    with the bucket indices ``h`` and signs ``s`` of shape ``(1, in_dim)``; the output is
    ``(n, out_dim)`` (MXNet's ``contrib.count_sketch``, compact bilinear pooling).  An index
    outside ``[0, out_dim)`` raises MXNetError.  ``data`` gets the gradient
    ``s[j] * out_grad[i, h[j]]``; ``h`` and ``s`` get none."""

    out_dim = Attr(Int, required=True)
    processing_batch_size = Attr(Int, default=32)   # MXNet's CUDA sub-batch; no effect on the numbers

    def arguments(self):
        return ["data", "h", "s"]

    def infer_shape(self, in_shapes, out_shapes):
        data, h, s = in_shapes
        if data is not None and len(data) != 2:
            raise self.error(f"argument 'data' must be 2-D (n, in_dim), got shape {tuple(data)}")
        if data is not None:
            h = merge_shape(h, (1, data[1]), f"Operator {self.name} h")
            s = merge_shape(s, (1, data[1]), f"Operator {self.name} s")
            out = merge_shape(out_shapes[0], (data[0], self.out_dim), f"Operator {self.name} output")
            return [data, h, s], [out], []
        return [data, h, s], list(out_shapes), []

    def forward(self, is_train, inputs, aux):
        data, h, s = inputs
        buckets = h.reshape(-1).to(torch.int64)
        if buckets.numel() != data.shape[1]:
            raise self.error(f"'h' must have in_dim={data.shape[1]} entries, got {buckets.numel()}")
        if buckets.numel() and (int(buckets.min()) < 0 or int(buckets.max()) >= self.out_dim):
            raise self.error(f"'h' holds bucket indices outside [0, {self.out_dim})")
        signed = data * s.reshape(1, -1).to(data.dtype)
        out = torch.zeros((data.shape[0], self.out_dim), dtype=data.dtype, device=data.device)
        return [out.index_add(1, buckets, signed)]
