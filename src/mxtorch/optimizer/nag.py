"""Nesterov accelerated gradient (MXNet's ``nag``), on torch tensors.

Per step, with ``g = clip(rescale_grad * grad, clip_gradient)`` (MXNet's ``nag_mom_update``
kernel adds weight decay after the clip) and ``mom`` the lr-scaled momentum::

    mom' = momentum * mom
    weight_new = weight + momentum * (mom' - lr * (g + wd * weight)) - lr * (g + wd * weight)
    mom = mom' - lr * (g + wd * weight_new)

The last line reproduces MXNet 1.9.1 exactly: its kernel writes the weight in place before it
updates the momentum, so the momentum's weight-decay term sees the new weight.

Without momentum the step is plain SGD.  The state is the momentum buffer (None without
momentum); with ``multi_precision`` and a float16 weight it is ``(buffer, float32 master)``.
"""
from __future__ import annotations

import numpy as np
import torch

from ..ops.optimizer_kernels import nag_step  # noqa: F401
from .optimizer import register, _kernel_clip, _check_number
from .sgd import sgd_step, _MomentumBufferOptimizer, _step_weight_or_master

__all__ = ["NAG", "nag_step"]


@register
class NAG(_MomentumBufferOptimizer):
    """Nesterov accelerated SGD (MXNet's ``NAG``).

    Parameters
    ----------
    momentum : float, default 0.0
        Momentum decay; 0 keeps no state and steps like SGD.
    **kwargs
        The base :class:`Optimizer` arguments.
    """

    _display_name = "NAG"

    def __init__(self, momentum=0.0, **kwargs):
        super().__init__(**kwargs)
        _check_number(type(self).__name__, "momentum", momentum)
        self.momentum = momentum

    def _update_impl(self, index, weight, grad, state, multi_precision=False):
        lr, wd = self._begin_step("NAG", index, weight, grad)
        momentum = self.momentum if self.momentum > 0 else 0.0
        with torch.no_grad():
            _step_weight_or_master(nag_step, weight, grad, state, multi_precision, lr=lr, wd=wd, momentum=momentum,
                                   rescale_grad=self.rescale_grad, clip_gradient=self.clip_gradient)

    def update_multi_precision(self, index, weight, grad, state):
        use_multi_precision = self.multi_precision and weight.dtype == np.float16 \
            and isinstance(state, (tuple, list))
        self._update_impl(index, weight, grad, state, multi_precision=use_multi_precision)
