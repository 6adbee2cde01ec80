"""``npx.random``: the seed of every sampler."""
from ..random import seed as _seed

__all__ = ["seed"]


def seed(seed, ctx="all"):  # noqa: A002 -- MXNet's argument name
    """Seed the samplers of ``mx.np.random`` (and ``mx.random``) with ``seed``; ``ctx`` as
    ``mx.random.seed``'s."""
    _seed(seed, ctx=ctx)
