"""MXNet's ``test`` optimizer: ``weight += rescale_grad * grad`` and the state mirrors the weight."""
from __future__ import annotations

import torch

from ..ndarray.ndarray import zeros
from .optimizer import Optimizer, register

__all__ = ["Test"]


@register
class Test(Optimizer):
    """Adds the rescaled gradient to the weight and copies the result into its state (an array of
    the weight's shape).  Used by MXNet's own tests; it does not count updates."""

    def create_state(self, index, weight):
        return zeros(weight.shape, weight.context)

    def update(self, index, weight, grad, state):
        with torch.no_grad():
            weight._tensor.add_(grad._tensor * self.rescale_grad)
            state._tensor.copy_(weight._tensor)
