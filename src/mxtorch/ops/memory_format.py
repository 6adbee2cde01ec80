"""Channels-last memory for the CPU kernels that run faster on it, as a property of the
operator instance.

oneDNN's CPU convolutions and torch's CPU max pooling are several times faster on 4-D float32
data laid out channels-last (NHWC) in memory; the logical layout, and every shape, stays NCHW.
An operator with such kernels (``ChannelsLastKernels``) copies its data into that memory format
while its ``channels_last_memory`` is True (the default).  A graph traced for oneDNN's own
blocked formats (the inference plan's traced graph) runs the operator's ``on_plain_memory()``
copy instead, which leaves those copies out: the choice is the operator's state, set on the
instance a caller runs, never a switch shared by every operator.
"""
from __future__ import annotations

import copy

import torch

__all__ = ["ChannelsLastKernels"]


class ChannelsLastKernels:
    """Mixin of operators whose 4-D float32 CPU computation runs on channels-last memory."""

    channels_last_memory = True

    def on_plain_memory(self):
        """A copy of this operator that computes on the memory format its inputs have."""
        variant = copy.copy(self)
        variant.channels_last_memory = False
        return variant

    def wants_channels_last(self, tensor):
        """Whether ``tensor`` is copied to channels-last memory before this operator's kernel:
        4-D float32 on the CPU, while ``channels_last_memory`` is True."""
        return (self.channels_last_memory and tensor.dim() == 4 and tensor.device.type == "cpu"
                and tensor.dtype == torch.float32 and not _is_vmapped(tensor))


def _is_vmapped(tensor):
    """Whether ``tensor`` is a ``torch.vmap`` batch (test_utils' batched finite differences),
    whose memory format cannot be chosen: vmap refuses is_contiguous(channels_last)."""
    check = getattr(getattr(torch._C, "_functorch", None), "is_batchedtensor", None)
    return bool(check is not None and check(tensor))
