"""``mx.image.ImageIter``: batches of images from a RecordIO file or an image list,
augmented in Python."""
from __future__ import annotations

import numbers
import os
import random


from .. import recordio
from ..base import MXNetError
from ..io.io import DataBatch, DataDesc, DataIter
from ..ndarray.ndarray import NDArray, array as _nd_array, zeros as _nd_zeros, empty as _nd_empty
from .functions import _LOGGER, _InvalidArgumentError, _read_bytes, imdecode
from .augmenters import CreateAugmenter

__all__ = ["ImageIter"]


# ------------------------------------------------------------------------------------------------
# ImageIter
# ------------------------------------------------------------------------------------------------

def _read_text_lines(path, owner, what):
    """The lines of the UTF-8 text file ``path``; MXNetError when it cannot be read or is not text."""
    try:
        with open(path, encoding="utf-8") as stream:
            return stream.read().splitlines()
    except UnicodeDecodeError as error:
        raise MXNetError(f"{owner}: {what} {path!r} is not UTF-8 text ({error.reason} at byte {error.start})") \
            from None
    except (OSError, ValueError) as error:
        raise MXNetError(f"{owner}: cannot read {what} {path!r}: {error}") from None

class ImageIter(DataIter):
    """Batches of images from a RecordIO file or an image list, augmented in Python (MXNet's ``mx.image.ImageIter``).

    Sources: ``path_imgrec`` (+ ``path_imgidx`` for shuffling and
    partitions), ``path_imglist`` (text lines ``index<TAB>label(s)<TAB>
    path`` relative to ``path_root``) or ``imglist`` (a list of
    ``[label(s)..., path]``).  Labels come from the list when one is given,
    else from the record headers.  Each image is decoded (RGB), passed
    through ``aug_list`` (default ``CreateAugmenter(data_shape, **kwargs)``)
    and transposed to CHW.

    Batches: data float32 ``(batch_size,) + data_shape`` (``data_shape`` =
    (3, height, width)), label ``(batch_size,)`` or ``(batch_size,
    label_width)``.  ``last_batch_handle``: 'pad' (the last batch is
    completed from the start of the data and reports ``pad``), 'discard'
    (the incomplete batch is dropped) or 'roll_over' (its images start the
    next epoch).  ``shuffle`` reshuffles (``random.shuffle``) at every
    ``reset``; ``part_index`` / ``num_parts`` read one of ``num_parts``
    equal slices.

    Raises MXNetError (also a ValueError) when no source is given, for a
    label ``dtype`` other than int32 / float32 / int64 / float64, a
    ``data_shape`` that is not (3, height, width), or shuffling / partitions
    of a record file without its index; MXNetError when an image cannot be
    decoded (naming the record key or file).
    """

    def __init__(self, batch_size, data_shape, label_width=1, path_imgrec=None, path_imglist=None, path_root=None,
                 path_imgidx=None, shuffle=False, part_index=0, num_parts=1, aug_list=None, imglist=None,
                 data_name="data", label_name="softmax_label", dtype="float32", last_batch_handle="pad", **kwargs):
        super().__init__()
        if not (path_imgrec or path_imglist or isinstance(imglist, list)):
            raise _InvalidArgumentError(f"{type(self).__name__}: give path_imgrec, path_imglist or imglist (a list)")
        if dtype not in ("int32", "float32", "int64", "float64"):
            raise _InvalidArgumentError(f"{type(self).__name__}: label dtype must be int32, float32, int64 or "
                                        f"float64, got {dtype!r}")
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise _InvalidArgumentError(f"{type(self).__name__}: last_batch_handle must be 'pad', 'discard' or "
                                        f"'roll_over', got {last_batch_handle!r}")
        class_name = type(self).__name__
        if path_imgrec:
            _LOGGER.info("%s: loading recordio %s...", class_name, path_imgrec)
            if path_imgidx:
                self.imgrec = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
                self.imgidx = list(self.imgrec.keys)
            else:
                self.imgrec = recordio.MXRecordIO(path_imgrec, "r")
                self.imgidx = None
        else:
            self.imgrec = None

        image_keys = None
        if path_imglist:
            _LOGGER.info("%s: loading image list %s...", class_name, path_imglist)
            self.imglist, image_keys = self._read_image_list(path_imglist, dtype, label_width)
        elif isinstance(imglist, list):
            _LOGGER.info("%s: loading image list...", class_name)
            self.imglist, image_keys = {}, []
            for position, entry in enumerate(imglist, start=1):
                key = str(position)
                if len(entry) > 2:
                    label = _nd_array(entry[:-1], dtype=dtype)
                elif isinstance(entry[0], numbers.Number):
                    label = _nd_array([entry[0]], dtype=dtype)
                else:
                    label = _nd_array(entry[0], dtype=dtype)
                self.imglist[key] = (label, entry[-1])
                image_keys.append(key)
        else:
            self.imglist = None
        self.path_root = path_root
        self.check_data_shape(data_shape)
        data_shape = tuple(data_shape)
        self.provide_data = [DataDesc(data_name, (batch_size,) + data_shape)]
        if label_width > 1:
            self.provide_label = [DataDesc(label_name, (batch_size, label_width))]
        else:
            self.provide_label = [DataDesc(label_name, (batch_size,))]
        self.batch_size = batch_size
        self.data_shape = data_shape
        self.label_width = label_width
        self.shuffle = shuffle
        if self.imgrec is None:
            self.seq = image_keys
        elif shuffle or num_parts > 1 or path_imgidx:
            if self.imgidx is None:
                raise _InvalidArgumentError(f"{class_name}: shuffle and num_parts > 1 need the index file "
                                            f"path_imgidx of {path_imgrec!r}")
            self.seq = self.imgidx
        else:
            self.seq = None
        self.num_parts = num_parts
        if num_parts > 1:
            if not 0 <= part_index < num_parts:
                raise _InvalidArgumentError(f"{class_name}: part_index must be in [0, {num_parts}), got {part_index}")
            part_size = len(self.seq) // num_parts
            self.seq = self.seq[part_index * part_size:(part_index + 1) * part_size]
        self.auglist = CreateAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        self.cur = 0
        self._records_read = 0
        self._allow_read = True
        self.last_batch_handle = last_batch_handle
        self.num_image = len(self.seq) if self.seq is not None else None
        self._cache_data = None
        self._cache_label = None
        self._cache_idx = None
        self.reset()

    @staticmethod
    def _read_image_list(path, dtype, label_width=None):
        entries, keys = {}, []
        for line_number, line in enumerate(_read_text_lines(path, "ImageIter", "image list"), start=1):
            fields = line.strip().split("\t")
            if fields == [""]:
                continue
            if len(fields) < 3:
                raise MXNetError(f"ImageIter: line {line_number} of image list {path!r} is not "
                                 f"'index<TAB>label(s)<TAB>path': {line.rstrip()!r}")
            try:
                key = int(fields[0])
                label = _nd_array([float(value) for value in fields[1:-1]], dtype=dtype)
            except ValueError:
                raise MXNetError(f"ImageIter: line {line_number} of image list {path!r} has a non-numeric "
                                 f"index or label: {line.rstrip()!r}") from None
            if label_width is not None and len(fields) - 2 != label_width:
                raise MXNetError(f"ImageIter: line {line_number} of image list {path!r} has {len(fields) - 2} "
                                 f"labels, expected label_width={label_width}")
            entries[key] = (label, fields[-1])
            keys.append(key)
        return entries, keys

    def reset(self):
        """Start the next epoch: reshuffle if ``shuffle``; with 'roll_over' keep the carried images."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.last_batch_handle != "roll_over" or self._cache_data is None:
            if self.imgrec is not None:
                self.imgrec.reset()
            self.cur = 0
            self._records_read = 0
            self._allow_read = True

    def hard_reset(self):
        """Start again from the first image, dropping images carried over by 'roll_over'."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.imgrec is not None:
            self.imgrec.reset()
        self.cur = 0
        self._records_read = 0
        self._allow_read = True
        self._cache_data = None
        self._cache_label = None
        self._cache_idx = None

    def next_sample(self):
        """The next ``(label, encoded image bytes)``; StopIteration at the end of the data."""
        if self._allow_read is False:
            raise StopIteration
        if self.seq is not None:
            if self.cur >= self.num_image:
                if self.last_batch_handle != "discard":
                    self.cur = 0
                raise StopIteration
            key = self.seq[self.cur]
            self.cur += 1
            if self.imgrec is not None:
                header, image = recordio.unpack(self.imgrec.read_idx(key))
                if self.imglist is None:
                    return header.label, image
                return self.imglist[key][0], image
            label, filename = self.imglist[key]
            return label, self.read_image(filename)
        record = self.imgrec.read()
        if record is None:
            if self.last_batch_handle != "discard":
                self.imgrec.reset()
            raise StopIteration
        self._records_read += 1
        header, image = recordio.unpack(record)
        return header.label, image

    def _batchify(self, batch_data, batch_label, start=0):
        """Fill ``batch_data`` / ``batch_label`` from position ``start``; returns the number of rows
        filled.  Each record goes through :meth:`_prepare_sample` (None: skipped) and
        :meth:`_store_label`, which ImageDetIter overrides for its object labels."""
        position = start
        try:
            while position < self.batch_size:
                sample = self._prepare_sample(*self.next_sample())
                if sample is None:
                    continue
                data, label = sample
                batch_data[position] = self.postprocess_data(data)
                self._store_label(batch_label, position, label)
                position += 1
        except StopIteration:
            if not position:
                raise
        return position

    def _prepare_sample(self, label, encoded):
        """``(augmented image, label)`` of one record, or None when the image is invalid (logged
        at debug level and skipped)."""
        data = self.imdecode(encoded)
        try:
            self.check_valid_image(data)
        except RuntimeError as error:
            _LOGGER.debug("Invalid image, skipping: %s", error)
            return None
        return self.augmentation_transform(data), label

    def _store_label(self, batch_label, position, label):
        """Write one sample's label into row ``position`` of the label batch."""
        batch_label[position] = label

    def next(self):
        """The next DataBatch; StopIteration at the end of the epoch."""
        if self._cache_data is not None:
            batch_data, batch_label, filled = self._cache_data, self._cache_label, self._cache_idx
        else:
            batch_data = _nd_zeros((self.batch_size,) + self.data_shape)
            batch_label = _nd_empty(self.provide_label[0][1])
            self._prepare_label(batch_label)
            filled = self._batchify(batch_data, batch_label)
        pad = self.batch_size - filled
        if pad != 0:
            if self.last_batch_handle == "discard":
                raise StopIteration
            if self.last_batch_handle == "roll_over" and self._cache_data is None:
                self._cache_data, self._cache_label, self._cache_idx = batch_data, batch_label, filled
                raise StopIteration
            self._batchify(batch_data, batch_label, filled)
            if self.last_batch_handle == "pad":
                self._allow_read = False
            else:
                self._cache_data = self._cache_label = self._cache_idx = None
        return DataBatch([batch_data], [batch_label], pad=pad)

    def _prepare_label(self, batch_label):
        """Initialise a new label batch (ImageDetIter fills it with -1)."""

    def check_data_shape(self, data_shape):
        """Raise MXNetError (also a ValueError) unless ``data_shape`` is (3, height, width)."""
        if len(data_shape) != 3:
            raise _InvalidArgumentError(f"{type(self).__name__}: data_shape must be (channels, height, width), "
                                        f"got {data_shape!r}")
        if data_shape[0] != 3:
            raise _InvalidArgumentError(f"{type(self).__name__}: this iterator produces 3-channel images; "
                                        f"data_shape {data_shape!r} has {data_shape[0]}")

    def check_valid_image(self, data):
        """Raise RuntimeError for an image without pixels (such an image is skipped)."""
        if len(data[0].shape) == 0 or 0 in data.shape:
            raise RuntimeError("Data shape is wrong")

    def _locate(self):
        """Where the image being decoded came from, for error messages."""
        position = self.cur - 1
        if self.seq is not None and self.num_image:
            key = self.seq[position % self.num_image]
            if self.imglist is not None:
                return f"file {self.imglist[key][1]!r}"
            return f"record key {key!r}"
        return f"record number {self._records_read - 1} of {self.imgrec.uri!r}"

    def imdecode(self, s):
        """Decode one image (RGB, uint8 HWC); MXNetError naming the record or file when it cannot be decoded."""
        try:
            return imdecode(s)
        except MXNetError as error:
            raise MXNetError(f"{type(self).__name__}: broken image at {self._locate()}: {error}") from None

    def read_image(self, fname):
        """The bytes of image file ``fname`` under ``path_root``."""
        path = os.path.join(self.path_root or "", fname)
        return _read_bytes(path, f"{type(self).__name__}: cannot read image file")

    def augmentation_transform(self, data):
        """Apply ``auglist`` to one image."""
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum):
        """HWC -> CHW."""
        return NDArray(datum._tensor.permute(2, 0, 1), datum.context)


