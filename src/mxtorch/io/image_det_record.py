"""``ImageDetRecordIter``: MXNet 1.9.1's object-detection RecordIO iterator (see
:mod:`mxtorch.io.image_record` for what all the RecordIO image iterators share)."""
from __future__ import annotations

import logging
import math

import numpy as np

from ..base import MXNetError
from ..recordio import _IR_SIZE, _IR_STRUCT
from .image_augment import _color_jitter, _hls_shift, _resize, _resize_shorter_side, to_chw
from .image_record_arguments import DetRecordArguments
from .iterators import MXDataIter
from .native import parse_iterator_arguments
from .record_source import _RecordImageSource

_LOGGER = logging.getLogger(__name__)

__all__ = ["ImageDetRecordIter"]

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
            self.mean_image = self._load_or_create_mean_image(arguments["mean_img"])
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
        return to_chw(placed), row

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

