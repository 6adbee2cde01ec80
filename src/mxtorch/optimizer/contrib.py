"""``mx.optimizer.contrib``: GroupAdaGrad, AdaGrad with one learning rate per row.

Per step, for a 2-D weight, with ``g = clip(rescale_grad * grad, clip_gradient)`` (clipped
whenever ``clip_gradient`` is not None)::

    history += mean(g**2, axis=1, keepdims=True)
    weight = weight - lr * g / sqrt(history + eps)

The state is ``history`` of shape ``(rows, 1)``.  Weight decay is not supported.
"""
from __future__ import annotations

import torch

from ..base import MXNetError
from ..ndarray.ndarray import NDArray, zeros  # noqa: F401
from ..ndarray import clip, mean, sqrt, square  # noqa: F401  (MXNet's module imported them)
from .optimizer import Optimizer, register, _python_clip
# names MXNet 1.9.1's mxnet.optimizer.contrib had in its namespace (imported there, not defined)
from ..ndarray import NDArray, clip, mean, sqrt, square  # noqa: E402,F401

__all__ = ["GroupAdaGrad"]


@register
class GroupAdaGrad(Optimizer):
    """Row-wise AdaGrad (MXNet's ``contrib.GroupAdaGrad``).

    Parameters
    ----------
    eps : float, default 1e-5
        Added to the history inside the square root (attribute ``float_stable_eps``).
    **kwargs
        The base :class:`Optimizer` arguments; a non-zero weight decay raises MXNetError.
    """

    def __init__(self, eps=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        if len(weight.shape) != 2:
            raise MXNetError(f"GroupAdaGrad: weights must be 2-D (rows, columns), got shape {weight.shape}")
        return zeros((weight.shape[0], 1), weight.context)

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_step("GroupAdaGrad", index, weight, grad)
        if wd != 0:
            raise MXNetError(f"GroupAdaGrad: weight decay is not supported, got wd={wd} for parameter {index}")
        with torch.no_grad():
            g = _python_clip(grad._tensor * self.rescale_grad, self.clip_gradient)
            history = state._tensor
            history.add_((g * g).mean(dim=1, keepdim=True))
            weight._tensor.sub_(lr * g / (history + self.float_stable_eps).sqrt())
