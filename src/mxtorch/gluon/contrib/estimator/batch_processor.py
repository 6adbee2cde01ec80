"""How the Estimator computes one training or validation batch (MXNet 1.9.1's
``gluon.contrib.estimator.batch_processor``); subclass it to customise the step."""
from __future__ import annotations

from .... import autograd
from ...utils import split_and_load  # noqa: F401  (MXNet's module exposes it)

__all__ = ["BatchProcessor"]


class BatchProcessor:
    """``fit_batch`` runs forward and backward of ``estimator.net`` with ``estimator.loss``;
    ``evaluate_batch`` runs ``estimator.val_net`` with ``estimator.val_loss``.  Both split the
    batch ``(data, label)`` over ``estimator.context`` along ``batch_axis`` and return
    ``(data, label, pred, loss)``, each a list with one entry per context."""

    def _get_data_and_label(self, batch, ctx, batch_axis=0):
        return split_and_load(batch[0], ctx, batch_axis, even_split=False), \
            split_and_load(batch[1], ctx, batch_axis, even_split=False)

    def evaluate_batch(self, estimator, val_batch, batch_axis=0):
        data, label = self._get_data_and_label(val_batch, estimator.context, batch_axis)
        pred = [estimator.val_net(x) for x in data]
        loss = [estimator.val_loss(y_hat, y) for y_hat, y in zip(pred, label)]
        return data, label, pred, loss

    def fit_batch(self, estimator, train_batch, batch_axis=0):
        data, label = self._get_data_and_label(train_batch, estimator.context, batch_axis)
        with autograd.record():
            pred = [estimator.net(x) for x in data]
            loss = [estimator.loss(y_hat, y) for y_hat, y in zip(pred, label)]
        for value in loss:
            value.backward()
        return data, label, pred, loss
