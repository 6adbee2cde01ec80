"""SGD with momentum and weight decay (MXNet's ``sgd``, ``ccsgd``), on torch tensors.

Per step, with ``g = clip(rescale_grad * grad, clip_gradient)`` (weight decay is added
outside the clip, as in MXNet's ``sgd_update`` / ``sgd_mom_update`` kernels)::

    momentum == 0:  weight = weight - lr * (g + wd * weight)
    momentum > 0:   mom = momentum * mom - lr * wd * weight - lr * g;  weight = weight + mom

The momentum buffer is the state (None without momentum).  With ``multi_precision`` and a
float16 weight the state is ``(momentum buffer or None, float32 master weight)``.
"""
from __future__ import annotations

import warnings

import numpy as np
import torch

from ..ndarray.ndarray import zeros
from .optimizer import Optimizer, register, _check_arrays, _kernel_clip, _as_list

__all__ = ["SGD", "ccSGD", "sgd_step"]


def sgd_step(weight, grad, momentum_buffer, *, lr, wd, momentum, rescale_grad, clip_gradient):
    """One SGD step on torch tensors, in place on ``weight`` (and ``momentum_buffer``).

    ``grad`` is cast to ``weight``'s dtype and never modified; ``momentum_buffer`` may be
    None (plain SGD).  Without clipping the rescale is folded into the step's scalar, so no
    temporary the size of the gradient is allocated.
    """
    if grad.dtype != weight.dtype:
        grad = grad.to(weight.dtype)
    if clip_gradient and clip_gradient >= 0:
        grad = _kernel_clip(grad * rescale_grad, clip_gradient)
        scale = 1.0
    else:
        scale = rescale_grad
    if momentum_buffer is None:
        if wd:
            weight.mul_(1.0 - lr * wd)
        weight.add_(grad, alpha=-lr * scale)
    else:
        momentum_buffer.mul_(momentum)
        if wd:
            momentum_buffer.add_(weight, alpha=-lr * wd)
        momentum_buffer.add_(grad, alpha=-lr * scale)
        weight.add_(momentum_buffer)


@register
class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum (MXNet's ``SGD``).

    Parameters
    ----------
    momentum : float, default 0.0
        Momentum decay; 0 keeps no state.
    lazy_update : bool, default True
        Accepted for compatibility; mxtorch arrays are dense, so every row is updated.
    **kwargs
        The base :class:`Optimizer` arguments (``learning_rate`` defaults to 0.01).

    ``aggregate_num`` is 4 as in MXNet, so an :class:`Updater` hands this optimizer up to
    four parameters per call; ``update`` accepts one index or lists.
    """

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update
        self.aggregate_num = 4

    def create_state(self, index, weight):
        if self.momentum != 0.0:
            return zeros(weight.shape, weight.context, dtype=weight.dtype)
        return None

    def create_state_multi_precision(self, index, weight):
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            return (self.create_state(index, master), master)
        if weight.dtype == np.float16 and not self.multi_precision:
            warnings.warn("Accumulating with float16 in the SGD optimizer can lead to poor accuracy "
                          "or slow convergence; consider multi_precision=True")
        return self.create_state(index, weight)

    def _update_impl(self, index, weight, grad, state, multi_precision=False):
        indices, weights, grads, states = _as_list(index, weight, grad, state)
        for w, g in zip(weights, grads):
            _check_arrays(type(self).__name__, w, g)
        self._update_count(indices)
        lrs = self._get_lrs(indices)
        wds = self._get_wds(indices)
        momentum = self.momentum if self.momentum > 0 else 0.0
        with torch.no_grad():
            for w, g, s, lr, wd in zip(weights, grads, states, lrs, wds):
                if multi_precision:
                    buffer, master = s
                    sgd_step(master._tensor, g._tensor.float(), None if buffer is None else buffer._tensor,
                             lr=lr, wd=wd, momentum=momentum, rescale_grad=self.rescale_grad,
                             clip_gradient=self.clip_gradient)
                    w._tensor.copy_(master._tensor)
                else:
                    sgd_step(w._tensor, g._tensor, None if s is None else s._tensor, lr=lr, wd=wd,
                             momentum=momentum, rescale_grad=self.rescale_grad,
                             clip_gradient=self.clip_gradient)

    def update(self, index, weight, grad, state):
        self._update_impl(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state):
        first = weight[0] if isinstance(index, (list, tuple)) else weight
        self._update_impl(index, weight, grad, state,
                          multi_precision=self.multi_precision and first.dtype == np.float16)


@register
class ccSGD(SGD):
    """Deprecated alias of :class:`SGD` kept by MXNet for old scripts."""
