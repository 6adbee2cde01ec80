"""``SVRGModule``: a Module trained with stochastic variance-reduced gradients (MXNet's
``mx.contrib.svrg_optimization.svrg_module``).

Every ``update_freq`` epochs the module takes a snapshot of its weights (held by a second
Module, ``_mod_aux``) and the average gradient of the whole training set at that snapshot
(``_param_dict``, one dict per context).  Each training step then uses

    g = grad(batch, weights) - grad(batch, snapshot) + full_grad(snapshot)

in place of ``grad(batch, weights)``, an unbiased gradient of lower variance (Johnson & Zhang,
"Accelerating Stochastic Gradient Descent using Predictive Variance Reduction", NIPS 2013).
With a KVStore, the full gradients are also accumulated under the keys ``<param>_full``.
"""
from __future__ import annotations

import logging

from ...base import MXNetError
from ...context import cpu
from ...model import _create_kvstore
from ...module.module import Module
from ... import ndarray as nd
from .svrg_optimizer import _SVRGOptimizer

__all__ = ["SVRGModule"]


class SVRGModule(Module):
    """A Module with SVRG updates; the arguments are Module's plus ``update_freq`` (int > 0:
    the full gradients are recomputed every ``update_freq`` epochs of ``fit``).

    Raises TypeError when ``update_freq`` is not an int and ValueError when it is not
    positive, as MXNet did.
    """

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",), logger=logging,
                 context=cpu(), work_load_list=None, fixed_param_names=None, state_names=None, group2ctxs=None,
                 compression_params=None, update_freq=None):
        super().__init__(symbol, data_names=data_names, label_names=label_names, logger=logger, context=context,
                         work_load_list=work_load_list, fixed_param_names=fixed_param_names,
                         state_names=state_names, group2ctxs=group2ctxs, compression_params=compression_params)
        if not isinstance(update_freq, int) or isinstance(update_freq, bool):
            raise TypeError(f"update_freq in SVRGModule must be an integer to represent the frequency for "
                            f"calculating full gradients, got {update_freq!r}")
        if update_freq <= 0:
            raise ValueError(f"update_freq in SVRGModule must be a positive integer to represent the frequency "
                             f"for calculating full gradients, got {update_freq}")
        self.update_freq = update_freq
        self._mod_aux = Module(symbol, data_names, label_names, logger, context, work_load_list, fixed_param_names,
                               state_names, group2ctxs, compression_params)
        self._param_dict = None
        self._ctx_len = len(self._context)

    # -- life cycle: both modules ----------------------------------------------------------------
    def _reset_bind(self):
        super()._reset_bind()
        self._mod_aux._reset_bind()

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req="write"):
        """Bind this module and, for training, the snapshot module with the same shapes."""
        super().bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind, shared_module,
                     grad_req)
        if for_training:
            self._mod_aux.bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind,
                               shared_module, grad_req)

    def reshape(self, data_shapes, label_shapes=None):
        super().reshape(data_shapes, label_shapes=label_shapes)
        if self._mod_aux.binded:
            self._mod_aux.reshape(data_shapes, label_shapes=label_shapes)

    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        """Install an ``_SVRGOptimizer`` wrapping ``optimizer`` (name or Optimizer), with
        ``rescale_grad = 1 / batch_size`` unless given, and zeroed full gradients; with a
        KVStore the ``<param>_full`` keys are initialised too."""
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring...")
            return
        arg_params = self.get_params()[0]
        self._param_dict = [{name: nd.zeros(value.shape, ctx=self._context[i], dtype=value.dtype)
                             for name, value in arg_params.items()} for i in range(self._ctx_len)]
        kv, update_on_kvstore = _create_kvstore(kvstore, self._ctx_len, arg_params)
        batch_size = self._exec_group.batch_size
        if kv is not None and "dist" in kv.type and "_sync" in kv.type:
            batch_size *= kv.num_workers
        names = self._exec_group.param_names
        if update_on_kvstore:
            idx2name = dict(enumerate(names))
        else:
            idx2name = {i * self._ctx_len + k: n for i, n in enumerate(names) for k in range(self._ctx_len)}
        for name in self._param_dict[0]:
            idx2name[max(idx2name, default=-1) + 1] = name + "_full"
        params = dict(optimizer_params)
        params.setdefault("rescale_grad", 1.0 / batch_size)
        params["param_idx2name"] = idx2name
        svrg = _SVRGOptimizer(default_optimizer=optimizer, **params)
        super().init_optimizer(kvstore=kv if kv is not None else kvstore, optimizer=svrg,
                               optimizer_params=optimizer_params, force_init=True)
        if self._kvstore:
            for index, name in enumerate(names):
                self._kvstore.init(name + "_full", nd.zeros(arg_params[name].shape))
                if self._update_on_kvstore:
                    self._kvstore.pull(name + "_full", self._exec_group.param_arrays[index], priority=-index,
                                       ignore_sparse=False)

    def forward(self, data_batch, is_train=None):
        """Forward this module; in training also the snapshot module on the same batch."""
        super().forward(data_batch, is_train)
        if is_train is None:
            is_train = self.for_training
        if is_train and self._mod_aux.binded:
            self._mod_aux.forward(data_batch, is_train=True)

    def backward(self, out_grads=None):
        super().backward(out_grads)
        if self._mod_aux.binded:
            self._mod_aux.backward(out_grads)

    def update(self):
        """Replace each gradient by the SVRG gradient, then update as Module does."""
        self._update_svrg_gradients()
        super().update()

    def prepare(self, data_batch, sparse_row_id_fn=None):
        super().prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        if self._mod_aux.binded:
            self._mod_aux.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)

    # -- SVRG ------------------------------------------------------------------------------------
    def update_full_grads(self, train_data):
        """Snapshot the current weights into ``_mod_aux`` and store in ``_param_dict`` the mean
        gradient over one pass of ``train_data`` (reset first; a padded last batch counts as
        the fraction of real samples it holds)."""
        if self._param_dict is None:
            raise MXNetError("SVRGModule.update_full_grads: call init_optimizer (or fit) first")
        names = self._exec_group.param_names
        arg_params, aux_params = self.get_params()
        self._mod_aux.set_params(arg_params=arg_params, aux_params=aux_params)
        for per_context in self._param_dict:
            for name in per_context:
                per_context[name][:] = 0
        train_data.reset()
        batches = 0
        padding = 0
        for batch in train_data:
            self._mod_aux.forward(batch, is_train=True)
            self._mod_aux.backward()
            batches += 1
            for ctx_index in range(self._ctx_len):
                for index, name in enumerate(names):
                    grad = self._mod_aux._exec_group.grad_arrays[index][ctx_index]
                    self._param_dict[ctx_index][name] = self._param_dict[ctx_index][name] + grad
            padding = batch.pad or 0
        if batches == 0:
            raise MXNetError("SVRGModule.update_full_grads: the training iterator produced no batch")
        true_batches = batches - padding / train_data.batch_size
        for name in names:
            values = []
            for ctx_index in range(self._ctx_len):
                self._param_dict[ctx_index][name] = self._param_dict[ctx_index][name] / true_batches
                values.append(self._param_dict[ctx_index][name])
            if self._kvstore:
                self._accumulate_kvstore(name, values)

    def _accumulate_kvstore(self, key, value):
        """Sum the full gradients of every device and worker under ``<key>_full`` and hand each
        device the mean over devices."""
        self._kvstore.push(key + "_full", value)
        if hasattr(self._kvstore, "_barrier"):
            self._kvstore._barrier()
        self._kvstore.pull(key + "_full", value, ignore_sparse=False)
        self._allocate_gradients(key, value)

    def _allocate_gradients(self, key, value):
        for ctx_index in range(self._ctx_len):
            self._param_dict[ctx_index][key] = value[ctx_index] / self._ctx_len

    @staticmethod
    def _svrg_grads_update_rule(g_curr_batch_curr_weight, g_curr_batch_special_weight,
                                g_special_weight_all_batch):
        """In place on the first list: ``g_batch(w) - g_batch(snapshot) + g_full(snapshot)``."""
        for index, grad in enumerate(g_curr_batch_curr_weight):
            grad -= g_curr_batch_special_weight[index]
            grad += g_special_weight_all_batch[index]
        return g_curr_batch_curr_weight

    def _update_svrg_gradients(self):
        names = self._exec_group.param_names
        for ctx_index in range(self._ctx_len):
            for index, name in enumerate(names):
                grad = self._exec_group.grad_arrays[index][ctx_index]
                snapshot_grad = self._mod_aux._exec_group.grad_arrays[index][ctx_index]
                grad -= snapshot_grad
                grad += self._param_dict[ctx_index][name]

    def _begin_fit_epoch(self, epoch, train_data):
        """``fit`` hook: recompute the full gradients every ``update_freq`` epochs."""
        if epoch % self.update_freq == 0:
            self.update_full_grads(train_data)
            train_data.reset()
