"""The key-value store interface, the registry of store types and ``create`` (MXNet's
``mx.kvstore.base``).

Store types are registered explicitly: ``mxtorch.kvstore`` (the package's ``__init__``)
registers the in-process types ('local', 'device', ...) served by
:class:`~mxtorch.kvstore.kvstore.KVStore` and the distributed types ('dist_sync',
'dist_device_sync', 'dist_async', ...) served by :class:`~mxtorch.kvstore.dist.KVStoreDist`
with :func:`register_types`.  User stores registered with ``KVStoreBase.register`` (as
MXNet's Horovod and BytePS stores were) are found by their lower-cased class name and take
precedence, as in MXNet.
"""
from __future__ import annotations

from ..base import MXNetError
from ..ndarray.ndarray import NDArray
# names MXNet 1.9.1's mxnet.kvstore.base had in its namespace from its ctypes binding
from ..base import (  # noqa: E402,F401
    KVStoreHandle, c_array, c_array_buf, c_handle_array, c_str, c_str_array, check_call,
    string_types,
)
# names MXNet 1.9.1's mxnet.kvstore.base had in its namespace (imported there, not defined)
from array import array  # noqa: E402,F401
# names MXNet 1.9.1's mxnet.kvstore.base had in its namespace (imported there, not defined)
from ..profiler import set_kvstore_handle  # noqa: E402,F401

__all__ = ["KVStoreBase", "TestStore", "create", "register_types"]

# type name -> callable(type name) returning a store: the built-in types (see register_types)
_STORE_TYPES = {}


class MXNetTypeError(MXNetError, TypeError):
    """A bad argument type; also a TypeError, which MXNet raised in these places."""


class MXNetValueError(MXNetError, ValueError):
    """A bad argument value; also a ValueError, which MXNet raised in these places."""


class KVStoreBase:
    """Base class of key-value stores; ``KVStoreBase.register`` adds a store class that
    ``create`` finds by its lower-cased class name (MXNet's ``kv_registry``)."""

    kv_registry = {}
    OPTIMIZER = "optimizer"

    @staticmethod
    def register(klass):
        """Register ``klass`` (a KVStoreBase subclass) under ``klass.__name__.lower()``;
        returns ``klass`` so it can be used as a decorator."""
        if not isinstance(klass, type):
            raise MXNetTypeError(f"KVStoreBase.register: expected a class, got {type(klass).__name__}")
        name = klass.__name__.lower()
        KVStoreBase.kv_registry[name] = klass
        return klass

    def broadcast(self, key, value, out, priority=0):
        raise NotImplementedError()

    def pushpull(self, key, value, out=None, priority=0):
        raise NotImplementedError()

    def set_optimizer(self, optimizer):
        raise NotImplementedError()

    def is_capable(self, capability):
        raise NotImplementedError()

    def save_optimizer_states(self, fname, dump_optimizer=False):
        raise NotImplementedError()

    def load_optimizer_states(self, fname):
        raise NotImplementedError()

    @property
    def type(self):
        raise NotImplementedError()

    @property
    def rank(self):
        raise NotImplementedError()

    @property
    def num_workers(self):
        raise NotImplementedError()


class _InProcess:
    """The rank and worker count of a store that lives in this process alone (TestStore,
    KVStore); list it before KVStoreBase among the bases."""

    @property
    def rank(self):
        """This worker's rank: always 0 in process."""
        return 0

    @property
    def num_workers(self):
        """The number of workers: always 1 in process."""
        return 1


@KVStoreBase.register
class TestStore(_InProcess, KVStoreBase):
    """MXNet's store for testing the KVStoreBase interface (``mx.kv.create('teststore')``):
    ``pushpull`` sums a list of values on the first value's context and writes the sum into
    every output (into the values when ``out`` is None); ``broadcast`` copies ``value`` into
    every output.  It runs no optimizer (``is_capable('optimizer')`` is False), so a Trainer
    given one updates on the workers; ``set_optimizer`` and the optimizer-state methods raise
    NotImplementedError, as MXNet's did."""

    def broadcast(self, key, value, out, priority=0):
        for target in _check_arrays(out, key, "broadcast", "out"):
            target[:] = value

    def pushpull(self, key, value, out=None, priority=0):
        values = _check_arrays(value, key, "pushpull", "value")
        if isinstance(value, NDArray):
            total = value
        else:
            total = values[0].copy()
            for other in values[1:]:
                total += other.as_in_context(total.context)
        targets = values if out is None else _check_arrays(out, key, "pushpull", "out")
        for target in targets:
            if target is not total:
                target[:] = total

    @staticmethod
    def is_capable(capability):
        """Only 'optimizer' is known (False); another capability raises ValueError."""
        if str(capability).lower() == KVStoreBase.OPTIMIZER:
            return False
        raise MXNetValueError(f"Unknown capability: {capability}")

    @property
    def type(self):
        return "teststore"


def _check_key(key, function):
    if isinstance(key, bool) or not isinstance(key, (int, str)):
        raise MXNetError(f"KVStore.{function}: a key must be an int or a str, got {type(key).__name__} {key!r}")
    return key


def _check_arrays(value, key, function, argument):
    """A list of NDArrays from one NDArray or a list/tuple of them."""
    arrays = list(value) if isinstance(value, (list, tuple)) else [value]
    if not arrays:
        raise MXNetError(f"KVStore.{function}: {argument} for key {key!r} is an empty list")
    for array in arrays:
        if not isinstance(array, NDArray):
            raise MXNetError(f"KVStore.{function}: {argument} for key {key!r} must be an NDArray or a list of "
                             f"NDArrays, got {type(array).__name__}")
    return arrays


def _pairs(key, value, function, argument):
    """``[(key, [NDArray, ...]), ...]`` from MXNet's key/value forms: one key with an NDArray
    or a list of NDArrays, or a list of keys with a list of (NDArray or list of NDArrays)."""
    if isinstance(key, (list, tuple)):
        keys = [_check_key(k, function) for k in key]
        if not isinstance(value, (list, tuple)) or len(value) != len(keys):
            given = f"a list of {len(value)}" if isinstance(value, (list, tuple)) else type(value).__name__
            raise MXNetError(f"KVStore.{function}: {len(keys)} keys need a list of {len(keys)} {argument} "
                             f"(one NDArray or list of NDArrays per key), got {given}")
        return [(k, _check_arrays(v, k, function, argument)) for k, v in zip(keys, value)]
    _check_key(key, function)
    return [(key, _check_arrays(value, key, function, argument))]


def register_types(names, factory):
    """Serve each type name in ``names`` with ``factory(name)``, a callable returning a new
    store (mxtorch's explicit registry of built-in types; ``KVStoreBase.register`` remains
    MXNet's way to add a store class)."""
    for name in names:
        _STORE_TYPES[name.lower()] = factory


def store_types():
    """The names ``create`` accepts (built-in types and classes registered on KVStoreBase), sorted."""
    return sorted(set(_STORE_TYPES) | set(KVStoreBase.kv_registry))


def create(name="local"):
    """A new key-value store.

    ``name``: 'local' or 'device' (in process; also 'nccl', 'local_allreduce_cpu',
    'local_allreduce_device', 'local_update_cpu', served by the same store), a distributed
    type ('dist_sync', 'dist_device_sync', 'dist_sync_device', 'dist_async', 'dist'; on
    torch.distributed, see :mod:`mxtorch.kvstore.dist`), or the lower-cased name of a
    class registered with ``KVStoreBase.register``.

    Raises
    ------
    MXNetError
        (also a TypeError) if ``name`` is not a str; (an MXNetError) for an unknown name.
        MXNet quietly made a local store for an unknown name.
    """
    return store_factory(name)()


def store_factory(name):
    """A callable making a new store of type ``name`` (see ``create``), raising the errors
    ``create`` documents; ``Module.fit`` checks a kvstore name with it where it needs no store."""
    if not isinstance(name, str):
        raise MXNetTypeError(f"kvstore.create: name must be a str, got {type(name).__name__}")
    name = name.lower()
    if name in KVStoreBase.kv_registry:
        return KVStoreBase.kv_registry[name]
    if name in _STORE_TYPES:
        return lambda: _STORE_TYPES[name](name)
    raise MXNetError(f"kvstore.create: unknown kvstore type {name!r}; expected one of "
                     f"{sorted(_STORE_TYPES) + sorted(KVStoreBase.kv_registry)}")

# the C library object MXNet's module held (``from .base import _LIB``; see base_ctypes._CLibrary)
from ..base_ctypes import _LIB  # noqa: E402,F401


# -- MXNet's ctypes argument builders of its KVStore calls ------------------------------------------
def _ctype_key_value(keys, vals):
    """``(c_keys, c_vals, use_str_keys)``: the keys as a ctypes array of ``c_char_p`` (str keys)
    or ``c_int`` (int keys), repeated once per value, and the arrays' handles as a ctypes array,
    as MXNet passed key-value arguments to its C API.  ``keys`` / ``vals`` are one key with one
    array or a list of arrays, or lists of those.  AssertionError for mixed key types, lists of
    different lengths or values that are not NDArrays."""
    import ctypes
    from ..base import c_array, c_array_buf, c_str_array, string_types
    if isinstance(keys, (tuple, list)):
        assert len(keys) == len(vals)
        c_keys, c_vals, use_str_keys = [], [], None
        for key, val in zip(keys, vals):
            key_i, val_i, str_keys_i = _ctype_key_value(key, val)
            c_keys += key_i
            c_vals += val_i
            use_str_keys = str_keys_i if use_str_keys is None else use_str_keys
            assert use_str_keys == str_keys_i, "inconsistent types of keys detected."
        keys_array = c_array(ctypes.c_char_p, c_keys) if use_str_keys else c_array(ctypes.c_int, c_keys)
        return keys_array, c_array(ctypes.c_void_p, c_vals), use_str_keys
    assert isinstance(keys, (int,) + string_types), "unexpected type for keys: " + str(type(keys))
    use_str_keys = isinstance(keys, string_types)
    values = [vals] if isinstance(vals, NDArray) else list(vals)
    for value in values:
        assert isinstance(value, NDArray)
    c_keys = c_str_array([keys] * len(values)) if use_str_keys else \
        c_array_buf(ctypes.c_int, array("i", [keys] * len(values)))
    # the arrays' handles (NDArray._as_parameter_: tokens that NDArray(handle) turns back into them)
    handles = (ctypes.c_void_p * len(values))(*[value._as_parameter_.value for value in values])
    return c_keys, handles, use_str_keys


def _ctype_dict(param_dict):
    """``(c_keys, c_vals)``: the keys and the ``str`` of the values of ``param_dict`` as ctypes
    arrays of ``c_char_p``; AssertionError when it is not a dict."""
    import ctypes
    from ..base import c_array
    assert isinstance(param_dict, dict), "unexpected type for param_dict: " + str(type(param_dict))
    c_keys = c_array(ctypes.c_char_p, [key.encode("utf-8") for key in param_dict.keys()])
    c_vals = c_array(ctypes.c_char_p, [str(value).encode("utf-8") for value in param_dict.values()])
    return c_keys, c_vals
