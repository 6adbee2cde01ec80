"""Helpers that put NDArrayIter's inputs into one canonical form.

MXNet accepted a single array, a list of arrays or a dict of arrays for the
``data`` and ``label`` arguments of ``NDArrayIter``; all are turned into a
list of ``(name, NDArray)`` pairs sorted by name, which is the order
``provide_data`` / ``provide_label`` and the batches follow.
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np
import torch

from ..base import MXNetError
from ..context import cpu
from ..ndarray.ndarray import NDArray, array

__all__ = ["_init_data", "_has_instance", "_getdata_by_idx"]


def _to_ndarray(value, name):
    """One input array as an NDArray; numpy arrays and lists become float32 on cpu as in MXNet."""
    if isinstance(value, NDArray):
        return value
    if isinstance(value, torch.Tensor):
        return NDArray(value.detach(), None)
    if hasattr(value, "tocsr") and hasattr(value, "toarray"):      # scipy.sparse: a CSRNDArray
        from ..ndarray.sparse import csr_matrix
        return csr_matrix(value, ctx=cpu(), dtype=np.float32)
    if isinstance(value, (np.ndarray, list, tuple)):
        try:
            return array(value, ctx=cpu(), dtype=np.float32)
        except MXNetError as error:
            raise MXNetError(f"NDArrayIter: input {name!r} cannot be converted to an array: {error}") from None
    raise MXNetError(f"NDArrayIter: input {name!r} must be an NDArray, numpy.ndarray or a list of numbers, "
                     f"got {type(value).__name__}")


def _init_data(data, allow_empty, default_name):
    """Canonical form of NDArrayIter's ``data`` / ``label`` argument.

    Returns a list of ``(name, NDArray)`` pairs sorted by name:
    a single array is named ``default_name``; a list of one array likewise;
    a list of several arrays gets the names ``_0_<default_name>``,
    ``_1_<default_name>``, ...; a dict keeps its keys.  numpy arrays are
    converted to float32 NDArrays on cpu (MXNet's ``nd.array`` default);
    NDArrays are kept with their dtype and context.

    Raises MXNetError when ``data`` is None (or empty) and ``allow_empty`` is
    False, or when a value cannot be converted.
    """
    if data is None:
        if not allow_empty:
            raise MXNetError(f"NDArrayIter: {default_name!r} must be given (an array, a list or a dict of arrays), "
                             "got None")
        data = []
    if isinstance(data, (np.ndarray, NDArray, torch.Tensor)):
        data = [data]
    if isinstance(data, (list, tuple)):
        if not data and not allow_empty:
            raise MXNetError(f"NDArrayIter: {default_name!r} must hold at least one array, got an empty list")
        if len(data) == 1:
            data = OrderedDict([(default_name, data[0])])
        else:
            data = OrderedDict((f"_{position}_{default_name}", item) for position, item in enumerate(data))
    if not isinstance(data, dict):
        raise MXNetError(f"NDArrayIter: {default_name!r} must be an NDArray, numpy.ndarray, a list of them "
                         f"or a dict with them as values, got {type(data).__name__}")
    converted = []
    for name, value in data.items():
        if not isinstance(name, str):
            raise MXNetError(f"NDArrayIter: the names of the {default_name!r} inputs must be strings, got {name!r}")
        converted.append((name, _to_ndarray(value, name)))
    return sorted(converted, key=lambda pair: pair[0])


def _has_instance(data, dtype):
    """Whether any array of the canonical ``(name, array)`` list is an instance of ``dtype``."""
    return any(isinstance(value, dtype) for _, value in data)


def _getdata_by_idx(data, idx, axis=0):
    """The canonical list with every array reordered by the integer index array ``idx`` along ``axis``.

    Unlike MXNet 1.9.1 (which converted every shuffled array to float32) the
    dtype and context of each array are kept.
    """
    index = torch.as_tensor(np.asarray(idx, dtype=np.int64))
    result = []
    for name, value in data:
        tensor = value._tensor
        result.append((name, NDArray(tensor.index_select(axis, index.to(tensor.device)), value.context)))
    return result

# names MXNet 1.9.1's mxnet.io.utils had in its namespace (imported there, not defined)
from ..ndarray.sparse import CSRNDArray, array as sparse_array  # noqa: E402,F401
try:
    import h5py  # noqa: F401
except ImportError:
    h5py = None


def _slice_along_batch_axis(data, s, batch_axis):
    """``data``'s entries ``s.start:s.stop`` along axis ``batch_axis`` (``slice_axis``)."""
    return data.slice_axis(axis=batch_axis, begin=s.start, end=s.stop)
