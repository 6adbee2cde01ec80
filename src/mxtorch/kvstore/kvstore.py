"""Key-value stores for parameter synchronisation across devices (MXNet's ``mx.kv``).

The in-process store (types 'local' and 'device') mirrors MXNet 1.9.1's:

- ``init(key, value)`` stores a copy of ``value``; a key can be initialised once.
- ``push(key, value)`` sums the values given for a key (one per device); without an
  updater the stored value becomes that sum, with one (``set_optimizer`` /
  ``_set_updater``) ``updater(key, summed, stored)`` updates the stored value in place.
- ``pull(key, out)`` copies the stored value into every array of ``out``.

Keys are ints or strs, and one store holds keys of one kind only.  A store of type
'local' keeps each value where ``init`` got it (MXNet kept it in CPU memory; Module
initialises from its CPU copies); 'device' moves it to the device of the first
array pushed, so that the sum and the update run there.
"""
from __future__ import annotations

import torch

from ..base import MXNetError
from ..ndarray.ndarray import NDArray
from ..ndarray.sparse import _with_storage as with_storage
from .base import KVStoreBase, MXNetValueError, _InProcess, _pairs
# names MXNet 1.9.1's mxnet.kvstore.kvstore had in its namespace from its ctypes binding
from ..base import (KVStoreHandle, NDArrayHandle, c_str, check_call, mx_uint, py_str)  # noqa: E402,F401

__all__ = ["KVStore", "IN_PROCESS_TYPES"]

# Types served by the in-process store (MXNet's C++ factory gave these a local or device store).
IN_PROCESS_TYPES = ("local", "device", "nccl", "local_allreduce_cpu", "local_allreduce_device", "local_update_cpu")


class KVStore(_InProcess, KVStoreBase):
    """The in-process key-value store (types 'local', 'device'); ``rank`` is 0 and
    ``num_workers`` 1.  Create it with :func:`create`."""

    def __init__(self, kvstore_type="local"):
        self._type = kvstore_type
        self._store = {}
        self._key_kind = None
        self._updater = None
        self._optimizer = None
        self._compression_params = None
        self._compression = None
        self._on_push_device = "device" in kvstore_type or kvstore_type == "nccl"

    def __repr__(self):
        return f"<KVStore type={self._type!r} keys={len(self._store)}>"

    # -- properties ----------------------------------------------------------------------------
    @property
    def type(self):
        """The store type given to ``create`` ('local', 'device', ...)."""
        return self._type

    def is_capable(self, capability):
        """True for 'optimizer' (the store can run the optimizer); ValueError (an MXNetError)
        for an unknown capability, as MXNet raised."""
        if not isinstance(capability, str) or capability.lower() != KVStoreBase.OPTIMIZER:
            raise MXNetValueError(f"KVStore.is_capable: unknown capability {capability!r}; expected 'optimizer'")
        return True

    # -- keys ----------------------------------------------------------------------------------
    def _check_kind(self, key):
        kind = str if isinstance(key, str) else int
        if self._key_kind is None:
            self._key_kind = kind
        elif self._key_kind is not kind:
            raise MXNetError(f"KVStore.init: key {key!r} is a {kind.__name__} but this store holds "
                             f"{self._key_kind.__name__} keys; mixed key types are not allowed")

    def _stored(self, key, function):
        try:
            return self._store[key]
        except KeyError:
            raise MXNetError(f"KVStore.{function}: key {key!r} does not exist; call init() with it first") from None

    def _check_shapes(self, pairs, function, what):
        """MXNetError unless every array of each ``(key, arrays)`` pair has the shape stored
        under the key (MXNetError for an unknown key too); ``what`` names an array in the message."""
        for k, arrays in pairs:
            stored = self._stored(k, function)
            for array in arrays:
                if array.shape != stored.shape:
                    raise MXNetError(f"KVStore.{function}: key {k!r} holds shape {stored.shape}, {what} has "
                                     f"shape {array.shape}")

    def init(self, key, value):
        """Store a copy of ``value`` (one NDArray per key) under ``key`` (int or str, or a list
        of keys with a list of values).  A key already initialised raises MXNetError."""
        pairs = _pairs(key, value, "init", "values")
        for k, arrays in pairs:
            if len(arrays) != 1:
                raise MXNetError(f"KVStore.init: key {k!r} got {len(arrays)} values; init takes one NDArray "
                                 f"per key")
            if k in self._store:
                raise MXNetError(f"KVStore.init: duplicate init of key {k!r}; a key can be initialised once "
                                 f"(init and broadcast both initialise)")
            self._check_kind(k)
        for k, arrays in pairs:
            source = arrays[0]
            self._store[k] = NDArray(source._tensor.detach().clone(), source.context)

    def _overwrite(self, key, value):
        """Replace the stored value of an initialised key (mxtorch: Module.set_params after
        init_optimizer keeps the store in step with the devices)."""
        stored = self._stored(key, "init")
        with torch.no_grad():
            stored._tensor.copy_(value._tensor.to(device=stored._tensor.device, dtype=stored._tensor.dtype))

    def push(self, key, value, priority=0):
        """Sum the values pushed for each key (one NDArray or a list, one per device) and
        store the sum, or, with an updater set, call ``updater(key, sum, stored)``, which
        updates the stored value in place.  The updater gets int keys as ints and str keys
        as UTF-8 bytes, as MXNet passed them.  ``priority`` is accepted and ignored.

        Raises MXNetError for an unknown key or a value whose shape differs from the
        stored one.  The sum of row_sparse values is row_sparse (MXNet's reduce), so that the
        updater's optimizer updates lazily the rows they hold."""
        pairs = _pairs(key, value, "push", "values")
        self._check_shapes(pairs, "push", "a pushed value")
        for k, arrays in pairs:
            stored = self._store[k]
            if self._on_push_device and stored._tensor.device != arrays[0]._tensor.device:
                stored = NDArray(stored._tensor.to(arrays[0]._tensor.device), arrays[0].context)
                self._store[k] = stored
            with torch.no_grad():
                total = self._merge(k, arrays, stored._tensor)
                updates = self._reduce_across_workers(total, k) or [total]
            for update in updates:
                if self._updater is None:
                    with torch.no_grad():
                        stored._tensor.copy_(update)
                else:
                    self._updater(self._updater_key(k), _pushed_sum(update, stored.context, arrays), stored)

    def _merge(self, key, arrays, stored):
        """This process's sum of the values pushed for ``key`` (a new tensor on ``stored``'s
        device, of its dtype).  With gradient compression every device's value is compressed
        with its own residual before the sum, as MXNet's device store did."""
        if self._compression is None:
            return _sum(arrays, stored)
        parts = [self._compression(key, index, array._tensor.detach()).to(device=stored.device, dtype=stored.dtype)
                 for index, array in enumerate(arrays)]
        return torch.stack(parts).sum(dim=0) if len(parts) > 1 else parts[0].clone()

    def _reduce_across_workers(self, total, key=None):
        """Hook: combine ``total`` (this process's sum for one key) with the other workers'.
        Returns None (``total``, summed in place, is the update) or the list of updates to
        apply one after another.  Nothing to do in process; the distributed stores
        all-reduce (or, 'dist_async', gather) here."""

    def _updater_key(self, key):
        """The key the updater sees: ints as they are, str keys as UTF-8 bytes (MXNet's)."""
        return key.encode("utf-8") if isinstance(key, str) else key

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy each key's stored value into every array of ``out`` (an NDArray or a list,
        or for a list of keys a list of those); values are cast to each output's dtype.

        With ``ignore_sparse`` (the default, as in MXNet) row-sparse outputs are left
        untouched: they are filled by ``row_sparse_pull``.

        Raises MXNetError for a missing ``out``, an unknown key or a shape mismatch."""
        if out is None:
            raise MXNetError("KVStore.pull: out is required (the arrays to copy the stored values into)")
        pairs = _pairs(key, out, "pull", "out")
        if ignore_sparse:
            pairs = [(k, [t for t in targets if t.stype != "row_sparse"]) for k, targets in pairs]
        self._check_shapes(pairs, "pull", "an output")
        with torch.no_grad():
            for k, targets in pairs:
                source = self._store[k]._tensor
                for target in targets:
                    target._tensor.copy_(source.to(device=target._tensor.device, dtype=target._tensor.dtype))

    def pushpull(self, key, value, out=None, priority=0):
        """``push(key, value)`` then ``pull`` into ``out``, or into ``value`` itself when
        ``out`` is None."""
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority)

    def broadcast(self, key, value, out, priority=0):
        """``init(key, value)`` then ``pull(key, out)``; a key can be broadcast once."""
        self.init(key, value)
        self.pull(key, out, priority)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        """Pull only the rows ``row_ids`` (NDArray of row indices, or one per output) of the
        value of ``key`` into ``out``; the other rows of ``out`` become zero, as MXNet's
        row-sparse pull left them empty.  Raises MXNetError without ``row_ids``."""
        from ..ndarray.sparse import retain
        if row_ids is None:
            raise MXNetError("KVStore.row_sparse_pull: row_ids is required (the rows to pull)")
        keys = key if isinstance(key, (list, tuple)) else [key]
        outs = out if isinstance(out, (list, tuple)) else [out]
        if len(keys) > 1:       # one (list of) output and row ids per key
            outs = [o for group in outs for o in (group if isinstance(group, (list, tuple)) else [group])]
        dense = [o for o in outs if getattr(o, "stype", None) != "row_sparse"]
        if dense:
            raise MXNetError(f"KVStore.row_sparse_pull: the outputs must be row_sparse arrays "
                             f"(mx.nd.sparse.zeros('row_sparse', shape)), got stype {dense[0].stype!r}")
        self.pull(key, out, priority, ignore_sparse=False)
        ids = row_ids if isinstance(row_ids, (list, tuple)) else [row_ids] * len(outs)
        if len(keys) > 1:       # row ids given per key, like the outputs
            ids = [r for group, group_out in zip(ids, out) for r in
                   (group if isinstance(group, (list, tuple)) else
                    [group] * (len(group_out) if isinstance(group_out, (list, tuple)) else 1))]
        if len(ids) != len(outs):
            raise MXNetError(f"KVStore.row_sparse_pull: {len(ids)} row_ids for {len(outs)} outputs")
        with torch.no_grad():
            for target, rows in zip(outs, ids):
                kept = retain(target, rows)
                target._tensor.copy_(kept._tensor)

    def set_gradient_compression(self, compression_params):
        """Compress pushed gradients with MXNet's 2-bit scheme: ``{'type': '2bit',
        'threshold': t}`` (t > 0, default 0.5).  From then on each push sends, per entry,
        ``+t`` / ``-t`` / 0 of the gradient plus the residual kept for that key (and device,
        or worker in a 'dist' store), which keeps what was not sent (see
        :mod:`mxtorch.kvstore.compression`).  As in MXNet only 'device' and 'dist' stores
        accept it; MXNetError for others, for a type other than '2bit' or a threshold <= 0."""
        from .compression import GradientCompression
        if "device" not in self._type and "dist" not in self._type:
            raise MXNetError(f"KVStore.set_gradient_compression: not supported for a {self._type!r} store; "
                             f"use 'device'")
        self._compression = GradientCompression(compression_params)
        self._compression_params = self._compression.params()

    # -- optimizer -----------------------------------------------------------------------------
    def set_optimizer(self, optimizer):
        """Run ``optimizer`` in the store: each push then updates the stored weight
        (Module's ``update_on_kvstore``)."""
        from ..optimizer import Optimizer, get_updater
        if not isinstance(optimizer, Optimizer):
            raise MXNetError(f"KVStore.set_optimizer: expected an Optimizer, got {type(optimizer).__name__}")
        self._optimizer = optimizer
        self._set_updater(get_updater(optimizer))

    def _set_updater(self, updater):
        """Use ``updater(key, pushed_sum, stored)`` on each push (it updates ``stored`` in
        place); None removes it."""
        if updater is not None and not callable(updater):
            raise MXNetError(f"KVStore._set_updater: expected a callable (key, input, stored), got "
                             f"{type(updater).__name__}")
        self._updater = updater

    def _require_updater(self, function):
        if self._updater is None or not hasattr(self._updater, "get_states"):
            raise MXNetError(f"KVStore.{function}: the store has no optimizer; call set_optimizer() first")

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Write the optimizer states (MXNet's ``.states`` pickle; with ``dump_optimizer`` the
        optimizer too) to ``fname``, atomically."""
        from ..util import atomic_write
        self._require_updater("save_optimizer_states")
        atomic_write(fname, self._updater.get_states(dump_optimizer))

    def load_optimizer_states(self, fname):
        """Read optimizer states written by ``save_optimizer_states`` (or by MXNet)."""
        self._require_updater("load_optimizer_states")
        try:
            with open(fname, "rb") as handle:
                payload = handle.read()
        except OSError as error:
            raise MXNetError(f"KVStore.load_optimizer_states: cannot read {fname!r}: {error}") from None
        self._updater.set_states(payload)

    def _barrier(self):
        """A barrier among workers: nothing to wait for in process."""

    def _send_command_to_servers(self, head, body):
        """There are no servers in process; MXNetError."""
        raise MXNetError("KVStore._send_command_to_servers: an in-process store has no servers")


def _sum(arrays, stored):
    """The sum of ``arrays`` as a new tensor on ``stored``'s device, of its dtype."""
    device, dtype = stored.device, stored.dtype
    total = arrays[0]._tensor.detach().to(device=device, dtype=dtype, copy=True)
    for array in arrays[1:]:
        total.add_(array._tensor.detach().to(device=device, dtype=dtype))
    return total


def _pushed_sum(total, context, arrays):
    """The sum ``total`` of the pushed ``arrays`` as the NDArray the updater gets: row_sparse
    when every pushed value is (MXNet's reduce of row_sparse gradients), else dense."""
    if arrays and all(array.stype == "row_sparse" for array in arrays):
        return with_storage(total, context, "row_sparse")
    return NDArray(total, context)

# the C library object MXNet's module held (``from .base import _LIB``; see base_ctypes._CLibrary)
from ..base_ctypes import _LIB  # noqa: E402,F401
from .base import _ctype_dict, _ctype_key_value  # noqa: E402,F401
from ..ndarray.handles import ndarray_cls as _ndarray_cls  # noqa: E402

_SERVER_COMMAND_TYPES = {"kController": 0, "kSetMultiPrecision": 1, "kStopServer": 2, "kSyncMode": 3,
                         "kSetGradientCompression": 4, "kSetProfilerParams": 5}


def _get_kvstore_server_command_type(command):
    """MXNet's id of a command sent to KVStore servers (``'kController'`` 0 ...
    ``'kSetProfilerParams'`` 5); AssertionError for another name."""
    assert command in _SERVER_COMMAND_TYPES, "Unknown command type to send to server"
    return _SERVER_COMMAND_TYPES[command]


def _updater_wrapper(updater):
    """The C-callback form of an updater: ``handle(key, lhs_handle, rhs_handle, _)`` wraps the two
    array handles (or their integer values) into arrays and calls ``updater(key, lhs, rhs)``."""
    def updater_handle(key, lhs_handle, rhs_handle, _):
        lhs = _ndarray_cls(NDArrayHandle(getattr(lhs_handle, "value", lhs_handle)))
        rhs = _ndarray_cls(NDArrayHandle(getattr(rhs_handle, "value", rhs_handle)))
        updater(key, lhs, rhs)
    return updater_handle
