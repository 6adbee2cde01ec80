"""Image functions of ``mx.image``: decoding, resizing, cropping, rotation (MXNet's
``python/mxnet/image/image.py`` functions).  See :mod:`mxtorch.image` for conventions."""
from __future__ import annotations

import logging
import numbers
import random
import warnings

import numpy as np
import torch

from ..base import MXNetError
from ..util import decode_image, import_opencv
from ..ndarray.ndarray import NDArray, array as _nd_array

__all__ = ["imdecode", "imread", "imresize", "copyMakeBorder", "scale_down", "resize_short", "fixed_crop",
           "random_crop", "center_crop", "color_normalize", "random_size_crop", "imrotate", "random_rotate"]

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


def _read_bytes(path, failure):
    """The bytes of the file ``path``; MXNetError ``<failure> '<path>': <reason>`` when it cannot
    be read (an OSError, or a ValueError for a name with a NUL byte)."""
    try:
        with open(path, "rb") as stream:
            return stream.read()
    except (OSError, ValueError) as error:
        raise MXNetError(f"{failure} {path!r}: {error}") from None


def imread(filename, flag=1, to_rgb=1, out=None):
    """Read and decode an image file (MXNet's ``mx.image.imread``); arguments and result as :func:`imdecode`.

    Raises MXNetError when the file cannot be read or decoded.
    """
    content = _read_bytes(filename, "image.imread: cannot read image file")
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


