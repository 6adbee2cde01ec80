"""Image iterators over RecordIO files: MXNet 1.9.1's C++ ``ImageRecordIter`` family.

``ImageRecordIter`` (float32 batches, normalised), ``ImageRecordUInt8Iter``
and ``ImageRecordInt8Iter`` (raw pixels), ``ImageDetRecordIter`` (object
detection labels) and the ``_v1`` aliases.  As in MXNet each is a factory
function returning an :class:`~mxtorch.io.io.MXDataIter`; arguments may be
Python values or MXNet's strings (``'(3, 224, 224)'``, ``'True'``).

Each record is an image record (``mx.recordio.pack_img``): an IRHeader, its
labels, then an encoded JPEG / PNG.  An image is decoded with OpenCV (BGR,
grayscale for 1-channel ``data_shape``), augmented with OpenCV, converted to
CHW in **RGB(A)** order and normalised.  The deterministic path (no random
augmentation) reproduces MXNet's pixels: resizing the shorter side
(``resize``), enlarging images smaller than ``data_shape`` (first the
height, then the width, each keeping the aspect ratio, with integer sizes as
MXNet computed them), centre crop, mirror, ``(pixel - mean) * scale / std``.

Random augmentations (``rand_crop``, ``rand_mirror``, ``random_resized_crop``,
rotations, scales, colour jitter, ...) follow MXNet's definitions and
distributions but draw from numpy's generator (seeded by ``seed_aug``, else
``seed``, and the sample's position in the stream), not MXNet's C++ engine, so
the random values differ from MXNet's while being reproducible for any number
of ``preprocess_threads``.  ``shuffle`` draws a new order every epoch from
``numpy.random.RandomState(seed)``, not MXNet's order.

Batching follows MXNet: with ``round_batch=True`` (default) the last batch of
an epoch is completed with images from the start (``pad`` = their number)
and the next epoch continues after those images; ``batch.index`` is all
zeros.  Deliberate difference: with ``round_batch=False`` the last batch
reports the number of unused rows in ``pad`` and those rows are zeros (MXNet
1.9.1 reported ``pad=0`` and left stale images there).

Corrupt files raise MXNetError naming the file and the byte offset (MXNet
aborted or hung); an undecodable image raises MXNetError naming the record.
"""
from __future__ import annotations

import concurrent.futures
import logging
import math
import os

import numpy as np

from ..base import MXNetError, parse_tuple
from ..util import decode_image, import_opencv
from ..recordio import _RecordReader, _record_offsets, _IR_SIZE, _IR_STRUCT, unpack
from .io import MXDataIter
from ..schema import (Attr, Bool, DtypeOf, Float, FloatTuple, Int, IntTuple, OneOf, Path, Text, collect, nonempty,
                      optional)
from .native import NonNegativeInt, PositiveInt, parse_iterator_arguments

__all__ = ["ImageRecordIter", "ImageRecordUInt8Iter", "ImageRecordInt8Iter", "ImageDetRecordIter",
           "ImageRecordIter_v1", "ImageRecordUInt8Iter_v1"]

_LOGGER = logging.getLogger(__name__)


# ------------------------------------------------------------------------------------------------
# Arguments, declared with the schema operators use (mxtorch.schema)
# ------------------------------------------------------------------------------------------------
def _image_shape(value, name):
    """(channels, height, width) of positive sizes, with 1, 3 or 4 channels."""
    shape = parse_tuple(value, name)
    if len(shape) != 3 or any(dim is None or dim < 1 for dim in shape):
        raise MXNetError(f"expected (channels, height, width) of positive sizes, got {value!r}")
    if shape[0] not in (1, 3, 4):
        raise MXNetError(f"images have 1, 3 or 4 channels, got {shape[0]} in {value!r}")
    return tuple(int(dim) for dim in shape)


class _RecordArguments:
    """The parameters every image record iterator has (MXNet's names and defaults)."""
    path_imglist = Attr(Path, default="")
    path_imgrec = Attr(Path, default="")
    aug_seq = Attr(Text, default="aug_default")
    label_width = Attr(PositiveInt, default=1)
    data_shape = Attr(_image_shape, required=True)
    preprocess_threads = Attr(PositiveInt, default=4)
    verbose = Attr(Bool, default=True)
    num_parts = Attr(PositiveInt, default=1)
    part_index = Attr(NonNegativeInt, default=0)
    shuffle_chunk_size = Attr(NonNegativeInt, default=0)
    shuffle_chunk_seed = Attr(Int, default=0)
    shuffle = Attr(Bool, default=False)
    seed = Attr(Int, default=0)
    batch_size = Attr(PositiveInt, required=True)
    round_batch = Attr(Bool, default=True)
    dtype = Attr(DtypeOf("float32", "uint8", "int8"), default=None)
    resize = Attr(Int, default=-1)
    inter_method = Attr(OneOf(Int, (0, 1, 2, 3, 4, 9, 10)), default=1)


class _AugmentArguments(_RecordArguments):
    """ImageRecordIter's reading and augmentation parameters (also the raw-pixel iterators')."""
    path_imgidx = Attr(Path, default="")
    device_id = Attr(Int, default=0)
    seed_aug = Attr(optional(Int, empty=True), default=None)
    rand_crop = Attr(Bool, default=False)
    random_resized_crop = Attr(Bool, default=False)
    max_rotate_angle = Attr(Int, default=0)
    max_aspect_ratio = Attr(Float, default=0.0)
    min_aspect_ratio = Attr(optional(Float, empty=True), default=None)
    max_shear_ratio = Attr(Float, default=0.0)
    max_crop_size = Attr(Int, default=-1)
    min_crop_size = Attr(Int, default=-1)
    max_random_scale = Attr(Float, default=1.0)
    min_random_scale = Attr(Float, default=1.0)
    max_random_area = Attr(Float, default=1.0)
    min_random_area = Attr(Float, default=1.0)
    max_img_size = Attr(Float, default=1e10)
    min_img_size = Attr(Float, default=0.0)
    brightness = Attr(Float, default=0.0)
    contrast = Attr(Float, default=0.0)
    saturation = Attr(Float, default=0.0)
    pca_noise = Attr(Float, default=0.0)
    random_h = Attr(Int, default=0)
    random_s = Attr(Int, default=0)
    random_l = Attr(Int, default=0)
    rotate = Attr(Int, default=-1)
    fill_value = Attr(Int, default=255)
    pad = Attr(NonNegativeInt, default=0)


class ImageRecordArguments(_AugmentArguments):
    """ImageRecordIter's parameters: augmentation plus normalisation."""
    mirror = Attr(Bool, default=False)
    rand_mirror = Attr(Bool, default=False)
    mean_img = Attr(Path, default="")
    mean_r = Attr(Float, default=0.0)
    mean_g = Attr(Float, default=0.0)
    mean_b = Attr(Float, default=0.0)
    mean_a = Attr(Float, default=0.0)
    std_r = Attr(Float, default=1.0)
    std_g = Attr(Float, default=1.0)
    std_b = Attr(Float, default=1.0)
    std_a = Attr(Float, default=1.0)
    scale = Attr(Float, default=1.0)
    max_random_contrast = Attr(Float, default=0.0)
    max_random_illumination = Attr(Float, default=0.0)


class RawImageRecordArguments(_AugmentArguments):
    """ImageRecordUInt8Iter / ImageRecordInt8Iter: no normalisation parameters."""


class DetRecordArguments(_RecordArguments):
    """ImageDetRecordIter's parameters."""
    path_imgrec = Attr(Path, default="./data/imgrec.rec")
    path_imgidx = Attr(Path, default="")
    aug_seq = Attr(Text, default="det_aug_default")
    label_width = Attr(Int, default=-1)
    label_pad_width = Attr(NonNegativeInt, default=0)
    label_pad_value = Attr(Float, default=-1.0)
    rand_crop_prob = Attr(Float, default=0.0)
    min_crop_scales = Attr(nonempty(FloatTuple), default=(0.0,))
    max_crop_scales = Attr(nonempty(FloatTuple), default=(1.0,))
    min_crop_aspect_ratios = Attr(nonempty(FloatTuple), default=(1.0,))
    max_crop_aspect_ratios = Attr(nonempty(FloatTuple), default=(1.0,))
    min_crop_overlaps = Attr(nonempty(FloatTuple), default=(0.0,))
    max_crop_overlaps = Attr(nonempty(FloatTuple), default=(1.0,))
    min_crop_sample_coverages = Attr(nonempty(FloatTuple), default=(0.0,))
    max_crop_sample_coverages = Attr(nonempty(FloatTuple), default=(1.0,))
    min_crop_object_coverages = Attr(nonempty(FloatTuple), default=(0.0,))
    max_crop_object_coverages = Attr(nonempty(FloatTuple), default=(1.0,))
    num_crop_sampler = Attr(PositiveInt, default=1)
    crop_emit_mode = Attr(Text, default="center")
    emit_overlap_thresh = Attr(Float, default=0.3)
    max_crop_trials = Attr(IntTuple, default=(25,))
    rand_pad_prob = Attr(Float, default=0.0)
    max_pad_scale = Attr(Float, default=1.0)
    max_random_hue = Attr(Int, default=0)
    random_hue_prob = Attr(Float, default=0.0)
    max_random_saturation = Attr(Int, default=0)
    random_saturation_prob = Attr(Float, default=0.0)
    max_random_illumination = Attr(Int, default=0)
    random_illumination_prob = Attr(Float, default=0.0)
    max_random_contrast = Attr(Float, default=0.0)
    random_contrast_prob = Attr(Float, default=0.0)
    rand_mirror_prob = Attr(Float, default=0.0)
    fill_value = Attr(Int, default=127)
    resize_mode = Attr(Text, default="force")
    mean_img = Attr(Path, default="")
    mean_r = Attr(Float, default=0.0)
    mean_g = Attr(Float, default=0.0)
    mean_b = Attr(Float, default=0.0)
    mean_a = Attr(Float, default=0.0)
    std_r = Attr(Float, default=0.0)
    std_g = Attr(Float, default=0.0)
    std_b = Attr(Float, default=0.0)
    std_a = Attr(Float, default=0.0)
    scale = Attr(Float, default=1.0)


def _cv2(iterator):
    cv2 = import_opencv(iterator)
    cv2.setNumThreads(1)  # the iterator parallelises over images itself
    return cv2


# ------------------------------------------------------------------------------------------------
# Pixel operations shared by both augmenters (numpy HWC images in OpenCV's BGR order)
# ------------------------------------------------------------------------------------------------
def _interpolation(method, old_size, new_size, generator):
    """OpenCV interpolation code for ``inter_method`` (9: automatic, 10: random), sizes as (width, height)."""
    if method == 9:
        if new_size[0] > old_size[0] and new_size[1] > old_size[1]:
            return 2
        if new_size[0] < old_size[0] and new_size[1] < old_size[1]:
            return 3
        return 1
    if method == 10:
        return int(generator.integers(0, 5))
    return method


def _resize(cv2, image, width, height, method, generator):
    resized = cv2.resize(image, (int(width), int(height)),
                         interpolation=_interpolation(method, (image.shape[1], image.shape[0]), (width, height),
                                                      generator))
    return resized.reshape(resized.shape[:2] + image.shape[2:])


def _resize_shorter_side(cv2, image, size, method, generator):
    rows, columns = image.shape[:2]
    if rows > columns:
        height, width = size * rows // columns, size
    else:
        height, width = size, size * columns // rows
    return _resize(cv2, image, width, height, method, generator)


def _saturate(values):
    return np.clip(np.rint(values), 0, 255).astype(np.uint8)


def _color_jitter(cv2, image, brightness, contrast, saturation, generator):
    """Brightness, contrast and saturation changes in a random order on a uint8 BGR image."""
    steps = [step for step, amount in (("brightness", brightness), ("contrast", contrast),
                                       ("saturation", saturation)) if amount > 0]
    generator.shuffle(steps)
    for step in steps:
        pixels = image.astype(np.float32)
        if step == "brightness":
            image = _saturate(pixels * (1.0 + generator.uniform(-brightness, brightness)))
            continue
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32) if image.shape[2] == 3 \
            else pixels.mean(axis=2)
        if step == "contrast":
            alpha = 1.0 + generator.uniform(-contrast, contrast)
            image = _saturate(pixels * alpha + (1.0 - alpha) * gray.mean())
        else:
            alpha = 1.0 + generator.uniform(-saturation, saturation)
            image = _saturate(pixels * alpha + (1.0 - alpha) * gray[:, :, None])
    return image


_PCA_EIGENVALUES = np.array([55.46, 4.794, 1.148])
_PCA_EIGENVECTORS = np.array([[-0.5675, 0.7192, 0.4009],
                              [-0.5808, -0.0045, -0.8140],
                              [-0.5836, -0.6948, 0.4203]])


def _pca_noise(image, strength, generator):
    """AlexNet lighting noise: adds ``eigvec @ (alpha * eigval)`` (RGB) with ``alpha ~ N(0, strength)``."""
    alpha = generator.normal(0.0, strength, size=3)
    rgb = _PCA_EIGENVECTORS @ (alpha * _PCA_EIGENVALUES)
    return _saturate(image.astype(np.float32) + rgb[::-1].astype(np.float32))


def _hls_shift(cv2, image, hue, lightness, saturation):
    """Adds integer offsets to the H, L and S channels (OpenCV's uint8 HLS: H in [0, 180])."""
    hls = cv2.cvtColor(image, cv2.COLOR_BGR2HLS).astype(np.int32)
    hls += np.array([hue, lightness, saturation], dtype=np.int32)
    hls = np.clip(hls, 0, np.array([180, 255, 255])).astype(np.uint8)
    return cv2.cvtColor(hls, cv2.COLOR_HLS2BGR)


# ------------------------------------------------------------------------------------------------
# Classification augmenter (MXNet's "aug_default")
# ------------------------------------------------------------------------------------------------
class _DefaultAugmenter:
    """MXNet's default image augmentation, step by step on a BGR uint8 image; returns the augmented image."""

    def __init__(self, arguments):
        self.arguments = arguments
        self.data_shape = arguments["data_shape"]
        if arguments["random_resized_crop"] and (arguments["max_random_scale"] != 1.0
                                                 or arguments["min_random_scale"] != 1.0
                                                 or arguments["max_crop_size"] != -1
                                                 or arguments["min_crop_size"] != -1):
            raise MXNetError("ImageRecordIter: random_resized_crop cannot be combined with max/min_random_scale or "
                             "max/min_crop_size (use max/min_random_area and max/min_aspect_ratio)")

    def _affine(self, cv2, image, generator):
        a = self.arguments
        shear = a["max_shear_ratio"] * (generator.random() * 2 - 1)
        angle = int(generator.integers(-a["max_rotate_angle"], a["max_rotate_angle"] + 1))
        if a["rotate"] > 0:
            angle = a["rotate"]
        cosine, sine = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        scale, ratio = 1.0, 1.0
        if not a["random_resized_crop"]:
            scale = generator.random() * (a["max_random_scale"] - a["min_random_scale"]) + a["min_random_scale"]
            ratio = generator.random() * a["max_aspect_ratio"] * 2 - a["max_aspect_ratio"] + 1
        height_scale = 2 * scale / (1 + ratio)
        width_scale = ratio * height_scale
        rows, columns = image.shape[:2]
        new_width = max(a["min_img_size"], min(a["max_img_size"], scale * columns))
        new_height = max(a["min_img_size"], min(a["max_img_size"], scale * rows))
        matrix = np.zeros((2, 3), dtype=np.float32)
        matrix[0, 0] = height_scale * cosine - shear * sine * width_scale
        matrix[1, 0] = -sine * width_scale
        matrix[0, 1] = height_scale * sine + shear * cosine * width_scale
        matrix[1, 1] = cosine * width_scale
        matrix[0, 2] = (new_width - (matrix[0, 0] * columns + matrix[0, 1] * rows)) / 2
        matrix[1, 2] = (new_height - (matrix[1, 0] * columns + matrix[1, 1] * rows)) / 2
        size = (max(1, int(new_width)), max(1, int(new_height)))
        method = _interpolation(a["inter_method"], (columns, rows), size, generator)
        fill = (a["fill_value"],) * 4
        warped = cv2.warpAffine(image, matrix, size, flags=method, borderMode=cv2.BORDER_CONSTANT, borderValue=fill)
        return warped.reshape(warped.shape[:2] + image.shape[2:])

    def _random_resized_crop(self, cv2, image, generator):
        a = self.arguments
        height, width = self.data_shape[1], self.data_shape[2]
        rows, columns = image.shape[:2]
        min_ratio = a["min_aspect_ratio"]
        max_ratio = a["max_aspect_ratio"] if a["max_aspect_ratio"] > 0 else 1.0
        if min_ratio is None:
            min_ratio = 1.0 / max_ratio if max_ratio > 0 else 1.0
        low_ratio, high_ratio = sorted((min_ratio, max_ratio))
        area = rows * columns
        for _ in range(10):
            target_area = area * generator.uniform(a["min_random_area"], a["max_random_area"])
            ratio = generator.uniform(low_ratio, high_ratio)
            crop_width = int(round(math.sqrt(target_area * ratio)))
            crop_height = int(round(math.sqrt(target_area / ratio)))
            if generator.random() > 0.5:
                crop_width, crop_height = crop_height, crop_width
            if 0 < crop_width <= columns and 0 < crop_height <= rows:
                y = int(generator.integers(0, rows - crop_height + 1))
                x = int(generator.integers(0, columns - crop_width + 1))
                return _resize(cv2, image[y:y + crop_height, x:x + crop_width], width, height, a["inter_method"],
                               generator), True
        return image, False

    def _crop_size_crop(self, cv2, image, generator):
        a = self.arguments
        rows, columns = image.shape[:2]
        largest, smallest = a["max_crop_size"], a["min_crop_size"]
        if largest == -1:
            largest = smallest
        if smallest == -1:
            smallest = largest
        if not (smallest <= largest <= min(rows, columns)):
            raise MXNetError(f"ImageRecordIter: the image ({rows}x{columns}) is smaller than max_crop_size "
                             f"{largest} or min_crop_size > max_crop_size")
        size = int(generator.integers(smallest, largest + 1))
        y, x = rows - size, columns - size
        if a["rand_crop"]:
            y, x = int(generator.integers(0, y + 1)), int(generator.integers(0, x + 1))
        else:
            y, x = y // 2, x // 2
        return _resize(cv2, image[y:y + size, x:x + size], self.data_shape[2], self.data_shape[1],
                       a["inter_method"], generator)

    def _crop(self, cv2, image, generator):
        a = self.arguments
        height, width = self.data_shape[1], self.data_shape[2]
        rows, columns = image.shape[:2]
        if rows < height:  # enlarge: first the height, then (if still needed) the width, as MXNet does
            image = _resize(cv2, image, columns * height // rows, height, a["inter_method"], generator)
            rows, columns = image.shape[:2]
        if columns < width:
            image = _resize(cv2, image, width, rows * width // columns, a["inter_method"], generator)
            rows, columns = image.shape[:2]
        y, x = rows - height, columns - width
        if a["rand_crop"]:
            y, x = int(generator.integers(0, y + 1)), int(generator.integers(0, x + 1))
        else:
            y, x = y // 2, x // 2
        return image[y:y + height, x:x + width]

    def __call__(self, cv2, image, generator):
        a = self.arguments
        if a["resize"] > 0:
            image = _resize_shorter_side(cv2, image, a["resize"], a["inter_method"], generator)
        if (a["max_rotate_angle"] > 0 or a["max_shear_ratio"] > 0 or a["rotate"] > 0
                or a["max_random_scale"] != 1.0 or a["min_random_scale"] != 1.0
                or (not a["random_resized_crop"] and a["max_aspect_ratio"] != 0.0)
                or a["max_img_size"] != 1e10 or a["min_img_size"] != 0.0):
            image = self._affine(cv2, image, generator)
        if a["pad"] > 0:
            fill = (a["fill_value"],) * 4
            padded = cv2.copyMakeBorder(image, a["pad"], a["pad"], a["pad"], a["pad"], cv2.BORDER_CONSTANT, value=fill)
            image = padded.reshape(padded.shape[:2] + image.shape[2:])
        cropped = False
        if a["random_resized_crop"]:
            image, cropped = self._random_resized_crop(cv2, image, generator)
        elif a["max_crop_size"] != -1 or a["min_crop_size"] != -1:
            image, cropped = self._crop_size_crop(cv2, image, generator), True
        if not cropped:
            image = self._crop(cv2, image, generator)
        if image.shape[2] == 3:
            if a["random_h"] or a["random_s"] or a["random_l"]:
                hue = int(generator.random() * a["random_h"] * 2 - a["random_h"])
                saturation = int(generator.random() * a["random_s"] * 2 - a["random_s"])
                lightness = int(generator.random() * a["random_l"] * 2 - a["random_l"])
                image = _hls_shift(cv2, np.ascontiguousarray(image), hue, lightness, saturation)
            if a["brightness"] > 0 or a["contrast"] > 0 or a["saturation"] > 0:
                image = _color_jitter(cv2, np.ascontiguousarray(image), a["brightness"], a["contrast"],
                                      a["saturation"], generator)
            if a["pca_noise"] > 0:
                image = _pca_noise(image, a["pca_noise"], generator)
        return image


# ------------------------------------------------------------------------------------------------
# The reading / batching backend
# ------------------------------------------------------------------------------------------------
def _to_chw(image):
    """HWC BGR(A) / gray uint8 -> CHW RGB(A) / gray."""
    if image.shape[2] >= 3:
        order = [2, 1, 0] + list(range(3, image.shape[2]))
        image = image[:, :, order]
    return np.ascontiguousarray(image.transpose(2, 0, 1))


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


class _ClassificationSource(_RecordImageSource):
    """ImageRecordIter / ImageRecordUInt8Iter / ImageRecordInt8Iter backend."""

    def __init__(self, name, arguments, normalise):
        self.name = name
        label_width = arguments["label_width"]
        super().__init__(arguments, () if label_width == 1 else (label_width,),
                         np.float32 if normalise else arguments["dtype"])
        self.normalise = normalise
        self.augmenter = _DefaultAugmenter(arguments)
        self.mirror = arguments.get("mirror", False)
        self.rand_mirror = arguments.get("rand_mirror", False)
        self.image_list = self._read_image_list(arguments["path_imglist"], label_width)
        if normalise:
            self._prepare_normalisation()

    def _read_image_list(self, path, label_width):
        if not path:
            return None
        labels = {}
        try:
            with open(path, encoding="utf-8") as stream:
                for line_number, line in enumerate(stream, start=1):
                    fields = line.strip().split("\t")
                    if fields == [""]:
                        continue
                    values = [float(value) for value in fields[1:1 + label_width]]
                    if len(values) != label_width:
                        raise ValueError
                    labels[int(float(fields[0]))] = np.asarray(values, dtype=np.float32)
        except OSError as error:
            raise MXNetError(f"{self.name}: cannot read path_imglist {path!r}: {error}") from None
        except UnicodeDecodeError as error:
            raise MXNetError(f"{self.name}: path_imglist {path!r} is not UTF-8 text ({error.reason} at byte "
                             f"{error.start})") from None
        except (ValueError, OverflowError):
            raise MXNetError(f"{self.name}: line {line_number} of path_imglist {path!r} is not "
                             f"'index<TAB>{label_width} label(s)<TAB>path': {line.rstrip()!r}") from None
        return labels

    def _labels(self, header, offset):
        if self.image_list is not None:
            if header.id not in self.image_list:
                raise MXNetError(f"{self.name}: image id {header.id} (record at byte offset {offset}) is not in "
                                 f"path_imglist {self.arguments['path_imglist']!r}")
            return self.image_list[header.id]
        labels = np.atleast_1d(np.asarray(header.label, dtype=np.float32))
        if labels.size != self.arguments["label_width"]:
            raise MXNetError(f"{self.name}: the record at byte offset {offset} of {self.path!r} holds "
                             f"{labels.size} labels but label_width is {self.arguments['label_width']}")
        return labels

    def _augment(self, cv2, image, labels, generator):
        image = self.augmenter(cv2, image, generator)
        if self.normalise and (self.mirror or (self.rand_mirror and generator.random() < 0.5)):
            image = image[:, ::-1]
        return _to_chw(image), labels.reshape(self.label_shape)

    # -- normalisation -------------------------------------------------------------------------
    def _prepare_normalisation(self):
        a = self.arguments
        channels = self.data_shape[0]
        names = ["r", "g", "b", "a"][:channels] if channels > 1 else ["r"]
        self.std = np.array([a["std_" + name] for name in names], dtype=np.float32).reshape(-1, 1, 1)
        self.mean = np.array([a["mean_" + name] for name in names], dtype=np.float32).reshape(-1, 1, 1)
        self.mean_image = None
        if a["mean_img"]:
            self.mean_image = self._load_or_create_mean_image(a["mean_img"])

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

    def _finish(self, image, generator):
        if not self.normalise:
            return np.minimum(image, 127).astype(np.int8) if self.data_dtype == np.int8 else image
        a = self.arguments
        mean = self.mean_image if self.mean_image is not None else self.mean
        result = np.subtract(image, mean, dtype=np.float32)
        if a["max_random_contrast"] > 0 or a["max_random_illumination"] > 0:
            contrast = generator.uniform(-a["max_random_contrast"], a["max_random_contrast"]) + 1
            illumination = generator.uniform(-a["max_random_illumination"], a["max_random_illumination"])
            result *= np.float32(contrast)
            result += np.float32(illumination)
        result *= np.float32(a["scale"])
        result /= self.std
        return result


def _common_iterator(name, kwargs, declaration, normalise):
    arguments = parse_iterator_arguments(name, declaration, kwargs, stacklevel=5)
    for key, attr in collect(ImageRecordArguments).items():
        arguments.setdefault(key, attr.default)     # the raw iterators' sources read the normalisation defaults
    dtype = arguments["dtype"]
    if normalise and dtype is not None and dtype != np.dtype(np.float32):
        normalise = False  # ImageRecordIter(dtype='uint8' / 'int8') serves raw pixels like the UInt8 / Int8 iterators
    source = _ClassificationSource(name, arguments, normalise)
    iterator = MXDataIter(source, data_name=kwargs.get("data_name", "data"),
                          label_name=kwargs.get("label_name", "softmax_label"))
    iterator.num_parts = arguments["num_parts"]
    return iterator


_ARGUMENTS_DOC = """
    Arguments (MXNet's names and defaults): ``path_imgrec`` (the .rec file,
    required), ``path_imgidx`` (its .idx file; optional), ``path_imglist``
    (labels from a list file ``index<TAB>labels<TAB>path`` keyed by record
    id instead of the headers), ``data_shape`` ((channels, height, width),
    required; 1 channel = grayscale, 3 = RGB, 4 = RGBA), ``batch_size``
    (required), ``label_width`` (1: labels ``(batch_size,)``, else
    ``(batch_size, label_width)``; must equal the number of labels in each
    record), ``shuffle`` (False), ``seed`` (0), ``seed_aug``,
    ``round_batch`` (True), ``num_parts`` / ``part_index`` (read one of
    ``num_parts`` equal slices of the records), ``preprocess_threads`` (4),
    ``verbose``; augmentation: ``resize`` (shorter side, -1 = off),
    ``rand_crop``, ``random_resized_crop``, ``max_random_area`` /
    ``min_random_area``, ``max_aspect_ratio`` / ``min_aspect_ratio``,
    ``max_rotate_angle``, ``rotate``, ``max_shear_ratio``,
    ``max_random_scale`` / ``min_random_scale``, ``max_img_size`` /
    ``min_img_size``, ``max_crop_size`` / ``min_crop_size``, ``pad``,
    ``fill_value`` (255), ``inter_method`` (1 = bilinear), ``brightness``,
    ``contrast``, ``saturation``, ``pca_noise``, ``random_h`` / ``random_s``
    / ``random_l``.  ``prefetch_buffer``, ``ctx``, ``device_id``,
    ``aug_seq``, ``shuffle_chunk_*`` are accepted and have no effect.
"""


def ImageRecordIter(**kwargs):
    """Batches of float32 images read from a RecordIO file (MXNet's ``mx.io.ImageRecordIter``).

    Data ``(batch_size,) + data_shape`` float32 in RGB order:
    ``((pixel - mean) * contrast + illumination) * scale / std`` per channel,
    with ``mean`` = ``mean_img`` (a saved ``{'mean_img': array}`` file of
    shape ``data_shape``; when the file is missing it is computed over the
    data set and saved there, as MXNet did, as the mean of ``pixel * scale /
    std``, so it is in pixel units only when ``scale`` and ``std`` are 1) or
    ``mean_r/g/b/a`` (0), ``std_r/g/b/a`` (1), ``scale`` (1), random
    ``max_random_contrast`` / ``max_random_illumination`` (0); ``mirror``
    flips every image, ``rand_mirror`` half of them.  ``dtype`` 'uint8' /
    'int8' gives the raw pixels instead (as the UInt8 / Int8 iterators).
""" + _ARGUMENTS_DOC + """
    Raises MXNetError for missing required arguments, a missing or corrupt
    file (naming the byte offset), an undecodable image, a record whose
    label count differs from ``label_width``, and invalid argument values.
    """
    return _common_iterator("ImageRecordIter", kwargs, ImageRecordArguments, normalise=True)


def ImageRecordUInt8Iter(**kwargs):
    """Batches of raw uint8 images read from a RecordIO file (MXNet's ``mx.io.ImageRecordUInt8Iter``).

    Data ``(batch_size,) + data_shape`` uint8 in RGB order, augmented but not
    normalised (no mean / std / scale / mirror arguments).
""" + _ARGUMENTS_DOC + """
    Raises MXNetError as :func:`ImageRecordIter`.
    """
    kwargs.setdefault("dtype", "uint8")
    return _common_iterator("ImageRecordUInt8Iter", kwargs, RawImageRecordArguments, normalise=False)


def ImageRecordInt8Iter(**kwargs):
    """Batches of int8 images read from a RecordIO file (MXNet's ``mx.io.ImageRecordInt8Iter``).

    As :func:`ImageRecordUInt8Iter`, with pixel values saturated to int8
    (values above 127 become 127, as MXNet's cast did).
""" + _ARGUMENTS_DOC + """
    Raises MXNetError as :func:`ImageRecordIter`.
    """
    kwargs.setdefault("dtype", "int8")
    return _common_iterator("ImageRecordInt8Iter", kwargs, RawImageRecordArguments, normalise=False)


ImageRecordIter_v1 = ImageRecordIter
ImageRecordUInt8Iter_v1 = ImageRecordUInt8Iter


# ------------------------------------------------------------------------------------------------
# Object detection
# ------------------------------------------------------------------------------------------------
def _box_iou(box, boxes):
    left = np.maximum(boxes[:, 0], box[0])
    top = np.maximum(boxes[:, 1], box[1])
    right = np.minimum(boxes[:, 2], box[2])
    bottom = np.minimum(boxes[:, 3], box[3])
    intersection = np.maximum(0, right - left) * np.maximum(0, bottom - top)
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    union = areas + (box[2] - box[0]) * (box[3] - box[1]) - intersection
    return intersection / np.maximum(union, 1e-12), intersection, areas


class _DetectionSource(_RecordImageSource):
    """ImageDetRecordIter backend: label rows ``[channels, height, width, count, labels..., padding]``."""

    name = "ImageDetRecordIter"

    def __init__(self, arguments):
        self.arguments = arguments
        path = arguments["path_imgrec"]
        if arguments["resize_mode"] not in ("force", "fit", "shrink"):
            raise MXNetError(f"{self.name}: resize_mode must be 'force', 'fit' or 'shrink', "
                             f"got {arguments['resize_mode']!r}")
        if arguments["crop_emit_mode"] not in ("center", "overlap"):
            raise MXNetError(f"{self.name}: crop_emit_mode must be 'center' or 'overlap', "
                             f"got {arguments['crop_emit_mode']!r}")
        # the label width is known only after reading the record headers
        super().__init__(arguments, (1,), np.float32)
        widest = max(self._label_count(offset) for offset in self.offsets)
        pad_width = arguments["label_pad_width"]
        if pad_width == 0:
            pad_width = widest
        elif pad_width < widest:
            raise MXNetError(f"{self.name}: label_pad_width {pad_width} is smaller than the widest label "
                             f"({widest} values) in {path!r}")
        if arguments["label_width"] > 0 and arguments["label_width"] != widest:
            _LOGGER.debug("%s: label_width %d differs from the widest label %d", self.name,
                          arguments["label_width"], widest)
        self.label_shape = (4 + pad_width,)
        self.pad_width = pad_width
        self.samplers = self._crop_samplers()
        channels = self.data_shape[0]
        names = ["r", "g", "b", "a"][:channels] if channels > 1 else ["r"]
        std = np.array([arguments["std_" + name] for name in names], dtype=np.float32)
        self.std = np.where(std == 0, 1, std).reshape(-1, 1, 1)
        self.mean = np.array([arguments["mean_" + name] for name in names], dtype=np.float32).reshape(-1, 1, 1)
        self.mean_image = None
        if arguments["mean_img"]:
            self.mean_image = _ClassificationSource._load_or_create_mean_image(self, arguments["mean_img"])
        self.sizes = None

    def _label_count(self, offset):
        self.reader.seek(offset)
        header = self.reader.stream.read(8 + _IR_SIZE)
        if len(header) < 8 + _IR_SIZE:
            raise MXNetError(f"{self.name}: the record at byte offset {offset} of {self.path!r} is too short for "
                             f"an image record header")
        flag = _IR_STRUCT.unpack(header[8:])[0]
        return max(1, flag)

    def _crop_samplers(self):
        a = self.arguments
        count = a["num_crop_sampler"]
        names = ["min_crop_scales", "max_crop_scales", "min_crop_aspect_ratios", "max_crop_aspect_ratios",
                 "min_crop_overlaps", "max_crop_overlaps", "min_crop_sample_coverages", "max_crop_sample_coverages",
                 "min_crop_object_coverages", "max_crop_object_coverages", "max_crop_trials"]
        columns = []
        for name in names:
            values = list(a[name])
            if len(values) == 1:
                values = values * count
            if len(values) != count:
                raise MXNetError(f"{self.name}: {name} must have 1 or num_crop_sampler={count} values, "
                                 f"got {len(values)}")
            columns.append(values)
        return list(zip(*columns))

    def _labels(self, header, offset):
        return np.atleast_1d(np.asarray(header.label, dtype=np.float32))

    def _objects(self, labels):
        """``(header, objects)``: the label's header part and its ``(count, object_width)`` object rows."""
        if labels.size < 2:
            return labels, None
        header_width, object_width = int(labels[0]), int(labels[1])
        if header_width < 2 or object_width < 5 or (labels.size - header_width) % object_width:
            return labels, None
        return labels[:header_width], labels[header_width:].reshape(-1, object_width).copy()

    def _random_crop(self, image, objects, generator):
        a = self.arguments
        boxes = objects[:, 1:5]
        candidates = []
        for (min_scale, max_scale, min_ratio, max_ratio, min_overlap, max_overlap, min_sample_coverage,
             max_sample_coverage, min_object_coverage, max_object_coverage, trials) in self.samplers:
            for _ in range(int(trials)):
                scale = generator.uniform(min_scale, max_scale)
                if scale <= 0:
                    continue
                ratio = generator.uniform(max(min_ratio, scale * scale), min(max_ratio, 1.0 / (scale * scale))) \
                    if max(min_ratio, scale * scale) <= min(max_ratio, 1.0 / (scale * scale)) else 1.0
                width, height = scale * math.sqrt(ratio), scale / math.sqrt(ratio)
                if width > 1 or height > 1:
                    continue
                x, y = generator.uniform(0, 1 - width), generator.uniform(0, 1 - height)
                crop = np.array([x, y, x + width, y + height])
                overlap, intersection, areas = _box_iou(crop, boxes)
                sample_coverage = intersection / (width * height)
                object_coverage = intersection / np.maximum(areas, 1e-12)
                if (np.any((overlap >= min_overlap) & (overlap <= max_overlap))
                        and np.any((sample_coverage >= min_sample_coverage)
                                   & (sample_coverage <= max_sample_coverage))
                        and np.any((object_coverage >= min_object_coverage)
                                   & (object_coverage <= max_object_coverage))):
                    candidates.append(crop)
                    break
        if not candidates:
            return image, objects
        crop = candidates[int(generator.integers(0, len(candidates)))]
        centres = (boxes[:, :2] + boxes[:, 2:]) / 2
        if a["crop_emit_mode"] == "center":
            keep = np.all((centres > crop[:2]) & (centres < crop[2:]), axis=1)
        else:
            keep = _box_iou(crop, boxes)[0] >= a["emit_overlap_thresh"]
        if not np.any(keep):
            return image, objects
        rows, columns = image.shape[:2]
        left, top = int(crop[0] * columns), int(crop[1] * rows)
        right, bottom = max(left + 1, int(crop[2] * columns)), max(top + 1, int(crop[3] * rows))
        objects = objects[keep]
        size = crop[2:] - crop[:2]
        objects[:, 1:5] = np.clip((objects[:, 1:5] - np.tile(crop[:2], 2)) / np.tile(size, 2), 0, 1)
        return image[top:bottom, left:right], objects

    def _random_pad(self, cv2, image, objects, generator):
        a = self.arguments
        scale = generator.uniform(1.0, a["max_pad_scale"])
        rows, columns = image.shape[:2]
        new_rows, new_columns = int(rows * scale), int(columns * scale)
        if new_rows <= rows or new_columns <= columns:
            return image, objects
        top = int(generator.integers(0, new_rows - rows + 1))
        left = int(generator.integers(0, new_columns - columns + 1))
        canvas = np.full((new_rows, new_columns, image.shape[2]), a["fill_value"], dtype=np.uint8)
        canvas[top:top + rows, left:left + columns] = image
        if objects is not None:
            objects[:, (1, 3)] = (objects[:, (1, 3)] * columns + left) / new_columns
            objects[:, (2, 4)] = (objects[:, (2, 4)] * rows + top) / new_rows
        return canvas, objects

    def _color(self, cv2, image, generator):
        a = self.arguments
        if image.shape[2] != 3:
            return image
        hue = lightness = saturation = 0
        if a["max_random_hue"] and generator.random() < a["random_hue_prob"]:
            hue = int(generator.integers(-a["max_random_hue"], a["max_random_hue"] + 1))
        if a["max_random_saturation"] and generator.random() < a["random_saturation_prob"]:
            saturation = int(generator.integers(-a["max_random_saturation"], a["max_random_saturation"] + 1))
        if a["max_random_illumination"] and generator.random() < a["random_illumination_prob"]:
            lightness = int(generator.integers(-a["max_random_illumination"], a["max_random_illumination"] + 1))
        if hue or lightness or saturation:
            image = _hls_shift(cv2, np.ascontiguousarray(image), hue, lightness, saturation)
        if a["max_random_contrast"] > 0 and generator.random() < a["random_contrast_prob"]:
            image = _color_jitter(cv2, np.ascontiguousarray(image), 0, a["max_random_contrast"], 0, generator)
        return image

    def _augment(self, cv2, image, labels, generator):
        a = self.arguments
        header, objects = self._objects(labels)
        if a["resize"] > 0:
            image = _resize_shorter_side(cv2, image, a["resize"], a["inter_method"], generator)
        if objects is not None and a["rand_crop_prob"] > 0 and generator.random() < a["rand_crop_prob"]:
            image, objects = self._random_crop(image, objects, generator)
        if a["rand_pad_prob"] > 0 and a["max_pad_scale"] > 1 and generator.random() < a["rand_pad_prob"]:
            image, objects = self._random_pad(cv2, image, objects, generator)
        if objects is not None and a["rand_mirror_prob"] > 0 and generator.random() < a["rand_mirror_prob"]:
            image = image[:, ::-1]
            old_xmin = 1.0 - objects[:, 1]
            objects[:, 1] = 1.0 - objects[:, 3]
            objects[:, 3] = old_xmin
        image = self._color(cv2, image, generator)
        height, width = self.data_shape[1], self.data_shape[2]
        rows, columns = image.shape[:2]
        mode = a["resize_mode"]
        if mode == "force":
            image = _resize(cv2, np.ascontiguousarray(image), width, height, a["inter_method"], generator)
        elif mode == "fit" or rows > height or columns > width:
            scale = min(height / rows, width / columns)
            image = _resize(cv2, np.ascontiguousarray(image), max(1, int(columns * scale)), max(1, int(rows * scale)),
                            a["inter_method"], generator)
        placed = np.zeros((height, width, image.shape[2]), dtype=np.uint8)
        placed[:image.shape[0], :image.shape[1]] = image
        if objects is not None:
            labels = np.concatenate([header, objects.ravel()]).astype(np.float32)
        row = np.full(self.label_shape, a["label_pad_value"], dtype=np.float32)
        row[:4] = (self.data_shape[0], image.shape[0], image.shape[1], labels.size)
        if labels.size > self.pad_width:
            raise MXNetError(f"{self.name}: a label of {labels.size} values does not fit label_pad_width "
                             f"{self.pad_width}")
        row[4:4 + labels.size] = labels
        return _to_chw(placed), row

    def _finish(self, image, generator):
        mean = self.mean_image if self.mean_image is not None else self.mean
        result = np.subtract(image, mean, dtype=np.float32)
        result *= np.float32(self.arguments["scale"])
        result /= self.std
        return result


def ImageDetRecordIter(**kwargs):
    """Batches of images and object labels for detection (MXNet's ``mx.io.ImageDetRecordIter``).

    Records hold a label array ``[header_width, object_width, extra
    header..., objects...]`` whose objects are ``[class, xmin, ymin, xmax,
    ymax, ...]`` relative to the image size.  Data: float32
    ``(batch_size,) + data_shape`` in RGB order, ``(pixel - mean) * scale /
    std`` (``std`` 0 = 1, as in MXNet).  Label: float32 ``(batch_size, 4 +
    label_pad_width)``, each row ``[channels, image height, image width,
    number of label values, the label values..., label_pad_value...]``;
    ``label_pad_width`` 0 = the widest label in the file.

    Image size: ``resize_mode`` 'force' (default) resizes to ``data_shape``;
    'fit' scales to fit inside keeping the aspect ratio; 'shrink' does so
    only for larger images; smaller results sit at the top-left, the rest
    is 0.  Random augmentation (own draws, see the module docstring):
    ``rand_crop_prob`` with the ``*_crop_*`` samplers (``crop_emit_mode``
    'center' keeps objects whose centre is in the crop, 'overlap' those
    overlapping by ``emit_overlap_thresh``), ``rand_pad_prob`` /
    ``max_pad_scale`` / ``fill_value``, ``rand_mirror_prob``, HLS hue /
    saturation / illumination shifts and contrast with their
    probabilities.  Other arguments as :func:`ImageRecordIter`.

    Raises MXNetError as :func:`ImageRecordIter`, and when
    ``label_pad_width`` is smaller than the widest label.
    """
    arguments = parse_iterator_arguments("ImageDetRecordIter", DetRecordArguments, kwargs)
    arguments.setdefault("seed_aug", None)
    iterator = MXDataIter(_DetectionSource(arguments), data_name=kwargs.get("data_name", "data"),
                          label_name=kwargs.get("label_name", "softmax_label"))
    iterator.num_parts = arguments.get("num_parts", 1)
    return iterator
