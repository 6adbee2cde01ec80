"""Detection augmenters (``DetAugmenter`` family, ``CreateDetAugmenter``) and
``ImageDetIter`` (MXNet's ``python/mxnet/image/detection.py``).  Labels are
``(objects, width >= 5)`` arrays of ``[class, xmin, ymin, xmax, ymax, ...]`` rows
in coordinates relative to the image size."""
from __future__ import annotations

import numbers
import random
import warnings

import numpy as np
import torch

from ..base import MXNetError, numeric_types  # noqa: F401  (a name of MXNet's module)
from ..util import is_np_array  # noqa: F401
from ..io.io import DataDesc
from ..ndarray.ndarray import NDArray
from .functions import (_LOGGER, _IMAGENET_MEAN, _IMAGENET_STD, _PCA_EIGENVALUES, _PCA_EIGENVECTORS,
                        _InvalidArgumentError, _InvalidTypeError, _cv2, copyMakeBorder, fixed_crop)
from .augmenters import RandomOrderAug  # noqa: F401  (a name of MXNet's module)
from .augmenters import (_KwargsDumps, Augmenter, ResizeAug, ForceResizeAug, HueJitterAug, ColorJitterAug,
                         LightingAug, ColorNormalizeAug, RandomGrayAug, CastAug)
from .iterators import ImageIter

__all__ = ["DetAugmenter", "DetBorrowAug", "DetRandomSelectAug", "DetHorizontalFlipAug", "DetRandomCropAug",
           "DetRandomPadAug", "CreateMultiRandCropAugmenter", "CreateDetAugmenter", "ImageDetIter"]


# ------------------------------------------------------------------------------------------------
# Detection augmenters and ImageDetIter
# ------------------------------------------------------------------------------------------------
class DetAugmenter(_KwargsDumps):
    """Base class of detection augmenters: ``aug(image, label) -> (image, label)``.

    ``label``: numpy array ``(objects, width)`` of rows ``[class, xmin, ymin,
    xmax, ymax, ...]`` with coordinates relative to the image (0 to 1).
    ``dumps()`` as :class:`Augmenter`.
    """

    def __call__(self, src, label):
        raise NotImplementedError("a DetAugmenter subclass implements __call__(src, label)")


class DetBorrowAug(DetAugmenter):
    """Applies an image-only :class:`Augmenter` to the image and leaves the label unchanged.

    Raises MXNetError (also a TypeError) when ``augmenter`` is not an Augmenter.
    """

    def __init__(self, augmenter):
        if not isinstance(augmenter, Augmenter):
            raise _InvalidTypeError(f"DetBorrowAug: expected an Augmenter, got {type(augmenter).__name__}")
        super().__init__(augmenter=augmenter.dumps())
        self.augmenter = augmenter

    def dumps(self):
        return [self.__class__.__name__.lower(), self.augmenter.dumps()]

    def __call__(self, src, label):
        return self.augmenter(src), label


class DetRandomSelectAug(DetAugmenter):
    """Applies one augmenter of ``aug_list`` chosen at random, or none with probability ``skip_prob``.

    Raises MXNetError (also a ValueError) when the list holds something other than DetAugmenters.
    """

    def __init__(self, aug_list, skip_prob=0):
        super().__init__(skip_prob=skip_prob)
        if not isinstance(aug_list, (list, tuple)):
            aug_list = [aug_list]
        for aug in aug_list:
            if not isinstance(aug, DetAugmenter):
                raise _InvalidArgumentError(f"DetRandomSelectAug: aug_list may hold DetAugmenters only, "
                                            f"got {type(aug).__name__}")
        if not aug_list:
            skip_prob = 1
        self.aug_list = aug_list
        self.skip_prob = skip_prob

    def dumps(self):
        return [self.__class__.__name__.lower(), [aug.dumps() for aug in self.aug_list]]

    def __call__(self, src, label):
        if random.random() < self.skip_prob:
            return src, label
        random.shuffle(self.aug_list)
        return self.aug_list[0](src, label)


class DetHorizontalFlipAug(DetAugmenter):
    """With probability ``p``, mirrors the image and the boxes (xmin, xmax -> 1 - xmax, 1 - xmin) in place."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src, label):
        if random.random() < self.p:
            src = NDArray(torch.flip(src._tensor, dims=[1]), src.context)
            self._flip_label(label)
        return src, label

    @staticmethod
    def _flip_label(label):
        old_xmin = 1.0 - label[:, 1]
        label[:, 1] = 1.0 - label[:, 3]
        label[:, 3] = old_xmin


def _as_range(value, name, owner):
    if isinstance(value, (tuple, list)):
        return value
    if not isinstance(value, numbers.Number):
        raise _InvalidArgumentError(f"{owner}: {name} must be a number or a (low, high) pair, got {value!r}")
    _LOGGER.info("Using fixed %s: %s in %s", name.replace("_range", "").replace("_", " "), value, owner)
    return (value, value)


def _box_areas(boxes):
    """Areas of ``[xmin, ymin, xmax, ymax]`` rows (0 for empty boxes)."""
    return np.maximum(0, boxes[:, 3] - boxes[:, 1]) * np.maximum(0, boxes[:, 2] - boxes[:, 0])


def _ranges_valid(augmenter, area_range, area_floor, area_label, aspect_ratio_range):
    """Whether a random crop / pad can run: ``area_range`` ordered with its upper end above
    ``area_floor``, ``aspect_ratio_range`` positive and ordered.  Otherwise warns as MXNet did
    (``Skip <augmenter> due to invalid <area_label>: ...``) and returns False."""
    if area_range[1] <= area_floor or area_range[0] > area_range[1]:
        warnings.warn(f"Skip {augmenter} due to invalid {area_label}: {area_range}")
        return False
    if aspect_ratio_range[0] <= 0 or aspect_ratio_range[0] > aspect_ratio_range[1]:
        warnings.warn(f"Skip {augmenter} due to invalid aspect_ratio_range: {aspect_ratio_range}")
        return False
    return True


class DetRandomCropAug(DetAugmenter):
    """A random crop that keeps objects covered (SSD-style sampling).

    Tries up to ``max_attempts`` crops whose aspect ratio is drawn from
    ``aspect_ratio_range`` and area fraction lies in ``area_range``; a crop
    is accepted when every object it intersects is covered by more than
    ``min_object_covered`` of its area.  Boxes are clipped to the crop and
    re-normalised; objects left with ``min_eject_coverage`` or less of their
    area are dropped.  Invalid ranges disable the augmenter (with a warning).
    """

    def __init__(self, min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0),
                 min_eject_coverage=0.3, max_attempts=50):
        aspect_ratio_range = _as_range(aspect_ratio_range, "aspect_ratio_range", "DetRandomCropAug")
        area_range = _as_range(area_range, "area_range", "DetRandomCropAug")
        super().__init__(min_object_covered=min_object_covered, aspect_ratio_range=aspect_ratio_range,
                         area_range=area_range, min_eject_coverage=min_eject_coverage, max_attempts=max_attempts)
        self.min_object_covered = min_object_covered
        self.min_eject_coverage = min_eject_coverage
        self.max_attempts = max_attempts
        self.aspect_ratio_range = aspect_ratio_range
        self.area_range = area_range
        self.enabled = _ranges_valid("DetRandomCropAug", area_range, 0, "area_range", aspect_ratio_range)

    def __call__(self, src, label):
        crop = self._random_crop_proposal(label, src.shape[0], src.shape[1])
        if crop:
            x, y, width, height, label = crop
            src = fixed_crop(src, x, y, width, height, None)
        return src, label

    @staticmethod
    def _calculate_areas(label):
        return _box_areas(label)

    @staticmethod
    def _intersect(label, xmin, ymin, xmax, ymax):
        left = np.maximum(label[:, 0], xmin)
        right = np.minimum(label[:, 2], xmax)
        top = np.maximum(label[:, 1], ymin)
        bottom = np.minimum(label[:, 3], ymax)
        empty = np.where(np.logical_or(left >= right, top >= bottom))[0]
        out = label.copy()
        out[:, 0], out[:, 1], out[:, 2], out[:, 3] = left, top, right, bottom
        out[empty, :] = 0
        return out

    def _check_satisfy_constraints(self, label, xmin, ymin, xmax, ymax, width, height):
        if (xmax - xmin) * (ymax - ymin) < 2:
            return False
        x1, y1 = float(xmin) / width, float(ymin) / height
        x2, y2 = float(xmax) / width, float(ymax) / height
        object_areas = _box_areas(label[:, 1:])
        valid_objects = np.where(object_areas * width * height > 2)[0]
        if valid_objects.size < 1:
            return False
        intersections = self._intersect(label[valid_objects, 1:], x1, y1, x2, y2)
        coverages = _box_areas(intersections) / object_areas[valid_objects]
        coverages = coverages[np.where(coverages > 0)[0]]
        return coverages.size > 0 and np.amin(coverages) > self.min_object_covered

    def _update_labels(self, label, crop_box, height, width):
        xmin, ymin = float(crop_box[0]) / width, float(crop_box[1]) / height
        crop_width, crop_height = float(crop_box[2]) / width, float(crop_box[3]) / height
        out = label.copy()
        out[:, (1, 3)] -= xmin
        out[:, (2, 4)] -= ymin
        out[:, (1, 3)] /= crop_width
        out[:, (2, 4)] /= crop_height
        out[:, 1:5] = np.minimum(1, np.maximum(0, out[:, 1:5]))
        coverage = _box_areas(out[:, 1:]) * crop_width * crop_height / _box_areas(label[:, 1:])
        valid = np.logical_and(out[:, 3] > out[:, 1], out[:, 4] > out[:, 2])
        valid = np.where(np.logical_and(valid, coverage > self.min_eject_coverage))[0]
        if valid.size < 1:
            return None
        return out[valid, :]

    def _random_crop_proposal(self, label, height, width):
        for ratio, min_area, max_area in _proposal_draws(self, height, width):
            crop_height = int(round(np.sqrt(min_area / ratio)))
            max_height = int(round(np.sqrt(max_area / ratio)))
            if round(max_height * ratio) > width:
                max_height = int((width + 0.4999999) / ratio)  # the largest height whose width fits
            max_height = min(max_height, height)
            crop_height = min(crop_height, max_height)
            if crop_height < max_height:
                crop_height = random.randint(crop_height, max_height)
            crop_width = int(round(crop_height * ratio))
            area = crop_width * crop_height
            if area < min_area:
                crop_height += 1
                crop_width = int(round(crop_height * ratio))
                area = crop_width * crop_height
            if area > max_area:
                crop_height -= 1
                crop_width = int(round(crop_height * ratio))
                area = crop_width * crop_height
            if not (min_area <= area <= max_area and 0 <= crop_width <= width and 0 <= crop_height <= height):
                continue
            y = random.randint(0, max(0, height - crop_height))
            x = random.randint(0, max(0, width - crop_width))
            if self._check_satisfy_constraints(label, x, y, x + crop_width, y + crop_height, width, height):
                new_label = self._update_labels(label, (x, y, crop_width, crop_height), height, width)
                if new_label is not None:
                    return x, y, crop_width, crop_height, new_label
        return ()


def _proposal_draws(aug, height, width):
    """The draws of a crop or pad proposal: ``(ratio, min_area, max_area)`` for each of
    ``aug.max_attempts`` attempts whose aspect ratio drawn from ``aug.aspect_ratio_range`` is
    positive, the areas being ``aug.area_range`` times the image's; none when ``aug`` is
    disabled or the image is empty."""
    if not aug.enabled or height <= 0 or width <= 0:
        return
    min_area = aug.area_range[0] * height * width
    max_area = aug.area_range[1] * height * width
    for _ in range(aug.max_attempts):
        ratio = random.uniform(*aug.aspect_ratio_range)
        if ratio <= 0:
            continue
        yield ratio, min_area, max_area


class DetRandomPadAug(DetAugmenter):
    """Places the image at a random position on a larger canvas filled with ``pad_val`` (zoom out).

    The canvas aspect ratio is drawn from ``aspect_ratio_range`` and its
    area is ``area_range`` (> 1) times the image's; boxes are re-normalised
    to the canvas.  Invalid ranges disable the augmenter (with a warning).
    """

    def __init__(self, aspect_ratio_range=(0.75, 1.33), area_range=(1.0, 3.0), max_attempts=50,
                 pad_val=(128, 128, 128)):
        if not isinstance(pad_val, (list, tuple)) and not isinstance(pad_val, numbers.Number):
            raise _InvalidArgumentError(f"DetRandomPadAug: pad_val must be a number or a sequence, got {pad_val!r}")
        aspect_ratio_range = _as_range(aspect_ratio_range, "aspect_ratio_range", "DetRandomPadAug")
        area_range = _as_range(area_range, "area_range", "DetRandomPadAug")
        super().__init__(aspect_ratio_range=aspect_ratio_range, area_range=area_range, max_attempts=max_attempts,
                         pad_val=pad_val)
        self.pad_val = pad_val
        self.aspect_ratio_range = aspect_ratio_range
        self.area_range = area_range
        self.max_attempts = max_attempts
        self.enabled = _ranges_valid("DetRandomPadAug", area_range, 1.0, "parameters", aspect_ratio_range)

    def __call__(self, src, label):
        height, width = src.shape[0], src.shape[1]
        pad = self._random_pad_proposal(label, height, width)
        if pad:
            x, y, canvas_width, canvas_height, label = pad
            values = self.pad_val if isinstance(self.pad_val, (list, tuple)) else (self.pad_val,)
            src = copyMakeBorder(src, y, canvas_height - y - height, x, canvas_width - x - width, 16, values=values)
        return src, label

    @staticmethod
    def _update_labels(label, pad_box, height, width):
        out = label.copy()
        out[:, (1, 3)] = (out[:, (1, 3)] * width + pad_box[0]) / pad_box[2]
        out[:, (2, 4)] = (out[:, (2, 4)] * height + pad_box[1]) / pad_box[3]
        return out

    def _random_pad_proposal(self, label, height, width):
        for ratio, min_area, max_area in _proposal_draws(self, height, width):
            canvas_height = int(round(np.sqrt(min_area / ratio)))
            max_height = int(round(np.sqrt(max_area / ratio)))
            if round(canvas_height * ratio) < width:
                canvas_height = int((width + 0.499999) / ratio)
            canvas_height = max(canvas_height, height)
            canvas_height = min(canvas_height, max_height)
            if canvas_height < max_height:
                canvas_height = random.randint(canvas_height, max_height)
            canvas_width = int(round(canvas_height * ratio))
            if canvas_height - height < 2 or canvas_width - width < 2:
                continue
            y = random.randint(0, max(0, canvas_height - height))
            x = random.randint(0, max(0, canvas_width - width))
            return x, y, canvas_width, canvas_height, self._update_labels(label, (x, y, canvas_width, canvas_height),
                                                                          height, width)
        return ()


def CreateMultiRandCropAugmenter(min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0),
                                 min_eject_coverage=0.3, max_attempts=50, skip_prob=0):
    """A :class:`DetRandomSelectAug` over several :class:`DetRandomCropAug` samplers.

    Each argument may be a list (one value per sampler); single values are
    repeated to the longest list's length.  Raises MXNetError (also a
    ValueError) for lists of different lengths.
    """
    parameters = [min_object_covered, aspect_ratio_range, area_range, min_eject_coverage, max_attempts]
    parameters = [value if isinstance(value, list) else [value] for value in parameters]
    count = max(len(value) for value in parameters)
    for position, value in enumerate(parameters):
        if len(value) != count:
            if len(value) != 1:
                raise _InvalidArgumentError(f"CreateMultiRandCropAugmenter: parameter lists must have one value "
                                            f"or {count} values, got {value!r}")
            parameters[position] = value * count
    augmenters = [DetRandomCropAug(min_object_covered=covered, aspect_ratio_range=ratio, area_range=area,
                                   min_eject_coverage=eject, max_attempts=attempts)
                  for covered, ratio, area, eject, attempts in zip(*parameters)]
    return DetRandomSelectAug(augmenters, skip_prob=skip_prob)


def CreateDetAugmenter(data_shape, resize=0, rand_crop=0, rand_pad=0, rand_gray=0, rand_mirror=False, mean=None,
                       std=None, brightness=0, contrast=0, saturation=0, pca_noise=0, hue=0, inter_method=2,
                       min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 3.0),
                       min_eject_coverage=0.3, max_attempts=50, pad_val=(127, 127, 127)):
    """The list of detection augmenters MXNet's ``CreateDetAugmenter`` builds.

    In order: resize the shorter side (``resize`` > 0); random crops with
    probability ``rand_crop``; mirror (``rand_mirror``); random padding with
    probability ``rand_pad`` (area up to ``area_range[1]``); force-resize to
    ``data_shape`` (C, H, W); cast to float32; colour jitter, hue, PCA
    lighting, random gray; ``ColorNormalizeAug`` for ``mean`` / ``std``
    (True = ImageNet RGB statistics, or a numpy array of 1 or 3 values).
    """
    augmenters = []
    if resize > 0:
        augmenters.append(DetBorrowAug(ResizeAug(resize, inter_method)))
    if rand_crop > 0:
        augmenters.append(CreateMultiRandCropAugmenter(min_object_covered, aspect_ratio_range, area_range,
                                                       min_eject_coverage, max_attempts, skip_prob=1 - rand_crop))
    if rand_mirror > 0:
        augmenters.append(DetHorizontalFlipAug(0.5))
    if rand_pad > 0:
        pad = DetRandomPadAug(aspect_ratio_range, (1.0, area_range[1]), max_attempts, pad_val)
        augmenters.append(DetRandomSelectAug([pad], 1 - rand_pad))
    augmenters.append(DetBorrowAug(ForceResizeAug((data_shape[2], data_shape[1]), inter_method)))
    augmenters.append(DetBorrowAug(CastAug()))
    if brightness or contrast or saturation:
        augmenters.append(DetBorrowAug(ColorJitterAug(brightness, contrast, saturation)))
    if hue:
        augmenters.append(DetBorrowAug(HueJitterAug(hue)))
    if pca_noise > 0:
        augmenters.append(DetBorrowAug(LightingAug(pca_noise, _PCA_EIGENVALUES, _PCA_EIGENVECTORS)))
    if rand_gray > 0:
        augmenters.append(DetBorrowAug(RandomGrayAug(rand_gray)))
    mean = np.array(_IMAGENET_MEAN) if mean is True else mean
    std = np.array(_IMAGENET_STD) if std is True else std
    for value, name in ((mean, "mean"), (std, "std")):
        if value is not None and not (isinstance(value, np.ndarray) and value.shape[0] in (1, 3)):
            raise _InvalidArgumentError(f"CreateDetAugmenter: {name} must be True, None or a numpy array of 1 or "
                                        f"3 values, got {value!r}")
    if mean is not None or std is not None:
        augmenters.append(DetBorrowAug(ColorNormalizeAug(mean, std)))
    return augmenters


class ImageDetIter(ImageIter):
    """Batches of images and object boxes for detection (MXNet's ``mx.image.ImageDetIter``).

    Sources and batching as :class:`ImageIter`.  A raw label is a flat
    array ``[header_width, object_width, extra header..., objects...]``
    with ``object_width`` (>= 5) values per object ``[class, xmin, ymin,
    xmax, ymax, ...]`` relative to the image size.  Augmentation uses
    ``aug_list`` (default ``CreateDetAugmenter(data_shape, **kwargs)``).
    Label batches are float32 ``(batch_size, max objects, object_width)``,
    padded with -1; the maximum number of objects is found by reading the
    labels of the whole data set once.  ``reshape`` / ``sync_label_shape``
    change the label shape (e.g. to agree between training and validation
    iterators).  Images whose labels hold no valid box are skipped.
    """

    def __init__(self, batch_size, data_shape, path_imgrec=None, path_imglist=None, path_root=None,
                 path_imgidx=None, shuffle=False, part_index=0, num_parts=1, aug_list=None, imglist=None,
                 data_name="data", label_name="label", last_batch_handle="pad", **kwargs):
        super().__init__(batch_size=batch_size, data_shape=data_shape, path_imgrec=path_imgrec,
                         path_imglist=path_imglist, path_root=path_root, path_imgidx=path_imgidx, shuffle=shuffle,
                         part_index=part_index, num_parts=num_parts, aug_list=[], imglist=imglist,
                         data_name=data_name, label_name=label_name, last_batch_handle=last_batch_handle)
        self.auglist = CreateDetAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        label_shape = self._estimate_label_shape()
        self.provide_label = [DataDesc(label_name, (self.batch_size, label_shape[0], label_shape[1]))]
        self.label_shape = label_shape

    def _check_valid_label(self, label):
        if len(label.shape) != 2 or label.shape[1] < 5:
            raise RuntimeError(f"Label with shape (1+, 5+) required, {label} received.")
        valid = np.where(np.logical_and(label[:, 0] >= 0, label[:, 3] > label[:, 1]))[0]
        if valid.size < 1:
            raise RuntimeError("Invalid label occurs.")

    def _estimate_label_shape(self):
        max_count, width = 0, None
        self.reset()
        try:
            while True:
                label, _ = self.next_sample()
                label = self._parse_label(label)
                max_count = max(max_count, label.shape[0])
                width = label.shape[1]
        except StopIteration:
            pass
        self.reset()
        if width is None:
            raise MXNetError(f"{type(self).__name__}: the data set holds no image with a valid label")
        return max_count, width

    def _parse_label(self, label):
        """The valid object rows ``(objects, object_width)`` of a raw label; RuntimeError when malformed."""
        if isinstance(label, NDArray):
            label = label.asnumpy()
        raw = np.asarray(label).ravel()
        if raw.size < 7:
            raise RuntimeError(f"Label shape is invalid: {raw.shape}")
        header_width, object_width = int(raw[0]), int(raw[1])
        if object_width < 1 or header_width < 2 or (raw.size - header_width) % object_width != 0:
            raise RuntimeError(f"Label shape {raw.shape} inconsistent with annotation width {object_width}.")
        out = np.reshape(raw[header_width:], (-1, object_width))
        valid = np.where(np.logical_and(out[:, 3] > out[:, 1], out[:, 4] > out[:, 2]))[0]
        if valid.size < 1:
            raise RuntimeError("Encounter sample with no valid label.")
        return out[valid, :]

    def reshape(self, data_shape=None, label_shape=None):
        """Change the data shape (C, H, W) and/or the label shape (max objects, object width)."""
        if data_shape is not None:
            self.check_data_shape(data_shape)
            self.provide_data = [DataDesc(self.provide_data[0][0], (self.batch_size,) + tuple(data_shape))]
            self.data_shape = tuple(data_shape)
        if label_shape is not None:
            self.check_label_shape(label_shape)
            self.provide_label = [DataDesc(self.provide_label[0][0], (self.batch_size,) + tuple(label_shape))]
            self.label_shape = tuple(label_shape)

    def _prepare_label(self, batch_label):
        batch_label[:] = -1

    def _prepare_sample(self, label, encoded):
        """``(augmented image, object rows)`` of one record, or None when the image or its label
        is invalid (before or after augmentation; logged at debug level and skipped)."""
        data = self.imdecode(encoded)
        try:
            self.check_valid_image([data])
            label = self._parse_label(label)
            data, label = self.augmentation_transform(data, label)
            self._check_valid_label(label)
        except RuntimeError as error:
            _LOGGER.debug("Invalid image, skipping: %s", error)
            return None
        return data, label

    def _store_label(self, batch_label, position, label):
        """Write one image's object rows into row ``position`` of the label batch, padded with
        -1; MXNetError when they do not fit the batch's label shape."""
        count = label.shape[0]
        if count > batch_label.shape[1] or label.shape[1] != batch_label.shape[2]:
            raise MXNetError(f"{type(self).__name__}: an image has {count} objects of width "
                             f"{label.shape[1]} but the label batch holds {batch_label.shape[1]} "
                             f"objects of width {batch_label.shape[2]}; reshape(label_shape=...)")
        rows = np.full(batch_label.shape[1:], -1, dtype=np.float32)
        rows[:count] = label
        batch_label[position] = rows

    def check_valid_image(self, data):
        if len(data[0].shape) == 0 or 0 in data[0].shape:
            raise RuntimeError("Data shape is wrong")

    def augmentation_transform(self, data, label):  # pylint: disable=arguments-differ
        """Apply ``auglist`` to one image and its label."""
        for aug in self.auglist:
            data, label = aug(data, label)
        return data, label

    def check_label_shape(self, label_shape):
        """Raise MXNetError (also a ValueError) unless ``label_shape`` keeps at least as many objects and the width."""
        if len(label_shape) != 2:
            raise _InvalidArgumentError(f"ImageDetIter: label_shape must be (objects, object_width), "
                                        f"got {label_shape!r}")
        if label_shape[0] < self.label_shape[0]:
            raise _InvalidArgumentError(f"ImageDetIter: attempts to reduce the label count from "
                                        f"{self.label_shape[0]} to {label_shape[0]}, not allowed")
        if label_shape[1] != self.provide_label[0][1][2]:
            raise _InvalidArgumentError(f"ImageDetIter: label_shape object width inconsistent: "
                                        f"{self.provide_label[0][1][2]} vs {label_shape[1]}")

    def draw_next(self, color=None, thickness=2, mean=None, std=None, clip=True, waitKey=None,
                  window_name="draw_next", id2labels=None):
        """Yield augmented images (BGR uint8 numpy arrays) with their boxes drawn, for inspection.

        ``mean`` / ``std`` (True = ImageNet statistics) undo a normalisation;
        ``waitKey`` shows each image in an OpenCV window for that many ms;
        ``id2labels`` maps class ids to names written on the boxes.
        """
        cv2 = _cv2("ImageDetIter.draw_next")
        count = 0
        try:
            while True:
                label, encoded = self.next_sample()
                data = self.imdecode(encoded)
                try:
                    self.check_valid_image([data])
                    label = self._parse_label(label)
                except RuntimeError as error:
                    _LOGGER.debug("Invalid image, skipping: %s", error)
                    continue
                count += 1
                data, label = self.augmentation_transform(data, label)
                image = data.asnumpy().astype(np.float64)
                std_values = np.array(_IMAGENET_STD) if std is True else std
                mean_values = np.array(_IMAGENET_MEAN) if mean is True else mean
                if std_values is not None:
                    image *= std_values
                if mean_values is not None:
                    image += mean_values
                image = image[:, :, ::-1].copy()
                if clip:
                    image = np.clip(image, 0, 255)
                box_color = color[::-1] if color else None
                image = image.astype(np.uint8)
                height, width = image.shape[:2]
                for row in label:
                    x1 = int(row[1] * width)
                    if x1 < 0:
                        continue
                    y1, x2, y2 = int(row[2] * height), int(row[3] * width), int(row[4] * height)
                    drawn = box_color if box_color else tuple(float(v) for v in np.random.rand(3) * 255)
                    cv2.rectangle(image, (x1, y1), (x2, y2), drawn, thickness)
                    if id2labels is not None and int(row[0]) in id2labels:
                        text = f"{id2labels[int(row[0])]}"
                        font = cv2.FONT_HERSHEY_SIMPLEX
                        text_height = cv2.getTextSize(text, font, 0.5, 2)[0][1]
                        cv2.putText(image, text, (x1 + 5, y1 + text_height + 5), font, 0.5, (255, 255, 255), 2)
                if waitKey is not None:
                    cv2.imshow(window_name, image)
                    cv2.waitKey(waitKey)
                yield image
        except StopIteration:
            if not count:
                return

    def sync_label_shape(self, it, verbose=False):
        """Give this iterator and ``it`` (another ImageDetIter) the same, larger, object count; returns ``it``."""
        if not isinstance(it, ImageDetIter):
            raise _InvalidTypeError(f"ImageDetIter.sync_label_shape: expected an ImageDetIter, "
                                    f"got {type(it).__name__}")
        own_shape, other_shape = self.label_shape, it.label_shape
        if own_shape[1] != other_shape[1]:
            raise _InvalidArgumentError(f"ImageDetIter.sync_label_shape: object widths differ: "
                                        f"{own_shape[1]} vs {other_shape[1]}")
        max_count = max(own_shape[0], other_shape[0])
        if max_count > own_shape[0]:
            self.reshape(None, (max_count, own_shape[1]))
        if max_count > other_shape[0]:
            it.reshape(None, (max_count, other_shape[1]))
        if verbose and max_count > min(own_shape[0], other_shape[0]):
            _LOGGER.info("Resized label_shape to (%d, %d).", max_count, own_shape[1])
        return it


