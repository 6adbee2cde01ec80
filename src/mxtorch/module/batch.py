"""Batches converted once, at the Module boundary, into the one form executors load.

``Module.forward`` (and ``DataParallelExecutorGroup.forward``) accept MXNet's batch forms:

- a DataBatch of whole-batch arrays, ``data[i]`` for ``data_names[i]`` and ``label[j]`` for
  ``label_names[j]``: each array is cut along its batch axis (the ``'N'`` of its DataDesc
  layout; an input whose layout has no ``'N'`` goes whole to every context) into the
  contexts' parts of the work load;
- a list of DataBatch, one per context, each holding that context's part (MXNet's form);
- a DataBatch whose ``data`` / ``label`` hold one list of arrays per context (the per-device
  binding of detection code, ``[[data_dev0, im_info_dev0], [data_dev1, im_info_dev1]]``).

:func:`read_batch` checks a batch against the module's names (an array count that does not
match raises MXNetError naming both; labels given to a module without label names are ignored,
as in MXNet) and returns :class:`BatchInputs`; :func:`split_batch` turns those into a
:class:`DeviceBatch`: per context, one array per data name and per label name.  Labels passed
to ``update_metric`` go through :func:`split_labels`, the same rule.
"""
from __future__ import annotations

import numpy as np
import torch

from ..base import MXNetError
from ..ndarray.ndarray import NDArray

__all__ = ["BatchInputs", "DeviceBatch", "read_batch", "split_batch", "split_labels", "batch_size_of",
           "as_ndarray", "loss_label_inputs"]


class BatchInputs:
    """The arrays of one batch as given.  ``per_device`` False: ``data`` / ``label`` are lists
    with one array per name; True: lists with one such list per context.  ``label`` is None
    when the batch carries no labels or the module has no label names.  ``from_list``: the
    batch was a list of DataBatch.  ``provide_data`` / ``provide_label``: the batch's own
    DataDesc lists (None when it has none)."""

    __slots__ = ("data", "label", "pad", "per_device", "from_list", "provide_data", "provide_label")

    def __init__(self, data, label, pad, per_device, from_list=False, provide_data=None, provide_label=None):
        self.data = data
        self.label = label
        self.pad = pad
        self.per_device = per_device
        self.from_list = from_list
        self.provide_data = provide_data
        self.provide_label = provide_label

    def data_shapes(self):
        """``[shape per name]``, or ``[[shape per name] per context]`` when ``per_device``."""
        if self.per_device:
            return [[tuple(a.shape) for a in arrays] for arrays in self.data]
        return [tuple(a.shape) for a in self.data]

    def label_shapes(self):
        if self.label is None:
            return None
        if self.per_device:
            return [[tuple(a.shape) for a in arrays] for arrays in self.label]
        return [tuple(a.shape) for a in self.label]


class DeviceBatch:
    """The form executors load: ``data[c][i]`` is context ``c``'s array for data name ``i``,
    ``label[c][j]`` for label name ``j`` (``label`` None: keep the bound labels); ``pad`` the
    padding rows at the end of the whole batch."""

    __slots__ = ("data", "label", "pad")

    def __init__(self, data, label, pad=0):
        self.data = data
        self.label = label
        self.pad = pad


def as_ndarray(value, what="input"):
    """An NDArray from an NDArray, numpy array or torch tensor; MXNetError for anything else."""
    if isinstance(value, NDArray):
        return value
    if isinstance(value, np.ndarray):
        return NDArray(torch.from_numpy(np.ascontiguousarray(value)))
    if isinstance(value, torch.Tensor):
        return NDArray(value)
    raise MXNetError(f"forward: {what} must be an NDArray or numpy array, got {type(value).__name__}")


def _checked(arrays, names, what, where=""):
    arrays = list(arrays)
    if len(arrays) != len(names):
        raise MXNetError(f"forward: the batch has {len(arrays)} {what} arrays{where}, the module is bound with "
                         f"{len(names)} {what} names {list(names)}")
    return [as_ndarray(a, f"{what} {n!r}") for a, n in zip(arrays, names)]


def _nested(arrays):
    return bool(arrays) and isinstance(arrays[0], (list, tuple))


def read_batch(data_batch, data_names, label_names, num_contexts):
    """:class:`BatchInputs` of a DataBatch or a list of DataBatch (see the module docstring),
    checked against ``data_names`` / ``label_names`` and ``num_contexts``.  MXNetError when the
    batch is empty, has more or fewer data (or label) arrays than names, or holds per-context
    arrays for another number of contexts."""
    if isinstance(data_batch, list):      # MXNet's test: a list (not any tuple: namedtuple batches exist)
        if not data_batch:
            raise MXNetError("forward: got an empty list of data batches")
        batches = list(data_batch)
        data = [b.data for b in batches]
        label = [b.label for b in batches] if all(getattr(b, "label", None) for b in batches) else None
        pad, per_device, from_list = 0, True, True
        provide_data = provide_label = None
    else:
        data = getattr(data_batch, "data", None)
        if not data:
            raise MXNetError(f"forward: the batch holds no data arrays (data={data!r})")
        label = getattr(data_batch, "label", None) or None
        pad = int(getattr(data_batch, "pad", 0) or 0)
        per_device, from_list = _nested(data), False
        provide_data = getattr(data_batch, "provide_data", None)
        provide_label = getattr(data_batch, "provide_label", None)
    if not label_names:
        label, provide_label = None, None
    if per_device:
        if len(data) != num_contexts:
            raise MXNetError(f"forward: the batch holds data for {len(data)} contexts, the module has "
                             f"{num_contexts}; give one list of arrays (or one DataBatch) per context")
        data = [_checked(arrays, data_names, "data", f" for context {c}") for c, arrays in enumerate(data)]
        if label is not None:
            if not _nested(label) or len(label) != num_contexts:
                raise MXNetError(f"forward: the batch holds data for {num_contexts} contexts but its labels "
                                 f"are not one list per context: {label!r}")
            label = [_checked(arrays, label_names, "label", f" for context {c}") for c, arrays in enumerate(label)]
    else:
        data = _checked(data, data_names, "data")
        if label is not None:
            if _nested(label):
                raise MXNetError("forward: the batch holds whole-batch data but one list of labels per "
                                 "context; give both in the same form")
            label = _checked(label, label_names, "label")
    return BatchInputs(data, label, pad, per_device, from_list, provide_data, provide_label)


def batch_size_of(shapes, axes, what="data"):
    """The batch size shared by ``shapes`` along their batch ``axes`` (-1: no batch axis);
    None when no shape has one.  MXNetError when they disagree (MXNet's rule: all data and
    labels of a binding have the same batch size)."""
    size = None
    for (name, shape), axis in zip(shapes, axes):
        if axis < 0:
            continue
        if axis >= len(shape):
            raise MXNetError(f"bind: {what} {name!r} has shape {tuple(shape)} without the batch axis {axis} "
                             f"of its layout")
        if size is not None and shape[axis] != size:
            raise MXNetError(f"bind: all data and labels must have the same batch size: batch_size = {size}, "
                             f"but {what} {name!r} has shape {tuple(shape)}")
        size = shape[axis]
    return size


def _cut(arrays, names, axes, slices, batch_size, what):
    """One list per context of ``arrays`` cut along their batch axes by ``slices``."""
    if len(slices) == 1:
        for array, name, axis in zip(arrays, names, axes):
            if axis >= 0 and (array.ndim <= axis or array.shape[axis] != batch_size):
                raise MXNetError(f"forward: {what} {name!r} has shape {array.shape}, the module is bound for "
                                 f"batch size {batch_size} along axis {axis}")
        return [list(arrays)]
    parts = [[] for _ in slices]
    for array, name, axis in zip(arrays, names, axes):
        if axis >= 0 and (array.ndim <= axis or array.shape[axis] != batch_size):
            raise MXNetError(f"forward: {what} {name!r} has shape {array.shape}, the module is bound for "
                             f"batch size {batch_size} along axis {axis}")
        for part, piece in zip(parts, slices):
            if axis < 0:
                part.append(array)
            else:
                part.append(NDArray(array._tensor.narrow(axis, piece.start, piece.stop - piece.start),
                                    array.context))
    return parts


def split_batch(inputs, names, slices, batch_size, data_axes, label_axes):
    """The :class:`DeviceBatch` of ``inputs``: whole-batch arrays are cut by ``slices`` (one
    per context) along their batch axes; per-context arrays pass as they are.  ``names`` is
    ``(data_names, label_names)``."""
    if inputs.per_device:
        return DeviceBatch(inputs.data, inputs.label, inputs.pad)
    data_names, label_names = names
    data = _cut(inputs.data, data_names, data_axes, slices, batch_size, "data")
    label = None
    if inputs.label is not None:
        label = _cut(inputs.label, label_names, label_axes or [0] * len(label_names), slices, batch_size, "label")
    return DeviceBatch(data, label, inputs.pad)


def split_labels(labels, label_names, label_axes, slices, batch_size, pre_sliced):
    """Per-context label lists for ``update_metric``: ``pre_sliced`` labels (one list per
    context) and per-context lists pass as they are, whole-batch labels are cut like a batch.
    A module bound without label names cuts each label along axis 0."""
    labels = list(labels or [])
    if pre_sliced or _nested(labels):
        if len(labels) != len(slices):
            raise MXNetError(f"update_metric: got labels for {len(labels)} contexts, the module has {len(slices)}")
        return [[as_ndarray(a, "label") for a in arrays] for arrays in labels]
    arrays = [as_ndarray(a, "label") for a in labels]
    names = list(label_names) if len(label_names) == len(arrays) else [f"#{i}" for i in range(len(arrays))]
    axes = list(label_axes) if label_axes and len(label_axes) == len(arrays) else [0] * len(arrays)
    if len(slices) == 1:
        return [arrays]
    return _cut(arrays, names, axes, slices, batch_size, "label")


def loss_label_inputs(symbol):
    """Names of the variables read as labels (any input after the first) by a loss head
    (``Operator.is_loss``): inputs whose shape follows the batch even when a module does not
    name them as labels."""
    from ..symbol.symbol import topological_order
    names = set()
    for node in topological_order(symbol._outputs):
        if node.op is not None and node.op.is_loss:
            names.update(child.name for child, _ in node.inputs[1:] if child.op is None)
    return names
