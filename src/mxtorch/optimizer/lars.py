"""LARS, layer-wise adaptive rate scaling on SGD (MXNet's ``lars``), on torch tensors.

Each parameter whose name does not end in ``gamma``, ``beta`` or ``bias`` gets its own
learning rate::

    lr_layer = lr * eta * ||w|| / (||rescale_grad * grad|| + wd * ||w|| + eps)
               (when both norms are positive; otherwise lr)

and then takes an SGD step (see :mod:`.sgd`).  With ``momentum_correction`` the momentum is
scaled by ``current lr / previous lr`` when the schedule changes the rate.  Only names ending
in ``_weight`` are decayed by default.  The state is as for SGD.
"""
from __future__ import annotations

import torch

from .optimizer import register, _check_arrays, _as_list, _check_number
from .sgd import sgd_step, _MomentumBufferOptimizer, _step_weight_or_master

__all__ = ["LARS"]

_NO_SCALING_SUFFIXES = ("gamma", "beta", "bias")


@register
class LARS(_MomentumBufferOptimizer):
    """LARS (MXNet's ``LARS``).

    Parameters
    ----------
    momentum : float, default 0.0
    lazy_update : bool, default True
        Accepted for compatibility; arrays are dense.
    eta : float, default 0.001
        LARS coefficient.
    eps : float, default 0
        Added to the denominator of the trust ratio.
    momentum_correction : bool, default True
        Scale the momentum by the ratio of the current to the previous learning rate.
    **kwargs
        The base :class:`Optimizer` arguments.
    """

    _display_name = "LARS"

    def __init__(self, momentum=0.0, lazy_update=True, eta=0.001, eps=0, momentum_correction=True, **kwargs):
        super().__init__(**kwargs)
        _check_number(type(self).__name__, "momentum", momentum)
        self.momentum = momentum
        self.momentum_correction = momentum_correction
        self.lazy_update = lazy_update
        self.aggregate_num = 4
        self.eta = eta
        self.eps = eps
        self.skip = 0
        self.last_lr = None
        self.cur_lr = None

    def _get_lrs(self, indices):
        if self.cur_lr is not None:
            self.last_lr = self.cur_lr
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        if self.cur_lr is None:
            self.last_lr = lr
        self.cur_lr = lr
        return self._multiplied(lr, indices, self.lr_mult, "lr_mult")

    @staticmethod
    def _decayed_by_default(name):
        """Unlike the base Optimizer, only names ending in ``_weight`` keep weight decay by default
        (as in :meth:`set_wd_mult` of MXNet's LARS)."""
        return name.endswith("_weight")

    def _layer_lr(self, index, weight, grad, lr, wd):
        name = self.idx2name[index] if index in self.idx2name else str(index)
        if name.endswith(_NO_SCALING_SUFFIXES):
            return lr
        weight_norm = float(torch.linalg.vector_norm(weight.float()))
        grad_norm = float(torch.linalg.vector_norm(grad.float())) * self.rescale_grad
        if weight_norm > 0.0 and grad_norm > 0.0:
            return lr * self.eta * weight_norm / (grad_norm + wd * weight_norm + self.eps)
        return lr

    def _update_impl(self, index, weight, grad, state, multi_precision=False):
        indices, weights, grads, states = _as_list(index, weight, grad, state)
        for w, g in zip(weights, grads):
            _check_arrays("LARS", w, g)
        self._update_count(indices)
        lrs = self._get_lrs(indices)
        wds = self._get_wds(indices)
        momentum = 0.0
        if self.momentum > 0:
            momentum = self.momentum * (self.cur_lr / self.last_lr) \
                if (self.momentum_correction and self.last_lr != 0) else self.momentum
        with torch.no_grad():
            for idx, w, g, s, lr, wd in zip(indices, weights, grads, states, lrs, wds):
                target = s[1] if multi_precision else w   # the float32 master copy or the weight
                layer_lr = self._layer_lr(idx, target._tensor, g._tensor, lr, wd)
                _step_weight_or_master(sgd_step, w, g, s, multi_precision, lr=layer_lr, wd=wd, momentum=momentum,
                                       rescale_grad=self.rescale_grad, clip_gradient=self.clip_gradient)
