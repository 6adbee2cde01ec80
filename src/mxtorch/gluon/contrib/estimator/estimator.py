"""The Estimator: ``fit`` / ``evaluate`` loops for a Gluon network, a loss, metrics and a
Trainer, customised by event handlers (MXNet 1.9.1's ``gluon.contrib.estimator.estimator``)."""
from __future__ import annotations

import copy
import logging
import sys
import warnings

from ....base import MXNetValueError
from ....context import Context, cpu, gpu, num_gpus  # noqa: F401  (MXNet's module exposes them)
from ....metric import Loss as metric_loss
from ... import loss as gluon_loss
from ...data import DataLoader
from ...trainer import Trainer
from ...utils import split_and_load  # noqa: F401
from .batch_processor import BatchProcessor
from .event_handler import (BatchBegin, BatchEnd, EpochBegin, EpochEnd, GradientUpdateHandler,  # noqa: F401
                            LoggingHandler, MetricHandler, StoppingHandler, TrainBegin, TrainEnd,
                            ValidationHandler, _check_event_handlers)
from .utils import _check_handler_metric_ref, _check_metrics, _suggest_metric_for_loss

__all__ = ["Estimator"]


class Estimator:
    """Train and evaluate ``net``.

    - ``loss``: a ``gluon.loss.Loss`` (MXNetValueError, a ValueError, otherwise);
      ``val_loss`` defaults to it, ``val_net`` to ``net`` (it may share ``net``'s parameters).
    - ``train_metrics`` / ``val_metrics``: EvalMetrics (default: accuracy for a softmax
      cross-entropy loss, plus the loss itself); names get the prefixes ``'training '`` /
      ``'validation '``; the validation metrics default to copies of the training ones.
    - ``initializer``: used when ``net`` is not fully initialized (a warning when it is).
    - ``trainer``: a ``gluon.Trainer`` (default: SGD, learning rate 0.001, with a warning).
    - ``context``: a Context or list of them (default: every GPU, else the CPU); an unknown GPU
      fails an assertion, as in MXNet.
    - ``batch_processor``: a :class:`BatchProcessor` (how one batch is computed).

    Progress goes to ``self.logger`` (a logger writing to the standard output).
    """

    logger = None

    def __init__(self, net, loss, train_metrics=None, val_metrics=None, initializer=None, trainer=None,
                 context=None, val_net=None, val_loss=None, batch_processor=None):
        self.net = net
        self.loss = self._check_loss(loss)
        self._train_metrics = _check_metrics(train_metrics)
        self._val_metrics = _check_metrics(val_metrics)
        self._add_default_training_metrics()
        self._add_validation_metrics()
        self.val_loss = self.loss if val_loss is None else self._check_loss(val_loss)
        self.val_net = self.net if val_net is None else val_net
        self.logger = logging.Logger(name="Estimator", level=logging.INFO)
        self.logger.addHandler(logging.StreamHandler(sys.stdout))
        self.context = self._check_context(context)
        self._initialize(initializer)
        self.trainer = self._check_trainer(trainer)
        self.batch_processor = self._check_batch_processor(batch_processor)
        self.max_epoch = None
        self.max_batch = None
        self.batch_axis = 0

    @staticmethod
    def _check_loss(loss):
        if not isinstance(loss, gluon_loss.Loss):
            raise MXNetValueError(f"Estimator: loss must be a gluon.loss.Loss such as "
                                  f"gluon.loss.SoftmaxCrossEntropyLoss(), got {loss!r}")
        return loss

    @staticmethod
    def _check_context(context):
        available = num_gpus()
        if isinstance(context, Context):
            context = [context]
        elif isinstance(context, list) and context and all(isinstance(c, Context) for c in context):
            context = list(context)
        elif context is None:
            context = [gpu(i) for i in range(available)] if available else [cpu()]
        else:
            raise MXNetValueError(f"Estimator: context must be a Context (mx.cpu(), mx.gpu(0)) or a list of them, "
                                  f"got {context!r}")
        for ctx in context:
            if ctx.device_type == "gpu":
                assert ctx.device_id < available, \
                    f"Estimator: {ctx} is not available; this machine has {available} GPU(s)"
        return context

    @staticmethod
    def _check_batch_processor(batch_processor):
        if batch_processor is None:
            return BatchProcessor()
        if not isinstance(batch_processor, BatchProcessor):
            raise MXNetValueError(f"Estimator: batch_processor must be a BatchProcessor, got {batch_processor!r}")
        return batch_processor

    def _is_initialized(self):
        for param in self.net.collect_params().values():
            if param._data is None and not param._deferred_init:
                return False
        return True

    def _initialize(self, initializer):
        if not self._is_initialized():
            if initializer is None:      # Block.initialize's default initializer
                self.net.initialize(ctx=self.context)
            else:
                self.net.initialize(init=initializer, ctx=self.context)
        elif initializer:
            warnings.warn("Network already fully initialized, skipping initialization. You don't need to pass "
                          "initializer if you already initialized your net. You can use net.initialize("
                          "init=your_initializer, force_reinit=True) to force re-initialize.")

    def _check_trainer(self, trainer):
        if trainer is None:
            warnings.warn("No trainer specified, default SGD optimizer with learning rate 0.001 is used.")
            return Trainer(self.net.collect_params(), "sgd", {"learning_rate": 0.001})
        if not isinstance(trainer, Trainer):
            raise MXNetValueError(f"Estimator: trainer must be a gluon.Trainer, got {trainer!r}")
        return trainer

    def _get_data_and_label(self, batch, ctx, batch_axis=0):
        return self.batch_processor._get_data_and_label(batch, ctx, batch_axis)

    def _add_default_training_metrics(self):
        if not self._train_metrics:
            suggested = _suggest_metric_for_loss(self.loss)
            if suggested is not None:
                self._train_metrics = [suggested]
            self._train_metrics.append(metric_loss(self.loss.name.rstrip("1234567890")))
        for metric in self._train_metrics:
            metric.name = "training " + metric.name

    def _add_validation_metrics(self):
        if not self._val_metrics:
            self._val_metrics = [copy.deepcopy(metric) for metric in self._train_metrics]
        for metric in self._val_metrics:
            if metric.name.startswith("training "):
                metric.name = "validation " + metric.name[len("training "):]
            elif not metric.name.startswith("validation "):
                metric.name = "validation " + metric.name

    @property
    def train_metrics(self):
        return self._train_metrics

    @property
    def val_metrics(self):
        return self._val_metrics

    @staticmethod
    def _check_data(data, what):
        if not isinstance(data, DataLoader):
            raise MXNetValueError(f"Estimator only supports a gluon.data.DataLoader as {what}, got "
                                  f"{type(data).__name__}; wrap arrays in gluon.data.ArrayDataset and a DataLoader")

    def evaluate(self, val_data, batch_axis=0, event_handlers=None):
        """Run ``val_net`` over ``val_data`` (a DataLoader), updating ``val_metrics`` through a
        MetricHandler and calling the epoch / batch handlers of ``event_handlers``."""
        self._check_data(val_data, "val_data")
        for metric in self.val_metrics:
            metric.reset()
        handlers = self._prepare_default_validation_handlers(event_handlers)
        _, epoch_begin, batch_begin, batch_end, epoch_end, _ = self._categorize_handlers(handlers)
        for handler in epoch_begin:
            handler.epoch_begin(self)
        for batch in val_data:
            for handler in batch_begin:
                handler.batch_begin(self, batch=batch)
            _, label, pred, loss = self.batch_processor.evaluate_batch(self, batch, batch_axis)
            for handler in batch_end:
                handler.batch_end(self, batch=batch, pred=pred, label=label, loss=loss)
        for handler in epoch_end:
            handler.epoch_end(self)

    def fit(self, train_data, val_data=None, epochs=None, event_handlers=None, batches=None, batch_axis=0):
        """Train for ``epochs`` epochs or ``batches`` batches (exactly one of them) over
        ``train_data`` (a DataLoader), validating on ``val_data`` each epoch when given.
        MXNetValueError (a ValueError) for other data types or both/neither limits."""
        self._check_data(train_data, "train_data")
        if val_data is not None:
            self._check_data(val_data, "val_data")
        if (not epochs) == (not batches):
            raise MXNetValueError("Estimator.fit needs exactly one of epochs= and batches=, got "
                                  f"epochs={epochs!r}, batches={batches!r}")
        self.max_epoch = epochs
        self.max_batch = batches
        self.batch_axis = batch_axis
        handlers = self._prepare_default_handlers(val_data, event_handlers)
        train_begin, epoch_begin, batch_begin, batch_end, epoch_end, train_end = self._categorize_handlers(handlers)
        for handler in train_begin:
            handler.train_begin(self)
        while True:
            for handler in epoch_begin:
                handler.epoch_begin(self)
            for batch in train_data:
                for handler in batch_begin:
                    handler.batch_begin(self, batch=batch)
                _, label, pred, loss = self.batch_processor.fit_batch(self, batch, batch_axis)
                results = [handler.batch_end(self, batch=batch, pred=pred, label=label, loss=loss)
                           for handler in batch_end]
                if any(results):
                    break
            results = [handler.epoch_end(self) for handler in epoch_end]
            if any(results):
                break
        for handler in train_end:
            handler.train_end(self)

    def _prepare_default_handlers(self, val_data, event_handlers):
        event_handlers = _check_event_handlers(event_handlers)
        added = []
        if not any(isinstance(h, StoppingHandler) for h in event_handlers):
            added.append(StoppingHandler(self.max_epoch, self.max_batch))
        if not any(isinstance(h, GradientUpdateHandler) for h in event_handlers):
            added.append(GradientUpdateHandler())
        if not any(isinstance(h, MetricHandler) for h in event_handlers):
            added.append(MetricHandler(metrics=self.train_metrics))
        if val_data is not None and not any(isinstance(h, ValidationHandler) for h in event_handlers):
            added.append(ValidationHandler(val_data=val_data, eval_fn=self.evaluate))
        if not any(isinstance(h, LoggingHandler) for h in event_handlers):
            added.append(LoggingHandler(metrics=self.train_metrics))
        known = self.train_metrics + self.val_metrics
        for handler in event_handlers:
            _check_handler_metric_ref(handler, known)
        handlers = event_handlers + added
        handlers.sort(key=lambda handler: getattr(handler, "priority", 0))
        return handlers

    def _prepare_default_validation_handlers(self, event_handlers):
        event_handlers = _check_event_handlers(event_handlers)
        added = []
        if not any(isinstance(h, MetricHandler) for h in event_handlers):
            added.append(MetricHandler(metrics=self.val_metrics))
        if not any(isinstance(h, LoggingHandler) for h in event_handlers):
            added.append(LoggingHandler(metrics=self.val_metrics))
        for handler in event_handlers:
            _check_handler_metric_ref(handler, self.val_metrics)
        handlers = event_handlers + added
        handlers.sort(key=lambda handler: getattr(handler, "priority", 0))
        return handlers

    def _categorize_handlers(self, event_handlers):
        """The handlers split by event: (train_begin, epoch_begin, batch_begin, batch_end,
        epoch_end, train_end) lists."""
        kinds = (TrainBegin, EpochBegin, BatchBegin, BatchEnd, EpochEnd, TrainEnd)
        return tuple([h for h in event_handlers if isinstance(h, kind)] for kind in kinds)
