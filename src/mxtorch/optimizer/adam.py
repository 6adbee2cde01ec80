"""Adam (MXNet's ``adam``), on torch tensors.

At step ``t`` (the parameter's update count), with
``g = clip(rescale_grad * grad + wd * weight, clip_gradient)`` (weight decay enters
before the clip, as in MXNet's ``adam_update`` kernel)::

    mean = beta1 * mean + (1 - beta1) * g
    var  = beta2 * var + (1 - beta2) * g**2
    weight = weight - lr_t * mean / (sqrt(var) + epsilon)
    lr_t = lr * sqrt(1 - beta2**t) / (1 - beta1**t)

The state is the tuple ``(mean, var)``.
"""
from __future__ import annotations

import math

import torch

from ..ops.optimizer_kernels import adam_step  # noqa: F401
from .optimizer import Optimizer, register, _kernel_clip, _one_minus, _lazy_rows, _step_rows, _zero_states

__all__ = ["Adam", "adam_step"]


@register
class Adam(Optimizer):
    """Adam (MXNet's ``Adam``).

    Parameters
    ----------
    learning_rate : float, default 0.001
    beta1 : float, default 0.9
        Decay of the first-moment estimate.
    beta2 : float, default 0.999
        Decay of the second-moment estimate.
    epsilon : float, default 1e-8
        Added to ``sqrt(var)`` in the denominator.
    lazy_update : bool, default True
        With a ``row_sparse`` gradient, update only the rows it stores (the moments of the
        other rows do not decay), as MXNet's lazy update; False updates every row.
    **kwargs
        The base :class:`Optimizer` arguments.
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        return _zero_states(weight, 2)

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_step("Adam", index, weight, grad)
        t = self._index_update_count[index]
        lr *= math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)
        mean, var = state
        with torch.no_grad():
            _step_rows(adam_step, _lazy_rows(grad, self.lazy_update), weight._tensor, grad._tensor,
                       mean._tensor, var._tensor, lr=lr, wd=wd,
                       beta1=self.beta1, beta2=self.beta2, epsilon=self.epsilon,
                       rescale_grad=self.rescale_grad, clip_gradient=self.clip_gradient)
