"""Training callbacks (MXNet 1.9.1's ``mxnet.callback``).

Two kinds, as in MXNet:

- epoch-end callbacks ``callback(epoch, symbol, arg_params, aux_params)``,
  called by ``fit`` after each epoch with the 0-based epoch number:
  :func:`do_checkpoint`, :func:`module_checkpoint`;
- batch-end callbacks ``callback(param)``, where ``param`` carries
  ``epoch``, ``nbatch`` (0-based index of the batch just finished),
  ``eval_metric`` and ``locals`` (``mx.model.BatchEndParam``):
  :class:`Speedometer`, :func:`log_train_metric`, :class:`ProgressBar`,
  :class:`LogValidationMetricsCallback`.

All of them write through the root ``logging`` logger at INFO level, with
MXNet's exact message formats, so log parsers written for MXNet keep
working.
"""
from __future__ import annotations

import logging
import math
import time

from .base import MXNetError

__all__ = [
    "do_checkpoint", "module_checkpoint", "log_train_metric", "Speedometer", "ProgressBar",
    "LogValidationMetricsCallback", "save_checkpoint",
]


def __getattr__(name):
    # ``mx.callback.save_checkpoint`` is ``mx.model.save_checkpoint``, as in MXNet;
    # looked up on first use because mxtorch.model imports the symbol layer.
    if name == "save_checkpoint":
        from .model import save_checkpoint
        return save_checkpoint
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _every(period):
    """MXNet's period rule: a period below 1 counts as 1."""
    return int(max(1, period))


def do_checkpoint(prefix, period=1):
    """Epoch-end callback that saves the model every ``period`` epochs.

    After the epoch numbered ``epoch`` (0-based, as ``fit`` passes it),
    if ``(epoch + 1) % period == 0`` it calls
    ``mx.model.save_checkpoint(prefix, epoch + 1, symbol, arg_params,
    aux_params)``, which writes ``prefix-symbol.json`` and
    ``prefix-NNNN.params`` with NNNN = epoch + 1 (so ``--load-epoch N``
    resumes after N finished epochs).  ``period`` below 1 counts as 1.

    Returns
    -------
    callable
        ``callback(epoch, symbol, arg_params, aux_params)`` for
        ``fit(epoch_end_callback=...)``.
    """
    period = _every(period)

    def _callback(epoch, symbol, arg_params, aux_params):
        if (epoch + 1) % period == 0:
            from . import model  # looked up per call, so a replaced model.save_checkpoint is used
            model.save_checkpoint(prefix, epoch + 1, symbol, arg_params, aux_params)
    return _callback


def module_checkpoint(mod, prefix, period=1, save_optimizer_states=False):
    """Epoch-end callback that calls ``mod.save_checkpoint`` every ``period`` epochs.

    Like :func:`do_checkpoint`, but the module writes the files itself (and,
    with ``save_optimizer_states=True``, also ``prefix-NNNN.states``).  The
    symbol and parameters ``fit`` passes are ignored.  ``period`` below 1
    counts as 1.

    Returns
    -------
    callable
        ``callback(epoch, symbol=None, arg_params=None, aux_params=None)``.
    """
    period = _every(period)

    def _callback(epoch, symbol=None, arg_params=None, aux_params=None):
        if (epoch + 1) % period == 0:
            mod.save_checkpoint(prefix, epoch + 1, save_optimizer_states)
    return _callback


def log_train_metric(period, auto_reset=False):
    """Batch-end callback logging the training metric every ``period`` batches.

    On each batch whose index ``nbatch`` is a multiple of ``period``
    (including batch 0) it logs, for every (name, value) of
    ``eval_metric.get_name_value()``, the line
    ``Iter[<epoch>] Batch[<nbatch>] Train-<name>=<value %f>``; with
    ``auto_reset`` it then calls ``eval_metric.reset_local()``.  Does nothing
    when ``eval_metric`` is None.
    """
    def _callback(param):
        if param.nbatch % period != 0 or param.eval_metric is None:
            return
        for name, value in param.eval_metric.get_name_value():
            logging.info("Iter[%d] Batch[%d] Train-%s=%f", param.epoch, param.nbatch, name, value)
        if auto_reset:
            param.eval_metric.reset_local()
    return _callback


class Speedometer:
    """Batch-end callback logging throughput and the training metric.

    The first batch of every epoch (detected by ``nbatch`` going down, or
    the first call) only starts the clock.  After that, on each batch whose
    index ``nbatch`` is a multiple of ``frequent``, it logs the speed
    ``frequent * batch_size / seconds since the last log`` in samples per
    second and the metric values, with MXNet 1.9.1's lines (fields separated
    by tabs)::

        Epoch[0] Batch [50-100]\\tSpeed: 1234.56 samples/sec\\taccuracy=0.912000
        Epoch[0] Batch [0-100]\\tSpeed: 1234.56 samples/sec\\taccuracy=0.912000
        Iter[0] Batch [100]\\tSpeed: 1234.56 samples/sec

    The first with ``auto_reset=True`` (the metric is then reset with
    ``reset_local()`` after being read, so each line covers batches
    ``nbatch - frequent`` to ``nbatch``), the second with
    ``auto_reset=False`` (the values accumulate from the start of the
    epoch), the third when ``eval_metric`` is None.

    Parameters
    ----------
    batch_size : int
        Samples per batch, used for the speed.
    frequent : int
        Log every this many batches (default 50).
    auto_reset : bool
        Reset the metric after each log (default True).
    """

    def __init__(self, batch_size, frequent=50, auto_reset=True):
        if not isinstance(frequent, int) or frequent < 1:
            raise MXNetError(f"Speedometer: frequent must be a positive integer (batches between log lines), "
                             f"got {frequent!r}")
        self.batch_size = batch_size
        self.frequent = frequent
        self.auto_reset = auto_reset
        self.init = False
        self.tic = 0.0
        self.last_count = 0

    def __call__(self, param):
        count = param.nbatch
        if count < self.last_count:
            self.init = False          # a new epoch started
        self.last_count = count
        if not self.init:
            self.init = True
            self.tic = time.time()
            return
        if count % self.frequent != 0:
            return
        elapsed = time.time() - self.tic
        speed = self.frequent * self.batch_size / elapsed if elapsed > 0 else float("inf")
        metric = param.eval_metric
        if metric is None:
            logging.info("Iter[%d] Batch [%d]\tSpeed: %.2f samples/sec", param.epoch, count, speed)
        else:
            name_value = metric.get_name_value()
            metric_format = "\t%s=%f" * len(name_value)
            metric_args = [item for pair in name_value for item in pair]
            if self.auto_reset:
                metric.reset_local()
                logging.info("Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec" + metric_format,
                             param.epoch, count - self.frequent, count, speed, *metric_args)
            else:
                logging.info("Epoch[%d] Batch [0-%d]\tSpeed: %.2f samples/sec" + metric_format,
                             param.epoch, count, speed, *metric_args)
        self.tic = time.time()


class ProgressBar:
    """Batch-end callback logging a text progress bar for the epoch.

    For batch index ``nbatch`` out of ``total`` batches it logs
    ``[====----] P%`` followed by a carriage return, where the bar is
    ``length`` characters, ``round(length * nbatch / total)`` of them '='
    and P is ``ceil(100 * nbatch / total)`` (MXNet's line; note that it uses
    the 0-based index, so the last batch of an epoch shows slightly under
    100%).
    """

    def __init__(self, total, length=80):
        self.bar_len = length
        self.total = total

    def __call__(self, param):
        fraction = param.nbatch / float(self.total)
        filled = int(round(self.bar_len * fraction))
        percent = math.ceil(100.0 * fraction)
        logging.info("[%s] %s%s\r", "=" * filled + "-" * (self.bar_len - filled), percent, "%")


class LogValidationMetricsCallback:
    """Eval-end callback logging ``Epoch[<epoch>] Validation-<name>=<value %f>``.

    One line per (name, value) of ``param.eval_metric.get_name_value()``;
    nothing when ``eval_metric`` is None or empty.
    """

    def __call__(self, param):
        if not param.eval_metric:
            return
        for name, value in param.eval_metric.get_name_value():
            logging.info("Epoch[%d] Validation-%s=%f", param.epoch, name, value)
