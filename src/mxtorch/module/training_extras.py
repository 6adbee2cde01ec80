"""What ``fit`` / ``score`` / ``predict`` add to MXNet's loop: tqdm progress bars, the
per-epoch values given to :class:`mxtorch.callback.TrainingCallback` objects, and the
:class:`mxtorch.callback.History` that ``fit`` returns.

Progress bars go to stderr; ``progress=None`` (default) shows them when stderr is a
terminal and ``MXTORCH_PROGRESS`` is not ``0``; ``progress=False`` never, ``True`` always.
While a bar is shown, log lines are written above it (``tqdm.contrib.logging``).
"""
from __future__ import annotations

import math
import os
import sys

from ..callback import History, TrainingCallback

__all__ = ["progress_enabled", "progress_bar", "FitExtras"]


def progress_enabled(progress):
    """Whether to show a bar for the ``progress`` argument (see the module docstring)."""
    if progress is not None:
        return bool(progress)
    if os.environ.get("MXTORCH_PROGRESS", "").strip().lower() in ("0", "false", "no", "off"):
        return False
    stream = sys.stderr
    return bool(stream is not None and hasattr(stream, "isatty") and stream.isatty())


def _batches(data_iter):
    num_data = getattr(data_iter, "num_data", None)
    batch_size = getattr(data_iter, "batch_size", None)
    if isinstance(num_data, int) and isinstance(batch_size, int) and batch_size > 0:
        return math.ceil(num_data / batch_size)
    return None


class _NoBar:
    def update(self, count=1):
        pass

    def set_postfix_str(self, text):
        pass

    def close(self):
        pass


def progress_bar(progress, data_iter, description):
    """A tqdm bar over the batches of ``data_iter`` (a do-nothing bar when disabled)."""
    if not progress_enabled(progress):
        return _NoBar()
    from tqdm import tqdm
    return tqdm(total=_batches(data_iter), desc=description, unit="batch", leave=False, file=sys.stderr,
                dynamic_ncols=True)


def _rows(value):
    """Rows of the first data input: an array's first dimension, summed over per-device lists."""
    if isinstance(value, (list, tuple)):
        return sum(_rows(item) for item in value)
    shape = getattr(value, "shape", None)
    return int(shape[0]) if shape else 0


def _sample_count(batch):
    """Samples in a batch (padding excluded), for samples/s; 0 when the batch does not say."""
    batches = batch if isinstance(batch, list) else [batch]
    total = 0
    for one in batches:
        data = getattr(one, "data", None) or []
        if data:
            total += max(_rows(data[0]) - int(getattr(one, "pad", 0) or 0), 0)
    return total


class FitExtras:
    """One ``fit`` call's bars, values and history; ``fit`` calls the methods in order.
    While an epoch's bar is shown, the root logger writes above it."""

    def __init__(self, module, callbacks, progress):
        self.module = module
        self.progress = progress
        self.callbacks = []
        for callback in callbacks:
            if isinstance(callback, TrainingCallback) and all(callback is not c for c in self.callbacks):
                self.callbacks.append(callback)
        self.history = History()
        self.bar = _NoBar()
        self.redirect = None
        self.samples = 0
        for callback in self.callbacks:
            callback.on_train_begin(module)

    def epoch_begin(self, epoch, train_data):
        self.samples = 0
        self._close_bar()
        self.bar = progress_bar(self.progress, train_data, f"Epoch[{epoch}]")
        if not isinstance(self.bar, _NoBar):
            from tqdm.contrib.logging import logging_redirect_tqdm
            self.redirect = logging_redirect_tqdm()
            self.redirect.__enter__()

    def _close_bar(self):
        self.bar.close()
        self.bar = _NoBar()
        if self.redirect is not None:
            self.redirect.__exit__(None, None, None)
            self.redirect = None

    def batch_end(self, batch, eval_metric):
        self.samples += _sample_count(batch)
        self.bar.update(1)

    def _learning_rate(self):
        optimizer = getattr(self.module, "_optimizer", None)
        try:
            return float(optimizer.learning_rate) if optimizer is not None else None
        except Exception:       # noqa: BLE001 - a custom optimizer without a readable rate
            return None

    def epoch_end(self, epoch, train_values, validation_values, seconds):
        """Record the epoch, call the callbacks; True when one of them asks to stop."""
        self._close_bar()
        logs = {f"train-{name}": float(value) for name, value in train_values}
        logs.update({f"validation-{name}": float(value) for name, value in validation_values or []})
        rate = self._learning_rate()
        if rate is not None:
            logs["learning-rate"] = rate
        if seconds > 0:
            logs["samples-per-sec"] = self.samples / seconds
        self.history.record(epoch, logs)
        for callback in self.callbacks:
            callback.on_epoch_end(epoch, logs)
        return any(callback.stop_training for callback in self.callbacks)

    def end(self):
        self._close_bar()
        for callback in self.callbacks:
            callback.on_train_end(self.history)
        return self.history
