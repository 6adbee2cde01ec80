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

# -- MXNet's private names of mxnet.io.io: the helpers it imported and its iterator registry ----------
import ctypes as _ctypes  # noqa: E402
import sys as _sys  # noqa: E402
from ..base import MXNetError  # noqa: E402
from ..base_ctypes import build_param_doc as _build_param_doc  # noqa: E402,F401
from ..ndarray.handles import ndarray_cls as _ndarray_cls  # noqa: E402,F401
from .utils import _has_instance, _slice_along_batch_axis  # noqa: E402,F401

# the file-reading iterators, in the order MXNet's MXListDataIters gave them; a creator handle
# is the c_void_p of the position + 1
_ITERATOR_CREATORS = (CSVIter, ImageDetRecordIter, ImageRecordInt8Iter, ImageRecordIter, ImageRecordIter_v1,
                      ImageRecordUInt8Iter, ImageRecordUInt8Iter_v1, LibSVMIter, MNISTIter)
_CREATOR_HANDLES = (_ctypes.c_void_p * len(_ITERATOR_CREATORS))(*range(1, len(_ITERATOR_CREATORS) + 1))


def _list_data_iters(out_size, out_array):
    """``MXListDataIters(byref(size), byref(void**))``: the creator handles of the iterators."""
    getattr(out_size, "_obj", out_size).value = len(_ITERATOR_CREATORS)
    _ctypes.pointer(getattr(out_array, "_obj", out_array))[0] = _ctypes.cast(
        _CREATOR_HANDLES, _ctypes.POINTER(_ctypes.c_void_p))
    return 0


_LIB.provide("MXListDataIters", _list_data_iters)


def _make_io_iterator(handle):
    """The creator function of the iterator of ``handle`` (from ``MXListDataIters``): it takes
    the iterator's parameters as keywords (TypeError for positional ones, as in MXNet) and
    returns the iterator; its name and docstring are the iterator's."""
    value = getattr(handle, "value", handle)
    if not isinstance(value, int) or not 1 <= value <= len(_ITERATOR_CREATORS):
        raise MXNetError(f"_make_io_iterator: {handle!r} is not a data iterator handle (from MXListDataIters)")
    function = _ITERATOR_CREATORS[value - 1]

    def creator(*args, **kwargs):
        if args:
            raise TypeError(f"{function.__name__} can only accept keyword arguments")
        return function(**kwargs)
    creator.__name__ = function.__name__
    creator.__doc__ = function.__doc__
    return creator


def _init_io_module():
    """Put the creator of every file-reading iterator (``MXListDataIters``) into this module
    under the iterator's name, as MXNet did at import."""
    size = _ctypes.c_uint()
    handles = _ctypes.POINTER(_ctypes.c_void_p)()
    check_call(_LIB.MXListDataIters(_ctypes.byref(size), _ctypes.byref(handles)))
    module = _sys.modules[__name__]
    for index in range(size.value):
        creator = _make_io_iterator(_ctypes.c_void_p(handles[index]))
        setattr(module, creator.__name__, creator)
