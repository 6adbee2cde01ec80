"""Image operators of ``mx.nd.image`` / ``mx.sym.image`` (MXNet's ``_image_*`` operators), on
which ``gluon.data.vision.transforms`` is built.

Images are ``(height, width, channels)`` or batches ``(batch, height, width, channels)``
(HWC), except ``to_tensor``'s output and ``normalize``'s input, which are ``(channels, height,
width)`` / ``(batch, channels, height, width)`` (CHW) float32.  Colour operators take three
RGB channels.  Integer images are computed in float32 and cast back saturating (uint8 values
are clipped to [0, 255] and truncated, as MXNet does).

Random operators draw from torch's global generator (seeded by ``mx.random.seed``).
Deliberate differences from MXNet 1.9.1: ``random_saturation`` blends each pixel with its own
grey value, ``x * a + grey(x) * (1 - a)`` (MXNet's CPU kernel used a wrong grey value), and
``random_hue`` turns the hue by ``factor`` of a full turn in YIQ space (MXNet: in HLS space), and
``flip_left_right`` of an odd-width image keeps its middle column (MXNet's CPU kernel zeroed it).
"""
from __future__ import annotations

import numpy as np
import torch

from ..util import import_opencv
from .registry import Attr, Operator, register, Int, Float, Bool, Shape, FloatTuple

__all__ = []

_GREY = (0.299, 0.587, 0.114)
# AlexNet's PCA of ImageNet RGB pixels (eigenvalues and eigenvectors), as MXNet's lighting uses
_EIGVAL = (55.46, 4.794, 1.148)
_EIGVEC = ((-0.5675, 0.7192, 0.4009),
           (-0.5808, -0.0045, -0.8140),
           (-0.5836, -0.6948, 0.4203))


def _check_rank(op, shape, what="an (H, W, C) image or an (N, H, W, C) batch"):
    if shape is not None and len(shape) not in (3, 4):
        raise op.error(f"expected {what}, got shape {tuple(shape)}")


def _restore(op, result, like):
    """``result`` (float) in ``like``'s dtype; integer types saturate and truncate."""
    if like.is_floating_point():
        return result.to(like.dtype)
    info = torch.iinfo(like.dtype)
    return result.clamp(info.min, info.max).trunc().to(like.dtype)


class _ImageOp(Operator):
    """One HWC / NHWC image input, the output of the same shape and dtype."""

    def infer_shape(self, in_shapes, out_shapes):
        _check_rank(self, in_shapes[0])
        shape = in_shapes[0] if in_shapes[0] is not None else out_shapes[0]
        return [shape], [shape], []

    def _image(self, inputs):
        data = inputs[0]
        if data.dim() not in (3, 4):
            raise self.error(f"expected an (H, W, C) image or an (N, H, W, C) batch, got shape {tuple(data.shape)}")
        return data


@register("_image_to_tensor")
class ToTensor(Operator):
    """HWC (or NHWC) image(s) of any dtype to CHW (NCHW) float32 divided by 255."""

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        _check_rank(self, data)
        out = None
        if data is not None:
            out = (data[2], data[0], data[1]) if len(data) == 3 else (data[0], data[3], data[1], data[2])
        return [data], [out], []

    def infer_type(self, in_types):
        return [in_types[0]], [np.dtype(np.float32)], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if data.dim() not in (3, 4):
            raise self.error(f"expected an (H, W, C) image or an (N, H, W, C) batch, got shape {tuple(data.shape)}")
        order = (2, 0, 1) if data.dim() == 3 else (0, 3, 1, 2)
        return [data.permute(order).to(torch.float32).div(255.0).contiguous()]


@register("_image_normalize")
class Normalize(Operator):
    """``(x - mean[c]) / std[c]`` over the channel axis of a CHW image or NCHW batch (1 or 3
    channels); ``mean`` / ``std`` have one value for all channels or one per channel."""

    mean = Attr(FloatTuple, default=(0.0, 0.0, 0.0, 0.0))
    std = Attr(FloatTuple, default=(1.0, 1.0, 1.0, 1.0))

    def _channels(self, shape):
        if len(shape) not in (3, 4):
            raise self.error(f"expected a (C, H, W) image or an (N, C, H, W) batch, got shape {tuple(shape)}")
        channels = shape[0] if len(shape) == 3 else shape[1]
        if channels not in (1, 3):
            raise self.error(f"the channel dimension must have 1 or 3 elements, got input with shape {tuple(shape)}")
        for name, values in (("mean", self.mean), ("std", self.std)):
            if len(values) != 1 and len(values) != channels:
                raise self.error(f"{name} must have 1 or {channels} elements for input with shape {tuple(shape)}, "
                                 f"got {tuple(values)}")
        return channels

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        if data is not None and all(d > 0 for d in data):
            self._channels(data)
        return [data], [data if data is not None else out_shapes[0]], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        channels = self._channels(tuple(data.shape))
        view = (channels, 1, 1)
        work = data if data.is_floating_point() else data.to(torch.float32)
        mean = torch.tensor(self.mean[:channels] if len(self.mean) > 1 else self.mean * channels,
                            dtype=work.dtype, device=data.device).view(view)
        std = torch.tensor(self.std[:channels] if len(self.std) > 1 else self.std * channels,
                           dtype=work.dtype, device=data.device).view(view)
        return [(work - mean) / std]


@register("_image_resize")
class Resize(Operator):
    """Resize HWC / NHWC image(s) with OpenCV (the same numbers as ``mx.image.imresize``).

    ``size``: ``(width, height)`` or ``(size,)``: both edges, or with ``keep_ratio`` the
    short edge (the long one scaled to keep the aspect ratio, truncated).  ``interp``:
    OpenCV's code (0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos).  Runs on the host.
    """

    size = Attr(Shape, default=())
    keep_ratio = Attr(Bool, default=False)
    interp = Attr(Int, default=1)

    def validate(self):
        if len(self.size) not in (1, 2) or any(v <= 0 for v in self.size):
            raise self.error(f"size must be (width, height) or (size,) of positive values, got {self.size}")

    def _target(self, height, width):
        if len(self.size) == 2:
            return self.size[1], self.size[0]
        size = self.size[0]
        if not self.keep_ratio:
            return size, size
        if height > width:
            return int(height * size / width), size
        return size, int(width * size / height)

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        _check_rank(self, data)
        out = out_shapes[0]
        if data is not None and data[-3] and data[-2]:
            height, width = self._target(data[-3], data[-2])
            out = tuple(data[:-3]) + (height, width, data[-1])
        return [data], [out], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if data.dim() not in (3, 4):
            raise self.error(f"expected an (H, W, C) image or an (N, H, W, C) batch, got shape {tuple(data.shape)}")
        cv2 = import_opencv("image.image.resize")
        height, width = self._target(data.shape[-3], data.shape[-2])
        images = data.detach().cpu().numpy()
        batch = images if data.dim() == 4 else images[None]
        results = []
        for image in batch:
            resized = cv2.resize(image, (width, height), interpolation=self.interp)
            results.append(resized.reshape(height, width, image.shape[-1]))
        result = np.stack(results) if data.dim() == 4 else results[0]
        return [torch.from_numpy(np.ascontiguousarray(result)).to(data.device)]


@register("_image_crop")
class Crop(Operator):
    """The ``width`` x ``height`` region at column ``x``, row ``y`` of HWC / NHWC image(s).
    MXNetError when the region leaves the image.  Differentiable (the gradient is scattered
    back into the region)."""

    x = Attr(Int, required=True)
    y = Attr(Int, required=True)
    width = Attr(Int, required=True)
    height = Attr(Int, required=True)

    def validate(self):
        if self.x < 0 or self.y < 0 or self.width <= 0 or self.height <= 0:
            raise self.error(f"x, y must be non-negative and width, height positive, got x={self.x}, y={self.y}, "
                             f"width={self.width}, height={self.height}")

    def _check(self, shape):
        if self.x + self.width > shape[-2] or self.y + self.height > shape[-3]:
            raise self.error(f"the crop x={self.x}, y={self.y}, width={self.width}, height={self.height} leaves the "
                             f"image of shape {tuple(shape)} (H, W, C)")

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        _check_rank(self, data)
        out = out_shapes[0]
        if data is not None and data[-3] and data[-2]:
            self._check(data)
            out = tuple(data[:-3]) + (self.height, self.width, data[-1])
        return [data], [out], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        _check_rank(self, tuple(data.shape))
        self._check(tuple(data.shape))
        return [data[..., self.y:self.y + self.height, self.x:self.x + self.width, :]]


class _Flip(_ImageOp):
    axis_from_end = -2       # width
    probability = 1.0

    def forward(self, is_train, inputs, aux):
        data = self._image(inputs)
        if self.probability < 1.0 and float(torch.rand(())) >= self.probability:
            return [data.clone()]
        return [torch.flip(data, [data.dim() + self.axis_from_end])]


@register("_image_flip_left_right")
class FlipLeftRight(_Flip):
    """Mirror HWC / NHWC image(s) along the width axis."""


@register("_image_flip_top_bottom")
class FlipTopBottom(_Flip):
    """Mirror HWC / NHWC image(s) along the height axis."""
    axis_from_end = -3


@register("_image_random_flip_left_right")
class RandomFlipLeftRight(_Flip):
    """Mirror along the width axis with probability 0.5."""
    probability = 0.5


@register("_image_random_flip_top_bottom")
class RandomFlipTopBottom(_Flip):
    """Mirror along the height axis with probability 0.5."""
    axis_from_end = -3
    probability = 0.5


def _grey(image):
    weights = torch.tensor(_GREY, dtype=image.dtype, device=image.device)
    return (image * weights).sum(-1, keepdim=True)


def _uniform(low, high):
    return low + (high - low) * float(torch.rand(()))


def _brightness(image, factor):
    return image * factor


def _contrast(image, factor):
    mean = _grey(image).mean(dim=(-3, -2, -1), keepdim=True)
    return image * factor + mean * (1 - factor)


def _saturation(image, factor):
    return image * factor + _grey(image) * (1 - factor)


def _hue(image, factor):
    """Rotate the chroma of RGB pixels by ``factor`` of a full turn in YIQ space."""
    theta = factor * 2 * np.pi
    cos, sin = np.cos(theta), np.sin(theta)
    to_yiq = np.array([[0.299, 0.587, 0.114], [0.596, -0.274, -0.321], [0.211, -0.523, 0.311]])
    rotate = np.array([[1, 0, 0], [0, cos, -sin], [0, sin, cos]])
    matrix = np.linalg.inv(to_yiq) @ rotate @ to_yiq
    return image @ torch.tensor(matrix.T, dtype=image.dtype, device=image.device)


class _ColourOp(_ImageOp):
    def _rgb(self, inputs):
        data = self._image(inputs)
        if data.shape[-1] != 3:
            raise self.error(f"expected 3 (RGB) channels, got shape {tuple(data.shape)}")
        return data, (data if data.is_floating_point() else data.to(torch.float32))

    def forward(self, is_train, inputs, aux):
        data, image = self._rgb(inputs)
        return [_restore(self, self.transform(image), data)]


class _RandomFactorOp(_ColourOp):
    min_factor = Attr(Float, required=True)
    max_factor = Attr(Float, required=True)

    def transform(self, image):
        return self.adjust(image, _uniform(self.min_factor, self.max_factor))


def _random_factor_operator(op_name, class_name, adjust, doc):
    """Register the ``_RandomFactorOp`` ``class_name`` under ``op_name``, applying ``adjust``."""
    return register(op_name)(type(class_name, (_RandomFactorOp,), {"__doc__": doc, "adjust": staticmethod(adjust)}))


# (operator, class, adjustment, docstring) of the colour jitters by one random factor
_RANDOM_FACTOR_OPERATORS = (
    ("_image_random_brightness", "RandomBrightness", _brightness,
     "Multiply by a factor drawn uniformly from ``[min_factor, max_factor]``."),
    ("_image_random_contrast", "RandomContrast", _contrast,
     "Blend with the image's mean grey value: ``x * a + mean_grey * (1 - a)``."),
    ("_image_random_saturation", "RandomSaturation", _saturation,
     "Blend each pixel with its grey value: ``x * a + grey(x) * (1 - a)``."),
    ("_image_random_hue", "RandomHue", _hue,
     "Turn the hue by a factor (of a full turn) drawn from ``[min_factor, max_factor]``."),
)
RandomBrightness, RandomContrast, RandomSaturation, RandomHue = (
    _random_factor_operator(*row) for row in _RANDOM_FACTOR_OPERATORS)


@register("_image_random_color_jitter")
class RandomColorJitter(_ColourOp):
    """Brightness, contrast and saturation jitter in a random order, then hue: each factor is
    ``1 + u`` with ``u`` uniform in ``[-value, value]`` (hue: ``u`` itself); 0 skips it."""

    brightness = Attr(Float, required=True)
    contrast = Attr(Float, required=True)
    saturation = Attr(Float, required=True)
    hue = Attr(Float, required=True)

    def transform(self, image):
        steps = [(self.brightness, _brightness), (self.contrast, _contrast), (self.saturation, _saturation)]
        for index in torch.randperm(3).tolist():
            amount, function = steps[index]
            if amount > 0:
                image = function(image, 1 + _uniform(-amount, amount))
        if self.hue > 0:
            image = _hue(image, _uniform(-self.hue, self.hue))
        return image


def _lighting(image, alpha):
    eigvec = torch.tensor(_EIGVEC, dtype=torch.float64)
    eigval = torch.tensor(_EIGVAL, dtype=torch.float64)
    shift = eigvec @ (torch.as_tensor(alpha, dtype=torch.float64) * eigval)
    return image + shift.to(dtype=image.dtype, device=image.device)


@register("_image_adjust_lighting")
class AdjustLighting(_ColourOp):
    """AlexNet-style PCA lighting: add ``eigvec @ (alpha * eigval)`` to every RGB pixel."""

    alpha = Attr(FloatTuple, required=True)

    def validate(self):
        if len(self.alpha) != 3:
            raise self.error(f"alpha must have 3 values (R, G, B), got {self.alpha}")

    def transform(self, image):
        return _lighting(image, self.alpha)


@register("_image_random_lighting")
class RandomLighting(_ColourOp):
    """:class:`AdjustLighting` with ``alpha`` drawn from ``N(0, alpha_std)`` per channel."""

    alpha_std = Attr(Float, default=0.05)

    def transform(self, image):
        return _lighting(image, (torch.randn(3, dtype=torch.float64) * self.alpha_std).tolist())

