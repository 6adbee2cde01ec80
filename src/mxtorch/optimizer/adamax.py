"""AdaMax (MXNet's ``adamax``), on torch tensors.

At step ``t``, with ``g = clip(rescale_grad * grad + wd * weight, clip_gradient)`` (clipped
whenever ``clip_gradient`` is not None)::

    mean = beta1 * mean + (1 - beta1) * g
    u = maximum(beta2 * u, |g|)
    weight = weight - lr / (1 - beta1**t) * mean / u

The state is the tuple ``(mean, u)``.
"""
from __future__ import annotations

import torch

from ..ops.optimizer_kernels import adamax_step  # noqa: F401
from .optimizer import Optimizer, register, _python_clip, _zero_states

__all__ = ["Adamax", "adamax_step"]


@register
class Adamax(Optimizer):
    """AdaMax, Adam with the infinity norm (MXNet's ``Adamax``).

    Parameters
    ----------
    learning_rate : float, default 0.002
    beta1 : float, default 0.9
    beta2 : float, default 0.999
    **kwargs
        The base :class:`Optimizer` arguments.
    """

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2

    def create_state(self, index, weight):
        return _zero_states(weight, 2)

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_step("Adamax", index, weight, grad)
        t = self._index_update_count[index]
        lr /= (1.0 - self.beta1 ** t)
        mean, u = state
        with torch.no_grad():
            adamax_step(weight._tensor, grad._tensor, mean._tensor, u._tensor, lr=lr, wd=wd,
                        beta1=self.beta1, beta2=self.beta2, rescale_grad=self.rescale_grad,
                        clip_gradient=self.clip_gradient)
