"""Nesterov Adam (MXNet's ``nadam``), on torch tensors.

At step ``t``, with ``g = clip(rescale_grad * grad + wd * weight, clip_gradient)``::

    momentum_t   = beta1 * (1 - 0.5 * 0.96**(t * schedule_decay))
    momentum_t+1 = beta1 * (1 - 0.5 * 0.96**((t + 1) * schedule_decay))
    m_schedule  *= momentum_t                       (kept on the optimizer, shared by all
                                                     parameters, as in MXNet)
    mean = beta1 * mean + (1 - beta1) * g
    var  = beta2 * var + (1 - beta2) * g**2
    m_bar = (1 - momentum_t) * g / (1 - m_schedule)
            + momentum_t+1 * mean / (1 - m_schedule * momentum_t+1)
    weight = weight - lr * m_bar / (sqrt(var / (1 - beta2**t)) + epsilon)

The state is the tuple ``(mean, var)``.
"""
from __future__ import annotations

import torch

from .optimizer import Optimizer, register, _python_clip, _zero_states

__all__ = ["Nadam"]


@register
class Nadam(Optimizer):
    """Adam with Nesterov momentum (MXNet's ``Nadam``).

    Parameters
    ----------
    learning_rate : float, default 0.001
    beta1 : float, default 0.9
    beta2 : float, default 0.999
    epsilon : float, default 1e-8
    schedule_decay : float, default 0.004
        Decay of the momentum schedule.
    **kwargs
        The base :class:`Optimizer` arguments.
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 schedule_decay=0.004, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.schedule_decay = schedule_decay
        self.m_schedule = 1.0

    def create_state(self, index, weight):
        return _zero_states(weight, 2)

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_step("Nadam", index, weight, grad)
        t = self._index_update_count[index]
        momentum_t = self.beta1 * (1.0 - 0.5 * (0.96 ** (t * self.schedule_decay)))
        momentum_next = self.beta1 * (1.0 - 0.5 * (0.96 ** ((t + 1) * self.schedule_decay)))
        self.m_schedule = self.m_schedule * momentum_t
        m_schedule_next = self.m_schedule * momentum_next
        mean, var = state
        with torch.no_grad():
            w = weight._tensor
            g = _python_clip(grad._tensor * self.rescale_grad + wd * w, self.clip_gradient)
            mean._tensor.mul_(self.beta1).add_((1.0 - self.beta1) * g)
            var._tensor.mul_(self.beta2).add_((1.0 - self.beta2) * g * g)
            g_prime = g / (1.0 - self.m_schedule)
            mean_prime = mean._tensor / (1.0 - m_schedule_next)
            var_prime = var._tensor / (1.0 - self.beta2 ** t)
            mean_bar = (1.0 - momentum_t) * g_prime + momentum_next * mean_prime
            w.sub_(lr * mean_bar / (var_prime.sqrt() + self.epsilon))
