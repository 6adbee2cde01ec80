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

import warnings

import numpy as np
import torch

from ..ndarray.ndarray import zeros
from .optimizer import Optimizer, register, _check_arrays, _as_list
from .sgd import sgd_step

__all__ = ["LARS"]

_NO_SCALING_SUFFIXES = ("gamma", "beta", "bias")


@register
class LARS(Optimizer):
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

    def __init__(self, momentum=0.0, lazy_update=True, eta=0.001, eps=0, momentum_correction=True, **kwargs):
        super().__init__(**kwargs)
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
        lrs = [lr for _ in indices]
        for position, index in enumerate(indices):
            if index in self.param_dict:
                lrs[position] *= self.param_dict[index].lr_mult
            elif index in self.lr_mult:
                lrs[position] *= self.lr_mult[index]
            elif index in self.idx2name:
                lrs[position] *= self.lr_mult.get(self.idx2name[index], 1.0)
        return lrs

    def set_wd_mult(self, args_wd_mult):
        """Like :meth:`Optimizer.set_wd_mult`, but only names ending in ``_weight`` are decayed by default."""
        self.wd_mult = {}
        for name in self.idx2name.values():
            if not name.endswith("_weight"):
                self.wd_mult[name] = 0.0
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                if name in attr and "__wd_mult__" in attr[name]:
                    self.wd_mult[name] = float(attr[name]["__wd_mult__"])
        self.wd_mult.update(args_wd_mult)

    def create_state(self, index, weight):
        if self.momentum != 0.0:
            return zeros(weight.shape, weight.context, dtype=weight.dtype)
        return None

    def create_state_multi_precision(self, index, weight):
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            return (self.create_state(index, master), master)
        if weight.dtype == np.float16 and not self.multi_precision:
            warnings.warn("Accumulating with float16 in the LARS optimizer can lead to poor accuracy "
                          "or slow convergence; consider multi_precision=True")
        return self.create_state(index, weight)

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
                if multi_precision:
                    buffer, master = s
                    target, gradient = master._tensor, g._tensor.float()
                else:
                    buffer, target, gradient = s, w._tensor, g._tensor
                layer_lr = self._layer_lr(idx, target, gradient, lr, wd)
                sgd_step(target, gradient, None if buffer is None else buffer._tensor, lr=layer_lr, wd=wd,
                         momentum=momentum, rescale_grad=self.rescale_grad, clip_gradient=self.clip_gradient)
                if multi_precision:
                    w._tensor.copy_(master._tensor)

    def update(self, index, weight, grad, state):
        self._update_impl(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state):
        first = weight[0] if isinstance(index, (list, tuple)) else weight
        self._update_impl(index, weight, grad, state,
                          multi_precision=self.multi_precision and first.dtype == np.float16)
