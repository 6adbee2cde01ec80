"""``AttrScope``: attributes attached to every symbol created inside a ``with`` block.

MXNet used it for ``ctx_group`` (model parallelism), ``lr_mult`` and custom
keys; the values are strings and are stored on each node as ``__key__``.
"""
from __future__ import annotations

import threading

from .base import MXNetError

__all__ = ["AttrScope"]


class AttrScope:
    """``with AttrScope(ctx_group='dev1'):`` adds ``__ctx_group__='dev1'`` to new symbols.

    Values must be strings (MXNetError otherwise).  Nested scopes merge, the inner
    scope winning.
    """

    _current = threading.local()

    def __init__(self, **kwargs):
        self._old_scope = None
        for key, value in kwargs.items():
            if not isinstance(value, str):
                raise MXNetError(f"AttrScope: attribute {key!r} must be a string, got {type(value).__name__}")
        self._attr = kwargs

    def get(self, attr):
        """Merge this scope's attributes under ``attr`` (a dict or None); keys become ``__key__``."""
        result = {f"__{k}__" if not k.startswith("__") else k: v for k, v in self._attr.items()}
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


class _CurrentDescriptor:
    def __get__(self, instance, owner):
        value = getattr(AttrScope._current, "value", None)
        if value is None:
            value = AttrScope()
            AttrScope._current.value = value
        return value


AttrScope.current = _CurrentDescriptor()
