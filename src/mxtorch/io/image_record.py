"""Image iterators over RecordIO files: MXNet 1.9.1's C++ ``ImageRecordIter`` family.

``ImageRecordIter`` (float32 batches, normalised), ``ImageRecordUInt8Iter``
and ``ImageRecordInt8Iter`` (raw pixels), ``ImageDetRecordIter`` (object
detection labels) and the ``_v1`` aliases.  As in MXNet each is a factory
function returning an :class:`~mxtorch.io.iterators.MXDataIter`; arguments may be
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

import numpy as np

from ..base import MXNetError
from ..schema import collect
from .image_augment import _DefaultAugmenter, to_chw
from .image_det_record import ImageDetRecordIter
# the parameter declarations, importable from here as before the family split
from .image_record_arguments import DetRecordArguments, ImageRecordArguments, RawImageRecordArguments  # noqa: F401
from .iterators import MXDataIter
from .native import parse_iterator_arguments
from .record_source import _RecordImageSource

__all__ = ["ImageRecordIter", "ImageRecordUInt8Iter", "ImageRecordInt8Iter", "ImageDetRecordIter",
           "ImageRecordIter_v1", "ImageRecordUInt8Iter_v1"]


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
        return to_chw(image), labels.reshape(self.label_shape)

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

