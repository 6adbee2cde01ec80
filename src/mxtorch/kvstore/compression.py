"""Gradient compression (MXNet's ``kvstore.set_gradient_compression``): the 2-bit scheme.

MXNet 1.9.1's rule (src/kvstore/gradient_compression-inl.h, ``quantize_2bit``): each pushed
gradient is added to a residual kept per key and per source; every entry whose residual
reaches ``threshold`` is sent as ``+threshold`` (the residual drops by ``threshold``), every
entry at or below ``-threshold`` as ``-threshold`` (the residual rises by ``threshold``), and
all others as 0 (the residual keeps them).  The store then sums the dequantized values.

The sources are what MXNet compressed: in the in-process 'device' store every device's
gradient has its own residual (CommDevice::ReduceCompressed); in the distributed stores each
worker compresses its locally summed gradient once before the exchange (the worker side of
KVStoreDist).  mxtorch keeps the values dense: the numbers are MXNet's, the bytes on the wire
are not reduced.
"""
from __future__ import annotations

import torch

from ..base import MXNetError
from ..schema import Attr, Float, Str, collect, parse_params

__all__ = ["GradientCompression"]


class _CompressionArguments:
    """``set_gradient_compression``'s dict (MXNet's GradientCompressionParam)."""
    type = Attr(Str, required=True)
    threshold = Attr(Float, default=0.5)


class GradientCompression:
    """MXNet's 2-bit gradient compression with error feedback (see the module docstring).

    ``params``: ``{'type': '2bit', 'threshold': t}`` (t > 0, default 0.5).  MXNetError for
    another type ('1bit' came after 1.9.1), a threshold that is not positive, or unknown
    entries (MXNet ignored them; here they warn)."""

    def __init__(self, params):
        if not isinstance(params, dict):
            raise MXNetError(f"KVStore.set_gradient_compression: expected a dict with a 'type' entry, got "
                             f"{params!r}")
        values = parse_params(collect(_CompressionArguments), params, "KVStore.set_gradient_compression",
                              "entry", unknown="warn", stacklevel=4)
        if values["type"] != "2bit":
            raise MXNetError(f"KVStore.set_gradient_compression: unknown type for gradient compression "
                             f"{values['type']!r}; MXNet 1.9.1 has '2bit'")
        if not values["threshold"] > 0:
            raise MXNetError(f"KVStore.set_gradient_compression: threshold must be greater than 0 for two bit "
                             f"compression, got {values['threshold']}")
        self.type = values["type"]
        self.threshold = values["threshold"]
        self._residuals = {}

    def params(self):
        return {"type": self.type, "threshold": self.threshold}

    def __call__(self, key, source, gradient):
        """The dequantized 2-bit value of ``gradient`` (a torch tensor) pushed by ``source`` for
        ``key``; that pair's residual is updated in place."""
        residual = self._residuals.get((key, source))
        if residual is None or residual.shape != gradient.shape or residual.device != gradient.device:
            residual = torch.zeros(gradient.shape, dtype=torch.float32, device=gradient.device)
            self._residuals[(key, source)] = residual
        residual.add_(gradient.to(torch.float32))
        threshold = self.threshold
        positive = residual >= threshold
        negative = residual <= -threshold
        quantized = torch.zeros_like(residual)
        quantized[positive] = threshold
        quantized[negative] = -threshold
        residual.sub_(quantized)
        return quantized.to(gradient.dtype)
