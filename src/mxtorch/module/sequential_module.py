"""SequentialModule: modules chained so that each one's outputs are the next one's data."""
from __future__ import annotations

import copy
import logging

from ..base import MXNetError
from .base_module import BaseModule, _bound_property
# names MXNet 1.9.1's mxnet.module.sequential_module had in its namespace (imported there, not defined)
from ..initializer import Uniform  # noqa: E402,F401

__all__ = ["SequentialModule"]


class SequentialModule(BaseModule):
    """A chain of modules (MXNet's ``mx.mod.SequentialModule``).

    ``add(module, take_labels=True)`` gives that module the labels (for its loss and the
    metric); ``add(module, auto_wiring=True)`` renames the incoming outputs to the
    module's ``data_names``.  Every module after the first is bound with
    ``inputs_need_grad`` so gradients flow back through the chain.
    """

    META_TAKE_LABELS = "take_labels"
    META_AUTO_WIRING = "auto_wiring"

    def __init__(self, logger=logging):
        super().__init__(logger=logger)
        self._modules = []
        self._metas = []
        self._label_shapes = None
        self._data_shapes = None
        self._meta_keys = {SequentialModule.META_TAKE_LABELS, SequentialModule.META_AUTO_WIRING}

    def add(self, module, **kwargs):
        """Append ``module``; returns self so calls chain.  Resets the bound state."""
        unknown = set(kwargs) - self._meta_keys
        if unknown:
            raise MXNetError(f"SequentialModule.add: unknown meta keys {sorted(unknown)}; "
                             f"valid keys are {sorted(self._meta_keys)}")
        self._modules.append(module)
        self._metas.append(kwargs)
        self.binded = False
        self.params_initialized = False
        self.optimizer_initialized = False
        return self

    @property
    def data_names(self):
        return self._modules[0].data_names if self._modules else []

    @property
    def output_names(self):
        return self._modules[-1].output_names if self._modules else []

    @property
    def data_shapes(self):
        self._require("data_shapes")
        return self._modules[0].data_shapes

    label_shapes = _bound_property("_label_shapes")

    @property
    def output_shapes(self):
        self._require("output_shapes")
        return self._modules[-1].output_shapes

    def get_params(self):
        """All modules' parameters merged into two dicts."""
        self._require("get_params", params=True)
        arg_params, aux_params = {}, {}
        for module in self._modules:
            args, auxs = module.get_params()
            arg_params.update(args)
            aux_params.update(auxs)
        return arg_params, aux_params

    def init_params(self, initializer=None, arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        if self.params_initialized and not force_init:
            return
        self._require("init_params")
        for module in self._modules:
            module.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                               allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)
        owners = {}
        for index, module in enumerate(self._modules):
            args, auxs = module.get_params()
            for name in list(args) + list(auxs):
                if name in owners:
                    raise MXNetError(f"SequentialModule: parameter {name!r} appears in module {owners[name]} and "
                                     f"module {index}; parameter names must be unique")
                owners[name] = index
        self.params_initialized = True

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Bind each module to the previous one's output shapes."""
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if inputs_need_grad and not for_training:
            raise MXNetError("bind: inputs_need_grad=True requires for_training=True")
        if shared_module is not None:
            raise MXNetError("SequentialModule.bind: shared_module is not supported")
        if not self._modules:
            raise MXNetError("SequentialModule.bind: add at least one module first")
        self.binded = True
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._label_shapes = label_shapes
        current_shapes = data_shapes
        anybody_needs_label = False
        for index, module in enumerate(self._modules):
            meta = self._metas[index]
            if meta.get(SequentialModule.META_TAKE_LABELS, False):
                module_labels = label_shapes
                anybody_needs_label = True
            else:
                module_labels = None
            needs_grad = bool(inputs_need_grad or (for_training and index > 0))
            if meta.get(SequentialModule.META_AUTO_WIRING, False):
                names = module.data_names
                if len(names) != len(current_shapes):
                    raise MXNetError(f"SequentialModule: module {index} takes {len(names)} inputs {names}, the "
                                     f"previous module gives {len(current_shapes)}")
                current_shapes = [(name, tuple(shape[1])) for name, shape in zip(names, current_shapes)]
            module.bind(data_shapes=current_shapes, label_shapes=module_labels, for_training=for_training,
                        inputs_need_grad=needs_grad, force_rebind=force_rebind, shared_module=None,
                        grad_req=grad_req)
            current_shapes = module.output_shapes
        if not anybody_needs_label:
            self._label_shapes = None

    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        if self._keeps_optimizer(force_init):
            return
        for module in self._modules:
            module.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params,
                                  force_init=force_init)
        self.optimizer_initialized = True

    def forward(self, data_batch, is_train=None):
        """Forward through the chain; each module's outputs become the next batch's data."""
        self._require("forward", params=True)
        data_batch = copy.copy(data_batch)
        for index, module in enumerate(self._modules):
            module.forward(data_batch, is_train=is_train)
            if index + 1 == len(self._modules):
                break
            data_batch.data = module.get_outputs()
            if hasattr(data_batch, "provide_data"):
                names = [x[0] for x in module.output_shapes]
                data_batch.provide_data = [(name, x.shape) for name, x in zip(names, data_batch.data)]

    def backward(self, out_grads=None):
        """Backward from the last module to the first, passing input gradients down."""
        self._require("backward", params=True)
        for index in reversed(range(len(self._modules))):
            module = self._modules[index]
            module.backward(out_grads=out_grads)
            if index == 0:
                break
            out_grads = module.get_input_grads()

    def update(self):
        self._require("update", params=True, optimizer=True)
        for module in self._modules:
            module.update()

    def get_outputs(self, merge_multi_context=True):
        self._require("get_outputs", params=True)
        return self._modules[-1].get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        self._require("get_input_grads", params=True)
        if not self.inputs_need_grad:
            raise MXNetError("get_input_grads: bind with inputs_need_grad=True first")
        return self._modules[0].get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with the outputs of every module added with take_labels."""
        self._require("update_metric", params=True)
        for meta, module in zip(self._metas, self._modules):
            if meta.get(SequentialModule.META_TAKE_LABELS, False):
                module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        self._require("install_monitor")
        for module in self._modules:
            module.install_monitor(mon)
