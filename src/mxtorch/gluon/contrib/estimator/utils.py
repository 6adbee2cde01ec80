"""Metric helpers of the Estimator (MXNet 1.9.1's ``gluon.contrib.estimator.utils``)."""
from __future__ import annotations

from ....base import MXNetValueError
from ....metric import Accuracy, CompositeEvalMetric, EvalMetric  # noqa: F401
from ...loss import SoftmaxCrossEntropyLoss

__all__ = ["Accuracy", "CompositeEvalMetric", "EvalMetric", "SoftmaxCrossEntropyLoss"]


def _check_metrics(metrics):
    """``metrics`` (None, an EvalMetric, a CompositeEvalMetric or a list of EvalMetrics) as a list;
    MXNetValueError (a ValueError) otherwise."""
    if isinstance(metrics, CompositeEvalMetric):
        metrics = [m for metric in metrics.metrics for m in _check_metrics(metric)]
    elif isinstance(metrics, EvalMetric):
        metrics = [metrics]
    else:
        metrics = metrics or []
        if not all(isinstance(metric, EvalMetric) for metric in metrics):
            raise MXNetValueError(f"metrics must be an EvalMetric or a list of EvalMetrics (mx.metric.Accuracy(), "
                                  f"...), got {metrics!r}")
    return list(metrics)


def _suggest_metric_for_loss(loss):
    """Accuracy for a softmax cross-entropy loss, else None."""
    if isinstance(loss, SoftmaxCrossEntropyLoss):
        return Accuracy()
    return None


def _check_metric_known(handler, metric, known_metrics):
    """MXNetValueError (a ValueError, as in MXNet) when the event handler ``handler`` refers to
    ``metric``, an object that is not one of ``known_metrics`` (the Estimator's train and
    validation metrics)."""
    if not any(metric is known for known in known_metrics):
        raise MXNetValueError(
            f"{type(handler).__name__} uses the metric {metric.name!r}, which is neither one of the "
            f"Estimator's train_metrics nor val_metrics; pass est.train_metrics / est.val_metrics "
            f"(or the metric objects given to the Estimator) to event handlers")


def _check_handler_metric_ref(handler, known_metrics):
    """MXNetValueError when ``handler`` uses a metric object the Estimator does not hold."""
    for attribute in ("metrics", "monitor"):
        value = getattr(handler, attribute, None)
        for metric in (value if isinstance(value, list) else [value] if value is not None else []):
            _check_metric_known(handler, metric, known_metrics)
