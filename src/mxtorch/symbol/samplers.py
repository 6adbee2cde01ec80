"""``mx.sym.random``: the symbolic samplers with MXNet 1.9.1's Python signatures.

Each function takes its distribution's parameters either all as numbers, giving a
``_random_<distribution>`` node of ``shape`` (attributes), or all as Symbols of one shape
``P``, giving a ``_sample_<distribution>`` node of shape ``P + shape`` (one independent draw
set per element).  Mixing numbers and Symbols raises MXNetError.  ``dtype``, ``name`` and
``attr`` pass through to the node.  The parameterisations are those of ``mx.random`` (the
NDArray front end): ``exponential(scale)`` has mean ``scale`` (the operators take the rate
``lam = 1 / scale``), ``normal(loc, scale)`` maps to ``_sample_normal(mu, sigma)`` for Symbol
parameters, and so on; the operator parameter names come from ``mx.random``'s table.
"""
from __future__ import annotations

from ..base import MXNetError, numeric_types
from ..random import _OPERATOR_PARAMETERS
from .symbol import Symbol, create

__all__ = ["uniform", "normal", "randn", "poisson", "exponential", "gamma", "negative_binomial",
           "generalized_negative_binomial", "multinomial", "shuffle", "randint"]


def _sample(distribution, params, shape, dtype, kwargs, function):
    """A ``_random_`` node (numbers) or a ``_sample_`` node (Symbols) for ``params``."""
    if shape is not None:
        kwargs["shape"] = shape
    if dtype is not None:
        kwargs["dtype"] = dtype
    if all(isinstance(p, Symbol) for p in params):
        if distribution == "randint":
            raise MXNetError(f"{function}: low and high must be numbers, got Symbols")
        return create(f"_sample_{distribution}", *params, **kwargs)
    if all(isinstance(p, numeric_types) and not isinstance(p, bool) for p in params):
        attrs = dict(zip(_OPERATOR_PARAMETERS[distribution], params))
        return create(f"_random_{distribution}", **attrs, **kwargs)
    kinds = ", ".join(type(p).__name__ for p in params)
    raise MXNetError(f"{function}: distribution parameters must be all numbers or all Symbols, "
                     f"got {kinds}")


def uniform(low=0, high=1, shape=None, dtype=None, **kwargs):
    """Samples from U[``low``, ``high``)."""
    return _sample("uniform", [low, high], shape, dtype, kwargs, "uniform")


def normal(loc=0, scale=1, shape=None, dtype=None, **kwargs):
    """Samples from N(``loc``, ``scale``^2) (``scale`` is the standard deviation)."""
    return _sample("normal", [loc, scale], shape, dtype, kwargs, "normal")


def randn(*shape, **kwargs):
    """Normal samples of ``shape`` given as positional sizes or ``shape=``; ``loc``, ``scale``,
    ``dtype`` as keywords (numbers or Symbols).  ``data=`` is ignored with a warning, as MXNet
    passed it to an operator without inputs."""
    import warnings
    loc = kwargs.pop("loc", 0)
    scale = kwargs.pop("scale", 1)
    dtype = kwargs.pop("dtype", None)
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    if "shape" in kwargs:
        if shape:
            raise MXNetError("randn: give the shape either as positional sizes or as shape=, not both")
        shape = kwargs.pop("shape")
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if "data" in kwargs:
        warnings.warn("mx.sym.random.randn: 'data' has no effect (as in MXNet); the shape comes from "
                      "shape= or from shape inference", stacklevel=2)
        kwargs.pop("data")
    return _sample("normal", [loc, scale], tuple(shape), dtype, kwargs, "randn")


def poisson(lam=1, shape=None, dtype=None, **kwargs):
    """Poisson samples with mean ``lam`` (floats, as MXNet)."""
    return _sample("poisson", [lam], shape, dtype, kwargs, "poisson")


def exponential(scale=1, shape=None, dtype=None, **kwargs):
    """Exponential samples with mean ``scale`` (the operators' rate ``lam`` is ``1 / scale``)."""
    return _sample("exponential", [1.0 / scale], shape, dtype, kwargs, "exponential")


def gamma(alpha=1, beta=1, shape=None, dtype=None, **kwargs):
    """Gamma samples with shape ``alpha`` and scale ``beta``."""
    return _sample("gamma", [alpha, beta], shape, dtype, kwargs, "gamma")


def negative_binomial(k=1, p=1, shape=None, dtype=None, **kwargs):
    """Failures before the ``k``-th success, success probability ``p`` (floats)."""
    return _sample("negative_binomial", [k, p], shape, dtype, kwargs, "negative_binomial")


def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, **kwargs):
    """Generalized negative binomial samples with mean ``mu`` and dispersion ``alpha``."""
    return _sample("generalized_negative_binomial", [mu, alpha], shape, dtype, kwargs,
                   "generalized_negative_binomial")


def multinomial(data, shape=None, get_prob=True, dtype="int32", **kwargs):
    """Category indices drawn from the probabilities on the last axis of ``data`` ``(..., K)``:
    output ``data.shape[:-1] + shape``.  As in MXNet 1.9.1's symbolic form ``get_prob`` defaults
    to True (two outputs: the indices and their log-probabilities; the NDArray form defaults
    to False)."""
    if not isinstance(data, Symbol):
        raise MXNetError(f"multinomial: data must be a Symbol, got {type(data).__name__}")
    if shape is not None:
        kwargs["shape"] = shape
    return create("_sample_multinomial", data, get_prob=get_prob, dtype=dtype, **kwargs)


def shuffle(data, **kwargs):
    """``data`` with its rows (first axis) randomly permuted (``_shuffle``)."""
    return create("_shuffle", data, **kwargs)


def randint(low, high, shape=None, dtype=None, **kwargs):
    """Integers drawn uniformly from [``low``, ``high``) (numbers only)."""
    return _sample("randint", [low, high], shape, dtype, kwargs, "randint")


def _random_helper(random, sampler, params, shape, dtype, kwargs):
    """MXNet's dispatch of ``mx.sym.random.X`` (``mxnet.symbol.random._random_helper``): Symbol
    parameters give ``sampler(*params, shape=, dtype=)`` (the per-element ``_sample_`` node),
    numbers ``random(*params, shape=, dtype=)``; ``_Null`` values are not passed on.
    AssertionError for parameters of mixed kinds, ValueError when they are neither."""
    from ..base import _Null
    given = {key: value for key, value in dict(kwargs, shape=shape, dtype=dtype).items() if value is not _Null}
    if isinstance(params[0], Symbol):
        for other in params[1:]:
            assert isinstance(other, Symbol), (f"Distribution parameters must all have the same type, but got "
                                               f"both {type(params[0])} and {type(other)}.")
        return sampler(*params, **given)
    if isinstance(params[0], numeric_types):
        for other in params[1:]:
            assert isinstance(other, numeric_types), (f"Distribution parameters must all have the same type, but "
                                                      f"got both {type(params[0])} and {type(other)}.")
        return random(*params, **given)
    raise ValueError(f"Distribution parameters must be either Symbol or numbers, but got {type(params[0])}.")
