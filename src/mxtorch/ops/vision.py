"""Spatial resampling layers: UpSampling, Crop, Pad, BilinearSampler, GridGenerator,
SpatialTransformer and contrib BilinearResize2D / AdaptiveAvgPooling2D.

Images are ``(batch, channel, height, width)``.
"""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from .helpers import _check_ndim, _compute_dtype, _where
from .registry import Attr, Bool, Choice, Float, Int, merge_shape, Operator, optional, register, Shape, upcast_half

__all__ = []


# -- UpSampling ------------------------------------------------------------------------------------
@register("UpSampling")
class UpSampling(Operator):
    """Enlarge images by an integer ``scale``.

    ``sample_type='nearest'``: ``num_args`` inputs ``(batch, C_i, h_i, w_i)``; the output
    size is ``scale`` times the first input's, every input is repeated up to it by one
    integer factor on both axes (MXNetError otherwise) and the results are concatenated
    along the channels
    (``multi_input_mode='concat'``, default) or added (``'sum'``, equal channels).

    ``sample_type='bilinear'``: inputs data ``(batch, C, h, w)`` and weight
    ``(C, 1, 2 * scale - scale % 2, 2 * scale - scale % 2)``; the output
    ``(batch, C, scale * h, scale * w)`` is the depthwise transposed convolution with
    stride ``scale`` and pad ``ceil((scale - 1) / 2)`` (MXNet initialises the weight with
    ``mx.init.Bilinear``).  ``num_filter`` and ``workspace`` are accepted as in MXNet.
    """

    traceable = True

    variadic = True
    scale = Attr(Int, required=True)
    num_filter = Attr(Int, default=0)
    sample_type = Attr(Choice("bilinear", "nearest"), required=True)
    multi_input_mode = Attr(Choice("concat", "sum"), default="concat")
    num_args = Attr(Int, required=True)
    workspace = Attr(Int, default=512)

    def validate(self):
        if self.scale < 1:
            raise self.error(f"scale must be a positive integer, got {self.scale}")
        if self.num_args < 1:
            raise self.error(f"num_args must be at least 1, got {self.num_args}")
        # bilinear takes a fixed (data, weight) pair whose weight may be created implicitly
        self.variadic = self.sample_type == "nearest"

    def arguments(self):
        if self.sample_type == "bilinear":
            return ["data", "weight"]
        return [f"arg{i}" for i in range(self.num_args)]

    def input_variable_attrs(self, input_name):
        """MXNet marks the variable bound to the second input for ``mx.init.Bilinear``
        (whatever the sample type)."""
        if input_name in ("weight", "arg1"):
            return {"__init__": '["bilinear", {}]'}
        return {}

    @property
    def kernel_size(self):
        return 2 * self.scale - self.scale % 2

    def infer_shape(self, in_shapes, out_shapes):
        where = _where(self)
        out = out_shapes[0]
        if self.sample_type == "bilinear":
            data, weight = in_shapes
            if data is not None:
                if len(data) != 4:
                    raise self.error(f"data must be 4-D (batch, channel, height, width), got shape {tuple(data)}")
                weight = merge_shape(weight, (data[1], 1, self.kernel_size, self.kernel_size),
                                     f"{where} argument 'weight'")
                out = merge_shape(out, (data[0], data[1], data[2] * self.scale, data[3] * self.scale),
                                  f"{where} output")
            return [data, weight], [out], []
        first = in_shapes[0]
        for index, shape in enumerate(in_shapes):
            if shape is not None and len(shape) != 4:
                raise self.error(f"input {index} must be 4-D (batch, channel, height, width), got shape {tuple(shape)}")
        if first is None or not all(first[2:]):
            return list(in_shapes), [out], []
        height, width = first[2] * self.scale, first[3] * self.scale
        channels = 0
        known_channels = True
        for index, shape in enumerate(in_shapes):
            if shape is None:
                return list(in_shapes), [out], []
            if shape[2] and shape[3]:
                factor = height // shape[2] if not height % shape[2] else 0
                if not factor or shape[3] * factor != width:
                    raise self.error(f"input {index} of shape {tuple(shape)} cannot be enlarged by one integer "
                                     f"factor to the output size {(height, width)} (scale {self.scale} times "
                                     f"input 0)")
            if self.multi_input_mode == "sum":
                if channels and shape[1] and shape[1] != channels:
                    raise self.error(f"multi_input_mode='sum' needs equal channels; input shapes "
                                     f"{[tuple(s) for s in in_shapes]}")
                channels = channels or shape[1]
            else:
                known_channels = known_channels and bool(shape[1])
                channels += shape[1]
        if not known_channels:
            channels = 0
        out = merge_shape(out, (first[0], channels, height, width), f"{where} output")
        return list(in_shapes), [out], []

    def infer_type(self, in_types):
        dtype = next((t for t in in_types if t is not None), None)
        return [dtype] * len(in_types), [dtype], []

    def forward(self, is_train, inputs, aux):
        if self.sample_type == "bilinear":
            data, weight = inputs
            channels = data.shape[1]
            return [F.conv_transpose2d(data, weight, None, self.scale, self.scale // 2, 0, channels)]
        height = inputs[0].shape[2] * self.scale
        upsampled = []
        for tensor in inputs:
            factor = height // tensor.shape[2]
            upsampled.append(tensor.repeat_interleave(factor, dim=2).repeat_interleave(factor, dim=3))
        if len(upsampled) == 1:
            return upsampled
        if self.multi_input_mode == "sum":
            total = upsampled[0]
            for tensor in upsampled[1:]:
                total = total + tensor
            return [total]
        return [torch.cat(upsampled, dim=1)]


# -- Crop and Pad ----------------------------------------------------------------------------------
@register("Crop")
class Crop(Operator):
    """Cut a ``(h, w)`` window out of data ``(batch, channel, height, width)``.

    With one input the window size is ``h_w``; with two (``num_args=2``) it is the spatial
    size of the second input (``crop_like``; it gets a zero gradient).  The window starts at
    ``offset`` ``(y, x)`` (default (0, 0)), or is centred when ``center_crop``
    (offset ``((height - h) // 2, (width - w) // 2)``).  A window reaching outside the
    data raises MXNetError naming the shapes.
    """

    variadic = True
    num_args = Attr(Int, required=True)
    offset = Attr(Shape, default=(0, 0))
    h_w = Attr(Shape, default=(0, 0))
    center_crop = Attr(Bool, default=False)

    def validate(self):
        if self.num_args not in (1, 2):
            raise self.error(f"num_args must be 1 or 2, got {self.num_args}")
        if len(self.offset) != 2 or len(self.h_w) != 2:
            raise self.error(f"offset and h_w must have two values (y, x), got {self.offset} and {self.h_w}")
        if self.num_args == 1 and (self.h_w[0] < 1 or self.h_w[1] < 1):
            raise self.error(f"with one input the crop size h_w must be positive, got {self.h_w}")

    def _window(self, data, like):
        height, width = (like[2], like[3]) if self.num_args == 2 else self.h_w
        if self.center_crop:
            top, left = (data[2] - height) // 2, (data[3] - width) // 2
        else:
            top, left = self.offset
        if top < 0 or left < 0 or top + height > data[2] or left + width > data[3]:
            raise self.error(f"crop window of size {(height, width)} at offset {(top, left)} does not fit into "
                             f"data of shape {tuple(data)}")
        return top, left, height, width

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        like = in_shapes[1] if self.num_args == 2 else None
        out = out_shapes[0]
        for label, shape in (("data", data), ("crop_like", like)):
            if shape is not None and len(shape) != 4:
                raise self.error(f"{label} must be 4-D (batch, channel, height, width), got shape {tuple(shape)}")
        if data is not None and all(data[2:]) and (self.num_args == 1 or (like is not None and all(like[2:]))):
            _, _, height, width = self._window(data, like)
            out = merge_shape(out, (data[0], data[1], height, width), f"{_where(self)} output")
        return list(in_shapes), [out], []

    def infer_type(self, in_types):
        dtype = in_types[0]
        others = [t if t is not None else dtype for t in in_types[1:]]
        return [dtype] + others, [dtype], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        like = tuple(inputs[1].shape) if self.num_args == 2 else None
        top, left, height, width = self._window(tuple(data.shape), like)
        return [data[:, :, top:top + height, left:left + width]]


@register("Pad", "pad", fluent="pad")
class Pad(Operator):
    """Pad a 4-D or 5-D array ``(batch, channel, *spatial)`` along its spatial axes.

    ``pad_width`` is ``(before_0, after_0, ..., before_N, after_N)`` for every axis (numpy's
    pad widths flattened); the first four values (batch and channel) must be 0.  ``mode``:
    'constant' (fill with ``constant_value``, default 0), 'edge' (repeat the border value)
    or 'reflect' (mirror without repeating the border; widths must be smaller than the axis).
    """

    traceable = True

    mode = Attr(Choice("constant", "edge", "reflect"), required=True)
    pad_width = Attr(Shape, required=True)
    constant_value = Attr(Float, default=0.0)

    def _check(self, data):
        if len(data) not in (4, 5):
            raise self.error(f"data must be 4-D or 5-D, got shape {tuple(data)}")
        if len(self.pad_width) != 2 * len(data):
            raise self.error(f"pad_width {self.pad_width} needs {2 * len(data)} values for data of shape {tuple(data)}")
        if any(self.pad_width[:4]):
            raise self.error(f"padding of the batch and channel axes must be 0, got pad_width {self.pad_width}")
        if self.mode == "reflect":
            for axis in range(2, len(data)):
                size = data[axis]
                before, after = self.pad_width[2 * axis], self.pad_width[2 * axis + 1]
                if size and (before >= size or after >= size):
                    raise self.error(f"reflect padding {(before, after)} on axis {axis} must be smaller than the "
                                     f"axis size {size} (data shape {tuple(data)})")

    def infer_shape(self, in_shapes, out_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            self._check(data)
            padded = tuple(size + self.pad_width[2 * axis] + self.pad_width[2 * axis + 1] if size else 0
                           for axis, size in enumerate(data))
            out = merge_shape(out, padded, f"{_where(self)} output")
        return [data], [out], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        self._check(tuple(data.shape))
        widths = []
        for axis in reversed(range(2, data.dim())):
            widths.extend([self.pad_width[2 * axis], self.pad_width[2 * axis + 1]])
        if self.mode == "constant":
            return [F.pad(data, widths, mode="constant", value=self.constant_value)]
        mode = "replicate" if self.mode == "edge" else "reflect"
        compute = upcast_half(data)
        return [F.pad(compute, widths, mode=mode).to(data.dtype)]


# -- sampling grids ------------------------------------------------------------------------------
def _bilinear_sample(data, grid):
    """Sample data ``(N, C, H, W)`` at grid ``(N, 2, h, w)`` (x then y, both in [-1, 1] with
    -1 / 1 at the centres of the border pixels); outside points read zeros."""
    compute = upcast_half(data)
    positions = grid.to(compute.dtype).permute(0, 2, 3, 1)
    output = F.grid_sample(compute, positions, mode="bilinear", padding_mode="zeros", align_corners=True)
    return output.to(data.dtype)


def _affine_grid(theta, height, width):
    """``(N, 2, height, width)`` source coordinates of the affine maps ``theta`` ``(N, 6)``."""
    dtype = upcast_half(theta).dtype
    ys = torch.linspace(-1.0, 1.0, height, dtype=dtype, device=theta.device) if height > 1 else \
        torch.full((1,), -1.0, dtype=dtype, device=theta.device)
    xs = torch.linspace(-1.0, 1.0, width, dtype=dtype, device=theta.device) if width > 1 else \
        torch.full((1,), -1.0, dtype=dtype, device=theta.device)
    grid_y, grid_x = torch.meshgrid(ys, xs, indexing="ij")
    target = torch.stack([grid_x.reshape(-1), grid_y.reshape(-1), torch.ones_like(grid_x).reshape(-1)])
    source = theta.to(dtype).reshape(-1, 2, 3) @ target
    return source.reshape(-1, 2, height, width).to(theta.dtype)


@register("BilinearSampler")
class BilinearSampler(Operator):
    """Bilinear sampling of data ``(batch, C, H, W)`` at grid ``(batch, 2, h, w)``.

    ``grid[:, 0]`` is the x and ``grid[:, 1]`` the y source coordinate, normalised to
    [-1, 1] (-1 and 1 are the centres of the first and last pixels); points outside read
    zeros.  Output ``(batch, C, h, w)``; gradients flow to data and grid.
    """

    cudnn_off = Attr(optional(Bool), default=None)

    def arguments(self):
        return ["data", "grid"]

    def infer_shape(self, in_shapes, out_shapes):
        where = _where(self)
        data, grid, out = in_shapes[0], in_shapes[1], out_shapes[0]
        for label, shape in (("data", data), ("grid", grid)):
            if shape is not None and len(shape) != 4:
                raise self.error(f"{label} must be 4-D, got shape {tuple(shape)}")
        if grid is not None and grid[1] and grid[1] != 2:
            raise self.error(f"grid must have 2 channels (x, y), got shape {tuple(grid)}")
        if data is not None and grid is not None:
            if data[0] and grid[0] and data[0] != grid[0]:
                raise self.error(f"data {tuple(data)} and grid {tuple(grid)} have different batch sizes")
            out = merge_shape(out, (data[0] or grid[0], data[1], grid[2], grid[3]), f"{where} output")
        elif data is not None:
            grid = merge_shape(grid, (data[0], 2, 0, 0), f"{where} argument 'grid'")
        return [data, grid], [out], []

    def forward(self, is_train, inputs, aux):
        return [_bilinear_sample(inputs[0], inputs[1])]


@register("GridGenerator")
class GridGenerator(Operator):
    """Sampling grids for :class:`BilinearSampler`.

    ``transform_type='affine'``: data ``(batch, 6)`` are row-major 2x3 matrices mapping
    target coordinates ``(x, y, 1)`` (normalised to [-1, 1]) to source coordinates; output
    ``(batch, 2, H, W)`` with ``(H, W) = target_shape``.  ``'warp'``: data ``(batch, 2, H, W)``
    is an optical flow in pixels; the output is ``(pixel + flow)`` normalised to [-1, 1]
    (``x / ((W - 1) / 2) - 1``), channel 0 x and channel 1 y.
    """

    transform_type = Attr(Choice("affine", "warp"), required=True)
    target_shape = Attr(Shape, default=(0, 0))

    def validate(self):
        if self.transform_type == "affine" and (len(self.target_shape) != 2 or min(self.target_shape) < 1):
            raise self.error(f"transform_type='affine' needs target_shape (H, W) with positive sizes, "
                             f"got {self.target_shape}")

    def infer_shape(self, in_shapes, out_shapes):
        where = _where(self)
        data, out = in_shapes[0], out_shapes[0]
        if self.transform_type == "affine":
            if data is not None and (len(data) != 2 or (data[1] and data[1] != 6)):
                raise self.error(f"affine data must have shape (batch, 6), got {tuple(data)}")
            if data is not None:
                out = merge_shape(out, (data[0], 2) + tuple(self.target_shape), f"{where} output")
            elif out is not None and out[0]:
                data = (out[0], 6)
            return [data], [out], []
        if data is not None and (len(data) != 4 or (data[1] and data[1] != 2)):
            raise self.error(f"warp data must have shape (batch, 2, H, W), got {tuple(data)}")
        data = merge_shape(data, out, f"{where} argument 'data'")
        return [data], [data], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if self.transform_type == "affine":
            return [_affine_grid(data, *self.target_shape)]
        height, width = data.shape[2], data.shape[3]
        ys = torch.arange(height, dtype=data.dtype, device=data.device).reshape(1, height, 1)
        xs = torch.arange(width, dtype=data.dtype, device=data.device).reshape(1, 1, width)
        grid_x = (data[:, 0] + xs) / ((width - 1) / 2.0) - 1.0
        grid_y = (data[:, 1] + ys) / ((height - 1) / 2.0) - 1.0
        return [torch.stack([grid_x, grid_y], dim=1)]


@register("SpatialTransformer")
class SpatialTransformer(Operator):
    """Spatial transformer network layer: ``BilinearSampler(data, GridGenerator(loc))``.

    data ``(batch, C, H, W)``, loc ``(batch, 6)`` affine matrices (``transform_type='affine'``,
    ``sampler_type='bilinear'``, the only kinds MXNet offers); output
    ``(batch, C) + target_shape``.
    """

    target_shape = Attr(Shape, default=(0, 0))
    transform_type = Attr(Choice("affine"), required=True)
    sampler_type = Attr(Choice("bilinear"), required=True)
    cudnn_off = Attr(optional(Bool), default=None)

    def validate(self):
        if len(self.target_shape) != 2 or min(self.target_shape) < 1:
            raise self.error(f"target_shape must be (H, W) with positive sizes, got {self.target_shape}")

    def arguments(self):
        return ["data", "loc"]

    def infer_shape(self, in_shapes, out_shapes):
        where = _where(self)
        data, loc, out = in_shapes[0], in_shapes[1], out_shapes[0]
        if data is not None:
            if len(data) != 4:
                raise self.error(f"data must be 4-D (batch, channel, height, width), got shape {tuple(data)}")
            loc = merge_shape(loc, (data[0], 6), f"{where} argument 'loc'")
            out = merge_shape(out, tuple(data[:2]) + tuple(self.target_shape), f"{where} output")
        elif loc is not None:
            loc = merge_shape(loc, (0, 6), f"{where} argument 'loc'")
        return [data, loc], [out], []

    def forward(self, is_train, inputs, aux):
        data, loc = inputs
        grid = _affine_grid(loc.reshape(loc.shape[0], 6), *self.target_shape)
        return [_bilinear_sample(data, grid)]


# -- resizing --------------------------------------------------------------------------------------
@register("_contrib_BilinearResize2D")
class BilinearResize2D(Operator):
    """Bilinear resizing of data ``(batch, C, H, W)`` to ``(batch, C, new_h, new_w)``.

    ``mode``: 'size' (``(height, width)``, or ``int(H * scale_height)``,
    ``int(W * scale_width)`` when scale_height is given; it then needs scale_width),
    'like' (the spatial size of the second input ``like``, which gets a zero gradient),
    'odd_scale' (``H * scale`` for even sizes, ``(H - 1) * scale + 1`` for odd ones, per
    axis), 'to_even_down' / 'to_even_up' / 'to_odd_down' / 'to_odd_up' (the nearest even or
    odd size below / above, the size itself when it already is).  ``align_corners=True``
    (default) maps corner pixel centres onto each other; ``False`` maps pixel areas, and an
    output axis of size 1 then reads index 0 (MXNet's rule).  Gradients flow to data.
    """

    plot_input_count = 1   # mx.viz draws only the data edge (as MXNet's plot_network)
    # MXNet 1.9.1 takes only the shape of ``like``: any dtype
    free_dtype_inputs = ("like",)

    height = Attr(Int, default=1)
    width = Attr(Int, default=1)
    scale_height = Attr(optional(Float), default=None)
    scale_width = Attr(optional(Float), default=None)
    mode = Attr(Choice("like", "odd_scale", "size", "to_even_down", "to_even_up", "to_odd_down", "to_odd_up"),
                default="size")
    align_corners = Attr(Bool, default=True)

    def validate(self):
        if self.height < 1 or self.width < 1:
            raise self.error(f"height and width must be at least 1, got {self.height} and {self.width}")
        if self.mode == "odd_scale" and (self.scale_height is None or self.scale_width is None):
            raise self.error("mode='odd_scale' needs both scale_height and scale_width")
        if self.mode == "size" and self.scale_height is not None and self.scale_width is None:
            raise self.error("scale_height is given without scale_width")

    def arguments(self):
        return ["data", "like"] if self.mode == "like" else ["data"]

    def _size(self, data, like):
        """``(new_h, new_w)`` from data's spatial size (0 = unknown) and like's shape."""
        height, width = data[2], data[3]
        f32 = np.float32
        if self.mode == "like":
            return (like[2], like[3]) if like is not None else (0, 0)
        if self.mode == "size":
            if self.scale_height is None:
                return self.height, self.width
            return (int(f32(self.scale_height) * f32(height)) if height else 0,
                    int(f32(self.scale_width) * f32(width)) if width else 0)
        if self.mode == "odd_scale":
            def odd(size, scale):
                if not size:
                    return 0
                return int(f32(size) * f32(scale)) if size % 2 == 0 else int(f32(size - 1) * f32(scale)) + 1
            return odd(height, self.scale_height), odd(width, self.scale_width)
        parity = 0 if "even" in self.mode else 1
        step = -1 if self.mode.endswith("down") else 1
        return tuple(size if not size or size % 2 == parity else size + step for size in (height, width))

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        like = in_shapes[1] if self.mode == "like" else None
        out = out_shapes[0]
        _check_ndim(self, "data", data, 4, "(batch, channel, height, width)")
        _check_ndim(self, "like", like, 4, "(batch, channel, height, width)")
        if data is not None:
            size = self._size(data, like)
            if any(s < 0 for s in size) or (all(data[2:]) and (self.mode != "like" or like is not None)
                                            and min(size) < 1):
                raise self.error(f"mode={self.mode!r} gives the output size {size} for data {tuple(data)}; sizes "
                                 f"must be positive")
            out = merge_shape(out, (data[0], data[1]) + tuple(size), f"{_where(self)} output")
        return [data] + ([like] if self.mode == "like" else []), [out], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        like = tuple(inputs[1].shape) if self.mode == "like" else None
        if data.dim() != 4:
            raise self.error(f"data must be 4-D (batch, channel, height, width), got shape {tuple(data.shape)}")
        size = self._size(tuple(data.shape), like)
        if min(size) < 1:
            raise self.error(f"mode={self.mode!r} gives the output size {size} for data {tuple(data.shape)}")
        source = data.to(_compute_dtype(data))
        if tuple(source.shape[2:]) == tuple(size):
            return [data * 1]                   # MXNet copies
        rows = _bilinear_axis(source.shape[2], size[0], self.align_corners, source)
        cols = _bilinear_axis(source.shape[3], size[1], self.align_corners, source)
        (top, bottom, down), (left, right, across) = rows, cols
        upper, lower = source[:, :, top], source[:, :, bottom]
        output = ((1 - down)[:, None] * ((1 - across) * upper[..., left] + across * upper[..., right])
                  + down[:, None] * ((1 - across) * lower[..., left] + across * lower[..., right]))
        return [output.to(data.dtype)]


def _bilinear_axis(in_size, out_size, align_corners, like):
    """MXNet 1.9.1's sampling along one axis of BilinearResize2D: the source index
    ``(in - 1) / (out - 1) * i`` (align_corners) or ``max(in / out * (i + 0.5) - 0.5, 0)``,
    computed in float32 whatever the data's dtype (MXNet's kernel uses ``float``; an output
    of size 1 reads index 0), its floor, the next index (clamped) and the weight of the next
    one (float32, then in the data's dtype)."""
    f32 = np.float32
    if out_size > 1:
        scale = f32(in_size - 1) / f32(out_size - 1) if align_corners else f32(in_size) / f32(out_size)
    else:
        scale = f32(0)
    index = np.arange(out_size)
    if align_corners:
        source = scale * index.astype(f32)
    else:   # float * (int + 0.5) - 0.5 is computed in double, then stored in float
        source = np.maximum(float(scale) * (index + 0.5) - 0.5, 0).astype(f32)
    low = source.astype(np.int64)
    high = low + (low < in_size - 1)
    weight = (source - low.astype(f32)).astype(f32)
    device = like.device
    return (torch.from_numpy(low).to(device), torch.from_numpy(high).to(device),
            torch.from_numpy(weight).to(device=device, dtype=like.dtype))


@register("_contrib_AdaptiveAvgPooling2D")
class AdaptiveAvgPooling2D(Operator):
    """Adaptive average pooling of data ``(batch, C, H, W)`` to ``(batch, C, oh, ow)``.

    ``output_size``: ``()`` (default) means ``(1, 1)``, one value a square, two values
    ``(oh, ow)``.  Output cell ``(i, j)`` averages rows ``floor(i * H / oh)`` to
    ``ceil((i + 1) * H / oh)`` (exclusive) and the columns likewise, as PyTorch's
    ``adaptive_avg_pool2d``.  Gradients flow to data.
    """

    traceable = True

    output_size = Attr(Shape, default=())

    def validate(self):
        if len(self.output_size) > 2 or any(size < 1 for size in self.output_size):
            raise self.error(f"output_size must be (), (size,) or (height, width) with positive sizes, got "
                             f"{self.output_size}")

    @property
    def size(self):
        if not self.output_size:
            return (1, 1)
        if len(self.output_size) == 1:
            return (self.output_size[0],) * 2
        return tuple(self.output_size)

    def infer_shape(self, in_shapes, out_shapes):
        data, out = in_shapes[0], out_shapes[0]
        _check_ndim(self, "data", data, 4, "(batch, channel, height, width)")
        if data is not None:
            out = merge_shape(out, (data[0], data[1]) + self.size, f"{_where(self)} output")
        return [data], [out], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if data.dim() != 4:
            raise self.error(f"data must be 4-D (batch, channel, height, width), got shape {tuple(data.shape)}")
        return [F.adaptive_avg_pool2d(data.to(_compute_dtype(data)), self.size).to(data.dtype)]
