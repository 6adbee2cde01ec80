"""LAMB, layer-wise adaptive moments (MXNet's ``lamb``), on torch tensors.

At step ``t``, with ``g = clip(rescale_grad * grad, clip_gradient)``::

    mean = beta1 * mean + (1 - beta1) * g
    var  = beta2 * var + (1 - beta2) * g**2
    update = mean_hat / (sqrt(var_hat) + epsilon) + wd * weight
             (mean_hat = mean / (1 - beta1**t), var_hat = var / (1 - beta2**t) when
              bias_correction, else mean and var)
    r1 = ||weight|| clipped to [lower_bound, upper_bound] (each when set),  r2 = ||update||
    weight = weight - lr * (r1 / r2 if r1 > 0 and r2 > 0 else 1) * update

The state is ``(mean, var)``; with ``multi_precision`` and a float16 weight it is
``(float32 master weight, (mean, var))``.
"""
from __future__ import annotations

import torch

from ..ops.optimizer_kernels import lamb_step  # noqa: F401
from .optimizer import register, _FusedUpdateOptimizer, _check_arrays, _kernel_clip, _as_list, _one_minus, _power, _zero_states

__all__ = ["LAMB", "lamb_step"]


@register
class LAMB(_FusedUpdateOptimizer):
    """LAMB (MXNet's ``LAMB``).

    Parameters
    ----------
    learning_rate : float, default 0.001
    beta1 : float, default 0.9
    beta2 : float, default 0.999
    epsilon : float, default 1e-6
    lower_bound, upper_bound : float, optional
        Bounds on the weight norm ``r1`` of the trust ratio (ignored when None or 0).
    bias_correction : bool, default True
    **kwargs
        The base :class:`Optimizer` arguments.

    ``aggregate_num`` is 45 as in MXNet, so ``update`` also takes lists of parameters.
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6, lower_bound=None,
                 upper_bound=None, bias_correction=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.bias_correction = bias_correction
        self.aggregate_num = 45

    def create_state(self, index, weight):
        return _zero_states(weight, 2)

    def _update_impl(self, index, weight, grad, state, multi_precision=False):
        indices, weights, grads, states = _as_list(index, weight, grad, state)
        steps, lrs, wds = [], [], []
        for idx, w, g in zip(indices, weights, grads):
            _check_arrays("LAMB", w, g)
            self._update_count(idx)
            steps.append(self._index_update_count[idx])
            lrs.append(self._get_lr(idx))
            wds.append(self._get_wd(idx))
        with torch.no_grad():
            for w, g, s, t, lr, wd in zip(weights, grads, states, steps, lrs, wds):
                if multi_precision:
                    master, (mean, var) = s
                    target, gradient = master._tensor, g._tensor.float()
                else:
                    mean, var = s
                    target, gradient = w._tensor, g._tensor
                lamb_step(target, gradient, mean._tensor, var._tensor, lr=lr, wd=wd, t=t, beta1=self.beta1,
                          beta2=self.beta2, epsilon=self.epsilon, bias_correction=self.bias_correction,
                          lower_bound=self.lower_bound, upper_bound=self.upper_bound,
                          rescale_grad=self.rescale_grad, clip_gradient=self.clip_gradient)
                if multi_precision:
                    w._tensor.copy_(master._tensor)
