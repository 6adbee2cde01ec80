"""NDArray indexing: the keys of ``x[key]`` and ``x[key] = value`` as MXNet 1.9.1 (numpy) reads them.

A key is an int (numpy integers too), a slice (numpy-integer bounds, negative steps), ``None``
(a new axis), ``Ellipsis``, an index array (list, tuple inside a tuple key, numpy array, NDArray;
integer or boolean) or a tuple of these.  With index arrays present the result follows numpy's
advanced-indexing rules (integers count as index arrays then, so separated index arrays put the
broadcast axes first).  torch cannot slice with a negative step, so such an axis is flipped and
sliced forwards.
"""
from __future__ import annotations

import numbers

import numpy as np
import torch

from ..base import MXNetError

__all__ = ["getitem", "setitem", "slice_is_contiguous"]


def _as_int(value, what):
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        raise MXNetError(f"NDArray indexing: {what} must be an integer or None, got {value!r}")
    return int(value)


def _index_tensor(value, device):
    """An index array as a torch tensor: int64, or bool for a boolean mask."""
    if isinstance(value, torch.Tensor):
        tensor = value
    else:
        array = np.asarray(value)
        if array.dtype == object:
            raise MXNetError(f"NDArray indexing: an index array must be rectangular, got {value!r}")
        if array.size == 0:
            array = array.astype(np.int64)
        # ascontiguousarray makes a 0-d array 1-d: keep the shape (a 0-d boolean adds an axis)
        tensor = torch.from_numpy(np.ascontiguousarray(array).reshape(array.shape))
    if tensor.dtype == torch.bool:
        return tensor.to(device)
    if tensor.is_floating_point():
        if bool((tensor != tensor.trunc()).any()):
            raise MXNetError("NDArray indexing: an index array must hold integers")
    return tensor.to(device=device, dtype=torch.int64)


def _items(key, device, unwrap):
    """The key as a list of normalised items (int, slice, None, Ellipsis, tensor)."""
    parts = key if isinstance(key, tuple) else (key,)
    items = []
    for part in parts:
        part = unwrap(part)
        if part is None or part is Ellipsis:
            items.append(part)
        elif isinstance(part, slice):
            items.append(slice(_as_int(part.start, "a slice start"), _as_int(part.stop, "a slice stop"),
                               _as_int(part.step, "a slice step")))
        elif isinstance(part, (bool, np.bool_)):
            items.append(_index_tensor(np.asarray(part), device))
        elif isinstance(part, (numbers.Integral, np.integer)):
            items.append(int(part))
        elif isinstance(part, (list, tuple, range, np.ndarray, torch.Tensor)):
            items.append(_index_tensor(list(part) if isinstance(part, range) else part, device))
        else:
            raise MXNetError(f"NDArray indexing: unsupported index {part!r} of type {type(part).__name__}; "
                             f"expected int, slice, None, Ellipsis, a list, numpy array or NDArray")
    return items


def _resolve(key, shape, device, unwrap):
    """``(flip_dims, torch_key)``: index the tensor flipped along ``flip_dims`` with ``torch_key``."""
    items = _items(key, device, unwrap)
    if not any(isinstance(item, torch.Tensor) and (item.dim() or item.dtype == torch.bool) for item in items):
        # 0-d integer index arrays and ints only: numpy's result is that of the ints (no axes)
        items = [int(item) if isinstance(item, torch.Tensor) else item for item in items]
    if sum(item is Ellipsis for item in items) > 1:
        raise MXNetError("NDArray indexing: an index can only have a single ellipsis ('...')")
    consumed = sum(item.dim() if isinstance(item, torch.Tensor) and item.dtype == torch.bool else
                   0 if item is None or item is Ellipsis else 1 for item in items)
    if consumed > len(shape):
        raise MXNetError(f"NDArray indexing: too many indices ({consumed}) for an array of shape {tuple(shape)}")
    advanced = any(isinstance(item, torch.Tensor) for item in items)
    flips, result, dim = [], [], 0
    for item in items:
        if item is None:
            result.append(None)
        elif item is Ellipsis:
            result.append(Ellipsis)
            dim += len(shape) - consumed
        elif isinstance(item, slice):
            start, stop, step = slice(item.start, item.stop, item.step).indices(shape[dim]) \
                if item.step != 0 else (None, None, 0)
            if step == 0:
                raise MXNetError("NDArray indexing: a slice step cannot be zero")
            count = len(range(start, stop, step))
            if step < 0 and count > 1:
                flips.append(dim)
                size = shape[dim]
                result.append(slice(size - 1 - start, size - 1 - stop, -step))
            elif step < 0:
                result.append(slice(start, start + count))
            else:
                result.append(slice(start, stop, step))
            dim += 1
        elif isinstance(item, int):
            if not -shape[dim] <= item < shape[dim]:
                raise IndexError(f"index {item} is out of bounds for axis {dim} with size {shape[dim]}")
            # with index arrays present an integer is one too (a 1-element array broadcasts like numpy's scalar)
            result.append(torch.tensor([item % shape[dim]], device=device) if advanced else item)
            dim += 1
        else:
            if item.dtype != torch.bool and item.numel():
                size = shape[dim]
                if bool(((item < -size) | (item >= size)).any()):
                    raise IndexError(f"an index array holds values outside [-{size}, {size - 1}] for axis {dim} "
                                     f"of size {size}")
            result.append(item)
            dim += item.dim() if item.dtype == torch.bool else 1
    return flips, tuple(result)


def getitem(tensor, key, unwrap=lambda k: k):
    """``tensor[key]`` with MXNet's (numpy's) reading of ``key``; a basic key gives a view."""
    flips, torch_key = _resolve(key, tuple(tensor.shape), tensor.device, unwrap)
    source = tensor.flip(flips) if flips else tensor
    return source[torch_key]


def _fit(value, target_shape, tensor):
    """``value`` (a tensor or number) shaped to broadcast onto ``target_shape``."""
    if not isinstance(value, torch.Tensor):
        return value
    value = value.to(device=tensor.device, dtype=tensor.dtype)
    while value.dim() > len(target_shape) and value.shape[0] == 1:
        value = value[0]
    # numpy's broadcast_shapes, not torch's: torch's imports torch.fx's symbolic shapes (sympy,
    # ~34 MiB and seconds) on first use (docs/performance.md, "Start-up and memory")
    try:
        if np.broadcast_shapes(tuple(value.shape), tuple(target_shape)) != tuple(target_shape):
            raise ValueError
    except ValueError:
        raise MXNetError(f"__setitem__: cannot assign a value of shape {tuple(value.shape)} to a region of "
                         f"shape {tuple(target_shape)}") from None
    return value


def setitem(tensor, key, value, unwrap=lambda k: k):
    """``tensor[key] = value`` in place (numpy broadcasting of ``value``, leading unit axes dropped).
    Runs under the caller's torch grad mode (``NDArray._check_writable`` decides whether the
    write is recorded)."""
    flips, torch_key = _resolve(key, tuple(tensor.shape), tensor.device, unwrap)
    if flips:
        flipped = tensor.flip(flips)
        flipped[torch_key] = _fit(value, flipped[torch_key].shape, tensor)
        tensor.copy_(flipped.flip(flips))
    else:
        tensor[torch_key] = _fit(value, tensor[torch_key].shape, tensor)


def slice_is_contiguous(slices, shape):
    """Whether ``x[slices]`` (one slice per axis of ``shape``) is one contiguous block of memory.

    Reading the axes from the last to the first: an axis that keeps more than one element with
    a step other than 1 breaks contiguity; once an axis keeps a proper subset, every axis before
    it must keep at most one element.  A selection of 0 or 1 element is contiguous.
    """
    if len(slices) != len(shape):
        raise MXNetError(f"slice_is_contiguous: {len(slices)} slices for a shape of {len(shape)} axes")
    counts = [len(range(*s.indices(n))) for s, n in zip(slices, shape)]
    if int(np.prod(counts)) in (0, 1):
        return True
    partial = False
    for s, n, count in zip(reversed(slices), reversed(shape), reversed(counts)):
        step = s.indices(n)[2]
        if count > 1 and step != 1:
            return False
        if partial and count > 1:
            return False
        if count < n:
            partial = True
    return True
