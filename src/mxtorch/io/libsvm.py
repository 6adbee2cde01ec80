"""``LibSVMIter``: batches of sparse rows from LibSVM text files (MXNet 1.9.1's C++ iterator).

A LibSVM line is ``<label> <index>:<value> <index>:<value> ...`` with 0-based feature indices;
a line with only a label is an all-zero row.  Data batches are ``CSRNDArray`` of shape
``(batch_size,) + data_shape``; labels are the lines' first numbers as a dense
``(batch_size,)`` array, or, with ``label_libsvm``, the rows of a second LibSVM file (whose
leading numbers are ignored) as a ``CSRNDArray`` of shape ``(batch_size,) + label_shape``.
"""
from __future__ import annotations

import os

import numpy as np

from ..base import MXNetError
from ..schema import Attr, Bool, OptionalPath, Path
from .iterators import MXDataIter
from .native import NonNegativeInt, PositiveInt, PositiveShape, _CSVSource, parse_iterator_arguments

__all__ = ["LibSVMIter"]


class LibSVMIterArguments:
    """LibSVMIter's parameters (MXNet's names and defaults)."""
    data_libsvm = Attr(Path, required=True)
    data_shape = Attr(PositiveShape, required=True)
    label_libsvm = Attr(OptionalPath, default=None)
    label_shape = Attr(PositiveShape, default=(1,))
    num_parts = Attr(PositiveInt, default=1)
    part_index = Attr(NonNegativeInt, default=0)
    batch_size = Attr(PositiveInt, required=True)
    round_batch = Attr(Bool, default=True)


def _line_range(content, num_parts, part_index):
    """The byte range of part ``part_index`` of ``num_parts``: equal byte ranges (the last one
    shorter), each moved forward to the next line start, as dmlc's text splitter cuts them."""
    step = (len(content) + num_parts - 1) // num_parts

    def line_start(offset):
        if offset <= 0:
            return 0
        if offset >= len(content):
            return len(content)
        newline = content.find(b"\n", offset - 1)
        return len(content) if newline == -1 else newline + 1

    return line_start(step * part_index), line_start(step * (part_index + 1))


def _read_libsvm(path, width, what, num_parts, part_index):
    """``(labels, indptr, indices, values)`` of the rows of a LibSVM file's part; MXNetError for
    a missing file, a malformed entry or an index outside ``[0, width)``."""
    if not os.path.isfile(path):
        raise MXNetError(f"LibSVMIter: {what} file {path!r} does not exist")
    with open(path, "rb") as stream:
        content = stream.read()
    begin, end = _line_range(content, num_parts, part_index)
    labels, indptr, indices, values = [], [0], [], []
    for line_number, line in enumerate(content[begin:end].decode("utf-8").splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        try:
            labels.append(float(fields[0]))
            for entry in fields[1:]:
                index, value = entry.split(":")
                indices.append(int(index))
                values.append(float(value))
        except ValueError:
            raise MXNetError(f"LibSVMIter: line {line_number} of {what} file {path!r} is not "
                             f"'<label> <index>:<value> ...': {line!r}") from None
        outside = [index for index in indices[indptr[-1]:] if not 0 <= index < width]
        if outside:
            raise MXNetError(f"LibSVMIter: line {line_number} of {what} file {path!r} has feature index "
                             f"{outside[0]}, outside [0, {width}) of the given shape")
        indptr.append(len(indices))
    return (np.asarray(labels, dtype=np.float32), np.asarray(indptr, dtype=np.int64),
            np.asarray(indices, dtype=np.int64), np.asarray(values, dtype=np.float32))


class _SparseRows:
    """Rows kept in CSR form; ``dense(row)`` gives one row as a dense float32 vector."""

    def __init__(self, indptr, indices, values, width):
        self.indptr, self.indices, self.values, self.width = indptr, indices, values, width
        self.shape = (len(indptr) - 1, width)

    def dense(self, row):
        out = np.zeros(self.width, dtype=np.float32)
        start, stop = self.indptr[row], self.indptr[row + 1]
        out[self.indices[start:stop]] = self.values[start:stop]
        return out


class _LibSVMSource(_CSVSource):
    """CSVIter's batch loader (round_batch wraps the last batch and the next epoch continues
    after the wrapped rows) over sparse rows; batches leave as CSRNDArrays."""

    name = "LibSVMIter"

    def __init__(self, data, label, sparse_label, batch_size, data_shape, label_shape):
        self.rows, self.label_rows, self.sparse_label = data, label, sparse_label
        super().__init__(data, label, batch_size, True, data_shape, label_shape, np.float32)
        if sparse_label:
            self.label_buffer = np.zeros((batch_size,) + tuple(label_shape), dtype=np.float32)

    def _put(self, slot, row):
        self.data_buffer[slot] = self.rows.dense(row).reshape(self.data_buffer.shape[1:])
        if self.sparse_label:
            self.label_buffer[slot] = self.label_rows.dense(row).reshape(self.label_buffer.shape[1:])
        else:
            self.label_buffer[slot] = self.label_rows[row].reshape(self.label_buffer.shape[1:])
        self.index_buffer[slot] = row

    def next(self):
        from ..ndarray.sparse import csr_matrix
        batch = super().next()
        if batch is None:
            return None
        data, label, pad, index = batch
        data = csr_matrix(data.reshape(data.shape[0], -1), dtype=np.float32)
        if self.sparse_label:
            label = csr_matrix(label.reshape(label.shape[0], -1), dtype=np.float32)
        return data, label, pad, index


def LibSVMIter(**kwargs):
    """Batches of sparse rows read from LibSVM files (MXNet's ``mx.io.LibSVMIter``).

    Arguments (MXNet's names and defaults): ``data_libsvm`` (path, required), ``data_shape``
    (``(num_features,)``, required), ``label_libsvm`` (path of a second LibSVM file whose rows
    are the labels; default: the data lines' leading numbers), ``label_shape`` ((1,)),
    ``num_parts`` / ``part_index`` (read only that part of the file: equal byte ranges cut at
    line starts, as MXNet's reader), ``batch_size`` (required), ``round_batch`` (True; MXNet
    1.9.1 refused False and so does mxtorch), ``data_name`` / ``label_name``;
    ``prefetch_buffer`` and ``ctx`` are accepted and ignored.

    Each batch has ``data`` (a float32 CSRNDArray ``(batch_size, num_features)``), ``label``
    (float32, see the module docstring), ``pad`` and ``index`` (uint64 row numbers of the part).
    The last batch wraps to the first rows and the next epoch starts after them, as CSVIter.

    MXNetError for missing required arguments or files, malformed lines, feature indices
    outside ``data_shape``, a label file with another number of rows, ``part_index`` outside
    ``[0, num_parts)`` and ``round_batch=False``.
    """
    arguments = parse_iterator_arguments("LibSVMIter", LibSVMIterArguments, kwargs)
    if not arguments["round_batch"]:
        raise MXNetError("LibSVMIter: round_batch=False is not supported (MXNet 1.9.1's sparse batch loader "
                         "refused it too); use round_batch=True and the batches' pad")
    num_parts, part_index = arguments["num_parts"], arguments["part_index"]
    if part_index >= num_parts:
        raise MXNetError(f"LibSVMIter: part_index must be below num_parts={num_parts}, got {part_index}")
    data_shape, label_shape = arguments["data_shape"], arguments["label_shape"]
    width = int(np.prod(data_shape))
    labels, indptr, indices, values = _read_libsvm(arguments["data_libsvm"], width, "data_libsvm",
                                                   num_parts, part_index)
    if len(labels) == 0:
        raise MXNetError(f"LibSVMIter: data_libsvm {arguments['data_libsvm']!r} holds no rows "
                         f"(part {part_index} of {num_parts})")
    rows = _SparseRows(indptr, indices, values, width)
    sparse_label = arguments["label_libsvm"] is not None
    if sparse_label:
        label_width = int(np.prod(label_shape))
        _, label_indptr, label_indices, label_values = _read_libsvm(
            arguments["label_libsvm"], label_width, "label_libsvm", num_parts, part_index)
        label = _SparseRows(label_indptr, label_indices, label_values, label_width)
        if label.shape[0] != rows.shape[0]:
            raise MXNetError(f"LibSVMIter: data_libsvm has {rows.shape[0]} rows but label_libsvm has "
                             f"{label.shape[0]}")
    elif int(np.prod(label_shape)) != 1:
        raise MXNetError(f"LibSVMIter: label_shape={tuple(label_shape)} needs label_libsvm (the data lines "
                         f"carry one label each); MXNet 1.9.1 crashed here")
    else:
        label = labels[:, None]
    source = _LibSVMSource(rows, label, sparse_label, arguments["batch_size"], data_shape, label_shape)
    return MXDataIter(source, data_name=kwargs.get("data_name", "data"),
                      label_name=kwargs.get("label_name", "softmax_label"))
