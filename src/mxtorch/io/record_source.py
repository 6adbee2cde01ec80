"""The reading and batching backend shared by the RecordIO image iterators
(:mod:`mxtorch.io.image_record`, :mod:`mxtorch.io.image_det_record`): records read (optionally
one of ``num_parts``), decoded and augmented on threads, and formed into batches."""
from __future__ import annotations

import concurrent.futures
import logging
import os

import numpy as np

from ..base import MXNetError
from ..recordio import _record_offsets, _RecordReader, unpack
from ..util import decode_image
from .image_augment import _cv2

_LOGGER = logging.getLogger(__name__)

class _RecordImageSource:
    """Reads image records, decodes and augments them (optionally on threads) and forms batches.

    Subclasses define ``_labels(header, offset)``, ``_augment(cv2, image,
    labels, generator)`` -> ``(chw uint8 image, label row)`` and
    ``_finish(chw uint8 image, generator)`` -> the image in the output dtype
    (normalisation); all three run on the worker threads.
    """

    name = "ImageRecordIter"

    def __init__(self, arguments, label_shape, data_dtype):
        self.arguments = arguments
        self.path = arguments["path_imgrec"]
        if not self.path:
            raise MXNetError(f"{self.name}: path_imgrec is required (the .rec file to read)")
        if not os.path.isfile(self.path):
            raise MXNetError(f"{self.name}: path_imgrec {self.path!r} does not exist")
        self.cv2 = _cv2(self.name)
        self.data_shape = arguments["data_shape"]
        self.batch_size = arguments["batch_size"]
        self.round_batch = arguments["round_batch"]
        self.label_shape = label_shape
        self.data_dtype = data_dtype
        self.offsets = self._partition(self._record_offsets())
        if not self.offsets:
            raise MXNetError(f"{self.name}: {self.path!r} holds no records (part {arguments['part_index']} of "
                             f"{arguments['num_parts']})")
        self.reader = _RecordReader(self.path)
        self.shuffle = arguments["shuffle"]
        self.order_generator = np.random.RandomState(arguments["seed"] % (2 ** 32))
        seed_aug = arguments.get("seed_aug")
        self.augment_seed = (arguments["seed"] if seed_aug is None else seed_aug) % (2 ** 63)
        self.samples_processed = 0
        threads = arguments["preprocess_threads"]
        self.pool = concurrent.futures.ThreadPoolExecutor(threads) if threads > 1 else None
        self.order = self._new_order()
        self.position = 0
        self.overflow = False
        if arguments["verbose"]:
            _LOGGER.info("%s: %s, %d images, use %d threads for decoding", self.name, self.path, len(self.offsets),
                         threads)

    # -- which records, in which order -------------------------------------------------------
    def _record_offsets(self):
        index_path = self.arguments.get("path_imgidx", "")
        if not index_path:
            return _record_offsets(self.path)
        offsets = []
        try:
            with open(index_path) as stream:
                for line_number, line in enumerate(stream, start=1):
                    fields = line.split()
                    if not fields:
                        continue
                    if len(fields) != 2:
                        raise ValueError
                    offsets.append(int(fields[1]))
        except OSError as error:
            raise MXNetError(f"{self.name}: cannot read path_imgidx {index_path!r}: {error}") from None
        except ValueError:
            raise MXNetError(f"{self.name}: line {line_number} of path_imgidx {index_path!r} is not "
                             f"'key<TAB>offset': {line.rstrip()!r}") from None
        return sorted(offsets)

    def _partition(self, offsets):
        parts, part = self.arguments["num_parts"], self.arguments["part_index"]
        if part >= parts:
            raise MXNetError(f"{self.name}: part_index must be below num_parts={parts}, got {part}")
        count = len(offsets)
        return offsets[count * part // parts:count * (part + 1) // parts]

    def _new_order(self):
        if self.shuffle:
            return self.order_generator.permutation(len(self.offsets))
        return np.arange(len(self.offsets))

    # -- one record ----------------------------------------------------------------------------
    def _read(self, record_number):
        offset = self.offsets[record_number]
        self.reader.seek(offset)
        record = self.reader.read()
        if record is None:
            raise MXNetError(f"{self.name}: {self.path!r} has no record at byte offset {offset} (index out of date?)")
        return offset, record

    def _decode(self, offset, record):
        try:
            header, payload = unpack(record)
        except MXNetError as error:
            raise MXNetError(f"{self.name}: record at byte offset {offset} of {self.path!r}: {error}") from None
        channels = self.data_shape[0]
        flag = {1: self.cv2.IMREAD_GRAYSCALE, 3: self.cv2.IMREAD_COLOR, 4: self.cv2.IMREAD_UNCHANGED}[channels]
        image = decode_image(self.cv2, np.frombuffer(payload, dtype=np.uint8), flag)
        if image is None:
            raise MXNetError(f"{self.name}: the record at byte offset {offset} of {self.path!r} (id {header.id}) "
                             f"does not hold an image OpenCV can decode ({len(payload)} bytes)")
        if image.ndim == 2:
            image = image[:, :, None]
        if image.shape[2] != channels:
            if channels == 4:
                code = self.cv2.COLOR_GRAY2BGRA if image.shape[2] == 1 else self.cv2.COLOR_BGR2BGRA
                image = self.cv2.cvtColor(image, code)
            else:
                raise MXNetError(f"{self.name}: the image at byte offset {offset} of {self.path!r} has "
                                 f"{image.shape[2]} channels, data_shape asks for {channels}")
        if image.dtype != np.uint8:
            image = (image // 257).astype(np.uint8) if image.dtype == np.uint16 else image.astype(np.uint8)
        return header, image

    def _process(self, record_number, sample_number):
        """``(augmented CHW uint8 image, label row)`` of one record, before normalisation."""
        offset, record = self._read(record_number)
        return self._augment_record(offset, record, np.random.default_rng([self.augment_seed, sample_number]))

    def _process_record(self, offset, record, sample_number):
        generator = np.random.default_rng([self.augment_seed, sample_number])
        image, row = self._augment_record(offset, record, generator)
        return self._finish(image, generator), row

    def _augment_record(self, offset, record, generator):
        header, image = self._decode(offset, record)
        labels = self._labels(header, offset)
        try:
            return self._augment(self.cv2, image, labels, generator)
        except self.cv2.error as error:
            raise MXNetError(f"{self.name}: augmenting the image at byte offset {offset} of {self.path!r} "
                             f"failed in OpenCV: {str(error).strip().splitlines()[-1]}") from None

    # -- batches ---------------------------------------------------------------------------------
    def before_first(self):
        if self.round_batch and self.overflow:
            self.overflow = False  # continue after the images that completed the last batch
        else:
            self.order = self._new_order()
            self.position = 0

    def _take(self, count):
        taken = self.order[self.position:self.position + count]
        self.position += len(taken)
        return list(taken)

    def next(self):
        if self.overflow:
            return None
        records = self._take(self.batch_size)
        if not records:
            return None
        filled = len(records)
        pad = 0
        if filled < self.batch_size:
            pad = self.batch_size - filled
            if self.round_batch:
                while len(records) < self.batch_size:  # wrap around to a new epoch's order
                    self.order = self._new_order()
                    self.position = 0
                    records += self._take(self.batch_size - len(records))
                self.overflow = True
        data = np.zeros((self.batch_size,) + self.data_shape, dtype=self.data_dtype)
        label = np.zeros((self.batch_size,) + self.label_shape, dtype=np.float32)
        sample_numbers = range(self.samples_processed, self.samples_processed + len(records))
        self.samples_processed += len(records)
        reads = [self._read(record) for record in records]
        if self.pool is not None and len(records) > 1:
            results = list(self.pool.map(lambda item: self._process_record(*item[0], item[1]),
                                         zip(reads, sample_numbers)))
        else:
            results = [self._process_record(offset, record, number)
                       for (offset, record), number in zip(reads, sample_numbers)]
        for slot, (image, row) in enumerate(results):
            data[slot] = image
            label[slot] = row
        return data, label, pad, np.zeros(self.batch_size, dtype=np.uint64)

    def __del__(self):
        pool = getattr(self, "pool", None)
        if pool is not None:
            pool.shutdown(wait=False)
        reader = getattr(self, "reader", None)
        if reader is not None:
            reader.close()

    def _load_or_create_mean_image(self, path):
        from ..ndarray import load, save, array
        if os.path.isfile(path):
            stored = load(path)
            values = list(stored.values()) if isinstance(stored, dict) else list(stored)
            if len(values) != 1 or tuple(values[0].shape) != self.data_shape:
                raise MXNetError(f"{self.name}: mean_img {path!r} must hold one array of shape {self.data_shape}, "
                                 f"got {[tuple(v.shape) for v in values]}")
            _LOGGER.info("%s: load mean image from %s", self.name, path)
            return values[0].asnumpy().astype(np.float32)
        _LOGGER.info("%s: cannot find %s: create mean image, this will take some time...", self.name, path)
        # As MXNet 1.9.1: the mean of the images normalised with a zero mean, i.e. of pixel * scale / std,
        # which is then subtracted from the pixels like a mean in pixel units (the two agree when scale and
        # std are 1, the usual setting with mean_img).
        factor = np.float32(self.arguments["scale"]) / self.std
        total = np.zeros(self.data_shape, dtype=np.float64)
        for record_number in range(len(self.offsets)):
            image, _ = self._process(record_number, record_number)
            total += image.astype(np.float32) * factor
        mean = (total / len(self.offsets)).astype(np.float32)
        save(path, {"mean_img": array(mean)})
        _LOGGER.info("%s: save mean image to %s", self.name, path)
        return mean
