"""``mx.random``: seeding and sampling, on torch's generators.

``seed(n)`` seeds torch (CPU and CUDA) and NumPy's global generator, so
Dropout, random initializers and shuffling iterators repeat run to run.
"""
from __future__ import annotations

import numpy as np
import torch

from .ndarray.ndarray import NDArray, to_torch_dtype
from .context import current_context

__all__ = ["seed", "uniform", "normal", "randint", "shuffle"]


def seed(seed_state, ctx="all"):
    """Seed every random generator mxtorch uses (MXNet's ``mx.random.seed``)."""
    seed_state = int(seed_state)
    torch.manual_seed(seed_state)
    np.random.seed(seed_state % (2 ** 32))


def _out(tensor, ctx, out):
    result = NDArray(tensor, ctx)
    if out is not None:
        out[:] = result
        return out
    return result


def uniform(low=0, high=1, shape=(1,), dtype=None, ctx=None, out=None, **kwargs):
    """Samples from U[low, high) of ``shape`` (float32 unless ``dtype``)."""
    ctx = ctx or current_context()
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    tensor = torch.empty(shape, dtype=to_torch_dtype(dtype or np.float32), device=ctx.torch_device)
    return _out(tensor.uniform_(low, high), ctx, out)


def normal(loc=0, scale=1, shape=(1,), dtype=None, ctx=None, out=None, **kwargs):
    """Samples from N(loc, scale^2) of ``shape`` (float32 unless ``dtype``)."""
    ctx = ctx or current_context()
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    tensor = torch.empty(shape, dtype=to_torch_dtype(dtype or np.float32), device=ctx.torch_device)
    return _out(tensor.normal_(loc, scale), ctx, out)


def randint(low, high, shape=(1,), dtype=None, ctx=None, out=None, **kwargs):
    """Integers uniformly drawn from [low, high) (int32 unless ``dtype``)."""
    ctx = ctx or current_context()
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    tensor = torch.randint(int(low), int(high), shape, device=ctx.torch_device)
    return _out(tensor.to(to_torch_dtype(dtype or np.int32)), ctx, out)


def shuffle(data, **kwargs):
    """A copy of ``data`` with its first axis randomly permuted."""
    order = torch.randperm(data.shape[0], device=data._tensor.device)
    return NDArray(data._tensor[order], data.context)
