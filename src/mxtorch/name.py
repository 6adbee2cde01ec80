"""Automatic names for symbols (MXNet's ``NameManager`` and ``Prefix``).

An operator created without ``name=`` is named ``<hint><n>`` where ``hint`` is
the lower-cased operator name and ``n`` counts per hint from 0
(``fullyconnected0``, ``fullyconnected1``, ...).
"""
from __future__ import annotations

import threading

from .util import ThreadCurrent
# names MXNet 1.9.1's mxnet.name had in its namespace from its ctypes binding
from .base import (classproperty, with_metaclass)  # noqa: E402,F401

__all__ = ["NameManager", "Prefix"]


class NameManager(metaclass=ThreadCurrent):
    """Hands out automatic names; use as ``with NameManager():`` to restart the counters.
    ``NameManager.current`` is the calling thread's manager (each thread has its own)."""

    _current = threading.local()

    def __init__(self):
        self._counter = {}
        self._old_manager = None

    def get(self, name, hint):
        """``name`` if given, else ``hint`` followed by the next counter value for that hint."""
        if name:
            return name
        if hint not in self._counter:
            self._counter[hint] = 0
        name = f"{hint}{self._counter[hint]}"
        self._counter[hint] += 1
        return name

    def __enter__(self):
        self._old_manager = NameManager.current
        NameManager._current.value = self
        return self

    def __exit__(self, *exc):
        NameManager._current.value = self._old_manager


class Prefix(NameManager):
    """Prepends ``prefix`` to every name, given or automatic."""

    def __init__(self, prefix):
        super().__init__()
        self._prefix = prefix

    def get(self, name, hint):
        return self._prefix + super().get(name, hint)

# MXNet's module imported the class-property metaclass from mxnet.base
from .base import _MXClassPropertyMetaClass  # noqa: E402,F401
