"""``mx.engine``: MXNet's bulk-execution setting, kept for compatibility, and what MXNet's engine
did in a forked child process.

MXNet's dependency engine could group up to ``size`` consecutive imperative operators
into one scheduled unit ("bulk execution").  PyTorch runs operators eagerly with no such
engine, so in mxtorch the size is recorded and reported back but changes nothing about
how or when operators run; results are the same as in MXNet at any size.

A process forked after it computed (``multiprocessing`` with the 'fork' start method: a pool of
workers running ``mx.nd`` calls, executors or Modules) would hang in its first parallel kernel:
the GNU OpenMP thread pool torch's CPU kernels use is not fork-safe.  MXNet re-initialised its
engine in the child and ran it with one OpenMP thread; mxtorch does the same: a forked child
computes on one intra-op thread (``torch.set_num_threads(1)``; the child may raise it again when
it does not use the parent's pool).  'spawn' and 'forkserver' children start fresh and are not
affected.
"""
from __future__ import annotations

import numbers
import os
import threading

import torch

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


_FORKS = [0]


def fork_generation():
    """How many times this process's ancestry forked since mxtorch was imported (0 in the process
    that imported it).  Kernels compiled for the parent's thread pool (the inference plan's
    oneDNN Graph partitions) are rebuilt when it changes."""
    return _FORKS[0]


def _after_fork_in_child():
    """MXNet's engine restart in a forked child: one intra-op thread (see the module docstring)."""
    _FORKS[0] += 1
    torch.set_num_threads(1)


os.register_at_fork(after_in_child=_after_fork_in_child)

# the C library object MXNet's module held (``from .base import _LIB``; see base_ctypes._CLibrary)
from .base_ctypes import _LIB  # noqa: E402,F401
