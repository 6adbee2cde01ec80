"""Evaluation metrics: MXNet 1.9.1's ``mx.metric``.

A metric accumulates over ``update(labels, preds)`` calls and reports ``get() -> (name,
value)``; see :mod:`mxtorch.metric.base` for the conventions (device-resident statistics,
MXNet's quirks, :class:`MetricShapeError`).  The package: ``base`` (EvalMetric and its input
checks), ``registry`` (``register``, ``alias``, ``create``), ``composite``, and the metric
families ``classification``, ``probability``, ``regression`` and ``custom``.  Every name of
MXNet's ``mxnet.metric`` module is available here.
"""
from __future__ import annotations

from collections import OrderedDict  # noqa: F401  (names of MXNet's module)

import numpy  # noqa: F401

from ..base import numeric_types, string_types  # noqa: F401
from .base import EvalMetric, MetricShapeError, check_label_shapes
from .registry import _create_registered, alias, create, register
from .composite import CompositeEvalMetric
from .classification import F1, MCC, PCC, Accuracy, TopKAccuracy, _BinaryClassificationMetrics  # noqa: F401
from .probability import CrossEntropy, NegativeLogLikelihood, Perplexity
from .regression import MAE, MSE, RMSE, PearsonCorrelation
from .custom import Caffe, CustomMetric, Loss, Torch, np

_create = _create_registered      # MXNet's name for the registry's create function

__all__ = ["EvalMetric", "CompositeEvalMetric", "Accuracy", "TopKAccuracy", "F1", "MCC", "Perplexity", "MAE",
           "MSE", "RMSE", "CrossEntropy", "NegativeLogLikelihood", "PearsonCorrelation", "PCC", "Loss", "Torch",
           "Caffe", "CustomMetric", "create", "np", "register", "alias", "check_label_shapes",
           "MetricShapeError"]
