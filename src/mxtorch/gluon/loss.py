"""Gluon losses (MXNet's ``gluon.loss``).

Each loss is a HybridBlock ``loss(pred, label, [sample_weight])`` returning one value per
sample (shape ``(batch,)``: the mean over every axis except ``batch_axis``), unless stated
otherwise.  ``weight`` (a number) scales the loss; ``sample_weight`` (an array broadcastable
to the element-wise loss) weights elements.  The formulas are MXNet 1.9.1's, written with
the registered operators so the same code runs imperatively and hybridized.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import ndarray
from ..base import MXNetError
from .block import HybridBlock
from ..util import is_np_array  # noqa: F401  (MXNet's module namespace)

__all__ = ["Loss", "L2Loss", "L1Loss", "SigmoidBinaryCrossEntropyLoss", "SigmoidBCELoss",
           "SoftmaxCrossEntropyLoss", "SoftmaxCELoss", "KLDivLoss", "CTCLoss", "HuberLoss", "HingeLoss",
           "SquaredHingeLoss", "LogisticLoss", "TripletLoss", "PoissonNLLLoss", "CosineEmbeddingLoss", "SDMLLoss"]

numeric_types = (numbers.Number, np.generic)


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    """``loss * sample_weight * weight`` (each factor when given; ``weight`` a number)."""
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        if not isinstance(weight, numeric_types):
            raise MXNetError(f"loss: weight must be a number, got {type(weight).__name__}")
        loss = loss * weight
    return loss


def _reshape_like(F, x, y):
    """``x`` with ``y``'s shape."""
    if F is ndarray:
        return x.reshape(y.shape)
    return F.reshape_like(x, y)


class Loss(HybridBlock):
    """The base class of the losses: ``weight`` (a number or None) and ``batch_axis``."""

    def __init__(self, weight, batch_axis, **kwargs):
        super().__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self):
        return f"{type(self).__name__}(batch_axis={self._batch_axis}, w={self._weight})"

    def _mean(self, F, loss):
        return F.mean(loss, axis=self._batch_axis, exclude=True)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


class L2Loss(Loss):
    """``weight / 2 * (label - pred) ** 2``, averaged per sample."""

    def __init__(self, weight=1.0, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(label - pred)
        return self._mean(F, _apply_weighting(F, loss, self._weight / 2, sample_weight))


class L1Loss(Loss):
    """``|label - pred|``, averaged per sample."""

    def __init__(self, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.abs(label - pred)
        return self._mean(F, _apply_weighting(F, loss, self._weight, sample_weight))


class SigmoidBinaryCrossEntropyLoss(Loss):
    """Binary cross-entropy of labels in [0, 1]; ``pred`` are logits (``from_sigmoid=False``,
    computed stably as ``relu(x) - x*z + log(1 + exp(-|x|))``) or probabilities.
    ``pos_weight`` (broadcastable) weights the positive term."""

    def __init__(self, from_sigmoid=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(self, F, pred, label, sample_weight=None, pos_weight=None):
        label = _reshape_like(F, label, pred)
        if not self._from_sigmoid:
            softplus = F.Activation(-F.abs(pred), act_type="softrelu")
            if pos_weight is None:
                loss = F.relu(pred) - pred * label + softplus
            else:
                log_weight = 1 + F.broadcast_mul(pos_weight - 1, label)
                loss = pred - pred * label + log_weight * (softplus + F.relu(-pred))
        else:
            eps = 1e-12
            if pos_weight is None:
                loss = -(F.log(pred + eps) * label + F.log(1.0 - pred + eps) * (1.0 - label))
            else:
                loss = -(F.broadcast_mul(F.log(pred + eps) * label, pos_weight) +
                         F.log(1.0 - pred + eps) * (1.0 - label))
        return self._mean(F, _apply_weighting(F, loss, self._weight, sample_weight))


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class SoftmaxCrossEntropyLoss(Loss):
    """``-sum(label * log_softmax(pred, axis))``; ``sparse_label``: labels are class indices
    (``pick``); ``from_logits``: ``pred`` already holds log-probabilities."""

    def __init__(self, axis=-1, sparse_label=True, from_logits=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        if self._sparse_label:
            loss = -F.pick(pred, label, axis=self._axis, keepdims=True)
        else:
            label = _reshape_like(F, label, pred)
            loss = -F.sum(pred * label, axis=self._axis, keepdims=True)
        return self._mean(F, _apply_weighting(F, loss, self._weight, sample_weight))


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class KLDivLoss(Loss):
    """``sum(label * (log(label + 1e-12) - pred))`` per sample; ``pred`` are log-probabilities
    (``from_logits=True``) or logits (log_softmax over ``axis`` applied first)."""

    def __init__(self, from_logits=True, axis=-1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._axis = axis

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        loss = label * (F.log(label + 1e-12) - pred)
        # MXNet 1.9.1 sums over the non-batch axes here (the other losses average)
        return F.sum(_apply_weighting(F, loss, self._weight, sample_weight), axis=self._batch_axis, exclude=True)


class CTCLoss(Loss):
    """Connectionist temporal classification loss (operator ``CTCLoss``, blank label = the
    last class).  ``pred``: ``(batch, time, classes)`` for layout 'NTC' or ``(time, batch,
    classes)`` for 'TNC'; ``label``: ``(batch, length)`` ('NT') or ``(length, batch)``
    ('TN'), padded with -1; optional ``pred_lengths`` / ``label_lengths`` ``(batch,)``.
    Returns ``(batch,)``."""

    def __init__(self, layout="NTC", label_layout="NT", weight=None, **kwargs):
        if layout not in ("NTC", "TNC"):
            raise MXNetError(f"CTCLoss: only 'NTC' and 'TNC' layouts for pred are supported, got {layout!r}")
        if label_layout not in ("NT", "TN"):
            raise MXNetError(f"CTCLoss: only 'NT' and 'TN' layouts for label are supported, got {label_layout!r}")
        self._layout = layout
        self._label_layout = label_layout
        super().__init__(weight, label_layout.find("N"), **kwargs)

    def hybrid_forward(self, F, pred, label, pred_lengths=None, label_lengths=None, sample_weight=None):
        if self._layout == "NTC":
            pred = F.swapaxes(pred, 0, 1)
        if self._batch_axis == 1:
            label = F.swapaxes(label, 0, 1)
        lengths = {}
        if pred_lengths is not None:
            lengths["data_lengths"] = pred_lengths
        if label_lengths is not None:
            lengths["label_lengths"] = label_lengths
        loss = F.CTCLoss(pred, label, use_data_lengths=pred_lengths is not None,
                         use_label_lengths=label_lengths is not None, blank_label="last", **lengths)
        return _apply_weighting(F, loss, self._weight, sample_weight)


class HuberLoss(Loss):
    """Smooth L1: ``|d| - rho/2`` where ``|d| > rho``, else ``d**2 / (2 rho)``
    (``d = label - pred``)."""

    def __init__(self, rho=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._rho = rho

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.abs(label - pred)
        loss = F.where(loss > self._rho, loss - 0.5 * self._rho, (0.5 / self._rho) * F.square(loss))
        return self._mean(F, _apply_weighting(F, loss, self._weight, sample_weight))


class HingeLoss(Loss):
    """``max(0, margin - pred * label)`` with labels in {-1, 1}."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.relu(self._margin - pred * label)
        return self._mean(F, _apply_weighting(F, loss, self._weight, sample_weight))


class SquaredHingeLoss(Loss):
    """``max(0, margin - pred * label) ** 2`` with labels in {-1, 1}."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(F.relu(self._margin - pred * label))
        return self._mean(F, _apply_weighting(F, loss, self._weight, sample_weight))


class LogisticLoss(Loss):
    """``log(1 + exp(-pred * label))`` for ``label_format`` 'signed' (labels -1/1) or the
    binary cross-entropy of logits for 'binary' (labels 0/1)."""

    def __init__(self, weight=None, batch_axis=0, label_format="signed", **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        if label_format not in ("signed", "binary"):
            raise ValueError(f"label_format can only be signed or binary, recieved {label_format}.")
        self._label_format = label_format

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        if self._label_format == "signed":
            label = (label + 1.0) / 2.0
        loss = F.relu(pred) - pred * label + F.Activation(-F.abs(pred), act_type="softrelu")
        return self._mean(F, _apply_weighting(F, loss, self._weight, sample_weight))


class TripletLoss(Loss):
    """``max(0, sum(|pos - pred|^2) - sum(|neg - pred|^2) + margin)`` per sample."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, positive, negative, sample_weight=None):
        positive = _reshape_like(F, positive, pred)
        negative = _reshape_like(F, negative, pred)
        loss = F.sum(F.square(positive - pred) - F.square(negative - pred), axis=self._batch_axis, exclude=True)
        loss = F.relu(loss + self._margin)
        return _apply_weighting(F, loss, self._weight, sample_weight)


class PoissonNLLLoss(Loss):
    """Poisson negative log-likelihood: ``exp(pred) - target * pred`` (``from_logits``) or
    ``pred - target * log(pred + epsilon)``; ``compute_full`` adds Stirling's term for
    targets > 1.  Returns the mean over all elements (a 1-element array), as MXNet."""

    def __init__(self, weight=None, from_logits=True, batch_axis=0, compute_full=False, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._compute_full = compute_full

    def hybrid_forward(self, F, pred, target, sample_weight=None, epsilon=1e-08):
        target = _reshape_like(F, target, pred)
        if self._from_logits:
            loss = F.exp(pred) - target * pred
        else:
            loss = pred - target * F.log(pred + epsilon)
        if self._compute_full:
            stirling = target * F.log(target) - target + 0.5 * F.log(2 * target * np.pi)
            loss = loss + stirling * (target > 1)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss)


class CosineEmbeddingLoss(Loss):
    """``1 - cos(a, b)`` for label 1, ``max(0, cos(a, b) - margin)`` for label -1; returns
    ``(batch, 1)`` as MXNet."""

    def __init__(self, weight=None, batch_axis=0, margin=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, input1, input2, label, sample_weight=None):
        input1 = _reshape_like(F, input1, input2)
        label = label.reshape((-1, 1))
        cos_sim = self._cosine_similarity(F, input1, input2)
        similar = label == 1
        dissimilar = label == -1
        part_a = (1 - cos_sim) * similar
        zero = F.array([0]) if F is ndarray else F.zeros((1, 1))
        part_b = F.broadcast_maximum(zero, dissimilar * (cos_sim - self._margin))
        return _apply_weighting(F, part_a + part_b, self._weight, sample_weight)

    @staticmethod
    def _cosine_similarity(F, x, y, axis=-1):
        x_norm = F.norm(x, axis=axis).reshape((-1, 1))
        y_norm = F.norm(y, axis=axis).reshape((-1, 1))
        dot = F.sum(x * y, axis=axis).reshape((-1, 1))
        eps = F.array([1e-12]) if F is ndarray else F.full((1, 1), 1e-12)
        return dot / F.broadcast_maximum(x_norm * y_norm, eps)


class SDMLLoss(Loss):
    """Smoothed deep metric learning loss over a batch of paired embeddings ``x1``, ``x2``
    ``(batch, dim)``: the KL divergence between softmax(-squared distances) and the identity
    smoothed by ``smoothing_parameter``; returns ``(batch,)``.  Needs concrete shapes (runs
    imperatively)."""

    def __init__(self, smoothing_parameter=0.3, weight=1.0, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self.kl_loss = KLDivLoss(from_logits=True)
        self.smoothing_parameter = smoothing_parameter

    def _compute_distances(self, x1, x2):
        batch_size, dim = x1.shape
        left = x1.expand_dims(1).broadcast_to((batch_size, batch_size, dim))
        right = x2.expand_dims(0).broadcast_to((batch_size, batch_size, dim))
        return ((left - right) ** 2).sum(axis=2)

    def _compute_labels(self, F, batch_size):
        gold = F.eye(batch_size)
        return gold * (1 - self.smoothing_parameter) + (1 - gold) * self.smoothing_parameter / (batch_size - 1)

    def hybrid_forward(self, F, x1, x2):
        batch_size = x1.shape[0]
        labels = self._compute_labels(F, batch_size)
        distances = self._compute_distances(x1, x2)
        log_probabilities = F.log_softmax(-distances, axis=1)
        return self.kl_loss(log_probabilities, labels.as_in_context(distances.context)) * batch_size
