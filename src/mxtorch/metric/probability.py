"""Metrics of predicted probabilities: Perplexity, CrossEntropy, NegativeLogLikelihood."""
from __future__ import annotations

import math

import torch

from ..base import MXNetError, MXNetIndexError
from .base import MetricShapeError, _tensor, _same_device, check_label_shapes, EvalMetric
from .registry import register, alias
from .classification import _check_axis

__all__ = ["Perplexity", "CrossEntropy", "NegativeLogLikelihood"]


@register
class Perplexity(EvalMetric):
    """exp of the mean negative log-probability of the labels (name ``'perplexity'``).

    Each label array is flattened; the prediction holds one probability
    vector per label element along ``axis`` (default -1, e.g. ``(N * T,
    vocabulary)``; other shapes are reshaped to that form).  Probabilities
    below 1e-10 count as 1e-10; label elements equal to ``ignore_label``
    (None = none) are not counted.  Labels outside ``[0, classes)`` are
    clipped into it, as MXNet's ``pick`` did.

    Raises MetricShapeError when a label's size differs from the number of
    prediction vectors.
    """

    def __init__(self, ignore_label, axis=-1, name="perplexity", output_names=None, label_names=None):
        super().__init__(name, ignore_label=ignore_label, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.ignore_label = ignore_label
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        loss, count = 0.0, 0
        for label, pred in zip(labels, preds):
            label, pred = _tensor(label, "label"), _tensor(pred, "prediction")
            _check_axis(self.axis, pred.dim(), "Perplexity")
            classes = int(pred.shape[self.axis])
            if label.numel() * classes != pred.numel():
                raise MetricShapeError(f"Perplexity: shape mismatch: labels {tuple(label.shape)} vs. "
                                       f"predictions {tuple(pred.shape)}")
            probabilities = torch.movedim(pred, self.axis, -1).reshape(-1, classes)
            label = _same_device(label, pred).reshape(-1)
            index = label.to(torch.int32).to(torch.int64).clamp(0, classes - 1)
            picked = probabilities.gather(1, index.reshape(-1, 1)).reshape(-1)
            if self.ignore_label is not None:
                ignore = (label == self.ignore_label).to(picked.dtype)
                count = count - ignore.sum()
                picked = picked * (1 - ignore) + ignore
            loss = loss - torch.log(torch.clamp(picked, min=1e-10)).sum()
            count = count + int(picked.numel())
        self._accumulate(loss, count)

    def get(self):
        num_inst = self.num_inst
        if num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, math.exp(self.sum_metric / num_inst))

    def get_global(self):
        global_num_inst = self.global_num_inst
        if global_num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, math.exp(self.global_sum_metric / global_num_inst))


def _picked_log_loss(metric, labels, preds, eps):
    """Sum of ``-log(pred[i, label[i]] + eps)`` and the number of samples, over all pairs."""
    labels, preds = check_label_shapes(labels, preds, True)
    for label, pred in zip(labels, preds):
        label, pred = _tensor(label, "label"), _tensor(pred, "prediction")
        label = label.reshape(-1)
        if pred.dim() < 2:
            raise MetricShapeError(f"{metric}: predictions must be (batch, classes) probabilities, got shape "
                                   f"{tuple(pred.shape)}")
        num_examples = int(pred.shape[0])
        if label.shape[0] != num_examples:
            raise MetricShapeError(f"{metric}: {label.shape[0]} labels for {num_examples} predictions")
        classes = int(pred.shape[1])
        index = label.to(torch.int64)
        if pred.device.type != "cpu":
            if index.device.type == "cpu":
                # labels from a host iterator: checking them costs no device synchronisation
                if index.numel() and (int(index.max()) >= classes or int(index.min()) < -classes):
                    raise MXNetIndexError(f"{metric}: labels must be class indices in [0, {classes}), got values "
                                     f"in [{int(index.min())}, {int(index.max())}]")
            else:
                index = index.clamp(-classes, classes - 1)  # an out-of-range index would abort the device
            index = index.to(pred.device, non_blocking=True)
        try:
            probability = pred[torch.arange(num_examples, device=pred.device), index]
        except IndexError as error:
            raise MXNetIndexError(f"{metric}: labels must be class indices in [0, {classes}): {error}") from None
        yield (-torch.log(probability + eps)).sum(), num_examples


class _PickedLogLoss(EvalMetric):
    """Mean of ``-log(p[label] + eps)`` over samples: CrossEntropy and NegativeLogLikelihood
    (``_checked_as`` names the metric in error messages)."""

    _checked_as = None

    def __init__(self, eps, name, output_names, label_names):
        super().__init__(name, eps=eps, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.eps = eps

    def update(self, labels, preds):
        for loss, count in _picked_log_loss(self._checked_as, labels, preds, self.eps):
            self._accumulate(loss, count)


@register
@alias("ce")
class CrossEntropy(_PickedLogLoss):
    """Mean cross-entropy ``-log(p[label] + eps)`` over samples (name ``'cross-entropy'``).

    Predictions are probabilities ``(batch, classes)``; labels class
    indices, flattened to ``(batch,)``.  Raises MetricShapeError when the
    numbers of labels and predictions differ and MXNetError for labels
    outside the classes.
    """

    _checked_as = "CrossEntropy"

    def __init__(self, eps=1e-12, name="cross-entropy", output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
@alias("nll_loss")
class NegativeLogLikelihood(_PickedLogLoss):
    """Mean negative log-likelihood ``-log(p[label] + eps)`` (name ``'nll-loss'``); same as CrossEntropy."""

    _checked_as = "NegativeLogLikelihood"

    def __init__(self, eps=1e-12, name="nll-loss", output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)
