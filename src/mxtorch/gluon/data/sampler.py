"""Samplers: iterables of dataset indices (MXNet 1.9.1's ``mxnet.gluon.data.sampler``).

``RandomSampler`` draws its permutation from NumPy's global generator (``np.random``), as
MXNet does, so ``np.random.seed`` / ``mx.random.seed`` users get reproducible orders.
"""
from __future__ import annotations

import numpy as np

from ...base import MXNetValueError

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "FilterSampler", "BatchSampler", "IntervalSampler"]


class Sampler:
    """The abstract sampler: subclasses define ``__iter__`` and ``__len__``."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} does not define __iter__")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} does not define __len__")


class SequentialSampler(Sampler):
    """The indices ``start, start + 1, ..., start + length - 1``."""

    def __init__(self, length, start=0):
        self._length = int(length)
        self._start = int(start)

    def __iter__(self):
        return iter(range(self._start, self._start + self._length))

    def __len__(self):
        return self._length


class RandomSampler(Sampler):
    """A new random permutation of ``range(length)`` each epoch."""

    def __init__(self, length):
        self._length = int(length)

    def __iter__(self):
        indices = np.arange(self._length)
        np.random.shuffle(indices)
        return iter(indices.tolist())

    def __len__(self):
        return self._length


class FilterSampler(Sampler):
    """The indices ``i`` of ``dataset`` for which ``fn(dataset[i])`` is true (computed once,
    when the sampler is made)."""

    def __init__(self, fn, dataset):
        self._fn = fn
        self._dataset = dataset
        self._indices = [i for i, sample in enumerate(dataset) if fn(sample)]

    def __iter__(self):
        return iter(self._indices)

    def __len__(self):
        return len(self._indices)


_LAST_BATCH = ("keep", "discard", "rollover")


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size``.

    ``last_batch``: ``'keep'`` yields a final shorter batch, ``'discard'`` drops it,
    ``'rollover'`` keeps its indices and puts them first in the next epoch (the length then
    counts them).  MXNetValueError (a ValueError, as in MXNet) for any other value.
    """

    def __init__(self, sampler, batch_size, last_batch="keep"):
        if last_batch not in _LAST_BATCH:
            raise MXNetValueError(f"BatchSampler: last_batch must be one of {list(_LAST_BATCH)}, "
                                  f"got {last_batch!r}")
        if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise MXNetValueError(f"BatchSampler: batch_size must be a positive integer, got {batch_size!r}")
        self._sampler = sampler
        self._batch_size = int(batch_size)
        self._last_batch = last_batch
        self._prev = []

    def __iter__(self):
        batch, self._prev = self._prev, []
        for index in self._sampler:
            batch.append(index)
            if len(batch) == self._batch_size:
                yield batch
                batch = []
        if batch:
            if self._last_batch == "keep":
                yield batch
            elif self._last_batch == "rollover":
                self._prev = batch

    def __len__(self):
        if self._last_batch == "keep":
            return (len(self._sampler) + self._batch_size - 1) // self._batch_size
        if self._last_batch == "discard":
            return len(self._sampler) // self._batch_size
        return (len(self._prev) + len(self._sampler)) // self._batch_size


class IntervalSampler(Sampler):
    """Indices taken every ``interval``: ``0, k, 2k, ...``, then (``rollover=True``)
    ``1, 1 + k, ...`` and so on until every index was yielded once
    (MXNet's ``gluon.contrib.data.IntervalSampler``)."""

    def __init__(self, length, interval, rollover=True):
        if not 0 < interval <= length:
            raise MXNetValueError(f"IntervalSampler: interval {interval} must be positive and at most the "
                                  f"length {length}")
        self._length = int(length)
        self._interval = int(interval)
        self._rollover = rollover

    def __iter__(self):
        for offset in range(self._interval if self._rollover else 1):
            yield from range(offset, self._length, self._interval)

    def __len__(self):
        if self._rollover:
            return self._length
        return len(range(0, self._length, self._interval))
