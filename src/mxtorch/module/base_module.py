"""BaseModule: the training life cycle shared by every module kind.

bind -> init_params -> init_optimizer -> (forward, backward, update,
update_metric)*, and ``fit`` / ``score`` / ``predict`` / ``iter_predict`` built on
those calls in the order MXNet 1.9.1 made them, so a subclass that overrides one
step (``init_params``, ``bind``, ``forward``) sees the calls it expects.
"""
from __future__ import annotations

import logging
import time
import warnings

import numpy as np

from ..base import MXNetAssertionError, MXNetError, MXNetTypeError, MXNetValueError
from ..context import cpu  # noqa: F401  (a name of MXNet's mxnet.module.base_module)
from ..model import BatchEndParam, params_dict, split_params
from .. import ndarray as nd
from ..ndarray.ndarray import NDArray
# names MXNet 1.9.1's mxnet.module.base_module had in its namespace (imported there, not defined)
from ..initializer import Uniform  # noqa: E402,F401
from ..io import DataBatch, DataDesc, DataIter  # noqa: E402,F401

__all__ = ["BaseModule", "ModuleStateError"]


class ModuleStateError(MXNetAssertionError):
    """A module method was called before the step it depends on (bind, init_params, ...); an
    AssertionError too, as MXNet checked these with ``assert``."""




def _as_list(obj):
    """``obj`` if it is a list or tuple, else ``[obj]``."""
    if isinstance(obj, (list, tuple)):
        return obj
    return [obj]


def _check_input_names(symbol, names, typename, throw):
    """Check that every name in ``names`` is an input of ``symbol``; raise (``throw``) or warn."""
    args = symbol.list_arguments()
    for name in names:
        if name in args:
            continue
        candidates = [arg for arg in args if not arg.endswith("_weight") and not arg.endswith("_bias")
                      and not arg.endswith("_gamma") and not arg.endswith("_beta")]
        message = (f"You created Module with Module(..., {typename}_names={list(names)}) but input with name "
                   f"'{name}' is not found in symbol.list_arguments(). Did you mean one of:\n\t"
                   + "\n\t".join(candidates))
        if throw:
            raise MXNetValueError(message)
        warnings.warn(message)


def _check_names_match(data_names, data_shapes, name, throw):
    """Check that the names in ``data_shapes`` are exactly ``data_names``."""
    actual = [x[0] for x in data_shapes]
    if sorted(data_names) != sorted(actual):
        message = (f"Data provided by {name}_shapes don't match names specified by {name}_names "
                   f"({data_shapes} vs. {list(data_names)})")
        if throw:
            raise MXNetValueError(message)
        warnings.warn(message)


def _check_data_iter(data, method, argument):
    """MXNetTypeError unless ``data`` reads as a DataIter (``provide_data`` and
    ``provide_label``; duck-typed iterators pass).  MXNet 1.9.1 failed with
    ``AttributeError: 'numpy.ndarray' object has no attribute 'provide_data'``."""
    if hasattr(data, "provide_data") and hasattr(data, "provide_label"):
        return
    shape = f" of shape {tuple(data.shape)}" if hasattr(data, "shape") else ""
    raise MXNetTypeError(f"{method}: {argument} must be a DataIter such as mx.io.NDArrayIter(data, label, "
                         f"batch_size=32), got {type(data).__name__}{shape}")


def _check_list(shapes, what):
    if not isinstance(shapes, (list, tuple)):
        raise MXNetValueError(f"bind: {what} must be a list of (name, shape) pairs or DataDesc, "
                              f"got {type(shapes).__name__}")
    return shapes


def _as_desc(entry, what):
    """A DataDesc from a DataDesc or a ``(name, shape)`` pair, checking the shape is a tuple of
    non-negative ints and the dtype is valid."""
    from ..io import DataDesc
    from ..ndarray.ndarray import to_numpy_dtype
    if not isinstance(entry, DataDesc):
        if not isinstance(entry, (list, tuple)) or len(entry) < 2 or not isinstance(entry[0], str):
            raise MXNetTypeError(f"bind: each entry of {what} must be (name, shape) or a DataDesc, got {entry!r}")
        entry = DataDesc(*entry)
    shape = entry.shape
    if not isinstance(shape, (list, tuple)):
        # MXNet raised TypeError for a shape that is not a tuple (an NDArray, a number)
        raise MXNetTypeError(f"bind: the shape of {entry.name!r} in {what} must be a tuple of non-negative "
                             f"integers, got {type(shape).__name__} {shape!r}")
    if \
            not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise MXNetValueError(f"bind: the shape of {entry.name!r} in {what} must be a tuple of non-negative "
                              f"integers, got {shape!r}")
    to_numpy_dtype(entry.dtype)
    return entry


def _parse_data_desc(data_names, label_names, data_shapes, label_shapes):
    """``(data_descs, label_descs)``: shapes given as ``(name, shape)`` pairs or DataDesc
    become DataDesc lists whose names are checked against the module's names."""
    data_shapes = [_as_desc(x, "data_shapes") for x in _check_list(data_shapes, "data_shapes")]
    _check_names_match(data_names, data_shapes, "data", True)
    if label_shapes is not None:
        label_shapes = [_as_desc(x, "label_shapes") for x in _check_list(label_shapes, "label_shapes")]
        _check_names_match(label_names, label_shapes, "label", False)
    else:
        _check_names_match(label_names, [], "label", False)
    return data_shapes, label_shapes


def _attribute_property(attribute):
    """A read-only property giving ``self.<attribute>`` (``data_names = _attribute_property('_data_names')``)."""
    def getter(self):
        return getattr(self, attribute)
    getter.__name__ = attribute.lstrip("_")
    return property(getter)


def _bound_property(attribute):
    """A read-only property giving ``self.<attribute>`` of a bound module; ModuleStateError
    naming the property before ``bind``."""
    name = attribute.lstrip("_")

    def getter(self):
        self._require(name)
        return getattr(self, attribute)
    getter.__name__ = name
    return property(getter)


def _name_lists(symbol, data_names, label_names, state_names, fixed_param_names):
    """The four name lists of a Module constructor as lists (None: empty), checked against
    ``symbol``'s arguments as MXNet's Module checks them (a label name it lacks only warns)."""
    lists = [list(names) if names is not None else [] for names in (data_names, label_names, state_names,
                                                                    fixed_param_names)]
    for names, kind, throw in zip(lists, ("data", "label", "state", "fixed_param"), (True, False, True, True)):
        _check_input_names(symbol, names, kind, throw)
    return lists


def _abstract_property(name):
    """A property that subclasses of BaseModule must define (NotImplementedError when read)."""
    def getter(self):
        raise NotImplementedError()
    getter.__name__ = name
    return property(getter)


class BaseModule:
    """Base of Module, BucketingModule, SequentialModule and user modules.

    State flags: ``binded``, ``for_training``, ``inputs_need_grad``,
    ``params_initialized``, ``optimizer_initialized``.  Methods that need an earlier step
    raise :class:`ModuleStateError` naming the missing step.
    """

    def __init__(self, logger=logging):
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol = None
        self._total_exec_bytes = 0

    # -- state checks ---------------------------------------------------------------------------
    def _require(self, action, binded=True, params=False, optimizer=False):
        if binded and not self.binded:
            raise ModuleStateError(f"{action}: the module is not bound; call bind() first")
        if params and not self.params_initialized:
            raise ModuleStateError(f"{action}: parameters are not initialized; call init_params() "
                                   f"(or set_params()) first")
        if optimizer and not self.optimizer_initialized:
            raise ModuleStateError(f"{action}: the optimizer is not initialized; call init_optimizer() first")

    def _keeps_binding(self, force_rebind):
        """The start of a ``bind``: with ``force_rebind`` the binding is forgotten first
        (``_reset_bind``); True, after MXNet's warning, when the module is still bound and
        ``bind`` must return."""
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return True
        return False

    def _keeps_optimizer(self, force_init, warning="optimizer already initialized, ignoring."):
        """The start of an ``init_optimizer``: the parameters must be initialized
        (ModuleStateError); True, after MXNet's ``warning``, when an optimizer is installed and
        ``force_init`` is False, so ``init_optimizer`` must return."""
        self._require("init_optimizer", params=True)
        if self.optimizer_initialized and not force_init:
            self.logger.warning(warning)
            return True
        return False

    # -- high level API -------------------------------------------------------------------------
    def forward_backward(self, data_batch):
        """``forward(data_batch, is_train=True)`` then ``backward()``."""
        self.forward(data_batch, is_train=True)
        self.backward()

    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None, score_end_callback=None,
              reset=True, epoch=0, sparse_row_id_fn=None, progress=None):
        """Evaluate ``eval_metric`` over ``eval_data`` (at most ``num_batch`` batches) and
        return ``get_name_value()``.  Padding rows of the last batch are not counted
        (mxtorch; MXNet counted them).  ``progress``: a tqdm bar, as in ``fit``."""
        from .. import metric as metric_module
        from .training_extras import progress_bar
        self._require("score", params=True)
        if reset:
            eval_data.reset()
        if not isinstance(eval_metric, metric_module.EvalMetric):
            eval_metric = metric_module.create(eval_metric)
        eval_metric.reset()
        actual_num_batch = 0
        bar = progress_bar(progress, eval_data, f"score[{epoch}]")
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            if isinstance(eval_batch, list):
                self.update_metric(eval_metric, [eb.label for eb in eval_batch], pre_sliced=True)
            else:
                self.update_metric(eval_metric, eval_batch.label)
            if batch_end_callback is not None:
                params = BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric, locals=locals())
                for callback in _as_list(batch_end_callback):
                    callback(params)
            actual_num_batch += 1
            bar.update(1)
        bar.close()
        if score_end_callback:
            params = BatchEndParam(epoch=epoch, nbatch=actual_num_batch, eval_metric=eval_metric, locals=locals())
            for callback in _as_list(score_end_callback):
                callback(params)
        return eval_metric.get_name_value()

    def iter_predict(self, eval_data, num_batch=None, reset=True, sparse_row_id_fn=None):
        """Yield ``(outputs, nbatch, batch)`` for each batch, padding rows removed."""
        self._require("iter_predict", params=True)
        if reset:
            eval_data.reset()
        yield from self._predict_batches(eval_data, num_batch, sparse_row_id_fn)

    def _predict_batches(self, eval_data, num_batch, sparse_row_id_fn):
        """``(outputs without the padding rows, nbatch, batch)`` of inference forwards over
        the first ``num_batch`` batches of ``eval_data`` (all when None)."""
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            pad = eval_batch.pad or 0
            outputs = [out[0:out.shape[0] - pad] for out in self.get_outputs()]
            yield outputs, nbatch, eval_batch

    def predict(self, eval_data, num_batch=None, merge_batches=True, reset=True, always_output_list=False,
                sparse_row_id_fn=None, progress=None):
        """Outputs over ``eval_data`` (a DataIter, or one NDArray / numpy batch).

        With ``merge_batches`` the batches are concatenated along axis 0 (padding
        removed); a single output is returned as an NDArray unless ``always_output_list``.
        ``progress``: a tqdm bar, as in ``fit``.
        """
        from ..io import DataBatch, DataIter
        from .training_extras import progress_bar
        self._require("predict", params=True)
        if isinstance(eval_data, (NDArray, np.ndarray)):
            if isinstance(eval_data, np.ndarray):
                eval_data = nd.array(eval_data)
            self.forward(DataBatch([eval_data]))
            return self.get_outputs()[0]
        if not isinstance(eval_data, DataIter):
            raise MXNetValueError(f"predict: eval_data must be a DataIter, NDArray or numpy array, "
                                  f"got {type(eval_data).__name__}")
        if reset:
            eval_data.reset()
        output_list = []
        bar = progress_bar(progress, eval_data, "predict")
        for outputs, _, _ in self._predict_batches(eval_data, num_batch, sparse_row_id_fn):
            output_list.append([out.copy() for out in outputs])
            bar.update(1)
        bar.close()
        if not output_list:
            return output_list
        if merge_batches:
            num_outputs = len(output_list[0])
            for outputs in output_list:
                if len(outputs) != num_outputs:
                    raise MXNetError("predict: cannot merge batches, the number of outputs differs between "
                                     "batches (bucketing?); use merge_batches=False")
            merged = [nd.concat(*[outputs[i] for outputs in output_list], dim=0) for i in range(num_outputs)]
            if num_outputs == 1 and not always_output_list:
                return merged[0]
            return merged
        return output_list

    def fit(self, train_data, eval_data=None, eval_metric="acc", epoch_end_callback=None,
            batch_end_callback=None, kvstore="local", optimizer="sgd",
            optimizer_params=(("learning_rate", 0.01),), eval_end_callback=None, eval_batch_end_callback=None,
            initializer=None, arg_params=None, aux_params=None, allow_missing=False, force_rebind=False,
            force_init=False, begin_epoch=0, num_epoch=None, validation_metric=None, monitor=None,
            sparse_row_id_fn=None, progress=None):
        """Train for ``num_epoch - begin_epoch`` epochs: bind, init_params, init_optimizer,
        then per batch forward_backward + update + update_metric, per epoch the log lines
        ``Epoch[n] Train-<metric>=<value>``, ``Epoch[n] Time cost=<seconds>``, the
        epoch-end callbacks with the current parameters and, with ``eval_data``,
        ``Epoch[n] Validation-<metric>=<value>``.  ``initializer`` defaults to
        ``Uniform(0.01)`` as in MXNet.

        mxtorch additions: a tqdm bar per epoch (``progress``: None = when stderr is a
        terminal and ``MXTORCH_PROGRESS`` is not 0, False = never, True = always);
        :class:`mxtorch.callback.TrainingCallback` objects among the callbacks
        (``EarlyStopping``, ``ModelCheckpoint``, ``CSVLogger``, ``TensorBoard``) get each
        epoch's values after validation and may stop training; returns a
        :class:`mxtorch.callback.History` of the per-epoch values (MXNet returned None)."""
        from .training_extras import FitExtras
        from .. import metric as metric_module
        from ..initializer import Uniform
        from ..kvstore.sharding import epoch_batches
        if num_epoch is None:
            raise MXNetValueError("fit: please specify num_epoch")
        _check_data_iter(train_data, "fit", "train_data")
        if eval_data is not None:
            _check_data_iter(eval_data, "fit", "eval_data")
        if initializer is None:
            initializer = Uniform(0.01)
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label,
                  for_training=True, force_rebind=force_rebind)
        if monitor is not None:
            self.install_monitor(monitor)
        self.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params)
        if validation_metric is None:
            validation_metric = eval_metric
        if not isinstance(eval_metric, metric_module.EvalMetric):
            eval_metric = metric_module.create(eval_metric)
        extras = FitExtras(self, _as_list(epoch_end_callback or []) + _as_list(batch_end_callback or []), progress)
        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            extras.epoch_begin(epoch, train_data)
            eval_metric.reset()
            self._begin_fit_epoch(epoch, train_data)
            nbatch = 0
            data_iter = epoch_batches(train_data, self)     # this worker's batches (kvstore/sharding.py)
            end_of_batch = False
            try:
                next_data_batch = next(data_iter)
            except StopIteration:
                raise MXNetError("fit: the training iterator produced no batch") from None
            eval_name_vals = []
            while not end_of_batch:
                data_batch = next_data_batch
                if monitor is not None:
                    monitor.tic()
                self.forward_backward(data_batch)
                self.update()
                if isinstance(data_batch, list):
                    self.update_metric(eval_metric, [db.label for db in data_batch], pre_sliced=True)
                else:
                    self.update_metric(eval_metric, data_batch.label)
                extras.batch_end(data_batch, eval_metric)
                try:
                    next_data_batch = next(data_iter)
                    self.prepare(next_data_batch, sparse_row_id_fn=sparse_row_id_fn)
                except StopIteration:
                    end_of_batch = True
                if monitor is not None:
                    monitor.toc_print()
                if end_of_batch:
                    eval_name_vals = eval_metric.get_global_name_value() \
                        if hasattr(eval_metric, "get_global_name_value") else eval_metric.get_name_value()
                if batch_end_callback is not None:
                    params = BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric, locals=locals())
                    for callback in _as_list(batch_end_callback):
                        callback(params)
                nbatch += 1
            for name, value in eval_name_vals:
                self.logger.info("Epoch[%d] Train-%s=%f", epoch, name, value)
            toc = time.time()
            self.logger.info("Epoch[%d] Time cost=%.3f", epoch, toc - tic)
            arg_params_now, aux_params_now = self.get_params()
            self.set_params(arg_params_now, aux_params_now)
            if epoch_end_callback is not None:
                for callback in _as_list(epoch_end_callback):
                    callback(epoch, self.symbol, arg_params_now, aux_params_now)
            result = None
            if eval_data:
                result = self.score(eval_data, validation_metric, score_end_callback=eval_end_callback,
                                    batch_end_callback=eval_batch_end_callback, epoch=epoch,
                                    **({} if progress is None else {"progress": progress}))
                for name, value in result:
                    self.logger.info("Epoch[%d] Validation-%s=%f", epoch, name, value)
            train_data.reset()
            if extras.epoch_end(epoch, eval_name_vals, result, toc - tic):
                break
        return extras.end()

    def _begin_fit_epoch(self, epoch, train_data):
        """Called by ``fit`` at the start of each epoch, before the first batch; nothing here
        (SVRGModule recomputes its full gradients)."""

    # -- symbol and parameters --------------------------------------------------------------------
    data_names = _abstract_property("data_names")
    output_names = _abstract_property("output_names")
    data_shapes = _abstract_property("data_shapes")
    label_shapes = _abstract_property("label_shapes")
    output_shapes = _abstract_property("output_shapes")

    @property
    def symbol(self):
        return self._symbol

    def get_symbol(self):
        return self.symbol

    def get_params(self):
        raise NotImplementedError()

    def init_params(self, initializer=None, arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        raise NotImplementedError()

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True, allow_extra=False):
        """Assign parameters through ``init_params(initializer=None, ...)`` as MXNet does."""
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)

    def _set_params_done_early(self, arg_params, aux_params, allow_missing, force_init, allow_extra):
        """The start of ``set_params`` of Module and BucketingModule: True when the call is
        complete here, i.e. without ``allow_missing`` (the values go through ``init_params``),
        or with it when parameters are initialized and ``force_init`` is False (MXNet's
        warning; nothing is set)."""
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)
            return True
        if self.params_initialized and not force_init:
            warnings.warn("Parameters already initialized and force_init=False. set_params call ignored.",
                          stacklevel=3)
            return True
        return False

    def save_params(self, fname):
        """Write the parameters to ``fname`` in MXNet's ``.params`` format (``arg:``/``aux:``)."""
        nd.save(fname, params_dict(*self.get_params()))

    def load_params(self, fname):
        """Read a ``.params`` file and ``set_params`` it; MXNetError on keys without
        ``arg:``/``aux:``."""
        arg_params, aux_params = split_params(nd.load(fname), fname)
        self.set_params(arg_params, aux_params)

    def get_states(self, merge_multi_context=True):
        self._require("get_states", params=True)
        return []

    def set_states(self, states=None, value=None):
        self._require("set_states", params=True)
        if not states and not value:
            return
        raise MXNetError("set_states: this module has no states")

    def install_monitor(self, mon):
        raise NotImplementedError()

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Hook called before each forward (sparse row pulls in MXNet); nothing to do here."""
        if sparse_row_id_fn is not None and not self.binded:
            raise ModuleStateError("prepare: the module is not bound; call bind() first")

    # -- computation ----------------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        raise NotImplementedError()

    def backward(self, out_grads=None):
        raise NotImplementedError()

    def get_outputs(self, merge_multi_context=True):
        raise NotImplementedError()

    def get_input_grads(self, merge_multi_context=True):
        raise NotImplementedError()

    def update(self):
        raise NotImplementedError()

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        raise NotImplementedError()

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        raise NotImplementedError()

    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        raise NotImplementedError()


class CurrentModuleDelegate(BaseModule):
    """Base of modules that hold several bound Modules and run the one in ``_curr_module``
    (BucketingModule, MutableModule): shapes, outputs, gradients, metrics and states are
    those of the current Module."""

    _curr_module = None

    @property
    def data_shapes(self):
        self._require("data_shapes")
        return self._curr_module.data_shapes

    @property
    def label_shapes(self):
        self._require("label_shapes")
        return self._curr_module.label_shapes

    @property
    def output_shapes(self):
        self._require("output_shapes")
        return self._curr_module.output_shapes

    def get_states(self, merge_multi_context=True):
        self._require("get_states", params=True)
        return self._curr_module.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None):
        self._require("set_states", params=True)
        self._curr_module.set_states(states, value)

    def backward(self, out_grads=None):
        self._require("backward", params=True)
        self._curr_module.backward(out_grads=out_grads)

    def get_outputs(self, merge_multi_context=True):
        self._require("get_outputs", params=True)
        return self._curr_module.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        self._require("get_input_grads", params=True)
        if not self.inputs_need_grad:
            raise ModuleStateError("get_input_grads: bind with inputs_need_grad=True first")
        return self._curr_module.get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        self._require("update_metric", params=True)
        self._curr_module.update_metric(eval_metric, labels, pre_sliced)
