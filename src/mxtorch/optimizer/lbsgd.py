"""Large-batch SGD (MXNet's ``lbsgd``): SGD on gradients accumulated over ``batch_scale``
calls, with a warm-up multiplier on the learning rate.

Gradients of each parameter are summed over ``batch_scale`` calls; on the last of them the
mean gradient takes an SGD step (see :mod:`.sgd`) with learning rate ``lr * multiplier``,
where the multiplier grows from 1 to ``batch_scale`` over ``warmup_epochs *
updates_per_epoch`` updates ('linear', 'power2' or 'sqrt'), or is the clipped LARS ratio
``sqrt(||w||^2 / (||g||^2 + wd ||w||^2))`` for ``warmup_strategy='lars'``.  Other calls
leave the weight unchanged.
"""
from __future__ import annotations

import logging
import math
import warnings

import numpy as np
import torch

from ..ndarray.ndarray import zeros
from .optimizer import Optimizer, register, _check_arrays, _check_number
from .sgd import sgd_step, _step_weight_or_master

__all__ = ["LBSGD"]


@register
class LBSGD(Optimizer):
    """Large-batch SGD (MXNet's ``LBSGD``).

    Parameters
    ----------
    momentum : float, default 0.0
    multi_precision : bool, default False
    warmup_strategy : {'linear', 'power2', 'sqrt', 'lars'}, default 'linear'
    warmup_epochs : int, default 5
    batch_scale : int, default 1
        Number of calls whose gradients form one large batch.
    updates_per_epoch : int, default 32
    begin_epoch : int, default 0
    num_epochs : int, default 60
    **kwargs
        The base :class:`Optimizer` arguments.
    """

    def __init__(self, momentum=0.0, multi_precision=False, warmup_strategy="linear", warmup_epochs=5,
                 batch_scale=1, updates_per_epoch=32, begin_epoch=0, num_epochs=60, **kwargs):
        super().__init__(**kwargs)
        logging.info("Running Large-Batch SGD Algorithm")
        logging.info("(Batch_scale=%f, warmup_epochs=%d, warmup_strategy=%s, updates_per_epoch=%d)",
                     batch_scale, warmup_epochs, warmup_strategy, updates_per_epoch)
        _check_number(type(self).__name__, "momentum", momentum)
        self.momentum = momentum
        self.multi_precision = multi_precision
        self.warmup_strategy = warmup_strategy
        self.warmup_epochs = warmup_epochs
        self.batch_scale = batch_scale
        self.updates_per_epoch = updates_per_epoch
        self.init_updates = begin_epoch * updates_per_epoch
        self.num_epochs = num_epochs
        self.lbmult = 1
        self.cumgrads = {}
        self.adaptive = False
        self.admult = 1

    def create_state(self, index, weight):
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            momentum = zeros(weight.shape, weight.context, dtype=np.float32) if self.momentum != 0.0 else None
            return (momentum, master)
        if weight.dtype == np.float16 and not self.multi_precision:
            warnings.warn("Accumulating with float16 in the LBSGD optimizer can lead to poor accuracy "
                          "or slow convergence; consider multi_precision=True")
        if self.momentum != 0.0:
            return zeros(weight.shape, weight.context, dtype=weight.dtype)
        return None

    def _get_lbmult(self, num_updates):
        """The warm-up multiplier of the learning rate after ``num_updates`` large-batch updates."""
        warmup_updates = self.warmup_epochs * self.updates_per_epoch
        maximum = float(self.batch_scale)
        if num_updates >= warmup_updates:
            return maximum
        if warmup_updates <= 1:
            return 1.0
        if self.warmup_strategy == "linear":
            return 1.0 + (maximum - 1) * num_updates / warmup_updates
        if self.warmup_strategy == "power2":
            return 1.0 + (maximum - 1) * (num_updates * num_updates) / (warmup_updates * warmup_updates)
        if self.warmup_strategy == "sqrt":
            return 1.0 + (maximum - 1) * math.sqrt(float(num_updates) / warmup_updates)
        return 1.0

    def _get_lars(self, weight, grad, wd):
        """The LARS multiplier ``sqrt(|w|^2 / (|g|^2 + wd |w|^2))`` clipped to [0.01, 100]."""
        weight_sq = float((weight.float() * weight.float()).sum())
        grad_sq = float((grad.float() * grad.float()).sum())
        lars = math.sqrt(weight_sq / (grad_sq + wd * weight_sq + 1e-18))
        return min(max(lars, 0.01), 100.0)

    def _cumulate_gradient(self, grad, index):
        entry = self.cumgrads.get(index, {})
        if entry and entry["num_cums"] > 0:
            cumulated = entry["cum_grad"] + grad
            count = entry["num_cums"] + 1
        else:
            cumulated = grad
            count = self.init_updates + 1
        entry = {"cum_grad": cumulated, "num_cums": count}
        self.cumgrads[index] = entry
        return entry

    def update(self, index, weight, grad, state):
        _check_arrays("LBSGD", weight, grad)
        lr = self._get_lr(index)
        wd = self._get_wd(index)
        self._update_count(index)
        entry = self._cumulate_gradient(grad, index)
        if entry["num_cums"] % self.batch_scale != 0:
            return
        mean_grad = entry["cum_grad"] / self.batch_scale
        if self.warmup_strategy == "lars":
            multiplier = self._get_lars(weight._tensor, mean_grad._tensor, wd)
        else:
            multiplier = self._get_lbmult(entry["num_cums"])
        lr = lr * multiplier
        momentum = self.momentum if self.momentum > 0 else 0.0
        with torch.no_grad():
            _step_weight_or_master(sgd_step, weight, mean_grad, state, isinstance(state, (list, tuple)), lr=lr,
                                   wd=wd, momentum=momentum, rescale_grad=self.rescale_grad,
                                   clip_gradient=self.clip_gradient)
        self.cumgrads[index]["cum_grad"] = 0
