"""RMSProp, plain (Tieleman & Hinton) or centered (Graves), as MXNet's ``rmsprop``.

With ``g = clip(rescale_grad * grad + wd * weight, clip_gradient)`` (weight decay before
the clip, as in MXNet's ``rmsprop_update`` / ``rmspropalex_update`` kernels)::

    plain:     n = gamma1 * n + (1 - gamma1) * g**2
               weight = weight - lr * g / sqrt(n + epsilon)
    centered:  n = gamma1 * n + (1 - gamma1) * g**2
               mean_g = gamma1 * mean_g + (1 - gamma1) * g
               delta = gamma2 * delta - lr * g / sqrt(n - mean_g**2 + epsilon)
               weight = weight + delta

then, if ``clip_weights`` is set, the weight is clipped to ``[-clip_weights, clip_weights]``.
The state is ``(n,)`` (a 1-tuple) or ``(n, mean_g, delta)``.
"""
from __future__ import annotations

import torch

from ..ops.optimizer_kernels import rmsprop_step, rmsprop_centered_step  # noqa: F401
from ..ndarray.ndarray import zeros
from .optimizer import Optimizer, register, _kernel_clip, _one_minus

__all__ = ["RMSProp", "rmsprop_step", "rmsprop_centered_step"]


@register
class RMSProp(Optimizer):
    """RMSProp (MXNet's ``RMSProp``).

    Parameters
    ----------
    learning_rate : float, default 0.001
    gamma1 : float, default 0.9
        Decay of the running average of squared gradients (and of gradients when centered).
    gamma2 : float, default 0.9
        Momentum of the centered variant.
    epsilon : float, default 1e-8
        Added inside the square root.
    centered : bool, default False
        Use Graves' centered variant.
    clip_weights : float, optional
        Clip the weights to ``[-clip_weights, clip_weights]`` after each step.
    **kwargs
        The base :class:`Optimizer` arguments.
    """

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8, centered=False,
                 clip_weights=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1 = gamma1
        self.gamma2 = gamma2
        self.centered = centered
        self.epsilon = epsilon
        self.clip_weights = clip_weights

    def create_state(self, index, weight):
        if self.centered:
            return (zeros(weight.shape, weight.context), zeros(weight.shape, weight.context),
                    zeros(weight.shape, weight.context))
        return (zeros(weight.shape, weight.context),)

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_step("RMSProp", index, weight, grad)
        with torch.no_grad():
            if not self.centered:
                (n,) = state
                rmsprop_step(weight._tensor, grad._tensor, n._tensor, lr=lr, wd=wd, gamma1=self.gamma1,
                             epsilon=self.epsilon, rescale_grad=self.rescale_grad,
                             clip_gradient=self.clip_gradient, clip_weights=self.clip_weights)
            else:
                n, mean_g, delta = state
                rmsprop_centered_step(weight._tensor, grad._tensor, n._tensor, mean_g._tensor, delta._tensor,
                                      lr=lr, wd=wd, gamma1=self.gamma1, gamma2=self.gamma2,
                                      epsilon=self.epsilon, rescale_grad=self.rescale_grad,
                                      clip_gradient=self.clip_gradient, clip_weights=self.clip_weights)
