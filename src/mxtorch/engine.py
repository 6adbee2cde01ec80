"""``mx.engine``: MXNet's bulk-execution setting, kept for compatibility.

MXNet's dependency engine could group up to ``size`` consecutive imperative operators
into one scheduled unit ("bulk execution").  PyTorch runs operators eagerly with no such
engine, so in mxtorch the size is recorded and reported back but changes nothing about
how or when operators run; results are the same as in MXNet at any size.
"""
from __future__ import annotations

import numbers
import threading

from .base import MXNetError
# names MXNet 1.9.1's mxnet.engine had in its namespace from its ctypes binding
from .base import check_call  # noqa: E402,F401

__all__ = ["bulk", "set_bulk_size"]

_state = threading.local()


def _check_size(size, function):
    if isinstance(size, bool) or not isinstance(size, numbers.Integral):
        raise MXNetError(f"{function}: size must be a non-negative int, got {size!r}")
    if size < 0:
        raise MXNetError(f"{function}: size must be a non-negative int, got {size}")
    return int(size)


def set_bulk_size(size):
    """Set the calling thread's bulk size (a non-negative int; 0 is MXNet's default, no
    bulking) and return the previous one.  No effect on execution in mxtorch (see the
    module docstring).  Raises MXNetError for a negative or non-integer size."""
    size = _check_size(size, "set_bulk_size")
    previous = getattr(_state, "size", 0)
    _state.size = size
    return previous


class _BulkScope:
    """``with mx.engine.bulk(size):`` sets the bulk size inside the block and restores the
    previous one on exit; ``__enter__`` returns the scope."""

    def __init__(self, size):
        self._size = _check_size(size, "bulk")
        self._old_size = None

    def __enter__(self):
        self._old_size = set_bulk_size(self._size)
        return self

    def __exit__(self, ptype, value, trace):
        set_bulk_size(self._old_size)


def bulk(size):
    """A context manager running its block with bulk size ``size`` (see ``set_bulk_size``)."""
    return _BulkScope(size)
