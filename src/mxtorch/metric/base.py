"""The base of ``mx.metric``: EvalMetric, its input conversion and shape checks.

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

import numpy
import torch

from ..base import MXNetError
from ..ndarray.ndarray import NDArray, to_numpy_dtype, to_torch_dtype

__all__ = ["MetricShapeError", "check_label_shapes", "EvalMetric"]


class MetricShapeError(MXNetError, ValueError):
    """Labels and predictions that do not fit together (MXNet raised ValueError)."""


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
        if isinstance(sum_value, torch.Tensor):
            # converted once for both sums (what _add_statistic would do to each)
            sum_value = sum_value.detach().reshape(())
            sum_value = sum_value.to(torch.float64) if sum_value.is_floating_point() else sum_value.to(torch.int64)
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
