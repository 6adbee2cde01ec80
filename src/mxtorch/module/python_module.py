"""PythonModule and PythonLossModule: modules whose computation is written in Python."""
from __future__ import annotations

import logging

import numpy as np

from ..base import MXNetError
from ..ndarray.ndarray import NDArray, array
from .base_module import BaseModule, _attribute_property
# names MXNet 1.9.1's mxnet.module.python_module had in its namespace (imported there, not defined)
from ..initializer import Uniform  # noqa: E402,F401

__all__ = ["PythonModule", "PythonLossModule"]


class PythonModule(BaseModule):
    """A parameter-free module implemented in Python (MXNet's ``mx.mod.PythonModule``).

    Subclasses implement ``_compute_output_shapes``, ``forward``, ``backward``,
    ``get_outputs`` and ``get_input_grads``; parameters, optimizer and update are no-ops.
    """

    def __init__(self, data_names, label_names, output_names, logger=logging):
        super().__init__(logger=logger)
        self._data_names = list(data_names) if data_names is not None else []
        self._label_names = list(label_names) if label_names is not None else None
        self._output_names = list(output_names)
        self._data_shapes = None
        self._label_shapes = None
        self._output_shapes = None

    data_names = _attribute_property("_data_names")
    output_names = _attribute_property("_output_names")
    data_shapes = _attribute_property("_data_shapes")
    label_shapes = _attribute_property("_label_shapes")
    output_shapes = _attribute_property("_output_shapes")

    def get_params(self):
        return {}, {}

    def init_params(self, initializer=None, arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        self.params_initialized = True

    def update(self):
        pass

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with ``labels`` and this module's outputs (when bound with labels)."""
        if self._label_shapes is None:
            return
        if pre_sliced:
            raise MXNetError("PythonModule.update_metric: pre-sliced labels are not supported")
        eval_metric.update(labels, self.get_outputs())

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if grad_req != "write":
            raise MXNetError(f"PythonModule.bind: only grad_req='write' is supported, got {grad_req!r}")
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        names = [x[0] for x in data_shapes]
        if names != self._data_names:
            raise MXNetError(f"PythonModule.bind: data_shapes name {names}, the module's data_names are "
                             f"{self._data_names}")
        self._data_shapes = data_shapes
        self._label_shapes = label_shapes
        if label_shapes is not None:
            label_names = [x[0] for x in label_shapes]
            if self._label_names is None or label_names != self._label_names:
                raise MXNetError(f"PythonModule.bind: label_shapes name {label_names}, the module's label_names "
                                 f"are {self._label_names}")
        self._output_shapes = self._compute_output_shapes()
        self.binded = True

    def _compute_output_shapes(self):
        raise NotImplementedError()

    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        self.optimizer_initialized = True

    def install_monitor(self, mon):
        raise MXNetError("PythonModule does not support monitors")


class PythonLossModule(PythonModule):
    """A loss head in Python: forward passes the scores through; backward gives
    ``grad_func(scores, labels)`` (NDArray or numpy) as the input gradient."""

    def __init__(self, name="pyloss", data_names=("data",), label_names=("softmax_label",), logger=logging,
                 grad_func=None):
        super().__init__(data_names, label_names, [name + "_output"], logger=logger)
        self._name = name
        if len(self._data_names) != 1 or len(self._label_names) != 1:
            raise MXNetError("PythonLossModule takes exactly one data and one label input")
        if grad_func is not None and not callable(grad_func):
            raise MXNetError("PythonLossModule: grad_func must be callable")
        self._grad_func = grad_func
        self._scores = None
        self._labels = None
        self._scores_grad = None

    def _compute_output_shapes(self):
        return [(self._name + "_output", self._data_shapes[0][1])]

    def forward(self, data_batch, is_train=None):
        self._scores = data_batch.data[0]
        if is_train is None:
            is_train = self.for_training
        if is_train:
            self._labels = data_batch.label[0]

    def get_outputs(self, merge_multi_context=True):
        return [self._scores]

    def backward(self, out_grads=None):
        if out_grads is not None:
            raise MXNetError("PythonLossModule.backward: a loss module takes no out_grads")
        if not self.for_training:
            raise MXNetError("PythonLossModule.backward: bound with for_training=False")
        if self._grad_func is None:
            raise NotImplementedError("PythonLossModule needs grad_func or a _backward_impl override")
        self._backward_impl()

    def _backward_impl(self):
        grad = self._grad_func(self._scores, self._labels)
        if not isinstance(grad, NDArray):
            grad = array(np.asarray(grad))
        self._scores_grad = grad

    def get_input_grads(self, merge_multi_context=True):
        return [self._scores_grad]
