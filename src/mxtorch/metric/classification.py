"""Classification metrics: Accuracy, TopKAccuracy, F1, MCC and PCC."""
from __future__ import annotations

import numpy
import torch

from ..base import MXNetAssertionError, MXNetError, MXNetValueError
from .base import (_tensor, _numpy_array, _same_device, _float64, _common_device, _safe_ratio,
                   check_label_shapes, EvalMetric)
from .registry import register, alias

__all__ = ["Accuracy", "TopKAccuracy", "F1", "MCC", "PCC"]


def _check_axis(axis, ndim, metric):
    if not -ndim <= axis < ndim:
        raise MXNetError(f"{metric}: axis {axis} is out of range for predictions with {ndim} dimensions")


@register
@alias("acc")
class Accuracy(EvalMetric):
    """Fraction of correct predictions (MXNet's ``Accuracy``, name ``'accuracy'``).

    When a prediction's shape differs from its label's, the predicted class
    is the argmax over ``axis`` (default 1: predictions ``(batch, classes)``);
    when the shapes are equal the predictions are class indices already.
    Both are truncated to int32 and compared element by element; every
    element counts as one instance.

    Raises MetricShapeError when the numbers of labels and predictions, or of
    their elements after the argmax, differ.
    """

    def __init__(self, axis=1, name="accuracy", output_names=None, label_names=None):
        super().__init__(name, axis=axis, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _tensor(label, "label"), _tensor(pred, "prediction")
            if tuple(pred.shape) != tuple(label.shape):
                _check_axis(self.axis, pred.dim(), "Accuracy")
                pred = torch.argmax(pred, dim=self.axis)
            pred = pred.to(torch.int32).reshape(-1)
            label = _same_device(label, pred).to(torch.int32).reshape(-1)
            check_label_shapes(label, pred)
            self._accumulate((pred == label).sum(), int(pred.numel()))


@register
@alias("top_k_accuracy", "top_k_acc")
class TopKAccuracy(EvalMetric):
    """Fraction of samples whose label is among the ``top_k`` highest scores (name ``top_k_accuracy_<k>``).

    Predictions are ``(batch, classes)`` scores (a 1-D prediction is
    treated as MXNet 1.9.1 did).  Raises MXNetError for ``top_k`` below 2
    (use Accuracy) and predictions with more than 2 dimensions.
    """

    def __init__(self, top_k=1, name="top_k_accuracy", output_names=None, label_names=None):
        super().__init__(name, top_k=top_k, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.top_k = top_k
        if not self.top_k > 1:
            raise MXNetAssertionError(f"TopKAccuracy: top_k must be above 1 (use Accuracy for top_k=1), got {top_k}")
        self.name += f"_{self.top_k}"

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            pred = _tensor(pred, "prediction")
            if pred.dim() > 2:
                raise MXNetError(f"TopKAccuracy: predictions must have at most 2 dimensions, got shape "
                                 f"{tuple(pred.shape)}")
            label = _tensor(label, "label")
            check_label_shapes(label, pred)
            num_samples = int(pred.shape[0])
            if pred.dim() == 1:
                # MXNet 1.9.1 compared the partition order of a 1-D score vector with the labels and
                # counted it in the local statistics only; kept for parity
                order = numpy.argpartition(pred.cpu().numpy().astype("float32"), -self.top_k)
                matches = (order.flat == _numpy_array(label).astype("int32").flat).sum()
                self._add_statistic("sum_metric", int(matches))
            else:
                top_k = min(int(pred.shape[1]), self.top_k)
                best = torch.topk(pred.to(torch.float32), top_k, dim=1).indices
                label = _same_device(label, pred).to(torch.int32).reshape(-1, 1).to(torch.int64)
                correct = (best == label).sum()
                self._add_statistic("sum_metric", correct)
                self._add_statistic("global_sum_metric", correct)
            self._add_statistic("num_inst", num_samples)
            self._add_statistic("global_num_inst", num_samples)


class _BinaryClassificationMetrics:
    """Confusion counts of a binary classifier, local and global (shared by F1 and MCC).

    The counts may be tensors on the predictions' device; the properties
    return Python floats.
    """

    _COUNTS = ("true_positives", "false_negatives", "false_positives", "true_negatives")

    def __init__(self):
        self.reset_stats()

    def update_binary_stats(self, label, pred):
        """Add the counts of one batch: ``pred`` ``(batch, 2)`` scores, ``label`` ``(batch,)`` in {0, 1}.

        Raises MetricShapeError when the batch sizes differ and MXNetError when
        the labels hold more than two distinct values.
        """
        pred, label = _tensor(pred, "prediction"), _tensor(label, "label")
        check_label_shapes(label, pred)
        if torch.unique(label).numel() > 2:
            raise MXNetValueError(f"{self.__class__.__name__} currently only supports binary classification "
                             f"(labels hold more than two distinct values)")
        pred_label = torch.argmax(pred, dim=1)
        label = _same_device(label, pred).to(torch.int32).reshape(-1)
        pred_true = pred_label == 1
        label_true = label == 1
        true_pos = (pred_true & label_true).sum()
        false_pos = (pred_true & ~label_true).sum()
        false_neg = (~pred_true & label_true).sum()
        true_neg = (~pred_true & ~label_true).sum()
        for name, value in zip(self._COUNTS, (true_pos, false_neg, false_pos, true_neg)):
            setattr(self, name, getattr(self, name) + value)
            setattr(self, "global_" + name, getattr(self, "global_" + name) + value)

    # tensors (no host copy) ----------------------------------------------------------------------
    def _counts(self, use_global):
        prefix = "global_" if use_global else ""
        values = [getattr(self, prefix + name) for name in self._COUNTS]
        device = _common_device(*values)
        return [_float64(value, device) for value in values]

    def _fscore_tensor(self, use_global=False):
        true_pos, false_neg, false_pos, _ = self._counts(use_global)
        precision = _safe_ratio(true_pos, true_pos + false_pos)
        recall = _safe_ratio(true_pos, true_pos + false_neg)
        return _safe_ratio(2 * precision * recall, precision + recall)

    def _matthewscc_tensor(self, use_global=False):
        true_pos, false_neg, false_pos, true_neg = self._counts(use_global)
        terms = torch.stack([true_pos + false_pos, true_pos + false_neg, true_neg + false_pos,
                             true_neg + false_neg])
        denominator = torch.where(terms != 0, terms, torch.ones_like(terms)).prod()
        return (true_pos * true_neg - false_pos * false_neg) / torch.sqrt(denominator)

    def _total_tensor(self, use_global=False):
        prefix = "global_" if use_global else ""
        return sum(getattr(self, prefix + name) for name in self._COUNTS)

    # host values ---------------------------------------------------------------------------------
    @property
    def precision(self):
        true_pos, _, false_pos, _ = self._counts(False)
        return float(_safe_ratio(true_pos, true_pos + false_pos))

    @property
    def global_precision(self):
        true_pos, _, false_pos, _ = self._counts(True)
        return float(_safe_ratio(true_pos, true_pos + false_pos))

    @property
    def recall(self):
        true_pos, false_neg, _, _ = self._counts(False)
        return float(_safe_ratio(true_pos, true_pos + false_neg))

    @property
    def global_recall(self):
        true_pos, false_neg, _, _ = self._counts(True)
        return float(_safe_ratio(true_pos, true_pos + false_neg))

    @property
    def fscore(self):
        return float(self._fscore_tensor(False))

    @property
    def global_fscore(self):
        return float(self._fscore_tensor(True))

    def matthewscc(self, use_global=False):
        """Matthews correlation coefficient of the counts (0 without examples)."""
        return float(self._matthewscc_tensor(use_global))

    @property
    def total_examples(self):
        return int(self._total_tensor(False))

    @property
    def global_total_examples(self):
        return int(self._total_tensor(True))

    def local_reset_stats(self):
        for name in self._COUNTS:
            setattr(self, name, 0)

    def reset_stats(self):
        for name in self._COUNTS:
            setattr(self, name, 0)
            setattr(self, "global_" + name, 0)


@register
class F1(EvalMetric):
    """F1 score of a binary classifier (predictions ``(batch, 2)``, labels 0/1; name ``'f1'``).

    ``average='macro'``: the mean of the per-update F1 scores (each
    ``update`` counts one instance); ``'micro'``: the F1 of all counts so far
    (each sample counts one instance).
    """

    def __init__(self, name="f1", output_names=None, label_names=None, average="macro"):
        self.average = average
        self.metrics = _BinaryClassificationMetrics()
        EvalMetric.__init__(self, name=name, output_names=output_names, label_names=label_names,
                            has_global_stats=True)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self.metrics.update_binary_stats(label, pred)
        if self.average == "macro":
            self._add_statistic("sum_metric", self.metrics._fscore_tensor(False))
            self._add_statistic("global_sum_metric", self.metrics._fscore_tensor(True))
            self._add_statistic("num_inst", 1)
            self._add_statistic("global_num_inst", 1)
            self.metrics.reset_stats()
        else:
            local_total, global_total = self.metrics._total_tensor(False), self.metrics._total_tensor(True)
            self.sum_metric = self.metrics._fscore_tensor(False) * local_total
            self.global_sum_metric = self.metrics._fscore_tensor(True) * global_total
            self.num_inst = local_total
            self.global_num_inst = global_total

    def reset(self):
        self.sum_metric = 0.0
        self.num_inst = 0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0
        self.metrics.reset_stats()

    def reset_local(self):
        self.sum_metric = 0.0
        self.num_inst = 0
        self.metrics.local_reset_stats()


@register
class MCC(EvalMetric):
    """Matthews correlation coefficient of a binary classifier (name ``'mcc'``).

    Predictions ``(batch, 2)``, labels 0/1.  ``average='macro'``: mean of
    per-update coefficients; ``'micro'``: coefficient of all counts so far.
    """

    def __init__(self, name="mcc", output_names=None, label_names=None, average="macro"):
        self._average = average
        self._metrics = _BinaryClassificationMetrics()
        EvalMetric.__init__(self, name=name, output_names=output_names, label_names=label_names,
                            has_global_stats=True)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self._metrics.update_binary_stats(label, pred)
        if self._average == "macro":
            self._add_statistic("sum_metric", self._metrics._matthewscc_tensor(False))
            self._add_statistic("global_sum_metric", self._metrics._matthewscc_tensor(True))
            self._add_statistic("num_inst", 1)
            self._add_statistic("global_num_inst", 1)
            self._metrics.reset_stats()
        else:
            local_total, global_total = self._metrics._total_tensor(False), self._metrics._total_tensor(True)
            self.sum_metric = self._metrics._matthewscc_tensor(False) * local_total
            self.global_sum_metric = self._metrics._matthewscc_tensor(True) * global_total
            self.num_inst = local_total
            self.global_num_inst = global_total

    def reset(self):
        self.sum_metric = 0.0
        self.num_inst = 0.0
        self.global_sum_metric = 0.0
        self.global_num_inst = 0.0
        self._metrics.reset_stats()

    def reset_local(self):
        self.sum_metric = 0.0
        self.num_inst = 0.0
        self._metrics.local_reset_stats()


@register
class PCC(EvalMetric):
    """Multi-class Matthews correlation from a confusion matrix (name ``'pcc'``).

    Predictions ``(batch, classes)`` scores (argmax taken) or class indices
    of the label's shape.  The matrix grows with the largest class seen;
    each ``update`` call counts one instance.  Works on the host (numpy).
    """

    def __init__(self, name="pcc", output_names=None, label_names=None, has_global_stats=True):
        self.k = 2
        super().__init__(name=name, output_names=output_names, label_names=label_names,
                         has_global_stats=has_global_stats)

    def _grow(self, increase):
        self.lcm = numpy.pad(self.lcm, ((0, increase), (0, increase)), "constant", constant_values=(0))
        self.gcm = numpy.pad(self.gcm, ((0, increase), (0, increase)), "constant", constant_values=(0))
        self.k += increase

    @staticmethod
    def _calc_mcc(matrix):
        total = matrix.sum()
        row_sums = matrix.sum(axis=1)
        column_sums = matrix.sum(axis=0)
        cov_xx = numpy.sum(row_sums * (total - row_sums))
        cov_yy = numpy.sum(column_sums * (total - column_sums))
        if cov_xx == 0 or cov_yy == 0:
            return float("nan")
        cov_xy = numpy.sum(matrix.diagonal() * total - row_sums * column_sums)
        return cov_xy / (cov_xx * cov_yy) ** 0.5

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label = _numpy_array(label).astype("int32")
            pred = _numpy_array(pred)
            if pred.shape != label.shape:
                pred = pred.argmax(axis=1)
            label, pred = label.reshape(-1), pred.astype("int32").reshape(-1)
            check_label_shapes(label, pred)
            if label.size == 0:
                continue
            largest = int(max(pred.max(), label.max()))
            if largest >= self.k:
                self._grow(largest + 1 - self.k)
            batch_matrix = numpy.zeros((self.k, self.k))
            numpy.add.at(batch_matrix, (pred, label), 1)
            self.lcm += batch_matrix
            self.gcm += batch_matrix
        self.num_inst += 1
        self.global_num_inst += 1

    @property
    def sum_metric(self):
        return self._calc_mcc(self.lcm) * self.num_inst

    @property
    def global_sum_metric(self):
        return self._calc_mcc(self.gcm) * self.global_num_inst

    def reset(self):
        self.global_num_inst = 0.0
        self.gcm = numpy.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self):
        self.num_inst = 0.0
        self.lcm = numpy.zeros((self.k, self.k))
