"""``mx.image`` (also ``mx.img``): image decoding, resizing, cropping, augmenters and image iterators.

MXNet 1.9.1's Python image module.  Images are NDArrays of shape
``(height, width, channels)`` (HWC): uint8 as decoded, float32 after
``CastAug``; colour images are in **RGB** order (``imdecode(..., to_rgb=0)``
gives OpenCV's BGR).  Decoding, resizing and border padding use OpenCV (the
``opencv-python-headless`` package), as MXNet's C++ operators did, so pixel
values match MXNet's.

Random choices use Python's ``random`` module (crops, flips, jitters,
shuffling) and ``numpy.random`` (lighting noise, ``random_rotate``) in the
same order as MXNet's code, so a program that seeds both gets the same
crops and flips as under MXNet.

Interpolation codes (``interp``, ``inter_method``): 0 nearest, 1 bilinear,
2 bicubic, 3 area, 4 Lanczos, 9 automatic (bicubic when enlarging, area
when shrinking, bilinear otherwise), 10 a random one of 0-4.

Detection (``DetAugmenter`` classes, ``CreateDetAugmenter``,
``ImageDetIter``) works on labels of shape ``(objects, width >= 5)`` whose
rows are ``[class, xmin, ymin, xmax, ymax, ...]`` in coordinates relative to
the image size (0 to 1).
"""
from __future__ import annotations

import json
import logging
import numbers
import os
import random
import warnings

import numpy as np
import torch

from . import ndarray as _ndarray_package
from . import recordio
from .base import MXNetError
from .util import decode_image, import_opencv
from .io.io import DataBatch, DataDesc, DataIter
from .ndarray.ndarray import NDArray, array as _nd_array, zeros as _nd_zeros, empty as _nd_empty

__all__ = ["imread", "imresize", "imdecode", "scale_down", "copyMakeBorder", "resize_short", "fixed_crop",
           "random_crop", "center_crop", "color_normalize", "random_size_crop", "imrotate", "random_rotate",
           "Augmenter", "SequentialAug", "ResizeAug", "ForceResizeAug", "RandomCropAug", "RandomSizedCropAug",
           "CenterCropAug", "RandomOrderAug", "BrightnessJitterAug", "ContrastJitterAug", "SaturationJitterAug",
           "HueJitterAug", "ColorJitterAug", "LightingAug", "ColorNormalizeAug", "RandomGrayAug",
           "HorizontalFlipAug", "CastAug", "CreateAugmenter", "ImageIter",
           "DetAugmenter", "DetBorrowAug", "DetRandomSelectAug", "DetHorizontalFlipAug", "DetRandomCropAug",
           "DetRandomPadAug", "CreateMultiRandCropAugmenter", "CreateDetAugmenter", "ImageDetIter"]

_LOGGER = logging.getLogger(__name__)

# ImageNet statistics used by CreateAugmenter(mean=True / std=True, pca_noise > 0), in RGB order
_IMAGENET_MEAN = (123.68, 116.28, 103.53)
_IMAGENET_STD = (58.395, 57.12, 57.375)
_PCA_EIGENVALUES = np.array([55.46, 4.794, 1.148])
_PCA_EIGENVECTORS = np.array([[-0.5675, 0.7192, 0.4009],
                              [-0.5808, -0.0045, -0.8140],
                              [-0.5836, -0.6948, 0.4203]])
_LUMA_WEIGHTS = (0.299, 0.587, 0.114)


class _InvalidArgumentError(MXNetError, ValueError):
    """A bad argument value (also a ValueError, as MXNet raised for these)."""


class _InvalidTypeError(MXNetError, TypeError):
    """An argument of the wrong type (also a TypeError, as MXNet raised for these)."""


def _cv2(function):
    return import_opencv(f"image.{function}")


# ------------------------------------------------------------------------------------------------
# NDArray <-> numpy helpers
# ------------------------------------------------------------------------------------------------
def _numpy_image(src, function):
    """``src`` (NDArray or numpy array, HWC or HW) as a numpy array."""
    if isinstance(src, NDArray):
        return src.asnumpy()
    if isinstance(src, np.ndarray):
        return src
    raise _InvalidTypeError(f"image.{function}: expected an NDArray image (height, width, channels), "
                            f"got {type(src).__name__}")


def _to_ndarray(image, like=None, out=None):
    """Wrap a numpy HWC image as an NDArray on ``like``'s context (cpu when None); fills ``out`` if given."""
    if image.ndim == 2:
        image = image[:, :, None]
    tensor = torch.from_numpy(np.ascontiguousarray(image))
    if out is not None:
        out[:] = NDArray(tensor)
        return out
    context = like.context if isinstance(like, NDArray) else None
    if context is not None:
        return NDArray(tensor.to(context.torch_device), context)
    return NDArray(tensor)


def _opencv_call(function, call, *args, **kwargs):
    cv2 = _cv2(function)
    try:
        return call(cv2, *args, **kwargs)
    except cv2.error as error:
        message = str(error).strip().splitlines()[-1]
        raise MXNetError(f"image.{function}: OpenCV failed: {message}") from None


# ------------------------------------------------------------------------------------------------
# Decoding and basic transforms
# ------------------------------------------------------------------------------------------------
def imdecode(buf, flag=1, to_rgb=1, out=None):
    """Decode a JPEG / PNG / ... image held in memory (MXNet's ``mx.image.imdecode``).

    ``buf``: bytes, bytearray, uint8 numpy array or uint8 NDArray of the
    encoded file.  ``flag``: 1 colour (3 channels), 0 grayscale (1 channel).
    ``to_rgb``: 1 (default) RGB channel order, 0 OpenCV's BGR.  ``out``: an
    NDArray to write the result into.  Returns a uint8 NDArray
    ``(height, width, 3)`` or ``(height, width, 1)`` on cpu.

    Raises MXNetError (also a ValueError) for a ``str`` or other non-bytes
    ``buf`` or a ``flag`` other than 0 / 1, and MXNetError when the bytes
    are not an image OpenCV can decode.
    """
    if isinstance(buf, NDArray):
        encoded = buf.asnumpy().astype(np.uint8, copy=False).ravel()
    elif isinstance(buf, (bytes, bytearray, memoryview)):
        encoded = np.frombuffer(buf, dtype=np.uint8)
    elif isinstance(buf, np.ndarray):
        encoded = np.frombuffer(buf.tobytes(), dtype=np.uint8)
    else:
        raise _InvalidArgumentError(f"image.imdecode: buf must be bytes, bytearray, a numpy array or an NDArray "
                                    f"of the encoded image, got {type(buf).__name__} (encode a str to bytes)")
    if flag not in (0, 1):
        raise _InvalidArgumentError(f"image.imdecode: flag must be 1 (colour) or 0 (grayscale), got {flag!r}")
    cv2 = _cv2("imdecode")
    image = decode_image(cv2, encoded, cv2.IMREAD_COLOR if flag else cv2.IMREAD_GRAYSCALE)
    if image is None:
        raise MXNetError(f"image.imdecode: decoding failed: the {encoded.size} bytes are not an image "
                         f"OpenCV can decode")
    if flag and to_rgb:
        image = image[:, :, ::-1]
    return _to_ndarray(image, out=out)


def imread(filename, flag=1, to_rgb=1, out=None):
    """Read and decode an image file (MXNet's ``mx.image.imread``); arguments and result as :func:`imdecode`.

    Raises MXNetError when the file cannot be read or decoded.
    """
    try:
        with open(filename, "rb") as stream:
            content = stream.read()
    except OSError as error:
        raise MXNetError(f"image.imread: cannot read image file {filename!r}: {error}") from None
    try:
        return imdecode(content, flag=flag, to_rgb=to_rgb, out=out)
    except MXNetError as error:
        raise MXNetError(f"image.imread: {filename!r}: {error}") from None


def imresize(src, w, h, interp=1, out=None):
    """Resize ``src`` (HWC NDArray, uint8 or float32) to width ``w`` and height ``h`` with OpenCV.

    ``interp``: OpenCV interpolation code (0 nearest, 1 bilinear (default),
    2 bicubic, 3 area, 4 Lanczos).  Returns an NDArray ``(h, w, channels)``
    of ``src``'s dtype.  Raises MXNetError for non-positive sizes or when
    OpenCV rejects the input.
    """
    image = _numpy_image(src, "imresize")
    if int(w) <= 0 or int(h) <= 0:
        raise _InvalidArgumentError(f"image.imresize: the target size must be positive, got w={w}, h={h}")
    resized = _opencv_call("imresize", lambda cv2: cv2.resize(image, (int(w), int(h)), interpolation=int(interp)))
    return _to_ndarray(resized, like=src, out=out)


def copyMakeBorder(src, top, bot, left, right, type=0, value=0.0, values=(), out=None):  # noqa: A002 (MXNet name)
    """Pad ``src`` (HWC NDArray) by ``top`` / ``bot`` / ``left`` / ``right`` pixels with OpenCV's copyMakeBorder.

    ``type``: OpenCV border type (0 constant, 1 reflect, 2 reflect-101,
    3 replicate, 4 wrap); ``values``: the constant fill per channel (RGB[A]
    or gray), ``value``: one fill for every channel when ``values`` is
    empty.  Returns an NDArray ``(height + top + bot, width + left + right,
    channels)``.
    """
    image = _numpy_image(src, "copyMakeBorder")
    fill = tuple(float(v) for v in values) if len(values) else (float(value),) * 4
    fill = fill + (fill[-1],) * (4 - len(fill)) if len(fill) < 4 else fill[:4]
    padded = _opencv_call("copyMakeBorder", lambda cv2: cv2.copyMakeBorder(
        image, int(top), int(bot), int(left), int(right), int(type), value=fill))
    return _to_ndarray(padded, like=src, out=out)


def scale_down(src_size, size):
    """Shrink a crop ``size`` (width, height) to fit ``src_size`` (width, height), keeping its aspect ratio.

    Returns ``(width, height)`` as ints, e.g. ``scale_down((640, 480), (720, 120)) == (640, 106)``.
    """
    width, height = size
    source_width, source_height = src_size
    if source_height < height:
        width, height = float(width * source_height) / height, source_height
    if source_width < width:
        width, height = source_width, float(height * source_width) / width
    return int(width), int(height)


def _get_interp_method(interp, sizes=()):
    """The OpenCV interpolation code (0-4) for ``interp``; 9 and 10 are resolved as MXNet did.

    ``sizes``: ``(old_height, old_width, new_height, new_width)`` for the
    automatic choice 9 (bicubic when enlarging both sides, area when
    shrinking both, else bilinear; bicubic without sizes).  10 draws one of
    0-4 with ``random.randint``.  Raises MXNetError (also a ValueError) for
    other codes.
    """
    if interp == 9:
        if sizes:
            if len(sizes) != 4:
                raise _InvalidArgumentError(f"image: sizes must be (old_height, old_width, new_height, new_width), "
                                            f"got {sizes!r}")
            old_height, old_width, new_height, new_width = sizes
            if new_height > old_height and new_width > old_width:
                return 2
            if new_height < old_height and new_width < old_width:
                return 3
            return 1
        return 2
    if interp == 10:
        return random.randint(0, 4)
    if interp not in (0, 1, 2, 3, 4):
        raise _InvalidArgumentError(f"image: unknown interpolation method {interp!r}; expected 0-4, 9 or 10")
    return interp


def resize_short(src, size, interp=2):
    """Resize ``src`` (HWC) so that its shorter side is ``size``, keeping the aspect ratio.

    The longer side becomes ``size * long // short`` (integer division, as
    MXNet).  ``interp`` as in :func:`_get_interp_method`.  Returns an NDArray.
    """
    height, width = src.shape[0], src.shape[1]
    if height > width:
        new_height, new_width = size * height // width, size
    else:
        new_height, new_width = size, size * width // height
    return imresize(src, new_width, new_height,
                    interp=_get_interp_method(interp, (height, width, new_height, new_width)))


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """The ``w`` x ``h`` region of ``src`` with top-left corner ``(x0, y0)``, resized to ``size`` (w, h) if given."""
    out = src[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != tuple(size):
        sizes = (h, w, size[1], size[0])
        out = imresize(out, *size, interp=_get_interp_method(interp, sizes))
    return out


def random_crop(src, size, interp=2):
    """A crop of ``size`` (width, height) at a random position (``random.randint``), scaled down to fit ``src``.

    When ``src`` is smaller than ``size`` the largest crop with the aspect
    ratio of ``size`` is taken and resized up to ``size``.  Returns
    ``(image, (x0, y0, width, height))`` of the region taken from ``src``.
    """
    height, width = src.shape[0], src.shape[1]
    new_width, new_height = scale_down((width, height), size)
    x0 = random.randint(0, width - new_width)
    y0 = random.randint(0, height - new_height)
    return fixed_crop(src, x0, y0, new_width, new_height, size, interp), (x0, y0, new_width, new_height)


def center_crop(src, size, interp=2):
    """A crop of ``size`` (width, height) at the centre of ``src``; as :func:`random_crop` otherwise.

    Returns ``(image, (x0, y0, width, height))``.
    """
    height, width = src.shape[0], src.shape[1]
    new_width, new_height = scale_down((width, height), size)
    x0 = int((width - new_width) / 2)
    y0 = int((height - new_height) / 2)
    return fixed_crop(src, x0, y0, new_width, new_height, size, interp), (x0, y0, new_width, new_height)


def color_normalize(src, mean, std=None):
    """``(src - mean) / std`` computed in place in ``src`` (float HWC); ``mean`` / ``std`` broadcast per channel.

    Either may be None to skip that step.  Returns ``src``.
    """
    if mean is not None:
        src -= mean
    if std is not None:
        src /= std
    return src


def random_size_crop(src, size, area, ratio, interp=2, **kwargs):
    """A random crop with random area fraction and aspect ratio, resized to ``size`` (width, height).

    ``area``: ``(min, max)`` fraction of the image area, or a number = min
    (max 1.0); ``ratio``: ``(min, max)`` width / height, drawn uniformly in
    log space.  Up to 10 tries (``random.uniform`` / ``random.randint``);
    when none fits, falls back to :func:`center_crop`.  ``min_area`` is the
    deprecated name of ``area``.  Returns ``(image, (x0, y0, width, height))``.
    """
    height, width = src.shape[0], src.shape[1]
    source_area = height * width
    if "min_area" in kwargs:
        warnings.warn("`min_area` is deprecated. Please use `area` instead.", DeprecationWarning)
        area = kwargs.pop("min_area")
    if kwargs:
        raise _InvalidArgumentError(f"image.random_size_crop: unexpected keyword arguments {sorted(kwargs)}")
    if isinstance(area, numbers.Number):
        area = (area, 1.0)
    for _ in range(10):
        target_area = random.uniform(area[0], area[1]) * source_area
        log_ratio = (np.log(ratio[0]), np.log(ratio[1]))
        new_ratio = np.exp(random.uniform(*log_ratio))
        new_width = int(round(np.sqrt(target_area * new_ratio)))
        new_height = int(round(np.sqrt(target_area / new_ratio)))
        if new_width <= width and new_height <= height:
            x0 = random.randint(0, width - new_width)
            y0 = random.randint(0, height - new_height)
            return fixed_crop(src, x0, y0, new_width, new_height, size, interp), (x0, y0, new_width, new_height)
    return center_crop(src, size, interp)


def imrotate(src, rotation_degrees, zoom_in=False, zoom_out=False):
    """Rotate float32 image(s) ``src`` (CHW, or NCHW batch) about their centres by ``rotation_degrees``.

    ``rotation_degrees``: a number, or for a batch an NDArray / sequence of
    one angle per image.  Bilinear sampling; pixels from outside the image
    are 0.  ``zoom_in``: zoom so that no padding shows; ``zoom_out``: zoom
    so that the whole image stays visible (not both).  Returns an NDArray of
    ``src``'s shape (MXNet's BilinearSampler-based imrotate).

    Raises MXNetError (also a TypeError) for a non-float32 image or a
    non-scalar angle for one image, MXNetError (also a ValueError) for both
    zooms, a rank other than 3 / 4 or a wrong number of angles.
    """
    if zoom_in and zoom_out:
        raise _InvalidArgumentError("image.imrotate: zoom_in and zoom_out cannot both be True")
    if src.dtype is not np.float32:
        raise _InvalidTypeError(f"image.imrotate: only float32 images are supported, got {np.dtype(src.dtype).name}")
    tensor = src._tensor
    single = tensor.dim() == 3
    if single:
        if not isinstance(rotation_degrees, numbers.Number):
            raise _InvalidTypeError("image.imrotate: one image needs one scalar rotation angle")
        tensor = tensor.unsqueeze(0)
    elif tensor.dim() != 4:
        raise _InvalidArgumentError(f"image.imrotate: expected a CHW image or an NCHW batch, got shape {src.shape}")
    count, _, height, width = tensor.shape
    if isinstance(rotation_degrees, numbers.Number):
        angles = torch.full((count,), float(rotation_degrees), dtype=torch.float32, device=tensor.device)
    else:
        values = rotation_degrees._tensor if isinstance(rotation_degrees, NDArray) else \
            torch.as_tensor(np.asarray(rotation_degrees, dtype=np.float32))
        angles = values.to(device=tensor.device, dtype=torch.float32).reshape(-1)
    if angles.numel() != count:
        raise _InvalidArgumentError(f"image.imrotate: {count} images need {count} rotation angles, "
                                    f"got {angles.numel()}")
    radians = (angles * (np.pi / 180)).view(-1, 1, 1)
    half_height, half_width = (height - 1) / 2.0, (width - 1) / 2.0
    rows = (torch.arange(height, dtype=torch.float32, device=tensor.device) - half_height).view(1, height, 1)
    columns = (torch.arange(width, dtype=torch.float32, device=tensor.device) - half_width).view(1, 1, width)
    cosine, sine = torch.cos(radians), torch.sin(radians)
    # where each output pixel samples from, in [-1, 1] coordinates (BilinearSampler's grid convention)
    sample_x = (columns * cosine - rows * sine) / half_width
    sample_y = (columns * sine + rows * cosine) / half_height
    if zoom_in or zoom_out:
        corner_radius = float(np.sqrt(height * height + width * width))
        corner_angle = float(np.arctan(height / width))
        magnitude = radians.abs()
        corner1_x = (corner_radius * torch.cos(corner_angle + magnitude)).abs()
        corner1_y = (corner_radius * torch.sin(corner_angle + magnitude)).abs()
        corner2_x = (corner_radius * torch.cos(corner_angle - magnitude)).abs()
        corner2_y = (corner_radius * torch.sin(corner_angle - magnitude)).abs()
        extent_x = torch.maximum(corner1_x, corner2_x)
        extent_y = torch.maximum(corner1_y, corner2_y)
        if zoom_out:
            scale = torch.maximum(extent_x / width, extent_y / height)
        else:
            scale = torch.minimum(width / extent_x, height / extent_y)
        sample_x, sample_y = sample_x * scale, sample_y * scale
    grid = torch.stack([sample_x.expand(count, height, width), sample_y.expand(count, height, width)], dim=-1)
    rotated = torch.nn.functional.grid_sample(tensor, grid, mode="bilinear", padding_mode="zeros",
                                              align_corners=True)
    if single:
        rotated = rotated[0]
    return NDArray(rotated, src.context)


def random_rotate(src, angle_limits, zoom_in=False, zoom_out=False):
    """:func:`imrotate` by angles drawn uniformly from ``angle_limits`` (low, high) degrees with ``numpy.random``.

    One angle for a CHW image, one per image for an NCHW batch.
    """
    if src.ndim == 3:
        rotation_degrees = np.random.uniform(*angle_limits)
    else:
        rotation_degrees = _nd_array(np.random.uniform(*angle_limits, size=src.shape[0]))
    return imrotate(src, rotation_degrees, zoom_in=zoom_in, zoom_out=zoom_out)


# ------------------------------------------------------------------------------------------------
# Augmenters: callables image -> image
# ------------------------------------------------------------------------------------------------
def _as_float_tensor(values, like):
    return torch.as_tensor(np.asarray(values, dtype=np.float64), dtype=like.dtype if like.is_floating_point()
                           else torch.float32, device=like.device)


class _KwargsDumps:
    """Keeps the keyword arguments given to ``__init__`` (NDArrays and numpy arrays as
    lists) for ``dumps()``; the shared base of :class:`Augmenter` and :class:`DetAugmenter`."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        for key, value in self._kwargs.items():
            if isinstance(value, NDArray):
                value = value.asnumpy()
            if isinstance(value, np.ndarray):
                self._kwargs[key] = value.tolist()

    def dumps(self):
        """The augmenter as a JSON string ``[name, arguments]``."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])


class Augmenter(_KwargsDumps):
    """Base class of image augmenters: ``aug(image) -> image`` on HWC NDArrays.

    The keyword arguments given to ``__init__`` are kept (NDArrays and numpy
    arrays as lists) for ``dumps()``, which returns the JSON
    ``[class name in lower case, arguments]``.
    """

    def __call__(self, src):
        raise NotImplementedError("an Augmenter subclass implements __call__(src)")


class _AugmenterList(Augmenter):
    """Holds the augmenters ``ts``; ``dumps()`` lists theirs."""

    def __init__(self, ts):
        super().__init__()
        self.ts = ts

    def dumps(self):
        return [self.__class__.__name__.lower(), [aug.dumps() for aug in self.ts]]

    def _apply_all(self, src):
        for aug in self.ts:
            src = aug(src)
        return src


class SequentialAug(_AugmenterList):
    """Applies the augmenters ``ts`` one after the other."""

    def __call__(self, src):
        return self._apply_all(src)


class _SizeInterpAug(Augmenter):
    """An augmenter of an output ``size`` and an interpolation method ``interp``."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp


class ResizeAug(_SizeInterpAug):
    """Resizes the shorter side to ``size`` (see :func:`resize_short`)."""

    def __call__(self, src):
        return resize_short(src, self.size, self.interp)


class ForceResizeAug(_SizeInterpAug):
    """Resizes to exactly ``size`` (width, height), ignoring the aspect ratio."""

    def __call__(self, src):
        sizes = (src.shape[0], src.shape[1], self.size[1], self.size[0])
        return imresize(src, *self.size, interp=_get_interp_method(self.interp, sizes))


class RandomCropAug(_SizeInterpAug):
    """A random crop of ``size`` (width, height) (see :func:`random_crop`)."""

    def __call__(self, src):
        return random_crop(src, self.size, self.interp)[0]


class RandomSizedCropAug(Augmenter):
    """A crop of random area and aspect ratio resized to ``size`` (see :func:`random_size_crop`)."""

    def __init__(self, size, area, ratio, interp=2, **kwargs):
        super().__init__(size=size, area=area, ratio=ratio, interp=interp)
        self.size = size
        if "min_area" in kwargs:
            warnings.warn("`min_area` is deprecated. Please use `area` instead.", DeprecationWarning)
            self.area = kwargs.pop("min_area")
        else:
            self.area = area
        self.ratio = ratio
        self.interp = interp
        if kwargs:
            raise _InvalidArgumentError(f"RandomSizedCropAug: unexpected keyword arguments {sorted(kwargs)}")

    def __call__(self, src):
        return random_size_crop(src, self.size, self.area, self.ratio, self.interp)[0]


class CenterCropAug(_SizeInterpAug):
    """The centre crop of ``size`` (width, height) (see :func:`center_crop`)."""

    def __call__(self, src):
        return center_crop(src, self.size, self.interp)[0]


class RandomOrderAug(_AugmenterList):
    """Applies the augmenters ``ts`` in a random order (``random.shuffle`` of the list, in place)."""

    def __call__(self, src):
        random.shuffle(self.ts)
        return self._apply_all(src)


class BrightnessJitterAug(Augmenter):
    """Multiplies the float image, in place, by ``1 + uniform(-brightness, brightness)``."""

    def __init__(self, brightness):
        super().__init__(brightness=brightness)
        self.brightness = brightness

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.brightness, self.brightness)
        src *= alpha
        return src


class ContrastJitterAug(Augmenter):
    """Blends the float image, in place, with its mean gray level: ``alpha * src + (1 - alpha) * mean gray``.

    ``alpha = 1 + uniform(-contrast, contrast)``; gray = 0.299 R + 0.587 G + 0.114 B.
    """

    def __init__(self, contrast):
        super().__init__(contrast=contrast)
        self.contrast = contrast
        self.coef = _nd_array([[list(_LUMA_WEIGHTS)]])

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.contrast, self.contrast)
        tensor = src._tensor
        gray = tensor * self.coef._tensor.to(tensor)
        offset = 3.0 * (1.0 - alpha) / gray.numel() * gray.sum()
        with torch.no_grad():
            tensor.mul_(alpha).add_(offset)
        return src


class SaturationJitterAug(Augmenter):
    """Blends each pixel, in place, with its gray value: ``alpha * src + (1 - alpha) * gray``.

    ``alpha = 1 + uniform(-saturation, saturation)``.
    """

    def __init__(self, saturation):
        super().__init__(saturation=saturation)
        self.saturation = saturation
        self.coef = _nd_array([[list(_LUMA_WEIGHTS)]])

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.saturation, self.saturation)
        tensor = src._tensor
        gray = (tensor * self.coef._tensor.to(tensor)).sum(dim=2, keepdim=True) * (1.0 - alpha)
        with torch.no_grad():
            tensor.mul_(alpha).add_(gray)
        return src


class HueJitterAug(Augmenter):
    """Rotates the hue by ``uniform(-hue, hue) * 180`` degrees in YIQ space (returns a new float image)."""

    def __init__(self, hue):
        super().__init__(hue=hue)
        self.hue = hue
        self.tyiq = np.array([[0.299, 0.587, 0.114],
                              [0.596, -0.274, -0.321],
                              [0.211, -0.523, 0.311]])
        self.ityiq = np.array([[1.0, 0.956, 0.621],
                               [1.0, -0.272, -0.647],
                               [1.0, -1.107, 1.705]])

    def __call__(self, src):
        alpha = random.uniform(-self.hue, self.hue)
        cosine, sine = np.cos(alpha * np.pi), np.sin(alpha * np.pi)
        rotation = np.array([[1.0, 0.0, 0.0], [0.0, cosine, -sine], [0.0, sine, cosine]])
        transform = np.dot(np.dot(self.ityiq, rotation), self.tyiq).T
        tensor = src._tensor
        return NDArray(torch.matmul(tensor, _as_float_tensor(transform, tensor)), src.context)


class ColorJitterAug(RandomOrderAug):
    """Brightness, contrast and saturation jitter (those > 0) in a random order."""

    def __init__(self, brightness, contrast, saturation):
        augmenters = []
        if brightness > 0:
            augmenters.append(BrightnessJitterAug(brightness))
        if contrast > 0:
            augmenters.append(ContrastJitterAug(contrast))
        if saturation > 0:
            augmenters.append(SaturationJitterAug(saturation))
        super().__init__(augmenters)


class LightingAug(Augmenter):
    """AlexNet-style PCA lighting noise, added in place: ``src += eigvec @ (alpha * eigval)``.

    ``alpha ~ Normal(0, alphastd)`` per component, drawn with ``numpy.random.normal``.
    """

    def __init__(self, alphastd, eigval, eigvec):
        super().__init__(alphastd=alphastd, eigval=eigval, eigvec=eigvec)
        self.alphastd = alphastd
        self.eigval = eigval
        self.eigvec = eigvec

    def __call__(self, src):
        alpha = np.random.normal(0, self.alphastd, size=(3,))
        rgb = np.dot(self.eigvec * alpha, self.eigval)
        src += _nd_array(rgb)
        return src


class ColorNormalizeAug(Augmenter):
    """``(src - mean) / std`` per channel, in place (see :func:`color_normalize`); ``mean`` / ``std`` may be None."""

    def __init__(self, mean, std):
        super().__init__(mean=mean, std=std)
        self.mean = mean if mean is None or isinstance(mean, NDArray) else _nd_array(mean)
        self.std = std if std is None or isinstance(std, NDArray) else _nd_array(std)

    def __call__(self, src):
        return color_normalize(src, self.mean, self.std)


class RandomGrayAug(Augmenter):
    """With probability ``p``, replaces each channel by 0.21 R + 0.72 G + 0.07 B (a new image)."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p
        self.mat = _nd_array([[0.21, 0.21, 0.21], [0.72, 0.72, 0.72], [0.07, 0.07, 0.07]])

    def __call__(self, src):
        if random.random() < self.p:
            tensor = src._tensor
            src = NDArray(torch.matmul(tensor, self.mat._tensor.to(tensor)), src.context)
        return src


class HorizontalFlipAug(Augmenter):
    """With probability ``p`` (``random.random() < p``), mirrors the image left to right."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src):
        if random.random() < self.p:
            src = NDArray(torch.flip(src._tensor, dims=[1]), src.context)
        return src


class CastAug(Augmenter):
    """Casts the image to ``typ`` (float32 by default)."""

    def __init__(self, typ="float32"):
        super().__init__(type=typ)
        self.typ = typ

    def __call__(self, src):
        return src.astype(self.typ)


def _channel_statistic(value, default, name, function):
    if value is True:
        return _nd_array(default)
    if value is not None and not (isinstance(value, (np.ndarray, NDArray)) and value.shape[0] in (1, 3)):
        raise _InvalidArgumentError(f"{function}: {name} must be True, None or an array of 1 or 3 values, "
                                    f"got {value!r}")
    return value


def CreateAugmenter(data_shape, resize=0, rand_crop=False, rand_resize=False, rand_mirror=False, mean=None,
                    std=None, brightness=0, contrast=0, saturation=0, hue=0, pca_noise=0, rand_gray=0,
                    inter_method=2):
    """The list of augmenters MXNet's ``CreateAugmenter`` builds for a classification iterator.

    In order: ``ResizeAug(resize)`` if ``resize`` > 0; a crop to
    ``data_shape`` (C, H, W): ``RandomSizedCropAug`` (area 0.08-1, ratio
    3/4-4/3) if ``rand_resize`` (needs ``rand_crop``), ``RandomCropAug`` if
    ``rand_crop``, else ``CenterCropAug``; ``HorizontalFlipAug(0.5)`` if
    ``rand_mirror``; ``CastAug`` (float32); ``ColorJitterAug`` if
    brightness / contrast / saturation; ``HueJitterAug``; ``LightingAug``
    (ImageNet PCA) if ``pca_noise`` > 0; ``RandomGrayAug``;
    ``ColorNormalizeAug`` if ``mean`` / ``std`` (True = ImageNet RGB
    statistics, or an array of 1 or 3 values).

    Raises MXNetError (also a ValueError) for ``rand_resize`` without
    ``rand_crop`` and for malformed ``mean`` / ``std``.
    """
    augmenters = []
    if resize > 0:
        augmenters.append(ResizeAug(resize, inter_method))
    crop_size = (data_shape[2], data_shape[1])
    if rand_resize:
        if not rand_crop:
            raise _InvalidArgumentError("CreateAugmenter: rand_resize=True needs rand_crop=True")
        augmenters.append(RandomSizedCropAug(crop_size, 0.08, (3.0 / 4.0, 4.0 / 3.0), inter_method))
    elif rand_crop:
        augmenters.append(RandomCropAug(crop_size, inter_method))
    else:
        augmenters.append(CenterCropAug(crop_size, inter_method))
    if rand_mirror:
        augmenters.append(HorizontalFlipAug(0.5))
    augmenters.append(CastAug())
    if brightness or contrast or saturation:
        augmenters.append(ColorJitterAug(brightness, contrast, saturation))
    if hue:
        augmenters.append(HueJitterAug(hue))
    if pca_noise > 0:
        augmenters.append(LightingAug(pca_noise, _PCA_EIGENVALUES, _PCA_EIGENVECTORS))
    if rand_gray > 0:
        augmenters.append(RandomGrayAug(rand_gray))
    mean = _channel_statistic(mean, _IMAGENET_MEAN, "mean", "CreateAugmenter")
    std = _channel_statistic(std, _IMAGENET_STD, "std", "CreateAugmenter")
    if mean is not None or std is not None:
        augmenters.append(ColorNormalizeAug(mean, std))
    return augmenters


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
        """Fill ``batch_data`` / ``batch_label`` from position ``start``; returns the number of rows filled."""
        position = start
        try:
            while position < self.batch_size:
                label, encoded = self.next_sample()
                data = self.imdecode(encoded)
                try:
                    self.check_valid_image(data)
                except RuntimeError as error:
                    _LOGGER.debug("Invalid image, skipping: %s", error)
                    continue
                data = self.augmentation_transform(data)
                batch_data[position] = self.postprocess_data(data)
                batch_label[position] = label
                position += 1
        except StopIteration:
            if not position:
                raise
        return position

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
        try:
            with open(path, "rb") as stream:
                return stream.read()
        except (OSError, ValueError) as error:     # ValueError: a NUL byte in the name
            raise MXNetError(f"{type(self).__name__}: cannot read image file {path!r}: {error}") from None

    def augmentation_transform(self, data):
        """Apply ``auglist`` to one image."""
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum):
        """HWC -> CHW."""
        return NDArray(datum._tensor.permute(2, 0, 1), datum.context)


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
        self.enabled = False
        if area_range[1] <= 0 or area_range[0] > area_range[1]:
            warnings.warn(f"Skip DetRandomCropAug due to invalid area_range: {area_range}")
        elif aspect_ratio_range[0] > aspect_ratio_range[1] or aspect_ratio_range[0] <= 0:
            warnings.warn(f"Skip DetRandomCropAug due to invalid aspect_ratio_range: {aspect_ratio_range}")
        else:
            self.enabled = True

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
        self.enabled = False
        if area_range[1] <= 1.0 or area_range[0] > area_range[1]:
            warnings.warn(f"Skip DetRandomPadAug due to invalid parameters: {area_range}")
        elif aspect_ratio_range[0] <= 0 or aspect_ratio_range[0] > aspect_ratio_range[1]:
            warnings.warn(f"Skip DetRandomPadAug due to invalid aspect_ratio_range: {aspect_ratio_range}")
        else:
            self.enabled = True

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

    def _batchify(self, batch_data, batch_label, start=0):
        position = start
        try:
            while position < self.batch_size:
                label, encoded = self.next_sample()
                data = self.imdecode(encoded)
                try:
                    self.check_valid_image([data])
                    label = self._parse_label(label)
                    data, label = self.augmentation_transform(data, label)
                    self._check_valid_label(label)
                except RuntimeError as error:
                    _LOGGER.debug("Invalid image, skipping: %s", error)
                    continue
                batch_data[position] = self.postprocess_data(data)
                count = label.shape[0]
                if count > batch_label.shape[1] or label.shape[1] != batch_label.shape[2]:
                    raise MXNetError(f"{type(self).__name__}: an image has {count} objects of width "
                                     f"{label.shape[1]} but the label batch holds {batch_label.shape[1]} "
                                     f"objects of width {batch_label.shape[2]}; reshape(label_shape=...)")
                rows = np.full(batch_label.shape[1:], -1, dtype=np.float32)
                rows[:count] = label
                batch_label[position] = rows
                position += 1
        except StopIteration:
            if not position:
                raise
        return position

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


# -- mx.nd.imdecode: MXNet's deprecated NDArray form, defined here above ndarray ------------------------
def nd_imdecode(str_img, clip_rect=(0, 0, 0, 0), out=None, index=0, channels=3, mean=None):
    """Decode an encoded image (bytes) to an ``(height, width, channels)`` uint8 array in RGB
    order, as MXNet's deprecated ``nd.imdecode``: ``clip_rect=(x0, y0, x1, y1)`` crops when
    non-zero, ``channels`` is 3 (colour) or 1 (grey), ``mean`` (an array of the result's shape)
    is subtracted, giving float32.  ``out`` receives the result.  Decoding is done by
    ``mx.image.imdecode``; this module installs it as ``mx.nd.imdecode`` (image sits above
    ndarray, so ndarray does not import it)."""
    if index != 0:
        raise MXNetError(f"imdecode: index must be 0 (one image per call), got {index}")
    if channels not in (1, 3):
        raise MXNetError(f"imdecode: channels must be 1 or 3, got {channels}")
    result = imdecode(str_img, flag=1 if channels == 3 else 0)
    x0, y0, x1, y1 = clip_rect
    if x1 > x0 and y1 > y0:
        result = NDArray(result._tensor[y0:y1, x0:x1].contiguous(), result.context)
    if mean is not None:
        result = NDArray(result._tensor.float() - mean._tensor.float(), result.context)
    if out is not None:
        out[:] = result
        return out
    return result


nd_imdecode.__name__ = nd_imdecode.__qualname__ = "imdecode"
_ndarray_package.imdecode = nd_imdecode
