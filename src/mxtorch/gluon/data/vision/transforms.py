"""Image transforms as Blocks (MXNet 1.9.1's ``mxnet.gluon.data.vision.transforms``).

Images are NDArrays ``(height, width, channels)`` or batches ``(batch, height, width,
channels)``; ``ToTensor`` turns them into float32 ``(channels, height, width)`` in [0, 1], the
layout ``Normalize`` and ``Rotate`` take.  The HybridBlocks call the ``mx.nd.image`` /
``mx.sym.image`` operators, so they also work inside hybridized networks; ``Rotate``,
``RandomRotation``, ``RandomResizedCrop`` and ``CenterCrop`` are Blocks on ``mx.image``.
Random transforms draw from NumPy's (``RandomRotation``, ``RandomApply``) or torch's
(operators) global generators, both seeded by ``mx.random.seed``.
"""
from __future__ import annotations

import numbers
import random

import numpy as np

from ....base import MXNetValueError, numeric_types  # noqa: F401
from ....util import is_np_array  # noqa: F401  (MXNet's module exposes it)
from .... import image
from ...block import Block, HybridBlock
from ...nn import Sequential, HybridSequential

__all__ = ["Compose", "HybridCompose", "Cast", "ToTensor", "Normalize", "Rotate", "RandomRotation",
           "RandomResizedCrop", "CropResize", "CenterCrop", "Resize", "RandomFlipLeftRight", "RandomFlipTopBottom",
           "RandomBrightness", "RandomContrast", "RandomSaturation", "RandomHue", "RandomColorJitter",
           "RandomLighting", "RandomApply", "HybridRandomApply"]


def _pair(size, name):
    if isinstance(size, numbers.Number):
        return (int(size), int(size))
    size = tuple(int(v) for v in size)
    if len(size) != 2:
        raise MXNetValueError(f"{name}: size must be an int or (width, height), got {size}")
    return size


class Compose(Sequential):
    """Apply ``transforms`` (a list of Blocks) in order.  Runs of consecutive HybridBlocks are
    grouped into a hybridized HybridSequential, as MXNet does."""

    def __init__(self, transforms):
        super().__init__()
        hybrid = []
        for transform in list(transforms) + [None]:
            if isinstance(transform, HybridBlock):
                hybrid.append(transform)
                continue
            if len(hybrid) == 1:
                self.add(hybrid[0])
            elif len(hybrid) > 1:
                block = HybridSequential()
                block.add(*hybrid)
                block.hybridize()
                self.add(block)
            hybrid = []
            if transform is not None:
                self.add(transform)


class HybridCompose(HybridSequential):
    """Compose of HybridBlocks only, itself a HybridBlock (MXNet 1.x's later addition)."""

    def __init__(self, transforms):
        super().__init__()
        for transform in transforms:
            if not isinstance(transform, HybridBlock):
                raise MXNetValueError(f"HybridCompose: {type(transform).__name__} is not a HybridBlock")
            self.add(transform)


class Cast(HybridBlock):
    """Cast the input to ``dtype`` (default float32)."""

    def __init__(self, dtype="float32"):
        super().__init__()
        self._dtype = dtype

    def hybrid_forward(self, F, x):
        return F.cast(x, self._dtype)


class ToTensor(HybridBlock):
    """``(H, W, C)`` / ``(N, H, W, C)`` image(s) of any dtype in [0, 255] to float32
    ``(C, H, W)`` / ``(N, C, H, W)`` in [0, 1]; MXNetError for another rank."""

    def hybrid_forward(self, F, x):
        return F.image.to_tensor(x)


class Normalize(HybridBlock):
    """``(x - mean) / std`` per channel of a ``(C, H, W)`` / ``(N, C, H, W)`` float tensor with 1
    or 3 channels; ``mean`` and ``std`` are one number or one per channel."""

    def __init__(self, mean=0.0, std=1.0):
        super().__init__()
        self._mean = tuple(mean) if isinstance(mean, (list, tuple)) else (float(mean),)
        self._std = tuple(std) if isinstance(std, (list, tuple)) else (float(std),)

    def hybrid_forward(self, F, x):
        return F.image.normalize(x, self._mean, self._std)


class Rotate(Block):
    """Rotate float32 ``(C, H, W)`` / ``(N, C, H, W)`` images by ``rotation_degrees``
    (``mx.image.imrotate``; TypeError for other dtypes)."""

    def __init__(self, rotation_degrees, zoom_in=False, zoom_out=False):
        super().__init__()
        self._args = (rotation_degrees, zoom_in, zoom_out)

    def forward(self, x):
        return image.imrotate(x, *self._args)


class RandomRotation(Block):
    """Rotate by an angle drawn uniformly from ``angle_limits`` (degrees), with probability
    ``rotate_with_proba`` (ValueError outside [0, 1])."""

    def __init__(self, angle_limits, zoom_in=False, zoom_out=False, rotate_with_proba=1.0):
        super().__init__()
        lower, upper = angle_limits
        if lower >= upper:
            raise MXNetValueError(f"RandomRotation: angle_limits must be (lower, upper) with lower < upper, "
                                  f"got {tuple(angle_limits)}")
        if not 0 <= rotate_with_proba <= 1:
            raise MXNetValueError(f"RandomRotation: rotate_with_proba must be in [0, 1], got {rotate_with_proba}")
        self._args = (angle_limits, zoom_in, zoom_out)
        self._rotate_with_proba = rotate_with_proba

    def forward(self, x):
        if np.random.random() > self._rotate_with_proba:
            return x
        return image.random_rotate(x, *self._args)


class RandomResizedCrop(Block):
    """Crop a random region (area fraction in ``scale``, aspect ratio in ``ratio``) of an
    ``(H, W, C)`` image and resize it to ``size`` (an int or (width, height))."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=1):
        super().__init__()
        self._args = (_pair(size, "RandomResizedCrop"), scale, ratio, interpolation)

    def forward(self, x):
        return image.random_size_crop(x, *self._args)[0]


class CropResize(HybridBlock):
    """Crop the ``width`` x ``height`` region at (``x``, ``y``) of ``(H, W, C)`` /
    ``(N, H, W, C)`` image(s), then resize it to ``size`` when given (an int or (width,
    height)); MXNetError when the region leaves the image or a size is not positive."""

    def __init__(self, x, y, width, height, size=None, interpolation=None):
        super().__init__()
        self._x, self._y, self._width, self._height = x, y, width, height
        self._size = None if size is None else (tuple(size) if isinstance(size, (list, tuple)) else (size, size))
        self._interpolation = 1 if interpolation is None else interpolation

    def hybrid_forward(self, F, x):
        out = F.image.crop(x, self._x, self._y, self._width, self._height)
        if self._size is not None:
            out = F.image.resize(out, self._size, False, self._interpolation)
        return out


class CenterCrop(Block):
    """Crop the centre of an ``(H, W, C)`` image to ``size`` (an int or (width, height)),
    resizing first when the image is smaller (``mx.image.center_crop``)."""

    def __init__(self, size, interpolation=1):
        super().__init__()
        self._args = (_pair(size, "CenterCrop"), interpolation)

    def forward(self, x):
        return image.center_crop(x, *self._args)[0]


class Resize(HybridBlock):
    """Resize ``(H, W, C)`` / ``(N, H, W, C)`` image(s) to ``size``: an int (both edges; with
    ``keep_ratio`` the short edge) or (width, height).  The numbers of ``mx.image.imresize``."""

    def __init__(self, size, keep_ratio=False, interpolation=1):
        super().__init__()
        self._keep = keep_ratio
        self._size = tuple(size) if isinstance(size, (list, tuple)) else (size,)
        self._interpolation = interpolation

    def hybrid_forward(self, F, x):
        return F.image.resize(x, self._size, self._keep, self._interpolation)


class RandomFlipLeftRight(HybridBlock):
    """Mirror ``(H, W, C)`` image(s) left-right with probability 0.5."""

    def hybrid_forward(self, F, x):
        return F.image.random_flip_left_right(x)


class RandomFlipTopBottom(HybridBlock):
    """Mirror ``(H, W, C)`` image(s) top-bottom with probability 0.5."""

    def hybrid_forward(self, F, x):
        return F.image.random_flip_top_bottom(x)


class _RandomFactor(HybridBlock):
    _operator = None

    def __init__(self, amount):
        super().__init__()
        self._args = (max(0, 1 - amount), 1 + amount)

    def hybrid_forward(self, F, x):
        return getattr(F.image, self._operator)(x, *self._args)


class RandomBrightness(_RandomFactor):
    """Multiply RGB ``(H, W, 3)`` image(s) by a factor in ``[max(0, 1 - brightness), 1 + brightness]``."""
    _operator = "random_brightness"

    def __init__(self, brightness):
        super().__init__(brightness)


class RandomContrast(_RandomFactor):
    """Blend with the mean grey value by a factor in ``[max(0, 1 - contrast), 1 + contrast]``."""
    _operator = "random_contrast"

    def __init__(self, contrast):
        super().__init__(contrast)


class RandomSaturation(_RandomFactor):
    """Blend each pixel with its grey value by a factor in ``[max(0, 1 - saturation), 1 + saturation]``."""
    _operator = "random_saturation"

    def __init__(self, saturation):
        super().__init__(saturation)


class RandomHue(_RandomFactor):
    """Turn the hue by a factor in ``[max(0, 1 - hue), 1 + hue]`` of a full turn (as MXNet:
    a turn of ``±hue``)."""
    _operator = "random_hue"

    def __init__(self, hue):
        super().__init__(hue)


class RandomColorJitter(HybridBlock):
    """Random brightness, contrast, saturation and hue jitter (0 disables one)."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self._args = (brightness, contrast, saturation, hue)

    def hybrid_forward(self, F, x):
        return F.image.random_color_jitter(x, *self._args)


class RandomLighting(HybridBlock):
    """AlexNet-style PCA lighting noise with standard deviation ``alpha``."""

    def __init__(self, alpha):
        super().__init__()
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.image.random_lighting(x, self._alpha)


class _RandomApplyMixin:
    """What RandomApply and HybridRandomApply share: ``transforms`` applied with probability
    ``p``, decided in Python on each call."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, x, *args):
        if self.p < random.random():
            return x if not args else (x,) + args
        return self.transforms(x, *args)


class RandomApply(_RandomApplyMixin, Sequential):
    """Apply ``transforms`` (a Block) with probability ``p``, else return the input."""


class HybridRandomApply(_RandomApplyMixin, HybridSequential):
    """RandomApply for a HybridBlock: ``F.contrib.cond`` is not used; the choice is made in
    Python on each call, so it is not recorded in an exported graph."""
