"""``mx.nd.np.random`` / ``mx.np.random``: NumPy's samplers on the ``_npi_*`` sampling
operators (``ops/numpy_random_ops.py``; torch's generator, seeded by ``mx.random.seed``).

Each distribution parameter is a number (an operator attribute) or an array (an operator
input, differentiable: the samples carry the reparameterisation gradient, as MXNet 1.9.1's).
``size`` None gives the parameters' broadcast shape (zero-dim for numbers).  Samples are float32
unless ``dtype`` says otherwise (the parameters' dtype does not matter, as in MXNet).  A
parameter outside its domain raises ValueError when the result is read (``asnumpy``)."""
from __future__ import annotations

import numbers

import numpy as np
import torch

from ...context import current_context
from ...exceptions import MXNetAssertionError
from ...ops.numpy_ops import numpy_argument
from ...schema import NumpyShape, numpy_integer, optional
from ..ndarray import NDArray
from ..numpy_array import call, is_number, is_symbol, ndarray

__all__ = ["uniform", "normal", "randint", "choice", "shuffle", "rand", "randn", "lognormal", "logistic",
           "gumbel", "laplace", "multinomial", "rayleigh", "multivariate_normal", "exponential", "weibull",
           "pareto", "power", "gamma", "beta", "chisquare"]


_SIZE = optional(NumpyShape)


def _size(size, function, argument="size"):
    """The ``size`` argument of ``mx.np.random.<function>`` (``function`` with a dot: that name):
    None, an integer or a sequence of integers, each at least 0 (MXNet's text of a shape,
    ``'(2, 3)'``, too); 2.5 raises TypeError (MXNet 1.9.1 refused it; it was cut to 2), -1
    ValueError, both naming the function and ``argument``."""
    return numpy_argument(_SIZE, size, function if "." in function else f"mx.np.random.{function}", argument)


def _integer(value, function, argument, low=None):
    """The integer argument ``argument`` (``n``, ``low``, ``high``, ``a``) of ``mx.np.random.<function>``."""
    return numpy_argument(numpy_integer(low=low), value, f"mx.np.random.{function}", argument)


def _ctx(ctx):
    return str(ctx if ctx is not None else current_context())


def _dtype(dtype, default="float32"):
    return default if dtype is None else str(np.dtype(dtype))


def _as_input(value):
    """An array parameter as an operator input (an ``mx.np.ndarray`` or a symbol)."""
    if is_symbol(value) or isinstance(value, ndarray):
        return value
    if isinstance(value, NDArray):
        return ndarray(value._tensor, value.context)
    return ndarray(torch.as_tensor(np.asarray(value, dtype=np.float32)))


def _sample(kind, parameters, size, ctx=None, dtype=None, out=None, with_dtype=True, function=None, argument="size"):
    """Run ``_npi_<kind>``: numbers in ``parameters`` (name, value pairs) become attributes,
    arrays inputs (the attribute then None); ``function`` (default ``kind``) and ``argument``
    name the caller and its ``size`` argument in errors."""
    inputs, attrs = [], {}
    for name, value in parameters:
        if is_number(value):
            attrs[name] = float(value)
        else:
            inputs.append(_as_input(value))
            attrs[name] = None
    if with_dtype:
        attrs["dtype"] = _dtype(dtype)
    return call(f"_npi_{kind}", *inputs, size=_size(size, function or kind, argument), ctx=_ctx(ctx), out=out, **attrs)


def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None, out=None):
    """Samples uniform on [``low``, ``high``); shape ``size`` (None: the parameters' broadcast shape)."""
    return _sample("uniform", [("low", low), ("high", high)], size, ctx, dtype, out)


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, out=None):
    """Normal samples of mean ``loc`` and deviation ``scale`` (>= 0)."""
    return _sample("normal", [("loc", loc), ("scale", scale)], size, ctx, dtype, out)


def lognormal(mean=0.0, sigma=1.0, size=None, dtype=None, ctx=None, out=None):
    """``exp`` of normal samples of mean ``mean`` and deviation ``sigma`` (>= 0)."""
    from ._op import exp
    return exp(_sample("normal", [("loc", mean), ("scale", sigma)], size, ctx, dtype, out, function="lognormal"))


def logistic(loc=0.0, scale=1.0, size=None, ctx=None, out=None):
    """Samples of the logistic distribution (``loc + scale * log(u / (1 - u))``), float32."""
    return _sample("logistic", [("loc", loc), ("scale", scale)], size, ctx, out=out, with_dtype=False)


def gumbel(loc=0.0, scale=1.0, size=None, ctx=None, out=None):
    """Samples of the Gumbel distribution (``loc - scale * log(-log(u))``), float32."""
    return _sample("gumbel", [("loc", loc), ("scale", scale)], size, ctx, out=out, with_dtype=False)


def laplace(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, out=None):
    """Samples of the Laplace (double exponential) distribution of centre ``loc`` and scale ``scale``."""
    return _sample("laplace", [("loc", loc), ("scale", scale)], size, ctx, dtype, out)


def exponential(scale=1.0, size=None, ctx=None, out=None):
    """Samples of the exponential distribution of mean ``scale`` (>= 0), float32."""
    return _sample("exponential", [("scale", scale)], size, ctx, out=out, with_dtype=False)


def rayleigh(scale=1.0, size=None, ctx=None, out=None):
    """Samples of the Rayleigh distribution of mode ``scale`` (>= 0), float32."""
    return _sample("rayleigh", [("scale", scale)], size, ctx, out=out, with_dtype=False)


def weibull(a, size=None, ctx=None, out=None):
    """Samples of the Weibull distribution of shape ``a`` (> 0): ``E ** (1 / a)``, float32."""
    return _sample("weibull", [("a", a)], size, ctx, out=out, with_dtype=False)


def pareto(a, size=None, ctx=None, out=None):
    """Samples of NumPy's Pareto (Lomax) distribution of shape ``a`` (> 0), float32."""
    return _sample("pareto", [("a", a)], size, ctx, out=out, with_dtype=False)


def power(a, size=None, ctx=None, out=None):
    """Samples on [0, 1] of the power distribution of exponent ``a - 1`` (``a`` > 0), float32
    (MXNet's operator ``_npi_powerd``)."""
    return _sample("powerd", [("a", a)], size, ctx, out=out, with_dtype=False, function="power")


def gamma(shape, scale=1.0, size=None, dtype=None, ctx=None, out=None):
    """Samples of the gamma distribution of ``shape`` (> 0) and ``scale`` (> 0)."""
    if not (is_number(shape) or isinstance(shape, NDArray) or is_symbol(shape)) or \
            not (is_number(scale) or isinstance(scale, NDArray) or is_symbol(scale)):
        raise ValueError("Distribution parameters must be either mxnet.numpy.ndarray or numbers")
    return _sample("gamma", [("shape", shape), ("scale", scale)], size, ctx, dtype, out)


def beta(a, b, size=None, dtype=None, ctx=None):
    """Samples of the beta distribution: ``X / (X + Y)`` with ``X ~ gamma(a)``, ``Y ~ gamma(b)``
    drawn in float64 (MXNet 1.9.1's construction), cast to ``dtype`` (float32 by default)."""
    size = _size(size, "beta") or None
    first = gamma(a, 1, size=size, dtype="float64", ctx=ctx)
    second = gamma(b, 1, size=size, dtype="float64", ctx=ctx)
    return (first / (first + second)).astype(_dtype(dtype))


def chisquare(df, size=None, dtype=None, ctx=None):
    """Samples of the chi-square distribution of ``df`` (> 0) degrees of freedom:
    ``gamma(df / 2, 2)``."""
    size = _size(size, "chisquare") or None
    return gamma(df / 2, 2.0, size=size, dtype=dtype, ctx=ctx)


def multinomial(n, pvals, size=None):
    """Counts (int64) of ``n`` experiments among ``len(pvals)`` outcomes, shape
    ``size + (len(pvals),)``; ``pvals`` a list of numbers or a 1-D ``mx.np.ndarray``.  A NumPy
    array ``pvals`` raises ValueError (MXNet 1.9.1), as does a nested list."""
    n, size = _integer(n, "multinomial", "n", low=0), _size(size, "multinomial")
    if isinstance(pvals, NDArray) or is_symbol(pvals):
        return call("_npi_multinomial", _as_input(pvals), pvals=None, n=n, size=size)
    if isinstance(pvals, np.ndarray):
        raise ValueError("numpy ndarray is not supported!")
    if any(isinstance(value, (list, tuple)) for value in pvals):
        raise ValueError("object too deep for desired array")
    return call("_npi_multinomial", n=n, pvals=tuple(float(v) for v in pvals), size=size)


def multivariate_normal(mean, cov, size=None, check_valid=None, tol=None):
    """Samples of the multivariate normal of ``mean`` (shape ``(..., k)``) and covariance ``cov``
    (``(..., k, k)``, batch shapes broadcast): shape ``size + batch + (k,)``, ``mean``'s dtype.
    ``check_valid`` and ``tol`` raise NotImplementedError (MXNet 1.9.1)."""
    if check_valid is not None:
        raise NotImplementedError("Parameter `check_valid` is not supported")
    if tol is not None:
        raise NotImplementedError("Parameter `tol` is not supported")
    return call("_npi_mvn_fallback", _as_input(mean), _as_input(cov), size=_size(size, "multivariate_normal"))


def randint(low, high=None, size=None, dtype=None, ctx=None, out=None):
    """Integers uniform on [``low``, ``high``) (or [0, ``low``)); int64 unless ``dtype``."""
    if high is None:
        low, high = 0, low
    low, high = _integer(low, "randint", "low"), _integer(high, "randint", "high")
    return call("_npi_random_randint", low=low, high=high, shape=_size(size, "randint"), ctx=_ctx(ctx),
                dtype=_dtype(dtype, "int64"), out=out)


def rand(*size, **kwargs):
    """Uniform samples on [0, 1) of shape ``size``."""
    return uniform(size=_size(size or None, "rand"), **kwargs)


def randn(*size, **kwargs):
    """Standard normal samples of shape ``size``."""
    return normal(size=_size(size or None, "randn"), **kwargs)


def choice(a, size=None, replace=True, p=None, ctx=None, out=None):
    """Samples of ``range(a)`` (``a`` an int; int64 indices) or of the elements of the 1-D array
    ``a`` (its first axis), with the probabilities ``p`` (an array) when given."""
    inputs = [] if p is None else [_as_input(p)]
    size = _size(size, "choice")
    if isinstance(a, (numbers.Integral, np.integer, str)) and not isinstance(a, (bool, np.bool_)):
        # an integer population (MXNet's text of one, '5', too)
        return call("_npi_choice", *inputs, a=_integer(a, "choice", "a"), size=size, replace=replace,
                    weighted=p is not None, ctx=_ctx(ctx), out=out)
    population = _as_input(a)
    indices = call("_npi_choice", population, *inputs, a=None, size=size, replace=replace,
                   weighted=p is not None, ctx=_ctx(ctx))
    return call("_npi_take", population, indices, axis=0, mode="raise")


def shuffle(x):
    """Shuffle the first axis of ``x`` in place (returns None); a zero-dim array is left as it is.
    ``x`` must be an ``mx.np.ndarray`` (MXNet 1.9.1: AssertionError for a list or a NumPy array)."""
    if not isinstance(x, NDArray):
        shown = repr(x).replace("\n", " ")
        raise MXNetAssertionError(f"mx.np.random.shuffle: argument 'x' must be an mx.np.ndarray, got "
                                  f"{type(x).__name__} {shown[:80]}")
    if x.ndim == 0:
        return
    permutation = torch.randperm(x.shape[0], device=x._tensor.device)
    x._assign(slice(None), ndarray(x._tensor[permutation].clone(), x.context), "shuffle")
