"""Which batches a worker trains on in ``fit`` with a distributed kvstore.

MXNet left this to the user (``num_parts=kv.num_workers, part_index=kv.rank`` on the
iterators that take them) and hung at the end of an epoch when the workers had different
numbers of batches.  mxtorch's ``BaseModule.fit`` draws every epoch's batches through
:func:`epoch_batches`:

- an iterator that reads all the data (``num_parts`` 1: ``NDArrayIter``, ``CSVIter``,
  ``MNISTIter`` / ``ImageRecordIter`` / ``ImageIter`` without ``num_parts``, user
  iterators) is sharded by batch: worker ``r`` of ``W`` trains on batches ``r, r + W,
  r + 2W, ...``, so one step of W workers sums the gradient of the same ``W * batch_size``
  samples that one process with a W times larger batch would see;
- an iterator given ``num_parts > 1`` already reads one part: every worker trains on all of
  its batches;
- ``MXTORCH_SHARD_DATA=0`` turns the sharding by batch off (MXNet's behaviour: every worker
  trains on everything its iterator gives);
- uneven shards never hang: before each step the workers agree (a one-element all-reduce)
  that every one of them has a batch; the epoch ends for all workers when the first one runs
  out, so each epoch has as many steps as the shortest worker has batches (the longer
  workers' remaining batches are not used in that epoch).

With a single worker, or an in-process kvstore, the iterator is used as it is.
"""
from __future__ import annotations

import os

__all__ = ["epoch_batches"]


def _kvstore_of(module):
    store = getattr(module, "_kvstore", None)
    if store is None and getattr(module, "_curr_module", None) is not None:
        store = getattr(module._curr_module, "_kvstore", None)
    return store


def epoch_batches(data, module):
    """An iterator over this worker's batches of one epoch of ``data`` (a DataIter) for
    ``module.fit`` (see the module docstring)."""
    from .dist import KVStoreDist
    store = _kvstore_of(module)
    if not isinstance(store, KVStoreDist) or store.num_workers == 1:
        return iter(data)
    shard = getattr(data, "num_parts", 1) == 1 and os.environ.get("MXTORCH_SHARD_DATA", "1") != "0"
    return _distributed_batches(iter(data), store, store.num_workers if shard else 1)


def _distributed_batches(source, store, stride):
    rank = store.rank % stride
    index = 0
    while True:
        batch = None
        for candidate in source:
            index += 1
            if (index - 1) % stride == rank:
                batch = candidate
                break
        if not store._all_workers(batch is not None, "fit: end-of-epoch agreement"):
            return
        yield batch
