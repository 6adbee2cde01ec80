"""Datasets: indexable collections of samples (MXNet 1.9.1's ``mxnet.gluon.data.dataset``).

A dataset has ``__getitem__(idx)`` and ``__len__()``.  ``transform`` / ``transform_first``
map samples (lazily by default), ``filter``, ``shard``, ``take`` and ``sample`` select them.
"""
from __future__ import annotations

import os

import numpy as np

from ...base import MXNetError, MXNetValueError
from ... import ndarray as nd
from ... import recordio
from .sampler import FilterSampler, Sampler, SequentialSampler

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset"]


class Dataset:
    """The abstract dataset: subclasses define ``__getitem__(idx)`` and ``__len__()``."""

    def __getitem__(self, idx):
        raise NotImplementedError(f"{type(self).__name__} does not define __getitem__")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} does not define __len__")

    def filter(self, fn):
        """A dataset of the samples for which ``fn(sample)`` is true (evaluated now, over
        every sample, as MXNet does)."""
        return self.sample(FilterSampler(fn, self))

    def shard(self, num_shards, index):
        """The ``index``-th of ``num_shards`` contiguous parts; the first ``len % num_shards``
        parts hold one sample more (9 samples in 4 shards: 3, 2, 2, 2)."""
        if not isinstance(num_shards, (int, np.integer)) or num_shards < 1:
            raise MXNetValueError(f"Dataset.shard: num_shards must be a positive integer, got {num_shards!r}")
        if not 0 <= index < num_shards:
            raise MXNetValueError(f"Dataset.shard: index must be in [0, {num_shards}), got {index!r}")
        length = len(self)
        base, extra = divmod(length, num_shards)
        start = index * base + min(index, extra)
        stop = start + base + (1 if index < extra else 0)
        return self.sample(SequentialSampler(stop - start, start))

    def take(self, count):
        """The first ``count`` samples (all of them when ``count`` is None or larger)."""
        if count is None or count >= len(self):
            count = len(self)
        return self.sample(SequentialSampler(count))

    def sample(self, sampler):
        """The samples at the indices ``sampler`` yields, in its order."""
        if not isinstance(sampler, Sampler):
            raise MXNetValueError(f"Dataset.sample: expected a Sampler, got {type(sampler).__name__}")
        return _SampledDataset(self, sampler)

    def transform(self, fn, lazy=True):
        """A dataset whose sample ``i`` is ``fn(*self[i])`` (``fn(self[i])`` for a sample that
        is not a tuple).  ``lazy=False`` applies ``fn`` to every sample now."""
        transformed = _LazyTransformDataset(self, fn)
        if lazy:
            return transformed
        return SimpleDataset([sample for sample in transformed])

    def transform_first(self, fn, lazy=True):
        """Like :meth:`transform`, applying ``fn`` to the first element of each tuple sample only
        (typically the image, keeping the label)."""
        return self.transform(_TransformFirstClosure(fn), lazy)

    def __iter__(self):
        for index in range(len(self)):
            yield self[index]


class SimpleDataset(Dataset):
    """A dataset over any object with ``__getitem__`` and ``__len__`` (a list, an array)."""

    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


class _LazyTransformDataset(Dataset):
    def __init__(self, data, fn):
        self._data = data
        self._fn = fn

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        if isinstance(item, tuple):
            return self._fn(*item)
        return self._fn(item)


class _TransformFirstClosure:
    """A picklable ``fn`` applied to the first element (a class, not a lambda, so that worker
    processes can receive it)."""

    def __init__(self, fn):
        self._fn = fn

    def __call__(self, x, *args):
        if args:
            return (self._fn(x),) + args
        return self._fn(x)


class _DownloadedDataset(Dataset):
    """A data set held in memory: ``_data`` (NDArray) and ``_label`` (numpy), filled by
    ``_get_data()`` from files in ``root``."""

    def __init__(self, root, transform):
        super().__init__()
        self._transform = transform
        self._data = None
        self._label = None
        self._root = os.path.expanduser(root)
        self._get_data()

    def __getitem__(self, idx):
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)

    def _get_data(self):
        raise NotImplementedError


class _FilteredDataset(Dataset):
    """The samples of ``dataset`` for which ``fn(sample)`` is true, chosen once when it is made
    (MXNet's ``_FilteredDataset``)."""

    def __init__(self, dataset, fn):
        self._dataset = dataset
        self._indices = [i for i, sample in enumerate(dataset) if fn(sample)]

    def __len__(self):
        return len(self._indices)

    def __getitem__(self, idx):
        return self._dataset[self._indices[idx]]


class _SampledDataset(Dataset):
    def __init__(self, dataset, sampler):
        self._dataset = dataset
        self._sampler = sampler
        self._indices = list(iter(sampler))

    def __len__(self):
        return len(self._indices)

    def __getitem__(self, idx):
        return self._dataset[self._indices[idx]]


class ArrayDataset(Dataset):
    """A dataset zipping several arrays of equal length: sample ``i`` is
    ``(a0[i], a1[i], ...)``, or ``a0[i]`` alone for one array.

    Each argument is an NDArray, numpy array, list or dataset.  A 1-D NDArray is converted
    to numpy first (as MXNet does), so its samples are numpy scalars rather than 0-d arrays.
    Raises MXNetValueError when the lengths differ.
    """

    def __init__(self, *args):
        if not args:
            raise MXNetValueError("ArrayDataset: needs at least one array")
        self._length = len(args[0])
        self._data = []
        for position, data in enumerate(args):
            if len(data) != self._length:
                raise MXNetValueError(
                    f"ArrayDataset: all arrays must have the same length; array 0 has {self._length} "
                    f"samples, array {position} has {len(data)}")
            if isinstance(data, nd.NDArray) and data.ndim == 1:
                data = data.asnumpy()
            self._data.append(data)

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)

    def __len__(self):
        return self._length


class RecordFileDataset(Dataset):
    """The raw records of a RecordIO file (``.rec`` with its ``.idx`` index beside it, the
    same name with the extension ``.idx``), read with :class:`mxtorch.recordio.MXIndexedRecordIO`.

    Sample ``i`` is the ``bytes`` of the ``i``-th record in the index.  Raises MXNetError
    naming the file when the record file or its index is missing.
    """

    def __init__(self, filename):
        self.idx_file = os.path.splitext(filename)[0] + ".idx"
        self.filename = filename
        for path in (filename, self.idx_file):
            if not os.path.isfile(path):
                raise MXNetError(f"RecordFileDataset: file {path!r} does not exist (a record file needs its "
                                 f".idx index beside it; im2rec writes both)")
        self._record = recordio.MXIndexedRecordIO(self.idx_file, self.filename, "r")

    def __getitem__(self, idx):
        return self._record.read_idx(self._record.keys[idx])

    def __len__(self):
        return len(self._record.keys)
