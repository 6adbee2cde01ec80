"""Event handlers of the Estimator (MXNet 1.9.1's ``gluon.contrib.estimator.event_handler``).

A handler subclasses one or more of TrainBegin, TrainEnd, EpochBegin, EpochEnd, BatchBegin,
BatchEnd and defines the matching methods ``(estimator, *args, **kwargs)``; ``batch_end`` /
``epoch_end`` returning True stop training.  Handlers run in ascending ``priority`` (0 when not
set): gradient update (-2000), metric update (-1000), user handlers, logging (last).
"""
from __future__ import annotations

import logging
import os
import re
import time
import warnings

import numpy as np

from ....base import MXNetValueError
from ....metric import CompositeEvalMetric, EvalMetric  # noqa: F401  (MXNet's module exposes them)
from ....metric import Loss as metric_loss
from ...block import HybridBlock
from .utils import _check_metrics

__all__ = ["EventHandler", "TrainBegin", "TrainEnd", "EpochBegin", "EpochEnd", "BatchBegin", "BatchEnd",
           "StoppingHandler", "MetricHandler", "ValidationHandler", "LoggingHandler", "CheckpointHandler",
           "EarlyStoppingHandler", "GradientUpdateHandler"]


class EventHandler:
    """The base of all handlers."""


def _check_event_handlers(handlers):
    if isinstance(handlers, EventHandler):
        handlers = [handlers]
    else:
        handlers = list(handlers or [])
        if not all(isinstance(handler, EventHandler) for handler in handlers):
            raise MXNetValueError(f"event_handlers must be EventHandlers or a list of them, got {handlers!r}")
    return handlers


class TrainBegin(EventHandler):
    """The interface of handlers called once when ``Estimator.fit`` starts."""

    def train_begin(self, estimator, *args, **kwargs):
        pass


class TrainEnd(EventHandler):
    """The interface of handlers called once when ``Estimator.fit`` finishes."""

    def train_end(self, estimator, *args, **kwargs):
        pass


class EpochBegin(EventHandler):
    """The interface of handlers called before each epoch."""

    def epoch_begin(self, estimator, *args, **kwargs):
        pass


class EpochEnd(EventHandler):
    """The interface of handlers called after each epoch; a True result stops training."""

    def epoch_end(self, estimator, *args, **kwargs):
        return False


class BatchBegin(EventHandler):
    """The interface of handlers called before each batch."""

    def batch_begin(self, estimator, *args, **kwargs):
        pass


class BatchEnd(EventHandler):
    """The interface of handlers called after each batch (with ``batch``, ``pred``, ``label``,
    ``loss`` keywords); a True result from any of them ends the epoch's batch loop."""

    def batch_end(self, estimator, *args, **kwargs):
        return False


class StoppingHandler(TrainBegin, BatchEnd, EpochEnd):
    """Stops after ``max_epoch`` epochs or ``max_batch`` batches (the Estimator's, read when
    training begins, so a resumed checkpoint can shorten them)."""

    def __init__(self, max_epoch=None, max_batch=None):
        self.max_epoch = max_epoch
        self.max_batch = max_batch
        self.current_batch = 0
        self.current_epoch = 0
        self.stop_training = False

    def train_begin(self, estimator, *args, **kwargs):
        self.max_epoch = estimator.max_epoch
        self.max_batch = estimator.max_batch
        self.current_batch = 0
        self.current_epoch = 0

    def batch_end(self, estimator, *args, **kwargs):
        self.current_batch += 1
        if self.current_batch == self.max_batch:
            self.stop_training = True
        return self.stop_training

    def epoch_end(self, estimator, *args, **kwargs):
        self.current_epoch += 1
        if self.current_epoch == self.max_epoch:
            self.stop_training = True
        return self.stop_training


class MetricHandler(EpochBegin, BatchEnd):
    """Resets ``metrics`` each epoch and updates them after each batch (a ``mx.metric.Loss``
    with the batch loss, the others with labels and predictions)."""

    def __init__(self, metrics, priority=-1000):
        self.metrics = _check_metrics(metrics)
        self.priority = priority

    def epoch_begin(self, estimator, *args, **kwargs):
        for metric in self.metrics:
            metric.reset()

    def batch_end(self, estimator, *args, **kwargs):
        pred, label, loss = kwargs["pred"], kwargs["label"], kwargs["loss"]
        for metric in self.metrics:
            if isinstance(metric, metric_loss):
                metric.update(0, loss)
            else:
                metric.update(label, pred)


class ValidationHandler(TrainBegin, BatchEnd, EpochEnd):
    """Calls ``eval_fn(val_data=..., batch_axis=..., event_handlers=...)`` every
    ``epoch_period`` epochs and/or every ``batch_period`` batches."""

    def __init__(self, val_data, eval_fn, epoch_period=1, batch_period=None, priority=-1000,
                 event_handlers=None):
        self.val_data = val_data
        self.eval_fn = eval_fn
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.current_batch = 0
        self.current_epoch = 0
        self.priority = priority
        self.event_handlers = event_handlers

    def train_begin(self, estimator, *args, **kwargs):
        self.current_batch = 0
        self.current_epoch = 0

    def _evaluate(self, estimator):
        self.eval_fn(val_data=self.val_data, batch_axis=estimator.batch_axis, event_handlers=self.event_handlers)

    def batch_end(self, estimator, *args, **kwargs):
        self.current_batch += 1
        if self.batch_period and self.current_batch % self.batch_period == 0:
            self._evaluate(estimator)

    def epoch_end(self, estimator, *args, **kwargs):
        self.current_epoch += 1
        if self.epoch_period and self.current_epoch % self.epoch_period == 0:
            self._evaluate(estimator)


def _metric_text(metrics):
    parts = []
    for metric in metrics:
        name, value = metric.get()
        names, values = (name, value) if isinstance(name, list) else ([name], [value])
        parts += [f"{n}: {v:.4f}" for n, v in zip(names, values)]
    return ", ".join(parts)


class LoggingHandler(TrainBegin, TrainEnd, EpochBegin, EpochEnd, BatchBegin, BatchEnd):
    """Logs progress through ``estimator.logger``: at the start and end of training, every epoch
    (``log_interval='epoch'``) or every ``log_interval`` batches (an int), with ``metrics``.
    Lines look like MXNet's: ``[Epoch 0][Batch 5][Samples 48] time/interval: 0.012s training
    accuracy: 0.5000``."""

    def __init__(self, log_interval="epoch", metrics=None, priority=np.inf):
        if not isinstance(log_interval, int) and log_interval != "epoch":
            raise MXNetValueError(f"LoggingHandler: log_interval must be 'epoch' or an int, got {log_interval!r}")
        self.metrics = _check_metrics(metrics)
        self.batch_index = 0
        self.current_epoch = 0
        self.processed_samples = 0
        self.priority = priority
        self.log_interval = log_interval
        self.log_interval_time = 0
        self.train_start = self.epoch_start = self.batch_start = time.time()

    def train_begin(self, estimator, *args, **kwargs):
        self.train_start = time.time()
        trainer = estimator.trainer
        estimator.logger.info("Training begin: using optimizer %s with current learning rate %.4f ",
                              type(trainer.optimizer).__name__, trainer.learning_rate)
        if estimator.max_epoch:
            estimator.logger.info("Train for %d epochs.", estimator.max_epoch)
        else:
            estimator.logger.info("Train for %d batches.", estimator.max_batch)
        self.current_epoch = 0
        self.batch_index = 0
        self.processed_samples = 0
        self.log_interval_time = 0

    def train_end(self, estimator, *args, **kwargs):
        message = f"Train finished using total {int(time.time() - self.train_start)}s with " \
                  f"{self.current_epoch} epochs. " + _metric_text(self.metrics)
        estimator.logger.info(message.rstrip(", "))

    def batch_begin(self, estimator, *args, **kwargs):
        if isinstance(self.log_interval, int):
            self.batch_start = time.time()

    def batch_end(self, estimator, *args, **kwargs):
        if isinstance(self.log_interval, int):
            batch_time = time.time() - self.batch_start
            message = f"[Epoch {self.current_epoch}][Batch {self.batch_index}]"
            self.processed_samples += kwargs["batch"][0].shape[0]
            message += f"[Samples {self.processed_samples}] "
            self.log_interval_time += batch_time
            if self.batch_index % self.log_interval == 0:
                message += f"time/interval: {self.log_interval_time:.3f}s " + _metric_text(self.metrics)
                self.log_interval_time = 0
                estimator.logger.info(message.rstrip(", "))
        self.batch_index += 1

    def epoch_begin(self, estimator, *args, **kwargs):
        self.epoch_start = time.time()
        estimator.logger.info("[Epoch %d] Begin, current learning rate: %.4f", self.current_epoch,
                              estimator.trainer.learning_rate)

    def epoch_end(self, estimator, *args, **kwargs):
        message = f"[Epoch {self.current_epoch}] Finished in {time.time() - self.epoch_start:.3f}s, " + \
            _metric_text(self.metrics)
        estimator.logger.info(message.rstrip(", "))
        self.current_epoch += 1
        self.batch_index = 0


def _monitor_op(mode, monitor, handler):
    if mode not in ("auto", "min", "max"):
        warnings.warn(f"{handler}: mode {mode!r} is unknown, falling back to 'auto'", RuntimeWarning)
        mode = "auto"
    if mode == "auto":
        name = monitor.get()[0] if monitor is not None else ""
        mode = "max" if "acc" in name or "f1" in name or name.startswith("f") else "min"
    return (np.greater, -np.inf) if mode == "max" else (np.less, np.inf)


class CheckpointHandler(TrainBegin, BatchEnd, EpochEnd):
    """Saves ``model_dir/model_prefix-epoch{E}batch{B}.params`` (``save_parameters``) and
    ``.states`` (the trainer's) every ``epoch_period`` epochs / ``batch_period`` batches,
    keeping the last ``max_checkpoints``; ``save_best`` also keeps ``-best.params`` /
    ``-best.states`` of the best ``monitor`` value; a hybridized network's graph goes to
    ``-symbol.json``.  ``resume_from_checkpoint`` loads the latest checkpoint of the same prefix
    when training begins and shortens the Estimator's ``max_epoch`` / ``max_batch`` by what it
    had done."""

    def __init__(self, model_dir, model_prefix="model", monitor=None, verbose=0, save_best=False, mode="auto",
                 epoch_period=1, batch_period=None, max_checkpoints=5, resume_from_checkpoint=False):
        self.monitor = monitor
        self.verbose = verbose
        if not os.path.exists(model_dir):
            os.makedirs(model_dir)
        self.model_dir = model_dir
        self.model_prefix = model_prefix
        self.save_best = save_best
        if self.save_best and not isinstance(self.monitor, EvalMetric):
            raise MXNetValueError("CheckpointHandler: save_best=True needs monitor= an EvalMetric of the Estimator")
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.current_batch = 0
        self.current_epoch = 0
        self.max_checkpoints = max_checkpoints
        self.resume_from_checkpoint = resume_from_checkpoint
        self.saved_checkpoints = []
        self.monitor_op, self.best = _monitor_op(mode, monitor, "CheckpointHandler")
        self._mode = mode
        self._symbol_saved = False

    def train_begin(self, estimator, *args, **kwargs):
        self.current_epoch = 0
        self.current_batch = 0
        self._symbol_saved = False
        if self.save_best:
            self.monitor_op, self.best = _monitor_op(self._mode, self.monitor, "CheckpointHandler")
        if self.resume_from_checkpoint:
            self._resume_from_checkpoint(estimator)

    def batch_end(self, estimator, *args, **kwargs):
        self._save_symbol(estimator)
        if self.batch_period and (self.current_batch + 1) % self.batch_period == 0:
            self._save_checkpoint(estimator)
        self.current_batch += 1

    def epoch_end(self, estimator, *args, **kwargs):
        if self.epoch_period and (self.current_epoch + 1) % self.epoch_period == 0:
            self._save_checkpoint(estimator)
        self.current_epoch += 1

    def _path(self, suffix):
        return os.path.join(self.model_dir, f"{self.model_prefix}-{suffix}")

    def _save_checkpoint(self, estimator):
        prefix = f"epoch{self.current_epoch}batch{self.current_batch}"
        self._save_params_and_trainer(estimator, prefix)
        self.saved_checkpoints.append(prefix)
        while self.max_checkpoints and len(self.saved_checkpoints) > self.max_checkpoints:
            oldest = self.saved_checkpoints.pop(0)
            for extension in (".params", ".states"):
                path = self._path(oldest + extension)
                if os.path.exists(path):
                    os.remove(path)
        if self.save_best:
            name, value = self.monitor.get()
            if np.isnan(value):
                warnings.warn(f"CheckpointHandler: monitor {name!r} is NaN; -best was not updated", RuntimeWarning)
            elif self.monitor_op(value, self.best):
                self.best = value
                self._save_params_and_trainer(estimator, "best")
                if self.verbose:
                    estimator.logger.info("[Epoch %d] CheckpointHandler: %s improved to %.4f, saved %s",
                                          self.current_epoch, name, value, self._path("best.params"))

    def _save_symbol(self, estimator):
        if self._symbol_saved:
            return
        net = estimator.net
        if isinstance(net, HybridBlock) and getattr(net, "_cached_graph", None):
            net._cached_graph[1].save(self._path("symbol.json"))
            self._symbol_saved = True

    def _save_params_and_trainer(self, estimator, suffix):
        estimator.net.save_parameters(self._path(suffix + ".params"))
        estimator.trainer.save_states(self._path(suffix + ".states"))
        if self.verbose > 1:
            estimator.logger.info("[Epoch %d] CheckpointHandler: saved %s", self.current_epoch,
                                  self._path(suffix + ".params"))

    def _resume_from_checkpoint(self, estimator):
        pattern = re.compile(re.escape(self.model_prefix) + r"-epoch(\d+)batch(\d+)\.params$")
        found = []
        for name in os.listdir(self.model_dir):
            match = pattern.match(name)
            if match:
                found.append((int(match.group(2)), int(match.group(1)), name))
        if not found:
            warnings.warn(f"CheckpointHandler: no checkpoint {self.model_prefix}-epoch*batch*.params in "
                          f"{self.model_dir} to resume from; training from the start")
            return
        batch, epoch, name = max(found)
        prefix = name[len(self.model_prefix) + 1:-len(".params")]
        estimator.net.load_parameters(os.path.join(self.model_dir, name), ctx=estimator.context)
        states = self._path(prefix + ".states")
        if os.path.exists(states):
            estimator.trainer.load_states(states)
        if estimator.max_epoch:
            if epoch + 1 >= estimator.max_epoch:
                warnings.warn(f"CheckpointHandler: the checkpoint {name} already covers max_epoch="
                              f"{estimator.max_epoch}; nothing left to train")
            estimator.max_epoch = estimator.max_epoch - epoch - 1
        if estimator.max_batch:
            estimator.max_batch = estimator.max_batch - batch - 1
        self.current_epoch = epoch + 1
        self.current_batch = batch
        self.saved_checkpoints = [prefix]
        estimator.logger.info("CheckpointHandler: resumed from %s (epoch %d, batch %d)", name, epoch, batch)


class EarlyStoppingHandler(TrainBegin, EpochEnd, TrainEnd):
    """Stops when ``monitor`` has not improved by ``min_delta`` for more than ``patience``
    epochs (``mode`` 'min', 'max', or 'auto': max for accuracy / F1 names)."""

    def __init__(self, monitor, min_delta=0, patience=0, mode="auto", baseline=None):
        if not isinstance(monitor, EvalMetric):
            raise MXNetValueError("EarlyStoppingHandler: monitor must be an EvalMetric of the Estimator")
        self.monitor = monitor
        self.baseline = baseline
        self.patience = patience
        self.min_delta = min_delta
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False
        self._mode = mode
        self.monitor_op, self.best = _monitor_op(mode, monitor, "EarlyStoppingHandler")
        if self.monitor_op == np.less:
            self.min_delta *= -1

    def train_begin(self, estimator, *args, **kwargs):
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False
        if self.baseline is not None:
            self.best = self.baseline
        else:
            self.best = np.inf if self.monitor_op == np.less else -np.inf

    def epoch_end(self, estimator, *args, **kwargs):
        name, value = self.monitor.get()
        if np.isnan(value):
            warnings.warn(f"EarlyStoppingHandler: monitor {name!r} is NaN; skipping this epoch", RuntimeWarning)
        elif self.monitor_op(value - self.min_delta, self.best):
            self.best = value
            self.wait = 0
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = self.current_epoch
                self.stop_training = True
        self.current_epoch += 1
        return self.stop_training

    def train_end(self, estimator, *args, **kwargs):
        if self.stopped_epoch > 0:
            estimator.logger.info("[Epoch %d] EarlyStoppingHandler: early stopping due to %s not improving",
                                  self.stopped_epoch, self.monitor.get()[0])


class GradientUpdateHandler(BatchEnd):
    """``estimator.trainer.step(batch size)`` after each batch (the batch size summed over the
    per-context losses along ``estimator.batch_axis``)."""

    def __init__(self, priority=-2000):
        self.priority = priority

    def batch_end(self, estimator, *args, **kwargs):
        loss = kwargs["loss"]
        losses = loss if isinstance(loss, list) else [loss]
        batch_size = sum(value.shape[estimator.batch_axis] if value.ndim > estimator.batch_axis else value.shape[0]
                         for value in losses)
        estimator.trainer.step(batch_size)


logging.getLogger(__name__).addHandler(logging.NullHandler())
