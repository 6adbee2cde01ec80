"""``mx.gluon.data``: datasets, samplers and the DataLoader (MXNet 1.9.1's ``mxnet.gluon.data``)."""
from .dataset import Dataset, SimpleDataset, ArrayDataset, RecordFileDataset  # noqa: F401
from .sampler import (Sampler, SequentialSampler, RandomSampler, FilterSampler, BatchSampler,  # noqa: F401
                      IntervalSampler)
from .dataloader import DataLoader  # noqa: F401
from . import vision  # noqa: F401

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset", "Sampler", "SequentialSampler",
           "RandomSampler", "FilterSampler", "BatchSampler", "IntervalSampler", "DataLoader", "vision"]
