"""The array functions of ``mx.nd`` that join, split, move or count arrays: ``concat``,
``concatenate``, ``moveaxis``, ``onehot_encode``, ``split_v2``, ``histogram`` (MXNet 1.9.1's
functions of the same names in ``mxnet.ndarray.ndarray``)."""
from __future__ import annotations

import numbers

import numpy as np
import torch

from ..base import MXNetError
from ..ops.reduction import bin_counts
from .creation import array
from .ndarray import NDArray, _call, _recorded, provide

def concat(*arrays, dim=1, **kwargs):
    """Join arrays along ``dim`` (MXNet's ``nd.concat``; ``num_args`` is accepted and ignored)."""
    if "axis" in kwargs:
        dim = kwargs.pop("axis")
    if len(arrays) == 1 and isinstance(arrays[0], (list, tuple)):
        arrays = tuple(arrays[0])
    if not arrays:
        raise MXNetError("concat: needs at least one array")
    if not all(isinstance(a, NDArray) for a in arrays):
        raise MXNetError("concat: every input must be an NDArray")
    try:
        return NDArray(_recorded(lambda *tensors: torch.cat(tensors, dim=dim), *[a._tensor for a in arrays]),
                       arrays[0].context)
    except (RuntimeError, IndexError) as error:
        raise MXNetError(f"concat: cannot join shapes {[a.shape for a in arrays]} along dim {dim}: "
                         f"{error}") from None


def concatenate(arrays, axis=0, always_copy=True):
    """Join a list of arrays of one dtype along ``axis`` (MXNet's deprecated ``concatenate``; use
    ``concat``).  With ``always_copy=False`` a single array is returned as it is.  MXNetError
    when the list is empty or shapes (other than ``axis``) or dtypes differ."""
    if not isinstance(arrays, (list, tuple)) or not arrays or \
            not all(isinstance(item, NDArray) for item in arrays):
        raise MXNetError("concatenate: arrays must be a non-empty list of NDArrays")
    if not always_copy and len(arrays) == 1:
        return arrays[0]
    first = arrays[0]
    ndim = first.ndim
    if not -ndim <= axis < ndim:
        raise MXNetError(f"concatenate: axis {axis} is out of range for {ndim}-d arrays")
    axis = axis % ndim
    for item in arrays[1:]:
        if item.dtype != first.dtype:
            raise MXNetError(f"concatenate: all arrays must have dtype {np.dtype(first.dtype).name}, "
                             f"got {np.dtype(item.dtype).name}")
        if item.ndim != ndim or item.shape[:axis] != first.shape[:axis] or \
                item.shape[axis + 1:] != first.shape[axis + 1:]:
            raise MXNetError(f"concatenate: shapes {first.shape} and {item.shape} differ outside axis {axis}")
    return NDArray(_recorded(lambda *tensors: torch.cat(tensors, dim=axis), *[item._tensor for item in arrays]),
                   first.context)


def moveaxis(tensor, source, destination):
    """``tensor`` with the axes ``source`` (an int or a sequence of ints) moved to the positions
    ``destination`` (as many), the other axes keeping their order (numpy's ``moveaxis``).
    Negative axes count from the end.  Raises ValueError, as MXNet does, for an axis out of
    range, a repeated axis or sequences of different lengths."""
    ndim = tensor.ndim

    def axes(value, name):
        values = [value] if isinstance(value, (numbers.Integral, np.integer)) else list(value)
        result = []
        for axis in values:
            if not -ndim <= int(axis) < ndim:
                raise ValueError(f"moveaxis: {name} axis {axis} is out of bounds for an array of {ndim} dimensions")
            result.append(int(axis) % ndim)
        if len(set(result)) != len(result):
            raise ValueError(f"moveaxis: repeated axis in {name} {values}")
        return result

    source, destination = axes(source, "source"), axes(destination, "destination")
    if len(source) != len(destination):
        raise ValueError(f"moveaxis: source {source} and destination {destination} must have the same number "
                         f"of elements")
    return NDArray(torch.movedim(tensor._tensor, tuple(source), tuple(destination)), tensor.context)


def onehot_encode(indices, out):
    """Write the one-hot encoding of ``indices`` into ``out`` (legacy MXNet helper)."""
    depth = out.shape[1]
    encoded = torch.nn.functional.one_hot(indices._tensor.long(), depth).to(out._tensor.dtype)
    out[:] = NDArray(encoded)
    return out




@provide("split_v2")
def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """Split ``ary`` along ``axis`` into ``indices_or_sections`` equal parts (an int) or at the
    positions of a tuple (``(2, 3)`` gives ``ary[:2]``, ``ary[2:3]``, ``ary[3:]`` on axis 0), through
    the ``_split_v2`` operator.  ``squeeze_axis`` drops the split axis from parts of size 1.
    Returns a list of NDArrays (one NDArray for one part).  MXNetError when an int does not divide
    the axis or ``indices_or_sections`` is neither an int nor a tuple."""
    if not isinstance(ary, NDArray):
        raise MXNetError(f"split_v2: ary must be an NDArray, got {type(ary).__name__}")
    if not -ary.ndim <= axis < ary.ndim:
        raise MXNetError(f"split_v2: axis {axis} is out of range for a {ary.ndim}-d array")
    size = ary.shape[axis]
    if isinstance(indices_or_sections, numbers.Integral) and not isinstance(indices_or_sections, bool):
        sections = int(indices_or_sections)
        if sections <= 0 or size % sections:
            raise MXNetError(f"split_v2: an axis of size {size} cannot be split into {sections} equal parts")
        indices = [i * (size // sections) for i in range(sections)]
    elif isinstance(indices_or_sections, tuple):
        indices = [0] + [int(i) for i in indices_or_sections]
    else:
        raise MXNetError(f"split_v2: indices_or_sections must be an int or a tuple of ints, "
                         f"got {type(indices_or_sections).__name__}")
    return _call("_split_v2", ary, indices=tuple(indices), axis=axis, squeeze_axis=squeeze_axis)


def histogram(a, bins=10, range=None):
    """Counts of the values of ``a`` in bins: ``(counts, bin_edges)``.

    ``bins`` an int with ``range=(low, high)``: that many equal bins over the range (int64 counts,
    float32 edges); values outside the range are not counted, ``high`` falls in the last bin.
    ``bins`` an NDArray of increasing edges: one bin between each neighbouring pair (the last one
    closed).  ``bins`` an int without ``range``: NumPy's ``histogram`` over the data's own range,
    both results float32 (MXNet 1.9.1 did exactly this).  MXNetError for other ``bins``."""
    if not isinstance(a, NDArray):
        raise MXNetError(f"histogram: a must be an NDArray, got {type(a).__name__}")
    if isinstance(bins, NDArray):
        edges = bins._tensor.detach().reshape(-1)
        if edges.numel() < 2:
            raise MXNetError(f"histogram: bins needs at least two edges, got {edges.numel()}")
        return _bin_counts(a, edges.double()), bins.copy()
    if isinstance(bins, numbers.Integral) and not isinstance(bins, bool):
        if bins <= 0:
            raise MXNetError(f"histogram: bins must be positive, got {bins}")
        if range is None:
            counts, edges = np.histogram(a.asnumpy(), bins=int(bins))
            return array(counts, ctx=a.context), array(edges, ctx=a.context)
        low, high = (float(v) for v in range)
        if not low < high:
            raise MXNetError(f"histogram: range must be (low, high) with low < high, got {range}")
        edges = torch.linspace(low, high, int(bins) + 1, dtype=torch.float64, device=a._tensor.device)
        counts = _bin_counts(a, edges, uniform=(low, high, int(bins)))
        return counts, NDArray(edges.to(torch.float32), a.context)
    raise MXNetError(f"histogram: bins must be an int or an NDArray of edges, got {type(bins).__name__}")


def _bin_counts(a, edges, uniform=None):
    return NDArray(bin_counts(a._tensor, edges, uniform), a.context)


# -- sharing memory with NumPy and DLPack --------------------------------------------------------------
