"""``DataLoader``: mini-batches from a dataset, optionally built by worker processes or threads
(MXNet 1.9.1's ``mxnet.gluon.data.dataloader``).

With ``num_workers > 0`` a ``multiprocessing`` pool (``thread_pool=True``: a thread pool) is made
when the loader is made and closed when it is garbage collected.  Worker processes are forked
(on POSIX) so the dataset and ``batchify_fn`` need not be picklable; batches come back through
``ForkingPickler``, for which NDArrays are registered with :func:`reduce_ndarray` so their
tensors travel through shared memory (torch's tensor sharing) rather than being copied through
the pipe.  Batches arrive in the sampler's order; ``prefetch`` batches are in flight at once.

Deliberate difference from MXNet 1.9.1: each worker process reseeds NumPy's, Python's and
torch's generators with ``base + worker number`` (the base drawn from NumPy's generator in the
parent), so random augmentations differ between workers; MXNet's forked workers all inherited
the same random state and repeated each other's draws.
"""
from __future__ import annotations

import io
import multiprocessing
import pickle
import multiprocessing.pool
import multiprocessing.queues
import os
import random
import threading
from collections import deque
from multiprocessing.pool import ThreadPool  # noqa: F401  (MXNet's module exposes it)
from multiprocessing.reduction import ForkingPickler

import numpy as np

from ...base import MXNetError, MXNetValueError
from ...context import Context, cpu_pinned
from ...util import is_np_array, is_np_shape, set_np  # noqa: F401  (MXNet's module exposes them)
from ... import ndarray as nd
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "DataLoaderV1", "default_batchify_fn", "default_mp_batchify_fn", "ConnectionWrapper",
           "Queue", "SimpleQueue", "ForkingPickler", "ThreadPool", "reduce_ndarray", "rebuild_ndarray",
           "reduce_np_ndarray", "rebuild_np_ndarray", "worker_loop_v1", "fetcher_loop_v1",
           "is_np_array", "is_np_shape", "set_np"]


# -- NDArrays through multiprocessing pipes ------------------------------------------------------
def rebuild_ndarray(tensor, device_type, device_id):
    """Rebuild an NDArray from what :func:`reduce_ndarray` sent."""
    return nd.NDArray(tensor, Context(device_type, device_id))


def reduce_ndarray(data):
    """``ForkingPickler`` reduction of an NDArray: its torch tensor (which torch's own
    reduction moves to shared memory) and its context."""
    return rebuild_ndarray, (data._tensor.detach(), data.context.device_type, data.context.device_id)


def rebuild_np_ndarray(*args):
    """MXNet's NumPy-front-end counterpart of :func:`rebuild_ndarray`; mxtorch has no
    ``mx.np`` arrays, so this builds a legacy NDArray."""
    return rebuild_ndarray(*args)


def reduce_np_ndarray(data):
    """MXNet's NumPy-front-end counterpart of :func:`reduce_ndarray` (same result here)."""
    return reduce_ndarray(data)


import torch.multiprocessing  # noqa: E402,F401  (registers torch's tensor reductions with ForkingPickler)
ForkingPickler.register(nd.NDArray, reduce_ndarray)


class ConnectionWrapper:
    """A ``multiprocessing`` connection whose ``send`` / ``recv`` go through ForkingPickler
    (so NDArrays use :func:`reduce_ndarray`); other attributes are the connection's."""

    def __init__(self, conn):
        self._conn = conn

    def send(self, obj):
        self._conn.send_bytes(ForkingPickler.dumps(obj))

    def recv(self):
        return ForkingPickler.loads(self._conn.recv_bytes())

    def __getattr__(self, name):
        if name == "_conn":
            raise AttributeError(name)
        return getattr(self._conn, name)


class _WrappedPipeMixin:
    """Creates the queue in the default multiprocessing context and wraps its pipe ends in
    :class:`ConnectionWrapper` (shared by :class:`Queue` and :class:`SimpleQueue`)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, ctx=multiprocessing.get_context(), **kwargs)
        self._reader = ConnectionWrapper(self._reader)
        self._writer = ConnectionWrapper(self._writer)
        self._send = self._writer.send
        self._recv = self._reader.recv


class Queue(_WrappedPipeMixin, multiprocessing.queues.Queue):
    """A multiprocessing Queue in the default context whose pipe ends are wrapped in
    :class:`ConnectionWrapper`."""


class SimpleQueue(_WrappedPipeMixin, multiprocessing.queues.SimpleQueue):
    """A multiprocessing SimpleQueue whose pipe ends are wrapped in :class:`ConnectionWrapper`."""


# -- batchify ----------------------------------------------------------------------------------
def default_batchify_fn(data):
    """Stack a list of samples into a batch.

    NDArray samples are stacked along a new first axis (``mx.nd.stack``); tuple samples are
    batched element by element (a list of batches); anything else goes through
    ``numpy.asarray`` and becomes an NDArray of that dtype (so Python ints give int64,
    float64 numpy arrays stay float64).  Under ``npx.set_np()`` the batches are ``mx.np``
    arrays, as in MXNet 1.9.1."""
    return _batchify(data, None)


def _sample_shape(sample):
    """The shape of one sample, or None for a ragged nested sequence (no shape)."""
    if isinstance(sample, nd.NDArray):
        return tuple(sample.shape)
    try:
        return tuple(np.shape(sample))
    except ValueError:
        return None


def _refuse_ragged(data, field):
    """MXNetValueError naming the first sample of the batch whose shape differs from the first's
    (``field``: the position within tuple samples, or None); returns when all shapes agree."""
    shapes = [_sample_shape(sample) for sample in data]
    ragged = next((i for i, shape in enumerate(shapes) if shape is None or shape != shapes[0]), None)
    if ragged is None:
        return
    where = "" if field is None else f"element {field} of "
    described = ["a ragged nested sequence" if shape is None else f"shape {shape}" for shape in shapes]
    first = ragged if shapes[ragged] is None else 0
    raise MXNetValueError(
        f"DataLoader: the default batchify_fn stacks {where}the samples of a batch into one array, so they must "
        f"all have one shape; {where}sample {first} of the batch has {described[first]}"
        + ("" if first == ragged else f" and {where}sample {ragged} has {described[ragged]}")
        + ". Resize or pad the samples to one shape (a dataset transform), or pass DataLoader a batchify_fn "
          "that combines samples of different shapes (e.g. one that pads them)")


def _batchify(data, field):
    first = data[0]
    if isinstance(first, tuple):
        return [_batchify(list(column), index) for index, column in enumerate(zip(*data))]
    if isinstance(first, nd.NDArray):
        _refuse_ragged(data, field)
        batch = nd.stack(*data)
    else:
        try:
            array = np.asarray(data)
        except ValueError:
            _refuse_ragged(data, field)
            raise
        if array.dtype == object:       # NumPy 1 (or numpy aliases) made a ragged batch an object array
            _refuse_ragged(data, field)
        batch = nd.array(array, dtype=array.dtype)
    # under NumPy array semantics (npx.set_np()) a batch is an mx.np array, as MXNet's
    return batch.as_np_ndarray() if is_np_array() else batch


def default_mp_batchify_fn(data):
    """:func:`default_batchify_fn` for worker processes (MXNet allocated the result in its
    ``cpu_shared`` context; here the tensors are moved to shared memory when sent)."""
    return default_batchify_fn(data)


def _as_in_context(data, ctx):
    if isinstance(data, nd.NDArray):
        result = data.as_in_context(ctx)
        if ctx.device_type == "cpu_pinned":
            import torch
            if torch.cuda.is_available() and not result._tensor.is_pinned():
                result = nd.NDArray(result._tensor.pin_memory(), ctx)
        return result
    if isinstance(data, (list, tuple)):
        return type(data)(_as_in_context(item, ctx) for item in data)
    return data


# -- workers -------------------------------------------------------------------------------------
_worker_dataset = None
_worker_batchify_fn = None


def _worker_initializer(dataset, batchify_fn, base_seed):
    global _worker_dataset, _worker_batchify_fn
    _worker_dataset = dataset
    _worker_batchify_fn = batchify_fn
    identity = multiprocessing.current_process()._identity
    seed = (int(base_seed) + (identity[0] if identity else os.getpid())) % (2 ** 32)
    np.random.seed(seed)
    random.seed(seed)
    import torch
    torch.manual_seed(seed)


def _worker_fn(samples, batchify_fn, dataset=None):
    """The batch of ``samples`` in a worker process (MXNet's ``_worker_fn``): read from the
    dataset the process was given at start, merged by ``batchify_fn`` (None: the one it was
    given), returned pickled (the iterator unpickles it, as MXNet's shared-memory batches)."""
    merge = batchify_fn if batchify_fn is not None else _worker_batchify_fn
    batch = merge([_worker_dataset[i] for i in samples])
    buffer = io.BytesIO()
    ForkingPickler(buffer, pickle.HIGHEST_PROTOCOL).dump(batch)
    return buffer.getvalue()


def _thread_worker_fn(samples, batchify_fn, dataset):
    """The batch of ``samples`` in a worker thread (MXNet's ``_thread_worker_fn``)."""
    return batchify_fn([dataset[i] for i in samples])


class _MultiWorkerIter:
    """Batches from a worker pool, in order, ``prefetch`` of them requested ahead (MXNet 1.9.1's
    ``_MultiWorkerIter``, with its signature and its protocol, which libraries subclass: GluonCV's
    random-transform loader overrides ``_push_next`` and reads ``_iter``, ``_worker_pool``,
    ``_worker_fn``, ``_batchify_fn``, ``_data_buffer``, ``_sent_idx``).

    ``worker_fn(samples, batchify_fn, dataset)`` computes one batch in the pool; with
    ``dataset`` None (process pools) its result is a pickle, unpickled here.  A batch that does
    not arrive within ``timeout`` seconds raises MXNetError."""

    def __init__(self, worker_pool, batchify_fn, batch_sampler, pin_memory=False, pin_device_id=0,
                 worker_fn=_worker_fn, prefetch=0, dataset=None, data_loader=None, timeout=120):
        self._worker_pool = worker_pool
        self._batchify_fn = batchify_fn
        self._batch_sampler = batch_sampler
        self._data_buffer = {}
        self._rcvd_idx = 0
        self._sent_idx = 0
        self._iter = iter(self._batch_sampler)
        self._worker_fn = worker_fn
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._dataset = dataset
        self._data_loader = data_loader      # keeps the loader, and so its pool, alive while iterating
        self._timeout = timeout
        for _ in range(prefetch):
            self._push_next()

    def __len__(self):
        return len(self._batch_sampler)

    def _push_next(self):
        """Send the next batch's samples to the pool."""
        samples = next(self._iter, None)
        if samples is None:
            return
        self._data_buffer[self._sent_idx] = self._worker_pool.apply_async(
            self._worker_fn, (samples, self._batchify_fn, self._dataset))
        self._sent_idx += 1

    def __next__(self):
        self._push_next()
        if self._rcvd_idx == self._sent_idx:
            raise StopIteration
        pending = self._data_buffer.pop(self._rcvd_idx)
        try:
            batch = pending.get(self._timeout)
        except multiprocessing.TimeoutError:
            raise MXNetError(f"DataLoader: a worker did not deliver its batch within timeout="
                             f"{self._timeout} s; raise timeout, lower num_workers, or check that the "
                             f"dataset does not block") from None
        if self._dataset is None:
            batch = pickle.loads(batch)
        if self._pin_memory:
            batch = _as_in_context(batch, cpu_pinned(self._pin_device_id))
        self._rcvd_idx += 1
        return batch

    def next(self):
        return self.__next__()

    def __iter__(self):
        return self


class DataLoader:
    """Mini-batches from ``dataset`` (MXNet 1.9.1's ``gluon.data.DataLoader``).

    Parameters (MXNet's names and defaults):

    - ``dataset``: a Dataset, or any object with ``__getitem__`` / ``__len__`` (an NDArray,
      a numpy array, a list).
    - ``batch_size``, ``shuffle`` (a RandomSampler), ``sampler`` (not with ``shuffle``),
      ``last_batch`` (``'keep'`` default, ``'discard'``, ``'rollover'``), or ``batch_sampler``
      instead of all four.
    - ``batchify_fn``: merges a list of samples into a batch (:func:`default_batchify_fn`).
    - ``num_workers``: worker processes (``thread_pool=True``: threads); 0 loads in the caller.
    - ``pin_memory`` / ``pin_device_id``: batches come in ``mx.cpu_pinned(pin_device_id)``
      (page-locked with CUDA present).
    - ``prefetch``: batches requested ahead (default ``2 * num_workers``).
    - ``timeout``: seconds to wait for one batch from a worker (MXNetError after).
    - ``auto_reload``: with workers, start fetching the next epoch when one ends (and the
      first at construction), as MXNet does.

    Raises MXNetValueError (a ValueError, as in MXNet) for conflicting arguments.  Each batch
    is an NDArray, or a list of NDArrays for tuple samples.
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None,
                 batch_sampler=None, batchify_fn=None, num_workers=0, pin_memory=False, pin_device_id=0,
                 prefetch=None, thread_pool=False, timeout=120, auto_reload=False):
        self._worker_pool = None
        self._dataset = dataset
        self._pin_memory = bool(pin_memory)
        self._pin_device_id = pin_device_id
        self._thread_pool = bool(thread_pool)
        self._timeout = timeout
        self._auto_reload = bool(auto_reload)
        self._prefetched = None
        if batch_sampler is None:
            if batch_size is None:
                raise MXNetValueError("DataLoader: batch_size must be specified unless batch_sampler is specified")
            if sampler is None:
                sampler = RandomSampler(len(dataset)) if shuffle else SequentialSampler(len(dataset))
            elif shuffle:
                raise MXNetValueError("DataLoader: shuffle must not be specified if sampler is specified")
            batch_sampler = BatchSampler(sampler, batch_size, last_batch if last_batch else "keep")
        elif batch_size is not None or shuffle or sampler is not None or last_batch is not None:
            raise MXNetValueError("DataLoader: batch_size, shuffle, sampler and last_batch must not be specified "
                                  "if batch_sampler is specified")
        self._batch_sampler = batch_sampler
        if not isinstance(num_workers, (int, np.integer)) or num_workers < 0:
            raise MXNetValueError(f"DataLoader: num_workers must be a non-negative integer, got {num_workers!r}")
        self._num_workers = int(num_workers)
        self._prefetch = max(0, int(prefetch) if prefetch is not None else 2 * self._num_workers)
        if batchify_fn is None:
            batchify_fn = default_mp_batchify_fn if self._num_workers > 0 else default_batchify_fn
        self._batchify_fn = batchify_fn
        if self._num_workers > 0:
            if self._thread_pool:
                self._worker_pool = ThreadPool(self._num_workers)
                self._worker_fn = _thread_worker_fn
            else:
                context = multiprocessing.get_context("fork") if os.name == "posix" else multiprocessing
                base_seed = np.random.randint(0, 2 ** 31)
                self._worker_pool = context.Pool(self._num_workers, initializer=_worker_initializer,
                                                 initargs=(dataset, batchify_fn, base_seed))
                self._worker_fn = _worker_fn
            if self._auto_reload:
                self._prefetched = self._worker_iter()

    def _worker_iter(self):
        # process workers were given the dataset and batchify_fn at start (None: not sent per batch)
        threads = self._thread_pool
        return _MultiWorkerIter(self._worker_pool, self._batchify_fn if threads else None, self._batch_sampler,
                                pin_memory=self._pin_memory, pin_device_id=self._pin_device_id,
                                worker_fn=self._worker_fn, prefetch=self._prefetch,
                                dataset=self._dataset if threads else None, data_loader=self,
                                timeout=self._timeout)

    def _same_process_iter(self):
        for samples in self._batch_sampler:
            batch = self._batchify_fn([self._dataset[i] for i in samples])
            if self._pin_memory:
                batch = _as_in_context(batch, cpu_pinned(self._pin_device_id))
            yield batch

    def _reloading_iter(self, batches):
        yield from batches
        self._prefetched = self._worker_iter()

    def __iter__(self):
        if self._num_workers == 0:
            return self._same_process_iter()
        if self._prefetched is not None:
            batches, self._prefetched = self._prefetched, None
        else:
            batches = self._worker_iter()
        if self._auto_reload:
            return self._reloading_iter(batches)
        return batches

    def __len__(self):
        return len(self._batch_sampler)

    def refresh(self):
        """Start fetching a new epoch now (with workers and ``auto_reload``)."""
        if self._num_workers > 0 and self._auto_reload:
            self._prefetched = self._worker_iter()

    def clean(self):
        """Forget a prefetched epoch."""
        self._prefetched = None

    def __del__(self):
        pool = getattr(self, "_worker_pool", None)
        if pool is not None:
            self._prefetched = None
            pool.terminate()
            self._worker_pool = None


class DataLoaderV1(DataLoader):
    """MXNet's earlier loader (queues instead of a pool); the same loader here, without the
    later arguments (``prefetch``, ``thread_pool``, ``timeout``, ``auto_reload``)."""

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None,
                 batch_sampler=None, batchify_fn=None, num_workers=0, pin_memory=False, pin_device_id=0):
        super().__init__(dataset, batch_size, shuffle, sampler, last_batch, batch_sampler, batchify_fn,
                         num_workers, pin_memory, pin_device_id)


def worker_loop_v1(dataset, key_queue, data_queue, batchify_fn):
    """A worker loop over queues: take ``(index, samples)`` from ``key_queue`` until None,
    put ``(index, batch)`` on ``data_queue``."""
    while True:
        item = key_queue.get()
        if item is None:
            break
        index, samples = item
        data_queue.put((index, batchify_fn([dataset[i] for i in samples])))


def fetcher_loop_v1(data_queue, data_buffer, pin_memory=False, pin_device_id=0, data_buffer_lock=None):
    """Move ``(index, batch)`` pairs from ``data_queue`` into the dict ``data_buffer`` until
    None arrives, pinning batches when asked."""
    while True:
        item = data_queue.get()
        if item is None:
            break
        index, batch = item
        if pin_memory:
            batch = _as_in_context(batch, cpu_pinned(pin_device_id))
        if data_buffer_lock is not None:
            with data_buffer_lock:
                data_buffer[index] = batch
        else:
            data_buffer[index] = batch
