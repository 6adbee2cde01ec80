"""AdaDelta (MXNet's ``adadelta``), on torch tensors.  It has no learning rate.

Per step, with ``g = clip(rescale_grad * grad, clip_gradient)`` (clipped whenever
``clip_gradient`` is not None)::

    acc_g = rho * acc_g + (1 - rho) * g**2
    delta = sqrt(acc_delta + epsilon) / sqrt(acc_g + epsilon) * g
    acc_delta = rho * acc_delta + (1 - rho) * delta**2
    weight = weight - (delta + wd * weight)

The state is the tuple ``(acc_g, acc_delta)``.

MXNet's rule scaled the caller's gradient array in place (``grad *= rescale_grad``); mxtorch
leaves the gradient unchanged.
"""
from __future__ import annotations

import torch

from ..ops.optimizer_kernels import adadelta_step  # noqa: F401
from ..ndarray.ndarray import zeros
from .optimizer import Optimizer, register, _check_arrays, _python_clip

__all__ = ["AdaDelta", "adadelta_step"]


@register
class AdaDelta(Optimizer):
    """AdaDelta (MXNet's ``AdaDelta``).

    Parameters
    ----------
    rho : float, default 0.9
        Decay of both running averages.
    epsilon : float, default 1e-5
        Added inside both square roots.
    **kwargs
        The base :class:`Optimizer` arguments (the learning rate is not used).
    """

    def __init__(self, rho=0.90, epsilon=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return (zeros(weight.shape, weight.context), zeros(weight.shape, weight.context))

    def update(self, index, weight, grad, state):
        _check_arrays("AdaDelta", weight, grad)
        wd = self._get_wd(index)
        self._update_count(index)
        acc_g, acc_delta = state
        with torch.no_grad():
            adadelta_step(weight._tensor, grad._tensor, acc_g._tensor, acc_delta._tensor, wd=wd,
                          rho=self.rho, epsilon=self.epsilon, rescale_grad=self.rescale_grad,
                          clip_gradient=self.clip_gradient)
