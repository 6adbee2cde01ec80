"""``mx.gluon.contrib.data.sampler`` (the sampler itself lives with the other samplers)."""
from ...data.sampler import IntervalSampler  # noqa: F401

__all__ = ["IntervalSampler"]
