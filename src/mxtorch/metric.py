"""Evaluation metrics: MXNet 1.9.1's ``mx.metric``.

A metric accumulates over ``update(labels, preds)`` calls (``labels`` and
``preds`` are lists of NDArrays, numpy arrays or torch tensors, one entry
per network output) and reports ``get() -> (name, value)``.  Values match
MXNet 1.9.1's to float tolerance, quirks included (``mse`` / ``mae`` /
``rmse`` average per-update means, ``f1`` / ``mcc`` with ``average='macro'``
average per-update scores, ...).

The built-in metrics compute on the device the predictions live on and keep
their running sums there: ``update`` does not copy values to the host, so a
training loop on a GPU is not stalled once per batch.  The statistics
(``num_inst``, ``sum_metric``, ``global_num_inst``, ``global_sum_metric``)
read as plain Python numbers; reading one, or calling ``get``, copies it to
the host.  ``CustomMetric`` / ``np`` metrics and ``PCC`` work on numpy
arrays on the host, as in MXNet.

Every shape problem raises :class:`MetricShapeError`, an ``MXNetError`` that
is also a ``ValueError`` (what MXNet raised).
"""
from __future__ import annotations

import json
import math
import warnings
from collections import OrderedDict

import numpy
import torch

from .base import MXNetError, numeric_types, string_types
from .ndarray.ndarray import NDArray, to_numpy_dtype, to_torch_dtype

__all__ = ["EvalMetric", "CompositeEvalMetric", "Accuracy", "TopKAccuracy", "F1", "MCC", "Perplexity", "MAE",
           "MSE", "RMSE", "CrossEntropy", "NegativeLogLikelihood", "PearsonCorrelation", "PCC", "Loss", "Torch",
           "Caffe", "CustomMetric", "create", "np", "register", "alias", "check_label_shapes",
           "MetricShapeError"]


class MetricShapeError(MXNetError, ValueError):
    """Labels and predictions that do not fit together (MXNet raised ValueError)."""


# -- converting inputs ---------------------------------------------------------------------------

def _tensor(value, what="array"):
    """A metric input (NDArray, numpy array, torch tensor, list or number) as a torch tensor; no copy to host."""
    if isinstance(value, NDArray):
        return value._tensor.detach()
    if isinstance(value, torch.Tensor):
        return value.detach()
    if isinstance(value, numpy.ndarray):
        return torch.from_numpy(numpy.ascontiguousarray(value))
    try:
        return torch.from_numpy(numpy.asarray(value))
    except (TypeError, ValueError):
        raise MXNetError(f"metric: {what} must be an NDArray, numpy array or torch tensor, "
                         f"got {type(value).__name__}") from None


def _numpy_array(value):
    """A metric input as a numpy array on the host (for CustomMetric, PCC)."""
    if isinstance(value, NDArray):
        return value.asnumpy()
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    return numpy.asarray(value)


def _is_single_array(value):
    return isinstance(value, (NDArray, numpy.ndarray, torch.Tensor))


def _same_device(label, pred):
    """``label`` moved to ``pred``'s device (labels usually come from a cpu iterator)."""
    if label.device != pred.device:
        return label.to(pred.device, non_blocking=True)
    return label


def _numpy_result_type(first, second):
    """The torch dtype numpy's arithmetic gives for two tensors (int32 - float32 is float64 in numpy)."""
    try:
        result = numpy.result_type(to_numpy_dtype(first.dtype), to_numpy_dtype(second.dtype))
        return to_torch_dtype(result)
    except (KeyError, MXNetError):
        return torch.promote_types(first.dtype, second.dtype)


def _float64(value, device):
    if isinstance(value, torch.Tensor):
        return value.to(device=device, dtype=torch.float64)
    return torch.tensor(float(value), dtype=torch.float64, device=device)


def _common_device(*values):
    for value in values:
        if isinstance(value, torch.Tensor):
            return value.device
    return torch.device("cpu")


def _safe_ratio(numerator, denominator):
    """numerator / denominator where denominator > 0, else 0 (float64 tensors)."""
    positive = denominator > 0
    return torch.where(positive, numerator / torch.where(positive, denominator, torch.ones_like(denominator)),
                       torch.zeros_like(numerator))


def check_label_shapes(labels, preds, wrap=False, shape=False):
    """Check that labels and predictions match; returns ``(labels, preds)``.

    With ``shape=False`` their numbers (``len``) must be equal, with
    ``shape=True`` their shapes.  With ``wrap=True`` a single array
    (NDArray, numpy array, tensor) is first wrapped into a one-element list.

    Raises MetricShapeError (an MXNetError and ValueError) naming both sizes.
    """
    if wrap:
        if _is_single_array(labels):
            labels = [labels]
        if _is_single_array(preds):
            preds = [preds]
    if shape:
        label_shape, pred_shape = tuple(labels.shape), tuple(preds.shape)
    else:
        label_shape, pred_shape = len(labels), len(preds)
    if label_shape != pred_shape:
        what = "shape" if shape else "number"
        raise MetricShapeError(f"Shape of labels {label_shape} does not match shape of predictions {pred_shape} "
                               f"(the {what} of labels and of predictions must be equal)")
    return labels, preds


# -- statistics that may stay on the device -------------------------------------------------------

class _Statistic:
    """A running statistic of a metric: a host number plus sums still on devices, read as a number."""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return instance._read_statistic(self.name)

    def __set__(self, instance, value):
        instance._write_statistic(self.name, value)


def _statistics_of(metric):
    table = metric.__dict__.get("_statistic_values")
    if table is None:
        table = metric.__dict__["_statistic_values"] = {}
    return table


class EvalMetric:
    """Base class of evaluation metrics (MXNet's ``mx.metric.EvalMetric``).

    ``name``: what ``get`` reports.  ``output_names`` / ``label_names``:
    which entries of the dicts given to ``update_dict`` are used (None =
    all, in order).  ``has_global_stats`` (keyword): whether ``global_*``
    statistics are kept, which survive ``reset_local`` (used by
    ``Speedometer(auto_reset=True)``).

    Subclasses implement ``update(labels, preds)`` adding to ``sum_metric``
    and ``num_inst`` (and the ``global_*`` pair); ``get`` returns
    ``(name, sum_metric / num_inst)``, NaN before any instance.
    """

    num_inst = _Statistic()
    sum_metric = _Statistic()
    global_num_inst = _Statistic()
    global_sum_metric = _Statistic()

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._has_global_stats = kwargs.pop("has_global_stats", False)
        self._kwargs = kwargs
        self.reset()

    # statistics ------------------------------------------------------------------------------
    def _read_statistic(self, name):
        host, pending = _statistics_of(self).get(name, (0, None))
        if pending:
            for tensor in pending.values():
                host = host + tensor.item()
            _statistics_of(self)[name] = (host, None)
        return host

    def _write_statistic(self, name, value):
        if isinstance(value, NDArray):
            value = value._tensor
        if isinstance(value, torch.Tensor):
            value = value.detach().reshape(())
            _statistics_of(self)[name] = (0, {value.device: value})
        else:
            _statistics_of(self)[name] = (value, None)

    def _add_statistic(self, name, value):
        """Add ``value`` (number, or 0-d tensor that stays on its device) to a statistic."""
        table = _statistics_of(self)
        host, pending = table.get(name, (0, None))
        if isinstance(value, torch.Tensor):
            value = value.detach().reshape(())
            value = value.to(torch.float64) if value.is_floating_point() else value.to(torch.int64)
            pending = dict(pending or {})
            current = pending.get(value.device)
            pending[value.device] = value if current is None else current + value
            table[name] = (host, pending)
        else:
            table[name] = (host + value, pending)

    def _accumulate(self, sum_value, count):
        """Add to the local and the global sum and count."""
        self._add_statistic("sum_metric", sum_value)
        self._add_statistic("global_sum_metric", sum_value)
        self._add_statistic("num_inst", count)
        self._add_statistic("global_num_inst", count)

    # public API ------------------------------------------------------------------------------
    def __str__(self):
        return f"EvalMetric: {dict(self.get_name_value())}"

    def get_config(self):
        """The constructor arguments as a dict that ``create(**config)`` accepts."""
        config = self._kwargs.copy()
        config.update({"metric": self.__class__.__name__, "name": self.name,
                       "output_names": self.output_names, "label_names": self.label_names})
        return config

    def update_dict(self, label, pred):
        """Update from dicts ``{name: array}``, keeping ``label_names`` / ``output_names`` when set.

        Raises MXNetError when a requested name is missing from the dict.
        """
        pred = self._select(pred, self.output_names, "output")
        label = self._select(label, self.label_names, "label")
        self.update(label, pred)

    def _select(self, arrays, names, what):
        if names is None:
            return list(arrays.values())
        missing = [name for name in names if name not in arrays]
        if missing:
            raise MXNetError(f"{type(self).__name__}.update_dict: {what} names {missing} are not among the "
                             f"given {what}s {list(arrays)}")
        return [arrays[name] for name in names]

    def update(self, labels, preds):
        """Accumulate one batch: ``labels`` and ``preds`` are lists of arrays, one per output."""
        raise NotImplementedError()

    def reset(self):
        """Clear the local and the global statistics."""
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self):
        """Clear the local statistics only."""
        self.num_inst = 0
        self.sum_metric = 0.0

    def get(self):
        """``(name, value)`` of the local statistics; value NaN when nothing was counted."""
        num_inst = self.num_inst
        if num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, self.sum_metric / num_inst)

    def get_global(self):
        """``(name, value)`` of the global statistics (the local ones without global statistics)."""
        if self._has_global_stats:
            global_num_inst = self.global_num_inst
            if global_num_inst == 0:
                return (self.name, float("nan"))
            return (self.name, self.global_sum_metric / global_num_inst)
        return self.get()

    @staticmethod
    def _as_pairs(name, value):
        if not isinstance(name, list):
            name = [name]
        if not isinstance(value, list):
            value = [value]
        return list(zip(name, value))

    def get_name_value(self):
        """``[(name, value), ...]`` of ``get()``."""
        return self._as_pairs(*self.get())

    def get_global_name_value(self):
        """``[(name, value), ...]`` of ``get_global()``."""
        if self._has_global_stats:
            return self._as_pairs(*self.get_global())
        return self.get_name_value()


# -- registry ----------------------------------------------------------------------------------------

_REGISTRY = {}


def register(klass, name=None):
    """Register an EvalMetric subclass for ``create`` under ``name`` (default: the class name), lower-cased.

    Raises MXNetError when ``klass`` is not an EvalMetric subclass; warns when
    it replaces a registered class.
    """
    if not (isinstance(klass, type) and issubclass(klass, EvalMetric)):
        raise MXNetError(f"metric.register: can only register subclasses of EvalMetric, got {klass!r}")
    key = (klass.__name__ if name is None else name).lower()
    if key in _REGISTRY and _REGISTRY[key] is not klass:
        warnings.warn(f"metric {klass.__module__}.{klass.__name__} registered with name {key!r} replaces "
                      f"{_REGISTRY[key].__module__}.{_REGISTRY[key].__name__}", UserWarning, stacklevel=2)
    _REGISTRY[key] = klass
    return klass


def alias(*aliases):
    """Class decorator registering the class under each of ``aliases``."""
    def decorate(klass):
        for name in aliases:
            register(klass, name)
        return klass
    return decorate


def _create_registered(metric, *args, **kwargs):
    if isinstance(metric, EvalMetric):
        if args or kwargs:
            raise MXNetError(f"metric.create: {metric.name!r} is already a metric instance; "
                             f"extra arguments {args or ''}{kwargs or ''} are invalid")
        return metric
    if isinstance(metric, dict):
        if args:
            raise MXNetError("metric.create: a config dict takes no positional arguments")
        config = dict(metric)
        config.update(kwargs)
        if "metric" not in config:
            raise MXNetError(f"metric.create: a config dict needs a 'metric' entry, got keys {sorted(config)}")
        return create(config.pop("metric"), **config)
    if not isinstance(metric, string_types):
        raise MXNetError(f"metric.create: metric must be a name, a callable, a list, a dict or an EvalMetric, "
                         f"got {type(metric).__name__}")
    text = metric.strip()
    if text.startswith("["):
        if args or kwargs:
            raise MXNetError("metric.create: a JSON '[name, kwargs]' spec takes no further arguments")
        name, config = json.loads(text)
        return create(name, **config)
    if text.startswith("{"):
        if args or kwargs:
            raise MXNetError("metric.create: a JSON config takes no further arguments")
        return create(json.loads(text))
    key = text.lower()
    if key not in _REGISTRY:
        raise MXNetError(f"metric.create: unknown metric {metric!r}; valid names are {sorted(_REGISTRY)}")
    return _REGISTRY[key](*args, **kwargs)


def create(metric, *args, **kwargs):
    """A metric from a description (MXNet's ``mx.metric.create``).

    ``metric`` may be a registered name or alias (case-insensitive:
    ``'acc'``, ``'top_k_accuracy'``, ``'ce'``, ``'nll_loss'``, ``'f1'``,
    ``'mcc'``, ``'mae'``, ``'mse'``, ``'rmse'``, ``'perplexity'``,
    ``'pearsonr'``, ``'pcc'``, ``'loss'``, ...), a JSON string, a config dict
    with a ``'metric'`` entry, an EvalMetric instance (returned as is), a
    function ``feval(label, pred)`` (wrapped in :class:`CustomMetric`), an
    EvalMetric subclass (instantiated), or a list of any of these (a
    :class:`CompositeEvalMetric`).  ``args`` / ``kwargs`` go to the
    constructor.

    Raises MXNetError for an unknown name (listing the valid ones) or
    arguments given with an instance.
    """
    if isinstance(metric, type) and issubclass(metric, EvalMetric):
        return metric(*args, **kwargs)
    if callable(metric) and not isinstance(metric, EvalMetric):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, list):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    return _create_registered(metric, *args, **kwargs)


# -- metrics -----------------------------------------------------------------------------------------

@register
@alias("composite")
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; ``get`` returns ``([names], [values])``.

    ``metrics``: a list of anything ``create`` accepts.  ``update_dict``
    first keeps the entries named in this metric's ``label_names`` /
    ``output_names``, then lets each child select its own.
    """

    def __init__(self, metrics=None, name="composite", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)
        self.metrics = [create(metric) for metric in (metrics or [])]

    def add(self, metric):
        """Append a child metric (anything ``create`` accepts)."""
        self.metrics.append(create(metric))

    def get_metric(self, index):
        """The child metric at ``index``; MXNetError when out of range."""
        try:
            return self.metrics[index]
        except IndexError:
            raise MXNetError(f"CompositeEvalMetric.get_metric: index {index} is out of range "
                             f"[0, {len(self.metrics)})") from None

    def update_dict(self, labels, preds):
        if self.label_names is not None:
            labels = OrderedDict(item for item in labels.items() if item[0] in self.label_names)
        if self.output_names is not None:
            preds = OrderedDict(item for item in preds.items() if item[0] in self.output_names)
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels, preds):
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self):
        for metric in getattr(self, "metrics", []):
            metric.reset()

    def reset_local(self):
        for metric in getattr(self, "metrics", []):
            metric.reset_local()

    def _collect(self, method):
        names, values = [], []
        for metric in self.metrics:
            name, value = getattr(metric, method)()
            if isinstance(name, string_types):
                name = [name]
            if isinstance(value, numeric_types):
                value = [value]
            names.extend(name)
            values.extend(value)
        return (names, values)

    def get(self):
        return self._collect("get")

    def get_global(self):
        return self._collect("get_global")

    def get_config(self):
        config = super().get_config()
        config.update({"metrics": [metric.get_config() for metric in self.metrics]})
        return config


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
            raise MXNetError(f"TopKAccuracy: top_k must be above 1 (use Accuracy for top_k=1), got {top_k}")
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
            raise MXNetError(f"{self.__class__.__name__} currently only supports binary classification "
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
            torch.broadcast_shapes(label.shape, pred.shape)
        except RuntimeError:
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
                    raise MXNetError(f"{metric}: labels must be class indices in [0, {classes}), got values "
                                     f"in [{int(index.min())}, {int(index.max())}]")
            else:
                index = index.clamp(-classes, classes - 1)  # an out-of-range index would abort the device
            index = index.to(pred.device, non_blocking=True)
        try:
            probability = pred[torch.arange(num_examples, device=pred.device), index]
        except IndexError as error:
            raise MXNetError(f"{metric}: labels must be class indices in [0, {classes}): {error}") from None
        yield (-torch.log(probability + eps)).sum(), num_examples


@register
@alias("ce")
class CrossEntropy(EvalMetric):
    """Mean cross-entropy ``-log(p[label] + eps)`` over samples (name ``'cross-entropy'``).

    Predictions are probabilities ``(batch, classes)``; labels class
    indices, flattened to ``(batch,)``.  Raises MetricShapeError when the
    numbers of labels and predictions differ and MXNetError for labels
    outside the classes.
    """

    def __init__(self, eps=1e-12, name="cross-entropy", output_names=None, label_names=None):
        super().__init__(name, eps=eps, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.eps = eps

    def update(self, labels, preds):
        for loss, count in _picked_log_loss("CrossEntropy", labels, preds, self.eps):
            self._accumulate(loss, count)


@register
@alias("nll_loss")
class NegativeLogLikelihood(EvalMetric):
    """Mean negative log-likelihood ``-log(p[label] + eps)`` (name ``'nll-loss'``); same as CrossEntropy."""

    def __init__(self, eps=1e-12, name="nll-loss", output_names=None, label_names=None):
        super().__init__(name, eps=eps, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.eps = eps

    def update(self, labels, preds):
        for loss, count in _picked_log_loss("NegativeLogLikelihood", labels, preds, self.eps):
            self._accumulate(loss, count)


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


@register
class Loss(EvalMetric):
    """Mean of the prediction values, labels ignored (name ``'loss'``; for outputs that are losses).

    Every element of every prediction counts as one instance.
    """

    def __init__(self, name="loss", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)

    def update(self, _, preds):
        if _is_single_array(preds):
            preds = [preds]
        for pred in preds:
            pred = _tensor(pred, "prediction")
            self._accumulate(pred.sum(), int(pred.numel()))


@register
class Torch(Loss):
    """:class:`Loss` named ``'torch'`` (MXNet's legacy name for losses computed by Torch modules)."""

    def __init__(self, name="torch", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class Caffe(Loss):
    """:class:`Loss` named ``'caffe'`` (MXNet's legacy name for losses computed by Caffe layers)."""

    def __init__(self, name="caffe", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class CustomMetric(EvalMetric):
    """A metric from a function ``feval(label, pred)`` of numpy arrays.

    ``feval`` returns either a value (each label/prediction pair counts one
    instance) or ``(sum_metric, num_inst)``.  ``name`` defaults to the
    function's name (``custom(<lambda>)`` for a lambda).  Unless
    ``allow_extra_outputs`` the numbers of labels and predictions must match
    (MetricShapeError); with it, extra predictions are ignored.
    """

    def __init__(self, feval, name=None, allow_extra_outputs=False, output_names=None, label_names=None):
        if name is None:
            name = getattr(feval, "__name__", type(feval).__name__)
            if "<" in name:
                name = f"custom({name})"
        super().__init__(name, feval=feval, allow_extra_outputs=allow_extra_outputs,
                         output_names=output_names, label_names=label_names, has_global_stats=True)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        labels = [labels] if _is_single_array(labels) else labels
        preds = [preds] if _is_single_array(preds) else preds
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds)
        for pred, label in zip(preds, labels):
            result = self._feval(_numpy_array(label), _numpy_array(pred))
            if isinstance(result, tuple):
                sum_metric, num_inst = result
                self._accumulate(sum_metric, num_inst)
            else:
                self._accumulate(result, 1)

    def get_config(self):
        raise NotImplementedError("CustomMetric cannot be serialized")


# pylint: disable=invalid-name
def np(numpy_feval, name=None, allow_extra_outputs=False):
    """A :class:`CustomMetric` from a function of numpy arrays ``numpy_feval(label, pred)``.

    The metric is named ``name`` or after the function.
    """
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = getattr(numpy_feval, "__name__", "numpy_feval")
    return CustomMetric(feval, name, allow_extra_outputs)
