"""``AttrScope``: attributes attached to every symbol created inside a ``with`` block.

MXNet used it for ``ctx_group`` (model parallelism), ``lr_mult`` and custom
keys; the values are strings.  Keys are stored as given, except MXNet's legacy
keys (``ctx_group``, ``lr_mult``, ``wd_mult``, ...), which the symbol stores as
``__key__`` (and reports under both spellings).
"""
from __future__ import annotations

import threading

from .base import MXNetValueError
from .util import ThreadCurrent
# names MXNet 1.9.1's mxnet.attribute had in its namespace from its ctypes binding
from .base import (classproperty, string_types, with_metaclass)  # noqa: E402,F401
# names MXNet 1.9.1's mxnet.attribute had in its namespace (imported there, not defined)
from collections import defaultdict  # noqa: E402,F401

__all__ = ["AttrScope"]


class AttrScope(metaclass=ThreadCurrent):
    """``with AttrScope(ctx_group='dev1'):`` adds ``__ctx_group__='dev1'`` to new symbols, and
    ``AttrScope(group='4')`` adds ``group='4'``.

    Values must be strings (MXNetError, also a ValueError as MXNet's error was, otherwise).  Nested scopes merge, the inner
    scope winning.
    """

    _current = threading.local()

    def __init__(self, **kwargs):
        self._old_scope = None
        for key, value in kwargs.items():
            if not isinstance(value, str):
                raise MXNetValueError(f"AttrScope: attribute {key!r} must be a string, got {type(value).__name__}")
        self._attr = kwargs

    def get(self, attr):
        """This scope's attributes updated with ``attr`` (a dict or None; its entries win)."""
        result = dict(self._attr)
        if attr:
            result.update(attr)
        return result

    def __enter__(self):
        self._old_scope = AttrScope.current
        merged = dict(self._old_scope._attr) if self._old_scope is not None else {}
        merged.update(self._attr)
        self._attr = merged
        AttrScope._current.value = self
        return self

    def __exit__(self, *exc):
        AttrScope._current.value = self._old_scope

# MXNet's module imported the class-property metaclass from mxnet.base
from .base import _MXClassPropertyMetaClass  # noqa: E402,F401
