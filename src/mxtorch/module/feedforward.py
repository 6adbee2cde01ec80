"""``mx.model.FeedForward``: MXNet's pre-Module training API, as a thin layer over Module.

Code of 2015-2018 (face detection and recognition models among it) still loads checkpoints
with ``FeedForward.load(prefix, epoch, ctx=...)`` and calls ``predict``; training scripts call
``FeedForward.create(symbol, X, y, ...)`` or ``FeedForward(...).fit(X, y)``.  Each call here
builds a ``Module`` for the data it is given and keeps the parameters in ``arg_params`` /
``aux_params`` between calls, as FeedForward did.  Creating one issues MXNet's
DeprecationWarning.

Inputs ``X`` are a DataIter, or a numpy array / NDArray with labels ``y`` (1-D, or 2-D with
one column), batched by ``numpy_batch_size``: shuffled with the last batch rolled over for
training, in order for prediction.
"""
from __future__ import annotations

import logging
import warnings

import numpy as np

from .. import model as _model
from ..base import MXNetError, MXNetTypeError, MXNetValueError
from ..context import Context, cpu

__all__ = ["FeedForward"]

_DEPRECATION = ("\033[91mmxnet.model.FeedForward has been deprecated. "
                "Please use mxnet.mod.Module instead.\033[0m")


class _EpochSizeIter:
    """A view of ``source`` whose epochs are ``epoch_size`` batches long, continuing where the
    previous epoch stopped (``source`` is reset when it runs out), as FeedForward's
    ``epoch_size`` did."""

    def __init__(self, source, epoch_size):
        self.source = source
        self.epoch_size = epoch_size
        self.batch_size = source.batch_size
        self.provide_data = source.provide_data
        self.provide_label = source.provide_label

    def reset(self):
        pass

    def __iter__(self):
        for _ in range(self.epoch_size):
            try:
                batch = self.source.next()
            except StopIteration:
                self.source.reset()
                batch = self.source.next()
            yield batch


class FeedForward:
    """A model: a symbol, its parameters and training options (MXNet 1.9.1's
    ``mx.model.FeedForward``).

    Parameters follow MXNet: ``symbol`` (Symbol), ``ctx`` (Context or list; default cpu),
    ``num_epoch``, ``epoch_size`` (batches per epoch, default: one pass), ``optimizer`` (name
    or Optimizer), ``initializer`` (default ``Uniform(0.01)``), ``numpy_batch_size`` (128),
    ``arg_params`` / ``aux_params`` (dicts of NDArray), ``allow_extra_params``,
    ``begin_epoch``; other keyword arguments are optimizer parameters (``learning_rate=0.1``).

    Raises MXNetTypeError when ``symbol`` is not a Symbol.
    """

    def __init__(self, symbol, ctx=None, num_epoch=None, epoch_size=None, optimizer="sgd", initializer=None,
                 numpy_batch_size=128, arg_params=None, aux_params=None, allow_extra_params=False,
                 begin_epoch=0, **kwargs):
        from ..initializer import Uniform
        from ..symbol.symbol import Symbol
        warnings.warn(_DEPRECATION, DeprecationWarning, stacklevel=2)
        if isinstance(symbol, Symbol):
            self.symbol = symbol
            self.sym_gen = None
        elif callable(symbol):
            raise MXNetError("FeedForward: a sym_gen function (bucketing) is not supported; use "
                             "mx.mod.BucketingModule")
        else:
            raise MXNetTypeError(f"FeedForward: symbol must be an mx.sym.Symbol, got {type(symbol).__name__}")
        if ctx is None:
            ctx = [cpu()]
        elif isinstance(ctx, Context):
            ctx = [ctx]
        self.ctx = list(ctx)
        self.num_epoch = num_epoch
        self.epoch_size = epoch_size
        self.optimizer = optimizer
        self.initializer = initializer if initializer is not None else Uniform(0.01)
        self.numpy_batch_size = numpy_batch_size
        self.arg_params = arg_params
        self.aux_params = aux_params
        self.allow_extra_params = allow_extra_params
        self.begin_epoch = begin_epoch
        self.kwargs = kwargs.copy()
        self._pred_module = None
        self._pred_key = None

    # -- inputs ---------------------------------------------------------------------------------
    def _init_iter(self, X, y, is_train):
        """A DataIter for ``X`` (returned as is when it is one)."""
        from ..io import DataIter, NDArrayIter
        from ..ndarray.ndarray import NDArray
        if isinstance(X, (np.ndarray, NDArray)):
            if y is None:
                if is_train:
                    raise MXNetValueError("FeedForward: y must be specified when X is numpy.ndarray")
                y = np.zeros(X.shape[0])
            if not isinstance(y, (np.ndarray, NDArray)):
                raise MXNetTypeError("FeedForward: y must be ndarray when X is numpy.ndarray")
            if X.shape[0] != y.shape[0]:
                raise MXNetValueError(f"FeedForward: the numbers of data points ({X.shape[0]}) and labels "
                                      f"({y.shape[0]}) are not equal")
            if y.ndim == 2 and y.shape[1] == 1:
                y = y.reshape((y.shape[0],))
            if y.ndim != 1:
                raise MXNetValueError(f"FeedForward: label must be 1D or 2D (with 2nd dimension being 1), got "
                                      f"shape {tuple(y.shape)}")
            batch_size = min(X.shape[0], self.numpy_batch_size)
            if is_train:
                return NDArrayIter(X, y, batch_size, shuffle=True, last_batch_handle="roll_over")
            return NDArrayIter(X, y, batch_size, shuffle=False)
        if not isinstance(X, DataIter) and not (hasattr(X, "provide_data") and hasattr(X, "reset")):
            raise MXNetTypeError(f"FeedForward: X must be DataIter, NDArray or numpy.ndarray, "
                                 f"got {type(X).__name__}")
        return X

    def _init_eval_iter(self, eval_data):
        if eval_data is None:
            return None
        if isinstance(eval_data, (tuple, list)) and len(eval_data) == 2:
            if eval_data[0] is None:
                raise MXNetValueError("FeedForward: eval_data (X, y) needs X")
            if eval_data[1] is None and hasattr(eval_data[0], "provide_data"):
                return eval_data[0]
            source = eval_data[0].asnumpy() if hasattr(eval_data[0], "asnumpy") else np.asarray(eval_data[0])
            labels = eval_data[1].asnumpy() if hasattr(eval_data[1], "asnumpy") else np.asarray(eval_data[1])
            return self._init_iter(source, labels, is_train=True)
        if hasattr(eval_data, "provide_data"):
            return eval_data
        raise MXNetTypeError("FeedForward: eval_data must be a DataIter or a (X, y) pair")

    def _label_names(self, data_iter):
        arguments = set(self.symbol.list_arguments())
        return [desc[0] for desc in (data_iter.provide_label or []) if desc[0] in arguments]

    def _module(self, data_iter, logger=None, work_load_list=None, for_training=True):
        from .module import Module
        data_names = [desc[0] for desc in data_iter.provide_data]
        if for_training:
            label_names = self._label_names(data_iter)
        else:
            # every input that is neither data nor a parameter is a label (not needed to predict)
            known = set(data_names) | set(self.arg_params or {}) | set(self.aux_params or {})
            label_names = [name for name in self.symbol.list_arguments() if name not in known]
        return Module(self.symbol, data_names=data_names, label_names=label_names,
                      logger=logger or logging, context=self.ctx, work_load_list=work_load_list)

    def _check_params(self):
        if self.arg_params is None:
            raise MXNetError("FeedForward: the model has no parameters; fit it, or give arg_params / use "
                             "FeedForward.load")

    def _predictor(self, data_iter):
        """A Module bound for inference on ``data_iter``'s data shapes, holding the parameters
        (re-used while shapes and parameters stay the same)."""
        self._check_params()
        key = (tuple((d[0], tuple(d[1])) for d in data_iter.provide_data), id(self.arg_params),
               id(self.aux_params))
        if self._pred_module is None or self._pred_key != key:
            module = self._module(data_iter, for_training=False)
            provided = {desc[0]: desc for desc in (data_iter.provide_label or [])}
            label_shapes = None
            if module.label_names and all(name in provided for name in module.label_names):
                label_shapes = [provided[name] for name in module.label_names]
            module.bind(data_shapes=data_iter.provide_data, label_shapes=label_shapes, for_training=False)
            module.set_params(self.arg_params, self.aux_params or {}, allow_missing=False,
                              allow_extra=True)
            self._pred_module, self._pred_key = module, key
        return self._pred_module

    # -- the API ------------------------------------------------------------------------------
    def predict(self, X, num_batch=None, return_data=False, reset=True):
        """The outputs for ``X``: one numpy array per output (a single array when the symbol has
        one output), rows in input order with the padding of the last batch removed; at most
        ``num_batch`` batches.  ``return_data=True`` returns ``(outputs, data, label)``."""
        data_iter = self._init_iter(X, None, is_train=False)
        if reset:
            data_iter.reset()
        module = self._predictor(data_iter)
        outputs, data, labels = None, None, None
        for index, batch in enumerate(data_iter):
            if num_batch is not None and index == num_batch:
                break
            module.forward(batch, is_train=False)
            real = data_iter.batch_size - (batch.pad or 0)
            results = [out.asnumpy()[:real] for out in module.get_outputs()]
            outputs = [[] for _ in results] if outputs is None else outputs
            for store, value in zip(outputs, results):
                store.append(value)
            if return_data:
                data = [[] for _ in batch.data] if data is None else data
                labels = [[] for _ in (batch.label or [])] if labels is None else labels
                for store, value in zip(data, batch.data):
                    store.append(value.asnumpy()[:real])
                for store, value in zip(labels, batch.label or []):
                    store.append(value.asnumpy()[:real])
        if outputs is None:
            raise MXNetError("FeedForward.predict: the iterator produced no batch")
        outputs = [np.concatenate(parts) for parts in outputs]
        if len(outputs) == 1:
            outputs = outputs[0]
        if not return_data:
            return outputs
        data = [np.concatenate(parts) for parts in data]
        labels = [np.concatenate(parts) for parts in labels]
        return outputs, (data[0] if len(data) == 1 else data), (labels[0] if len(labels) == 1 else labels)

    def score(self, X, eval_metric="acc", num_batch=None, batch_end_callback=None, reset=True):
        """The value (float) of ``eval_metric`` (name or EvalMetric) over ``X`` (a DataIter with
        labels), at most ``num_batch`` batches; ``batch_end_callback`` gets a BatchEndParam."""
        from .. import metric as metric_module
        if not isinstance(eval_metric, metric_module.EvalMetric):
            eval_metric = metric_module.create(eval_metric)
        data_iter = self._init_iter(X, None, is_train=False)
        if reset:
            data_iter.reset()
        module = self._predictor(data_iter)
        eval_metric.reset()
        for index, batch in enumerate(data_iter):
            if num_batch is not None and index == num_batch:
                break
            module.forward(batch, is_train=False)
            real = data_iter.batch_size - (batch.pad or 0)
            # the padding rows of a last batch are not counted (as Module.score)
            eval_metric.update([label[:real] for label in batch.label],
                               [out[:real] for out in module.get_outputs()])
            if batch_end_callback is not None:
                param = _model.BatchEndParam(epoch=0, nbatch=index, eval_metric=eval_metric, locals=locals())
                _model._multiple_callbacks(batch_end_callback, param)
        return eval_metric.get()[1]

    def fit(self, X, y=None, eval_data=None, eval_metric="acc", epoch_end_callback=None, batch_end_callback=None,
            kvstore="local", logger=None, work_load_list=None, monitor=None, eval_end_callback=None,
            eval_batch_end_callback=None):
        """Train from ``begin_epoch`` to ``num_epoch`` with a Module (same log lines, callbacks
        and ``rescale_grad = 1 / batch_size`` as Module.fit); afterwards ``arg_params`` /
        ``aux_params`` hold the trained parameters."""
        if self.num_epoch is None:
            raise MXNetValueError("FeedForward.fit: num_epoch is not set")
        data_iter = self._init_iter(X, y, is_train=True)
        eval_iter = self._init_eval_iter(eval_data)
        module = self._module(data_iter, logger=logger, work_load_list=work_load_list)
        train = data_iter if self.epoch_size is None else _EpochSizeIter(data_iter, self.epoch_size)
        optimizer_params = {k: v for k, v in self.kwargs.items() if k != "param_idx2name"}
        module.fit(train, eval_data=eval_iter, eval_metric=eval_metric, epoch_end_callback=epoch_end_callback,
                   batch_end_callback=batch_end_callback, kvstore=kvstore, optimizer=self.optimizer,
                   optimizer_params=optimizer_params, eval_end_callback=eval_end_callback,
                   eval_batch_end_callback=eval_batch_end_callback, initializer=self.initializer,
                   arg_params=self.arg_params, aux_params=self.aux_params, allow_missing=True,
                   begin_epoch=self.begin_epoch, num_epoch=self.num_epoch, monitor=monitor)
        self.arg_params, self.aux_params = module.get_params()
        self._pred_module = None

    def save(self, prefix, epoch=None, remove_amp_cast=True):
        """Write ``prefix-symbol.json`` and ``prefix-%04d.params`` (``epoch`` defaults to
        ``num_epoch``), MXNet's checkpoint files."""
        self._check_params()
        if epoch is None:
            epoch = self.num_epoch
        if epoch is None:
            raise MXNetValueError("FeedForward.save: give epoch (num_epoch is not set)")
        _model.save_checkpoint(prefix, epoch, self.symbol, self.arg_params, self.aux_params or {},
                        remove_amp_cast=remove_amp_cast)

    @staticmethod
    def load(prefix, epoch, ctx=None, **kwargs):
        """A FeedForward from the checkpoint ``prefix`` / ``epoch`` (``begin_epoch = epoch``);
        other keyword arguments as in the constructor."""
        symbol, arg_params, aux_params = _model.load_checkpoint(prefix, epoch)
        return FeedForward(symbol, ctx=ctx, arg_params=arg_params, aux_params=aux_params, begin_epoch=epoch,
                           **kwargs)

    @staticmethod
    def create(symbol, X, y=None, ctx=None, num_epoch=None, epoch_size=None, optimizer="sgd", initializer=None,
               eval_data=None, eval_metric="acc", epoch_end_callback=None, batch_end_callback=None,
               kvstore="local", logger=None, work_load_list=None, eval_end_callback=None,
               eval_batch_end_callback=None, **kwargs):
        """Construct a FeedForward and ``fit`` it on ``X`` / ``y``; returns the model."""
        model = FeedForward(symbol, ctx=ctx, num_epoch=num_epoch, epoch_size=epoch_size, optimizer=optimizer,
                            initializer=initializer, **kwargs)
        model.fit(X, y, eval_data=eval_data, eval_metric=eval_metric, epoch_end_callback=epoch_end_callback,
                  batch_end_callback=batch_end_callback, kvstore=kvstore, logger=logger,
                  work_load_list=work_load_list, eval_end_callback=eval_end_callback,
                  eval_batch_end_callback=eval_batch_end_callback)
        return model

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_pred_module"] = None
        state["_pred_key"] = None
        return state


# ``mx.model.FeedForward``: registered into the model layer, which is below this module
_model.provide_name("FeedForward", FeedForward)
