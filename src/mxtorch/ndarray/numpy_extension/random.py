"""``mx.nd.npx.random`` / ``npx.random``: the NumPy extension's samplers (``bernoulli`` and the
batched ``normal_n`` / ``uniform_n``) on the ``_npi_*`` operators of ``ops/numpy_random_ops.py``."""
from __future__ import annotations

from ...context import current_context  # noqa: F401  (MXNet's module imported it)
from ..numpy.random import _ctx, _dtype, _as_input, _sample, _size
from ..numpy_array import call, is_number

__all__ = ["bernoulli", "normal_n", "uniform_n"]


def bernoulli(prob=None, logit=None, size=None, dtype=None, ctx=None, out=None):
    """Samples (0 or 1) of the Bernoulli distribution of probability ``prob`` or of logit
    ``logit`` (exactly one of them; else ValueError), each a number or an array; shape ``size``
    (None or ``()``: the parameter's), dtype ``dtype`` (float32 by default; integers and bool
    allowed).  A ``prob`` outside [0, 1] raises ValueError when the result is read."""
    if (prob is None) == (logit is None):
        raise ValueError(f"Either `prob` or `logit` must be specified, but not both. Received prob={prob}, "
                         f"logit={logit}")
    if size == ():
        size = None
    is_logit = prob is None
    value = logit if is_logit else prob
    attrs = dict(prob=None, logit=None, is_logit=is_logit, size=_size(size, "mx.npx.random.bernoulli"), ctx=_ctx(ctx),
                 dtype=_dtype(dtype), out=out)
    if is_number(value):
        attrs["logit" if is_logit else "prob"] = float(value)
        return call("_npi_bernoulli", **attrs)
    return call("_npi_bernoulli", _as_input(value), **attrs)


def uniform_n(low=0.0, high=1.0, batch_shape=None, dtype=None, ctx=None):
    """Uniform samples on [``low``, ``high``) of shape ``batch_shape`` followed by the
    parameters' broadcast shape."""
    return _sample("uniform_n", [("low", low), ("high", high)], batch_shape, ctx, dtype,
                   function="mx.npx.random.uniform_n", argument="batch_shape")


def normal_n(loc=0.0, scale=1.0, batch_shape=None, dtype=None, ctx=None):
    """Normal samples of shape ``batch_shape`` followed by the parameters' broadcast shape."""
    return _sample("normal_n", [("loc", loc), ("scale", scale)], batch_shape, ctx, dtype,
                   function="mx.npx.random.normal_n", argument="batch_shape")
