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

mxtorch adds callbacks that see each epoch's validation score (MXNet calls epoch-end
callbacks before validating): :class:`TrainingCallback` and its kinds
:class:`EarlyStopping`, :class:`ModelCheckpoint` (best ``k``), :class:`CSVLogger` and
:class:`TensorBoard`; ``fit`` returns a :class:`History`.
"""
from __future__ import annotations

import logging
import numbers
import math
import time

from . import model
from .base import MXNetError, MXNetValueError
from .model import save_checkpoint  # noqa: F401  (``mx.callback.save_checkpoint`` is mx.model's, as in MXNet)

__all__ = [
    "do_checkpoint", "module_checkpoint", "log_train_metric", "Speedometer", "ProgressBar",
    "LogValidationMetricsCallback", "save_checkpoint",
    # mxtorch's additions (not in MXNet 1.9.1)
    "History", "TrainingCallback", "EarlyStopping", "ModelCheckpoint", "CSVLogger", "TensorBoard",
]


def _every(period):
    """MXNet's period rule: a period below 1 counts as 1."""
    return int(max(1, period))


def _warn_missing_folder(caller, prefix):
    """Warn when the folder of a checkpoint ``prefix`` does not exist yet.

    MXNet finds out only when the first save fails, after an epoch of training; a checkpoint
    callback is usually made just before ``fit``, so mxtorch says so at once.  (A folder made
    after the callback, before the first save, is fine: this is a warning, not an error.)"""
    import os
    import warnings
    folder = os.path.dirname(os.fspath(prefix))
    if folder and not os.path.isdir(folder):
        warnings.warn(f"{caller}: the folder {folder!r} of checkpoint prefix {os.fspath(prefix)!r} does not "
                      f"exist; saving the first checkpoint will fail unless it is created before then",
                      stacklevel=3)


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
    _warn_missing_folder("do_checkpoint", prefix)

    def _callback(epoch, symbol, arg_params, aux_params):
        if (epoch + 1) % period == 0:
            # looked up per call, so a replaced model.save_checkpoint is used
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
    _warn_missing_folder("module_checkpoint", prefix)

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
    if isinstance(period, bool) or not isinstance(period, numbers.Integral) or period < 1:
        # MXNet 1.9.1 failed at the first batch with ZeroDivisionError for period 0
        raise MXNetValueError(f"log_train_metric: period must be a positive integer (batches between log "
                              f"lines), got {period!r}")

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


# MXNet's mxnet.model had this class in its namespace; the model layer is below this module
model.provide_name("LogValidationMetricsCallback", LogValidationMetricsCallback)


# -- training comforts beyond MXNet: callbacks that see the epoch's metrics after validation --------
_MINIMISED_WORDS = ("loss", "error", "entropy", "perplexity", "mse", "mae", "rmse", "nll", "time")


def _metric_key(name):
    return str(name).strip().lower()


class History(dict):
    """What ``fit`` returns (MXNet returned None): ``{key: [value per epoch]}`` with keys
    ``'train-<metric>'`` and ``'validation-<metric>'`` (metric names as the log lines show
    them, lower-cased prefix: ``history['validation-accuracy']``), ``'learning-rate'`` and
    ``'samples-per-sec'``; ``epochs`` lists the 0-based epoch numbers trained."""

    def __init__(self):
        super().__init__()
        self.epochs = []

    def record(self, epoch, logs):
        self.epochs.append(epoch)
        for key, value in logs.items():
            self.setdefault(key, [None] * (len(self.epochs) - 1)).append(value)
        for key, values in self.items():
            if len(values) < len(self.epochs):
                values.append(None)

    def __repr__(self):
        return f"History(epochs={self.epochs}, {dict(self)})"


class TrainingCallback:
    """Base of the callbacks that ``fit`` also calls after each epoch's validation.

    Pass one in ``epoch_end_callback`` (or ``batch_end_callback``); ``fit`` then calls
    ``on_train_begin(module)``, ``on_epoch_end(epoch, logs)`` once per epoch after the
    validation score, with ``logs`` the epoch's values keyed as in :class:`History`, and
    ``on_train_end(history)``.  Setting ``self.stop_training = True`` ends ``fit`` after that
    epoch.  Called as an MXNet epoch-end callback ``(epoch, symbol, arg_params, aux_params)``
    it keeps those for ``on_epoch_end``; as a batch-end callback ``(param)`` it calls
    ``on_batch_end(param)``.
    """

    stop_training = False

    def __call__(self, *args):
        if len(args) == 1:
            self.on_batch_end(args[0])
            return
        if len(args) != 4:
            raise MXNetError(f"{type(self).__name__}: called with {len(args)} arguments; expected (param) as a "
                             f"batch-end callback or (epoch, symbol, arg_params, aux_params) as an epoch-end one")
        self.epoch, self.symbol, self.arg_params, self.aux_params = args

    def on_train_begin(self, module):
        self.module = module

    def on_batch_end(self, param):
        pass

    def on_epoch_end(self, epoch, logs):
        pass

    def on_train_end(self, history):
        pass


class _Monitored(TrainingCallback):
    """A callback watching one value of ``logs`` (``monitor``) that should go ``mode``-wards."""

    def __init__(self, monitor, mode, min_delta=0.0):
        if mode not in ("auto", "min", "max"):
            raise MXNetError(f"{type(self).__name__}: mode must be 'auto', 'min' or 'max', got {mode!r}")
        self.monitor = _metric_key(monitor)
        if mode == "auto":
            mode = "min" if any(word in self.monitor for word in _MINIMISED_WORDS) else "max"
        self.mode = mode
        self.min_delta = abs(float(min_delta))

    def _value(self, logs):
        values = {_metric_key(k): v for k, v in logs.items()}
        if self.monitor not in values:
            raise MXNetError(f"{type(self).__name__}: monitor {self.monitor!r} is not among this epoch's values "
                             f"{sorted(values)} (does fit have eval_data?)")
        return float(values[self.monitor])

    def _better(self, value, reference):
        if reference is None:
            return True
        if self.mode == "max":
            return value - self.min_delta > reference
        return value + self.min_delta < reference


class EarlyStopping(_Monitored):
    """Stop ``fit`` when ``monitor`` has not improved for ``patience`` epochs.

    ``monitor``: a key of the epoch's values (``'validation-accuracy'``, ``'train-cross-entropy'``,
    case-insensitive); ``min_delta``: the least change counted as an improvement; ``mode``:
    'max', 'min' or 'auto' (min for names with loss / error / entropy / perplexity / mse /
    mae, else max).  After epoch ``e`` with no improvement for the ``patience``-th time in a
    row (0 and 1: the first time), ``fit`` ends (``stopped_epoch = e``, logged as ``Epoch[e] Early stopping: ...``).
    Raises MXNetError when ``monitor`` is not among the epoch's values."""

    def __init__(self, monitor="validation-accuracy", patience=0, min_delta=0.0, mode="auto"):
        super().__init__(monitor, mode, min_delta)
        if int(patience) < 0:
            raise MXNetError(f"EarlyStopping: patience must be >= 0, got {patience!r}")
        self.patience = int(patience)
        self.best = None
        self.best_epoch = None
        self.wait = 0
        self.stopped_epoch = None

    def on_train_begin(self, module):
        super().on_train_begin(module)
        self.best, self.best_epoch, self.wait, self.stopped_epoch = None, None, 0, None
        self.stop_training = False

    def on_epoch_end(self, epoch, logs):
        value = self._value(logs)
        if self._better(value, self.best):
            self.best, self.best_epoch, self.wait = value, epoch, 0
            return
        self.wait += 1
        if self.wait >= max(self.patience, 1):
            self.stop_training = True
            self.stopped_epoch = epoch
            logging.info("Epoch[%d] Early stopping: %s has not improved on %f (epoch %d) for %d epoch(s)",
                         epoch, self.monitor, self.best, self.best_epoch, self.wait)


class ModelCheckpoint(_Monitored):
    """Save ``prefix-symbol.json`` + ``prefix-NNNN.params`` (NNNN = epoch + 1, as
    ``do_checkpoint``) after epochs, choosing by ``monitor``.

    ``save_top_k=k`` keeps exactly the ``k`` best epochs' ``.params`` files (worse ones are
    deleted as better ones arrive); ``save_best_only=True`` is ``save_top_k=1``; neither:
    every ``period``-th epoch is saved, as ``do_checkpoint``.  ``best_epochs`` lists
    ``(value, epoch + 1)`` of the files kept, best first.  ``mode``/``monitor`` as
    :class:`EarlyStopping`; ``save_optimizer_states`` also writes ``.states`` (via the module)."""

    def __init__(self, prefix, monitor="validation-accuracy", save_best_only=False, save_top_k=None, mode="auto",
                 period=1, save_optimizer_states=False):
        super().__init__(monitor, mode)
        if save_top_k is not None and int(save_top_k) < 1:
            raise MXNetError(f"ModelCheckpoint: save_top_k must be >= 1 or None, got {save_top_k!r}")
        _warn_missing_folder("ModelCheckpoint", prefix)
        self.prefix = prefix
        self.save_top_k = 1 if save_best_only and save_top_k is None else save_top_k
        self.period = _every(period)
        self.save_optimizer_states = save_optimizer_states
        self.best_epochs = []
        self.arg_params = self.aux_params = self.symbol = None
        self.module = None

    def _save(self, number):
        if self.save_optimizer_states and self.module is not None and hasattr(self.module, "save_checkpoint"):
            self.module.save_checkpoint(self.prefix, number, save_optimizer_states=True)
            return
        symbol, arg_params, aux_params = self.symbol, self.arg_params, self.aux_params
        if arg_params is None and self.module is not None:
            symbol = self.module.symbol
            arg_params, aux_params = self.module.get_params()
        if arg_params is None:
            raise MXNetError("ModelCheckpoint: no parameters to save; pass it to fit(epoch_end_callback=...)")
        model.save_checkpoint(self.prefix, number, symbol, arg_params, aux_params)

    def _remove(self, number):
        import os
        for suffix in (".params", ".states"):
            path = f"{self.prefix}-{number:04d}{suffix}"
            if os.path.exists(path):
                os.remove(path)

    def on_epoch_end(self, epoch, logs):
        number = epoch + 1
        if self.save_top_k is None:
            if number % self.period == 0:
                self._save(number)
                self.best_epochs.append((logs.get(self.monitor), number))
            return
        value = self._value(logs)
        kept = self.best_epochs
        worst = kept[-1][0] if len(kept) >= self.save_top_k else None
        if worst is not None and not self._better(value, worst):
            return
        self._save(number)
        kept.append((value, number))
        kept.sort(key=lambda item: item[0], reverse=self.mode == "max")
        while len(kept) > self.save_top_k:
            _, dropped = kept.pop()
            self._remove(dropped)
        logging.info("Epoch[%d] ModelCheckpoint: saved %s-%04d.params (%s=%f)", epoch, self.prefix, number,
                     self.monitor, value)


class CSVLogger(TrainingCallback):
    """Write one row per epoch to the CSV file ``path``: ``epoch`` then every value of the
    epoch (metrics, learning rate, samples/s), columns in first-seen order.  The file is
    rewritten atomically after each epoch; ``append=True`` keeps the rows already in it."""

    def __init__(self, path, append=False, separator=","):
        self.path = path
        self.separator = separator
        self.rows = []
        self.columns = ["epoch"]
        if append:
            import csv
            import os
            if os.path.exists(path):
                with open(path, newline="") as handle:
                    reader = csv.DictReader(handle, delimiter=separator)
                    self.columns = list(reader.fieldnames or ["epoch"])
                    self.rows = list(reader)

    def on_epoch_end(self, epoch, logs):
        import csv
        import io
        from .util import atomic_write
        row = {"epoch": epoch, **logs}
        for key in row:
            if key not in self.columns:
                self.columns.append(key)
        self.rows.append(row)
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=self.columns, delimiter=self.separator, lineterminator="\n")
        writer.writeheader()
        writer.writerows(self.rows)
        atomic_write(self.path, buffer.getvalue().encode())


class TensorBoard(TrainingCallback):
    """Scalars for TensorBoard in ``logdir`` (``torch.utils.tensorboard.SummaryWriter``; needs
    the optional ``tensorboard`` package): after each epoch every value of the epoch (tags
    ``train-accuracy``, ``validation-accuracy``, ``learning-rate``, ``samples-per-sec``, ...)
    at step ``epoch``; with ``batch_period=n``, also the training metrics every ``n`` batches
    (tags ``batch/train-<metric>``, step = batches so far).  Raises ImportError naming the
    package when tensorboard is missing."""

    def __init__(self, logdir, batch_period=None):
        try:
            from torch.utils.tensorboard import SummaryWriter
        except ImportError:
            raise ImportError("mx.callback.TensorBoard needs the optional dependency tensorboard: "
                              "pip install 'mxtorch[tensorboard]'") from None
        self.logdir = logdir
        self.writer = SummaryWriter(log_dir=logdir)
        self.batch_period = batch_period
        self.batches = 0

    def on_batch_end(self, param):
        self.batches += 1
        if not self.batch_period or self.batches % self.batch_period or param.eval_metric is None:
            return
        for name, value in param.eval_metric.get_name_value():
            self.writer.add_scalar(f"batch/train-{name}", value, self.batches)

    def on_epoch_end(self, epoch, logs):
        for key, value in logs.items():
            if value is not None:
                self.writer.add_scalar(key, value, epoch)
        self.writer.flush()

    def on_train_end(self, history):
        self.writer.flush()

    def close(self):
        self.writer.close()
