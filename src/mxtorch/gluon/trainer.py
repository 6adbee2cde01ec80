"""``gluon.Trainer``: applies an optimizer to a set of Parameters (MXNet's ``gluon.Trainer``).

The Trainer uses mxtorch's optimizers (``mx.optimizer``) through one ``Updater`` per context
and, with several contexts or a distributed type, mxtorch's kvstore to sum gradients
(``allreduce_grads``) or to run the optimizer on the store (``update_on_kvstore``), deciding
as MXNet 1.9.1 did (``mx.model._create_kvstore``).  Parameters are indexed in sorted name
order when given as a dict, as MXNet did, so saved optimizer states line up.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import optimizer as opt
from ..base import MXNetError, MXNetTypeError, MXNetValueError
from ..kvstore import KVStore
from .. import kvstore as kvs
from ..util import atomic_write
from ..model import _create_kvstore
from .parameter import Parameter, ParameterDict

__all__ = ["Trainer"]


def _holds(array, reference):
    """Whether ``array`` already holds exactly the values of ``reference`` (another context's copy)."""
    import torch
    if array is reference:
        return True
    with torch.no_grad():
        return bool(torch.equal(array._tensor, reference._tensor.to(array._tensor.device)))


class _UsageError(MXNetError, AssertionError):
    """A Trainer method called in a configuration that does not allow it (also an
    AssertionError, as MXNet asserted)."""


class Trainer:
    """``Trainer(params, optimizer, optimizer_params=None, kvstore='device',
    compression_params=None, update_on_kvstore=None)``.

    ``params``: a ParameterDict / dict (taken in sorted name order) or a list of Parameters,
    all initialized on the same contexts; ``optimizer``: a name (``'sgd'``) with
    ``optimizer_params`` or an Optimizer instance; ``kvstore``: a type name, a KVStore or None.
    ``step(batch_size)`` rescales gradients by ``1 / batch_size``, reduces them across
    contexts and updates every Parameter whose ``grad_req`` is not 'null'.
    A Parameter whose gradient was not written by a backward since the last step raises
    UserWarning unless ``ignore_stale_grad=True`` (then it is skipped).
    """

    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device", compression_params=None,
                 update_on_kvstore=None):
        if isinstance(params, (dict, ParameterDict)):
            params = [params[key] for key in sorted(params.keys())]
        if not isinstance(params, (list, tuple)):
            raise ValueError(f"First argument must be a list or dict of Parameters, got {type(params)}.")
        self._params = []
        self._param2idx = {}
        for index, param in enumerate(params):
            if not isinstance(param, Parameter):
                raise ValueError(f"First argument must be a list or dict of Parameters, got list of "
                                 f"{type(param)}.")
            # sparse storage is declared but stored densely in mxtorch: the numbers are the same;
            # MXNet's kvstore rules for sparse weights / gradients are kept
            self._contains_sparse_weight = getattr(self, "_contains_sparse_weight", False) or \
                param._stype != "default"
            self._contains_sparse_grad = getattr(self, "_contains_sparse_grad", False) or \
                param._grad_stype != "default"
            self._param2idx[param.name] = index
            self._params.append(param)
            param._set_trainer(self)
        self._compression_params = compression_params
        self._contexts = self._check_contexts()
        self._init_optimizer(optimizer, optimizer_params or {})
        self._scale = self._optimizer.rescale_grad
        self._kvstore_params = {"kvstore": kvstore, "update_on_kvstore": update_on_kvstore}
        self._kv_initialized = False
        self._kvstore = None
        self._update_on_kvstore = None
        self._distributed = None
        self._params_to_init = []
        self._reset_kvstore()

    def _check_contexts(self):
        contexts = None
        for param in self._params:
            ctx = param.list_ctx()
            if contexts is not None and contexts != ctx:
                raise MXNetError(f"All Parameters must be initialized on the same set of contexts, but Parameter "
                                 f"{param.name} is initialized on {ctx} while previous Parameters are "
                                 f"initialized on {contexts}.")
            contexts = ctx
        return contexts

    def _init_optimizer(self, optimizer, optimizer_params):
        param_dict = dict(enumerate(self._params))
        if isinstance(optimizer, opt.Optimizer):
            if optimizer_params:
                raise MXNetError("optimizer_params must be None if optimizer is an instance of Optimizer "
                                 "instead of str")
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict, **optimizer_params)
        self._updaters = [opt.get_updater(self._optimizer) for _ in self._contexts]

    def _init_params(self):
        """Initialise the kvstore keys of the Parameters waiting for it."""
        if not self._kv_initialized:
            raise MXNetError("Cannot initialize parameters in KVStore when KVStore is not initialized.")
        waiting = []
        if self._kvstore:
            for param in self._params_to_init:
                if param._deferred_init:
                    waiting.append(param)
                    continue
                arrays = param._check_and_get(param._data, list)
                index = self._param2idx[param.name]
                # every copy takes the first copy's value (MXNet's broadcast); copies that hold it
                # already are not written, so a forward recorded on them before this (deferred)
                # initialization can still be differentiated
                stale = [array for array in arrays if not _holds(array, arrays[0])]
                if param._stype != "default" or (not stale and hasattr(self._kvstore, "init")):
                    self._kvstore.init(index, arrays[0])
                else:
                    self._kvstore.broadcast(index, arrays[0], out=stale or arrays, priority=-index)
        self._params_to_init = waiting

    def _reset_kvstore(self):
        if self._kvstore and "dist" in self._kvstore.type:
            raise MXNetError("Cannot reset distributed KVStore.")
        self._kv_initialized = False
        self._kvstore = None
        self._distributed = None
        self._update_on_kvstore = None
        self._params_to_init = list(self._params)

    def _init_kvstore(self):
        config = self._kvstore_params
        if self._contains_sparse_weight:
            kvstore = config["kvstore"]
            if isinstance(kvstore, str):
                kvstore = kvs.create(kvstore)
            elif kvstore is not None and not isinstance(kvstore, KVStore):
                raise ValueError(f"Cannot use {type(kvstore).__name__} for training with sparse parameters")
            if kvstore is None:
                raise ValueError("Cannot train with sparse parameters without a kvstore")
            self._distributed = "dist" in kvstore.type
            # sparse weights live on the store, which runs the optimizer
            if config["update_on_kvstore"] is False:
                raise ValueError("Cannot set update_on_kvstore=False when sparse weights are present.")
            update_on_kvstore = True
            config = dict(config, update_on_kvstore=update_on_kvstore)
        elif self._contains_sparse_grad:
            arrays = {param.name: param._check_and_get(param._data, list)[0] for param in self._params}
            kvstore, _ = _create_kvstore(config["kvstore"], len(self._contexts), arrays)
            self._distributed = "dist" in kvstore.type if kvstore else False
            # single-node sparse gradients: reduce them and update on the workers (MXNet's choice)
            update_on_kvstore = self._distributed
            if config["update_on_kvstore"] is not None:
                if config["update_on_kvstore"] is False and self._distributed:
                    raise ValueError("Cannot set update_on_kvstore=False on dist kvstore when sparse gradients "
                                     "are present.")
                update_on_kvstore = config["update_on_kvstore"]
            if kvstore is not None and not isinstance(kvstore, KVStore):
                raise MXNetValueError(f"Cannot use {type(kvstore)} for multi-device training with sparse "
                                      f"gradients")
            config = dict(config, update_on_kvstore=update_on_kvstore)
        else:
            arrays = {param.name: param._check_and_get(param._data, list)[0] for param in self._params}
            kvstore, update_on_kvstore = _create_kvstore(config["kvstore"], len(self._contexts), arrays)
            self._distributed = "dist" in kvstore.type if kvstore else False
        if self._distributed and "async" in kvstore.type:
            update_on_kvstore = True
            if config["update_on_kvstore"] is False:
                raise ValueError("Please set update_on_kvstore=True when training in async mode.")
        elif config["update_on_kvstore"] is not None:
            update_on_kvstore = config["update_on_kvstore"]
        if update_on_kvstore and kvstore is not None and not kvstore.is_capable("optimizer"):
            # a store that runs no optimizer (TestStore, a user's KVStoreBase) updates on the workers
            if config["update_on_kvstore"]:
                raise MXNetValueError(f"Please set update_on_kvstore=False when training with {type(kvstore)}")
            update_on_kvstore = False
        if kvstore:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
            self._kvstore = kvstore
            self._update_on_kvstore = update_on_kvstore
        else:
            self._kvstore = None
            self._update_on_kvstore = None
        self._kv_initialized = True

    @property
    def learning_rate(self):
        """The optimizer's current learning rate."""
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning("Optimizer has to be defined before its learning rate can be accessed.")
        return self._optimizer.learning_rate

    @property
    def optimizer(self):
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning("Optimizer has not been initialized yet")
        return self._optimizer

    def set_learning_rate(self, lr):
        """Set the optimizer's learning rate (MXNetError when it has an lr_scheduler)."""
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning("Optimizer has to be defined before its learning rate is mutated.")
        self._optimizer.set_learning_rate(lr)

    def _batch_scale(self, batch_size, method):
        """``rescale_grad`` for ``step`` / ``update``: the Trainer's scale over ``batch_size``.
        A number, as in MXNet (negative and fractional sizes included); 0 would make every
        gradient infinite (MXNet: ZeroDivisionError, or -inf weights for a NumPy 0)."""
        zero_d = isinstance(batch_size, np.ndarray) and batch_size.ndim == 0 and batch_size.dtype.kind in "biuf"
        if not (isinstance(batch_size, numbers.Real) or zero_d):
            shape = getattr(batch_size, "shape", None)
            given = f"of shape {tuple(shape)}" if shape is not None else repr(batch_size)
            raise MXNetTypeError(f"Trainer.{method}: batch_size must be a number, the number of samples the "
                                 f"gradients were summed over (e.g. data.shape[0]), got "
                                 f"{type(batch_size).__name__} {given}")
        if batch_size == 0:
            raise MXNetValueError(f"Trainer.{method}: batch_size must not be 0 (gradients are scaled by "
                                  f"1 / batch_size); give the number of samples in the batch, got {batch_size!r}")
        return self._scale / batch_size

    def _check_and_rescale_grad(self, scale):
        if self._update_on_kvstore and self._distributed and self._kv_initialized:
            if self._optimizer.rescale_grad != scale:
                raise UserWarning("Possible change in the `batch_size` from previous `step` detected. Optimizer "
                                  "gradient normalizing factor will not change w.r.t new batch_size when "
                                  "update_on_kvstore=True and when distributed kvstore is used.")
        self._optimizer.rescale_grad = scale

    def _prepare(self):
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()

    def _row_sparse_pull(self, parameter, out, row_id, full_idx=False):
        """Pull the rows ``row_id`` of row_sparse ``parameter`` from the kvstore into ``out``
        (an array or a list); ``full_idx`` (every row) pulls the whole value in one copy."""
        self._prepare()
        index = self._param2idx[parameter.name]
        if full_idx and "dist" not in self._kvstore.type:
            self._kvstore.pull(index, out=out, priority=-index, ignore_sparse=False)
        else:
            self._kvstore.row_sparse_pull(index, out=out, row_ids=row_id, priority=-index)

    def step(self, batch_size, ignore_stale_grad=False):
        """One optimization step: gradients scaled by ``1 / batch_size``, reduced across
        contexts, then every Parameter updated."""
        self._check_and_rescale_grad(self._batch_scale(batch_size, "step"))
        self._prepare()
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        """Sum the gradients over the contexts (for ``update`` after editing them, e.g.
        gradient clipping).  Not available when the kvstore runs the optimizer."""
        self._prepare()
        if self._kvstore and self._update_on_kvstore:
            raise _UsageError("allreduce_grads() when parameters are updated on kvstore is not supported. Try "
                             "setting `update_on_kvstore` to False when creating trainer.")
        self._allreduce_grads()

    def _allreduce_grads(self):
        if not self._kvstore:
            return
        for index, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            key = self._param2idx[param.name]
            grads = param.list_grad()
            if param._grad_stype != "default":
                # MXNet's rule for sparse gradients: push, then pull into the dense weights (when
                # the store updates them) or the gradients; a row_sparse weight is pulled by rows
                # when it is next read (row_sparse_data)
                self._kvstore.push(key, grads, priority=-index)
                if param._stype == "default":
                    targets = param._check_and_get(param._data, list) if self._update_on_kvstore else grads
                    self._kvstore.pull(key, targets, priority=-index, ignore_sparse=self._distributed)
                continue
            if self._update_on_kvstore:
                self._kvstore.pushpull(key, grads, out=param._check_and_get(param._data, list), priority=-index)
            else:
                self._kvstore.pushpull(key, grads, out=grads, priority=-index)

    def update(self, batch_size, ignore_stale_grad=False):
        """The update half of ``step`` (after ``allreduce_grads``)."""
        self._prepare()
        if self._kvstore and self._update_on_kvstore:
            raise _UsageError("update() when parameters are updated on kvstore is not supported. Try setting "
                             "`update_on_kvstore` to False when creating trainer.")
        self._check_and_rescale_grad(self._batch_scale(batch_size, "update"))
        self._update(ignore_stale_grad)

    def _update(self, ignore_stale_grad=False):
        # dynamic loss scaling (mx.contrib.amp.init_trainer): a step whose gradients overflowed
        # is skipped, and the scaler lowers its scale
        loss_scaler = getattr(self, "_amp_loss_scaler", None)
        if loss_scaler is not None and loss_scaler.has_overflow(self._params):
            return
        updates = [[] for _ in self._updaters]
        for index, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            arrays = param._check_and_get(param._data, list)
            if not ignore_stale_grad:
                for array in arrays:
                    if not array._fresh_grad:
                        raise UserWarning(
                            f"Gradient of Parameter `{param.name}` on context {array.context} has not been "
                            f"updated by backward since last `step`. This could mean a bug in your model that "
                            f"made it only use a subset of the Parameters (Blocks) for this iteration. If you "
                            f"are intentionally only using a subset, call step with ignore_stale_grad=True to "
                            f"suppress this warning and skip updating of Parameters with stale gradient")
            if self._kvstore and self._update_on_kvstore:
                for array in arrays:
                    array._fresh_grad = False
                continue
            for pending, array, grad in zip(updates, arrays, param._check_and_get(param._grad, list)):
                if not ignore_stale_grad or array._fresh_grad:
                    pending.append((index, grad, array))
                    array._fresh_grad = False
        if self._kvstore and self._update_on_kvstore:
            return
        for updater, pending in zip(self._updaters, updates):
            if pending:
                indices, grads, weights = zip(*pending)
                updater(list(indices), list(grads), list(weights))

    def save_states(self, fname):
        """Write the optimizer states (and the optimizer) to ``fname`` in MXNet's ``.states``
        format."""
        self._prepare()
        if self._update_on_kvstore:
            if self._params_to_init:
                raise MXNetError("Cannot save trainer states when some parameters are not yet initialized in "
                                 "kvstore.")
            self._kvstore.save_optimizer_states(fname, dump_optimizer=True)
            return
        atomic_write(fname, self._updaters[0].get_states(dump_optimizer=True))

    def load_states(self, fname):
        """Read states written by ``save_states`` (or by MXNet); the optimizer saved with them
        replaces the current one."""
        self._prepare()
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            self._optimizer = self._kvstore._updater.optimizer
        else:
            with open(fname, "rb") as source:
                states = source.read()
            for updater in self._updaters:
                updater.set_states(states)
                updater.optimizer = self._updaters[0].optimizer
            self._optimizer = self._updaters[0].optimizer
        self._optimizer.param_dict = dict(enumerate(self._params))

# MXNet's module imported the sparse-kvstore factory from mxnet.model
from ..model import _create_sparse_kvstore  # noqa: E402,F401
