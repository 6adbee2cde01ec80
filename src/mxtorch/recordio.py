"""``mx.recordio``: MXNet's RecordIO file format (``.rec`` files, ``.idx`` index files, image records).

A ``.rec`` file is a sequence of records.  Each record on disk is

* uint32 magic number ``0xced7230a`` (little-endian),
* uint32 ``(continuation_flag << 29) | length`` (``length`` < 2**29 bytes),
* ``length`` bytes of payload, then zero bytes up to the next multiple of 4.

``continuation_flag`` is 0 for a whole record.  When a payload holds the magic
number at an offset that is a multiple of 4, the writer splits the record
there (flag 1 = first part, 2 = middle part, 3 = last part) and leaves those
four bytes out; the reader puts the magic number back between the parts.  So
any byte string round-trips, and readers can resynchronise on the magic
number.  This module writes and reads exactly that layout, so files written
by MXNet read here and files written here read in MXNet.

An ``.idx`` file (``MXIndexedRecordIO``) is text, one line per record:
``key<TAB>byte offset of the record in the .rec file``.

Image records (``pack`` / ``pack_img``) start with an :data:`IRHeader` packed
as ``IfQQ`` (uint32 flag, float32 label, uint64 id, uint64 id2; 24 bytes,
little-endian).  ``flag`` = 0: the label is the float in the header;
``flag`` = n > 0: n float32 labels follow the header (the header's label
field is 0).  Then comes the payload, for images the encoded JPEG / PNG bytes.
Image coding uses OpenCV (the ``opencv-python-headless`` package), as MXNet did.
"""
from __future__ import annotations

import numbers
import os
import struct
from collections import namedtuple
from multiprocessing import current_process

import numpy as np

from .base import MXNetError
from .util import decode_image, import_opencv
# names MXNet 1.9.1's mxnet.recordio had in its namespace from its ctypes binding
from .base import (RecordIOHandle, c_str, check_call)  # noqa: E402,F401

__all__ = ["MXRecordIO", "MXIndexedRecordIO", "IRHeader", "pack", "unpack", "pack_img", "unpack_img"]

_MAGIC = 0xCED7230A
_MAGIC_BYTES = struct.pack("<I", _MAGIC)
_LENGTH_BITS = 29
_MAX_RECORD_LENGTH = (1 << _LENGTH_BITS) - 1
_WHOLE, _FIRST_PART, _MIDDLE_PART, _LAST_PART = 0, 1, 2, 3


class _InvalidArgumentError(MXNetError, ValueError):
    """An argument of the wrong kind (also a ValueError, as MXNet raised for these)."""


class _MissingKeyError(MXNetError, KeyError):
    """A key that the index file does not hold (also a KeyError, as MXNet raised for it)."""

    def __str__(self):  # KeyError would print the message in quotes
        return str(self.args[0]) if self.args else ""


def _cv2(function):
    """The OpenCV module; MXNetError naming ``function`` when opencv is not installed."""
    return import_opencv(function)


# ------------------------------------------------------------------------------------------------
# The record layer: framing of byte strings in a .rec file
# ------------------------------------------------------------------------------------------------
def _padded(length):
    return (length + 3) & ~3


class _RecordWriter:
    """Writes framed records to a binary file; ``tell()`` = bytes written so far."""

    def __init__(self, path):
        self.path = path
        try:
            self.stream = open(path, "wb")
        except OSError as error:
            raise MXNetError(f"MXRecordIO: cannot open {path!r} for writing: {error}") from None
        self.position = 0

    def _write_part(self, flag, chunk):
        header = struct.pack("<II", _MAGIC, (flag << _LENGTH_BITS) | len(chunk))
        padding = b"\0" * (_padded(len(chunk)) - len(chunk))
        self.stream.write(header)
        self.stream.write(chunk)
        self.stream.write(padding)
        self.position += 8 + len(chunk) + len(padding)

    def write(self, data):
        data = bytes(data)
        if len(data) > _MAX_RECORD_LENGTH:
            raise MXNetError(f"MXRecordIO.write: a record holds at most {_MAX_RECORD_LENGTH} bytes "
                             f"(2**29 - 1), got {len(data)} bytes for {self.path!r}")
        aligned = len(data) & ~3
        words = np.frombuffer(data, dtype="<u4", count=aligned // 4)
        split_points = (np.flatnonzero(words == _MAGIC) * 4).tolist()
        start = 0
        for point in split_points:
            self._write_part(_FIRST_PART if start == 0 else _MIDDLE_PART, data[start:point])
            start = point + 4
        self._write_part(_LAST_PART if split_points else _WHOLE, data[start:])

    def tell(self):
        return self.position

    def close(self):
        self.stream.close()


class _RecordReader:
    """Reads framed records from a binary file; every malformed byte raises MXNetError with its offset."""

    def __init__(self, path):
        self.path = path
        try:
            self.stream = open(path, "rb")
        except OSError as error:
            raise MXNetError(f"MXRecordIO: cannot open {path!r} for reading: {error}") from None
        self.size = os.fstat(self.stream.fileno()).st_size

    def _fail(self, offset, problem):
        raise MXNetError(f"MXRecordIO: invalid RecordIO file {self.path!r} at byte offset {offset}: {problem}")

    def seek(self, offset):
        if offset < 0 or offset > self.size:
            self._fail(offset, f"the offset is outside the file ({self.size} bytes)")
        self.stream.seek(offset)

    def tell(self):
        return self.stream.tell()

    def read(self, keep=True):
        """The next record's bytes, or None at the end of the file (``keep=False``: skip it, return b'')."""
        parts = []
        expect_continuation = False
        while True:
            offset = self.stream.tell()
            header = self.stream.read(8)
            if not header and not expect_continuation:
                return None
            if len(header) < 8:
                self._fail(offset, f"the file ends inside a record header ({len(header)} of 8 bytes)"
                           if header else "the file ends before the last part of a split record")
            magic, length_and_flag = struct.unpack("<II", header)
            if magic != _MAGIC:
                self._fail(offset, f"expected the record magic number 0x{_MAGIC:08x}, found 0x{magic:08x}")
            flag, length = length_and_flag >> _LENGTH_BITS, length_and_flag & _MAX_RECORD_LENGTH
            if flag > _LAST_PART:
                self._fail(offset, f"unknown continuation flag {flag} (expected 0 to 3)")
            if expect_continuation != (flag in (_MIDDLE_PART, _LAST_PART)):
                self._fail(offset, f"continuation flag {flag} " + (
                    "where the next part of a split record was expected" if expect_continuation
                    else "without the first part of a split record"))
            stored = _padded(length)
            if offset + 8 + stored > self.size:
                self._fail(offset, f"the record announces {length} bytes but the file ends "
                                   f"{self.size - offset - 8} bytes after its header")
            if keep:
                parts.append(self.stream.read(stored)[:length])
            else:
                self.stream.seek(stored, os.SEEK_CUR)
            if flag in (_WHOLE, _LAST_PART):
                return _MAGIC_BYTES.join(parts)
            expect_continuation = True

    def close(self):
        self.stream.close()


def _record_offsets(path):
    """Byte offsets of the records of a ``.rec`` file in file order (scans headers, skips payloads).

    Raises MXNetError, naming the file and the offset, for a malformed or truncated file.
    """
    reader = _RecordReader(path)
    offsets = []
    try:
        while True:
            offset = reader.tell()
            if reader.read(keep=False) is None:
                return offsets
            offsets.append(offset)
    finally:
        reader.close()


# ------------------------------------------------------------------------------------------------
# Public classes
# ------------------------------------------------------------------------------------------------
class MXRecordIO:
    """Sequential reading ('r') or writing ('w') of a RecordIO file (MXNet's ``mx.recordio.MXRecordIO``).

    ``uri``: path of the ``.rec`` file; ``flag``: 'r' or 'w' ('w' truncates
    the file).  ``write(buf)`` appends one record (bytes); ``read()`` returns
    the next record's bytes, or None at the end of the file; ``reset()``
    goes back to the first record (for a writer: truncates the file);
    ``close()`` flushes and closes.  Attributes as in MXNet: ``uri``,
    ``flag``, ``handle`` (the open reader or writer), ``writable``,
    ``is_open``, ``pid`` (the process that opened the file).

    Pickling closes the file and records whether it was open; unpickling
    opens it again (so a reader can be handed to a worker process).  A
    reader used in another process than the one that opened it raises, as
    in MXNet, except ``seek`` / ``read_idx``, which reopen the file.

    Raises MXNetError (also a ValueError) for a flag other than 'r' / 'w',
    MXNetError when the file cannot be opened, for ``write`` on a reader
    or ``read`` on a writer, and for a malformed or truncated file (the
    message names the file and the byte offset).
    """

    def __init__(self, uri, flag):
        self.uri = os.fspath(uri)
        self.handle = None
        self.flag = flag
        self.pid = None
        self.is_open = False
        self.writable = flag == "w"
        self.open()

    def open(self):
        """Open the file named by ``uri`` for reading ('r') or writing ('w')."""
        if self.flag == "w":
            self.handle = _RecordWriter(self.uri)
            self.writable = True
        elif self.flag == "r":
            self.handle = _RecordReader(self.uri)
            self.writable = False
        else:
            raise _InvalidArgumentError(f"MXRecordIO: flag must be 'r' (read) or 'w' (write), got {self.flag!r}")
        self.pid = current_process().pid
        self.is_open = True

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: nothing left to do
            pass

    def __getstate__(self):
        """State for pickling: closes the file and keeps whether it was open."""
        was_open = self.is_open
        self.close()
        state = dict(self.__dict__)
        state["is_open"] = was_open
        del state["handle"]
        return state

    def __setstate__(self, state):
        """Restore from a pickle: reopens the file when it was open when pickled."""
        self.__dict__ = state
        was_open = state["is_open"]
        self.is_open = False
        self.handle = None
        if was_open:
            self.open()

    def _check_pid(self, allow_reset=False):
        if self.pid != current_process().pid:
            if allow_reset:
                self.reset()
            else:
                raise MXNetError(f"MXRecordIO: {self.uri!r} was opened in process {self.pid} and cannot be "
                                 f"used from process {current_process().pid}; pickle it to hand it over")

    def _check_open(self, function):
        if not self.is_open:
            raise MXNetError(f"MXRecordIO.{function}: {self.uri!r} is closed; call open() first")

    def close(self):
        """Close the file (a writer's records are flushed to disk); nothing happens when it is closed."""
        if not self.is_open:
            return
        self.handle.close()
        self.handle = None
        self.is_open = False
        self.pid = None

    def reset(self):
        """Start again at the first record; a writer truncates the file."""
        self.close()
        self.open()

    def write(self, buf):
        """Append ``buf`` (bytes, bytearray or memoryview, < 2**29 bytes) as one record."""
        if not self.writable:
            raise MXNetError(f"MXRecordIO.write: {self.uri!r} is opened for reading (flag 'r')")
        self._check_open("write")
        self._check_pid(allow_reset=False)
        if not isinstance(buf, (bytes, bytearray, memoryview)):
            raise MXNetError(f"MXRecordIO.write: expected bytes, got {type(buf).__name__}")
        self.handle.write(buf)

    def read(self):
        """The next record as bytes; None after the last record.

        Raises MXNetError naming the file and byte offset for a malformed or truncated file.
        """
        if self.writable:
            raise MXNetError(f"MXRecordIO.read: {self.uri!r} is opened for writing (flag 'w')")
        self._check_open("read")
        self._check_pid(allow_reset=False)
        return self.handle.read()


class MXIndexedRecordIO(MXRecordIO):
    """A RecordIO file with an index file for random access (MXNet's ``mx.recordio.MXIndexedRecordIO``).

    ``idx_path``: the text index, one ``key<TAB>offset`` line per record;
    ``uri``: the ``.rec`` file; ``flag``: 'r' or 'w'; ``key_type``: applied
    to the keys read from the index (int).  ``write_idx(key, buf)`` appends a
    record and its index line; ``read_idx(key)`` returns the record of a
    key; ``seek(key)`` moves the reader there; ``tell()`` is the writer's
    byte offset.  ``idx`` maps keys to offsets, ``keys`` lists them in file
    order; ``fidx`` is the open index file.

    Raises MXNetError for a malformed index line (naming the file and line),
    MXNetError (also a KeyError) for a key the index does not hold, and as
    :class:`MXRecordIO`.
    """

    def __init__(self, idx_path, uri, flag, key_type=int):
        self.idx_path = os.fspath(idx_path)
        self.idx = {}
        self.keys = []
        self.key_type = key_type
        self.fidx = None
        super().__init__(uri, flag)

    def open(self):
        super().open()
        self.idx = {}
        self.keys = []
        try:
            self.fidx = open(self.idx_path, self.flag)
        except OSError as error:
            super().close()
            raise MXNetError(f"MXIndexedRecordIO: cannot open index file {self.idx_path!r}: {error}") from None
        if self.writable:
            return
        try:
            text = self.fidx.buffer.read().decode("utf-8")
        except UnicodeDecodeError as error:
            self.close()
            raise MXNetError(f"MXIndexedRecordIO: index file {self.idx_path!r} is not text ({error.reason} at "
                             f"byte {error.start})") from None
        for line_number, line in enumerate(text.splitlines(), start=1):
            fields = line.strip().split("\t")
            if fields == [""]:
                continue
            try:
                key = self.key_type(fields[0])
                offset = int(fields[1])
                if offset < 0:
                    raise ValueError
            except (ValueError, IndexError, TypeError):
                self.close()
                raise MXNetError(f"MXIndexedRecordIO: line {line_number} of index file {self.idx_path!r} is not "
                                 f"'key<TAB>offset' with an offset >= 0: {line.rstrip()!r}") from None
            self.idx[key] = offset
            self.keys.append(key)

    def close(self):
        """Close the record and index files."""
        if not self.is_open:
            return
        super().close()
        self.fidx.close()

    def __getstate__(self):
        state = super().__getstate__()
        state["fidx"] = None
        return state

    def seek(self, idx):
        """Move the reader to the record of key ``idx`` (reopens the file in a new process)."""
        if self.writable:
            raise MXNetError(f"MXIndexedRecordIO.seek: {self.uri!r} is opened for writing (flag 'w')")
        self._check_open("seek")
        self._check_pid(allow_reset=True)
        if idx not in self.idx:
            raise _MissingKeyError(f"MXIndexedRecordIO: key {idx!r} is not in index file {self.idx_path!r} "
                                   f"({len(self.keys)} keys)")
        self.handle.seek(self.idx[idx])

    def tell(self):
        """The byte offset at which the writer puts the next record."""
        if not self.writable:
            raise MXNetError(f"MXIndexedRecordIO.tell: {self.uri!r} is opened for reading (flag 'r')")
        self._check_open("tell")
        return self.handle.tell()

    def read_idx(self, idx):
        """The bytes of the record of key ``idx``."""
        self.seek(idx)
        return self.read()

    def write_idx(self, idx, buf):
        """Append ``buf`` as a record and ``key<TAB>offset`` to the index; ``idx`` is converted by ``key_type``."""
        key = self.key_type(idx)
        position = self.tell()
        self.write(buf)
        self.fidx.write(f"{key}\t{position}\n")
        self.idx[key] = position
        self.keys.append(key)


# ------------------------------------------------------------------------------------------------
# Image record headers
# ------------------------------------------------------------------------------------------------
IRHeader = namedtuple("HEADER", ["flag", "label", "id", "id2"])
IRHeader.__doc__ = """Header of an image record: ``(flag, label, id, id2)``.

``flag``: 0 for one float label, else the number of float32 labels stored
after the header; ``label``: a float, or a sequence / numpy array of floats
(``pack`` sets ``flag`` from it); ``id`` / ``id2``: uint64 record ids
(``id2`` usually 0).  Named ``HEADER`` as in MXNet.
"""

_IR_FORMAT = "IfQQ"
_IR_SIZE = struct.calcsize(_IR_FORMAT)
_IR_STRUCT = struct.Struct("<" + _IR_FORMAT)


def pack(header, s):
    """An image record: the packed ``header`` (an :data:`IRHeader` or 4-tuple), its labels, then ``s``.

    A number label is stored in the header (``flag`` becomes 0); a sequence
    or array of labels is stored as float32 after the header (``flag``
    becomes its length, the header's label 0), as MXNet's ``pack``.
    ``s``: bytes.  Returns bytes.

    Raises MXNetError when ``s`` is not bytes-like or a header field does
    not fit its type (flag uint32, id / id2 uint64).
    """
    header = IRHeader(*header)
    if not isinstance(s, (bytes, bytearray, memoryview)):
        raise MXNetError(f"recordio.pack: the payload must be bytes, got {type(s).__name__}")
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
        extra = b""
    else:
        labels = np.asarray(header.label, dtype="<f4")
        header = header._replace(flag=labels.size, label=0)
        extra = labels.tobytes()
    try:
        packed = _IR_STRUCT.pack(int(header.flag), float(header.label), int(header.id), int(header.id2))
    except (struct.error, TypeError, ValueError) as error:
        raise MXNetError(f"recordio.pack: header {tuple(header)} does not fit (flag uint32, label float32, "
                         f"id uint64, id2 uint64): {error}") from None
    return packed + extra + bytes(s)


def unpack(s):
    """Split an image record into ``(IRHeader, payload bytes)``.

    The header's label is a float when ``flag`` is 0, else a float32 numpy
    array of ``flag`` labels.  Raises MXNetError when ``s`` is shorter than
    the header and the labels it announces.
    """
    s = bytes(s)
    if len(s) < _IR_SIZE:
        raise MXNetError(f"recordio.unpack: a record starts with a {_IR_SIZE}-byte header, got {len(s)} bytes")
    header = IRHeader(*_IR_STRUCT.unpack(s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        if len(s) < 4 * header.flag:
            raise MXNetError(f"recordio.unpack: the header announces {header.flag} float32 labels "
                             f"({4 * header.flag} bytes) but only {len(s)} bytes follow it")
        header = header._replace(label=np.frombuffer(s, dtype="<f4", count=header.flag).astype(np.float32))
        s = s[4 * header.flag:]
    return header, s


def unpack_img(s, iscolor=-1):
    """Split an image record into ``(IRHeader, image)``; the image is decoded by OpenCV.

    ``iscolor``: OpenCV's imdecode flag (-1 as stored, 0 grayscale (H, W),
    1 colour).  The image is a uint8 numpy array ``(height, width, 3)`` in
    **BGR** order for colour images, as MXNet returned.  Raises MXNetError
    when the payload is not a decodable image (MXNet returned None).
    """
    header, payload = unpack(s)
    cv2 = _cv2("recordio.unpack_img")
    image = decode_image(cv2, np.frombuffer(payload, dtype=np.uint8), iscolor)
    if image is None:
        raise MXNetError(f"recordio.unpack_img: the payload of record id {header.id} ({len(payload)} bytes) "
                         f"is not an image OpenCV can decode")
    return header, image


def pack_img(header, img, quality=95, img_fmt=".jpg"):
    """Encode ``img`` with OpenCV and pack it with ``header`` (see :func:`pack`).

    ``img``: uint8 numpy array ``(height, width)`` or ``(height, width, 3)``
    taken as **BGR** (OpenCV's order); ``img_fmt``: '.jpg' / '.jpeg'
    (``quality`` = JPEG quality 0-100) or '.png' (``quality`` = PNG
    compression level 0-9), other OpenCV formats without parameters.
    Returns bytes.  Raises MXNetError when OpenCV cannot encode the image.
    """
    cv2 = _cv2("recordio.pack_img")
    if img_fmt.upper() in (".JPG", ".JPEG"):
        parameters = [cv2.IMWRITE_JPEG_QUALITY, int(quality)]
    elif img_fmt.upper() == ".PNG":
        parameters = [cv2.IMWRITE_PNG_COMPRESSION, int(quality)]
    else:
        parameters = []
    try:
        success, encoded = cv2.imencode(img_fmt, np.asarray(img), parameters)
    except cv2.error as error:
        raise MXNetError(f"recordio.pack_img: OpenCV cannot encode an image of shape {np.shape(img)} and "
                         f"dtype {np.asarray(img).dtype} as {img_fmt!r}: {error}") from None
    if not success:
        raise MXNetError(f"recordio.pack_img: OpenCV failed to encode the image as {img_fmt!r}")
    return pack(header, encoded.tobytes())

# the C library object MXNet's module held (``from .base import _LIB``; see base_ctypes._CLibrary)
from .base_ctypes import _LIB  # noqa: E402,F401
