"""Gluon parameters (MXNet's ``mx.gluon.Parameter``, ``Constant`` and ``ParameterDict``).

A :class:`Parameter` holds one NDArray per context (its copies on several devices) and,
unless ``grad_req`` is 'null', one gradient NDArray per copy.  A shape with unknown
dimensions (0, MXNet's legacy convention) defers the allocation: ``initialize`` records the
initializer and the contexts, and the first forward pass, having inferred the shape from the
data, finishes it.  Values are NDArrays on the registered operators; gradients come from
``mx.autograd`` (the data arrays are marked with ``attach_grad``).

``ParameterDict.save`` / ``load`` and ``Block.save_parameters`` write MXNet's binary
``.params`` format (``mx.nd.save`` of a ``{name: NDArray}`` dict), so files move both ways
between mxtorch and MXNet 1.9.1.
"""
from __future__ import annotations

import re
import warnings
from collections import OrderedDict

import numpy as np

from .. import autograd
from .. import initializer
from .. import ndarray
from .. import symbol
from ..base import MXNetAssertionError, MXNetError, MXNetTypeError, MXNetValueError
from ..context import Context, cpu, current_context
from ..ndarray.gradients import hand_over_variable
from ..ndarray.ndarray import NDArray
from ..ndarray.sparse import to_storage
from ..base import mx_real_t  # noqa: F401  (MXNet's module namespace)
from ..util import is_np_array, is_np_shape  # noqa: F401
from collections import defaultdict  # noqa: F401

__all__ = ["DeferredInitializationError", "Parameter", "Constant", "ParameterDict", "tensor_types"]

tensor_types = (symbol.Symbol, NDArray)


class DeferredInitializationError(MXNetError):
    """A Parameter's value was read before its deferred initialization could finish."""


def _storage(array, stype):
    """``array`` as storage type ``stype`` (a fresh copy is converted without copying again)."""
    return array if array.stype == stype else to_storage(array, stype)


def _checked_dtype(dtype, name):
    """``dtype`` as given (a name, numpy type or numpy dtype: ``Parameter.dtype`` returns what
    was set, as MXNet's did, so ``cast('float16')`` gives ``'float16'``) after checking that
    numpy knows it; MXNetTypeError otherwise."""
    try:
        np.dtype(dtype)
    except TypeError:
        raise MXNetTypeError(f"Parameter {name!r}: unknown dtype {dtype!r}") from None
    return dtype


class ParameterShapeError(MXNetError, AssertionError):
    """A value's shape (or a declared storage type) disagrees with the Parameter (also an
    AssertionError, as MXNet raised an assertion for these)."""


def _indent(s_, numSpaces):
    """``s_`` with every line after the first indented by ``numSpaces`` spaces (block reprs)."""
    lines = s_.split("\n")
    if len(lines) == 1:
        return s_
    return lines[0] + "\n" + "\n".join(" " * numSpaces + line for line in lines[1:])


def _brief_print_list(names, limit=7):
    names = list(names)
    if len(names) > limit:
        return _brief_print_list(names[:limit // 2], limit) + ", ..., " + \
            _brief_print_list(names[-limit // 2:], limit)
    return ", ".join(f"'{name}'" for name in names)


def shape_is_known(shape):
    """Whether every dimension of ``shape`` is known (> 0; MXNet's legacy 0 = unknown)."""
    return _shape_known(shape)


def _shape_known(shape):
    return shape is not None and all(dim > 0 for dim in shape)


def _merge_shapes(existing, new):
    """``existing`` refined by ``new`` (0 / -1 dimensions are unknown), or None when they conflict."""
    if existing is None:
        return tuple(new)
    if len(existing) != len(new):
        return None
    merged = []
    for old, given in zip(existing, new):
        if old == given or given in (0, -1):
            merged.append(old)
        elif old in (0, -1):
            merged.append(given)
        else:
            return None
    return tuple(merged)


class Parameter:
    """A weight of a Block (MXNet's ``gluon.Parameter``).

    ``name``: the full name (``dense0_weight``); ``grad_req``: 'write', 'add' or 'null';
    ``shape``: a tuple, 0 for a dimension inferred at the first forward; ``dtype``: numpy
    dtype or its name (float32 by default); ``lr_mult`` / ``wd_mult``: multipliers of the
    optimizer's learning rate and weight decay; ``init``: an Initializer (or its name) used
    instead of the one given to ``initialize``; ``allow_deferred_init``: whether ``initialize``
    may wait for the shape; ``differentiable=False`` forces grad_req 'null'.  ``stype`` /
    ``grad_stype`` ('default', 'row_sparse' or 'csr'; anything else is an AssertionError, as
    in MXNet) give the storage type of the value / gradient arrays, which mxtorch holds dense
    (``mx.nd.sparse``).  A 'row_sparse' value is read with ``row_sparse_data(row_id)``, which
    needs a Trainer: as in MXNet, the Trainer's kvstore holds the weight and the call pulls
    the rows ``row_id`` into the copy on ``row_id``'s context (the other rows read zero).

    Reading ``data()`` before ``initialize`` raises MXNetError (a RuntimeError); before a
    deferred initialization finished, :class:`DeferredInitializationError`.
    """

    def __init__(self, name="weight", grad_req="write", shape=None, dtype=np.float32, lr_mult=1.0, wd_mult=1.0,
                 init=None, allow_deferred_init=False, differentiable=True, stype="default",
                 grad_stype="default"):
        self._var = None
        self._data = None
        self._grad = None
        self._ctx_list = None
        self._ctx_map = None
        self._deferred_init = ()
        self._differentiable = differentiable
        self._allow_deferred_init = allow_deferred_init
        self._grad_req = None
        self._trainer = None
        if isinstance(shape, int):
            shape = (shape,)
        self._shape = tuple(shape) if shape is not None else None
        self.name = name
        self._dtype = _checked_dtype(dtype, name) if dtype is not None else np.float32
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.init = init
        for label, value in (("stype", stype), ("grad_stype", grad_stype)):
            if value not in ("default", "row_sparse", "csr"):
                raise ParameterShapeError(f"Parameter {name!r}: {label} must be 'default', 'row_sparse' or "
                                          f"'csr', got {value!r}")
        self._stype = stype
        self._grad_stype = grad_stype
        self.grad_req = grad_req

    def __repr__(self):
        return f"Parameter {self.name} (shape={self.shape}, dtype={np.dtype(self.dtype).name})"

    # -- attributes -------------------------------------------------------------------------------
    @property
    def grad_req(self):
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req):
        if req not in ("write", "add", "null"):
            raise MXNetError(f"Parameter {self.name!r}: grad_req must be 'write', 'add' or 'null', got {req!r}")
        if not self._differentiable:
            req = "null"
        if self._grad_req == req:
            return
        self._grad_req = req
        if req == "null" and self._grad is not None:
            self._grad = None
            self._data = [array.detach() for array in self._data]
        elif self._data is not None:
            self._init_grad()

    @property
    def dtype(self):
        """The dtype as it was given (MXNet's behaviour): ``'float32'`` for layers, which pass
        names, ``numpy.float32`` for a Parameter made without one, ``'float16'`` after
        ``cast('float16')``."""
        return self._dtype

    @dtype.setter
    def dtype(self, dtype):
        """Setting the dtype casts the value and gradient (``cast``), as in MXNet."""
        self.cast(dtype)

    @property
    def shape(self):
        """The shape, a tuple (None when not given).  An unknown dimension is 0; under NumPy
        shape semantics (``npx.set_np()``, ``use_np``) it reads as -1, NumPy's unknown, since
        0 is a size there (MXNet 1.9.1: a Parameter is never zero-size, so a 0 given for it
        means unknown in both modes)."""
        if self._shape is not None and is_np_shape():
            return tuple(-1 if dim == 0 else dim for dim in self._shape)
        return self._shape

    @shape.setter
    def shape(self, new_shape):
        if new_shape is None:
            return
        new_shape = tuple(new_shape)
        merged = _merge_shapes(self._shape, new_shape)
        if merged is None:
            raise ParameterShapeError(f"Parameter {self.name!r}: expected shape {new_shape} is incompatible with "
                                      f"the given shape {self._shape}")
        self._shape = merged

    @property
    def stype(self):
        return self._stype

    @property
    def grad_stype(self):
        return self._grad_stype

    # -- initialization -----------------------------------------------------------------------------
    def initialize(self, init=None, ctx=None, default_init=initializer.Uniform(), force_reinit=False):
        """Allocate the value on each context of ``ctx`` (a Context or a list; the current
        context when None) and fill it: with ``init``, else this Parameter's own ``init``, else
        ``default_init`` (chosen by name suffix: weights by the initializer, ``bias`` / ``beta``
        zeros, ``gamma`` ones).  With an unknown shape the work waits for the first forward
        when ``allow_deferred_init``; otherwise MXNetError.  Initializing twice warns and keeps
        the value unless ``force_reinit``."""
        if self._data is not None and not force_reinit:
            warnings.warn(f"Parameter '{self.name}' is already initialized, ignoring. Set force_reinit=True to "
                          f"re-initialize.", stacklevel=2)
            return
        self._data = self._grad = None
        if ctx is None:
            ctx = [current_context()]
        if isinstance(ctx, Context):
            ctx = [ctx]
        if init is None:
            init = default_init if self.init is None else self.init
        if not _shape_known(self.shape):
            if self._allow_deferred_init:
                self._deferred_init = (init, ctx, default_init, None)
                return
            raise MXNetError(f"Cannot initialize Parameter '{self.name}' because it has invalid shape: "
                             f"{self.shape}.")
        self._deferred_init = (init, ctx, default_init, None)
        self._finish_deferred_init()

    def _finish_deferred_init(self):
        """Allocate and fill the value now that the shape is known (called by the forward)."""
        if not self._deferred_init:
            return
        init, ctx, default_init, data = self._deferred_init
        self._deferred_init = ()
        if not _shape_known(self.shape):
            raise MXNetError(f"Cannot initialize Parameter '{self.name}' because it has invalid shape: "
                             f"{self.shape}. Please specify in_units, in_channels, etc for `Block`s.")
        with autograd.pause():
            if data is None:
                data = ndarray.zeros(self.shape, ctx=cpu(), dtype=self.dtype)
                initializer.create(default_init)(initializer.InitDesc(self.name, {"__init__": init}), data)
            self._init_impl(data, ctx)

    def _init_impl(self, data, ctx_list):
        self._ctx_list = list(ctx_list)
        # MXNet's lookup table from (device kind, device id) to the position in _ctx_list: one
        # list for CPU kinds, one for GPUs (code built on Gluon, GluonNLP's WeightDropParameter,
        # copies it from Parameter to Parameter)
        self._ctx_map = [[], []]
        for position, ctx in enumerate(self._ctx_list):
            devices = self._ctx_map[ctx.device_typeid & 1]
            devices.extend([None] * (ctx.device_id + 1 - len(devices)))
            devices[ctx.device_id] = position
        self._data = [_storage(data.copyto(ctx) if data.context != ctx else data.copy(), self._stype)
                      for ctx in self._ctx_list]
        self._init_grad()

    def _init_grad(self):
        if self.grad_req == "null":
            self._grad = None
            return
        for array in self._data:
            array.attach_grad(self.grad_req, stype=self._grad_stype)
        self._grad = [array.grad for array in self._data]

    def _load_init(self, data, ctx, cast_dtype=False, dtype_source="current"):
        """Take ``data`` (an NDArray loaded from a file) as the value."""
        if self.shape:
            unknown_ok = len(self.shape) == len(data.shape) and all(
                mine in (0, -1) or mine == theirs for mine, theirs in zip(self.shape, data.shape))
            if not unknown_ok:
                raise ParameterShapeError(
                    f"Failed loading Parameter '{self.name}' from saved params: shape incompatible expected "
                    f"{self.shape} vs saved {data.shape}")
            self.shape = data.shape
        else:
            self._shape = tuple(data.shape)
        if cast_dtype:
            if dtype_source == "current":
                data = data.astype(self.dtype, copy=False)
            elif dtype_source == "saved":
                self.dtype = data.dtype
            else:
                raise MXNetError(f"load: dtype_source must be 'current' or 'saved', got {dtype_source!r}")
        elif np.dtype(self.dtype) != np.dtype(data.dtype):
            raise MXNetError(f"Failed loading Parameter '{self.name}' from saved params: dtype incompatible "
                             f"expected {np.dtype(self.dtype).name} vs saved {np.dtype(data.dtype).name}. Set "
                             f"cast_dtype=True to cast the dtype of saved params.")
        if isinstance(ctx, Context):
            ctx = [ctx]
        if self._data is None:
            if self._deferred_init:
                ctx = self._deferred_init[1]
            elif ctx is None:
                ctx = [cpu()]
            self._init_impl(data, ctx)
        else:
            self.set_data(data)
        self._deferred_init = ()

    # -- values ---------------------------------------------------------------------------------------
    def _check_and_get(self, arrays, ctx):
        if arrays is not None:
            if is_np_array():
                # under NumPy array semantics (npx.set_np()) a Parameter's arrays are mx.np arrays:
                # the same tensors, converted once in place (MXNet made them so at initialisation)
                for index, array in enumerate(arrays):
                    if type(array) is NDArray:
                        arrays[index] = array.as_np_ndarray()
                        hand_over_variable(array, arrays[index])
            if ctx is list:
                return arrays
            if ctx is None:
                if len(arrays) == 1:
                    return arrays[0]
                ctx = current_context()
            for array_ctx, array in zip(self._ctx_list, arrays):
                if array_ctx == ctx:
                    return array
            raise MXNetError(f"Parameter '{self.name}' was not initialized on context {ctx}. It was only "
                             f"initialized on {self._ctx_list}.")
        if self._deferred_init:
            raise DeferredInitializationError(
                f"Parameter '{self.name}' has not been initialized yet because initialization was deferred. "
                f"Actual initialization happens during the first forward pass. Please pass one batch of data "
                f"through the network before accessing Parameters. You can also avoid deferred initialization "
                f"by specifying in_units, num_features, etc., for network layers.")
        raise MXNetError(f"Parameter '{self.name}' has not been initialized. Note that you should initialize "
                         f"parameters and create Trainer with Block.collect_params() instead of Block.params "
                         f"because the later does not include Parameters of nested child Blocks")

    def data(self, ctx=None):
        """The value on ``ctx`` (the only copy, or the current context's), an NDArray."""
        if self._stype != "default":
            raise MXNetError(f"Cannot return a copy of Parameter '{self.name}' on ctx {ctx} via data() because "
                             f"its storage type is {self._stype}. Please use row_sparse_data() instead.")
        return self._check_and_get(self._data, ctx)

    def list_data(self):
        """The value on every context, in the order of ``list_ctx()``."""
        if self._stype != "default":
            raise MXNetError(f"Cannot return copies of Parameter '{self.name}' on all contexts via list_data() "
                             f"because its storage type is {self._stype}. Please use row_sparse_data() instead.")
        return self._check_and_get(self._data, list)

    def row_sparse_data(self, row_id):
        """Rows ``row_id`` of a row_sparse Parameter's value (mxtorch stores it densely)."""
        if self._stype != "row_sparse":
            raise MXNetError(f"Cannot return a copy of Parameter {self.name} via row_sparse_data() because its "
                             f"storage type is {self._stype}. Please use data() instead.")
        return self._get_row_sparse(row_id.context if isinstance(row_id, NDArray) else None, row_id)

    def list_row_sparse_data(self, row_id):
        """The copies on every context of a row_sparse Parameter, each holding the rows
        ``row_id`` pulled from the Trainer's kvstore (see ``row_sparse_data``)."""
        if self._stype != "row_sparse":
            raise MXNetError(f"Cannot return copies of Parameter '{self.name}' on all contexts via "
                             f"list_row_sparse_data() because its storage type is {self._stype}. Please use "
                             f"data() instead.")
        return self._get_row_sparse(list, row_id)

    def _get_row_sparse(self, ctx, row_id):
        if not isinstance(row_id, NDArray):
            raise MXNetTypeError(f"row_id must have NDArray type, but {type(row_id)} is given")
        if self._trainer is None:
            raise MXNetError(f"Cannot get row_sparse data for Parameter '{self.name}' when no Trainer is created "
                             f"with it.")
        results = self._check_and_get(self._data, ctx)
        self._trainer._row_sparse_pull(self, results, row_id)
        return results

    def grad(self, ctx=None):
        """The gradient on ``ctx``; MXNetError when grad_req is 'null'."""
        if self._data is not None and self._grad is None:
            raise MXNetError(f"Cannot get gradient array for Parameter '{self.name}' because grad_req='null'")
        return self._check_and_get(self._grad, ctx)

    def list_grad(self):
        if self._data is not None and self._grad is None:
            raise MXNetError(f"Cannot get gradient array for Parameter '{self.name}' because grad_req='null'")
        return self._check_and_get(self._grad, list)

    def list_ctx(self):
        """The contexts the value lives on (those given to initialize while deferred)."""
        if self._data is None:
            if self._deferred_init:
                return self._deferred_init[1]
            raise MXNetError(f"Parameter '{self.name}' has not been initialized")
        return self._ctx_list

    def zero_grad(self):
        """Set every gradient copy to 0."""
        if self._grad is None:
            return
        for grad in self._grad:
            grad[:] = 0

    def set_data(self, data):
        """Write ``data`` (NDArray or numpy array of this shape) into every copy."""
        self.shape = data.shape
        if self._data is None:
            if not self._deferred_init:
                raise MXNetError(f"Parameter '{self.name}' has not been initialized")
            self._deferred_init = self._deferred_init[:3] + (data if isinstance(data, NDArray)
                                                             else ndarray.array(data),)
            return
        trainer = self._trainer
        if trainer is not None and getattr(trainer, "_kv_initialized", False) and \
                getattr(trainer, "_update_on_kvstore", False):
            trainer._reset_kvstore()
        for array in self._check_and_get(self._data, list):
            array[:] = data

    def _set_trainer(self, trainer):
        """Remember the Trainer that updates this Parameter (``set_data`` resets its kvstore)."""
        if self._stype != "default" and self._trainer is not None and trainer is not None and \
                self._trainer is not trainer:
            raise MXNetError(f"Failed to set the trainer for Parameter '{self.name}' because it was already set. "
                             f"More than one trainers for a {self._stype} Parameter is not supported.")
        self._trainer = trainer

    def _reduce(self):
        """The value averaged over the contexts, on the CPU (what ``save`` writes); for a
        row_sparse Parameter with a Trainer, every row pulled from the Trainer's kvstore."""
        if self._stype != "default" and self._trainer is not None:
            with autograd.pause():
                data = ndarray.sparse.zeros(self._stype, self.shape, ctx=cpu(), dtype=self.dtype)
                rows = ndarray.arange(0, self.shape[0], dtype="int64", ctx=cpu())
                self._trainer._row_sparse_pull(self, data, rows, full_idx=True)
            return data
        arrays = self._check_and_get(self._data, list)
        if len(arrays) == 1:
            return arrays[0].copyto(cpu())
        total = arrays[0].copyto(cpu())
        for array in arrays[1:]:
            total = total + array.copyto(cpu())
        return total / len(arrays)

    def reset_ctx(self, ctx):
        """Move the value (and gradients) to ``ctx`` (a Context or a list)."""
        if ctx is None:
            ctx = [current_context()]
        if isinstance(ctx, Context):
            ctx = [ctx]
        if self._data is not None:
            data = self._reduce()
            with autograd.pause():
                self._init_impl(data, ctx)
        elif self._deferred_init:
            init, _, default_init, data = self._deferred_init
            self._deferred_init = (init, ctx, default_init, data)
        else:
            # a ValueError as in MXNet (GluonCV's model builders catch it)
            raise MXNetValueError(f"Cannot reset context for Parameter '{self.name}' because it has not been "
                                  f"initialized.")

    def cast(self, dtype):
        """Convert the value and gradient to ``dtype``."""
        self._dtype = _checked_dtype(dtype, self.name)
        self._var = None
        if self._data is None:
            return
        with autograd.pause():
            self._data = [array.astype(dtype) for array in self._data]
            if self._grad is None:
                return
            self._init_grad()

    def var(self):
        """This Parameter as a Symbol variable (name, shape, dtype, multipliers, init)."""
        if self._var is None:
            init = self.init
            self._var = symbol.var(self.name, shape=self.shape, dtype=self.dtype, lr_mult=self.lr_mult,
                                   wd_mult=self.wd_mult, init=init if init is None or isinstance(init, str)
                                   else init, stype=self._stype)
        return self._var


class Constant(Parameter):
    """A Parameter whose value never changes (grad_req 'null'; MXNet's ``gluon.Constant``).
    ``value``: an NDArray, a numpy array or nested lists; its shape and dtype are kept."""

    def __init__(self, name, value):
        if not isinstance(value, NDArray):
            value = ndarray.array(value)
        self.value = value

        class _ConstantInit(initializer.Initializer):
            def _init_weight(self, _, arr):
                arr[:] = value

            def dumps(self):
                return initializer.Constant(value.asnumpy().tolist()).dumps()
        super().__init__(name=name, grad_req="null", shape=value.shape, dtype=value.dtype,
                         init=_ConstantInit())

    def __repr__(self):
        return f"Constant {self.name} (shape={self.shape}, dtype={np.dtype(self.dtype).name})"

    @property
    def grad_req(self):
        return "null"

    @grad_req.setter
    def grad_req(self, req):
        if req != "null":
            warnings.warn(f"Constant parameter \"{self.name}\" does not support grad_req other than \"null\", "
                          f"and new value \"{req}\" is ignored.", stacklevel=2)
        self._grad_req = "null"


def load_named_arrays(filename, caller):
    """The ``{name: NDArray}`` dict of a parameter file.  A file of zero records (what saving an
    empty dict or list writes: MXNet's format keeps no names then) is the empty dict, as MXNet's
    loaders treat it; a file of unnamed arrays raises MXNetError naming ``caller``.  A file saved
    without NumPy shape semantics also loads under them (after ``npx.set_np()``; MXNet 1.9.1
    refused, apache/mxnet#18918)."""
    from ..ndarray.serialization import classic_records_under_np_shape
    with classic_records_under_np_shape():
        loaded = ndarray.load(filename)
    if isinstance(loaded, list) and not loaded:
        return {}
    if not isinstance(loaded, dict):
        raise MXNetError(f"{caller}: {filename} holds a list of {len(loaded)} arrays, not a name -> array dict")
    return loaded


class ParameterDict:
    """An ordered name -> Parameter dict with a name prefix (MXNet's ``gluon.ParameterDict``).
    ``shared``: another ParameterDict whose Parameters ``get`` returns instead of creating new
    ones (parameter sharing between Blocks)."""

    def __init__(self, prefix="", shared=None):
        self._prefix = prefix
        self._params = OrderedDict()
        self._shared = shared

    def __repr__(self):
        body = "\n".join(f"  {value}" for value in self.values())
        return f"{self._prefix} (\n{body}\n)" if self._prefix else f"(\n{body}\n)"

    def __getitem__(self, key):
        return self._params[key]

    def __iter__(self):
        return iter(self._params)

    def __len__(self):
        return len(self._params)

    def __contains__(self, key):
        return key in self._params

    def items(self):
        return self._params.items()

    def keys(self):
        return self._params.keys()

    def values(self):
        return self._params.values()

    @property
    def prefix(self):
        return self._prefix

    def _get_impl(self, name):
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._params[name]
        return None

    def get(self, name, **kwargs):
        """The Parameter ``prefix + name``, created with ``kwargs`` (Parameter's arguments) when
        it does not exist.  For an existing one, given attributes must agree with the stored
        ones (unknown shape dimensions are filled in); a conflict raises MXNetError."""
        name = self._prefix + name
        param = self._get_impl(name)
        if param is None:
            param = Parameter(name, **kwargs)
            self._params[name] = param
            return param
        for key, value in kwargs.items():
            existing = getattr(param, key, None)
            if existing is None or value is None:
                if value is not None:
                    setattr(param, key, value)
                continue
            if key == "shape":
                value = (value,) if isinstance(value, int) else tuple(value)
                merged = _merge_shapes(existing, value)
                if merged is not None:
                    param._shape = merged
                    continue
            elif key == "dtype" and np.dtype(value) == np.dtype(existing):
                continue
            elif value == existing:
                continue
            raise MXNetError(f"Cannot retrieve Parameter '{name}' because desired attribute does not match with "
                             f"stored for attribute '{key}': desired '{value}' vs stored '{existing}'.")
        return param

    def get_constant(self, name, value=None):
        """The Constant ``prefix + name``; created from ``value`` when it does not exist."""
        name = self._prefix + name
        param = self._get_impl(name)
        if param is None:
            if value is None:
                raise MXNetError(f"No constant named '{name}'. Please specify value if you want to create a "
                                 f"new constant.")
            param = Constant(name, value)
            self._params[name] = param
        elif value is not None:
            if not isinstance(param, Constant):
                raise MXNetError(f"Parameter '{name}' already exists but it is not a constant.")
            if isinstance(value, NDArray):
                value = value.asnumpy()
            if param.shape != np.shape(value) or not np.array_equal(param.value.asnumpy(), value):
                raise MXNetError(f"Constant '{name}' already exists but it's value doesn't match new value")
        return param

    def update(self, other):
        """Add the Parameters of ``other``; the same name bound to another Parameter raises."""
        for key, value in other.items():
            if key in self._params and self._params[key] is not value:
                raise MXNetError(f"Cannot update self with other because they have different Parameters with "
                                 f"the same name '{key}'")
        for key, value in other.items():
            self._params[key] = value

    def initialize(self, init=initializer.Uniform(), ctx=None, verbose=False, force_reinit=False):
        """``Parameter.initialize`` on every Parameter, ``init`` being the default initializer."""
        if verbose:
            init.set_verbosity(verbose=verbose)
        for param in self.values():
            param.initialize(None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self):
        for param in self.values():
            param.zero_grad()

    def reset_ctx(self, ctx):
        for param in self.values():
            param.reset_ctx(ctx)

    def list_ctx(self):
        contexts = []
        for param in self.values():
            for ctx in param.list_ctx():
                if ctx not in contexts:
                    contexts.append(ctx)
        return contexts

    def setattr(self, name, value):
        """Set attribute ``name`` (e.g. 'grad_req', 'lr_mult') of every Parameter."""
        for param in self.values():
            setattr(param, name, value)

    def save(self, filename, strip_prefix=""):
        """Write the values to ``filename`` in MXNet's ``.params`` format, names without
        ``strip_prefix`` (which every name must start with)."""
        arrays = {}
        for param in self.values():
            if not param.name.startswith(strip_prefix):
                raise MXNetError(f"Prefix '{strip_prefix}' is to be striped before saving, but Parameter's name "
                                 f"'{param.name}' does not start with '{strip_prefix}'. this may be due to your "
                                 f"Block shares parameters from other Blocks or you forgot to use "
                                 f"'with name_scope()' when creating child blocks.")
            arrays[param.name[len(strip_prefix):]] = param._reduce()
        ndarray.save(filename, arrays)

    def load(self, filename, ctx=None, allow_missing=False, ignore_extra=False, restore_prefix="",
             cast_dtype=False, dtype_source="current"):
        """Read values saved by ``save`` (or MXNet; ``arg:`` / ``aux:`` prefixes are dropped),
        prepending ``restore_prefix`` to the stored names.  Missing and extra names raise
        MXNetError unless ``allow_missing`` / ``ignore_extra``."""
        if restore_prefix:
            for name in self.keys():
                if not name.startswith(restore_prefix):
                    raise MXNetError(f"restore_prefix is '{restore_prefix}' but Parameters name '{name}' does "
                                     f"not start with '{restore_prefix}'")
        loaded = load_named_arrays(filename, "load")
        self.load_dict(loaded, ctx, allow_missing, ignore_extra, restore_prefix, filename, cast_dtype,
                       dtype_source)

    def load_dict(self, param_dict, ctx=None, allow_missing=False, ignore_extra=False, restore_prefix="",
                  filename=None, cast_dtype=False, dtype_source="current"):
        """``load`` from a ``{name: NDArray}`` dict."""
        prefix_length = len(restore_prefix)
        arrays = {}
        for key, value in param_dict.items():
            if key.startswith("arg:") or key.startswith("aux:"):
                key = key[4:]
            arrays[restore_prefix + key] = value
        source = f"file: {filename}" if filename else "param_dict"
        if not allow_missing:
            for name in self.keys():
                if name not in arrays:
                    raise MXNetAssertionError(f"Parameter '{name[prefix_length:]}' is missing in {source}, which contains "
                                     f"parameters: {_brief_print_list(arrays)}. Please make sure source and "
                                     f"target networks have the same prefix.")
        for name, value in arrays.items():
            if name not in self._params:
                if not ignore_extra:
                    raise MXNetAssertionError(f"Parameter '{name[prefix_length:]}' loaded from {source} is not present in "
                                     f"ParameterDict, choices are: {_brief_print_list(self._params)}. Set "
                                     f"ignore_extra to True to ignore. Please make sure source and target "
                                     f"networks have the same prefix.")
                continue
            self[name]._load_init(value, ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)


class SelectPatternError(MXNetValueError, re.error):
    """A ``select`` argument that is not a valid regular expression: both an MXNetError (a
    ValueError) and the ``re.error`` that MXNet let through, so handlers for either keep working."""

    def __init__(self, message, cause):
        super().__init__(message)
        self.msg, self.pattern, self.pos = cause.msg, cause.pattern, cause.pos
        self.lineno, self.colno = cause.lineno, cause.colno
        self._arguments = (message, cause)

    def __reduce__(self):
        return type(self), self._arguments


def _select_pattern(select, caller):
    """``re.compile(select)`` for ``caller`` (``'collect_params'``): a str or compiled pattern
    the parameter names must match from their start, as MXNet; else MXNetTypeError, and
    SelectPatternError for a string that is not a regular expression."""
    if isinstance(select, re.Pattern):
        return select
    if not isinstance(select, str):
        raise MXNetTypeError(f"{caller}: select must be a regular expression (a str such as '.*weight|.*bias', "
                             f"or a compiled re.Pattern) matched against parameter names, got "
                             f"{type(select).__name__} {select!r}")
    try:
        return re.compile(select)
    except re.error as error:
        raise SelectPatternError(f"{caller}: select must be a regular expression matched against parameter "
                                 f"names (such as '.*weight|.*bias'), got {select!r}, which is not one: "
                                 f"{error} (re.escape(name) matches a name literally)", error) from None


def _select(params, select, caller="select"):
    """The Parameters of ``params`` whose names match the regular expression ``select``."""
    pattern = _select_pattern(select, caller)
    return {name: value for name, value in params.items() if pattern.match(name)}
