"""Dynamic loss scaling for AMP (MXNet's ``amp.loss_scaler.LossScaler``).

The scale starts at 2**16.  Each ``has_overflow`` check that finds a non-finite gradient
halves the scale for the next step; after 2000 steps in a row without overflow it doubles,
up to 2**24.
"""
from __future__ import annotations

import logging

import numpy as np

__all__ = ["LossScaler"]


class LossScaler:
    """Dynamic loss scale: ``loss_scale`` (float) is the factor applied to the loss now."""

    def __init__(self):
        self._loss_scale = 2.0 ** 16
        self._next_loss_scale = self._loss_scale
        self._max_loss_scale = 2.0 ** 24
        self._scale_seq_len = 2000
        self._unskipped = 0

    @property
    def loss_scale(self):
        return self._loss_scale

    def has_overflow(self, params):
        """True when a gradient of ``params`` (Gluon Parameters: ``list_grad()``, or NDArrays)
        holds inf or nan; updates the scale used from the next step on."""
        overflow = False
        for param in params:
            grads = param.list_grad() if hasattr(param, "list_grad") else [param]
            for grad in grads:
                if grad is not None and not np.isfinite(grad.asnumpy()).all():
                    overflow = True
                    break
            if overflow:
                break
        self._loss_scale = self._next_loss_scale
        if overflow:
            self._next_loss_scale = self._loss_scale / 2.0
            self._unskipped = 0
            logging.info("AMP: decreasing loss scale to %f", self._next_loss_scale)
        else:
            self._unskipped += 1
        if self._unskipped == self._scale_seq_len:
            self._unskipped = 0
            self._next_loss_scale = min(self._max_loss_scale, self._loss_scale * 2.0)
            logging.info("AMP: increasing loss scale to %f", self._next_loss_scale)
        return overflow

# names MXNet 1.9.1's mxnet.contrib.amp.loss_scaler had in its namespace (imported there, not defined)
from ...ndarray import multi_all_finite  # noqa: E402,F401
