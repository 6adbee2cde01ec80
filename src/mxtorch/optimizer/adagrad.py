"""AdaGrad (MXNet's ``adagrad``), on torch tensors.

Per step, with ``g = clip(rescale_grad * grad, clip_gradient)`` (clipped whenever
``clip_gradient`` is not None, as MXNet's Python rule does)::

    history += g**2
    weight = weight - lr * (g / sqrt(history + eps) + wd * weight)

The state is the ``history`` array (float32, like MXNet's).
"""
from __future__ import annotations

import torch

from ..ops.optimizer_kernels import adagrad_step  # noqa: F401
from ..ndarray.ndarray import zeros
from .optimizer import Optimizer, register, _python_clip

__all__ = ["AdaGrad", "adagrad_step"]


@register
class AdaGrad(Optimizer):
    """AdaGrad (MXNet's ``AdaGrad``).

    Parameters
    ----------
    eps : float, default 1e-7
        Added to the history inside the square root (attribute ``float_stable_eps``).
    **kwargs
        The base :class:`Optimizer` arguments.
    """

    def __init__(self, eps=1e-7, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        return zeros(weight.shape, weight.context)

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_step("AdaGrad", index, weight, grad)
        with torch.no_grad():
            adagrad_step(weight._tensor, grad._tensor, state._tensor, lr=lr, wd=wd,
                         eps=self.float_stable_eps, rescale_grad=self.rescale_grad,
                         clip_gradient=self.clip_gradient)
