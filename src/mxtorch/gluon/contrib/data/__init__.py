"""``mx.gluon.contrib.data``: the IntervalSampler."""
from .sampler import IntervalSampler  # noqa: F401

__all__ = ["IntervalSampler"]
