"""``mx.executor_manager``: the pre-Module multi-device helpers that detection and other
2016-2018 code imports (``_split_input_slice``, ``_load_data``, ``DataParallelExecutorManager``).

They are layers over the Module machinery: batch slicing is
``module.executor_group._split_input_slice`` and the executors of one symbol on several
contexts are a ``module.executor_group.DataParallelExecutorGroup``.

Array layouts are MXNet's: ``param_arrays`` / ``grad_arrays`` / ``aux_arrays`` are lists with
one entry per parameter, each a list with one NDArray per context; load targets are, per
input, a list of ``(slice, NDArray)`` pairs (or one NDArray).
"""
from __future__ import annotations

import logging
from collections import Counter

from . import model as _model
from .base import MXNetError, MXNetValueError
from .module.executor_group import DataParallelExecutorGroup as _ModuleExecutorGroup
from .module.executor_group import _split_input_slice
# names MXNet 1.9.1's mxnet.executor_manager had in its namespace from its ctypes binding
from .base import mx_real_t  # noqa: E402,F401
# names MXNet 1.9.1's mxnet.executor_manager had in its namespace (imported there, not defined)
from .context import cpu  # noqa: E402,F401
from .io import DataDesc  # noqa: E402,F401

__all__ = ["DataParallelExecutorGroup", "DataParallelExecutorManager"]

_split_input_slice = _split_input_slice


def _check_arguments(symbol):
    """Raise MXNetValueError when an argument or auxiliary-state name occurs twice in ``symbol``."""
    for what, names in (("argument", symbol.list_arguments()), ("auxiliary state", symbol.list_auxiliary_states())):
        duplicated = sorted(name for name, count in Counter(names).items() if count > 1)
        if duplicated:
            raise MXNetValueError(f"Find duplicated {what} name {duplicated}; please make the weight names "
                                  f"unique (using the name argument), arguments are {names}")


def _load_general(data, targets):
    """Copy each source NDArray into its targets: one NDArray, or ``(slice, NDArray)`` pairs
    receiving the source's rows in that slice."""
    from .ndarray.ndarray import NDArray
    if len(data) != len(targets):
        raise MXNetError(f"_load_general: {len(data)} arrays for {len(targets)} targets")
    for source, target in zip(data, targets):
        if isinstance(target, NDArray):
            source.copyto(target)
            continue
        for part, destination in target:
            source[part].copyto(destination)


def _load_data(batch, targets):
    """Load ``batch.data`` into ``targets``."""
    _load_general(batch.data, targets)


def _load_label(batch, targets):
    """Load ``batch.label`` into ``targets``."""
    _load_general(batch.label, targets)


def _bind_exec(sym, ctx, input_shapes, param_names, need_grad=False, base_exec=None, shared_data_arrays=None,
               input_types=None, logger=logging):
    """An Executor of ``sym`` on ``ctx`` for ``input_shapes`` (dict name -> shape).

    ``need_grad``: False (no gradients), True (gradients of ``param_names``) or a set of
    argument names.  ``base_exec`` shares its parameter, gradient and aux arrays;
    ``shared_data_arrays`` (dict) shares same-shaped input arrays by name and records new ones.
    """
    if need_grad is True:
        wanted = set(param_names)
    elif need_grad:
        wanted = set(need_grad)
    else:
        wanted = set()
    grad_req = {name: ("write" if name in wanted else "null") for name in sym.list_arguments()}
    return sym.simple_bind(ctx, grad_req=grad_req, type_dict=input_types,
                           shared_arg_names=list(param_names), shared_exec=base_exec,
                           shared_buffer=shared_data_arrays, **dict(input_shapes))


class DataParallelExecutorGroup:
    """The executors of ``sym`` on the contexts ``ctx``, each taking the rows ``slices[i]`` of
    a batch shaped like ``train_data``'s (MXNet's pre-Module group).  ``shared_group`` shares
    parameters (bucketing)."""

    def __init__(self, sym, arg_names, param_names, ctx, slices, train_data, shared_group=None):
        _check_arguments(sym)
        self.sym = sym
        self.arg_names = list(arg_names)
        self.param_names = list(param_names)
        self.ctx = list(ctx)
        self.slices = list(slices)
        workload = [part.stop - part.start for part in self.slices]
        data_names = [desc[0] for desc in train_data.provide_data]
        label_names = [desc[0] for desc in (train_data.provide_label or []) if desc[0] in self.arg_names]
        self.data_names = data_names
        self.label_names = label_names
        self._group = _ModuleExecutorGroup(
            sym, self.ctx, workload, train_data.provide_data,
            [desc for desc in (train_data.provide_label or []) if desc[0] in label_names],
            [name for name in self.param_names if name in self.arg_names], True, False,
            shared_group=None if shared_group is None else shared_group._group)
        self.train_execs = self._group.execs
        self.param_arrays = self._group.param_arrays
        self.grad_arrays = self._group.grad_arrays
        self.aux_arrays = self._group.aux_arrays
        self.data_arrays = self._group.data_arrays
        self.label_arrays = self._group.label_arrays

    def load_data_batch(self, data_batch):
        """Remember ``data_batch``; ``forward`` loads and runs it."""
        self._batch = data_batch

    def forward(self, is_train=False):
        self._group.forward(self._batch, is_train=is_train)

    def backward(self):
        self._group.backward()

    def update_metric(self, metric, labels, pre_sliced=False):
        self._group.update_metric(metric, labels, pre_sliced)


class DataParallelExecutorManager:
    """Runs ``symbol`` data-parallel on ``ctx`` for batches shaped like ``train_data``'s
    (MXNet's ``DataParallelExecutorManager``).  ``work_load_list`` weights the contexts'
    shares of each batch; ``sym_gen(bucket_key)`` gives the symbol of each bucket, all sharing
    the parameters of the default one.

    Raises MXNetError when ``work_load_list`` does not have one entry per context, and
    MXNetValueError on duplicated argument names.
    """

    def __init__(self, symbol, ctx, train_data, arg_names, param_names, aux_names, work_load_list=None,
                 logger=None, sym_gen=None):
        self.logger = logger or logging
        num_device = len(ctx)
        self.logger.info("Start training with %s", str(ctx))
        if work_load_list is None:
            work_load_list = [1] * num_device
        if not isinstance(work_load_list, list) or len(work_load_list) != num_device:
            raise MXNetError(f"DataParallelExecutorManager: work_load_list must be a list with one entry per "
                             f"context ({num_device}), got {work_load_list!r}")
        self.slices = _split_input_slice(train_data.batch_size, work_load_list)
        self.arg_names = arg_names
        self.param_names = param_names
        self.aux_names = aux_names
        self.ctx = ctx
        self.symbol = symbol
        self.sym_gen = sym_gen
        self.train_data = train_data
        self.execgrp = DataParallelExecutorGroup(symbol, arg_names, param_names, ctx, self.slices, train_data)
        self.curr_execgrp = self.execgrp
        self.execgrp_bucket = {train_data.default_bucket_key: self.execgrp} if sym_gen is not None else None
        self._monitor = None

    def install_monitor(self, monitor):
        """Install ``monitor`` on every executor (not with ``sym_gen``, as in MXNet)."""
        if self.sym_gen is not None:
            raise MXNetError("install_monitor: monitoring is not implemented for bucketing (sym_gen)")
        self._monitor = monitor
        self.execgrp._group.install_monitor(monitor)

    def set_params(self, arg_params, aux_params):
        """Copy the parameters (dicts of NDArray) into every context."""
        self.execgrp._group.set_params(arg_params, aux_params)

    def copy_to(self, arg_params, aux_params):
        """Write the parameters, averaged over the contexts, into the given dicts' arrays."""
        self.execgrp._group.get_params(arg_params, aux_params)

    @property
    def param_arrays(self):
        return self.execgrp.param_arrays

    @property
    def grad_arrays(self):
        return self.execgrp.grad_arrays

    @property
    def aux_arrays(self):
        return self.execgrp.aux_arrays

    def load_data_batch(self, data_batch):
        """Choose the group of ``data_batch.bucket_key`` (bound on first use, sharing the
        parameters) and load the batch."""
        if self.sym_gen is not None:
            key = data_batch.bucket_key
            if key not in self.execgrp_bucket:
                symbol = self.sym_gen(key)
                if isinstance(symbol, (tuple, list)):
                    symbol = symbol[0]
                self.execgrp_bucket[key] = DataParallelExecutorGroup(
                    symbol, self.arg_names, self.param_names, self.ctx, self.slices, data_batch,
                    shared_group=self.execgrp)
            self.curr_execgrp = self.execgrp_bucket[key]
        else:
            self.curr_execgrp = self.execgrp
        self.curr_execgrp.load_data_batch(data_batch)

    def forward(self, is_train=False):
        self.curr_execgrp.forward(is_train=is_train)

    def backward(self):
        self.curr_execgrp.backward()

    def update_metric(self, metric, labels, pre_sliced=False):
        self.curr_execgrp.update_metric(metric, labels, pre_sliced)


_model.provide_name("DataParallelExecutorManager", DataParallelExecutorManager)   # mxnet.model had it
_model.provide_name("_check_arguments", _check_arguments)   # and imported these two from here
_model.provide_name("_load_data", _load_data)
