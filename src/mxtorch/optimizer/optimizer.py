"""The optimizer base class, its registry, and the Updater that Module and KVStore call.

An optimizer owns the hyper-parameters (learning rate, weight decay, gradient
rescaling and clipping, per-parameter multipliers, an optional learning-rate
schedule) and one update rule.  The :class:`Updater` owns the per-parameter
state (momentum buffers, moment estimates) created by the optimizer, keyed by
the parameter's index, and saves/loads it in MXNet 1.9.1's ``.states`` pickle
format.

Every update runs in place on the weight's torch tensor (``NDArray._tensor``)
under ``torch.no_grad()``, on the weight's device.
"""
from __future__ import annotations

import logging
import numbers
import warnings

import numpy as np
import torch

from ..ops.optimizer_kernels import _kernel_clip, _python_clip, _one_minus, _power  # noqa: F401
from ..base import MXNetError, MXNetTypeError, MXNetUserWarning, MXNetValueError, py_str
from ..ndarray.ndarray import NDArray, zeros
from .. import ndarray as _ndarray
from .states_format import dumps_states, loads_states
# names MXNet 1.9.1's mxnet.optimizer.optimizer had in its namespace (imported there, not defined)
from ..ndarray import abs as NDabs, norm as NDnorm  # noqa: E402,F401
from ..util import is_np_array  # noqa: E402,F401

__all__ = ["Optimizer", "Updater", "get_updater", "create", "register"]


def _accepted_options(klass):
    """The keyword arguments ``klass(...)`` accepts: the named parameters of each ``__init__``
    along its method resolution order while they pass ``**kwargs`` on (an ``__init__`` without
    ``**kwargs`` ends the chain); None when the chain never ends (any name may be valid)."""
    import inspect
    names = set()
    for base in klass.__mro__:
        init = base.__dict__.get("__init__")
        if init is None or base is object:
            continue
        try:
            parameters = list(inspect.signature(init).parameters.values())[1:]
        except (TypeError, ValueError):
            return None
        names.update(p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
        if not any(p.kind == p.VAR_KEYWORD for p in parameters):
            return names
    return None


class Optimizer:
    """Base class of every optimizer (MXNet's ``mx.optimizer.Optimizer``).

    Parameters
    ----------
    rescale_grad : float, default 1.0
        Every gradient is multiplied by this before it is used (Module sets it to
        ``1 / batch_size``).
    param_idx2name : dict of int to str, optional
        Parameter names by index.  When given, every name that ends neither in
        ``_weight`` nor in ``_gamma`` gets a weight-decay multiplier of 0 (so biases,
        BatchNorm betas and other parameters are not decayed), as in MXNet.
    wd : float, default 0.0
        Weight-decay (L2) coefficient.
    clip_gradient : float, optional
        Clip the rescaled gradient to ``[-clip_gradient, clip_gradient]``.
    learning_rate : float, optional
        The learning rate; ``None`` means 0.01 unless a subclass sets another default
        or ``lr_scheduler`` is given.  When both are given, the schedule's ``base_lr``
        is overwritten by ``learning_rate`` (MXNet behaviour, logged as a warning).
    lr_scheduler : mxtorch.lr_scheduler.LRScheduler, optional
        Called with ``num_update`` to give the learning rate of each step.
    sym : Symbol, optional
        A symbol whose variables' ``__lr_mult__`` / ``__wd_mult__`` attributes set the
        multipliers of the same-named parameters (read through ``sym.attr_dict()`` and
        ``sym.list_arguments()``; any object with those two methods works).
    begin_num_update : int, default 0
        The update counter each parameter starts from.
    multi_precision : bool, default False
        Keep a float32 master copy of float16 weights and update that copy.
    param_dict : dict of int to Parameter, optional
        Gluon-style parameters whose ``lr_mult`` / ``wd_mult`` take precedence.

    Attributes ``lr``, ``wd``, ``rescale_grad``, ``clip_gradient``, ``lr_scheduler``,
    ``num_update``, ``begin_num_update``, ``multi_precision``, ``idx2name``,
    ``param_dict``, ``lr_mult``, ``wd_mult``, ``aggregate_num`` and ``sym_info`` have
    MXNet's names and meanings, so optimizers pickled by MXNet load into these classes.
    """

    opt_registry = {}

    def __init__(self, rescale_grad=1.0, param_idx2name=None, wd=0.0, clip_gradient=None,
                 learning_rate=None, lr_scheduler=None, sym=None, begin_num_update=0,
                 multi_precision=False, param_dict=None):
        name = type(self).__name__
        for argument, value, optional_value in (("rescale_grad", rescale_grad, False), ("wd", wd, False),
                                                ("learning_rate", learning_rate, True),
                                                ("clip_gradient", clip_gradient, True)):
            _check_number(name, argument, value, optional_value)
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        if lr_scheduler is not None and learning_rate is not None:
            if lr_scheduler.base_lr != learning_rate:
                logging.warning("Optimizer: the lr_scheduler's base_lr %s is overwritten by the "
                                "optimizer's learning_rate %s", lr_scheduler.base_lr, learning_rate)
                lr_scheduler.base_lr = learning_rate
        self.wd = wd
        self.lr_mult = {}
        self.wd_mult = {}
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        self._all_index_update_counts = {0: {}}
        self._index_update_count = self._all_index_update_counts[0]
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        self.aggregate_num = 0
        if param_idx2name is None:
            param_idx2name = {}
        if not isinstance(param_idx2name, dict):
            raise MXNetError("Optimizer: param_idx2name must be a dict of parameter index to name, "
                             f"got {type(param_idx2name).__name__}")
        self.idx2name = param_idx2name.copy()
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = param_dict if param_dict else {}
        self.allow_np_array = False
        self.set_lr_mult({})
        self.set_wd_mult({})

    # -- registry -------------------------------------------------------------------------
    @staticmethod
    def register(klass):
        """Register an Optimizer subclass under its lower-cased class name; returns the class.

        Usable as a decorator.  Registering a second class of the same name replaces the
        first with a warning, as in MXNet.
        """
        if not (isinstance(klass, type) and issubclass(klass, Optimizer)):
            raise MXNetError(f"Optimizer.register: expected a subclass of Optimizer, got {klass!r}")
        name = klass.__name__.lower()
        previous = Optimizer.opt_registry.get(name)
        if previous is not None and previous is not klass:
            warnings.warn(f"Optimizer.register: {klass.__module__}.{klass.__name__} overrides the "
                          f"optimizer {previous.__module__}.{previous.__name__} registered as {name!r}")
        Optimizer.opt_registry[name] = klass
        return klass

    @staticmethod
    def create_optimizer(name, **kwargs):
        """An instance of the optimizer registered as ``name`` (case-insensitive).

        Raises MXNetError naming the registered optimizers when ``name`` is unknown.
        """
        if not isinstance(name, str):
            raise MXNetError(f"create_optimizer: name must be a string, got {type(name).__name__}")
        klass = Optimizer.opt_registry.get(name.lower())
        if klass is None:
            raise MXNetValueError(f"create_optimizer: cannot find optimizer {name!r}; registered optimizers "
                             f"are {sorted(Optimizer.opt_registry)}")
        try:
            return klass(**kwargs)
        except TypeError as error:
            # Python's "__init__() got an unexpected keyword argument 'learning_rat'": name the
            # optimizer and list its options (an __init__ may consume names of its own from
            # **kwargs, so the options are only listed once the constructor has refused one)
            accepted = _accepted_options(klass)
            unknown = [] if accepted is None else sorted(set(kwargs) - accepted)
            if "unexpected keyword argument" not in str(error) or not unknown:
                raise
            raise MXNetTypeError(f"create_optimizer: {klass.__name__} got unknown option(s) {unknown}; its "
                                 f"options are {sorted(accepted)}") from error

    # -- learning rate ------------------------------------------------------------------------
    @property
    def learning_rate(self):
        """The current learning rate: ``lr_scheduler(num_update)`` if a schedule is set, else ``lr``."""
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr):
        """Set the learning rate.  Raises ``MXNetUserWarning`` (an MXNetError and the UserWarning
        MXNet raised) when an lr_scheduler decides the rate instead."""
        if self.lr_scheduler is not None:
            raise MXNetUserWarning("set_learning_rate: this optimizer has an lr_scheduler, which sets the "
                             "learning rate; set_learning_rate only works without one")
        self.lr = lr

    def set_lr_scale(self, args_lrscale):
        """Removed in MXNet; raises MXNetError pointing to ``set_lr_mult``."""
        raise MXNetError("set_lr_scale is deprecated (and raised in MXNet 1.9.1); use set_lr_mult")

    def set_lr_mult(self, args_lr_mult):
        """Set learning-rate multipliers, keyed by parameter name or index.

        Multipliers from the symbol's ``__lr_mult__`` attributes (when ``sym`` was given)
        are applied first, then ``args_lr_mult`` overrides them.
        """
        self.lr_mult = self._symbol_multipliers("__lr_mult__")
        self.lr_mult.update(args_lr_mult)

    def set_wd_mult(self, args_wd_mult):
        """Set weight-decay multipliers, keyed by parameter name or index.

        Defaults: 0 for every name in ``idx2name`` that ends neither in ``_weight`` nor in
        ``_gamma``; then the symbol's ``__wd_mult__`` attributes; then ``args_wd_mult``.
        """
        self.wd_mult = {}
        for name in self.idx2name.values():
            if not self._decayed_by_default(name):
                self.wd_mult[name] = 0.0
        self.wd_mult.update(self._symbol_multipliers("__wd_mult__"))
        self.wd_mult.update(args_wd_mult)

    @staticmethod
    def _decayed_by_default(name):
        """Whether parameter ``name`` keeps weight decay without a multiplier: names ending in
        ``_weight`` or ``_gamma``."""
        return name.endswith("_weight") or name.endswith("_gamma")

    def _symbol_multipliers(self, key):
        """``{argument name: float}`` from the ``key`` attribute (``'__lr_mult__'`` or
        ``'__wd_mult__'``) of the symbol's variables; empty without a symbol."""
        multipliers = {}
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                if name in attr and key in attr[name]:
                    multipliers[name] = float(attr[name][key])
        return multipliers

    # -- counters and per-parameter hyper-parameters -----------------------------------
    def _set_current_context(self, device_id):
        """Switch to the update counters of device ``device_id`` (one set per device, as MXNet)."""
        if device_id not in self._all_index_update_counts:
            self._all_index_update_counts[device_id] = {}
        self._index_update_count = self._all_index_update_counts[device_id]

    def _update_count(self, index):
        """Count one more update of ``index`` (an int or a list of them); updates ``num_update``."""
        indices = index if isinstance(index, (list, tuple)) else [index]
        for idx in indices:
            if idx not in self._index_update_count:
                self._index_update_count[idx] = self.begin_num_update
            self._index_update_count[idx] += 1
            self.num_update = max(self._index_update_count[idx], self.num_update)

    def _multiplied(self, value, indices, multipliers, parameter_attribute):
        """``value`` times the multiplier of each of ``indices``: the Gluon parameter's
        ``parameter_attribute`` (``'lr_mult'`` / ``'wd_mult'``) when in ``param_dict``, else
        ``multipliers`` keyed by index, else by the index's name (1.0 when none is set)."""
        values = [value for _ in indices]
        for position, index in enumerate(indices):
            if index in self.param_dict:
                values[position] *= getattr(self.param_dict[index], parameter_attribute)
            elif index in multipliers:
                values[position] *= multipliers[index]
            elif index in self.idx2name:
                values[position] *= multipliers.get(self.idx2name[index], 1.0)
        return values

    def _get_lrs(self, indices):
        """Learning rates (floats) for ``indices``: the current rate times each multiplier."""
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        return self._multiplied(lr, indices, self.lr_mult, "lr_mult")

    def _get_lr(self, index):
        """Learning rate (float) for parameter ``index``."""
        return self._get_lrs([index])[0]

    def _get_wds(self, indices):
        """Weight decays (floats) for ``indices``: ``wd`` times each multiplier."""
        return self._multiplied(self.wd, indices, self.wd_mult, "wd_mult")

    def _get_wd(self, index):
        """Weight decay (float) for parameter ``index``."""
        return self._get_wds([index])[0]

    # -- state and update ----------------------------------------------------------------------
    def create_state(self, index, weight):
        """The auxiliary state of one weight (None here; subclasses return NDArrays or tuples)."""
        return None

    def create_state_multi_precision(self, index, weight):
        """Like ``create_state``; for a float16 weight with ``multi_precision`` the state is
        ``(float32 copy of weight, create_state(index, that copy))``."""
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            return (master, self.create_state(index, master))
        if weight.dtype == np.float16 and not self.multi_precision:
            warnings.warn("Accumulating with float16 in an optimizer can lead to poor accuracy or slow "
                          "convergence; consider multi_precision=True")
        return self.create_state(index, weight)

    def _begin_step(self, name, index, weight, grad):
        """The start of an ``update`` of one weight: checks ``weight`` and ``grad`` (``name``
        names the optimizer in messages), counts the update of ``index`` and returns its
        ``(lr, wd)``."""
        _check_arrays(name, weight, grad)
        self._update_count(index)
        return self._get_lr(index), self._get_wd(index)

    def update(self, index, weight, grad, state):
        """Update ``weight`` (NDArray, in place) from ``grad`` (NDArray) and ``state``."""
        raise NotImplementedError(f"{type(self).__name__} must implement update()")

    def update_multi_precision(self, index, weight, grad, state):
        """``update``, or for float16 weights with ``multi_precision`` an update of the float32
        master copy in ``state[0]`` followed by a cast back into ``weight``."""
        if self.multi_precision and weight.dtype == np.float16:
            master, inner_state = state[0], state[1]
            grad32 = grad.astype(np.float32)
            self.update(index, master, grad32, inner_state)
            with torch.no_grad():
                weight._tensor.copy_(master._tensor)
        else:
            self.update(index, weight, grad, state)

    # -- pickling -----------------------------------------------------------------------------
    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("param_dict", None)
        return state

    def __setstate__(self, state):
        self.__dict__ = dict(state)
        self.param_dict = {}
        self.__dict__.setdefault("allow_np_array", False)
        self.__dict__.setdefault("aggregate_num", 0)


register = Optimizer.register
create = Optimizer.create_optimizer


class _FusedUpdateOptimizer(Optimizer):
    """Base of the optimizers whose update rule is one ``_update_impl(index, weight, grad, state,
    multi_precision)``, as MXNet's fused update operators: ``index`` / ``weight`` / ``grad`` /
    ``state`` are one parameter's or lists of them, and with ``multi_precision`` each state holds
    a float32 master copy of its float16 weight.

    ``update`` runs it without master copies; ``update_multi_precision`` with them when
    ``multi_precision`` is set and the (first) weight is float16.
    """

    def _update_impl(self, index, weight, grad, state, multi_precision=False):
        raise NotImplementedError(f"{type(self).__name__} must implement _update_impl()")

    def update(self, index, weight, grad, state):
        self._update_impl(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state):
        first = weight[0] if isinstance(index, (list, tuple)) else weight
        self._update_impl(index, weight, grad, state,
                          multi_precision=self.multi_precision and first.dtype == np.float16)


# -- helpers shared by the update rules ------------------------------------------------------------
def _zero_states(weight, count):
    """``count`` arrays of zeros shaped like ``weight``, in its dtype, on its context (the
    moment estimates of Adam and its relatives)."""
    return tuple(zeros(weight.shape, weight.context, dtype=weight.dtype) for _ in range(count))


def _check_arrays(name, weight, grad):
    if not isinstance(weight, NDArray) or not isinstance(grad, NDArray):
        raise MXNetError(f"{name}.update: weight and grad must be NDArrays, got "
                         f"{type(weight).__name__} and {type(grad).__name__}")
    if weight.shape != grad.shape:
        raise MXNetError(f"{name}.update: weight shape {weight.shape} and grad shape {grad.shape} differ")


def _lazy_rows(grad, lazy_update=True):
    """The rows a *lazy update* touches, or None for a full update.

    MXNet's update operators given a ``row_sparse`` gradient (and, for SGD and Adam,
    ``lazy_update=True``; FTRL always) update only the rows the gradient stores: weight decay,
    momentum and moment decay skip every other row.  The stored rows are the gradient's
    ``indices``: as given when it was built from explicit parts, else the rows holding a
    non-zero value.
    Returns an int64 tensor of row numbers, or None when the gradient is not row-sparse or
    ``lazy_update`` is False.
    """
    if lazy_update and getattr(grad, "stype", "default") == "row_sparse":
        return grad._stored_rows()
    return None


def _step_rows(step, rows, weight, grad, *states, **hyper_parameters):
    """Run the in-place update ``step(weight, grad, *states, **hyper_parameters)`` on torch
    tensors, on the rows ``rows`` only (see :func:`_lazy_rows`; None: on everything).  The
    rows of the weight and of every state (None entries stay None) are gathered, stepped and
    written back."""
    if rows is None:
        step(weight, grad, *states, **hyper_parameters)
        return
    if rows.numel() == 0:
        return
    targets = [weight] + [s for s in states if s is not None]
    gathered = {id(t): t.index_select(0, rows) for t in targets}
    step(gathered[id(weight)], grad.index_select(0, rows),
         *[None if s is None else gathered[id(s)] for s in states], **hyper_parameters)
    for target in targets:
        target.index_copy_(0, rows, gathered[id(target)])


def _as_list(index, weight, grad, state):
    if isinstance(index, (list, tuple)):
        return list(index), list(weight), list(grad), list(state)
    return [index], [weight], [grad], [state]


# -- Updater ---------------------------------------------------------------------------------------
def _check_number(optimizer, argument, value, allow_none=False):
    """MXNetError unless ``value`` is a real number (or None when allowed)."""
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise MXNetError(f"{optimizer}: {argument} must be a number, got {value!r}")


class Updater:
    """Applies an optimizer to parameters by index and keeps their states (MXNet's ``Updater``).

    ``updater(index, grad, weight)`` accepts one index with one NDArray each, or lists of
    them (as ``mx.model._update_params`` passes).  States are created on first use with
    ``optimizer.create_state_multi_precision``; states loaded by ``set_states`` are moved to
    the weight's context on the next call.
    """

    # Module's _update_params hands each device's parameters over in one call, as MXNet did
    supports_multiple = True

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}
        self.states_synced = {}
        self.aggregate_updates = optimizer.aggregate_num > 0

    def __call__(self, index, grad, weight):
        if isinstance(index, (list, tuple)):
            indices, grads, weights = list(index), list(grad), list(weight)
        else:
            indices, grads, weights = [index], [grad], [weight]
        if not (len(indices) == len(grads) == len(weights)):
            raise MXNetError(f"Updater: got {len(indices)} indices, {len(grads)} gradients and "
                             f"{len(weights)} weights; the counts must agree")
        if weights:
            self.optimizer._set_current_context(weights[0].context.device_id)
        for position, idx in enumerate(indices):
            if isinstance(idx, bytes):
                idx = py_str(idx)
                indices[position] = idx
            if idx not in self.states:
                self.states[idx] = self.optimizer.create_state_multi_precision(idx, weights[position])
                self.states_synced[idx] = True
            elif not self.states_synced.get(idx, False):
                self.states[idx] = self.sync_state_context(self.states[idx], weights[position].context)
                self.states_synced[idx] = True
        if self.aggregate_updates:
            groups = {}
            for idx, w, g in zip(indices, weights, grads):
                groups.setdefault(w.dtype, []).append((idx, w, g))
            size = self.optimizer.aggregate_num
            for members in groups.values():
                group_indices, group_weights, group_grads = zip(*members)
                for start in range(0, len(group_indices), size):
                    stop = start + size
                    states = [self.states[i] for i in group_indices[start:stop]]
                    self.optimizer.update_multi_precision(list(group_indices[start:stop]),
                                                          list(group_weights[start:stop]),
                                                          list(group_grads[start:stop]), states)
        else:
            for idx, w, g in zip(indices, weights, grads):
                self.optimizer.update_multi_precision(idx, w, g, self.states[idx])

    def sync_state_context(self, state, context):
        """``state`` (None, NDArray or nested tuples/lists of them) moved to ``context``."""
        if isinstance(state, NDArray):
            return state.as_in_context(context)
        if isinstance(state, (tuple, list)):
            synced = [self.sync_state_context(item, context) for item in state]
            return tuple(synced) if isinstance(state, tuple) else synced
        return state

    def set_states(self, states):
        """Load states from ``bytes`` in MXNet's ``.states`` pickle format.

        A pickled ``(states, optimizer)`` pair (``get_states(dump_optimizer=True)``) also
        replaces ``self.optimizer``.  Only NDArrays, plain containers and optimizer /
        lr-scheduler classes are accepted; anything else raises MXNetError.
        """
        loaded = loads_states(states, Optimizer.opt_registry)
        if isinstance(loaded, tuple) and len(loaded) == 2 and isinstance(loaded[0], dict) \
                and isinstance(loaded[1], Optimizer):
            self.states, self.optimizer = loaded
            self.aggregate_updates = self.optimizer.aggregate_num > 0
        elif isinstance(loaded, dict):
            self.states = loaded
        else:
            raise MXNetError(f"Updater.set_states: expected a pickled dict of states or a (states, "
                             f"optimizer) pair, got {type(loaded).__name__}")
        self.states_synced = dict.fromkeys(self.states.keys(), False)

    def get_states(self, dump_optimizer=False):
        """The states as ``bytes`` in MXNet's ``.states`` pickle format (protocol 4).

        NDArrays are written as MXNet writes them, so MXNet 1.9.1 loads the result; with
        ``dump_optimizer=True`` the pickle holds ``(states, optimizer)``.
        """
        return dumps_states((self.states, self.optimizer) if dump_optimizer else self.states)


def get_updater(optimizer):
    """An :class:`Updater` for ``optimizer`` (MXNet's ``get_updater``)."""
    return Updater(optimizer)


def __getattr__(name):
    """MXNet defined every optimizer in ``mxnet.optimizer.optimizer`` (and imported the update
    operators there from ``mx.nd``); mxtorch keeps one optimizer per file in this package, so the
    old module path resolves names through the optimizer classes of this package that
    ``register`` recorded (each file registers its classes when the package imports it), then
    through ``mx.nd`` and ``mx.nd.contrib`` (``multi_lamb_update``)."""
    if name.startswith("__"):
        raise AttributeError(name)
    for klass in Optimizer.opt_registry.values():
        if klass.__name__ == name and klass.__module__.startswith(_PACKAGE + "."):
            return klass
    for source in (_ndarray, _ndarray.contrib):
        try:
            return getattr(source, name)
        except AttributeError:
            continue
    raise AttributeError(f"module 'mxtorch.optimizer.optimizer' has no attribute {name!r}")


_PACKAGE = __name__.rpartition(".")[0]
