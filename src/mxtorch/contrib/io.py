"""Contrib data iterators (MXNet 1.9.1's ``mxnet.contrib.io``): ``DataLoaderIter`` lets a Gluon
``DataLoader`` feed Module-era code (``Module.fit``, ``score``, ``predict``)."""
from __future__ import annotations

from .. import ndarray as nd
from ..io import DataDesc, DataIter

__all__ = ["DataLoaderIter"]


class DataLoaderIter(DataIter):
    """A DataIter over a ``mx.gluon.data.DataLoader`` that yields ``(data, label)`` batches.

    ``provide_data`` / ``provide_label`` are ``[DataDesc(data_name, shape, dtype)]`` and
    ``[DataDesc(label_name, shape, dtype)]`` with the shapes of the loader's first batch, whose
    first axis is ``batch_size``.  Each batch's data and label are cast to ``dtype``.  A shorter
    last batch is padded up to ``batch_size`` (``getpad()`` tells by how many rows; mxtorch pads
    with zeros where MXNet left the rows uninitialised).  ``reset()`` starts a new pass over the
    loader.
    """

    def __init__(self, loader, data_name="data", label_name="softmax_label", dtype="float32"):
        super().__init__()
        self._loader = loader
        data, label = next(iter(self._loader))
        self.batch_size = data.shape[0]
        self.dtype = dtype
        self.provide_data = [DataDesc(data_name, data.shape, dtype)]
        self.provide_label = [DataDesc(label_name, label.shape, dtype)]
        self._current_batch = None
        self.reset()

    def reset(self):
        self._iter = iter(self._loader)

    def iter_next(self):
        self._current_batch = next(self._iter, None)
        return self._current_batch is not None

    def _padded(self, part):
        value = self._current_batch[part].astype(self.dtype)
        if not self.getpad():
            return [value]
        full = nd.zeros((self.batch_size,) + tuple(value.shape[1:]), dtype=self.dtype)
        full[:value.shape[0]] = value
        return [full]

    def getdata(self):
        return self._padded(0)

    def getlabel(self):
        return self._padded(1)

    def getpad(self):
        return self.batch_size - self._current_batch[0].shape[0]

    def getindex(self):
        return None
