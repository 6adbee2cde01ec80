"""Key-value stores for gradient aggregation (MXNet's ``mx.kv``).

'local' and 'device' aggregate in process: ``push`` sums the values given for a key
(one per device), then either stores the sum or, when an optimizer is set, applies it
to the stored weight; ``pull`` copies the stored value out to every given array.
"""
from __future__ import annotations

import pickle

import torch

from .base import MXNetError
from .ndarray.ndarray import NDArray

__all__ = ["KVStore", "create"]


def _as_lists(key, value):
    if isinstance(key, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(key):
            raise MXNetError(f"kvstore: {len(key)} keys need a list of {len(key)} values")
        return list(key), list(value)
    return [key], [value]


class KVStore:
    """An in-process store; ``type`` is 'local' or 'device', ``rank`` 0, ``num_workers`` 1."""

    def __init__(self, kvstore_type="local"):
        self._type = kvstore_type
        self._store = {}
        self._updater = None
        self._optimizer = None
        self._compression = None

    @property
    def type(self):
        return self._type

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1

    def is_capable(self, capability):
        return capability == "optimizer"

    def init(self, key, value):
        """Store an initial value (copied) for each key."""
        keys, values = _as_lists(key, value)
        for k, v in zip(keys, values):
            if isinstance(v, (list, tuple)):
                v = v[0]
            self._store[k] = NDArray(v._tensor.detach().clone(), v.context)

    def _check(self, key):
        if key not in self._store:
            raise MXNetError(f"kvstore: key {key!r} was not initialised; call init() first")

    def push(self, key, value, priority=0):
        """Sum the values given for each key (one per device) and store or apply the sum."""
        keys, values = _as_lists(key, value)
        for k, v in zip(keys, values):
            self._check(k)
            parts = v if isinstance(v, (list, tuple)) else [v]
            stored = self._store[k]
            with torch.no_grad():
                total = parts[0]._tensor.to(stored._tensor.device).clone()
                for part in parts[1:]:
                    total.add_(part._tensor.to(total.device))
            merged = NDArray(total, stored.context)
            if self._updater is not None:
                self._updater(_key_index(k), merged, stored)
            else:
                stored._tensor = total

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy each key's stored value into every array of ``out``."""
        keys, outs = _as_lists(key, out)
        for k, o in zip(keys, outs):
            self._check(k)
            targets = o if isinstance(o, (list, tuple)) else [o]
            source = self._store[k]._tensor
            with torch.no_grad():
                for target in targets:
                    target._tensor.copy_(source.to(target._tensor.device))

    def pushpull(self, key, value, out=None, priority=0):
        """push then pull (into ``value`` itself when ``out`` is None)."""
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        self.pull(key, out, priority)

    def broadcast(self, key, value, out, priority=0):
        self.init(key, value)
        self.pull(key, out, priority)

    def set_gradient_compression(self, compression_params):
        self._compression = dict(compression_params)

    def set_optimizer(self, optimizer):
        """Run ``optimizer`` inside the store on each push (update_on_kvstore)."""
        from .optimizer import get_updater
        self._optimizer = optimizer
        self._updater = get_updater(optimizer)

    def _set_updater(self, updater):
        self._updater = updater

    set_updater = _set_updater

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Write the updater's states to ``fname`` (atomic)."""
        from .util import atomic_write
        if self._updater is None:
            raise MXNetError("save_optimizer_states: no optimizer is set on this kvstore")
        atomic_write(fname, self._updater.get_states(dump_optimizer))

    def load_optimizer_states(self, fname):
        if self._updater is None:
            raise MXNetError("load_optimizer_states: no optimizer is set on this kvstore")
        try:
            with open(fname, "rb") as handle:
                payload = handle.read()
        except OSError as error:
            raise MXNetError(f"load_optimizer_states: cannot read {fname!r}: {error}") from None
        self._updater.set_states(payload)

    def _barrier(self):
        pass

    barrier = _barrier


def _key_index(key):
    if isinstance(key, int):
        return key
    return key


def create(name="local"):
    """A KVStore of type ``name``: 'local', 'device' (in process); distributed types are
    provided by the distributed-training layer."""
    if not isinstance(name, str):
        raise MXNetError(f"kvstore.create: name must be a str, got {type(name).__name__}")
    if name in ("local", "device", "local_allreduce_cpu", "local_allreduce_device", "local_update_cpu", "nccl"):
        return KVStore(name)
    raise MXNetError(f"kvstore.create: unsupported kvstore type {name!r}; expected 'local' or 'device' "
                     f"(distributed types need torch.distributed)")
