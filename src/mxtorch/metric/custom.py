"""Metrics of given values or functions: Loss (Torch, Caffe), CustomMetric and ``np``."""
from __future__ import annotations

from .base import _tensor, _numpy_array, _is_single_array, check_label_shapes, EvalMetric
from .registry import register, wraps_specs

__all__ = ["Loss", "Torch", "Caffe", "CustomMetric", "np"]


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
@wraps_specs("function")
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


def np(numpy_feval, name=None, allow_extra_outputs=False):
    """A :class:`CustomMetric` from a function of numpy arrays ``numpy_feval(label, pred)``.

    The metric is named ``name`` or after the function.
    """
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = getattr(numpy_feval, "__name__", "numpy_feval")
    return CustomMetric(feval, name, allow_extra_outputs)
