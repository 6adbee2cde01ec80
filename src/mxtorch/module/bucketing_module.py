"""BucketingModule: one Module per bucket key, all sharing parameters and the optimizer.

``sym_gen(bucket_key) -> (symbol, data_names, label_names)`` builds the graph of a bucket
(an unrolled RNN for a sequence length, say).  The default bucket is bound first; a batch
with another ``bucket_key`` binds that bucket's Module with ``shared_module`` set to the
default one, so parameters, gradients and optimizer states are shared.

Deliberate difference from MXNet 1.9.1: buckets need not use exactly the same parameters.
Parameters a bucket adds are initialised with the initializer given to ``init_params``
and get optimizer state of their own (MXNet failed to bind such a bucket).
"""
from __future__ import annotations

import logging
import warnings  # noqa: F401  (a name of MXNet's mxnet.module.bucketing_module)

from ..base import MXNetError
from ..context import cpu
from .base_module import CurrentModuleDelegate, _check_input_names, _name_lists  # noqa: F401
from .module import Module
# names MXNet 1.9.1's mxnet.module.bucketing_module had in its namespace (imported there, not defined)
from ..initializer import Uniform  # noqa: E402,F401
from ..model import load_params  # noqa: E402,F401
from ..name import NameManager  # noqa: E402,F401
from .base_module import BaseModule  # noqa: E402,F401

__all__ = ["BucketingModule"]


class BucketingModule(CurrentModuleDelegate):
    """Train a family of symbols indexed by a bucket key (MXNet's ``mx.mod.BucketingModule``).

    ``default_bucket_key`` (required) is the bucket bound by ``bind``; it should be the
    largest one.  Other arguments as for :class:`Module`.
    """

    def __init__(self, sym_gen, default_bucket_key=None, logger=logging, context=None, work_load_list=None,
                 fixed_param_names=None, state_names=None, group2ctxs=None, compression_params=None):
        super().__init__(logger=logger)
        if default_bucket_key is None:
            raise MXNetError("BucketingModule: default_bucket_key is required")
        self._default_bucket_key = default_bucket_key
        self._sym_gen = sym_gen
        symbol, data_names, label_names = self._call_sym_gen(default_bucket_key)
        data_names, label_names, state_names, fixed_param_names = _name_lists(symbol, data_names, label_names,
                                                                              state_names, fixed_param_names)
        self._compression_params = compression_params
        self._fixed_param_names = fixed_param_names
        self._state_names = state_names
        self._context = context if context is not None else cpu()
        self._work_load_list = work_load_list
        self._group2ctxs = group2ctxs
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None
        self._params_dirty = False
        self._monitor = None
        self._grad_req = None
        self._initializer = None
        self._arg_params = None
        self._aux_params = None
        self._preload_opt_states = None

    def _call_sym_gen(self, *args, **kwargs):
        # a fresh NameManager per call, as in MXNet: every bucket's automatic names
        # (embedding0, fullyconnected0, ...) are the same whatever was built before
        from ..name import NameManager
        with NameManager():
            result = self._sym_gen(*args, **kwargs)
        if not isinstance(result, (tuple, list)) or len(result) != 3:
            raise MXNetError("BucketingModule: sym_gen must return (symbol, data_names, label_names)")
        return result

    def _reset_bind(self):
        self.binded = False
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None

    # -- properties ------------------------------------------------------------------------------
    @property
    def data_names(self):
        if self.binded:
            return self._curr_module.data_names
        return list(self._call_sym_gen(self._default_bucket_key)[1])

    @property
    def output_names(self):
        if self.binded:
            return self._curr_module.output_names
        return self._call_sym_gen(self._default_bucket_key)[0].list_outputs()

    @property
    def symbol(self):
        self._require("symbol")
        return self._curr_module.symbol

    # -- parameters -------------------------------------------------------------------------------
    def get_params(self):
        self._require("get_params", params=True)
        self._curr_module._params_dirty = self._params_dirty or self._curr_module._params_dirty
        params = self._curr_module.get_params()
        self._params_dirty = False
        return params

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True, allow_extra=False):
        if self._set_params_done_early(arg_params, aux_params, allow_missing, force_init, allow_extra):
            return
        self._curr_module.set_params(arg_params, aux_params, allow_missing=allow_missing, force_init=force_init,
                                     allow_extra=allow_extra)
        self._params_dirty = True
        self.params_initialized = True

    def init_params(self, initializer=None, arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        if self.params_initialized and not force_init:
            return
        self._require("init_params")
        if initializer is not None:
            self._initializer = initializer
        self._curr_module.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                                      allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = False
        self.params_initialized = True


    # -- binding -----------------------------------------------------------------------------------
    def _new_module(self, bucket_key):
        symbol, data_names, label_names = self._call_sym_gen(bucket_key)
        return Module(symbol, data_names, label_names, logger=self.logger, context=self._context,
                      work_load_list=self._work_load_list, fixed_param_names=self._fixed_param_names,
                      state_names=self._state_names, group2ctxs=self._group2ctxs,
                      compression_params=self._compression_params)

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Bind the default bucket (parameters loaded with ``load`` are kept)."""
        arg_params = aux_params = None
        if self.params_initialized:
            if self.binded:
                arg_params, aux_params = self.get_params()
            else:
                arg_params, aux_params = self._arg_params, self._aux_params
        if self._keeps_binding(force_rebind):
            return
        if shared_module is not None:
            raise MXNetError("BucketingModule.bind: shared_module is not supported")
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.binded = True
        self._grad_req = grad_req
        module = self._new_module(self._default_bucket_key)
        module.bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind=False,
                    shared_module=None, grad_req=grad_req)
        self._curr_module = module
        self._curr_bucket_key = self._default_bucket_key
        self._buckets[self._default_bucket_key] = module
        if arg_params is not None:
            self.set_params(arg_params, aux_params)

    def switch_bucket(self, bucket_key, data_shapes, label_shapes=None):
        """Make ``bucket_key`` current, binding its Module (shared with the default bucket)
        the first time it is seen."""
        self._require("switch_bucket")
        if bucket_key not in self._buckets:
            if data_shapes is None:
                raise MXNetError(f"switch_bucket: bucket {bucket_key!r} is not bound yet; give its data_shapes")
            default = self._buckets[self._default_bucket_key]
            module = self._new_module(bucket_key)
            module.bind(data_shapes, label_shapes, self._curr_module.for_training, self._curr_module.inputs_need_grad,
                        force_rebind=False, shared_module=default, grad_req=self._grad_req)
            self._adopt_new_parameters(module, default)
            if self._monitor is not None:
                module.install_monitor(self._monitor)
            if default.optimizer_initialized:
                module.borrow_optimizer(default)
            self._buckets[bucket_key] = module
        elif data_shapes is not None:
            module = self._buckets[bucket_key]
            given = [tuple(d[1]) for d in data_shapes]
            if given != [tuple(d.shape) for d in module.data_shapes]:
                module.reshape(data_shapes, label_shapes)
        self._curr_module = self._buckets[bucket_key]
        self._curr_bucket_key = bucket_key

    def _adopt_new_parameters(self, module, default):
        """Initialise parameters only this bucket has and register them with the shared dicts,
        giving them optimizer indices after the default bucket's."""
        from ..initializer import InitDesc, Uniform
        shared = default._arg_params
        new_names = [name for name in module._param_names if name not in shared]
        new_aux = [name for name in module._aux_names if name not in default._aux_params]
        if not new_names and not new_aux:
            return
        initializer = self._initializer or Uniform(0.01)
        attrs = module.symbol.attr_dict()
        group = module._exec_group
        for name, block in zip(group.param_names, group.param_arrays):
            if name in new_names:
                initializer(InitDesc(name, attrs.get(name)), block[0])
                for array in block[1:]:
                    array[:] = block[0]
                shared[name] = block[0].copyto(cpu())
        for name, block in zip(group.aux_names, group.aux_arrays):
            if name in new_aux:
                initializer(InitDesc(name, attrs.get(name)), block[0])
                default._aux_params[name] = block[0].copyto(cpu())
        order = list(default._param_names)
        order += [name for name in self._all_bucket_params() if name not in order]
        order += [name for name in new_names if name not in order]
        module._param_index = {name: order.index(name) for name in module._param_names}

    def _all_bucket_params(self):
        names = []
        for module in self._buckets.values():
            names.extend(n for n in module._param_names if n not in names)
        return names

    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        if self._keeps_optimizer(force_init):
            return
        self._curr_module.init_optimizer(kvstore, optimizer, optimizer_params, force_init=force_init)
        for module in self._buckets.values():
            if module is not self._curr_module:
                module.borrow_optimizer(self._curr_module)
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self._curr_module.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    # -- computation ---------------------------------------------------------------------------------
    def prepare(self, data_batch, sparse_row_id_fn=None):
        self._require("prepare")
        original = self._curr_bucket_key
        self.switch_bucket(data_batch.bucket_key, data_batch.provide_data, data_batch.provide_label)
        self._curr_module.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        self.switch_bucket(original, None, None)

    def forward(self, data_batch, is_train=None):
        """Switch to the batch's ``bucket_key`` (binding it if new) and forward."""
        self._require("forward", params=True)
        bucket_key = getattr(data_batch, "bucket_key", None)
        if bucket_key is None:
            bucket_key = self._default_bucket_key
        provide_data = getattr(data_batch, "provide_data", None)
        if not provide_data:
            names = self._call_sym_gen(bucket_key)[1]
            provide_data = [(name, tuple(array.shape)) for name, array in zip(names, data_batch.data)]
        self.switch_bucket(bucket_key, provide_data, getattr(data_batch, "provide_label", None))
        self._curr_module.forward(data_batch, is_train=is_train)

    def update(self):
        self._require("update", params=True, optimizer=True)
        self._params_dirty = True
        self._curr_module.update()

    def install_monitor(self, mon):
        self._require("install_monitor")
        self._monitor = mon
        for module in self._buckets.values():
            module.install_monitor(mon)

    # -- checkpoints ------------------------------------------------------------------------------------
    def save_checkpoint(self, prefix, epoch, remove_amp_cast=False):
        """Write ``prefix-<key>-symbol.json`` per bucket, ``prefix-%04d.params`` and
        ``prefix.buckets`` (the bucket keys as an int32 array, MXNet's layout)."""
        from .. import ndarray as nd
        from ..model import skips_checkpoint, write_checkpoint_group
        from ..ndarray.serialization import to_bytes
        if skips_checkpoint(prefix, epoch):
            return
        if not self._buckets:
            raise MXNetError("save_checkpoint: an empty BucketingModule cannot be saved")
        keys = list(self._buckets)
        if not all(isinstance(key, int) for key in keys):
            raise MXNetError(f"save_checkpoint: bucket keys must be integers to be saved, got {keys}")
        symbols = [(f"{prefix}-{key}-symbol.json", module.symbol) for key, module in self._buckets.items()]
        buckets = (f"{prefix}.buckets", to_bytes([nd.array(keys, dtype="int32")]))
        # the same journaled group write as model.save_checkpoint: a killed save is completed
        # by the next save or load of the prefix, never left as a mix of two saves
        write_checkpoint_group(prefix, epoch, symbols, *self.get_params(), extra=[buckets],
                               remove_amp_cast=remove_amp_cast)

    @staticmethod
    def load(prefix, epoch, sym_gen=None, default_bucket_key=None, **kwargs):
        """A BucketingModule from ``save_checkpoint`` files; without ``sym_gen`` the saved
        bucket symbols are used (data/label names from ``data_names`` / ``label_names``
        keyword arguments, default ``('data',)`` / ``('softmax_label',)``)."""
        from .. import ndarray as nd
        from .. import symbol as sym
        from ..model import checkpoint_journal, load_params
        from ..util import recover_group
        recover_group(checkpoint_journal(prefix), [f"{prefix}.buckets", "%s-%04d.params" % (prefix, epoch)])
        keys = [int(k) for k in nd.load(f"{prefix}.buckets")[0].asnumpy().tolist()]
        if default_bucket_key is None:
            if not keys:
                raise MXNetError(f"BucketingModule.load: {prefix}.buckets lists no bucket")
            default_bucket_key = max(keys)
        if sym_gen is None:
            data_names = kwargs.pop("data_names", ("data",))
            label_names = kwargs.pop("label_names", ("softmax_label",))
            symbols = {key: sym.load(f"{prefix}-{key}-symbol.json") for key in keys}

            def sym_gen(key):
                if key not in symbols:
                    raise MXNetError(f"BucketingModule: no saved symbol for bucket {key!r}; saved: {keys}")
                return symbols[key], data_names, label_names
        module = BucketingModule(sym_gen=sym_gen, default_bucket_key=default_bucket_key, **kwargs)
        module._arg_params, module._aux_params = load_params(prefix, epoch)
        module.params_initialized = True
        return module
