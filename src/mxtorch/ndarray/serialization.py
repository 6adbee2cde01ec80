"""MXNet's binary NDArray file format: ``mx.nd.save``, ``mx.nd.load``, ``mx.nd.load_frombuffer``.

This is the format of ``.params`` checkpoints and of every ``mx.nd.save`` file.
All integers are little-endian.

List file (what ``save`` writes and ``load`` reads)::

    uint64 0x112                 list magic
    uint64 reserved              0 when written; ignored when read (as MXNet does)
    uint64 count                 number of arrays
    count x array record
    uint64 name_count            0 (the file loads as a list) or count (it loads as a dict)
    name_count x (uint64 length, UTF-8 bytes)

Array record, version 2 (magic ``0xF993FAC9``; what MXNet 1.x writes)::

    uint32 0xF993FAC9
    int32  storage type          0 dense, 1 row_sparse, 2 csr
    [sparse only: storage shape = int32 ndim, int64 dim[ndim]]
    int32  ndim, int64 dim[ndim] the array's shape
    int32  device type, int32 device id   (1 = cpu, 2 = gpu, 3 = cpu_pinned, 5 = cpu_shared)
    int32  dtype flag            see below
    [sparse only: per auxiliary array: int32 dtype flag, int32 ndim, int64 dim[ndim]]
    raw data                     prod(storage shape) * itemsize bytes (dense: prod(shape))
    [sparse only: raw data of each auxiliary array]

Row-sparse arrays have one auxiliary array (the row indices, storage shape
``(stored_rows,) + shape[1:]``); CSR arrays have two (``indptr`` of length
``rows + 1``, then the column indices, storage shape ``(nnz,)``).

Older and newer record versions, also read:

* version 1 (magic ``0xF993FAC8``): like version 2 without the storage type field
  (always dense).
* version 0 (no magic, MXNet before 0.9): the record starts directly with
  ``uint32 ndim, uint32 dim[ndim]``, then device, dtype flag and data.
* version 3 (magic ``0xF993FACA``, written under NumPy shape semantics,
  ``mx.np_shape(True)`` / ``mx.npx.set_np()``): laid out like version 2.

As in MXNet 1.9.1, ``save`` writes version 3 under NumPy shape semantics and version 2
otherwise, and ``load`` refuses (MXNetError) a version-3 record outside NumPy shape
semantics and an older record inside them: the two read a 0 in a shape differently
(a zero-size dimension or an unknown one).

dtype flags (mshadow's numbering): 0 float32, 1 float64, 2 float16, 3 uint8, 4 int32,
5 int8, 6 int64, 7 bool, 8 int16, 12 bfloat16.  MXNet 1.9.1 reads and writes all of
them except int16: its Python front end cannot create int16 arrays and its loader rejects
flag 8 ("Unknown type enum 8"), so an int16 array saved here loads only in mxtorch.
Flags 9-11 (uint16, uint32, uint64) exist in mshadow but MXNet never writes them and
mxtorch's NDArray does not support them: reading one raises MXNetError.

Zero-dimensional (scalar-shaped) arrays: MXNet 1.9.1 writes ``ndim = 0`` followed by
the device, dtype flag and one element (``mx.nd.save`` of ``mx.nd.array(np.float32(5))``),
and ``save`` here writes the same bytes.  MXNet 1.9.1 itself cannot read such a record
back outside NumPy mode: its loader takes ``ndim = 0`` to mean "no shape" and skips the
rest, which misaligns the rest of the file.  ``load`` here reads the scalar.  Files with a
truly shapeless (uninitialised) array cannot be produced by MXNet 1.9.1 (saving one
raises) and are reported as corrupt.

Zero-size arrays (a dimension is 0) are written with device and dtype flag and no data.

Reading checks every declared size (dimension counts, dimensions, name lengths) against
the bytes that remain before anything is allocated, so a truncated, corrupted or hostile
file raises MXNetError naming the file, the array and the problem, quickly.  Bytes after
the last name are ignored, as MXNet ignores them.
"""
from __future__ import annotations

import contextlib
import math
import os
import secrets
import stat
import struct
import threading

import numpy as np
import torch

from ..base import (MXNetError, MXNetTypeError, UNSUPPORTED_DTYPE_FLAGS, dtype_flag, dtype_names, numpy_dtype,
                    torch_dtype)
from ..context import cpu
from ..util import is_np_shape
from .ndarray import NDArray, _provided, provide

__all__ = ["save", "load", "load_frombuffer", "save_raw_bytes", "load_raw_bytes"]

LIST_MAGIC = 0x112
NDARRAY_V1_MAGIC = 0xF993FAC8
NDARRAY_V2_MAGIC = 0xF993FAC9
NDARRAY_V3_MAGIC = 0xF993FACA

STORAGE_DEFAULT = 0
STORAGE_ROW_SPARSE = 1
STORAGE_CSR = 2
_STORAGE_NAMES = {STORAGE_DEFAULT: "default", STORAGE_ROW_SPARSE: "row_sparse", STORAGE_CSR: "csr"}
_AUXILIARY_COUNT = {STORAGE_DEFAULT: 0, STORAGE_ROW_SPARSE: 1, STORAGE_CSR: 2}

# MXNet's device type ids (Context::DeviceType).
_DEVICE_TYPES = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}

# mshadow type flags (the table in base) -> numpy dtype of the stored bytes (little-endian).
# bfloat16 is stored as raw 16-bit words and turned into a torch.bfloat16 tensor.
_BFLOAT16_FLAG = dtype_flag("bfloat16")
_FLAG_TO_NUMPY = {dtype_flag(name): (np.dtype("<u2") if name == "bfloat16" else numpy_dtype(name).newbyteorder("<"))
                  for name in dtype_names()}
_UNSUPPORTED_FLAGS = UNSUPPORTED_DTYPE_FLAGS
_FLAG_NAMES = {**{dtype_flag(name): name for name in dtype_names()}, **_UNSUPPORTED_FLAGS}
_TORCH_TO_FLAG = {torch_dtype(name): dtype_flag(name) for name in dtype_names()}
_INTEGER_FLAGS = {flag for flag, name in _FLAG_NAMES.items() if name.startswith(("int", "uint")) and flag in _FLAG_TO_NUMPY}

_UINT32 = struct.Struct("<I")
_INT32 = struct.Struct("<i")
_UINT64 = struct.Struct("<Q")
_CONTEXT_AND_FLAG = struct.Struct("<iii")
_CPU_CONTEXT = struct.pack("<ii", 1, 0)


# ---------------------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------------------
class _Reader:
    """Bounds-checked little-endian reads from a byte buffer; errors name the source."""

    def __init__(self, buffer, source, function):
        self.buffer = buffer
        self.size = len(buffer)
        self.position = 0
        self.source = source
        self.function = function
        self.where = ""
        # warnings point at the caller of the public function (load: 5 frames up)
        self.warning_stacklevel = 5

    def fail(self, problem, position=None):
        position = self.position if position is None else position
        where = f"{self.where}: " if self.where else ""
        raise MXNetError(f"{self.function}: {self.source} is not a valid MXNet NDArray file: "
                         f"{where}{problem} (at byte offset {position} of {self.size})")

    @property
    def remaining(self):
        return self.size - self.position

    def require(self, count, what):
        if count > self.remaining:
            self.fail(f"{what} needs {count} bytes but only {self.remaining} remain "
                      f"(the data is truncated or a size field is corrupt)")

    def unpack(self, layout, what):
        self.require(layout.size, what)
        values = layout.unpack_from(self.buffer, self.position)
        self.position += layout.size
        return values

    def uint32(self, what):
        return self.unpack(_UINT32, what)[0]

    def int32(self, what):
        return self.unpack(_INT32, what)[0]

    def uint64(self, what):
        return self.unpack(_UINT64, what)[0]

    def array(self, dtype, count, what):
        """``count`` items of ``dtype`` as a read-only numpy view (no copy yet)."""
        nbytes = count * dtype.itemsize
        self.require(nbytes, what)
        values = np.frombuffer(self.buffer, dtype=dtype, count=count, offset=self.position)
        self.position += nbytes
        return values

    def shape(self, what, dim_dtype=np.dtype("<i8")):
        """A shape stored as int32 ndim + ``dim_dtype`` dims; returns a tuple of ints."""
        start = self.position
        ndim = self.int32(f"{what} ndim")
        if ndim < 0:
            self.fail(f"{what} has negative ndim {ndim} (-1 marks an uninitialised NDArray, "
                      f"which MXNet cannot load either)", start)
        if ndim * dim_dtype.itemsize > self.remaining:
            self.fail(f"{what} declares ndim {ndim}, which needs {ndim * dim_dtype.itemsize} "
                      f"bytes of dimensions but only {self.remaining} bytes remain", start)
        dims = tuple(int(d) for d in self.array(dim_dtype, ndim, f"{what} dimensions"))
        if any(d < 0 for d in dims):
            self.fail(f"{what} {dims} has a negative dimension", start)
        return dims


def _dtype_for_flag(reader, flag, what):
    if flag in _FLAG_TO_NUMPY:
        return _FLAG_TO_NUMPY[flag]
    if flag in _UNSUPPORTED_FLAGS:
        reader.fail(f"{what} is {_UNSUPPORTED_FLAGS[flag]} (dtype flag {flag}), which mxtorch "
                    f"NDArrays do not support", reader.position - 4)
    reader.fail(f"{what} flag {flag} is not a known dtype flag (expected one of "
                f"{sorted(_FLAG_TO_NUMPY)})", reader.position - 4)


def _read_context_and_dtype(reader):
    start = reader.position
    device_type, _device_id, flag = reader.unpack(_CONTEXT_AND_FLAG, "device and dtype flag")
    if device_type not in _DEVICE_TYPES:
        reader.fail(f"device type {device_type} is not one of MXNet's device types "
                    f"{dict(sorted(_DEVICE_TYPES.items()))}", start)
    return flag, _dtype_for_flag(reader, flag, "dtype")


def _read_values(reader, dtype, shape, what):
    """Read ``prod(shape)`` elements after checking they are present; returns a writable copy."""
    count = math.prod(shape)
    nbytes = count * dtype.itemsize
    if nbytes > reader.remaining:
        reader.fail(f"{what} of shape {shape} and dtype {dtype.name} needs {nbytes} bytes but "
                    f"only {reader.remaining} bytes remain (truncated data or corrupt shape)")
    start = reader.position
    values = reader.array(dtype, count, what)
    try:
        return values.reshape(shape).copy()
    except (ValueError, MemoryError) as error:
        reader.fail(f"{what} of shape {shape} cannot be created: {error}", start)


def _to_ndarray(reader, values, flag):
    if values.dtype == np.bool_:
        # a corrupt byte other than 0/1 would make an invalid torch bool; MXNet reads any
        # non-zero byte as true
        values = values.view(np.uint8).astype(np.bool_)
    try:
        if flag == _BFLOAT16_FLAG:
            tensor = torch.from_numpy(values.view(np.int16)).view(torch.bfloat16)
        else:
            tensor = torch.from_numpy(values)
    except (RuntimeError, ValueError, TypeError) as error:
        reader.fail(f"an array of shape {values.shape} cannot be created: {error}")
    return NDArray(tensor, cpu())


def _dense_from_row_sparse(reader, values, indices, shape, dtype):
    rows = shape[0]
    if indices.size and (int(indices.min()) < 0 or int(indices.max()) >= rows):
        reader.fail(f"row_sparse row index out of range [0, {rows}) "
                    f"(min {int(indices.min())}, max {int(indices.max())})")
    dense = _allocate_dense(reader, shape, dtype)
    dense[indices.astype(np.int64)] = values
    return dense


def _dense_from_csr(reader, values, indptr, indices, shape, dtype):
    rows, columns = shape
    if indptr.size != rows + 1:
        reader.fail(f"csr indptr has {indptr.size} entries, expected rows + 1 = {rows + 1}")
    indptr = indptr.astype(np.int64)
    counts = np.diff(indptr)
    if int(indptr[0]) != 0 or int(indptr[-1]) != indices.size or (counts.size and int(counts.min()) < 0):
        reader.fail(f"csr indptr must rise from 0 to nnz = {indices.size} without decreasing, "
                    f"got first {int(indptr[0])}, last {int(indptr[-1])}")
    if indices.size and (int(indices.min()) < 0 or int(indices.max()) >= columns):
        reader.fail(f"csr column index out of range [0, {columns}) "
                    f"(min {int(indices.min())}, max {int(indices.max())})")
    dense = _allocate_dense(reader, shape, dtype)
    row_of_entry = np.repeat(np.arange(rows, dtype=np.int64), counts)
    dense[row_of_entry, indices.astype(np.int64)] = values
    return dense


def _allocate_dense(reader, shape, dtype):
    nbytes = math.prod(shape) * dtype.itemsize
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        memory = None
    if memory is not None and nbytes > memory:
        reader.fail(f"the dense form of this sparse array, shape {shape} {dtype.name}, needs "
                    f"{nbytes} bytes, more than this machine's {memory} bytes of memory")
    try:
        return np.zeros(shape, dtype=dtype)
    except (ValueError, MemoryError) as error:
        reader.fail(f"the dense form of this sparse array, shape {shape} {dtype.name}, cannot "
                    f"be allocated: {error}")


def _read_sparse(reader, storage_type, storage_shape, shape, array_label):
    flag, dtype = _read_context_and_dtype(reader)
    name = _STORAGE_NAMES[storage_type]
    auxiliary = []
    for index in range(_AUXILIARY_COUNT[storage_type]):
        aux_flag = reader.int32(f"auxiliary array {index} dtype flag")
        aux_dtype = _dtype_for_flag(reader, aux_flag, f"auxiliary array {index} dtype")
        if aux_flag not in _INTEGER_FLAGS:
            reader.fail(f"{name} auxiliary array {index} (indices) must have an integer dtype, "
                        f"got {_FLAG_NAMES[aux_flag]}", reader.position - 4)
        aux_shape = reader.shape(f"auxiliary array {index} shape")
        if len(aux_shape) != 1:
            reader.fail(f"{name} auxiliary array {index} must be 1-D, its shape is {aux_shape}")
        auxiliary.append((aux_dtype, aux_shape))
    if storage_type == STORAGE_ROW_SPARSE:
        if len(shape) < 1 or len(storage_shape) != len(shape) or storage_shape[1:] != shape[1:]:
            reader.fail(f"row_sparse storage shape {storage_shape} does not fit shape {shape}")
        if auxiliary[0][1][0] != storage_shape[0]:
            reader.fail(f"row_sparse storage shape {storage_shape} has {storage_shape[0]} rows "
                        f"but {auxiliary[0][1][0]} row indices")
    else:
        if len(shape) != 2 or len(storage_shape) != 1:
            reader.fail(f"csr array must be 2-D with a 1-D storage shape, got shape {shape} and "
                        f"storage shape {storage_shape}")
        if auxiliary[1][1][0] != storage_shape[0]:
            reader.fail(f"csr storage shape {storage_shape} does not match "
                        f"{auxiliary[1][1][0]} column indices")
    values = _read_values(reader, dtype, storage_shape, f"{name} values")
    aux_values = [_read_values(reader, aux_dtype, aux_shape, f"{name} auxiliary array {index}")
                  for index, (aux_dtype, aux_shape) in enumerate(auxiliary)]
    if storage_type == STORAGE_ROW_SPARSE:
        _dense_from_row_sparse(reader, values, aux_values[0], shape, dtype)      # validates
    else:
        _dense_from_csr(reader, values, aux_values[0], aux_values[1], shape, dtype)
    data = _to_ndarray(reader, values, flag)._tensor
    aux_tensors = [torch.from_numpy(np.ascontiguousarray(part).astype(np.int64)) for part in aux_values]
    return _provided("sparse_from_parts")(name, tuple(shape), aux_tensors, data, cpu())


_CLASSIC_UNDER_NP = threading.local()


@contextlib.contextmanager
def classic_records_under_np_shape():
    """Within this block, records saved under classic shape semantics load under NumPy shape
    semantics too (what Gluon's parameter loaders use, so that ``SymbolBlock.imports`` /
    ``load_parameters`` after ``npx.set_np()`` read a checkpoint saved without it: MXNet 1.9.1
    refused, apache/mxnet#18918).  Safe in that direction: a classic record has no zero-dim
    array and no unknown dimension, so it reads as the same array under either semantics."""
    previous = getattr(_CLASSIC_UNDER_NP, "allowed", False)
    _CLASSIC_UNDER_NP.allowed = True
    try:
        yield
    finally:
        _CLASSIC_UNDER_NP.allowed = previous


def _check_shape_semantics(reader, magic, array_label):
    """MXNetError unless the record's version fits the shape semantics in force (MXNet
    1.9.1's ``NDArray::Load`` check; see ``classic_records_under_np_shape`` for the one
    direction Gluon's loaders allow)."""
    where = f"{reader.function}: {reader.source}: {array_label}"
    if magic == NDARRAY_V3_MAGIC and not is_np_shape():
        raise MXNetError(f"{where} was saved under NumPy shape semantics and must be loaded under them "
                         f"too (inside `with mx.np_shape(True):`)")
    if magic != NDARRAY_V3_MAGIC and is_np_shape() and not getattr(_CLASSIC_UNDER_NP, "allowed", False):
        raise MXNetError(f"{where} was not saved under NumPy shape semantics but is being loaded under "
                         f"them; load it inside `with mx.np_shape(False):`")


def _read_array(reader, array_label):
    """One array record (any version) at the reader's position."""
    start = reader.position
    magic = reader.uint32("array record magic")
    storage_type = STORAGE_DEFAULT
    storage_shape = None
    _check_shape_semantics(reader, magic, array_label)
    if magic in (NDARRAY_V2_MAGIC, NDARRAY_V3_MAGIC):
        storage_type = reader.int32("storage type")
        if storage_type not in _STORAGE_NAMES:
            reader.fail(f"storage type {storage_type} is not one of "
                        f"{dict(sorted(_STORAGE_NAMES.items()))}", reader.position - 4)
        if storage_type != STORAGE_DEFAULT:
            storage_shape = reader.shape("storage shape")
        shape = reader.shape("shape")
    elif magic == NDARRAY_V1_MAGIC:
        shape = reader.shape("shape")
    else:
        # Version 0 has no magic: the first word is the number of dimensions.
        ndim = magic
        if ndim * 4 > reader.remaining:
            reader.fail(f"record starts with 0x{magic:08X}, which is neither an NDArray magic "
                        f"(0x{NDARRAY_V2_MAGIC:08X}, 0x{NDARRAY_V1_MAGIC:08X}, "
                        f"0x{NDARRAY_V3_MAGIC:08X}) nor a plausible version-0 ndim "
                        f"({ndim} dimensions need {ndim * 4} bytes, {reader.remaining} remain)",
                        start)
        shape = tuple(int(d) for d in reader.array(np.dtype("<u4"), ndim, "version-0 dimensions"))
    if storage_type != STORAGE_DEFAULT:
        return _read_sparse(reader, storage_type, storage_shape, shape, array_label)
    flag, dtype = _read_context_and_dtype(reader)
    values = _read_values(reader, dtype, shape, "array data")
    return _to_ndarray(reader, values, flag)


def _read_list_file(buffer, source, function):
    reader = _Reader(buffer, source, function)
    if reader.size == 0:
        reader.fail("the data is empty")
    magic = reader.uint64("list header")
    if magic != LIST_MAGIC:
        reader.fail(f"list header magic is 0x{magic:X}, expected 0x{LIST_MAGIC:X}", 0)
    reader.uint64("reserved header word")
    count = reader.uint64("array count")
    arrays = []
    for index in range(count):
        if reader.remaining == 0:
            reader.where = ""
            reader.fail(f"the header declares {count} arrays but the data ends after {index}")
        label = f"array {index} of {count}"
        reader.where = label
        arrays.append(_read_array(reader, label))
    reader.where = ""
    name_count = reader.uint64("name count")
    if name_count not in (0, count):
        reader.fail(f"the file holds {count} arrays but {name_count} names "
                    f"(expected 0 or {count})", reader.position - 8)
    names = []
    for index in range(name_count):
        reader.where = f"name {index} of {name_count}"
        length = reader.uint64("name length")
        if length > reader.remaining:
            reader.fail(f"name length {length} exceeds the {reader.remaining} bytes that remain",
                        reader.position - 8)
        raw = bytes(reader.buffer[reader.position:reader.position + length])
        try:
            names.append(raw.decode("utf-8"))
        except UnicodeDecodeError as error:
            reader.fail(f"name is not valid UTF-8 ({error.reason} at byte {error.start})")
        reader.position += length
    if names:
        return dict(zip(names, arrays))
    return arrays


def _as_buffer(buf, function):
    if isinstance(buf, (bytes, bytearray)):
        return buf
    if isinstance(buf, memoryview):
        return buf.cast("B") if buf.contiguous else buf.tobytes()
    raise MXNetError(f"{function}: buf must be bytes, bytearray or memoryview, "
                     f"got {type(buf).__name__}")


def _path(fname, function):
    if isinstance(fname, (str, bytes, os.PathLike)):
        try:
            path = os.fspath(fname)
        except TypeError as error:
            raise MXNetError(f"{function}: fname must be a str or os.PathLike, got "
                             f"{type(fname).__name__}: {error}") from None
        return os.fsdecode(path)
    raise MXNetError(f"{function}: fname must be a str or os.PathLike, got {type(fname).__name__}")


def load(fname):
    """Load arrays saved with ``mx.nd.save`` (MXNet's ``mx.nd.load``).

    Parameters
    ----------
    fname : str or os.PathLike
        Path of a file in MXNet's NDArray list format (``.params`` checkpoints, ``.nd``).

    Returns
    -------
    list of NDArray or dict of str to NDArray
        A dict (in file order) when the file stores names, else a list.  Arrays are on
        ``mx.cpu()`` whatever device they were saved from, with the stored shape and dtype
        (float32/float64/float16/uint8/int8/int32/int64/bool/int16; bfloat16 loads as a
        ``torch.bfloat16`` tensor).  A 0-dimensional record loads as a shape ``()`` array.

    Sparse arrays (``row_sparse`` and ``csr`` records) are converted to dense arrays of
    their full shape, with a ``UserWarning``, because mxtorch arrays are always dense.

    Record versions 0 (pre-0.9, 32-bit dims), 1, 2 and 3 are read (see the module docstring).

    Raises
    ------
    MXNetError
        If the file cannot be opened or read (missing, a directory, no permission), or if its
        content is not a valid NDArray list file: truncated, corrupted, a wrong magic, an
        unknown dtype or storage type, sizes larger than the file, invalid sparse indices,
        names that are not UTF-8.  The message names the file, the array or name, the
        problem and the byte offset.  Nothing larger than the file is allocated before the
        sizes are checked (except the dense form of a sparse array, checked against the
        machine's memory).
    """
    path = _path(fname, "mx.nd.load")
    try:
        with open(path, "rb") as stream:
            mode = os.fstat(stream.fileno()).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
                # a device such as /dev/zero would never end
                raise MXNetError(f"mx.nd.load: {path!r} is not a regular file or pipe")
            buffer = stream.read()
    except OSError as error:
        raise MXNetError(f"mx.nd.load: cannot read {path!r}: {error.strerror or error}") from error
    return _read_list_file(buffer, repr(path), "mx.nd.load")


def load_frombuffer(buf):
    """Load arrays from the bytes of an ``mx.nd.save`` file (MXNet's ``mx.nd.load_frombuffer``).

    ``buf`` is bytes, bytearray or memoryview.  Returns a list or dict exactly like :func:`load`, and raises
    MXNetError on invalid data or a wrong argument type, with the same messages
    (the source is called ``<buffer>``).
    """
    buffer = _as_buffer(buf, "mx.nd.load_frombuffer")
    return _read_list_file(buffer, "<buffer>", "mx.nd.load_frombuffer")


@provide("load_raw_bytes")
def load_raw_bytes(buf):
    """One array from a single version-2 record (MXNet's ``MXNDArrayLoadFromRawBytes``).

    This is the per-array record inside list files; pickled MXNet NDArrays (for instance
    in ``.states`` optimizer files) hold it as ``{'handle': bytearray(...)}``.  Versions
    0, 1 and 3 and sparse records are read too (sparse ones become dense with a warning).
    Returns an NDArray on ``mx.cpu()``.  Trailing bytes after the record are ignored, as
    MXNet ignores them.  Raises MXNetError on invalid or truncated data.
    """
    buffer = _as_buffer(buf, "load_raw_bytes")
    reader = _Reader(buffer, "<raw bytes>", "load_raw_bytes")
    reader.warning_stacklevel = 4
    if reader.size == 0:
        reader.fail("the data is empty")
    reader.where = "array"
    return _read_array(reader, "the array")


# ---------------------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------------------
def _tensor_bytes(tensor, function, label):
    """``(dtype flag, little-endian bytes view)`` of a tensor, for a record."""
    tensor = tensor.detach()
    flag = _TORCH_TO_FLAG.get(tensor.dtype)
    if flag is None:
        raise MXNetError(f"{function}: {label} has dtype {tensor.dtype}, which the MXNet file "
                         f"format cannot store (supported: "
                         f"{', '.join(str(d).replace('torch.', '') for d in _TORCH_TO_FLAG)})")
    tensor = tensor.to("cpu").contiguous()
    if tensor.dtype == torch.bfloat16:
        tensor = tensor.view(torch.int16)
    values = tensor.numpy()
    values = values.astype(values.dtype.newbyteorder("<"), copy=False)
    return flag, memoryview(np.ascontiguousarray(values).reshape(-1)).cast("B")


def _shape_bytes(shape):
    return _INT32.pack(len(shape)) + np.asarray(shape, dtype="<i8").tobytes()


def _record_chunks(array, function, label):
    """The record of one array (version 3 under NumPy shape semantics, else 2), as a list of
    bytes-like chunks: a dense record, or for a row_sparse / csr array a sparse record of its
    stored parts (what MXNet writes for them)."""
    magic = NDARRAY_V3_MAGIC if is_np_shape() else NDARRAY_V2_MAGIC
    stype = getattr(array, "stype", "default")
    if stype == "default":
        flag, data = _tensor_bytes(array._tensor, function, label)
        header = (_UINT32.pack(magic) + _INT32.pack(STORAGE_DEFAULT) + _shape_bytes(tuple(array._tensor.shape))
                  + _CPU_CONTEXT + _INT32.pack(flag))
        return [header, data]
    *aux, values = array._parts()
    storage = STORAGE_ROW_SPARSE if stype == "row_sparse" else STORAGE_CSR
    flag, data = _tensor_bytes(values, function, label)
    aux_chunks = [_tensor_bytes(part.to(torch.int64), function, f"{label} indices") for part in aux]
    header = (_UINT32.pack(magic) + _INT32.pack(storage) + _shape_bytes(tuple(values.shape))
              + _shape_bytes(tuple(array._tensor.shape)) + _CPU_CONTEXT + _INT32.pack(flag)
              + b"".join(_INT32.pack(aux_flag) + _shape_bytes((part.shape[0],))
                         for (aux_flag, _), part in zip(aux_chunks, aux)))
    return [header, data] + [chunk for _, chunk in aux_chunks]


@provide("save_raw_bytes")
def save_raw_bytes(ndarray):
    """The record of one NDArray as bytes (MXNet's ``MXNDArraySaveRawBytes``; version 3
    under NumPy shape semantics, else 2).

    The layout is the per-array record of list files (see the module docstring); this is
    what MXNet's NDArray pickling embeds.  The device is written as cpu(0).  Raises
    MXNetError if ``ndarray`` is not an NDArray or has a dtype the format cannot store.
    """
    if not isinstance(ndarray, NDArray):
        raise MXNetError(f"save_raw_bytes: expected an NDArray, got {type(ndarray).__name__}")
    return b"".join(bytes(chunk) for chunk in _record_chunks(ndarray, "save_raw_bytes", "the array"))


def _normalise_payload(data):
    """``(arrays, names)`` from an NDArray, a list/tuple of NDArrays or a dict str -> NDArray."""
    function = "mx.nd.save"
    if isinstance(data, NDArray):
        return [data], []
    if isinstance(data, dict):
        names, arrays = [], []
        for key, value in data.items():
            if not isinstance(key, str):
                raise MXNetError(f"{function}: dict keys must be str, got {type(key).__name__} "
                                 f"key {key!r}")
            if not isinstance(value, NDArray):
                raise MXNetTypeError(f"{function}: dict values must be NDArrays, got "
                                 f"{type(value).__name__} for key {key!r}")
            names.append(key)
            arrays.append(value)
        return arrays, names
    if isinstance(data, (list, tuple)):
        for index, value in enumerate(data):
            if not isinstance(value, NDArray):
                raise MXNetTypeError(f"{function}: list items must be NDArrays, got "
                                 f"{type(value).__name__} at position {index}")
        return list(data), []
    raise MXNetError(f"{function}: data must be an NDArray, a list or tuple of NDArrays or a "
                     f"dict str -> NDArray, got {type(data).__name__}")


def _file_chunks(arrays, names):
    chunks = [struct.pack("<QQQ", LIST_MAGIC, 0, len(arrays))]
    for index, array in enumerate(arrays):
        label = f"array {names[index]!r}" if names else f"array {index}"
        chunks.extend(_record_chunks(array, "mx.nd.save", label))
    chunks.append(_UINT64.pack(len(names)))
    for name in names:
        encoded = name.encode("utf-8")
        chunks.append(_UINT64.pack(len(encoded)))
        chunks.append(encoded)
    return chunks


def to_bytes(data):
    """The bytes ``save`` would write for ``data`` (same argument forms and errors)."""
    arrays, names = _normalise_payload(data)
    return b"".join(bytes(chunk) for chunk in _file_chunks(arrays, names))


def save(fname, data):
    """Save arrays in MXNet's binary NDArray list format (MXNet's ``mx.nd.save``).

    Parameters
    ----------
    fname : str or os.PathLike
        Destination path.  The file is written atomically: the bytes go to a temporary
        file in the same directory, which then replaces ``fname``; if anything fails, an
        existing ``fname`` is left unchanged and the temporary file is removed.
    data : NDArray, list or tuple of NDArray, or dict of str to NDArray
        A single array is saved as a one-element list.  A dict saves its keys as names
        (in iteration order), so that :func:`load` returns a dict; a list saves no names.

    Every array is written as a dense version-2 record with its shape, dtype and raw
    little-endian data, on device cpu(0) whatever its device (:func:`load` puts every array on
    the CPU anyway).  The bytes equal MXNet 1.9.1's for the same arrays on the CPU,
    including 0-dimensional arrays (shape ``()``: one element) and zero-size arrays (no data).
    Supported dtypes: float32, float64, float16, uint8, int8, int32, int64, bool, bfloat16
    and int16 (flag 8; MXNet 1.9.1 cannot load that one, see the module docstring).

    Raises
    ------
    MXNetError
        If ``data`` is not one of the accepted types (MXNet raised TypeError/ValueError),
        a dict key is not a str, an array has an unsupported dtype, ``fname`` is not a path,
        or the file cannot be written (the message names the file).
    """
    path = _path(fname, "mx.nd.save")
    arrays, names = _normalise_payload(data)
    chunks = _file_chunks(arrays, names)
    from ..util import atomic_write
    try:
        atomic_write(path, chunks)
    except MXNetError as error:
        raise MXNetError(f"mx.nd.save: {error}") from None
