"""FTML, Follow the Moving Leader (MXNet's ``ftml``), on torch tensors.

At step ``t``, with ``g = clip(rescale_grad * grad + wd * weight, clip_gradient)``::

    v = beta2 * v + (1 - beta2) * g**2
    d_t = (1 - beta1**t) / lr * (sqrt(v / (1 - beta2**t)) + epsilon)
    z = beta1 * z + (1 - beta1) * g - (d_t - beta1 * d) * weight
    d = d_t
    weight = -z / d_t

The state is the tuple ``(d, v, z)``.
"""
from __future__ import annotations

import torch

from ..ops.optimizer_kernels import ftml_step  # noqa: F401
from .optimizer import Optimizer, register, _kernel_clip, _one_minus, _power, _zero_states

__all__ = ["FTML", "ftml_step"]


@register
class FTML(Optimizer):
    """FTML (MXNet's ``FTML``).

    Parameters
    ----------
    beta1 : float, default 0.6
    beta2 : float, default 0.999
    epsilon : float, default 1e-8
    **kwargs
        The base :class:`Optimizer` arguments.
    """

    def __init__(self, beta1=0.6, beta2=0.999, epsilon=1e-8, **kwargs):
        super().__init__(**kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return _zero_states(weight, 3)

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_step("FTML", index, weight, grad)
        t = self._index_update_count[index]
        d, v, z = state
        with torch.no_grad():
            ftml_step(weight._tensor, grad._tensor, d._tensor, v._tensor, z._tensor, lr=lr, wd=wd, t=t,
                      beta1=self.beta1, beta2=self.beta2, epsilon=self.epsilon,
                      rescale_grad=self.rescale_grad, clip_gradient=self.clip_gradient)
