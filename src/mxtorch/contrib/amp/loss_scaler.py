"""Dynamic loss scaling for AMP (MXNet's ``amp.loss_scaler.LossScaler``).

The scale starts at 2**16.  Each ``has_overflow`` check that finds a non-finite gradient
halves the scale for the next step; after 2000 steps in a row without overflow it doubles,
up to 2**24.
"""
from __future__ import annotations

import logging

from ...ndarray import multi_all_finite
from ...ndarray.ndarray import NDArray

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
        """True when the first-context gradient of one of ``params`` (Gluon Parameters; those
        without gradient are skipped) holds an inf or a nan, as MXNet checked it
        (``multi_all_finite`` over ``param._grad[0]``).  Moves the scale: the scale in use
        becomes the one chosen at the previous check; an overflow halves it for the next step,
        ``_scale_seq_len`` checks in a row without one double it (at most ``2**24``)."""
        grads = [param for param in params if isinstance(param, NDArray)] + \
            [param._grad[0] for param in params if not isinstance(param, NDArray) and param._grad is not None]
        finite = multi_all_finite(*grads, num_arrays=len(grads)) if grads else None
        overflow = finite is not None and not bool(finite.asnumpy()[0])
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
from ...ndarray import ndarray as nd  # noqa: E402,F401
from ... import autograd as ag  # noqa: E402,F401
