"""``mx.random`` (also ``mx.rnd``): seeding and sampling, on torch's generators.

``seed(n)`` seeds torch (CPU and CUDA) and NumPy's global generator, so
Dropout, random initializers and shuffling iterators repeat run to run.

Every sampler takes its distribution's parameters either as numbers, giving an array
of ``shape`` (``(1,)`` when neither ``shape`` nor ``out`` is given) on ``ctx`` (default:
the current context), or all as NDArrays of one shape ``P``, giving ``P + shape`` with
independent draws per element, on the parameters' context (MXNet's ``_sample_*``
operators).  Mixing numbers and NDArrays raises MXNetError.  ``dtype`` is float32 unless
given ('float16', 'float32', 'float64'); ``out`` receives the samples in place and is
returned.  Samples carry no gradient.

Parameterisations are MXNet 1.9.1's: ``exponential(scale)`` has mean ``scale``;
``gamma(alpha, beta)`` shape ``alpha`` and scale ``beta`` (mean ``alpha * beta``);
``poisson(lam)`` mean ``lam``; ``negative_binomial(k, p)`` counts the failures before
the ``k``-th success with success probability ``p`` (mean ``k (1 - p) / p``);
``generalized_negative_binomial(mu, alpha)`` has mean ``mu`` and variance
``mu + alpha * mu^2``.
"""
from __future__ import annotations

import numpy as np
import torch

from .base import MXNetError, OperatorRunError, numeric_types
from .context import current_context
from .ndarray.ndarray import NDArray
# names MXNet 1.9.1's mxnet.random had in its namespace from its ctypes binding
from .base import (check_call, integer_types)  # noqa: E402,F401
# names MXNet 1.9.1's mxnet.random had in its namespace (imported there, not defined)
from .context import Context  # noqa: E402,F401
from .ndarray import pending
from .ndarray.ndarray import NDArray, to_torch_dtype

__all__ = ["seed", "uniform", "normal", "randn", "randint", "exponential", "gamma", "poisson",
           "negative_binomial", "generalized_negative_binomial", "multinomial", "shuffle"]

# the attribute names of each distribution's _random_<distribution> operator, in order
_OPERATOR_PARAMETERS = {
    "uniform": ("low", "high"),
    "normal": ("loc", "scale"),
    "gamma": ("alpha", "beta"),
    "exponential": ("lam",),
    "poisson": ("lam",),
    "negative_binomial": ("k", "p"),
    "generalized_negative_binomial": ("mu", "alpha"),
    "randint": ("low", "high"),
}


def seed(seed_state, ctx="all"):
    """Seed every random generator mxtorch uses (MXNet's ``mx.random.seed``).

    ``seed_state`` is an int; torch's generators (CPU and every CUDA device) and NumPy's
    global generator are seeded with it, whatever ``ctx`` is ('all' or a Context: torch
    has one seed for all devices).
    """
    try:
        seed_state = int(seed_state)
    except (TypeError, ValueError):
        raise MXNetError(f"seed: seed_state must be an integer, got {seed_state!r}") from None
    torch.manual_seed(seed_state)
    np.random.seed(seed_state % (2 ** 32))


def _operator(name):
    from .ops import registry
    return registry.get_operator(name)


def _shape_attribute(shape):
    """``shape`` as given, for the operator's ``shape`` attribute to parse (a tuple or list of
    ints, an int, a string such as ``'(2, 3)'``; floats and sizes below -1 raise MXNetError
    naming the operator there).  A 1-D integer NumPy array becomes a tuple."""
    if isinstance(shape, np.ndarray) and shape.ndim == 1 and shape.dtype.kind in "iu":
        return tuple(shape.tolist())
    return shape


def _dtype_name(dtype):
    return None if dtype is None else np.dtype(dtype).name


def _store(tensor, ctx, out):
    result = NDArray(tensor, ctx)
    if out is not None:
        out[:] = result
        return out
    return result


def _sample(distribution, params, shape, dtype, ctx, out, kwargs, function):
    """Draw from ``distribution`` with parameters ``params`` (all numbers or all NDArrays)."""
    kwargs = {k: v for k, v in kwargs.items() if k not in ("name", "attr")}
    shape = _shape_attribute(shape)
    dtype = _dtype_name(dtype)
    if all(isinstance(p, NDArray) for p in params):
        if distribution == "randint":
            raise MXNetError(f"{function}: low and high must be numbers, got NDArrays")
        attrs = dict(kwargs)
        if shape is not None:
            attrs["shape"] = shape
        if dtype is not None:
            attrs["dtype"] = dtype
        from .ndarray.register import invoke
        return invoke(_operator(f"_sample_{distribution}"), tuple(params), dict(attrs, out=out))
    if not all(isinstance(p, numeric_types) and not isinstance(p, bool) for p in params):
        kinds = ", ".join(type(p).__name__ for p in params)
        raise MXNetError(f"{function}: distribution parameters must be all numbers or all NDArrays, "
                         f"got {kinds}")
    if ctx is None:
        ctx = out.context if out is not None else current_context()
    if dtype is None and out is not None and (distribution != "randint") == np.issubdtype(out.dtype, np.floating):
        dtype = np.dtype(out.dtype).name
    attrs = dict(zip(_OPERATOR_PARAMETERS[distribution], params), **kwargs)
    if dtype is not None:
        attrs["dtype"] = dtype
    if shape is not None:
        attrs["shape"] = shape
    # the declaration parses and checks the attributes (shape included), as mx.sym's node does
    operator = _operator(f"_random_{distribution}")(attrs)
    if shape is None:
        shape = out.shape if out is not None else (1,)
    else:
        shape = operator.imperative_shape()
    try:
        return _store(operator.create(shape, ctx.torch_device), ctx, out)
    except OperatorRunError as error:
        # a parameter out of range: MXNet raised it at the next wait on the samples
        dtype = to_torch_dtype(operator.infer_type([])[1][0].name)
        result = _store(torch.zeros(tuple(shape), dtype=dtype, device=ctx.torch_device), ctx, out)
        pending.fail(error, [result._tensor])
        return result


def uniform(low=0, high=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from U[``low``, ``high``) (MXNet's ``mx.random.uniform``); see the module
    docstring for ``shape``, ``dtype``, ``ctx``, ``out`` and NDArray parameters."""
    return _sample("uniform", [low, high], shape, dtype, ctx, out, kwargs, "uniform")


def normal(loc=0, scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from N(``loc``, ``scale``^2) (``scale`` is the standard deviation)."""
    return _sample("normal", [loc, scale], shape, dtype, ctx, out, kwargs, "normal")


def randn(*shape, **kwargs):
    """Normal samples of shape ``shape`` given as positional ints: ``randn(2, 3, loc=0,
    scale=1, dtype=None, ctx=None, out=None)``.  With no dimensions the shape is ``(1,)``
    (MXNet 1.9.1 raised a shape-inference error there)."""
    loc = kwargs.pop("loc", 0)
    scale = kwargs.pop("scale", 1)
    dtype = kwargs.pop("dtype", None)
    ctx = kwargs.pop("ctx", None)
    out = kwargs.pop("out", None)
    return _sample("normal", [loc, scale], shape if shape else None, dtype, ctx, out, kwargs, "randn")


def randint(low, high, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Integers drawn uniformly from [``low``, ``high``) (numbers only), dtype int32 unless
    ``dtype='int64'``.  MXNetError when ``high <= low``."""
    return _sample("randint", [low, high], shape, dtype, ctx, out, kwargs, "randint")


def exponential(scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples of the exponential distribution with mean ``scale`` (rate ``1 / scale``)."""
    rate = 1.0 / scale
    return _sample("exponential", [rate], shape, dtype, ctx, out, kwargs, "exponential")


def gamma(alpha=1, beta=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples of the gamma distribution with shape ``alpha`` and scale ``beta``."""
    return _sample("gamma", [alpha, beta], shape, dtype, ctx, out, kwargs, "gamma")


def poisson(lam=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Poisson samples with mean ``lam`` (returned as floats, like MXNet)."""
    return _sample("poisson", [lam], shape, dtype, ctx, out, kwargs, "poisson")


def negative_binomial(k=1, p=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Negative binomial samples: failures before the ``k``-th success, each trial
    succeeding with probability ``p`` (returned as floats)."""
    return _sample("negative_binomial", [k, p], shape, dtype, ctx, out, kwargs, "negative_binomial")


def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Generalized negative binomial samples with mean ``mu`` and dispersion ``alpha``
    (variance ``mu + alpha * mu^2``; ``alpha = 0`` is Poisson(``mu``))."""
    return _sample("generalized_negative_binomial", [mu, alpha], shape, dtype, ctx, out, kwargs,
                   "generalized_negative_binomial")


def multinomial(data, shape=None, get_prob=False, out=None, dtype="int32", **kwargs):
    """Category indices drawn from the probabilities on the last axis of ``data``
    ``(..., K)`` (each row sums to 1).

    Output shape ``data.shape[:-1] + shape`` (``(1,)`` for 1-D ``data`` without
    ``shape``), dtype ``dtype`` (int32).  With ``get_prob=True`` returns
    ``[indices, log_probabilities]``, the log-probability of each draw (differentiable
    with respect to ``data`` under ``autograd.record``).  MXNetError when ``data`` is not
    an NDArray.
    """
    if not isinstance(data, NDArray):
        raise MXNetError(f"multinomial: data must be an NDArray of probabilities, got {type(data).__name__}")
    attrs = {k: v for k, v in kwargs.items() if k not in ("name", "attr")}
    attrs.update(get_prob=get_prob, dtype=_dtype_name(dtype))
    shape = _shape_attribute(shape)
    if shape is not None:
        attrs["shape"] = shape
    from .ndarray.register import invoke
    return invoke(_operator("_sample_multinomial"), (data,), dict(attrs, out=out))


def shuffle(data, **kwargs):
    """A copy of ``data`` with its rows (first axis) randomly permuted; ``out=`` receives it."""
    if not isinstance(data, NDArray):
        raise MXNetError(f"shuffle: data must be an NDArray, got {type(data).__name__}")
    out = kwargs.get("out")
    order = torch.randperm(data.shape[0], device=data._tensor.device)
    return _store(data._tensor[order], data.context, out)


def _given(**kwargs):
    """The keyword arguments whose value is not ``_Null`` (MXNet's "not given")."""
    from .base import _Null
    return {key: value for key, value in kwargs.items() if value is not _Null}


def _random_helper(random, sampler, params, shape, dtype, ctx, out, kwargs):
    """MXNet's dispatch of ``mx.nd.random.X`` (``mxnet.ndarray.random._random_helper``): when the
    distribution parameters ``params`` are NDArrays, ``sampler(*params, shape=, dtype=, out=)``
    (the per-element ``_sample_`` operator); when they are numbers, ``random(*params, shape=,
    dtype=, ctx=, out=)`` on ``ctx`` (default the current context), ``shape`` 1 when neither it
    nor ``out`` is given.  ``_Null`` values are not passed on.  AssertionError when the
    parameters are of mixed kinds, ValueError when they are neither."""
    from .base import _Null
    if isinstance(params[0], NDArray):
        for other in params[1:]:
            assert isinstance(other, NDArray), (f"Distribution parameters must all have the same type, but got "
                                                f"both {type(params[0])} and {type(other)}.")
        return sampler(*params, **_given(shape=shape, dtype=dtype, out=out, **kwargs))
    if isinstance(params[0], numeric_types):
        ctx = current_context() if ctx is None else ctx
        if shape is _Null and out is None:
            shape = 1
        for other in params[1:]:
            assert isinstance(other, numeric_types), (f"Distribution parameters must all have the same type, but "
                                                      f"got both {type(params[0])} and {type(other)}.")
        return random(*params, **_given(shape=shape, dtype=dtype, ctx=ctx, out=out, **kwargs))
    raise ValueError(f"Distribution parameters must be either NDArray or numbers, but got {type(params[0])}.")

# the C library object MXNet's module held (``from .base import _LIB``; see base_ctypes._CLibrary)
from .base_ctypes import _LIB  # noqa: E402,F401
