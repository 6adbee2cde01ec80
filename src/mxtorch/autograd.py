"""``mx.autograd`` flags: whether imperative calls record and run in training mode."""
from __future__ import annotations

import threading

__all__ = ["is_training", "is_recording", "set_training", "set_recording", "record", "pause",
           "train_mode", "predict_mode"]

_state = threading.local()


def is_training():
    return getattr(_state, "training", False)


def is_recording():
    return getattr(_state, "recording", False)


def set_training(train_mode):
    previous = is_training()
    _state.training = bool(train_mode)
    return previous


def set_recording(is_record):
    previous = is_recording()
    _state.recording = bool(is_record)
    return previous


class _Scope:
    def __init__(self, recording, training):
        self._recording = recording
        self._training = training
        self._previous = None

    def __enter__(self):
        self._previous = (is_recording(), is_training())
        if self._recording is not None:
            set_recording(self._recording)
        if self._training is not None:
            set_training(self._training)

    def __exit__(self, *exc):
        set_recording(self._previous[0])
        set_training(self._previous[1])


def record(train_mode=True):
    return _Scope(True, train_mode)


def pause(train_mode=False):
    return _Scope(False, train_mode)


def train_mode():
    return _Scope(None, True)


def predict_mode():
    return _Scope(None, False)
