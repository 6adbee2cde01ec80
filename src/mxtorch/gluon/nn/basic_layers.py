"""Basic Gluon layers (MXNet's ``gluon.nn.basic_layers``): containers, Dense, Dropout, the
normalisation layers, Embedding, Flatten and the Lambda wrappers.

Every layer is a HybridBlock whose ``hybrid_forward`` calls one registered operator
(``FullyConnected``, ``BatchNorm``, ...) through ``F``; Parameter names and shapes are
MXNet 1.9.1's (``dense0_weight`` of shape ``(units, in_units)``, BatchNorm's ``gamma``,
``beta``, ``running_mean``, ``running_var``), so MXNet-trained ``.params`` files load.
A 0 in a shape (``in_units=0``, ``in_channels=0``) is inferred at the first forward.
"""
from __future__ import annotations

import warnings

import numpy as np

from ...base import MXNetError, MXNetTypeError
from ... import ndarray, symbol
from ..block import Block, HybridBlock
from ...util import is_np_array  # noqa: F401  (MXNet's module namespace)
from .activations import Activation

__all__ = ["Sequential", "HybridSequential", "Dense", "Dropout", "BatchNorm", "BatchNormReLU", "Embedding",
           "Flatten", "InstanceNorm", "LayerNorm", "GroupNorm", "Lambda", "HybridLambda", "SyncBatchNorm",
           "Identity", "Concatenate", "HybridConcatenate"]


class _SequentialMixin:
    """What Sequential and HybridSequential share: adding, indexing and running the children."""

    def add(self, *blocks):
        """Append ``blocks`` in order (MXNetTypeError, before any is added, for one that is
        neither a Block nor callable; HybridSequential refuses non-HybridBlocks as MXNet)."""
        if not isinstance(self, HybridBlock):
            for position, block in enumerate(blocks):
                if not isinstance(block, Block) and not callable(block):
                    raise MXNetTypeError(
                        f"{type(self).__name__}.add: every argument must be a Block (such as nn.Dense(10)) to "
                        f"run in order, got {type(block).__name__} {block!r} as argument {position}")
        for block in blocks:
            self.register_child(block)

    def __getitem__(self, key):
        layers = list(self._children.values())[key]
        if isinstance(layers, list):
            net = type(self)(prefix=self._prefix)
            with net.name_scope():
                net.add(*layers)
            return net
        return layers

    def __len__(self):
        return len(self._children)

    def _run_children(self, x, args):
        """Call the children in order: a child returning a tuple or list passes its first item
        as the next child's input and the rest as its extra arguments (MXNet's rule); the
        result is the last output, re-joined into a tuple when extra items remain."""
        for block in self._children.values():
            x = block(x, *args)
            args = []
            if isinstance(x, (tuple, list)):
                args = x[1:]
                x = x[0]
        if args:
            x = tuple([x] + list(args))
        return x


class Sequential(_SequentialMixin, Block):
    """Runs its children one after the other (``net.add(a, b)``; ``net[i]``, ``len(net)``)."""

    def forward(self, x, *args):
        return self._run_children(x, args)

    def hybridize(self, active=True, **kwargs):
        if self._children and all(isinstance(c, HybridBlock) for c in self._children.values()):
            warnings.warn(f"All children of this Sequential layer '{self.prefix}' are HybridBlocks. Consider "
                          f"using HybridSequential for the best performance.", stacklevel=2)
        super().hybridize(active, **kwargs)


class HybridSequential(_SequentialMixin, HybridBlock):
    """A Sequential of HybridBlocks that can itself be hybridized."""

    def hybrid_forward(self, F, x, *args):
        return self._run_children(x, args)


class Dense(HybridBlock):
    """A fully connected layer ``activation(dot(x, weight.T) + bias)`` (operator
    ``FullyConnected``).  ``units``: output size; ``flatten``: treat all axes after the first
    as features (else only the last axis); ``in_units``: input size (0: inferred).  Input
    ``(batch, in_units)`` (or ``(d0, ..., in_units)`` without flatten); output
    ``(batch, units)``.  Parameters ``weight`` ``(units, in_units)`` and ``bias`` ``(units,)``."""

    def __init__(self, units, activation=None, use_bias=True, flatten=True, dtype="float32",
                 weight_initializer=None, bias_initializer="zeros", in_units=0, **kwargs):
        super().__init__(**kwargs)
        self._flatten = flatten
        with self.name_scope():
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get("weight", shape=(units, in_units), init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get("bias", shape=(units,), init=bias_initializer, dtype=dtype,
                                            allow_deferred_init=True)
            else:
                self.bias = None
            self.act = Activation(activation, prefix=activation + "_") if activation is not None else None

    def hybrid_forward(self, F, x, weight, bias=None):
        out = F.FullyConnected(x, weight, bias, no_bias=bias is None, num_hidden=self._units,
                               flatten=self._flatten, name="fwd")
        if self.act is not None:
            out = self.act(out)
        return out

    def __repr__(self):
        shape = self.weight.shape
        return "{name}({inp} -> {out}, {act})".format(name=type(self).__name__, inp=shape[1] if shape[1] else None,
                                                     out=shape[0], act=self.act if self.act else "linear")


class Dropout(HybridBlock):
    """Zeroes each element with probability ``rate`` in training mode and scales the rest by
    ``1 / (1 - rate)`` (operator ``Dropout``); ``axes``: axes along which the same mask is
    shared.  Identity in prediction mode."""

    def __init__(self, rate, axes=(), **kwargs):
        super().__init__(**kwargs)
        self._rate = rate
        self._axes = axes

    def hybrid_forward(self, F, x):
        if self._rate > 0:
            return F.Dropout(x, p=self._rate, axes=self._axes, name="fwd")
        return F.identity(x)

    def __repr__(self):
        return f"{type(self).__name__}(p = {self._rate}, axes={self._axes})"


def _scale_shift_params(block, size, scale, center, gamma_initializer, beta_initializer, differentiable=False):
    """Give a normalisation layer its ``gamma`` and ``beta`` parameters of shape ``(size,)`` (0:
    inferred at the first forward); ``scale`` / ``center`` False fixes one (grad_req 'null'), and with
    ``differentiable`` (BatchNorm, as in MXNet) a fixed one is also not differentiable."""
    gamma_extra = {"differentiable": scale} if differentiable else {}
    beta_extra = {"differentiable": center} if differentiable else {}
    block.gamma = block.params.get("gamma", grad_req="write" if scale else "null", shape=(size,),
                                   init=gamma_initializer, allow_deferred_init=True, **gamma_extra)
    block.beta = block.params.get("beta", grad_req="write" if center else "null", shape=(size,),
                                  init=beta_initializer, allow_deferred_init=True, **beta_extra)


class _BatchNormBase(HybridBlock):
    _operator = "BatchNorm"

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True, use_global_stats=False,
                 beta_initializer="zeros", gamma_initializer="ones", running_mean_initializer="zeros",
                 running_variance_initializer="ones", in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"axis": axis, "eps": epsilon, "momentum": momentum, "fix_gamma": not scale,
                        "use_global_stats": use_global_stats}
        self._axis = axis
        if in_channels != 0:
            self.in_channels = in_channels
        _scale_shift_params(self, in_channels, scale, center, gamma_initializer, beta_initializer, differentiable=True)
        self.running_mean = self.params.get("running_mean", grad_req="null", shape=(in_channels,),
                                            init=running_mean_initializer, allow_deferred_init=True,
                                            differentiable=False)
        self.running_var = self.params.get("running_var", grad_req="null", shape=(in_channels,),
                                           init=running_variance_initializer, allow_deferred_init=True,
                                           differentiable=False)

    def cast(self, dtype):
        # half-precision networks keep the normalisation statistics in float32, as MXNet does
        if np.dtype(dtype).name == "float16":
            dtype = "float32"
        super().cast(dtype)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        out = F.BatchNorm(x, gamma, beta, running_mean, running_var, name="fwd", **self._kwargs)
        return self._after(F, out)

    def _after(self, F, out):
        return out

    def __repr__(self):
        in_channels = self.gamma.shape[0]
        content = ", ".join(f"{key}={value!r}" for key, value in self._kwargs.items())
        return f"{type(self).__name__}({content}, in_channels={in_channels if in_channels else None})"


class BatchNorm(_BatchNormBase):
    """Batch normalisation over axis ``axis`` (operator ``BatchNorm``): in training mode
    (``autograd.record(train_mode=True)``) the batch statistics normalise and update
    ``running_mean`` / ``running_var`` by ``momentum``; in prediction mode (or with
    ``use_global_stats``) the running statistics normalise.  ``scale=False`` fixes gamma to 1,
    ``center=False`` beta to 0.  Parameters of shape ``(in_channels,)``."""


class BatchNormReLU(_BatchNormBase):
    """BatchNorm followed by ReLU (MXNet's fused ``BatchNormWithReLU``; the same numbers)."""

    def _after(self, F, out):
        return F.relu(out)


class SyncBatchNorm(BatchNorm):
    """Cross-device BatchNorm (MXNet's ``SyncBatchNorm``).  ``num_devices`` / ``key`` are
    accepted; mxtorch normalises each device's batch on its own (plain BatchNorm, the same
    numbers on one device) and warns when ``num_devices`` > 1."""

    def __init__(self, in_channels=0, num_devices=None, momentum=0.9, epsilon=1e-5, center=True, scale=True,
                 use_global_stats=False, beta_initializer="zeros", gamma_initializer="ones",
                 running_mean_initializer="zeros", running_variance_initializer="ones", **kwargs):
        super().__init__(axis=1, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                         use_global_stats=use_global_stats, beta_initializer=beta_initializer,
                         gamma_initializer=gamma_initializer, running_mean_initializer=running_mean_initializer,
                         running_variance_initializer=running_variance_initializer, in_channels=in_channels,
                         **kwargs)
        if num_devices is not None and num_devices > 1:
            warnings.warn("SyncBatchNorm: mxtorch normalises each device's part of the batch separately "
                          f"(num_devices={num_devices} is not synchronised)", stacklevel=2)
        self._num_devices = num_devices


class Embedding(HybridBlock):
    """A lookup table: integer indices ``(d0, ..., dk)`` -> ``(d0, ..., dk, output_dim)``
    (operator ``Embedding``).  Parameter ``weight`` ``(input_dim, output_dim)``.
    ``sparse_grad=True`` is accepted; the gradient is dense in mxtorch."""

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None, sparse_grad=False,
                 **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim, "dtype": dtype,
                        "sparse_grad": sparse_grad}
        self.weight = self.params.get("weight", shape=(input_dim, output_dim), init=weight_initializer,
                                      dtype=dtype, allow_deferred_init=True,
                                      grad_stype="row_sparse" if sparse_grad else "default")

    def hybrid_forward(self, F, x, weight):
        return F.Embedding(x, weight, name="fwd", **self._kwargs)

    def __repr__(self):
        return "{name}({input_dim} -> {output_dim}, {dtype})".format(name=type(self).__name__, **self._kwargs)


class Flatten(HybridBlock):
    """``(batch, d1, d2, ...)`` -> ``(batch, d1 * d2 * ...)``."""

    def hybrid_forward(self, F, x):
        return F.Flatten(x)

    def __repr__(self):
        return type(self).__name__


class InstanceNorm(HybridBlock):
    """Instance normalisation (operator ``InstanceNorm``) over the axes after ``axis`` of each
    sample; ``gamma`` / ``beta`` of shape ``(in_channels,)``.  Note MXNet's default
    ``scale=False`` (gamma fixed at its initial value 1)."""

    def __init__(self, axis=1, epsilon=1e-5, center=True, scale=False, beta_initializer="zeros",
                 gamma_initializer="ones", in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"eps": epsilon, "axis": axis, "center": center, "scale": scale}
        self._axis = axis
        self._epsilon = epsilon
        _scale_shift_params(self, in_channels, scale, center, gamma_initializer, beta_initializer)

    def hybrid_forward(self, F, x, gamma, beta):
        if self._axis == 1:
            return F.InstanceNorm(x, gamma, beta, name="fwd", eps=self._epsilon)
        x = x.swapaxes(1, self._axis)
        return F.InstanceNorm(x, gamma, beta, name="fwd", eps=self._epsilon).swapaxes(1, self._axis)

    def __repr__(self):
        in_channels = self.gamma.shape[0]
        content = ", ".join(f"{key}={value!r}" for key, value in self._kwargs.items())
        return f"{type(self).__name__}({content}, in_channels={in_channels})"


class LayerNorm(HybridBlock):
    """Layer normalisation over axis ``axis`` (operator ``LayerNorm``); ``gamma`` / ``beta``
    of shape ``(in_channels,)``, the size of that axis."""

    def __init__(self, axis=-1, epsilon=1e-5, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", in_channels=0, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._kwargs = {"eps": epsilon, "axis": axis, "center": center, "scale": scale}
        self._axis = axis
        self._epsilon = epsilon
        _scale_shift_params(self, in_channels, scale, center, gamma_initializer, beta_initializer)

    def hybrid_forward(self, F, data, gamma, beta):
        return F.LayerNorm(data, gamma=gamma, beta=beta, axis=self._axis, eps=self._epsilon)

    def __repr__(self):
        in_channels = self.gamma.shape[0]
        content = ", ".join(f"{key}={value!r}" for key, value in self._kwargs.items())
        return f"{type(self).__name__}({content}, in_channels={in_channels})"


class GroupNorm(HybridBlock):
    """Group normalisation (operator ``GroupNorm``): channels split into ``num_groups``
    groups normalised per sample; ``gamma`` / ``beta`` of shape ``(num_groups,)`` as in
    MXNet 1.9.1."""

    def __init__(self, num_groups=1, epsilon=1e-5, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._kwargs = {"eps": epsilon, "num_groups": num_groups, "center": center, "scale": scale}
        self._num_groups = num_groups
        self._epsilon = epsilon
        self._center = center
        self._scale = scale
        _scale_shift_params(self, num_groups, scale, center, gamma_initializer, beta_initializer)

    def hybrid_forward(self, F, data, gamma, beta):
        return F.GroupNorm(data, gamma=gamma, beta=beta, num_groups=self._num_groups, eps=self._epsilon)

    def __repr__(self):
        content = ", ".join(f"{key}={value!r}" for key, value in self._kwargs.items())
        return f"{type(self).__name__}({content})"


def _resolve_function(function, kind):
    if isinstance(function, str):
        if not hasattr(ndarray, function):
            raise MXNetError(f"{kind}: function name {function} is not found in ndarray.")
        return getattr(ndarray, function), function
    if callable(function):
        return function, getattr(function, "__name__", repr(function))
    raise MXNetError(f"{kind}: unrecognized function in lambda: {function} of type {type(function)}")


class Lambda(Block):
    """A Block from a function of NDArrays (``function`` or the name of an ``mx.nd``
    function)."""

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        self._func_impl, self._func_name = _resolve_function(function, "Lambda")

    def forward(self, *args):
        return self._func_impl(*args)

    def __repr__(self):
        return f"{type(self).__name__}({self._func_name})"


class HybridLambda(HybridBlock):
    """A HybridBlock from ``function(F, *args)`` (or the name of a function both ``mx.nd``
    and ``mx.sym`` have)."""

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            if not hasattr(ndarray, function) or not hasattr(symbol, function):
                raise MXNetError(f"HybridLambda: function name {function} is not found in symbol/ndarray.")
            name = function
            self._func = lambda F, *args: getattr(F, name)(*args)
            self._func_name = function
        elif callable(function):
            self._func = function
            self._func_name = getattr(function, "__name__", repr(function))
        else:
            raise MXNetError(f"HybridLambda: unrecognized function in lambda: {function} of type "
                             f"{type(function)}")

    def hybrid_forward(self, F, x, *args):
        return self._func(F, x, *args)

    def __repr__(self):
        return f"{type(self).__name__}({self._func_name})"


class Identity(HybridBlock):
    """Returns its input (MXNet's ``gluon.nn.Identity``)."""

    def hybrid_forward(self, F, x):
        return x


class Concatenate(Sequential):
    """Runs every child on the same input and concatenates the outputs along ``axis``."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        return ndarray.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class HybridConcatenate(HybridSequential):
    """Concatenate for HybridBlocks."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        return F.concat(*[block(x) for block in self._children.values()], dim=self.axis)

# MXNet's module imported the repr helper from mxnet.gluon.utils
from ..utils import _indent  # noqa: E402,F401
