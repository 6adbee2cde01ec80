"""File-reading iterators: ``CSVIter`` and ``MNISTIter`` (MXNet 1.9.1's C++ iterators).

As in MXNet, ``mx.io.CSVIter(**kwargs)`` and ``mx.io.MNISTIter(**kwargs)``
are factory functions returning an :class:`~mxtorch.io.iterators.MXDataIter`.
Arguments may be given as Python values or as MXNet's strings (``'(3,)'``,
``'True'``, ``'128'``).  Batches are float32 NDArrays on cpu (CSVIter:
``dtype`` int32 / int64 too).
"""
from __future__ import annotations

import logging
import os
import struct
import warnings

import numpy as np

from ..base import MXNetError
from ..schema import (Attr, Bool, DtypeOf, Int, OptionalPath, Path, Shape, Str, at_least, collect,
                      parse_params)
from .iterators import MXDataIter

__all__ = ["CSVIter", "MNISTIter"]

# accepted by every native iterator for compatibility, without effect here (the names of the
# iterator's arrays are read by MXDataIter)
IGNORED_ARGUMENTS = frozenset({"prefetch_buffer", "ctx", "data_name", "label_name"})


def parse_iterator_arguments(iterator, declaration, kwargs, stacklevel=4):
    """``{name: value}`` of the iterator ``declaration`` (a class of ``schema.Attr`` fields)
    from ``kwargs``: MXNetError naming the iterator and the argument for a bad or missing
    value; unknown arguments are ignored with a warning (MXNet's iterators ignored them)."""
    return parse_params(collect(declaration), kwargs, iterator, "argument", unknown="warn",
                        ignored=IGNORED_ARGUMENTS, stacklevel=stacklevel)


PositiveInt = at_least(Int, 1)
NonNegativeInt = at_least(Int, 0)
PositiveShape = at_least(Shape, 1)


class CSVIterArguments:
    """CSVIter's parameters (MXNet's names and defaults)."""
    data_csv = Attr(Path, required=True)
    data_shape = Attr(PositiveShape, required=True)
    label_csv = Attr(OptionalPath, default=None)
    label_shape = Attr(PositiveShape, default=(1,))
    batch_size = Attr(PositiveInt, required=True)
    round_batch = Attr(Bool, default=True)
    dtype = Attr(DtypeOf("float32", "int32", "int64", default="float32"), default=np.dtype(np.float32))


class MNISTIterArguments:
    """MNISTIter's parameters (MXNet's names and defaults); ``dtype`` is accepted and ignored."""
    image = Attr(Path, default="./train-images-idx3-ubyte")
    label = Attr(Path, default="./train-labels-idx1-ubyte")
    batch_size = Attr(PositiveInt, default=128)
    shuffle = Attr(Bool, default=True)
    flat = Attr(Bool, default=False)
    seed = Attr(NonNegativeInt, default=0)
    silent = Attr(Bool, default=False)
    num_parts = Attr(PositiveInt, default=1)
    part_index = Attr(NonNegativeInt, default=0)
    dtype = Attr(Str, default=None)


def _read_csv(path, row_size, what):
    """All rows of a CSV file of numbers as a float64 array (rows, row_size); MXNetError on a bad row."""
    if not os.path.isfile(path):
        raise MXNetError(f"CSVIter: {what} file {path!r} does not exist")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # numpy warns about an empty file
            table = np.loadtxt(path, delimiter=",", dtype=np.float64, ndmin=2)
        if table.shape[0] == 0 or table.shape[1] == row_size:
            return table.reshape(-1, row_size)
    except ValueError:
        pass  # the slow reader below finds the offending line
    try:
        with open(path, "r") as stream:
            lines = stream.read().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise MXNetError(f"CSVIter: cannot read {what} file {path!r}: {error}") from None
    rows = []
    for line_number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text:
            continue
        fields = text.split(",")
        if len(fields) != row_size:
            raise MXNetError(f"CSVIter: line {line_number} of {what} file {path!r} has {len(fields)} values, "
                             f"but the shape asks for {row_size} per row")
        try:
            rows.append([float(field) for field in fields])
        except ValueError:
            raise MXNetError(f"CSVIter: line {line_number} of {what} file {path!r} holds a value that is not "
                             f"a number: {text!r}") from None
    return np.asarray(rows, dtype=np.float64).reshape(-1, row_size)


class _CSVSource:
    """Batches of CSV rows with MXNet 1.9.1's batch-loader semantics.

    ``round_batch=True``: an incomplete last batch is completed with rows
    from the start of the file (``pad`` = their number) and the epoch ends;
    the next ``before_first()`` then continues after those rows instead of
    rewinding.  ``round_batch=False``: the incomplete last batch keeps the
    rows of the previous batch in its unused positions (MXNet reuses its
    buffer) and reports ``pad`` = their number.
    """

    name = "CSVIter"

    def __init__(self, data, label, batch_size, round_batch, data_shape, label_shape, dtype):
        self.data = data
        self.label = label
        self.batch_size = batch_size
        self.round_batch = round_batch
        self.dtype = dtype
        self.num_rows = data.shape[0]
        self.position = 0          # next row the reader hands out
        self.overflow = 0          # rows taken from the start to complete the last batch
        self.data_buffer = np.zeros((batch_size,) + tuple(data_shape), dtype=dtype)
        label_batch_shape = (batch_size,) if int(np.prod(label_shape)) == 1 else (batch_size,) + tuple(label_shape)
        self.label_buffer = np.zeros(label_batch_shape, dtype=dtype)
        self.index_buffer = np.zeros((batch_size,), dtype=np.uint64)

    def before_first(self):
        if not self.round_batch or self.overflow == 0:
            self.position = 0
        else:
            self.overflow = 0

    def _put(self, slot, row):
        self.data_buffer[slot] = self.data[row].reshape(self.data_buffer.shape[1:])
        self.label_buffer[slot] = self.label[row].reshape(self.label_buffer.shape[1:])
        self.index_buffer[slot] = row

    def next(self):
        if self.overflow != 0:
            return None
        filled = 0
        while filled < self.batch_size and self.position < self.num_rows:
            self._put(filled, self.position)
            self.position += 1
            filled += 1
        if filled == 0:
            return None
        pad = 0
        if filled < self.batch_size:
            if self.round_batch:
                missing = self.batch_size - filled
                if missing > self.num_rows:
                    raise MXNetError(f"CSVIter: {self.num_rows} rows are too few to complete a batch of "
                                     f"{self.batch_size} after {filled} rows (round_batch=True wraps around once)")
                self.position = 0
                for slot in range(filled, self.batch_size):
                    self._put(slot, self.position)
                    self.position += 1
                self.overflow = missing
                pad = missing
            else:
                pad = self.batch_size - filled
        return self.data_buffer.copy(), self.label_buffer.copy(), pad, self.index_buffer.copy()


def CSVIter(**kwargs):
    """Batches of rows read from CSV files of numbers (MXNet's ``mx.io.CSVIter``).

    Arguments (MXNet's names and defaults): ``data_csv`` (path, required),
    ``data_shape`` (shape of one row, required; a row must hold
    ``prod(data_shape)`` values), ``label_csv`` (path; 'NULL' = labels are
    zeros), ``label_shape`` ((1,) = label batches of shape ``(batch_size,)``,
    else ``(batch_size,) + label_shape``), ``batch_size`` (required),
    ``round_batch`` (True), ``dtype`` (None = float32; int32, int64),
    ``data_name`` ('data'), ``label_name`` ('softmax_label');
    ``prefetch_buffer`` and ``ctx`` are accepted and ignored.

    Each batch has ``index`` (uint64 row numbers) and ``pad``.  With
    ``round_batch=True`` the last batch wraps to the first rows and the next
    epoch starts after them; with False the unused rows of the last batch
    hold the previous batch's rows.  Data / label batches are
    ``(batch_size,) + data_shape`` and as above, of ``dtype``.

    Raises MXNetError for missing required arguments, missing files, rows
    with the wrong number of values or non-numbers, and label files whose
    number of rows differs from the data file's.
    """
    arguments = parse_iterator_arguments("CSVIter", CSVIterArguments, kwargs)
    data_shape, label_shape = arguments["data_shape"], arguments["label_shape"]
    data = _read_csv(arguments["data_csv"], int(np.prod(data_shape)), "data_csv")
    if arguments["label_csv"] is None:
        label = np.zeros((data.shape[0], int(np.prod(label_shape))), dtype=np.float64)
    else:
        label = _read_csv(arguments["label_csv"], int(np.prod(label_shape)), "label_csv")
        if label.shape[0] != data.shape[0]:
            raise MXNetError(f"CSVIter: data_csv {arguments['data_csv']!r} has {data.shape[0]} rows but "
                             f"label_csv {arguments['label_csv']!r} has {label.shape[0]}")
    if data.shape[0] == 0:
        raise MXNetError(f"CSVIter: data_csv {arguments['data_csv']!r} holds no rows")
    dtype = arguments["dtype"]
    source = _CSVSource(data.astype(dtype), label.astype(dtype), arguments["batch_size"],
                        arguments["round_batch"], data_shape, label_shape, dtype)
    return MXDataIter(source, data_name=kwargs.get("data_name", "data"),
                      label_name=kwargs.get("label_name", "softmax_label"))


def _read_idx(path, magic, what):
    """The header dimensions and uint8 payload of an MNIST idx file (big-endian header)."""
    if not os.path.isfile(path):
        raise MXNetError(f"MNISTIter: {what} file {path!r} does not exist")
    with open(path, "rb") as stream:
        content = stream.read()
    dimensions = 3 if magic == 2051 else 1
    header_size = 4 * (1 + dimensions)
    if len(content) < header_size:
        raise MXNetError(f"MNISTIter: {what} file {path!r} is too short for an idx header ({len(content)} bytes)")
    found_magic, *shape = struct.unpack(">" + "i" * (1 + dimensions), content[:header_size])
    if found_magic != magic:
        raise MXNetError(f"MNISTIter: {what} file {path!r} starts with magic number {found_magic}, "
                         f"expected {magic}")
    expected = int(np.prod(shape))
    payload = np.frombuffer(content, dtype=np.uint8, offset=header_size)
    if payload.size < expected:
        raise MXNetError(f"MNISTIter: {what} file {path!r} is truncated: its header announces {shape} "
                         f"({expected} bytes) but {payload.size} bytes follow")
    return shape, payload[:expected]


class _MersenneTwister:
    """32-bit outputs of std::mt19937 seeded with one integer (numpy's legacy MT19937 seeding is the same)."""

    def __init__(self, seed):
        self._generator = np.random.MT19937(0)
        self._generator._legacy_seeding(seed % (2 ** 32))
        self._buffer = np.empty(0, dtype=np.uint64)
        self._position = 0

    def __call__(self):
        if self._position == self._buffer.size:
            self._buffer = self._generator.random_raw(4096)
            self._position = 0
        value = int(self._buffer[self._position])
        self._position += 1
        return value


def _uniform_below_or_equal(generator, upper):
    """An integer in [0, upper] drawn as libstdc++'s uniform_int_distribution does from a 32-bit engine."""
    range_size = upper + 1
    scaling = 0xFFFFFFFF // range_size
    limit = range_size * scaling
    while True:
        value = generator()
        if value < limit:
            return value // scaling


def _mnist_shuffle(count, seed):
    """The order MXNet's MNISTIter visits ``count`` images in: std::shuffle with std::mt19937(seed)."""
    order = list(range(count))
    generator = _MersenneTwister(seed)
    for position in range(1, count):
        other = _uniform_below_or_equal(generator, position)
        order[position], order[other] = order[other], order[position]
    return np.asarray(order, dtype=np.int64)


class _MNISTSource:
    """Whole batches of MNIST images in a fixed (optionally shuffled once) order; the rest is dropped."""

    name = "MNISTIter"

    def __init__(self, images, labels, batch_size):
        self.images = images
        self.labels = labels
        self.batch_size = batch_size
        self.position = 0

    def before_first(self):
        self.position = 0

    def next(self):
        if self.position + self.batch_size > self.images.shape[0]:
            return None
        start, self.position = self.position, self.position + self.batch_size
        return (self.images[start:self.position].copy(), self.labels[start:self.position].copy(), 0,
                np.zeros(self.batch_size, dtype=np.uint64))


def MNISTIter(**kwargs):
    """Batches of MNIST images read from idx files (MXNet's ``mx.io.MNISTIter``).

    Arguments (MXNet's names and defaults): ``image``
    ('./train-images-idx3-ubyte'), ``label`` ('./train-labels-idx1-ubyte'),
    ``batch_size`` (128), ``shuffle`` (True: the images are shuffled once,
    in the same order MXNet's ``std::mt19937(seed)`` shuffle gives),
    ``flat`` (False: data ``(batch_size, 1, rows, cols)``; True:
    ``(batch_size, rows * cols)``), ``seed`` (0), ``silent`` (False: log the
    number of images), ``num_parts`` / ``part_index`` (read only images
    ``[n * part_index // num_parts, n * (part_index + 1) // num_parts)``),
    ``data_name``, ``label_name``; ``prefetch_buffer``, ``ctx`` and
    ``dtype`` are accepted and ignored.

    Data are float32 ``pixel / 256`` (as MXNet), labels float32
    ``(batch_size,)``; an incomplete last batch is dropped; ``index`` is all
    zeros and ``pad`` 0 as in MXNet 1.9.1.

    Raises MXNetError for missing or malformed files (wrong magic number,
    truncated), different image and label counts, ``part_index`` outside
    ``[0, num_parts)`` and a part with fewer images than ``batch_size``.
    """
    arguments = parse_iterator_arguments("MNISTIter", MNISTIterArguments, kwargs)
    (count, rows, columns), pixels = _read_idx(arguments["image"], 2051, "image")
    (label_count,), label_bytes = _read_idx(arguments["label"], 2049, "label")
    if label_count != count:
        raise MXNetError(f"MNISTIter: image file {arguments['image']!r} holds {count} images but label file "
                         f"{arguments['label']!r} holds {label_count} labels")
    num_parts, part_index = arguments["num_parts"], arguments["part_index"]
    if part_index >= num_parts:
        raise MXNetError(f"MNISTIter: part_index must be below num_parts={num_parts}, got {part_index}")
    start, end = count * part_index // num_parts, count * (part_index + 1) // num_parts
    images = pixels.reshape(count, rows, columns)[start:end]
    labels = label_bytes[start:end]
    if arguments["shuffle"]:
        order = _mnist_shuffle(images.shape[0], arguments["seed"])
        images, labels = images[order], labels[order]
    images = images.astype(np.float32) * np.float32(1.0 / 256.0)
    images = images.reshape(-1, rows * columns) if arguments["flat"] else images.reshape(-1, 1, rows, columns)
    labels = labels.astype(np.float32)
    batch_size = arguments["batch_size"]
    if images.shape[0] < batch_size:
        raise MXNetError(f"MNISTIter: batch_size {batch_size} is larger than the {images.shape[0]} images "
                         f"of this part; no batch can be produced")
    if not arguments["silent"]:
        logging.getLogger(__name__).info("MNISTIter: load %d images, shuffle=%d, shape=%s", images.shape[0],
                                         int(arguments["shuffle"]), (batch_size,) + images.shape[1:])
    iterator = MXDataIter(_MNISTSource(images, labels, batch_size), data_name=kwargs.get("data_name", "data"),
                          label_name=kwargs.get("label_name", "softmax_label"))
    iterator.num_parts = num_parts
    return iterator
