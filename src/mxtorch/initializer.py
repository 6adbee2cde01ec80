"""``mx.init`` / ``mx.initializer``: parameter initializers with MXNet 1.9.1's dispatch rules.

An initializer is called as ``init(desc, arr)`` with an :class:`InitDesc` (the parameter's
name plus its symbol attributes) and the NDArray to fill in place.  The variable attribute
``__init__`` (a JSON string such as ``'["normal", {"sigma": 0.1}]'``, as written by
``Initializer.dumps()``) selects another initializer for that one array; otherwise the name
decides:

==========================================  ===============================
name ends with                              filled by
==========================================  ===============================
``weight``                                  ``_init_weight`` (the subclass' rule)
``bias``                                    ``_init_bias`` (zeros)
``gamma``                                   ``_init_gamma`` (ones)
``beta``                                    ``_init_beta`` (zeros)
``min`` / ``max``                           zeros / ones
``weight_quantize`` / ``bias_quantize``     random int8 / zeros
``moving_mean``, ``moving_inv_var``,        zeros
``moving_avg``
``moving_var``                              ones
==========================================  ===============================

A name ending in ``parameters`` whose attributes are an ``RNN`` operator's (``mode``,
``state_size``, ``num_layers``, ``bidirectional``) is unpacked as :class:`FusedRNN` does: weight
matrices from this initializer, biases zero (MXNet raised for it).  Any other name raises
MXNetError ("Unknown initialization pattern ...").  MXNet set
the BatchNorm statistics through ``__init__`` attributes of the symbol; mxtorch also accepts
them by name, so symbols that lack the attributes initialize the same way.  A plain ``str``
instead of an InitDesc uses MXNet's legacy rules (``upsampling*`` -> bilinear, ``stn_loc*``).

Random initializers draw from torch's generator on the array's device, so
``mx.random.seed(n)`` (which seeds torch) makes them repeat.
"""
from __future__ import annotations

import json
import logging
import math
import re
import warnings

import numpy as np
import torch

from .base import MXNetError, MXNetValueError
from .ndarray.ndarray import NDArray
from .registry import alias_decorator
# names MXNet 1.9.1's mxnet.initializer had in its namespace from its ctypes binding
from .base import string_types  # noqa: E402,F401
# names MXNet 1.9.1's mxnet.initializer had in its namespace (imported there, not defined)
from math import sqrt  # noqa: E402,F401
from .util import is_np_array  # noqa: E402,F401
# names MXNet 1.9.1's mxnet.initializer had in its namespace (imported there, not defined)
from .ndarray import load  # noqa: E402,F401

__all__ = ["InitDesc", "Initializer", "register", "alias", "create", "Load", "Mixed", "Zero", "One",
           "Constant", "Uniform", "Normal", "Orthogonal", "Xavier", "MSRAPrelu", "Bilinear", "LSTMBias",
           "FusedRNN"]


class InitDesc(str):
    """The name of a parameter to initialize, with its attributes (MXNet's ``InitDesc``).

    A ``str`` subclass: ``name`` is the string value; ``attrs`` is the dict of the
    variable's attributes (from ``Symbol.attr_dict()``, may hold ``__init__``);
    ``global_init`` is the initializer to fall back to (set on first use).
    """

    def __new__(cls, name, attrs=None, global_init=None):
        instance = super().__new__(cls, name)
        instance.attrs = attrs or {}
        instance.global_init = global_init
        return instance


_REGISTRY = {}


def _register_as(klass, name):
    if not (isinstance(klass, type) and issubclass(klass, Initializer)):
        raise MXNetError(f"initializer register: expected a subclass of Initializer, got {klass!r}")
    key = name.lower()
    previous = _REGISTRY.get(key)
    if previous is not None and previous is not klass:
        warnings.warn(f"initializer register: {klass.__module__}.{klass.__name__} overrides "
                      f"{previous.__module__}.{previous.__name__} registered as {key!r}")
    _REGISTRY[key] = klass
    return klass


def register(klass):
    """Register an Initializer subclass under its lower-cased class name; usable as a decorator.

    Registered initializers can be created by name (``create('xavier')``), from a JSON
    ``dumps()`` string, and selected through a variable's ``__init__`` attribute.
    """
    return _register_as(klass, klass.__name__)


alias = alias_decorator(_register_as, "Decorator registering an Initializer subclass under extra names "
                                      "(``@alias('zeros')``).")


def create(*args, **kwargs):
    """An initializer from an instance (returned as is), a registered name with keyword
    arguments, a JSON string ``'["name", {kwargs}]'`` / ``'{"initializer": ...}'`` or a dict.

    Raises MXNetError for an unregistered name or malformed input.
    """
    if args:
        spec, args = args[0], args[1:]
    elif "initializer" in kwargs:
        spec = kwargs.pop("initializer")
    else:
        raise MXNetError("initializer create: give an initializer name, instance or JSON string")
    if isinstance(spec, Initializer):
        if args or kwargs:
            raise MXNetError(f"initializer create: {spec!r} is already an instance; extra arguments are invalid")
        return spec
    if isinstance(spec, dict):
        return create(**spec)
    if not isinstance(spec, str):
        raise MXNetError(f"initializer create: expected a str, dict or Initializer, got {type(spec).__name__}")
    text = spec.strip()
    if text.startswith("[") or text.startswith("{"):
        if args or kwargs:
            raise MXNetError("initializer create: a JSON description takes no extra arguments")
        try:
            parsed = json.loads(text)
        except ValueError as error:
            raise MXNetError(f"initializer create: invalid JSON {spec!r}: {error}") from None
        if isinstance(parsed, list):
            if len(parsed) != 2 or not isinstance(parsed[0], str) or not isinstance(parsed[1], dict):
                raise MXNetError(f"initializer create: expected '[\"name\", {{kwargs}}]', got {spec!r}")
            return create(parsed[0], **parsed[1])
        if not isinstance(parsed, dict):
            raise MXNetError(f"initializer create: expected a JSON list or object, got {spec!r}")
        return create(**parsed)
    klass = _REGISTRY.get(text.lower())
    if klass is None:
        raise MXNetError(f"initializer create: {spec!r} is not registered; registered initializers are "
                         f"{sorted(_REGISTRY)}")
    return klass(*args, **kwargs)


def _fill(arr, value):
    """Write ``value`` (scalar, numpy array, NDArray or tensor) into NDArray ``arr`` in place."""
    arr[:] = value


class Initializer:
    """Base class of the initializers (MXNet's ``Initializer``).

    ``__call__(desc, arr)`` fills the NDArray ``arr`` in place according to ``desc`` (see the
    module docstring).  ``kwargs`` are kept in ``_kwargs`` and serialised by :meth:`dumps`.
    """

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._verbose = False
        self._print_func = None

    def set_verbosity(self, verbose=False, print_func=None):
        """Log a statistic of every initialized array (default: ``norm(x) / sqrt(x.size)``)."""
        self._verbose = verbose
        if print_func is None:
            def print_func(x):
                tensor = x._tensor.detach().float()
                return str(float(torch.linalg.vector_norm(tensor)) / math.sqrt(max(tensor.numel(), 1)))
        self._print_func = print_func
        return self

    def _verbose_print(self, desc, init, arr):
        if self._verbose and self._print_func:
            logging.info("Initialized %s as %s: %s", desc, init, self._print_func(arr))

    def dumps(self):
        """A JSON string ``'["<lower-cased class name>", {kwargs}]'`` that :func:`create` reads."""
        return json.dumps([type(self).__name__.lower(), self._kwargs])

    def __call__(self, desc, arr):
        if not isinstance(arr, NDArray):
            raise MXNetError(f"{type(self).__name__}: expected an NDArray to initialize, got {type(arr).__name__}")
        try:
            self._dispatch(desc, arr)
        except (NotImplementedError, RuntimeError) as error:
            if arr._tensor.is_floating_point() or arr._tensor.is_complex():
                raise
            raise MXNetError(
                f"{type(self).__name__}: cannot fill {str(desc)!r} of dtype {np.dtype(arr.dtype).name} "
                f"({error}); a graph's parameters take the dtype of its data (integer data gives integer "
                f"weights): cast the data to float32 (DataDesc dtype / iterator dtype) or give the "
                f"parameter a float dtype (type_dict / Variable(dtype=...))") from error

    def _dispatch(self, desc, arr):
        if not isinstance(desc, InitDesc):
            self._legacy_init(desc, arr)
            return
        if desc.global_init is None:
            desc.global_init = self
        init = desc.attrs.get("__init__", "")
        if init:
            create(init)._init_weight(desc, arr)
            self._verbose_print(desc, init, arr)
            return
        for suffix, method, label in _DISPATCH:
            if desc.endswith(suffix):
                getattr(self, method)(desc, arr)
                self._verbose_print(desc, label, arr)
                return
        if desc.endswith("parameters") and "mode" in desc.attrs and "state_size" in desc.attrs:
            self._init_fused_rnn_parameters(desc, arr)
            self._verbose_print(desc, "parameters", arr)
            return
        self._init_default(desc, arr)

    def _init_fused_rnn_parameters(self, desc, arr):
        """Fill the packed ``parameters`` of an ``RNN`` operator from its attributes.

        MXNet 1.9.1 raised "Unknown initialization pattern" here unless the variable had an
        ``__init__`` attribute; mxtorch unpacks the vector as :class:`FusedRNN` does and fills
        each weight matrix with this initializer and every bias with zeros.
        """
        from .base import parse_bool
        attrs = desc.attrs
        FusedRNN(None, int(attrs["state_size"]), int(attrs.get("num_layers", 1)), attrs["mode"],
                 parse_bool(attrs.get("bidirectional", False), "bidirectional"),
                 forget_bias=0.0)._init_weight(desc, arr)

    def _legacy_init(self, name, arr):
        """MXNet's rules for a plain string name (kept for old code; prefer InitDesc).

        Warns with DeprecationWarning, as MXNet does.
        """
        warnings.warn("Calling an initializer with init(str, NDArray) is deprecated; use "
                      "init(mx.init.InitDesc(...), NDArray) instead", DeprecationWarning, stacklevel=3)
        if not isinstance(name, str):
            raise MXNetError(f"{type(self).__name__}: the name must be a string or InitDesc, got "
                             f"{type(name).__name__}")
        if name.startswith("upsampling"):
            self._init_bilinear(name, arr)
        elif name.startswith("stn_loc") and name.endswith("weight"):
            self._init_zero(name, arr)
        elif name.startswith("stn_loc") and name.endswith("bias"):
            self._init_loc_bias(name, arr)
        elif name.endswith("bias"):
            self._init_bias(name, arr)
        elif name.endswith("gamma"):
            self._init_gamma(name, arr)
        elif name.endswith("beta"):
            self._init_beta(name, arr)
        elif name.endswith("weight"):
            self._init_weight(name, arr)
        elif name.endswith("moving_mean"):
            self._init_zero(name, arr)
        elif name.endswith("moving_var"):
            self._init_one(name, arr)
        elif name.endswith("moving_inv_var"):
            self._init_zero(name, arr)
        elif name.endswith("moving_avg"):
            self._init_zero(name, arr)
        elif name.endswith("min"):
            self._init_zero(name, arr)
        elif name.endswith("max"):
            self._init_one(name, arr)
        else:
            self._init_default(name, arr)

    def _init_bilinear(self, _, arr):
        _fill(arr, _bilinear_kernel(arr.shape))

    def _init_loc_bias(self, _, arr):
        if arr.shape[0] != 6:
            raise MXNetError(f"_init_loc_bias: a spatial-transformer location bias has 6 entries, got shape {arr.shape}")
        _fill(arr, np.array([1.0, 0, 0, 0, 1.0, 0]))

    def _init_zero(self, _, arr):
        _fill(arr, 0.0)

    def _init_one(self, _, arr):
        _fill(arr, 1.0)

    def _init_bias(self, _, arr):
        _fill(arr, 0.0)

    def _init_quantized_bias(self, _, arr):
        _fill(arr, 0)

    def _init_gamma(self, _, arr):
        _fill(arr, 1.0)

    def _init_beta(self, _, arr):
        _fill(arr, 0.0)

    def _init_weight(self, name, arr):
        """Fill a weight; each subclass defines its rule."""
        raise NotImplementedError(f"{type(self).__name__} must implement _init_weight")

    def _init_quantized_weight(self, _, arr):
        values = torch.randint(-127, 127, tuple(arr.shape), device=arr._tensor.device)
        _fill(arr, values.to(torch.int8))

    def _init_default(self, name, _):
        raise MXNetError(f"Unknown initialization pattern for {name}. Default initialization is limited to "
                         f"names ending in \"weight\", \"bias\", \"gamma\" (1.0), \"beta\" (0.0) and the "
                         f"BatchNorm statistics; use mx.sym.Variable(init=mx.init.*) to set the "
                         f"initialization of other parameters")

    def __eq__(self, other):
        if not isinstance(other, Initializer):
            return NotImplemented
        return type(self) is type(other) and self._kwargs == other._kwargs

    __hash__ = object.__hash__

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self._kwargs.items())})"


# suffix -> method; checked in order, first match wins (as MXNet's chain of endswith tests)
_DISPATCH = (
    ("weight", "_init_weight", "weight"),
    ("bias", "_init_bias", "bias"),
    ("gamma", "_init_gamma", "gamma"),
    ("beta", "_init_beta", "beta"),
    ("min", "_init_zero", "min"),
    ("max", "_init_one", "max"),
    ("weight_quantize", "_init_quantized_weight", "weight_quantize"),
    ("bias_quantize", "_init_quantized_bias", "bias_quantize"),
    ("moving_mean", "_init_zero", "moving_mean"),
    ("moving_var", "_init_one", "moving_var"),
    ("moving_inv_var", "_init_zero", "moving_inv_var"),
    ("moving_avg", "_init_zero", "moving_avg"),
)


def _bilinear_kernel(shape):
    """The bilinear upsampling kernel for a ``(out, in, height, width)`` weight, as a numpy array.

    Entry ``(y, x)`` of every 2-D slice is ``(1 - |x / f - c|) * (1 - |y / f - c|)`` with
    ``f = ceil(width / 2)`` and ``c = (2 f - 1 - f mod 2) / (2 f)``.
    """
    if len(shape) != 4:
        raise MXNetError(f"Bilinear: expects a 4-D weight (out, in, height, width), got shape {shape}")
    f = np.ceil(shape[3] / 2.0)
    c = (2 * f - 1 - f % 2) / (2.0 * f)
    x = np.arange(shape[3])
    y = np.arange(shape[2])
    kernel = (1 - np.abs(y[:, None] / f - c)) * (1 - np.abs(x[None, :] / f - c))
    return np.broadcast_to(kernel.astype(np.float32), shape).copy()


class Load:
    """Initialize from saved arrays (MXNet's ``Load``).

    ``param`` is a ``.params`` file name or a dict of name -> NDArray; ``arg:`` / ``aux:``
    prefixes are dropped.  Names not found go to ``default_init`` (MXNetError without one);
    a shape mismatch raises MXNetError.
    """

    def __init__(self, param, default_init=None, verbose=False):
        if isinstance(param, str):
            from .ndarray import load
            param = load(param)
        if not isinstance(param, dict):
            raise MXNetError(f"Load: param must be a file name or a dict of name to NDArray, got "
                             f"{type(param).__name__}")
        self.param = {}
        for name, arr in param.items():
            if name.startswith("arg:") or name.startswith("aux:"):
                self.param[name[4:]] = arr
            else:
                self.param[name] = arr
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name, arr):
        if name in self.param:
            if tuple(arr.shape) != tuple(self.param[name].shape):
                raise MXNetError(f"Parameter {name} cannot be initialized from loading. Shape mismatch, "
                                 f"target {tuple(arr.shape)} vs loaded {tuple(self.param[name].shape)}")
            _fill(arr, self.param[name])
            if self.verbose:
                logging.info("Initialized %s by loading", name)
        else:
            if self.default_init is None:
                raise MXNetError(f"Cannot initialize {name}: not found in the loaded parameters and no "
                                 f"default initializer is provided")
            self.default_init(name, arr)
            if self.verbose:
                logging.info("Initialized %s by default", name)


class Mixed:
    """Apply the initializer of the first regular expression that matches the name (``re.match``).

    ``patterns`` and ``initializers`` are lists of equal length; a name no pattern matches
    raises MXNetError (end with ``'.*'`` for a default).
    """

    def __init__(self, patterns, initializers):
        if len(patterns) != len(initializers):
            raise MXNetError(f"Mixed: got {len(patterns)} patterns but {len(initializers)} initializers")
        self.map = list(zip([re.compile(p) for p in patterns], initializers))

    def __call__(self, name, arr):
        for program, init in self.map:
            if program.match(name):
                init(name, arr)
                return
        raise MXNetError(f"Mixed: parameter name {name} did not match any pattern; consider adding a "
                         f"'.*' pattern at the end with a default initializer")


@register
@alias("zeros")
class Zero(Initializer):
    """Fill weights with 0."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        _fill(arr, 0)


@register
@alias("ones")
class One(Initializer):
    """Fill weights with 1."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        _fill(arr, 1)


@register
class Constant(Initializer):
    """Fill weights with ``value``: a scalar, or an array (numpy/NDArray/list) broadcastable to them."""

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, _, arr):
        value = self.value
        if isinstance(value, list):
            value = np.asarray(value, dtype=np.float64)
        _fill(arr, value)

    def dumps(self):
        value = self._kwargs["value"]
        if not np.isscalar(value):
            if isinstance(value, np.ndarray):
                value = value.tolist()
            elif isinstance(value, NDArray):
                value = value.asnumpy().tolist()
            self._kwargs["value"] = value
        return json.dumps([type(self).__name__.lower(), self._kwargs])


@register
class Uniform(Initializer):
    """Fill weights from U(-scale, scale) (default scale 0.07)."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _, arr):
        with torch.no_grad():
            arr._tensor.uniform_(-self.scale, self.scale)


@register
class Normal(Initializer):
    """Fill weights from N(0, sigma^2) (default sigma 0.01)."""

    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, _, arr):
        with torch.no_grad():
            arr._tensor.normal_(0.0, self.sigma)


@register
class Orthogonal(Initializer):
    """Fill a weight of shape ``(out, ...)`` with ``scale`` times an orthonormal matrix.

    A random ``(out, prod(rest))`` matrix (U(-1, 1) for ``rand_type='uniform'``, N(0, 1) for
    ``'normal'``) is decomposed by SVD; the factor with that shape (rows orthonormal when
    ``out <= prod(rest)``, columns otherwise) is used.
    """

    def __init__(self, scale=1.414, rand_type="uniform"):
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, _, arr):
        rows = arr.shape[0]
        columns = int(np.prod(arr.shape[1:]))
        device = arr._tensor.device
        if self.rand_type == "uniform":
            sample = torch.empty((rows, columns), dtype=torch.float32, device=device).uniform_(-1.0, 1.0)
        elif self.rand_type == "normal":
            sample = torch.empty((rows, columns), dtype=torch.float32, device=device).normal_(0.0, 1.0)
        else:
            raise MXNetError(f"Orthogonal: rand_type must be 'uniform' or 'normal', got {self.rand_type!r}")
        u, _, vh = torch.linalg.svd(sample.double(), full_matrices=False)
        result = u if tuple(u.shape) == (rows, columns) else vh
        with torch.no_grad():
            arr._tensor.copy_((self.scale * result).reshape(arr.shape).to(arr._tensor.dtype))


@register
class Xavier(Initializer):
    """Xavier/Glorot initialization (MXNet's ``Xavier``).

    For a weight of shape ``(out, in, *kernel)``, ``fan_in = in * prod(kernel)`` and
    ``fan_out = out * prod(kernel)``; ``factor`` is their mean (``'avg'``), ``fan_in``
    (``'in'``) or ``fan_out`` (``'out'``), and ``scale = sqrt(magnitude / factor)``.  Values
    are U(-scale, scale) for ``rnd_type='uniform'`` or N(0, scale^2) for ``'gaussian'``.
    Weights with fewer than 2 dimensions raise MXNetError.
    """

    def __init__(self, rnd_type="uniform", factor_type="avg", magnitude=3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def _init_weight(self, name, arr):
        shape = arr.shape
        if len(shape) < 2:
            raise MXNetError(f"Xavier initializer cannot be applied to vector {name}. It requires at least "
                             f"2D; got shape {shape}")
        receptive = float(np.prod(shape[2:])) if len(shape) > 2 else 1.0
        fan_in, fan_out = shape[1] * receptive, shape[0] * receptive
        if self.factor_type == "avg":
            factor = (fan_in + fan_out) / 2.0
        elif self.factor_type == "in":
            factor = fan_in
        elif self.factor_type == "out":
            factor = fan_out
        else:
            raise MXNetError(f"Xavier: factor_type must be 'avg', 'in' or 'out', got {self.factor_type!r}")
        scale = math.sqrt(self.magnitude / factor)
        with torch.no_grad():
            if self.rnd_type == "uniform":
                arr._tensor.uniform_(-scale, scale)
            elif self.rnd_type == "gaussian":
                arr._tensor.normal_(0.0, scale)
            else:
                raise MXNetValueError(f"Xavier: rnd_type must be 'uniform' or 'gaussian', got {self.rnd_type!r}")


@register
class MSRAPrelu(Xavier):
    """He/MSRA initialization for PReLU nets: Gaussian Xavier with magnitude ``2 / (1 + slope**2)``."""

    def __init__(self, factor_type="avg", slope=0.25):
        magnitude = 2.0 / (1 + slope ** 2)
        super().__init__("gaussian", factor_type, magnitude)
        self._kwargs = {"factor_type": factor_type, "slope": slope}


@register
class Bilinear(Initializer):
    """Bilinear upsampling kernels for Deconvolution weights ``(out, in, height, width)``."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        _fill(arr, _bilinear_kernel(arr.shape))


@register
class LSTMBias(Initializer):
    """LSTM bias: zeros except the forget gate (the second quarter of the vector) = ``forget_bias``."""

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name, arr):
        num_hidden = int(arr.shape[0] / 4)
        with torch.no_grad():
            arr._tensor.zero_()
            arr._tensor[num_hidden:2 * num_hidden] = self.forget_bias


@register
class FusedRNN(Initializer):
    """Initializer for the packed ``parameters`` vector of a fused RNN layer (MXNet's ``FusedRNN``).

    The vector is split as MXNet's ``FusedRNNCell.unpack_weights`` does: for each layer and
    direction (``l``, then ``r`` when bidirectional) one ``(num_hidden, inputs)`` matrix per gate
    for input-to-hidden, then one ``(num_hidden, num_hidden)`` per gate for hidden-to-hidden;
    then all biases in the same order.  The pieces are named like ``l0_i2h_f_weight`` and each
    is initialized by ``init`` (or the global initializer when ``init`` is None) through an
    InitDesc of that name, except LSTM forget-gate biases (``*_f_bias``, both i2h and h2h),
    which are set to ``forget_bias``.  Gate suffixes: lstm ``_i _f _c _o``, gru ``_r _z _o``,
    rnn_relu / rnn_tanh none.
    """

    _GATE_NAMES = {"rnn_relu": [""], "rnn_tanh": [""], "lstm": ["_i", "_f", "_c", "_o"],
                   "gru": ["_r", "_z", "_o"]}

    def __init__(self, init, num_hidden, num_layers, mode, bidirectional=False, forget_bias=1.0):
        if isinstance(init, str):
            init = create(init)
        super().__init__(init=init.dumps() if init is not None else None, num_hidden=num_hidden,
                         num_layers=num_layers, mode=mode, bidirectional=bidirectional, forget_bias=forget_bias)
        if mode not in self._GATE_NAMES:
            raise MXNetError(f"FusedRNN: mode must be one of {sorted(self._GATE_NAMES)}, got {mode!r}")
        self._init = init
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._forget_bias = forget_bias

    def _layout(self, total):
        """``(name, shape, offset)`` of every piece of a packed vector of ``total`` values."""
        gates = self._GATE_NAMES[self._mode]
        directions = ["l", "r"] if self._bidirectional else ["l"]
        hidden = self._num_hidden
        count = len(directions)
        num_input = total // count // hidden // len(gates) - (self._num_layers - 1) * (hidden + count * hidden + 2) \
            - hidden - 2
        entries, offset = [], 0
        for layer in range(self._num_layers):
            columns = count * hidden if layer > 0 else num_input
            for direction in directions:
                for kind, width in (("i2h", columns), ("h2h", hidden)):
                    for gate in gates:
                        entries.append((f"{direction}{layer}_{kind}{gate}_weight", (hidden, width), offset))
                        offset += hidden * width
        for layer in range(self._num_layers):
            for direction in directions:
                for kind in ("i2h", "h2h"):
                    for gate in gates:
                        entries.append((f"{direction}{layer}_{kind}{gate}_bias", (hidden,), offset))
                        offset += hidden
        if num_input <= 0 or offset != total:
            raise MXNetError(f"FusedRNN: a parameters vector of {total} values does not fit mode={self._mode!r}, "
                             f"num_hidden={hidden}, num_layers={self._num_layers}, "
                             f"bidirectional={self._bidirectional}")
        return entries

    def _init_weight(self, desc, arr):
        flat = arr._tensor.detach().reshape(-1).clone()
        global_init = getattr(desc, "global_init", None)
        for name, shape, offset in self._layout(flat.numel()):
            size = int(np.prod(shape))
            piece = NDArray(flat[offset:offset + size].detach().clone().reshape(shape), arr.context)
            if self._mode == "lstm" and name.endswith("_f_bias"):
                piece._tensor.fill_(self._forget_bias)
            else:
                init = self._init if self._init is not None else global_init
                if init is None:
                    raise MXNetError(f"FusedRNN: no initializer for {name}; pass init= or call it through a "
                                     f"global initializer with an InitDesc")
                init(InitDesc(name, global_init=global_init), piece)
            flat[offset:offset + size] = piece._tensor.reshape(-1)
        with torch.no_grad():
            arr._tensor.copy_(flat.reshape(arr.shape))
