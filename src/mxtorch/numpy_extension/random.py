"""``npx.random``: the seed of every sampler."""
from ..random import seed as _seed
from ..ndarray.numpy_extension.random import bernoulli, normal_n, uniform_n  # noqa: F401

__all__ = ["seed", "bernoulli", "normal_n", "uniform_n"]


def seed(seed, ctx="all"):  # noqa: A002 -- MXNet's argument name
    """Seed the samplers of ``mx.np.random`` (and ``mx.random``) with ``seed``; ``ctx`` as
    ``mx.random.seed``'s."""
    _seed(seed, ctx=ctx)
