"""``mx.gluon.contrib.data``: the IntervalSampler and the WikiText language-model data sets (``text``)."""
from . import text  # noqa: F401
from .sampler import IntervalSampler  # noqa: F401

__all__ = ["IntervalSampler"]
