"""Delay-compensated asynchronous SGD (MXNet's ``dcasgd``), on torch tensors.

With ``g = clip(rescale_grad * grad, clip_gradient)`` (clipped whenever ``clip_gradient``
is not None) and ``previous`` the weight before the last step::

    step = -lr * (g + wd * weight + lamda * g**2 * (weight - previous))
    momentum == 0:  weight = weight + step
    momentum > 0:   mom = momentum * mom + step;  weight = weight + mom
    previous = weight before this step

The state is ``(momentum buffer or None, previous weight)``.  MXNet 1.9.1 raised an error for
``momentum > 0`` (it tested a multi-element array for truth); mxtorch runs the momentum rule.
"""
from __future__ import annotations

import torch

from ..ops.optimizer_kernels import dcasgd_step  # noqa: F401
from ..ndarray.ndarray import zeros
from .optimizer import Optimizer, register, _python_clip, _check_number

__all__ = ["DCASGD", "dcasgd_step"]


@register
class DCASGD(Optimizer):
    """DC-ASGD (MXNet's ``DCASGD``).

    Parameters
    ----------
    momentum : float, default 0.0
    lamda : float, default 0.04
        Strength of the delay compensation.
    **kwargs
        The base :class:`Optimizer` arguments.
    """

    def __init__(self, momentum=0.0, lamda=0.04, **kwargs):
        super().__init__(**kwargs)
        _check_number(type(self).__name__, "momentum", momentum)
        self.momentum = momentum
        self.weight_previous = {}
        self.lamda = lamda

    def create_state(self, index, weight):
        if self.momentum == 0.0:
            return (None, weight.copy())
        return (zeros(weight.shape, weight.context, dtype=weight.dtype), weight.copy())

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_step("DCASGD", index, weight, grad)
        buffer, previous = state
        with torch.no_grad():
            dcasgd_step(weight._tensor, grad._tensor, None if buffer is None else buffer._tensor,
                        previous._tensor, lr=lr, wd=wd, momentum=self.momentum, lamda=self.lamda,
                        rescale_grad=self.rescale_grad, clip_gradient=self.clip_gradient)
