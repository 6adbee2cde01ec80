"""Data iterators: MXNet 1.9.1's ``mx.io`` Python classes (below the file readers).

A data iterator yields :class:`DataBatch` objects holding lists of NDArrays,
and describes what it yields with ``provide_data`` / ``provide_label``
(lists of :class:`DataDesc`).  ``Module.fit`` / ``score`` / ``predict`` read
only this interface, so any object that implements it works as a data
source.

``NDArrayIter`` serves in-memory arrays; ``ResizeIter`` and
``PrefetchingIter`` wrap other iterators; ``MXDataIter`` is the wrapper
returned by the file-reading iterators (``CSVIter``, ``MNISTIter`` in
:mod:`mxtorch.io.native`).
"""
from __future__ import annotations

import concurrent.futures
import warnings
from collections import namedtuple

import numpy as np
import torch

from ..base import MXNetError
from ..ndarray.ndarray import NDArray
from .utils import _init_data, _getdata_by_idx

__all__ = ["DataDesc", "DataBatch", "DataIter", "ResizeIter", "PrefetchingIter", "NDArrayIter", "MXDataIter"]


class DataDesc(namedtuple("DataDesc", ["name", "shape"])):
    """Name, shape, dtype and layout of one input or label array.

    A namedtuple of ``(name, shape)``: it indexes, unpacks and compares like
    that pair (so ``('data', (32, 3))`` and ``DataDesc('data', (32, 3))`` are
    equal), and carries two more attributes, ``dtype`` (numpy type, float32
    by default) and ``layout`` (a string such as ``'NCHW'`` or ``'NTC'`` whose
    ``'N'`` marks the batch axis), as MXNet's DataDesc did.
    """

    def __new__(cls, name, shape, dtype=np.float32, layout="NCHW"):
        instance = super().__new__(cls, name, shape)
        instance.dtype = dtype
        instance.layout = layout
        return instance

    def __repr__(self):
        return f"DataDesc[{self.name},{self.shape},{self.dtype},{self.layout}]"

    @staticmethod
    def get_batch_axis(layout):
        """The index of the batch axis ``'N'`` in ``layout``; 0 when ``layout`` is None.

        Returns -1 when the layout has no ``'N'`` (MXNet's convention for an
        array copied whole to every device instead of split).
        """
        if layout is None:
            return 0
        return layout.find("N")

    @staticmethod
    def get_list(shapes, types):
        """DataDesc objects from ``[(name, shape), ...]`` and optional ``[(name, dtype), ...]``.

        Raises MXNetError when ``types`` lacks the dtype of a name in ``shapes``.
        """
        if types is None:
            return [DataDesc(name, shape) for name, shape in shapes]
        type_of = dict(types)
        result = []
        for name, shape in shapes:
            if name not in type_of:
                raise MXNetError(f"DataDesc.get_list: no dtype given for {name!r}; types name "
                                 f"{sorted(type_of)}")
            result.append(DataDesc(name, shape, type_of[name]))
        return result


class DataBatch:
    """One batch from a data iterator.

    ``data`` / ``label``: lists of NDArrays whose batch axis has
    ``batch_size`` entries.  ``pad``: how many trailing samples are filler
    (repeated from elsewhere in the data set) rather than new samples.
    ``index``: numpy array of sample indices when the iterator reports them,
    else None.  ``bucket_key``, ``provide_data``, ``provide_label``: used by
    bucketing modules whose batches change shape.

    Raises MXNetError when ``data`` or ``label`` is given but is not a list
    or tuple.
    """

    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None,
                 provide_data=None, provide_label=None):
        if data is not None and not isinstance(data, (list, tuple)):
            raise MXNetError(f"DataBatch: data must be a list of NDArrays, got {type(data).__name__}")
        if label is not None and not isinstance(label, (list, tuple)):
            raise MXNetError(f"DataBatch: label must be a list of NDArrays, got {type(label).__name__}")
        self.data = data
        self.label = label
        self.pad = pad
        self.index = index
        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label

    def __str__(self):
        data_shapes = [array.shape for array in self.data]
        label_shapes = [array.shape for array in self.label] if self.label else None
        return f"{self.__class__.__name__}: data shapes: {data_shapes} label shapes: {label_shapes}"


class DataIter:
    """Base class of data iterators (MXNet's ``mx.io.DataIter``).

    A subclass implements ``iter_next`` (advance; False at the end of the
    epoch), ``getdata``, ``getlabel``, ``getpad`` and optionally
    ``getindex`` and ``reset``; ``next`` builds a :class:`DataBatch` from
    them and raises StopIteration at the end of the epoch.  Alternatively a
    subclass overrides ``next`` directly.  Iterating (``for batch in it``)
    runs one epoch; ``reset()`` starts the next.
    """

    # How many parts the data was split into (an iterator given MXNet's ``num_parts`` reads one
    # of them); fit with a distributed kvstore shards only iterators that read all the data.
    num_parts = 1

    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self):
        """Go back to the start of the data (nothing to do in the base class)."""

    def next(self):
        """The next DataBatch; StopIteration at the end of the epoch."""
        if self.iter_next():
            return DataBatch(data=self.getdata(), label=self.getlabel(), pad=self.getpad(),
                             index=self.getindex())
        raise StopIteration

    def __next__(self):
        return self.next()

    def iter_next(self):
        """Move to the next batch; returns whether there was one."""
        return False

    def getdata(self):
        """The list of data NDArrays of the current batch."""
        return None

    def getlabel(self):
        """The list of label NDArrays of the current batch."""
        return None

    def getindex(self):
        """The sample indices of the current batch (numpy array), or None."""
        return None

    def getpad(self):
        """The number of filler samples at the end of the current batch."""
        return None


class _CurrentBatchIter(DataIter):
    """A DataIter that keeps its current :class:`DataBatch` in ``current_batch``.

    ``getdata`` / ``getlabel`` / ``getindex`` / ``getpad`` read that batch's
    fields; a subclass sets ``current_batch`` in ``iter_next`` (or ``next``).
    """

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad


class ResizeIter(_CurrentBatchIter):
    """Makes an epoch of ``data_iter`` exactly ``size`` batches long.

    When the wrapped iterator runs out before ``size`` batches it is reset
    and continues; when it has more, the epoch ends early.  ``reset()``
    resets the wrapped iterator too unless ``reset_internal`` is False (then
    the next epoch continues where this one stopped).
    """

    @property
    def num_parts(self):
        """The wrapped iterator's ``num_parts``."""
        return getattr(self.data_iter, "num_parts", 1)

    def __init__(self, data_iter, size, reset_internal=True):
        super().__init__()
        if int(size) < 0:
            raise MXNetError(f"ResizeIter: size must be a non-negative number of batches, got {size!r}")
        self.data_iter = data_iter
        self.size = int(size)
        self.reset_internal = reset_internal
        self.cur = 0
        self.current_batch = None
        self.provide_data = data_iter.provide_data
        self.provide_label = data_iter.provide_label
        self.batch_size = data_iter.batch_size
        if hasattr(data_iter, "default_bucket_key"):
            self.default_bucket_key = data_iter.default_bucket_key

    def reset(self):
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self):
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            try:
                self.current_batch = self.data_iter.next()
            except StopIteration:
                raise MXNetError("ResizeIter: the wrapped iterator yields no batch even right after reset()") \
                    from None
        self.cur += 1
        return True


class PrefetchingIter(_CurrentBatchIter):
    """Reads the next batch of one or more iterators in background threads.

    ``iters``: a DataIter or a list of them, advanced together; each batch
    joins their data lists and their label lists (in the order of
    ``iters``).  ``rename_data`` / ``rename_label``: optional list with one
    ``{old_name: new_name}`` dict per iterator, applied to ``provide_data`` /
    ``provide_label``.  ``batch_size`` is the first dimension of the first
    data shape.

    Raises MXNetError when the iterators end at different batches or report
    different ``pad`` values for the same batch (MXNet asserted).
    """

    @property
    def num_parts(self):
        """The largest ``num_parts`` of the wrapped iterators."""
        return max(getattr(it, "num_parts", 1) for it in self.iters)

    def __init__(self, iters, rename_data=None, rename_label=None):
        super().__init__()
        if not isinstance(iters, list):
            iters = [iters]
        if not iters:
            raise MXNetError("PrefetchingIter: iters must hold at least one data iterator")
        self.n_iter = len(iters)
        self.iters = iters
        self.rename_data = rename_data
        self.rename_label = rename_label
        for renames, what in ((rename_data, "rename_data"), (rename_label, "rename_label")):
            if renames is not None and len(renames) != self.n_iter:
                raise MXNetError(f"PrefetchingIter: {what} must hold one dict per iterator ({self.n_iter}), "
                                 f"got {len(renames)}")
        self.batch_size = self.provide_data[0][1][0]
        self.current_batch = None
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=self.n_iter,
                                                               thread_name_prefix="PrefetchingIter")
        self._pending = None
        self._start_prefetch()

    @staticmethod
    def _renamed(descriptions, renames):
        result = []
        for description in descriptions:
            if not isinstance(description, DataDesc):
                description = DataDesc(*description)
            name = renames.get(description.name, description.name)
            result.append(DataDesc(name, description.shape, description.dtype, description.layout))
        return result

    @property
    def provide_data(self):
        if self.rename_data is None:
            return sum([list(it.provide_data) for it in self.iters], [])
        return sum([self._renamed(it.provide_data, renames)
                    for renames, it in zip(self.rename_data, self.iters)], [])

    @property
    def provide_label(self):
        if self.rename_label is None:
            return sum([list(it.provide_label) for it in self.iters], [])
        return sum([self._renamed(it.provide_label, renames)
                    for renames, it in zip(self.rename_label, self.iters)], [])

    @staticmethod
    def _fetch(data_iter):
        try:
            return data_iter.next()
        except StopIteration:
            return None

    def _start_prefetch(self):
        self._pending = [self._executor.submit(self._fetch, it) for it in self.iters]

    def _wait(self):
        """The prefetched batches (None for an iterator at its end); re-raises a reader's error."""
        pending, self._pending = self._pending, None
        if pending is None:
            return None
        return [future.result() for future in pending]

    def reset(self):
        pending, self._pending = self._pending, None
        # the prefetched batches are discarded; so is an error raised while reading them (reading
        # again after the reset raises it again if it persists)
        concurrent.futures.wait(pending or [])
        for it in self.iters:
            it.reset()
        self._start_prefetch()

    def iter_next(self):
        batches = self._wait()
        if batches is None:
            return False
        if batches[0] is None:
            if any(batch is not None for batch in batches):
                raise MXNetError("PrefetchingIter: the iterators have different numbers of batches per epoch")
            return False  # nothing is pending now, so iter_next answers False until reset()
        if any(batch is None for batch in batches):
            raise MXNetError("PrefetchingIter: the iterators have different numbers of batches per epoch")
        if any(batch.pad != batches[0].pad for batch in batches):
            raise MXNetError(f"PrefetchingIter: the iterators report different pad values "
                             f"{[batch.pad for batch in batches]} for the same batch")
        self.current_batch = DataBatch(sum([list(batch.data) for batch in batches], []),
                                       sum([list(batch.label or []) for batch in batches], []),
                                       batches[0].pad, batches[0].index,
                                       provide_data=self.provide_data, provide_label=self.provide_label)
        self._start_prefetch()
        return True

    def next(self):
        if self.iter_next():
            return self.current_batch
        raise StopIteration

    def __del__(self):
        executor = getattr(self, "_executor", None)
        if executor is not None:
            executor.shutdown(wait=False)


_LAST_BATCH_HANDLES = ("pad", "discard", "roll_over")


class NDArrayIter(DataIter):
    """Iterates over in-memory arrays (NDArray, numpy array, lists of them or dicts of them).

    ``data`` / ``label``: one array, a list (names ``_0_data``, ``_1_data``,
    ... when more than one) or a dict ``{name: array}``; ``label`` may be
    None (then ``provide_label`` is ``[]`` and batches have empty label
    lists).  Arrays are listed sorted by name in ``provide_data`` /
    ``provide_label`` and in each batch.  numpy inputs become float32 NDArrays
    on cpu; NDArray inputs keep their dtype and context.  The first data
    array gives the number of samples along the batch axis (``'N'`` of
    ``layout``), as in MXNet 1.9.1: an array with more samples is read only
    up to that count (with a UserWarning; MXNet said nothing, and with
    ``'pad'`` filled its last batch wrongly), one with fewer raises
    MXNetError (MXNet failed only when the batch was read).

    ``last_batch_handle`` says what happens when ``batch_size`` does not
    divide the number of samples, as in MXNet 1.9.1:

    * ``'pad'``: the last batch is filled up with samples from the start of
      the data (repeated as often as needed); ``batch.pad`` is the number of
      filler samples.
    * ``'discard'``: the incomplete last batch is dropped.
    * ``'roll_over'``: the incomplete last batch is not returned; after
      ``reset()`` its samples begin the first batch of the next epoch, which
      is then completed with samples from the (re-shuffled) data and reports
      ``pad`` = number of carried samples (an MXNet 1.9.1 quirk; there is no
      filler).  ``hard_reset()`` drops the carried samples.

    ``shuffle=True`` permutes the samples at construction and at every
    ``reset()`` with numpy's global generator (``np.random.shuffle``), so
    ``np.random.seed`` / ``mx.random.seed`` make it repeatable; the
    permutation composes with the previous one as in MXNet.  Unlike MXNet
    1.9.1, shuffling keeps each array's dtype (MXNet turned them into
    float32).

    Raises MXNetError for an unknown ``last_batch_handle``, a ``batch_size``
    below 1, an array with fewer samples than the first data array, and with ``'discard'``
    a ``batch_size`` larger than the number of samples (no batch would ever
    be produced).
    """

    def __init__(self, data, label=None, batch_size=1, shuffle=False, last_batch_handle="pad",
                 data_name="data", label_name="softmax_label", layout="NCHW"):
        super().__init__(batch_size)
        if last_batch_handle not in _LAST_BATCH_HANDLES:
            raise MXNetError(f"NDArrayIter: last_batch_handle must be one of {list(_LAST_BATCH_HANDLES)}, "
                             f"got {last_batch_handle!r}")
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise MXNetError(f"NDArrayIter: batch_size must be a positive integer, got {batch_size!r}")
        if not isinstance(layout, str) or "N" not in layout:
            raise MXNetError(f"NDArrayIter: layout must be a string with a batch axis 'N' (such as 'NCHW'), "
                             f"got {layout!r}")
        self.layout = layout
        self._batch_axis = layout.find("N")
        self.data = _init_data(data, allow_empty=False, default_name=data_name)
        self.label = _init_data(label, allow_empty=True, default_name=label_name)
        if last_batch_handle != "discard" and any(getattr(array, "stype", "default") == "csr"
                                                  for _, array in self.data + self.label):
            # MXNet's rule, kept so that programs written for it behave the same
            raise NotImplementedError("NDArrayIter only supports CSRNDArray (or scipy.sparse.csr_matrix) with "
                                      "last_batch_handle set to 'discard'")
        self.batch_size = int(batch_size)
        self.num_data = self._check_sizes()
        if last_batch_handle == "discard" and self.batch_size > self.num_data:
            raise MXNetError(f"NDArrayIter: batch_size {self.batch_size} is larger than the number of samples "
                             f"{self.num_data}; with last_batch_handle='discard' no batch would ever be produced")
        self.idx = np.arange(self.num_data)
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self.cursor = -self.batch_size
        self._cache_data = None
        self._cache_label = None
        self.reset()
        self.data_list = [array for _, array in self.data] + [array for _, array in self.label]
        self.num_source = len(self.data_list)

    def _check_sizes(self):
        sizes = []
        for kind, pairs in (("data", self.data), ("label", self.label)):
            for name, array in pairs:
                if array.ndim <= self._batch_axis:
                    raise MXNetError(f"NDArrayIter: {kind} {name!r} of shape {array.shape} has no batch axis "
                                     f"{self._batch_axis} (layout {self.layout!r})")
                sizes.append((kind, name, array.shape[self._batch_axis]))
        first_kind, first_name, first_size = sizes[0]
        for kind, name, size in sizes[1:]:
            if size < first_size:
                raise MXNetError(f"NDArrayIter: every array needs at least as many samples as {first_kind} "
                                 f"{first_name!r} ({first_size}), but {kind} {name!r} has {size}")
            if size > first_size:
                warnings.warn(f"NDArrayIter: {kind} {name!r} has {size} samples, {first_kind} {first_name!r} "
                              f"{first_size}; only its first {first_size} are read (as MXNet 1.9.1)", stacklevel=3)
                pairs = self.data if kind == "data" else self.label
                pairs[:] = [(n, self._first_samples(a, first_size) if n == name else a) for n, a in pairs]
        # no samples (an empty split) is an epoch of no batches, as in MXNet 1.9.1
        return first_size

    def _first_samples(self, array, count):
        """``array`` cut to its first ``count`` samples along the batch axis."""
        if self._batch_axis == 0:
            return array[:count]
        return array.slice_axis(axis=self._batch_axis, begin=0, end=count)

    def _descriptions(self, pairs):
        result = []
        for name, array in pairs:
            shape = list(array.shape)
            shape[self._batch_axis] = self.batch_size
            result.append(DataDesc(name, tuple(shape), array.dtype, layout=self.layout))
        return result

    @property
    def provide_data(self):
        """DataDesc of each data array with the batch axis set to ``batch_size``."""
        return self._descriptions(self.data)

    @property
    def provide_label(self):
        """DataDesc of each label array with the batch axis set to ``batch_size``; [] without labels."""
        return self._descriptions(self.label)

    def hard_reset(self):
        """Start again from the first sample, dropping samples carried over by 'roll_over'."""
        if self.shuffle:
            self._shuffle_data()
        self.cursor = -self.batch_size
        self._cache_data = None
        self._cache_label = None

    def reset(self):
        """Start the next epoch (with 'roll_over', after the carried-over samples)."""
        if self.shuffle:
            self._shuffle_data()
        if self.last_batch_handle == "roll_over" and \
                self.num_data - self.batch_size < self.cursor < self.num_data:
            # the samples from cursor to the end were left over: the next
            # epoch's first batch starts with them
            self.cursor = self.cursor - self.num_data - self.batch_size
        else:
            self.cursor = -self.batch_size

    def iter_next(self):
        self.cursor += self.batch_size
        if self.cursor >= 0:
            # past the first batch of a rolled-over epoch: the carried samples are used
            self._cache_data = None
            self._cache_label = None
        return self.cursor < self.num_data

    def next(self):
        if not self.iter_next():
            raise StopIteration
        data = self.getdata()
        label = self.getlabel()
        if data[0].shape[self._batch_axis] != self.batch_size:
            # incomplete last batch ('discard' / 'roll_over'): keep it for roll_over
            self._cache_data = data
            self._cache_label = label
            raise StopIteration
        return DataBatch(data=data, label=label, pad=self.getpad(), index=None)

    def _slice(self, pairs, start, end):
        if start < 0 or end > self.num_data:
            # reachable with roll_over when batch_size exceeds the data (MXNet failed here too)
            raise MXNetError(f"NDArrayIter: cannot take samples [{start}, {end}) from {self.num_data} samples "
                             f"(batch_size {self.batch_size}, last_batch_handle={self.last_batch_handle!r})")
        return [NDArray(array._tensor.narrow(self._batch_axis, start, end - start).clone(), array.context)
                for _, array in pairs]

    def _select(self, pairs, positions):
        index = torch.as_tensor(np.asarray(positions, dtype=np.int64))
        return [NDArray(array._tensor.index_select(self._batch_axis, index.to(array._tensor.device)),
                        array.context) for _, array in pairs]

    def _batchify(self, pairs, cache):
        if self.cursor >= self.num_data:
            raise MXNetError("NDArrayIter: the epoch is over; call reset() before reading more batches")
        if not pairs:
            return []
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            if cache is None:
                raise MXNetError("NDArrayIter: the first batch of a rolled-over epoch needs the samples left "
                                 "over from the previous epoch, but none were kept (they are kept by next())")
            rest = self._slice(pairs, 0, self.cursor + self.batch_size)
            return [NDArray(torch.cat([carried._tensor, new._tensor.to(carried._tensor.device)],
                                      dim=self._batch_axis), carried.context)
                    for carried, new in zip(cache, rest)]
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            filler = self.cursor + self.batch_size - self.num_data
            positions = np.concatenate([np.arange(self.cursor, self.num_data),
                                        np.arange(filler) % self.num_data])
            return self._select(pairs, positions)
        end = min(self.cursor + self.batch_size, self.num_data)
        return self._slice(pairs, self.cursor, end)

    def getdata(self):
        return self._batchify(self.data, self._cache_data)

    def getlabel(self):
        return self._batchify(self.label, self._cache_label)

    def getpad(self):
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            return self.cursor + self.batch_size - self.num_data
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            return -self.cursor
        return 0

    def _shuffle_data(self):
        np.random.shuffle(self.idx)
        self.data = _getdata_by_idx(self.data, self.idx, self._batch_axis)
        self.label = _getdata_by_idx(self.label, self.idx, self._batch_axis)
        self.data_list = [array for _, array in self.data] + [array for _, array in self.label]


def _as_batch_array(value):
    return value if isinstance(value, NDArray) else NDArray(torch.from_numpy(value))


class MXDataIter(_CurrentBatchIter):
    """The iterator object that file-reading iterators (``CSVIter``, ``MNISTIter``) return.

    ``handle`` is the reading backend: an object with ``before_first()``
    (rewind) and ``next()`` (returns a tuple ``(data, label, pad, index)`` of
    numpy arrays / int for one batch, or None at the end of the epoch).  As
    in MXNet the first batch is read at construction to fill
    ``provide_data`` / ``provide_label`` (one DataDesc each, named
    ``data_name`` / ``label_name``) and ``batch_size``; it is the first batch
    returned unless ``reset()`` is called first, which rewinds the backend
    (so a backend whose first batch wrapped around continues after the
    wrapped samples, as MXNet's did).

    Raises MXNetError when the backend produces no batch at all.
    """

    def __init__(self, handle, data_name="data", label_name="softmax_label", **_):
        super().__init__()
        self.handle = handle
        self._debug_skip_load = False
        self.current_batch = None
        self.first_batch = None
        try:
            self.first_batch = self.next()
        except StopIteration:
            raise MXNetError(f"{getattr(handle, 'name', 'MXDataIter')}: the data source holds no complete batch") \
                from None
        data = self.first_batch.data[0]
        label = self.first_batch.label[0]
        self.provide_data = [DataDesc(data_name, data.shape, data.dtype)]
        self.provide_label = [DataDesc(label_name, label.shape, label.dtype)]
        self.batch_size = data.shape[0]

    def debug_skip_load(self):
        """Make every later batch the current one without reading (a speed test helper, as in MXNet)."""
        self._debug_skip_load = True

    def reset(self):
        self.first_batch = None
        self.handle.before_first()

    def _read(self):
        if self._debug_skip_load and self.current_batch is not None:
            return True
        result = self.handle.next()
        if result is None:
            return False
        data, label, pad, index = result
        # the backend hands NumPy arrays, or NDArrays where it builds them (LibSVMIter's CSR batches)
        self.current_batch = DataBatch(data=[_as_batch_array(data)], label=[_as_batch_array(label)], pad=pad,
                                       index=index)
        return True

    def next(self):
        if self.first_batch is not None:
            batch, self.first_batch = self.first_batch, None
            return batch
        if self._read():
            return self.current_batch
        raise StopIteration

    def iter_next(self):
        if self.first_batch is not None:
            self.first_batch = None
            return True
        return self._read()

    # MXNet's file iterators hand out the single data / label array itself (not a list)
    def getdata(self):
        return self.current_batch.data[0]

    def getlabel(self):
        return self.current_batch.label[0]
