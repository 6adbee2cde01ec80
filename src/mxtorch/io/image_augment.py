"""Decoding-side pixel work of the RecordIO image iterators: OpenCV resizing, colour jitter,
PCA noise, HLS shifts and MXNet's classification augmenter ("aug_default"), on numpy HWC images
in OpenCV's BGR order; ``to_chw`` makes the CHW RGB(A) arrays the batches hold."""
from __future__ import annotations

import math

import numpy as np

from ..base import MXNetError
from ..util import import_opencv

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



def to_chw(image):
    """HWC BGR(A) / gray uint8 -> CHW RGB(A) / gray."""
    if image.shape[2] >= 3:
        order = [2, 1, 0] + list(range(3, image.shape[2]))
        image = image[:, :, order]
    return np.ascontiguousarray(image.transpose(2, 0, 1))


