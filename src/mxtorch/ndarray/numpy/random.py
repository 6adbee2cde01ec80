"""``mx.nd.np.random`` / ``mx.np.random``: NumPy's samplers on the ``_npi_*`` sampling
operators (torch's generator, seeded by ``mx.random.seed``); float32 unless ``dtype``."""
from __future__ import annotations

import numbers

import numpy as np
import torch

from ...context import current_context
from ..ndarray import NDArray
from ..numpy_array import call, ndarray

__all__ = ["uniform", "normal", "randint", "choice", "shuffle", "rand", "randn"]


def _size(size):
    if size is None:
        return None
    return (int(size),) if isinstance(size, (numbers.Integral, np.integer)) else tuple(int(d) for d in size)


def _ctx(ctx):
    return str(ctx if ctx is not None else current_context())


def _dtype(dtype, default="float32"):
    return default if dtype is None else str(np.dtype(dtype))


def _scalar_parameter(function, value, name):
    if isinstance(value, NDArray):
        raise NotImplementedError(f"{function}: array-valued {name} is not supported yet; give a number")
    return float(value)


def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None, out=None):
    """Samples uniform on [``low``, ``high``) of shape ``size`` (None: one, zero-dim)."""
    return call("_npi_uniform", low=_scalar_parameter("uniform", low, "low"),
                high=_scalar_parameter("uniform", high, "high"), size=_size(size), ctx=_ctx(ctx),
                dtype=_dtype(dtype), out=out)


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, out=None):
    """Normal samples of mean ``loc`` and deviation ``scale``, of shape ``size``."""
    return call("_npi_normal", loc=_scalar_parameter("normal", loc, "loc"),
                scale=_scalar_parameter("normal", scale, "scale"), size=_size(size), ctx=_ctx(ctx),
                dtype=_dtype(dtype), out=out)


def randint(low, high=None, size=None, dtype=None, ctx=None, out=None):
    """Integers uniform on [``low``, ``high``) (or [0, ``low``)); int64 unless ``dtype``."""
    if high is None:
        low, high = 0, low
    return call("_npi_random_randint", low=int(low), high=int(high), shape=_size(size), ctx=_ctx(ctx),
                dtype=_dtype(dtype, "int64"), out=out)


def rand(*size, **kwargs):
    """Uniform samples on [0, 1) of shape ``size``."""
    return uniform(size=size or None, **kwargs)


def randn(*size, **kwargs):
    """Standard normal samples of shape ``size``."""
    return normal(size=size or None, **kwargs)


def choice(a, size=None, replace=True, p=None, ctx=None, out=None):
    """Samples of ``range(a)`` (``a`` an int) or of the elements of the 1-D array ``a``, with
    probabilities ``p`` (an array) when given."""
    inputs = [] if p is None else [p if isinstance(p, ndarray) else ndarray(torch.as_tensor(np.asarray(p)))]
    count = a if isinstance(a, (numbers.Integral, np.integer)) else a.shape[0]
    indices = call("_npi_choice", *inputs, a=int(count), size=_size(size), replace=replace, weighted=p is not None,
                   ctx=_ctx(ctx), out=None if not isinstance(a, (numbers.Integral, np.integer)) else out)
    if isinstance(a, (numbers.Integral, np.integer)):
        return indices
    return a[indices]


def shuffle(x):
    """Shuffle the first axis of ``x`` in place (returns None)."""
    permutation = torch.randperm(x.shape[0], device=x._tensor.device)
    x._assign(slice(None), ndarray(x._tensor[permutation].clone(), x.context), "shuffle")
