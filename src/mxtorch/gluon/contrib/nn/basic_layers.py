"""MXNet 1.9.1's ``gluon.contrib.nn.basic_layers``.

``Concurrent`` / ``HybridConcurrent`` run every child on the same input and concatenate the
outputs along ``axis`` (default -1); they are ``gluon.nn``'s Concatenate layers under MXNet 1.x's
contrib names (and automatic prefixes ``concurrent0_`` / ``hybridconcurrent0_``).
"""
from __future__ import annotations

from ...block import Block, HybridBlock  # noqa: F401
from ....base import MXNetValueError
from ...nn import (Sequential, HybridSequential, Concatenate, HybridConcatenate, BatchNorm,  # noqa: F401
                   Embedding, SyncBatchNorm)
from ...nn import Identity as _Identity

__all__ = ["Concurrent", "HybridConcurrent", "Identity", "SparseEmbedding", "SyncBatchNorm", "PixelShuffle1D",
           "PixelShuffle2D", "PixelShuffle3D"]


class Concurrent(Concatenate):
    """Run each child on the input and concatenate their outputs along ``axis``."""


class HybridConcurrent(HybridConcatenate):
    """Concurrent of HybridBlocks, itself hybridizable."""


class Identity(_Identity):
    """Return the input unchanged (useful as a branch of a Concurrent)."""


class SparseEmbedding(Embedding):
    """Embedding whose weight gradient MXNet stored row-sparse; mxtorch has no sparse storage,
    so this is a dense Embedding with the same parameters and outputs."""

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None, **kwargs):
        super().__init__(input_dim, output_dim, dtype=dtype, weight_initializer=weight_initializer, **kwargs)


class _PixelShuffle(HybridBlock):
    dims = 2

    def __init__(self, factor):
        super().__init__()
        if isinstance(factor, int):
            factor = (factor,) * self.dims
        factor = tuple(int(f) for f in factor)
        if len(factor) != self.dims:
            raise MXNetValueError(f"{type(self).__name__}: factor must be an int or {self.dims} ints, got {factor}")
        self._factors = factor

    def hybrid_forward(self, F, x):
        # (N, C*f1*..*fd, s1..sd) -> (N, C, f1, .., fd, s1, .., sd) -> (N, C, s1, f1, .., sd, fd) -> merge
        d, f = self.dims, self._factors
        total = 1
        for value in f:
            total *= value
        x = F.reshape(x, (0, -4, -1, total) + (0,) * d)
        for k in range(d - 1):
            x = F.reshape(x, (0, 0) + (0,) * k + (-4, f[k], -1) + (0,) * d)
        order = [0, 1]
        for i in range(d):
            order += [2 + d + i, 2 + i]
        x = F.transpose(x, axes=tuple(order))
        return F.reshape(x, (0, 0) + (-3,) * d)

    def __repr__(self):
        return f"{type(self).__name__}({self._factors if self.dims > 1 else self._factors[0]})"


class PixelShuffle1D(_PixelShuffle):
    """``(N, f * C, W)`` -> ``(N, C, W * f)`` (sub-pixel upsampling)."""
    dims = 1


class PixelShuffle2D(_PixelShuffle):
    """``(N, f1 * f2 * C, H, W)`` -> ``(N, C, H * f1, W * f2)``."""
    dims = 2


class PixelShuffle3D(_PixelShuffle):
    """``(N, f1 * f2 * f3 * C, D, H, W)`` -> ``(N, C, D * f1, H * f2, W * f3)``."""
    dims = 3
