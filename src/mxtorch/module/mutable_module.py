"""MutableModule: a Module that re-binds whenever a batch brings new shapes.

Detection code (mx-rcnn, Deformable-ConvNets and their descendants) feeds images of
varying sizes, and on several devices one size per device.  MutableModule binds
once at the largest shapes (``max_data_shapes`` / ``max_label_shapes``), then, on a
``forward`` whose ``provide_data`` / ``provide_label`` differ from the current
binding, binds a new Module for those shapes that shares the parameters, gradients,
aux states and optimizer (states included) of the max-shape Module.  Only the
max-shape Module and the current one are kept, so thousands of shape changes do not
accumulate executors or arrays.
"""
from __future__ import annotations

import logging

from ..base import MXNetError
from ..context import cpu
from .base_module import CurrentModuleDelegate, _attribute_property
from .executor_group import is_per_device_shapes
from .module import Module

__all__ = ["MutableModule"]


def _pairs(descs):
    return [(desc[0], tuple(desc[1])) for desc in descs]


class MutableModule(CurrentModuleDelegate):
    """A Module that follows each batch's shapes (see the module docstring).

    ``max_data_shapes`` / ``max_label_shapes``: ``[(name, shape)]`` giving the largest
    shape of inputs whose size varies; ``fixed_param_prefix``: parameters whose names
    start with one of these prefixes are not trained.
    """

    def __init__(self, symbol, data_names, label_names, logger=logging, context=None, work_load_list=None,
                 max_data_shapes=None, max_label_shapes=None, fixed_param_prefix=None):
        super().__init__(logger=logger)
        self._symbol = symbol
        self._data_names = list(data_names)
        self._label_names = list(label_names) if label_names is not None else []
        self._context = context if context is not None else cpu()
        self._work_load_list = work_load_list
        self._curr_module = None
        self._max_module = None
        self._max_data_shapes = max_data_shapes
        self._max_label_shapes = max_label_shapes
        self._fixed_param_prefix = fixed_param_prefix
        fixed_param_names = []
        if fixed_param_prefix is not None:
            for name in self._symbol.list_arguments():
                if any(name.startswith(prefix) for prefix in fixed_param_prefix):
                    fixed_param_names.append(name)
        self._fixed_param_names = fixed_param_names

    def _reset_bind(self):
        self.binded = False
        self._curr_module = None
        self._max_module = None

    data_names = _attribute_property("_data_names")
    label_names = _attribute_property("_label_names")

    @property
    def output_names(self):
        return self._symbol.list_outputs()

    def get_params(self):
        self._require("get_params", params=True)
        return self._curr_module.get_params()

    def init_params(self, initializer=None, arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        if self.params_initialized and not force_init:
            return
        self._require("init_params")
        self._max_module.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                                     allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)
        self.params_initialized = True

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True, allow_extra=False):
        self._require("set_params")
        self._max_module.set_params(arg_params, aux_params, allow_missing=allow_missing, force_init=force_init,
                                    allow_extra=allow_extra)
        if self._curr_module is not self._max_module:
            self._curr_module._params_dirty = True
        self.params_initialized = True

    def _with_max(self, shapes, maxima):
        if shapes is None:
            return None
        if is_per_device_shapes(shapes):
            return [self._with_max(device_shapes, maxima) for device_shapes in shapes]
        return [(name, tuple(maxima.get(name, shape))) for name, shape in _pairs(shapes)]

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Bind a Module at the maximum shapes (each input's shape replaced by its
        ``max_data_shapes`` / ``max_label_shapes`` entry where one is given)."""
        if self.params_initialized:
            arg_params, aux_params = self.get_params()
        if self._keeps_binding(force_rebind):
            return
        if shared_module is not None:
            raise MXNetError("MutableModule.bind: shared_module is not supported")
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        maxima = dict(_pairs(self._max_data_shapes or []))
        maxima.update(dict(_pairs(self._max_label_shapes or [])))
        max_data_shapes = self._with_max(data_shapes, maxima)
        max_label_shapes = self._with_max(label_shapes, maxima) if label_shapes else None
        module = Module(self._symbol, self._data_names, self._label_names, logger=self.logger,
                        context=self._context, work_load_list=self._work_load_list,
                        fixed_param_names=self._fixed_param_names)
        module.bind(max_data_shapes, max_label_shapes, for_training, inputs_need_grad, force_rebind=False,
                    shared_module=None, grad_req=grad_req)
        self._max_module = module
        self._curr_module = module
        self.binded = True
        if self.params_initialized:
            self.set_params(arg_params, aux_params)

    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        if self._keeps_optimizer(force_init):
            return
        self._max_module.init_optimizer(kvstore, optimizer, optimizer_params, force_init=force_init)
        if self._curr_module is not self._max_module:
            self._curr_module.borrow_optimizer(self._max_module)
        self.optimizer_initialized = True

    @staticmethod
    def _batch_shapes(data_batch, with_labels):
        provide_data = getattr(data_batch, "provide_data", None)
        provide_label = getattr(data_batch, "provide_label", None) if with_labels else None
        if not provide_data:
            from ..io import DataDesc
            arrays = data_batch.data
            if arrays and isinstance(arrays[0], (list, tuple)):
                raise MXNetError("MutableModule.forward: a batch with one list of arrays per device must "
                                 "carry provide_data")
            provide_data = [DataDesc(f"data{i}", a.shape) for i, a in enumerate(arrays)]
        return provide_data, provide_label

    def _current_shapes(self):
        module = self._curr_module
        data_shapes = module._data_shapes
        label_shapes = module._label_shapes
        if is_per_device_shapes(data_shapes):
            result = []
            for index, device_data in enumerate(data_shapes):
                labels = label_shapes[index] if label_shapes else []
                result.append(dict(_pairs(device_data) + _pairs(labels)))
            return result
        return [dict(_pairs(data_shapes) + _pairs(label_shapes or []))]

    def forward(self, data_batch, is_train=None):
        """Forward; re-binds (sharing everything with the max-shape Module) when the batch's
        shapes differ from the current binding."""
        self._require("forward", params=True)
        if is_train is None:
            is_train = self._curr_module.for_training
        with_labels = bool(self._curr_module._label_shapes) and bool(getattr(data_batch, "label", None))
        provide_data, provide_label = self._batch_shapes(data_batch, with_labels)
        if is_per_device_shapes(provide_data):
            labels = provide_label if provide_label and is_per_device_shapes(provide_label) \
                else [provide_label or []] * len(provide_data)
            incoming = [dict(_pairs(d) + _pairs(l)) for d, l in zip(provide_data, labels)]
        else:
            incoming = [dict(_pairs(provide_data) + _pairs(provide_label or []))]
        current = self._current_shapes()
        changed = len(current) != len(incoming) or any(
            current_device.get(name) != shape for current_device, incoming_device in zip(current, incoming)
            for name, shape in incoming_device.items() if name in current_device)
        if changed:
            self._switch_to(provide_data, provide_label if with_labels else None)
        self._curr_module.forward(data_batch, is_train=is_train)

    def _switch_to(self, data_shapes, label_shapes):
        maximum = self._max_module
        if data_shapes == maximum._data_shapes and label_shapes == maximum._label_shapes:
            self._curr_module = maximum
            return
        module = Module(self._symbol, self._data_names, self._label_names, logger=self.logger,
                        context=self._context, work_load_list=self._work_load_list,
                        fixed_param_names=self._fixed_param_names)
        if not label_shapes and maximum._label_shapes and not maximum.for_training:
            label_shapes = None
        module.bind(data_shapes, label_shapes, maximum.for_training, maximum.inputs_need_grad,
                    force_rebind=False, shared_module=maximum, grad_req=maximum._grad_req)
        self._curr_module = module

    def update(self):
        self._require("update", params=True, optimizer=True)
        self._curr_module.update()
        if self._curr_module is not self._max_module:
            self._max_module._params_dirty = True

    def install_monitor(self, mon):
        self._require("install_monitor")
        self._curr_module.install_monitor(mon)

    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False, remove_amp_cast=True):
        self._max_module.save_checkpoint(prefix, epoch, save_optimizer_states, remove_amp_cast)

    def save_optimizer_states(self, fname):
        self._max_module.save_optimizer_states(fname)

    def load_optimizer_states(self, fname):
        self._max_module.load_optimizer_states(fname)


