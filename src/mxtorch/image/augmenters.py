"""Classification augmenters of ``mx.image``: ``Augmenter`` and its subclasses,
``CreateAugmenter`` (MXNet's ``python/mxnet/image/image.py`` augmenters)."""
from __future__ import annotations

import json
import random
import warnings

import numpy as np
import torch

from ..ndarray.ndarray import NDArray, array as _nd_array
from .functions import (_IMAGENET_MEAN, _IMAGENET_STD, _PCA_EIGENVALUES, _PCA_EIGENVECTORS, _LUMA_WEIGHTS,
                        _InvalidArgumentError, imresize, _get_interp_method, resize_short, random_crop, center_crop,
                        color_normalize, random_size_crop)

__all__ = ["Augmenter", "SequentialAug", "ResizeAug", "ForceResizeAug", "RandomCropAug", "RandomSizedCropAug",
           "CenterCropAug", "RandomOrderAug", "BrightnessJitterAug", "ContrastJitterAug", "SaturationJitterAug",
           "HueJitterAug", "ColorJitterAug", "LightingAug", "ColorNormalizeAug", "RandomGrayAug",
           "HorizontalFlipAug", "CastAug", "CreateAugmenter"]


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


