"""Checkpoints (``prefix-symbol.json`` + ``prefix-%04d.params``) and the training helpers
legacy code imports from ``mxnet.model`` (``BatchEndParam``, ``_create_kvstore``,
``_create_sparse_kvstore``, ``_initialize_kvstore``, ``_update_params``,
``_update_params_on_kvstore``, ``_update_params_on_kvstore_nccl``, ``_multiple_callbacks``).

``BASE_ESTIMATOR`` is scikit-learn's ``BaseEstimator`` when scikit-learn is installed, else
``object`` (MXNet's base class of FeedForward); it is resolved on first use, so importing
mxtorch does not import scikit-learn.  ``FeedForward`` (the pre-Module API) is
``mxtorch.module.feedforward.FeedForward``, a layer over Module, and
``LogValidationMetricsCallback`` is ``mxtorch.callback``'s: both modules sit above this one
and register the names here (:func:`provide_name`).  FeedForward's old training loop
``_train_multi_device`` raises MXNetError pointing to ``mx.mod.Module``.
"""
from __future__ import annotations

import logging
import os
from collections import namedtuple

from .base import MXNetError
from .context import cpu
# names MXNet 1.9.1's mxnet.model had in its namespace from its ctypes binding
from .base import mx_real_t  # noqa: E402,F401

__all__ = ["BatchEndParam", "save_checkpoint", "load_checkpoint", "load_params", "FeedForward"]

BatchEndParam = namedtuple("BatchEndParams", ["epoch", "nbatch", "eval_metric", "locals"])


# Names MXNet 1.9.1's mxnet.model had that belong to layers above this one: the callback
# ``LogValidationMetricsCallback`` (mxtorch.callback), the pre-Module API ``FeedForward``
# (mxtorch.module.feedforward, a layer over Module) and ``DataParallelExecutorManager``
# (mxtorch.executor_manager, on Module's executor group).  Those modules register them here with
# ``provide_name`` when they are imported (``import mxtorch`` imports all three); so does the
# executor manager with the two helpers mxnet.model imported from it (``_check_arguments``, ``_load_data``).
_UPPER_LAYER_NAMES = ("LogValidationMetricsCallback", "FeedForward", "DataParallelExecutorManager",
                      "_check_arguments", "_load_data")


def provide_name(name, value):
    """Registration point: put ``value`` into this module's namespace as ``name``, one of the
    MXNet ``mxnet.model`` names defined by a layer above this module; returns ``value``."""
    if name not in _UPPER_LAYER_NAMES:
        raise MXNetError(f"mx.model.provide_name: {name!r} is not one of {list(_UPPER_LAYER_NAMES)}")
    globals()[name] = value
    return value


def __getattr__(name):
    if name in _UPPER_LAYER_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r} yet: it is registered when its "
                             f"module is imported (import mxtorch)")
    if name == "BASE_ESTIMATOR":
        try:
            from sklearn.base import BaseEstimator
        except ImportError:
            return object
        return BaseEstimator
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _multiple_callbacks(callbacks, *args, **kwargs):
    """Call ``callbacks`` (None, one callable, or a list of callables, in order) with
    ``*args, **kwargs``."""
    if isinstance(callbacks, list):
        for callback in callbacks:
            callback(*args, **kwargs)
        return
    if callbacks:
        callbacks(*args, **kwargs)


def _create_sparse_kvstore(kvstore):
    """``(kvstore, True)`` for parameters stored row-sparse, which MXNet always updated on
    the store: ``kvstore`` is a KVStore or a type name for ``mx.kv.create``.  Raises
    MXNetError for any other value or a store that cannot run the optimizer."""
    from . import kvstore as kvs
    if isinstance(kvstore, kvs.KVStoreBase):
        kv = kvstore
    elif isinstance(kvstore, str):
        kv = kvs.create(kvstore)
    else:
        raise MXNetError(f"_create_sparse_kvstore: cannot create a KVStore for row_sparse parameters from "
                         f"{kvstore!r}; expected a KVStore or a str type name")
    if not kv.is_capable(kvs.KVStoreBase.OPTIMIZER):
        raise MXNetError(f"_create_sparse_kvstore: row_sparse parameters need a KVStore that runs the "
                         f"optimizer; {type(kv).__name__} does not")
    return kv, True


def _update_params_on_kvstore_nccl(param_arrays, grad_arrays, kvstore, param_names):
    """As ``_update_params_on_kvstore`` (the store runs the optimizer), with the parameters
    that have gradients pushed and pulled in groups of ``MXNET_UPDATE_AGGREGATION_SIZE``
    keys (default 16) through one ``pushpull`` call each, as MXNet did for NCCL stores."""
    valid = [index for index, grads in enumerate(grad_arrays) if grads[0] is not None]
    group = max(int(os.getenv("MXNET_UPDATE_AGGREGATION_SIZE", "16")), 1)
    for start in range(0, len(valid), group):
        chosen = valid[start:start + group]
        kvstore.pushpull([param_names[i] for i in chosen], [grad_arrays[i] for i in chosen],
                         out=[param_arrays[i] for i in chosen], priority=-start)


def _train_multi_device(symbol, ctx, arg_names, param_names, aux_names, arg_params, aux_params, begin_epoch,
                        end_epoch, epoch_size, optimizer, kvstore, update_on_kvstore, train_data,
                        eval_data=None, eval_metric=None, epoch_end_callback=None, batch_end_callback=None,
                        logger=None, work_load_list=None, monitor=None, eval_end_callback=None,
                        eval_batch_end_callback=None, sym_gen=None):
    """FeedForward's training loop in MXNet; not provided: raises MXNetError (use
    ``mx.mod.Module(symbol, context=ctx).fit(train_data, eval_data, ...)``)."""
    raise MXNetError("mx.model._train_multi_device is FeedForward's training loop, which mxtorch does not "
                     "provide; train with mx.mod.Module(symbol, context=ctx).fit(train_data, eval_data, ...)")


def _create_kvstore(kvstore, num_device, arg_params):
    """``(kvstore or None, update_on_kvstore)`` as MXNet's Module decides them.

    A str type creates a store, except that 'local' (and other non-distributed
    types) on a single device uses none (an unknown name raises MXNetError there too, where
    MXNet silently trained without a store); ``MXNET_UPDATE_ON_KVSTORE`` and the
    store's own preference decide where the optimizer runs.
    """
    import os
    from . import kvstore as kvs
    update_on_kvstore = bool(int(os.getenv("MXNET_UPDATE_ON_KVSTORE", "1")))
    if kvstore is None:
        kv = None
    elif isinstance(kvstore, kvs.KVStoreBase):
        kv = kvstore
    elif isinstance(kvstore, str):
        if num_device == 1 and "dist" not in kvstore:
            kvs.base.store_factory(kvstore)   # an unknown name raises as kv.create does (MXNet trained on)
            kv = None
        else:
            kv = kvs.create(kvstore)
            if kvstore == "local":
                # MXNet: large arrays are better updated on the workers; keep its rule of thumb
                max_size = max((param.size for param in arg_params.values()), default=0)
                if max_size > 1024 * 1024 * 16:
                    update_on_kvstore = False
    else:
        raise MXNetError(f"kvstore must be a KVStore, a str or None, got {type(kvstore).__name__}")
    if kv is None:
        update_on_kvstore = False
    else:
        update_on_kvstore &= getattr(kv, "is_capable", lambda capability: True)("optimizer")
    return kv, update_on_kvstore


def _initialize_kvstore(kvstore, param_arrays, arg_params, param_names, update_on_kvstore):
    """Initialise each parameter key on the kvstore from ``arg_params`` and, when the
    optimizer runs on the store, pull the values back to every device."""
    for index, param_on_devs in enumerate(param_arrays):
        name = param_names[index]
        kvstore.init(name, arg_params[name])
        if update_on_kvstore:
            kvstore.pull(name, param_on_devs, priority=-index, ignore_sparse=False)


def _update_params_on_kvstore(param_arrays, grad_arrays, kvstore, param_names):
    """Push each gradient list to the kvstore (which runs the optimizer) and pull the weights."""
    for index, pair in enumerate(zip(param_arrays, grad_arrays)):
        arg_list, grad_list = pair
        if grad_list[0] is None:
            continue
        name = param_names[index]
        kvstore.push(name, grad_list, priority=-index)
        kvstore.pull(name, arg_list, priority=-index, ignore_sparse=False)


def _update_params(param_arrays, grad_arrays, updater, num_device, kvstore=None, param_names=None,
                   param_index=None):
    """Aggregate gradients across devices (through ``kvstore`` when given) and call
    ``updater(index * num_device + k, grad, weight)`` for each device ``k``, MXNet's key
    scheme (so optimizer state indices match MXNet's ``.states`` files).  ``param_index``
    (name -> index) overrides the position, for buckets with parameters of their own.

    Without a kvstore the gradients of several devices are summed too (mxtorch; MXNet
    then updated each device with its own slice's gradient, so the copies drifted apart
    and ``get_params`` averaged them)."""
    updates = [[] for _ in range(num_device)]
    for i, pair in enumerate(zip(param_arrays, grad_arrays)):
        arg_list, grad_list = pair
        if grad_list[0] is None:
            continue
        index = param_index[param_names[i]] if param_index else i
        if kvstore:
            name = param_names[i]
            kvstore.push(name, grad_list, priority=-index)
            kvstore.pull(name, grad_list, priority=-index, ignore_sparse=False)
        elif num_device > 1:
            _sum_into(grad_list)
        for k, (weight, grad) in enumerate(zip(arg_list, grad_list)):
            updates[k].append((index * num_device + k, grad, weight))
    for device_updates in updates:
        if not device_updates:
            continue
        indices, grads, weights = zip(*device_updates)
        if getattr(updater, "supports_multiple", False):
            updater(list(indices), list(grads), list(weights))
        else:
            for index, grad, weight in device_updates:
                updater(index, grad, weight)


def _sum_into(arrays):
    """Replace every array in ``arrays`` by their sum (device to device, no host round trip)."""
    import torch
    with torch.no_grad():
        total = arrays[0]._tensor.clone()
        for array in arrays[1:]:
            total.add_(array._tensor.to(total.device))
        for array in arrays:
            array._tensor.copy_(total.to(array._tensor.device))


def save_checkpoint(prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True, states=None):
    """Write ``prefix-symbol.json`` and ``prefix-%04d.params`` (``arg:``/``aux:`` keys), and
    ``prefix-%04d.states`` when ``states`` (bytes) is given, as one group: either every file
    is replaced or, if any write fails, none is (so the files always match each other).
    ``symbol`` may be None to write the parameters only.

    A process killed (SIGKILL, power loss) at any moment of a save leaves the previous
    complete set, or a journal (``.PREFIX-checkpoint.journal``) with which the next load or
    save of ``prefix`` completes the new set (:func:`recover_checkpoint`), never a mix.  In
    a torch.distributed job only rank 0 writes (the other ranks log and return), unless
    ``MXTORCH_CHECKPOINT_ALL_RANKS=1``.  MXNet wrote the files one after another."""
    if skips_checkpoint(prefix, epoch):
        return
    symbols = [] if symbol is None else [(f"{prefix}-symbol.json", symbol)]
    extra = [] if states is None else [("%s-%04d.states" % (prefix, epoch), states)]
    write_checkpoint_group(prefix, epoch, symbols, arg_params, aux_params, extra, remove_amp_cast)


def skips_checkpoint(prefix, epoch):
    """True, after logging it, on a distributed rank that does not write checkpoints (see
    :func:`save_checkpoint`); the checkpoint writers call it before anything else."""
    if _writes_checkpoints():
        return False
    logging.info("Not saving checkpoint %s-%04d on distributed rank %d (only rank 0 writes checkpoints; "
                 "MXTORCH_CHECKPOINT_ALL_RANKS=1 makes every rank write)", prefix, epoch, _distributed_rank())
    return True


def write_checkpoint_group(prefix, epoch, symbols, arg_params, aux_params, extra=(), remove_amp_cast=True):
    """Write one checkpoint group of ``prefix`` as a journaled all-or-nothing group: each
    ``(file name, Symbol)`` of ``symbols`` as JSON, ``prefix-%04d.params`` of ``arg_params`` /
    ``aux_params``, then each ``(file name, bytes)`` of ``extra``.  An interrupted earlier
    save of these files is completed first.  The one writer of :func:`save_checkpoint` and
    ``BucketingModule.save_checkpoint`` (which adds a symbol per bucket and ``prefix.buckets``);
    it writes on every rank: callers check :func:`skips_checkpoint` first."""
    from .ndarray.serialization import to_bytes
    from .util import atomic_write_group, recover_group
    params_file = "%s-%04d.params" % (prefix, epoch)
    items = [(fname, symbol.tojson(remove_amp_cast).encode("utf-8")) for fname, symbol in symbols]
    items.append((params_file, to_bytes(params_dict(arg_params, aux_params))))
    items.extend(extra)
    recover_group(checkpoint_journal(prefix), [fname for fname, _ in items])   # finish an interrupted save first
    atomic_write_group(items, journal=checkpoint_journal(prefix))
    logging.info('Saved checkpoint to "%s"', params_file)


def checkpoint_journal(prefix):
    """The journal file of the checkpoints under ``prefix`` (present only while a save is
    renaming its files, or after a save was killed then: loading completes that save)."""
    folder, base = os.path.split(os.fspath(prefix))
    return os.path.join(folder, f".{base}-checkpoint.journal")


def recover_checkpoint(prefix, epoch=None):
    """Complete a checkpoint save under ``prefix`` that was interrupted (killed) while it
    renamed its files, and remove leftover temporary files of ``epoch``'s files; see
    :func:`mxtorch.util.recover_group`.  Checkpoint loading calls it."""
    from .util import recover_group
    targets = [f"{prefix}-symbol.json"]
    if epoch is not None:
        targets += ["%s-%04d.params" % (prefix, epoch), "%s-%04d.states" % (prefix, epoch)]
    return recover_group(checkpoint_journal(prefix), targets)


def _distributed_rank():
    import torch.distributed as dist
    return dist.get_rank() if dist.is_available() and dist.is_initialized() else 0


def _writes_checkpoints():
    """True on rank 0 of a torch.distributed job or without one; every rank writes with
    ``MXTORCH_CHECKPOINT_ALL_RANKS=1``."""
    return os.environ.get("MXTORCH_CHECKPOINT_ALL_RANKS", "0") not in ("", "0") or _distributed_rank() == 0


def params_dict(arg_params, aux_params):
    """``{'arg:<name>': array, 'aux:<name>': array}`` on the CPU, the ``.params`` layout."""
    save_dict = {f"arg:{k}": v.as_in_context(cpu()) for k, v in arg_params.items()}
    save_dict.update({f"aux:{k}": v.as_in_context(cpu()) for k, v in aux_params.items()})
    return save_dict


def load_params(prefix, epoch):
    """``(arg_params, aux_params)`` from ``prefix-%04d.params``; MXNetError on an
    unprefixed key."""
    from . import ndarray as nd
    recover_checkpoint(prefix, epoch)
    fname = "%s-%04d.params" % (prefix, epoch)
    return split_params(nd.load(fname), fname)


def split_params(save_dict, fname="params"):
    """Split a loaded ``{'arg:x': ..., 'aux:y': ...}`` dict into two dicts."""
    arg_params, aux_params = {}, {}
    if not isinstance(save_dict, dict):
        if not save_dict:
            return arg_params, aux_params
        raise MXNetError(f"{fname}: expected named arrays ('arg:'/'aux:' keys), found an unnamed list")
    for key, value in save_dict.items():
        kind, _, name = key.partition(":")
        if kind == "arg" and name:
            arg_params[name] = value
        elif kind == "aux" and name:
            aux_params[name] = value
        else:
            raise MXNetError(f"{fname}: invalid parameter name {key!r}; expected 'arg:<name>' or 'aux:<name>'")
    return arg_params, aux_params


def load_checkpoint(prefix, epoch):
    """``(symbol, arg_params, aux_params)`` from ``prefix-symbol.json`` and
    ``prefix-%04d.params``."""
    from . import symbol as sym
    recover_checkpoint(prefix, epoch)
    symbol = sym.load(f"{prefix}-symbol.json")
    arg_params, aux_params = load_params(prefix, epoch)
    return symbol, arg_params, aux_params

# names MXNet 1.9.1's mxnet.model had in its namespace (imported there, not defined)
from .context import Context  # noqa: E402,F401
from .initializer import Uniform  # noqa: E402,F401
from .io import DataDesc  # noqa: E402,F401
from .optimizer import get_updater  # noqa: E402,F401
import importlib.util as _importlib_util  # noqa: E402
SKLEARN_INSTALLED = _importlib_util.find_spec("sklearn") is not None
"""Whether scikit-learn can be imported (MXNet's FeedForward used it to accept its data types)."""
