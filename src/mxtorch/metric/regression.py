"""Regression metrics: MAE, MSE, RMSE and PearsonCorrelation."""
from __future__ import annotations

import math

import numpy as np
import torch

from .base import MetricShapeError, _tensor, _same_device, _numpy_result_type, check_label_shapes, EvalMetric
from .registry import register, alias

__all__ = ["MAE", "MSE", "RMSE", "PearsonCorrelation"]


def _regression_pairs(labels, preds):
    """(label, pred) tensor pairs with 1-D arrays made ``(N, 1)`` and both in numpy's result dtype."""
    labels, preds = check_label_shapes(labels, preds, True)
    for label, pred in zip(labels, preds):
        label, pred = _tensor(label, "label"), _tensor(pred, "prediction")
        label = _same_device(label, pred)
        if label.dim() == 1:
            label = label.reshape(-1, 1)
        if pred.dim() == 1:
            pred = pred.reshape(-1, 1)
        dtype = _numpy_result_type(label, pred)
        try:
            np.broadcast_shapes(tuple(label.shape), tuple(pred.shape))
        except ValueError:
            raise MetricShapeError(f"labels of shape {tuple(label.shape)} and predictions of shape "
                                   f"{tuple(pred.shape)} do not broadcast") from None
        yield label.to(dtype), pred.to(dtype)


@register
class MAE(EvalMetric):
    """Mean absolute error (name ``'mae'``): the mean over updates of each label/prediction pair's mean.

    As in MXNet 1.9.1 every pair counts as one instance whatever its size;
    1-D labels and predictions are treated as ``(N, 1)`` and the two
    broadcast against each other.
    """

    def __init__(self, name="mae", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)

    def update(self, labels, preds):
        for label, pred in _regression_pairs(labels, preds):
            self._accumulate(torch.abs(label - pred).mean(), 1)


@register
class MSE(EvalMetric):
    """Mean squared error (name ``'mse'``), averaged per label/prediction pair like :class:`MAE`."""

    def __init__(self, name="mse", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)

    def update(self, labels, preds):
        for label, pred in _regression_pairs(labels, preds):
            self._accumulate(((label - pred) ** 2.0).mean(), 1)


@register
class RMSE(EvalMetric):
    """Root mean squared error (name ``'rmse'``): the mean over pairs of each pair's RMSE, like :class:`MAE`."""

    def __init__(self, name="rmse", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)

    def update(self, labels, preds):
        for label, pred in _regression_pairs(labels, preds):
            self._accumulate(torch.sqrt(((label - pred) ** 2.0).mean()), 1)


@register
@alias("pearsonr")
class PearsonCorrelation(EvalMetric):
    """Pearson correlation of predictions and labels (name ``'pearsonr'``).

    ``average='macro'``: the mean of the per-pair correlations;
    ``'micro'``: the correlation of all values seen so far (running
    means, sums of squares and co-moment in float64).  Each pair must have
    equal label and prediction shapes (MetricShapeError otherwise).
    """

    def __init__(self, name="pearsonr", output_names=None, label_names=None, average="macro"):
        self.average = average
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)
        if self.average == "micro":
            self.reset_micro()

    def reset_micro(self):
        """Clear the running statistics of ``average='micro'``."""
        self._sse_p = 0
        self._mean_p = 0
        self._sse_l = 0
        self._mean_l = 0
        self._pred_nums = 0
        self._label_nums = 0
        self._conv = 0

    def reset(self):
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0
        if self.average == "micro":
            self.reset_micro()

    def update_variance(self, new_values, *aggregate):
        """``(count, mean, m2)`` after adding ``new_values`` (batched Welford update)."""
        count, mean, m_2 = aggregate
        count += len(new_values)
        delta = new_values - mean
        mean = mean + (delta / count).sum()
        delta_2 = new_values - mean
        m_2 = m_2 + (delta * delta_2).sum()
        return count, mean, m_2

    def update_cov(self, label, pred):
        """Add a batch to the co-moment (with the label mean already updated, the prediction mean not)."""
        self._conv = self._conv + ((label - self._mean_l) * (pred - self._mean_p)).sum()

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _tensor(label, "label"), _tensor(pred, "prediction")
            check_label_shapes(label, pred, False, True)
            label = _same_device(label, pred).reshape(-1).to(torch.float64)
            pred = pred.reshape(-1).to(torch.float64)
            if self.average == "macro":
                label_centered, pred_centered = label - label.mean(), pred - pred.mean()
                correlation = (label_centered * pred_centered).sum() / torch.sqrt(
                    (label_centered ** 2).sum() * (pred_centered ** 2).sum())
                self._accumulate(correlation.clamp(-1.0, 1.0), 1)
            else:
                self._add_statistic("num_inst", 1)
                self._add_statistic("global_num_inst", 1)
                self._label_nums, self._mean_l, self._sse_l = \
                    self.update_variance(label, self._label_nums, self._mean_l, self._sse_l)
                self.update_cov(label, pred)
                self._pred_nums, self._mean_p, self._sse_p = \
                    self.update_variance(pred, self._pred_nums, self._mean_p, self._sse_p)

    def _micro_value(self):
        count = self._label_nums
        denominator = (count - 1) * math.sqrt(float(self._sse_p) / (count - 1)) * \
            math.sqrt(float(self._sse_l) / (count - 1))
        return float(self._conv) / denominator if denominator else float("nan")

    def get(self):
        if self.num_inst == 0:
            return (self.name, float("nan"))
        if self.average == "macro":
            return (self.name, self.sum_metric / self.num_inst)
        return (self.name, self._micro_value())

    def get_global(self):
        """Macro: like EvalMetric.  Micro: the running correlation (MXNet 1.9.1 returned 0 here)."""
        if self.average == "macro":
            return super().get_global()
        if self.global_num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, self._micro_value())
