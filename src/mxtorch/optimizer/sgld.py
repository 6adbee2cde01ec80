"""Stochastic gradient Langevin dynamics (MXNet's ``sgld``), on torch tensors.

With ``g = clip(rescale_grad * grad, clip_gradient)`` (clipped whenever ``clip_gradient`` is
not None)::

    weight = weight - lr / 2 * (g + wd * weight) + noise,   noise ~ N(0, lr)

The noise comes from torch's generator on the weight's device (``mx.random.seed`` repeats
it).  No state.
"""
from __future__ import annotations

import math

import torch

from ..ops.optimizer_kernels import sgld_step  # noqa: F401
from .optimizer import Optimizer, register, _python_clip

__all__ = ["SGLD", "sgld_step"]


@register
class SGLD(Optimizer):
    """SGLD (MXNet's ``SGLD``); takes the base :class:`Optimizer` arguments."""

    def create_state(self, index, weight):
        return None

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_step("SGLD", index, weight, grad)
        with torch.no_grad():
            sgld_step(weight._tensor, grad._tensor, lr=lr, wd=wd, rescale_grad=self.rescale_grad,
                      clip_gradient=self.clip_gradient)
