"""Distributed key-value stores on ``torch.distributed`` (MXNet's 'dist_*' kvstore types).

Types: 'dist_sync', 'dist_device_sync', 'dist_sync_device', 'dist_async' and 'dist'
(``mx.kv.create(name)``).  MXNet ran a parameter server; mxtorch has workers only, which
keep identical copies of every value:

- ``init(key, value)`` stores rank 0's value on every worker (a broadcast), as MXNet's
  servers kept the value rank 0 pushed.
- ``push(key, values)`` sums the values given for a key (one per device) on this worker,
  then sums those across workers (``all_reduce`` with SUM).  Without an optimizer the
  stored value becomes that sum; with one (``set_optimizer``) every worker runs the same
  updater on its identical stored weight, so the copies stay equal.  The updater gets int
  keys, str keys numbered 0, 1, ... in the order they were initialised, as MXNet's
  servers saw them.
- ``pull(key, out)`` copies the stored value out (no communication).

'dist_async' runs in lock step (every push waits for all workers; a warning says so once),
but with MXNet's async arithmetic: with an optimizer on the store, each worker's pushed
value is applied on its own (one updater call per worker, in rank order, where MXNet's
servers used arrival order), with the rescaling Module gives an async store (the batch size
is not multiplied by ``num_workers``).  See docs/distributed.md.
'dist' is, as in MXNet, a synchronous store whose type does not contain '_sync'.  The
'*device*' types sum the per-device values on the device of the first one, the others
where ``init`` put the value.

The process group is set up from torchrun's or MXNet's ``DMLC_*`` variables by
:mod:`mxtorch.kvstore.rendezvous`, which also bounds every collective by
``MXTORCH_DIST_TIMEOUT`` seconds (default 60) and turns a failure into an MXNetError naming
the lost rank.  ``MXTORCH_CHECK_FINITE=1`` makes every push check for NaN / Inf and name the
ranks that produced them.
"""
from __future__ import annotations

import logging
import os

import torch
import torch.distributed as dist

from ..base import MXNetError
from .base import _pairs
from .kvstore import KVStore, _sum
from .rendezvous import collective_failure, initialize_process_group

__all__ = ["KVStoreDist", "DIST_TYPES"]

DIST_TYPES = ("dist_sync", "dist_device_sync", "dist_sync_device", "dist_async", "dist")

def _communication_device(tensor):
    """The device a collective on ``tensor`` runs on with the current backend."""
    backend = str(dist.get_backend())
    if tensor.is_cuda:
        return tensor.device if "nccl" in backend else torch.device("cpu")
    if backend == "nccl":
        return torch.device("cuda", torch.cuda.current_device())
    return tensor.device


def _collective(tensor, operation, name):
    """Run ``operation(t)`` (an in-place collective called ``name``) on ``tensor``, through a
    copy on a device the backend supports when needed.  A failure (a lost worker, the
    timeout) raises MXNetError naming the lost ranks."""
    device = _communication_device(tensor)
    staged = tensor if device == tensor.device and tensor.is_contiguous() else tensor.to(device).contiguous()
    try:
        operation(staged)
    except RuntimeError as error:
        raise collective_failure(name, error) from None
    if staged is not tensor:
        tensor.copy_(staged)


def _check_finite_enabled():
    return os.environ.get("MXTORCH_CHECK_FINITE", "0") not in ("", "0")


class KVStoreDist(KVStore):
    """A key-value store shared by the workers of a ``torch.distributed`` process group;
    see the module docstring.  ``rank`` and ``num_workers`` are the group's.

    Raises MXNetError when the process group cannot be set up from the environment
    (naming the missing variables)."""

    def __init__(self, kvstore_type="dist_sync"):
        if kvstore_type not in DIST_TYPES:
            raise MXNetError(f"KVStoreDist: kvstore_type must be one of {list(DIST_TYPES)}, got {kvstore_type!r}")
        super().__init__(kvstore_type)
        initialize_process_group(kvstore_type)
        self._str_key_index = {}
        if kvstore_type == "dist_async":
            _warn_async_once()

    def __repr__(self):
        return (f"<KVStoreDist type={self._type!r} rank={self.rank} num_workers={self.num_workers} "
                f"keys={len(self._store)}>")

    @property
    def rank(self):
        """This worker's rank in the process group (0 ... num_workers - 1)."""
        return dist.get_rank()

    @property
    def num_workers(self):
        """The number of workers in the process group."""
        return dist.get_world_size()

    def init(self, key, value):
        """Store rank 0's ``value`` under ``key`` on every worker (a broadcast; every worker
        must call it with the same keys and shapes).  A key can be initialised once."""
        pairs = _pairs(key, value, "init", "values")
        super().init(key, value)
        for k, _ in pairs:
            if isinstance(k, str):
                self._str_key_index[k] = len(self._str_key_index)
            with torch.no_grad():
                _collective(self._store[k]._tensor, lambda tensor: dist.broadcast(tensor, src=0),
                            f"KVStore.init({k!r}): broadcast")

    def _merge(self, key, arrays, stored):
        """This worker's sum of its devices' values; with gradient compression the worker
        compresses that sum once, with one residual per key, before the exchange (MXNet's
        workers did, the servers summing the dequantized values)."""
        total = _sum(arrays, stored)
        if self._compression is None:
            return total
        return self._compression(key, "worker", total)

    def _reduce_across_workers(self, total, key=None):
        """Sum this worker's total over every worker (all_reduce), so every worker stores or
        applies the same value.  Every worker must push the same keys in the same order.

        With ``MXTORCH_CHECK_FINITE=1`` the workers first exchange whether their value is
        finite; a NaN or Inf on any worker raises MXNetError on every worker, naming the
        key and the ranks that pushed it."""
        if _check_finite_enabled():
            flags = torch.zeros(self.num_workers, dtype=torch.float32, device=total.device)
            flags[self.rank] = float(not bool(torch.isfinite(total).all()))
            _collective(flags, lambda tensor: dist.all_reduce(tensor, op=dist.ReduceOp.SUM),
                        f"KVStore.push({key!r}): finiteness check")
            bad = [rank for rank, flag in enumerate(flags.tolist()) if flag]
            if bad:
                raise MXNetError(f"KVStore.push({key!r}): non-finite (NaN or Inf) gradient from rank"
                                 f"{'s' if len(bad) > 1 else ''} {', '.join(map(str, bad))} "
                                 f"(MXTORCH_CHECK_FINITE=1)")
        if self._type == "dist_async" and self._updater is not None:
            # MXNet's async servers applied each worker's push on its own, in arrival order: apply
            # every worker's value in rank order, each with the updater (the same on every worker)
            gathered = [torch.empty_like(total) for _ in range(self.num_workers)]
            device = _communication_device(total)
            staged = [t.to(device) for t in gathered] if device != total.device else gathered
            local = total.to(device).contiguous()
            try:
                dist.all_gather(staged, local)
            except RuntimeError as error:
                raise collective_failure(f"KVStore.push({key!r}): all_gather", error) from None
            return [t.to(total.device) for t in staged]
        _collective(total, lambda tensor: dist.all_reduce(tensor, op=dist.ReduceOp.SUM),
                    f"KVStore.push({key!r}): all_reduce")
        return None

    def _updater_key(self, key):
        """str keys reach the updater as 0, 1, ... in the order they were initialised."""
        return self._str_key_index[key] if isinstance(key, str) else key

    def pushpull(self, key, value, out=None, priority=0):
        """``push(key, value)`` then ``pull`` into ``out``, or into ``value`` when ``out`` is None."""
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority)

    def _all_workers(self, flag, operation):
        """True when ``flag`` is true on every worker (a one-element all-reduce with MIN)."""
        value = torch.tensor([1 if flag else 0], dtype=torch.int32)
        _collective(value, lambda tensor: dist.all_reduce(tensor, op=dist.ReduceOp.MIN), operation)
        return bool(value.item())

    def barrier(self):
        """Wait until every worker reaches this call (MXNetError naming lost ranks on a failure)."""
        try:
            dist.barrier()
        except RuntimeError as error:
            raise collective_failure("KVStore.barrier", error) from None

    def _barrier(self):
        """Wait until every worker reaches this call (MXNet's private name)."""
        self.barrier()

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Write this worker's optimizer states to ``fname`` (each worker holds the same
        states; rank-local, no communication)."""
        super().save_optimizer_states(fname, dump_optimizer)

    def load_optimizer_states(self, fname):
        """Read optimizer states into this worker's updater (rank-local; load the same file
        on every worker to keep them equal)."""
        super().load_optimizer_states(fname)

    def _send_command_to_servers(self, head, body):
        """mxtorch's distributed stores have no servers; MXNetError."""
        raise MXNetError("KVStore._send_command_to_servers: mxtorch's distributed stores run on workers only and "
                         "have no servers")


_warned_async = []


def _warn_async_once():
    if not _warned_async:
        _warned_async.append(True)
        logging.warning("kvstore 'dist_async' runs in lock step in mxtorch: every push waits for all workers, "
                        "then each worker's gradient is applied on its own in rank order (MXNet's servers applied "
                        "pushes in arrival order without waiting); see docs/distributed.md")
