"""``mx.io``: data iterators (MXNet 1.9.1's Python classes and the CSV / MNIST file readers).

``DataDesc``, ``DataBatch``, ``DataIter``, ``NDArrayIter``, ``ResizeIter``,
``PrefetchingIter`` and ``MXDataIter`` live in :mod:`mxtorch.io.iterators` (and MXNet's
module path :mod:`mxtorch.io.io` gives every name of MXNet's ``mxnet.io.io``);
``CSVIter`` and ``MNISTIter`` in :mod:`mxtorch.io.native`; ``LibSVMIter`` in
:mod:`mxtorch.io.libsvm`; the RecordIO image
iterators (``ImageRecordIter`` and relatives) in :mod:`mxtorch.io.image_record` and
``ImageDetRecordIter`` in :mod:`mxtorch.io.image_det_record`, on a shared reading / batching
backend (:mod:`mxtorch.io.record_source`), pixel augmentation (:mod:`mxtorch.io.image_augment`)
and parameter declarations (:mod:`mxtorch.io.image_record_arguments`).
"""
from . import io
from . import utils
from .io import (DataDesc, DataBatch, DataIter, ResizeIter, PrefetchingIter, NDArrayIter, MXDataIter)
from .native import CSVIter, MNISTIter
from .libsvm import LibSVMIter
from .image_record import (ImageRecordIter, ImageRecordUInt8Iter, ImageRecordInt8Iter, ImageDetRecordIter,
                           ImageRecordIter_v1, ImageRecordUInt8Iter_v1)

_OWN_NAMES = ["DataDesc", "DataBatch", "DataIter", "ResizeIter", "PrefetchingIter", "NDArrayIter",
           "MXDataIter", "CSVIter", "MNISTIter", "LibSVMIter",
           "ImageRecordIter", "ImageRecordUInt8Iter", "ImageRecordInt8Iter",
           "ImageDetRecordIter", "ImageRecordIter_v1", "ImageRecordUInt8Iter_v1"]

# what ``from mxnet.io import *`` gave: the names above and the modules io, utils
from ..util import star_exports  # noqa: E402
__all__ = star_exports(__name__, globals(), _OWN_NAMES)
from .utils import _getdata_by_idx, _has_instance, _init_data  # noqa: E402,F401  (MXNet's mxnet.io had them)
