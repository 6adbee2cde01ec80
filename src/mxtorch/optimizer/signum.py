"""Signum and signSGD (MXNet's ``signum``), on torch tensors.

With ``g = clip(rescale_grad * grad, clip_gradient)``::

    momentum == 0 (signSGD):  weight = (1 - lr * wd) * weight - lr * sign(g)
    momentum > 0 (Signum):    mom = momentum * mom - (1 - momentum) * (g + wd * weight)
                              weight = (1 - lr * wd_lh) * weight + lr * sign(mom)

``wd_lh`` is decoupled weight decay.  The state is the (negated) momentum, None for signSGD.
"""
from __future__ import annotations

import torch

from ..ops.optimizer_kernels import signsgd_step, signum_step  # noqa: F401
from ..ndarray.ndarray import zeros
from .optimizer import Optimizer, register, _kernel_clip, _one_minus, _check_number

__all__ = ["Signum", "signsgd_step", "signum_step"]


@register
class Signum(Optimizer):
    """Signum / signSGD (MXNet's ``Signum``).

    Parameters
    ----------
    learning_rate : float, default 0.01
    momentum : float, default 0.9
        0 gives signSGD (no state).
    wd_lh : float, default 0.0
        Decoupled weight decay (Loshchilov & Hutter).
    **kwargs
        The base :class:`Optimizer` arguments.
    """

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        _check_number(type(self).__name__, "momentum", momentum)
        self.momentum = momentum
        self.wd_lh = wd_lh

    def create_state(self, index, weight):
        if self.momentum != 0.0:
            return zeros(weight.shape, weight.context, dtype=weight.dtype)
        return None

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_step("Signum", index, weight, grad)
        with torch.no_grad():
            if state is not None:
                signum_step(weight._tensor, grad._tensor, state._tensor, lr=lr, wd=wd,
                            momentum=self.momentum if self.momentum > 0 else 0.0,
                            wd_lh=self.wd_lh or 0.0, rescale_grad=self.rescale_grad,
                            clip_gradient=self.clip_gradient)
            else:
                signsgd_step(weight._tensor, grad._tensor, lr=lr, wd=wd, rescale_grad=self.rescale_grad,
                             clip_gradient=self.clip_gradient)
