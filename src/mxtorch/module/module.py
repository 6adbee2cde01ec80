"""Module: a Symbol trained on one or more contexts (MXNet's ``mx.mod.Module``).

The private state (``_exec_group``, ``_arg_params``, ``_updater``, ...) has
MXNet's names and meaning, because legacy code (detection pipelines above
all) subclasses Module or replaces ``Module.bind`` and reads it.
"""
from __future__ import annotations

import logging
import warnings

import torch

from ..base import MXNetError
from ..context import Context, cpu

from ..ndarray.ndarray import NDArray
from ..util import atomic_write
from .base_module import (BaseModule, ModuleStateError, MXNetValueError, _attribute_property, _bound_property,
                          _check_input_names, _name_lists, _parse_data_desc, _as_list)  # noqa: F401
from .batch import batch_size_of, read_batch
from .executor_group import DataParallelExecutorGroup, is_per_device_shapes
# names MXNet 1.9.1's mxnet.module.module had in its namespace (imported there, not defined)
from ..initializer import InitDesc, Uniform  # noqa: E402,F401
from ..io import DataDesc  # noqa: E402,F401
from ..model import load_checkpoint  # noqa: E402,F401
from ..model import (_create_kvstore, _initialize_kvstore, _update_params,  # noqa: E402,F401
                     _update_params_on_kvstore)
from ..ndarray import zeros  # noqa: E402,F401

__all__ = ["Module"]


class Module(BaseModule):
    """Train or run ``symbol`` on ``context`` (a Context or a list of them).

    ``data_names`` must be arguments of the symbol; ``label_names`` that are not are
    ignored with a warning (MXNet's rule); every other argument is a parameter, except
    ``state_names`` (inputs kept across batches, set with ``set_states``).
    ``fixed_param_names`` get no gradient and are never updated.
    """

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",), logger=logging,
                 context=None, work_load_list=None, fixed_param_names=None, state_names=None, group2ctxs=None,
                 compression_params=None):
        super().__init__(logger=logger)
        from ..symbol import Symbol
        if not isinstance(symbol, Symbol):
            raise MXNetValueError(f"Module: symbol must be an mx.sym.Symbol, got {type(symbol).__name__}")
        if context is None:
            context = cpu()
        if isinstance(context, Context):
            context = [context]
        if not isinstance(context, (list, tuple)) or not context or \
                not all(isinstance(c, Context) for c in context):
            raise MXNetValueError(f"Module: context must be a Context or a non-empty list of Contexts "
                                  f"(mx.cpu(), mx.gpu(0)), got {context!r}")
        self._context = list(context)
        if work_load_list is None:
            work_load_list = [1] * len(self._context)
        if len(work_load_list) != len(self._context):
            raise MXNetValueError(f"Module: work_load_list has {len(work_load_list)} entries for "
                                  f"{len(self._context)} contexts")
        if any(not isinstance(w, (int, float)) or w <= 0 for w in work_load_list):
            raise MXNetValueError(f"Module: work_load_list entries must be positive numbers, got {work_load_list}")
        self._work_load_list = list(work_load_list)
        self._group2ctxs = group2ctxs
        self._symbol = symbol
        data_names, label_names, state_names, fixed_param_names = _name_lists(symbol, data_names, label_names,
                                                                              state_names, fixed_param_names)
        arg_names = symbol.list_arguments()
        input_names = data_names + label_names + state_names
        self._param_names = [x for x in arg_names if x not in input_names]
        self._fixed_param_names = fixed_param_names
        self._aux_names = symbol.list_auxiliary_states()
        self._data_names = data_names
        self._label_names = label_names
        self._state_names = state_names
        self._output_names = symbol.list_outputs()
        self._arg_params = None
        self._aux_params = None
        self._params_dirty = False
        self._compression_params = compression_params
        self._optimizer = None
        self._kvstore = None
        self._update_on_kvstore = None
        self._updater = None
        self._preload_opt_states = None
        self._grad_req = None
        self._exec_group = None
        self._data_shapes = None
        self._label_shapes = None
        # name -> optimizer index when buckets add parameters of their own (BucketingModule)
        self._param_index = None

    # -- checkpoints --------------------------------------------------------------------------------
    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs):
        """A Module from ``prefix-symbol.json`` and ``prefix-%04d.params``; parameters are
        set at bind time, optimizer states (``prefix-%04d.states``) at init_optimizer.
        Other keyword arguments go to the constructor."""
        from ..model import load_checkpoint
        symbol, args, auxs = load_checkpoint(prefix, epoch)
        module = Module(symbol=symbol, **kwargs)
        module._arg_params = args
        module._aux_params = auxs
        module.params_initialized = True
        if load_optimizer_states:
            module._preload_opt_states = "%s-%04d.states" % (prefix, epoch)
        return module

    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False, remove_amp_cast=True):
        """Write ``prefix-symbol.json``, ``prefix-%04d.params`` and optionally
        ``prefix-%04d.states`` as one group: if any write fails, none of the previous files
        is replaced, so they always match each other."""
        from ..model import save_checkpoint
        states = self._optimizer_states_bytes() if save_optimizer_states else None
        arg_params, aux_params = self.get_params()
        save_checkpoint(prefix, epoch, self._symbol, arg_params, aux_params, remove_amp_cast, states=states)
        if save_optimizer_states:
            logging.info('Saved optimizer state to "%s-%04d.states"', prefix, epoch)

    def _reset_bind(self):
        """Forget the binding (force_rebind)."""
        self.binded = False
        self._exec_group = None
        self._data_shapes = None
        self._label_shapes = None

    # -- properties ---------------------------------------------------------------------------------
    data_names = _attribute_property("_data_names")
    label_names = _attribute_property("_label_names")
    output_names = _attribute_property("_output_names")
    data_shapes = _bound_property("_data_shapes")
    label_shapes = _bound_property("_label_shapes")

    @property
    def output_shapes(self):
        self._require("output_shapes")
        return self._exec_group.get_output_shapes()

    # -- parameters ---------------------------------------------------------------------------------
    def get_params(self):
        """``(arg_params, aux_params)``: CPU copies, averaged over contexts."""
        self._require("get_params", params=True)
        if self._params_dirty:
            self._sync_params_from_devices()
        return self._arg_params, self._aux_params

    def init_params(self, initializer=None, arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        """Initialise parameters: values from ``arg_params`` / ``aux_params`` where given,
        else ``initializer`` (default ``Uniform(0.01)``); a parameter missing from given
        dicts raises MXNetError unless ``allow_missing``."""
        from ..initializer import InitDesc, Uniform
        if self.params_initialized and not force_init:
            warnings.warn("Parameters already initialized and force_init=False. init_params call ignored.",
                          stacklevel=2)
            return
        self._require("init_params")
        if initializer is None and arg_params is None and aux_params is None:
            initializer = Uniform(0.01)

        def _impl(name, array, cache):
            if cache is not None:
                if name in cache:
                    cached = cache[name]
                    if cached is not array:
                        if tuple(cached.shape) != array.shape:
                            raise MXNetError(f"init_params: {name!r} has shape {tuple(cached.shape)} in the "
                                             f"given parameters, the module is bound with {array.shape}")
                        array[:] = cached
                else:
                    if not allow_missing:
                        raise MXNetError(f"init_params: {name!r} is not presented in the given parameters "
                                         f"(pass allow_missing=True to initialize it)")
                    if initializer is not None:
                        initializer(name, array)
            else:
                initializer(name, array)

        attrs = self._symbol.attr_dict()
        for name, array in sorted(self._arg_params.items()):
            _impl(InitDesc(name, attrs.get(name, None)), array, arg_params)
        for name, array in sorted(self._aux_params.items()):
            _impl(InitDesc(name, attrs.get(name, None)), array, aux_params)
        self.params_initialized = True
        self._params_dirty = False
        self._exec_group.set_params(self._arg_params, self._aux_params, allow_extra=allow_extra)
        self._refresh_kvstore()

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True, allow_extra=False):
        """Assign parameter values (through ``init_params`` unless ``allow_missing``).
        Takes effect on every context and on the kvstore's copy (mxtorch; MXNet's kvstore
        kept a stale copy after init_optimizer on several contexts)."""
        if self._set_params_done_early(arg_params, aux_params, allow_missing, force_init, allow_extra):
            return
        self._exec_group.set_params(arg_params, aux_params, allow_extra=allow_extra)
        self._params_dirty = True
        self.params_initialized = True
        self._refresh_kvstore()

    def _refresh_kvstore(self):
        if self.optimizer_initialized and self._kvstore is not None and self._update_on_kvstore:
            overwrite = getattr(self._kvstore, "_overwrite", None)   # mxtorch stores; others keep MXNet's way
            if overwrite is None:
                return
            for name, block in zip(self._exec_group.param_names, self._exec_group.param_arrays):
                overwrite(name, block[0])

    def _sync_params_from_devices(self):
        self._exec_group.get_params(self._arg_params, self._aux_params)
        self._params_dirty = False

    # -- binding ---------------------------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Allocate executors for ``data_shapes`` (``[(name, shape)]`` / DataDesc, or one such
        list per context) and ``label_shapes``.  A second bind is ignored with a warning
        unless ``force_rebind``."""
        if self._keeps_binding(force_rebind):
            return
        if not for_training and inputs_need_grad:
            raise MXNetValueError("bind: inputs_need_grad=True requires for_training=True")
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        self._data_shapes, self._label_shapes = self._parse_shapes(data_shapes, label_shapes)
        shared_group = None
        if shared_module is not None:
            if not (isinstance(shared_module, Module) and shared_module.binded and shared_module.params_initialized):
                raise ModuleStateError("bind: shared_module must be a bound Module with initialized parameters")
            shared_group = shared_module._exec_group
            if len(shared_group.execs) < len(self._context):
                raise MXNetError("bind: shared_module has fewer contexts than this module")
        self._exec_group = DataParallelExecutorGroup(
            self._symbol, self._context, self._work_load_list, self._data_shapes, self._label_shapes,
            self._param_names, for_training, inputs_need_grad, shared_group, logger=self.logger,
            fixed_param_names=self._fixed_param_names, grad_req=grad_req, group2ctxs=self._group2ctxs,
            state_names=self._state_names)
        self._total_exec_bytes = self._exec_group._total_exec_bytes
        if shared_module is not None:
            self.params_initialized = True
            self._arg_params = shared_module._arg_params
            self._aux_params = shared_module._aux_params
        elif self.params_initialized:
            self._exec_group.set_params(self._arg_params, self._aux_params)
        else:
            # a parameter declared with stype='row_sparse' / 'csr' is held in that storage type,
            # as the executors bound it
            self._arg_params = {name: _cpu_zeros_like(block[0]).tostype(block[0].stype)
                                for name, block in zip(self._param_names, self._exec_group.param_arrays)}
            self._aux_params = {name: _cpu_zeros_like(block[0]) for name, block
                                in zip(self._aux_names, self._exec_group.aux_arrays)}
        if shared_module is not None and shared_module.optimizer_initialized:
            self.borrow_optimizer(shared_module)
        self.binded = True

    def _parse_shapes(self, data_shapes, label_shapes):
        if is_per_device_shapes(data_shapes):
            parsed_data, parsed_labels = [], []
            per_device_labels = label_shapes if label_shapes and is_per_device_shapes(label_shapes) \
                else [label_shapes] * len(data_shapes)
            for shapes, labels in zip(data_shapes, per_device_labels):
                data_i, label_i = _parse_data_desc(self.data_names, self.label_names, shapes, labels)
                parsed_data.append(data_i)
                parsed_labels.append(label_i)
            if len(parsed_data) != len(self._context):
                raise MXNetError(f"bind: {len(parsed_data)} per-device shape lists for {len(self._context)} contexts")
            return parsed_data, (parsed_labels if label_shapes else None)
        return _parse_data_desc(self.data_names, self.label_names, data_shapes, label_shapes)

    def reshape(self, data_shapes, label_shapes=None):
        """Re-bind for new input shapes, keeping parameters (and optimizer state)."""
        self._require("reshape")
        new_data_shapes, new_label_shapes = self._parse_shapes(data_shapes, label_shapes)
        self._exec_group.reshape(new_data_shapes, new_label_shapes)
        self._data_shapes, self._label_shapes = new_data_shapes, new_label_shapes

    # -- optimizer -------------------------------------------------------------------------------------
    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        """Create the optimizer (by name with ``optimizer_params`` or an Optimizer instance)
        and the kvstore; ``rescale_grad`` defaults to ``1 / batch_size``."""
        from .. import optimizer as opt
        from ..model import _create_kvstore, _initialize_kvstore
        if self._keeps_optimizer(force_init, warning="optimizer already initialized, ignoring..."):
            return
        if self._params_dirty:
            self._sync_params_from_devices()
        kvstore, update_on_kvstore = _create_kvstore(kvstore, len(self._context), self._arg_params)
        batch_size = self._exec_group.batch_size
        if kvstore and "dist" in kvstore.type and "_sync" in kvstore.type:
            batch_size *= kvstore.num_workers
        rescale_grad = 1.0 / batch_size
        idx2name = {}
        if update_on_kvstore:
            idx2name.update(enumerate(self._exec_group.param_names))
        else:
            for k in range(len(self._context)):
                idx2name.update({i * len(self._context) + k: n for i, n in enumerate(self._exec_group.param_names)})
        if isinstance(optimizer, str):
            optimizer_params = dict(optimizer_params)
            if "rescale_grad" not in optimizer_params:
                optimizer_params["rescale_grad"] = rescale_grad
            optimizer = opt.create(optimizer, sym=self.symbol, param_idx2name=idx2name, **optimizer_params)
        else:
            if not isinstance(optimizer, opt.Optimizer):
                raise MXNetValueError(f"init_optimizer: optimizer must be a name or an Optimizer, "
                                      f"got {type(optimizer).__name__}")
            if optimizer.rescale_grad != rescale_grad:
                warnings.warn(f"Optimizer created manually outside Module but rescale_grad is not normalized to "
                              f"1.0/batch_size/num_workers ({optimizer.rescale_grad} vs. {rescale_grad}). "
                              f"Is this intended?", stacklevel=2)
            if not optimizer.idx2name:
                optimizer.idx2name = idx2name.copy()
        self._optimizer = optimizer
        self._kvstore = kvstore
        self._update_on_kvstore = update_on_kvstore
        self._updater = None
        if kvstore:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
            _initialize_kvstore(kvstore=kvstore, param_arrays=self._exec_group.param_arrays,
                                arg_params=self._arg_params, param_names=self._param_names,
                                update_on_kvstore=update_on_kvstore)
        if not update_on_kvstore:
            self._updater = opt.get_updater(optimizer)
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    def borrow_optimizer(self, shared_module):
        """Use ``shared_module``'s optimizer, kvstore and updater (bucketing)."""
        if not shared_module.optimizer_initialized:
            raise ModuleStateError("borrow_optimizer: the shared module has no optimizer")
        self._optimizer = shared_module._optimizer
        self._kvstore = shared_module._kvstore
        self._update_on_kvstore = shared_module._update_on_kvstore
        self._updater = shared_module._updater
        self.optimizer_initialized = True

    # -- computation ------------------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Forward one batch (any form of ``module/batch.py``: a DataBatch of whole-batch arrays,
        a list of DataBatch with one per context, a DataBatch of per-context lists).  The batch
        is checked against ``data_names`` / ``label_names`` (MXNetError on a count mismatch) and
        converted once to per-context arrays; when its shapes differ from the bound ones the
        module re-binds first, sharing parameters (as MXNet's Module.forward does)."""
        self._require("forward", params=True)
        group = self._exec_group
        inputs = read_batch(data_batch, self._data_names, group.label_names, len(self._context))
        shapes = self._new_shapes(inputs)
        if shapes is not None:
            try:
                self.reshape(*shapes)
            except MXNetError as error:
                raise MXNetError(f"forward: the batch's data shapes {inputs.data_shapes()} differ from the bound "
                                 f"shapes {self._bound_shapes()} and cannot be re-bound: {error}") from None
        self._exec_group.forward(self._exec_group._split(inputs), is_train)

    def _bound_shapes(self):
        if self._exec_group.per_device:
            return [[tuple(d.shape) for d in device] for device in self._data_shapes]
        return [tuple(d.shape) for d in self._data_shapes]

    def _new_shapes(self, inputs):
        """``(data_shapes, label_shapes)`` to re-bind for ``inputs``, or None when they fit the
        binding.  A list of DataBatch on a whole-batch binding counts as one batch of its parts
        (MXNet's rule); a batch without labels keeps the bound labels, resized along their
        layouts' batch axes."""
        from ..io import DataDesc
        group = self._exec_group
        if not inputs.per_device or (inputs.from_list and not group.per_device):
            template = self._data_shapes[0] if group.per_device else self._data_shapes
            if inputs.per_device:
                incoming = []
                for position, desc in enumerate(template):
                    parts = {shapes[position] for shapes in inputs.data_shapes()}
                    if len(parts) != 1:
                        raise MXNetError(f"forward: the data batches of the list disagree on the shape of "
                                         f"input {desc.name!r}: {sorted(parts)}")
                    shape = list(parts.pop())
                    axis = DataDesc.get_batch_axis(desc.layout)
                    if axis >= 0:
                        shape[axis] *= len(inputs.data)
                    incoming.append(tuple(shape))
            else:
                incoming = inputs.data_shapes()
            if group.per_device or incoming == [tuple(d.shape) for d in template]:
                return None      # a whole batch on a per-device binding is cut by the bound slices
            data = inputs.provide_data or [DataDesc(d.name, s, d.dtype, d.layout) for d, s in zip(template, incoming)]
            return data, self._labels_for(inputs.provide_label, inputs.label if not inputs.per_device else None,
                                          self._label_shapes, data)
        incoming = inputs.data_shapes()
        if group.per_device and incoming == self._bound_shapes():
            return None
        template = self._data_shapes[0] if group.per_device else self._data_shapes
        data = [[DataDesc(d.name, s, d.dtype, d.layout) for d, s in zip(template, shapes)] for shapes in incoming]
        labels = None
        if self._label_shapes:
            bound = self._label_shapes[0] if group.per_device else self._label_shapes
            given = inputs.label or [None] * len(data)
            labels = [self._labels_for(None, arrays, bound, device) for arrays, device in zip(given, data)]
        return data, labels

    @staticmethod
    def _labels_for(provided, arrays, bound, data):
        """Label DataDescs for a re-bind: the batch's ``provide_label``, else its label arrays'
        shapes, else the bound labels with their batch axis set to the new data batch size."""
        from ..io import DataDesc
        if not bound:
            return None
        if provided:
            return provided
        if arrays:
            return [DataDesc(d.name, tuple(a.shape), d.dtype, d.layout) for d, a in zip(bound, arrays)]
        size = batch_size_of([(d.name, d.shape) for d in data], [DataDesc.get_batch_axis(d.layout) for d in data])
        result = []
        for desc in bound:
            shape = list(desc.shape)
            axis = DataDesc.get_batch_axis(desc.layout)
            if size is not None and 0 <= axis < len(shape):
                shape[axis] = size
            result.append(DataDesc(desc.name, tuple(shape), desc.dtype, desc.layout))
        return result

    def backward(self, out_grads=None):
        """Backward through every context; ``out_grads`` only for non-loss outputs."""
        self._require("backward", params=True)
        self._exec_group.backward(out_grads=out_grads)

    def update(self):
        """Apply the optimizer to every parameter with the gradients of the last backward."""
        from ..model import _update_params, _update_params_on_kvstore
        self._require("update", params=True, optimizer=True)
        self._params_dirty = True
        if self._update_on_kvstore:
            _update_params_on_kvstore(self._exec_group.param_arrays, self._exec_group.grad_arrays,
                                      self._kvstore, self._exec_group.param_names)
        else:
            _update_params(self._exec_group.param_arrays, self._exec_group.grad_arrays, updater=self._updater,
                           num_device=len(self._context), kvstore=self._kvstore,
                           param_names=self._exec_group.param_names, param_index=self._param_index)

    def get_outputs(self, merge_multi_context=True):
        """Outputs of the last forward: a list of NDArrays (merged over contexts) or, with
        ``merge_multi_context=False``, a list per output of per-context arrays."""
        self._require("get_outputs", params=True)
        return self._exec_group.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        """Gradients of the data inputs (bind with ``inputs_need_grad=True``)."""
        self._require("get_input_grads", params=True)
        if not self.inputs_need_grad:
            raise ModuleStateError("get_input_grads: bind with inputs_need_grad=True first")
        return self._exec_group.get_input_grads(merge_multi_context=merge_multi_context)

    def get_states(self, merge_multi_context=True):
        self._require("get_states", params=True)
        return self._exec_group.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None):
        self._require("set_states", params=True)
        self._exec_group.set_states(states, value)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with ``labels`` and the last outputs (padding excluded)."""
        self._exec_group.update_metric(eval_metric, labels, pre_sliced)

    def save_optimizer_states(self, fname):
        """Write the optimizer states in MXNet's ``.states`` format (atomic)."""
        atomic_write(fname, self._optimizer_states_bytes())

    def _optimizer_states_bytes(self):
        """The ``.states`` payload of the updater (on the kvstore when it runs the optimizer)."""
        self._require("save_optimizer_states", optimizer=True)
        if self._update_on_kvstore:
            updater = getattr(self._kvstore, "_updater", None)
            if updater is None:
                raise MXNetError("save_optimizer_states: the kvstore runs the optimizer but exposes no updater")
            return updater.get_states(False)
        return self._updater.get_states()

    def load_optimizer_states(self, fname):
        """Read optimizer states written by ``save_optimizer_states`` (or by MXNet)."""
        self._require("load_optimizer_states", optimizer=True)
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            return
        try:
            with open(fname, "rb") as handle:
                payload = handle.read()
        except OSError as error:
            raise MXNetError(f"load_optimizer_states: cannot read {fname!r}: {error}") from None
        try:
            self._updater.set_states(payload)
        except MXNetError as error:
            raise MXNetError(f"load_optimizer_states: {fname!r}: {error}") from None

    def install_monitor(self, mon):
        """Install a Monitor on every executor."""
        self._require("install_monitor")
        self._exec_group.install_monitor(mon)

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Hook run before each forward (MXNet's): with ``sparse_row_id_fn`` and the optimizer
        on the kvstore, ``sparse_row_id_fn(data_batch)`` must return ``{param_name: row_ids}``
        and the rows of 'row_sparse' parameters are pulled from the kvstore.  mxtorch
        parameters are dense, so each named parameter gives MXNet's UserWarning that no pull
        is needed; without the optimizer on a kvstore the function is not called (UserWarning)."""
        self._require("prepare")
        if sparse_row_id_fn is None:
            return
        if not self._kvstore or not self._update_on_kvstore:
            warnings.warn(UserWarning("Parameters are not updated in the KVStore. "
                                      "No need to call sparse_row_id_fn."), stacklevel=2)
            return
        row_ids = sparse_row_id_fn(data_batch)
        if not isinstance(row_ids, dict):
            raise MXNetError(f"prepare: sparse_row_id_fn must return a dict {{param_name: row_ids}}, got "
                             f"{type(row_ids).__name__}")
        for name, rows in row_ids.items():
            if name not in self._exec_group.param_names:
                raise MXNetError(f"prepare: sparse_row_id_fn returned row ids for {name!r}, which is not a "
                                 f"parameter; parameters are {self._exec_group.param_names}")
            arrays = self._exec_group.param_arrays[self._exec_group.param_names.index(name)]
            if arrays[0].stype != "row_sparse":
                warnings.warn(UserWarning(f"{name}.stype is not 'row_sparse'. No need to perform "
                                          f"row_sparse_pull."), stacklevel=2)
            else:
                self._kvstore.row_sparse_pull(name, arrays, row_ids=rows,
                                              priority=-self._exec_group.param_names.index(name))


def _cpu_zeros_like(array):
    return NDArray(torch.zeros(array.shape, dtype=array._tensor.dtype), cpu())
