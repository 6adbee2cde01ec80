"""``mx.io.io``: the namespace of MXNet 1.9.1's ``mxnet.io.io`` module.

MXNet defined its iterator classes in that module and imported the file-reading iterators
into it; mxtorch keeps the classes in :mod:`mxtorch.io.iterators` (below the file readers,
which build on ``MXDataIter``) and the readers in :mod:`mxtorch.io.native`,
:mod:`mxtorch.io.libsvm` and :mod:`mxtorch.io.image_record`.  This module sits above all of
them and gives every name the MXNet module had, so ``mx.io.io.DataIter`` and
``from mxnet.io.io import NDArrayIter`` keep working.
"""
from __future__ import annotations

from .iterators import (DataDesc, DataBatch, DataIter, ResizeIter, PrefetchingIter, NDArrayIter,  # noqa: F401
                        MXDataIter, _CurrentBatchIter, _LAST_BATCH_HANDLES, _as_batch_array)
from .utils import _init_data, _getdata_by_idx  # noqa: F401

__all__ = ["DataDesc", "DataBatch", "DataIter", "ResizeIter", "PrefetchingIter", "NDArrayIter", "MXDataIter"]

# names MXNet 1.9.1's mxnet.io.io had in its namespace from its ctypes binding
from ..base import (  # noqa: E402,F401
    DataIterHandle, NDArrayHandle, c_str_array, check_call, mx_real_t, mx_uint, py_str,
)
# names MXNet 1.9.1's mxnet.io.io had in its namespace (imported there, not defined)
from collections import namedtuple  # noqa: E402,F401
from ..ndarray.ndarray import NDArray, array, concat  # noqa: E402,F401
from ..ndarray import tile  # noqa: E402,F401
from ..ndarray.sparse import CSRNDArray  # noqa: E402,F401
from .native import CSVIter, MNISTIter  # noqa: E402,F401
from .libsvm import LibSVMIter  # noqa: E402,F401
from .image_record import (ImageDetRecordIter, ImageRecordInt8Iter, ImageRecordIter, ImageRecordIter_v1,  # noqa: E402,F401
                           ImageRecordUInt8Iter, ImageRecordUInt8Iter_v1)

# the C library object MXNet's module held (``from .base import _LIB``; see base_ctypes._CLibrary)
from ..base_ctypes import _LIB  # noqa: E402,F401
