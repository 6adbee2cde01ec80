"""Vision layers: UpSampling, Crop, Pad, BilinearSampler, GridGenerator,
SpatialTransformer, ROIPooling, ROIAlign and the SSD MultiBox operators.

Images are ``(batch, channel, height, width)``.  Boxes are ``(x1, y1, x2, y2)``
corners; ROIs carry a leading batch index: ``(batch_index, x1, y1, x2, y2)``.
"""
from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F

from .registry import (upcast_half, Attr, Operator, register, Int, Float, Bool, Shape, FloatTuple, Choice, optional,
                       merge_shape)
from .loss import data_label_types

__all__ = []

# elements of one gathered block in the ROI operators (bounds their temporary memory)
_BLOCK_ELEMENTS = 1 << 24


def _where(op):
    return f"Operator {op.name}"



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


# -- region-of-interest pooling ------------------------------------------------------------------
def _round_half_away(values):
    return torch.sign(values) * torch.floor(values.abs() + 0.5)


def _roi_shapes(op, in_shapes, out_shapes, channels_out=None):
    where = _where(op)
    data, rois, out = in_shapes[0], in_shapes[1], out_shapes[0]
    if data is not None and len(data) != 4:
        raise op.error(f"data must be 4-D (batch, channel, height, width), got shape {tuple(data)}")
    if rois is not None and (len(rois) != 2 or (rois[1] and rois[1] != 5)):
        raise op.error(f"rois must have shape (num_rois, 5) = (batch_index, x1, y1, x2, y2), got {tuple(rois)}")
    if data is not None and rois is not None:
        channels = channels_out(data[1]) if channels_out else data[1]
        out = merge_shape(out, (rois[0], channels) + tuple(op.pooled_size), f"{where} output")
    return [data, rois], [out], []


def _roi_blocks(count, per_roi):
    """Slices of at most ``_BLOCK_ELEMENTS`` elements over ``count`` ROIs."""
    step = max(1, _BLOCK_ELEMENTS // max(per_roi, 1))
    return [slice(start, min(start + step, count)) for start in range(0, count, step)]


class _ROIOperator(Operator):
    """ROIPooling and ROIAlign: inputs data and rois (rois take data's dtype when theirs is
    unknown), a ``pooled_size`` attribute of two positive sizes ``(h, w)``."""

    def validate(self):
        if len(self.pooled_size) != 2 or min(self.pooled_size) < 1:
            raise self.error(f"pooled_size must be (h, w) with positive sizes, got {self.pooled_size}")

    def arguments(self):
        return ["data", "rois"]

    def infer_type(self, in_types):
        return data_label_types(in_types)


@register("ROIPooling")
class ROIPooling(_ROIOperator):
    """Max pooling of regions of interest into a fixed ``pooled_size`` ``(h, w)`` grid.

    data ``(batch, C, H, W)``; rois ``(R, 5)`` rows ``(batch_index, x1, y1, x2, y2)`` in
    input-image coordinates, scaled by ``spatial_scale`` and rounded (half away from
    zero); a region covers ``x2 - x1 + 1`` by ``y2 - y1 + 1`` cells (at least 1) split into
    bins with floor / ceil boundaries, as in MXNet (Fast R-CNN).  Output ``(R, C, h, w)``:
    the maximum of each bin, 0 for empty bins and for ROIs whose batch index is out of
    range.  The gradient goes to the maximum's position; rois get a zero gradient.
    """

    pooled_size = Attr(Shape, required=True)
    spatial_scale = Attr(Float, required=True)

    def validate(self):
        super().validate()
        if self.spatial_scale <= 0:
            raise self.error(f"spatial_scale must be positive, got {self.spatial_scale}")

    def infer_shape(self, in_shapes, out_shapes):
        return _roi_shapes(self, in_shapes, out_shapes)

    def forward(self, is_train, inputs, aux):
        data, rois = inputs
        batch, channels, height, width = data.shape
        pooled_h, pooled_w = self.pooled_size
        boxes = rois.detach().to(torch.float32)
        scale = torch.tensor(self.spatial_scale, dtype=torch.float32)
        index = boxes[:, 0].long()
        x1, y1, x2, y2 = (_round_half_away(boxes[:, i] * scale).long() for i in range(1, 5))
        roi_w = (x2 - x1 + 1).clamp(min=1).to(torch.float32)
        roi_h = (y2 - y1 + 1).clamp(min=1).to(torch.float32)

        def bins(start, size, pooled, limit):
            steps = torch.arange(pooled, dtype=torch.float32, device=boxes.device)
            bin_size = (size / pooled).unsqueeze(1)
            low = torch.floor(steps * bin_size).long() + start.unsqueeze(1)
            high = torch.ceil((steps + 1) * bin_size).long() + start.unsqueeze(1)
            return low.clamp(0, limit), high.clamp(0, limit)

        h_low, h_high = bins(y1, roi_h, pooled_h, height)
        w_low, w_high = bins(x1, roi_w, pooled_w, width)
        valid_roi = (index >= 0) & (index < batch)
        span_h = int((h_high - h_low).max().clamp(min=1)) if len(boxes) else 1
        span_w = int((w_high - w_low).max().clamp(min=1)) if len(boxes) else 1
        rows = h_low.unsqueeze(2) + torch.arange(span_h, device=boxes.device)       # (R, ph, sh)
        cols = w_low.unsqueeze(2) + torch.arange(span_w, device=boxes.device)       # (R, pw, sw)
        inside_h = rows < h_high.unsqueeze(2)
        inside_w = cols < w_high.unsqueeze(2)
        flat = data.permute(0, 2, 3, 1).reshape(batch * height * width, channels)
        pieces = []
        for block in _roi_blocks(len(boxes), pooled_h * pooled_w * span_h * span_w * channels):
            image = index[block].clamp(0, batch - 1).reshape(-1, 1, 1, 1, 1)
            position = (image * height + rows[block][:, :, None, :, None]) * width + cols[block][:, None, :, None, :]
            inside = inside_h[block][:, :, None, :, None] & inside_w[block][:, None, :, None, :] & \
                valid_roi[block].reshape(-1, 1, 1, 1, 1)
            position = torch.where(inside, position, torch.zeros_like(position))
            values = flat[position.reshape(-1)].reshape(position.shape + (channels,))
            values = values.masked_fill(~inside.unsqueeze(-1), -math.inf)
            values = values.reshape(values.shape[0], pooled_h, pooled_w, span_h * span_w, channels)
            best = values.max(dim=3).values
            empty = ~inside.reshape(inside.shape[0], pooled_h, pooled_w, -1).any(dim=3)
            best = best.masked_fill(empty.unsqueeze(-1), 0.0)
            pieces.append(best.permute(0, 3, 1, 2))
        if not pieces:
            return [data.new_zeros((0, channels, pooled_h, pooled_w))]
        return [torch.cat(pieces, dim=0) if len(pieces) > 1 else pieces[0]]


@register("_contrib_ROIAlign", "ROIAlign")
class ROIAlign(_ROIOperator):
    """ROI Align (Mask R-CNN): average of bilinear samples in each bin of a region.

    data ``(batch, C, H, W)``; rois ``(R, 5)`` rows ``(batch_index, x1, y1, x2, y2)`` scaled
    by ``spatial_scale`` without rounding (minus half a pixel when ``aligned``; regions are
    at least 1x1 unless ``aligned``).  Each of the ``pooled_size`` ``(h, w)`` bins averages
    ``sample_ratio`` x ``sample_ratio`` samples (``-1``: ``ceil(bin size)`` per axis).  A
    sample more than one pixel outside the map reads 0; others are clamped to the map and
    bilinearly interpolated.  Output ``(R, C, h, w)``, or ``(R, C / (h * w), h, w)`` with
    ``position_sensitive`` (bin (i, j) of output channel c reads input channel
    ``(c * h + i) * w + j``).  ROIs with a negative batch index give zeros.  rois get a
    zero gradient.
    """

    pooled_size = Attr(Shape, required=True)
    spatial_scale = Attr(Float, required=True)
    sample_ratio = Attr(Int, default=-1)
    position_sensitive = Attr(Bool, default=False)
    aligned = Attr(Bool, default=False)

    def _channels_out(self, channels):
        if not self.position_sensitive or not channels:
            return channels
        bins = self.pooled_size[0] * self.pooled_size[1]
        if channels % bins:
            raise self.error(f"position_sensitive needs data channels ({channels}) divisible by "
                             f"pooled h * w = {bins}")
        return channels // bins

    def infer_shape(self, in_shapes, out_shapes):
        return _roi_shapes(self, in_shapes, out_shapes, self._channels_out)

    def forward(self, is_train, inputs, aux):
        data, rois = inputs
        batch, channels, height, width = data.shape
        pooled_h, pooled_w = self.pooled_size
        out_channels = self._channels_out(channels)
        compute = upcast_half(data)
        boxes = rois.detach().to(compute.dtype)
        offset = 0.5 if self.aligned else 0.0
        index = boxes[:, 0].long()
        start_x = boxes[:, 1] * self.spatial_scale - offset
        start_y = boxes[:, 2] * self.spatial_scale - offset
        roi_w = boxes[:, 3] * self.spatial_scale - offset - start_x
        roi_h = boxes[:, 4] * self.spatial_scale - offset - start_y
        if not self.aligned:
            roi_w = roi_w.clamp(min=1.0)
            roi_h = roi_h.clamp(min=1.0)
        bin_h, bin_w = roi_h / pooled_h, roi_w / pooled_w
        if self.sample_ratio > 0:
            grid_h = torch.full_like(index, self.sample_ratio)
            grid_w = torch.full_like(index, self.sample_ratio)
        else:
            grid_h = torch.ceil(roi_h / pooled_h).long()
            grid_w = torch.ceil(roi_w / pooled_w).long()
        count = (grid_h * grid_w).clamp(min=1).to(compute.dtype)
        span_h = int(grid_h.max().clamp(min=1)) if len(boxes) else 1
        span_w = int(grid_w.max().clamp(min=1)) if len(boxes) else 1
        device = data.device
        # sample coordinates: (R, pooled, span)
        steps_h = torch.arange(pooled_h, device=device, dtype=compute.dtype)
        steps_w = torch.arange(pooled_w, device=device, dtype=compute.dtype)
        samples_h = torch.arange(span_h, device=device, dtype=compute.dtype)
        samples_w = torch.arange(span_w, device=device, dtype=compute.dtype)
        ys = start_y[:, None, None] + steps_h[None, :, None] * bin_h[:, None, None] + \
            (samples_h[None, None, :] + 0.5) * (bin_h / grid_h.clamp(min=1))[:, None, None]
        xs = start_x[:, None, None] + steps_w[None, :, None] * bin_w[:, None, None] + \
            (samples_w[None, None, :] + 0.5) * (bin_w / grid_w.clamp(min=1))[:, None, None]
        used_h = samples_h[None, None, :] < grid_h[:, None, None]
        used_w = samples_w[None, None, :] < grid_w[:, None, None]

        def corners(coordinate, limit):
            outside = (coordinate < -1.0) | (coordinate > limit)
            coordinate = coordinate.clamp(min=0.0)
            low = torch.floor(coordinate).long()
            at_end = low >= limit - 1
            low = torch.where(at_end, torch.full_like(low, limit - 1), low)
            high = torch.where(at_end, low, low + 1)
            coordinate = torch.where(at_end, low.to(coordinate.dtype), coordinate)
            fraction = coordinate - low.to(coordinate.dtype)
            return low, high, fraction, outside

        y_low, y_high, y_frac, y_out = corners(ys, height)
        x_low, x_high, x_frac, x_out = corners(xs, width)
        valid_roi = (index >= 0) & (index < batch)
        flat = compute.permute(0, 2, 3, 1).reshape(batch * height * width, channels)
        if self.position_sensitive:
            # input channel of (output channel c, bin i, j)
            channel_index = ((torch.arange(out_channels, device=device)[:, None, None] * pooled_h +
                              torch.arange(pooled_h, device=device)[None, :, None]) * pooled_w +
                             torch.arange(pooled_w, device=device)[None, None, :])
        pieces = []
        per_roi = pooled_h * pooled_w * span_h * span_w * channels * 4
        for block in _roi_blocks(len(boxes), per_roi):
            image = index[block].clamp(0, batch - 1).reshape(-1, 1, 1, 1, 1)
            # (B, ph, pw, sh, sw) weights of the four corners
            weight_valid = (used_h[block][:, :, None, :, None] & used_w[block][:, None, :, None, :] &
                            ~y_out[block][:, :, None, :, None] & ~x_out[block][:, None, :, None, :] &
                            valid_roi[block].reshape(-1, 1, 1, 1, 1)).to(compute.dtype)
            fy = y_frac[block][:, :, None, :, None]
            fx = x_frac[block][:, None, :, None, :]
            total = 0
            for rows, wy in ((y_low[block], 1 - fy), (y_high[block], fy)):
                for cols, wx in ((x_low[block], 1 - fx), (x_high[block], fx)):
                    position = (image * height + rows[:, :, None, :, None]) * width + cols[:, None, :, None, :]
                    values = flat[position.reshape(-1)].reshape(position.shape + (channels,))
                    total = total + values * (wy * wx * weight_valid).unsqueeze(-1)
            pooled = total.sum(dim=(3, 4)) / count[block].reshape(-1, 1, 1, 1)     # (B, ph, pw, C)
            pooled = pooled.permute(0, 3, 1, 2)                                      # (B, C, ph, pw)
            if self.position_sensitive:
                gather = channel_index.unsqueeze(0).expand(pooled.shape[0], -1, -1, -1)
                pooled = torch.gather(pooled, 1, gather)
            pieces.append(pooled)
        if not pieces:
            return [data.new_zeros((0, out_channels, pooled_h, pooled_w))]
        output = torch.cat(pieces, dim=0) if len(pieces) > 1 else pieces[0]
        return [output.to(data.dtype)]


# -- SSD MultiBox operators ------------------------------------------------------------------------
@register("_contrib_MultiBoxPrior", "MultiBoxPrior")
class MultiBoxPrior(Operator):
    """Anchor boxes for every position of a feature map (SSD).

    data ``(batch, C, H, W)`` (only its shape is used).  At each cell (row r, column c) the
    centre is ``((c + offsets[1]) * step_x, (r + offsets[0]) * step_y)`` with ``steps``
    ``(step_y, step_x)`` (``-1``: ``1 / H`` and ``1 / W``).  Each cell gets
    ``len(sizes) + len(ratios) - 1`` boxes: every size with ratio 1, then ``sizes[0]`` with
    every further ratio; a box of size s and ratio q has half-width
    ``s * H / W * sqrt(q) / 2`` and half-height ``s / sqrt(q) / 2``.  Output
    ``(1, H * W * boxes, 4)`` corners ``(xmin, ymin, xmax, ymax)`` in [0, 1] units, clipped
    to [0, 1] when ``clip``.  No gradient flows to data.
    """

    sizes = Attr(FloatTuple, default=(1.0,))
    ratios = Attr(FloatTuple, default=(1.0,))
    clip = Attr(Bool, default=False)
    steps = Attr(FloatTuple, default=(-1.0, -1.0))
    offsets = Attr(FloatTuple, default=(0.5, 0.5))

    def validate(self):
        if not self.sizes or min(self.sizes) <= 0:
            raise self.error(f"sizes must be positive, got {self.sizes}")
        if not self.ratios or min(self.ratios) <= 0:
            raise self.error(f"ratios must be positive, got {self.ratios}")
        if len(self.steps) != 2 or len(self.offsets) != 2:
            raise self.error(f"steps and offsets need two values (y, x), got {self.steps} and {self.offsets}")

    @property
    def boxes_per_cell(self):
        return len(self.sizes) + len(self.ratios) - 1

    def infer_shape(self, in_shapes, out_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            if len(data) != 4:
                raise self.error(f"data must be 4-D (batch, channel, height, width), got shape {tuple(data)}")
            if data[2] and data[3]:
                out = merge_shape(out, (1, data[2] * data[3] * self.boxes_per_cell, 4), f"{_where(self)} output")
        return [data], [out], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        height, width = data.shape[2], data.shape[3]
        dtype = torch.float32 if not data.is_floating_point() else data.dtype
        step_y = self.steps[0] if self.steps[0] > 0 else 1.0 / height
        step_x = self.steps[1] if self.steps[1] > 0 else 1.0 / width
        half = []
        for size in self.sizes:
            half.append((size * height / width / 2, size / 2))
        for ratio in self.ratios[1:]:
            root = math.sqrt(ratio)
            half.append((self.sizes[0] * height / width * root / 2, self.sizes[0] / root / 2))
        half = torch.tensor(half, dtype=torch.float32, device=data.device)               # (K, 2)
        rows = (torch.arange(height, dtype=torch.float32, device=data.device) + self.offsets[0]) * step_y
        cols = (torch.arange(width, dtype=torch.float32, device=data.device) + self.offsets[1]) * step_x
        centre_y, centre_x = torch.meshgrid(rows, cols, indexing="ij")
        centre = torch.stack([centre_x, centre_y], dim=-1).reshape(-1, 1, 2)             # (H*W, 1, 2)
        boxes = torch.cat([centre - half, centre + half], dim=-1).reshape(1, -1, 4)
        if self.clip:
            boxes = boxes.clamp(0.0, 1.0)
        return [boxes.to(dtype)]


def _box_iou(boxes, others):
    """IoU of every box in ``boxes`` (n, 4) with every box of ``others`` (m, 4): (n, m)."""
    width = np.maximum(0.0, np.minimum(boxes[:, None, 2], others[None, :, 2]) -
                       np.maximum(boxes[:, None, 0], others[None, :, 0]))
    height = np.maximum(0.0, np.minimum(boxes[:, None, 3], others[None, :, 3]) -
                        np.maximum(boxes[:, None, 1], others[None, :, 1]))
    intersection = width * height
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    other_area = (others[:, 2] - others[:, 0]) * (others[:, 3] - others[:, 1])
    union = area[:, None] + other_area[None, :] - intersection
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(union <= 0, 0.0, intersection / np.where(union <= 0, 1.0, union)).astype(boxes.dtype)


@register("_contrib_MultiBoxTarget", "MultiBoxTarget")
class MultiBoxTarget(Operator):
    """SSD training targets from anchors, ground truth and class predictions.

    anchor ``(1, A, 4)``; label ``(batch, M, 5+)`` rows ``(class, xmin, ymin, xmax, ymax, ...)``
    padded with rows of -1 (the first row whose class is -1 ends the list); cls_pred
    ``(batch, classes + 1, A)`` (class 0 is background).  Each ground truth first claims its
    best-overlapping free anchor (greedy, highest IoU first); then every other anchor whose
    best IoU exceeds ``overlap_threshold`` becomes positive.  Negatives are all the other
    anchors, or with ``negative_mining_ratio > 0`` the ``ratio * positives`` anchors with
    IoU below ``negative_mining_thresh`` and the lowest background probability; the rest
    get ``ignore_label``.

    Outputs: loc_target ``(batch, A * 4)`` (centre offsets divided by anchor size and
    variances, log size ratios divided by variances), loc_mask ``(batch, A * 4)`` (1 for
    positives), cls_target ``(batch, A)`` (class + 1, 0 for negatives, ``ignore_label``
    otherwise).  Computed on the host with numpy, as MXNet did on the CPU; no gradient.
    """

    overlap_threshold = Attr(Float, default=0.5)
    ignore_label = Attr(Float, default=-1.0)
    negative_mining_ratio = Attr(Float, default=-1.0)
    negative_mining_thresh = Attr(Float, default=0.5)
    minimum_negative_samples = Attr(Int, default=0)
    variances = Attr(FloatTuple, default=(0.1, 0.1, 0.2, 0.2))

    def validate(self):
        if len(self.variances) != 4:
            raise self.error(f"variances must have 4 values, got {self.variances}")

    def arguments(self):
        return ["anchor", "label", "cls_pred"]

    def outputs(self):
        return ["loc_target", "loc_mask", "cls_target"]

    def infer_shape(self, in_shapes, out_shapes):
        where = _where(self)
        anchor, label, cls_pred = in_shapes
        if anchor is not None and (len(anchor) != 3 or (anchor[2] and anchor[2] != 4)):
            raise self.error(f"anchor must have shape (1, num_anchors, 4), got {tuple(anchor)}")
        if label is not None and (len(label) != 3 or (label[2] and label[2] < 5)):
            raise self.error(f"label must have shape (batch, num_labels, 5 or more), got {tuple(label)}")
        if cls_pred is not None and len(cls_pred) != 3:
            raise self.error(f"cls_pred must have shape (batch, num_classes, num_anchors), got {tuple(cls_pred)}")
        outs = list(out_shapes)
        if anchor is not None and label is not None:
            count, batch = anchor[1], label[0]
            if cls_pred is not None and cls_pred[2] and count and cls_pred[2] != count:
                raise self.error(f"cls_pred {tuple(cls_pred)} has {cls_pred[2]} anchors, anchor {tuple(anchor)} "
                                 f"has {count}")
            outs[0] = merge_shape(outs[0], (batch, count * 4), f"{where} output 'loc_target'")
            outs[1] = merge_shape(outs[1], (batch, count * 4), f"{where} output 'loc_mask'")
            outs[2] = merge_shape(outs[2], (batch, count), f"{where} output 'cls_target'")
        return [anchor, label, cls_pred], outs, []

    def forward(self, is_train, inputs, aux):
        anchor_t, label_t, cls_pred_t = inputs
        anchors = anchor_t.detach().reshape(-1, 4).float().cpu().numpy()
        labels = label_t.detach().float().cpu().numpy()
        cls_preds = cls_pred_t.detach().float().cpu().numpy()
        batch, count = labels.shape[0], anchors.shape[0]
        loc_target = np.zeros((batch, count * 4), np.float32)
        loc_mask = np.zeros((batch, count * 4), np.float32)
        cls_target = np.full((batch, count), self.ignore_label, np.float32)
        for index in range(batch):
            self._assign(anchors, labels[index], cls_preds[index], loc_target[index], loc_mask[index],
                         cls_target[index])
        device, dtype = anchor_t.device, anchor_t.dtype
        return [torch.from_numpy(a).to(device=device, dtype=dtype) for a in (loc_target, loc_mask, cls_target)]

    def _assign(self, anchors, label, cls_pred, loc_target, loc_mask, cls_target):
        count = anchors.shape[0]
        ends = np.nonzero(label[:, 0] == -1.0)[0]
        valid = int(ends[0]) if len(ends) else label.shape[0]
        if valid == 0:
            return
        truths = label[:valid]
        overlaps = _box_iou(anchors, truths[:, 1:5])                   # (A, G)
        matched_gt = np.full(count, -1, np.int64)
        best_iou = np.full(count, -1.0, np.float32)
        flags = np.full(count, -1, np.int8)                            # 1 positive, 0 negative
        gt_done = np.zeros(valid, bool)
        positives = 0
        while not gt_done.all():
            masked = np.where((flags[:, None] == 1) | gt_done[None, :], -np.inf, overlaps)
            position = int(np.argmax(masked))
            anchor_index, gt_index = divmod(position, valid)
            if not masked[anchor_index, gt_index] > 1e-6:
                break
            matched_gt[anchor_index] = gt_index
            best_iou[anchor_index] = overlaps[anchor_index, gt_index]
            gt_done[gt_index] = True
            flags[anchor_index] = 1
            positives += 1
        free = flags != 1
        best_gt = np.argmax(overlaps, axis=1)
        best_value = overlaps[np.arange(count), best_gt]
        if self.overlap_threshold > 0:
            matched_gt[free] = best_gt[free]
            best_iou[free] = best_value[free]
            promote = free & (best_value > self.overlap_threshold)
            flags[promote] = 1
            positives += int(promote.sum())
        if self.negative_mining_ratio > 0:
            negatives = min(int(positives * self.negative_mining_ratio), count - positives)
            if negatives > 0:
                unset = (flags != 1) & (best_iou < 0)
                best_iou[unset] = best_value[unset]
                candidates = np.nonzero((flags == -1) & (best_iou < self.negative_mining_thresh))[0]
                logits = cls_pred[:, candidates]
                shifted = np.exp(logits - logits.max(axis=0, keepdims=True))
                background = shifted[0] / shifted.sum(axis=0)
                order = candidates[np.argsort(background, kind="stable")]
                flags[order[:negatives]] = 0
        else:
            flags[flags != 1] = 0
        positive = np.nonzero(flags == 1)[0]
        negative = flags == 0
        cls_target[negative] = 0
        if len(positive):
            truth = truths[matched_gt[positive]]
            cls_target[positive] = truth[:, 0] + 1
            box = anchors[positive]
            anchor_w, anchor_h = box[:, 2] - box[:, 0], box[:, 3] - box[:, 1]
            anchor_x, anchor_y = (box[:, 0] + box[:, 2]) * 0.5, (box[:, 1] + box[:, 3]) * 0.5
            gt = truth[:, 1:5]
            gt_w, gt_h = gt[:, 2] - gt[:, 0], gt[:, 3] - gt[:, 1]
            gt_x, gt_y = (gt[:, 0] + gt[:, 2]) * 0.5, (gt[:, 1] + gt[:, 3]) * 0.5
            vx, vy, vw, vh = self.variances
            targets = np.stack([(gt_x - anchor_x) / anchor_w / vx, (gt_y - anchor_y) / anchor_h / vy,
                                np.log(gt_w / anchor_w) / vw, np.log(gt_h / anchor_h) / vh], axis=1)
            rows = (positive[:, None] * 4 + np.arange(4)).reshape(-1)
            loc_target[rows] = targets.reshape(-1)
            loc_mask[rows] = 1.0


@register("_contrib_MultiBoxDetection", "MultiBoxDetection")
class MultiBoxDetection(Operator):
    """Decode SSD predictions into detections with per-class non-maximum suppression.

    cls_prob ``(batch, classes + 1, A)`` (class 0 is background), loc_pred ``(batch, A * 4)``,
    anchor ``(1, A, 4)``.  Each anchor takes its most probable non-background class; those
    below ``threshold`` are dropped.  Boxes decode as centre ``anchor_centre + offset *
    variance * anchor_size`` and size ``anchor_size * exp(offset * variance)``, clipped to
    [0, 1] when ``clip``.  The kept rows are sorted by score; only the first ``nms_topk``
    (when > 0) stay candidates, and a candidate whose IoU with a higher-scoring one of the
    same class (any class with ``force_suppress``) reaches ``nms_threshold`` gets class -1.

    Output ``(batch, A, 6)`` rows ``(class_id, score, xmin, ymin, xmax, ymax)``, class ids
    without the background; unused rows are all -1.  As in MXNet 1.9.1, ``background_id``
    is accepted but class 0 is always the background.  Computed on the host with numpy;
    no gradient.
    """

    clip = Attr(Bool, default=True)
    threshold = Attr(Float, default=0.01)
    background_id = Attr(Int, default=0)
    nms_threshold = Attr(Float, default=0.5)
    force_suppress = Attr(Bool, default=False)
    variances = Attr(FloatTuple, default=(0.1, 0.1, 0.2, 0.2))
    nms_topk = Attr(Int, default=-1)

    def validate(self):
        if len(self.variances) != 4:
            raise self.error(f"variances must have 4 values, got {self.variances}")

    def arguments(self):
        return ["cls_prob", "loc_pred", "anchor"]

    def infer_shape(self, in_shapes, out_shapes):
        where = _where(self)
        cls_prob, loc_pred, anchor = in_shapes
        out = out_shapes[0]
        if cls_prob is not None and len(cls_prob) != 3:
            raise self.error(f"cls_prob must have shape (batch, classes, num_anchors), got {tuple(cls_prob)}")
        if cls_prob is not None and cls_prob[2]:
            batch, count = cls_prob[0], cls_prob[2]
            loc_pred = merge_shape(loc_pred, (batch, count * 4), f"{where} argument 'loc_pred'")
            anchor = merge_shape(anchor, (1, count, 4), f"{where} argument 'anchor'")
            out = merge_shape(out, (batch, count, 6), f"{where} output")
        return [cls_prob, loc_pred, anchor], [out], []

    def forward(self, is_train, inputs, aux):
        cls_prob_t, loc_pred_t, anchor_t = inputs
        cls_prob = cls_prob_t.detach().float().cpu().numpy()
        loc_pred = loc_pred_t.detach().float().cpu().numpy()
        anchors = anchor_t.detach().float().cpu().numpy().reshape(-1, 4)
        batch, _, count = cls_prob.shape
        output = np.full((batch, count, 6), -1.0, np.float32)
        for index in range(batch):
            self._detect(cls_prob[index], loc_pred[index].reshape(-1, 4), anchors, output[index])
        return [torch.from_numpy(output).to(device=cls_prob_t.device, dtype=cls_prob_t.dtype)]

    def _decode(self, anchors, offsets):
        vx, vy, vw, vh = (np.float32(v) for v in self.variances)
        width, height = anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]
        centre_x, centre_y = (anchors[:, 0] + anchors[:, 2]) / 2, (anchors[:, 1] + anchors[:, 3]) / 2
        x = offsets[:, 0] * vx * width + centre_x
        y = offsets[:, 1] * vy * height + centre_y
        half_w = np.exp(offsets[:, 2] * vw) * width / 2
        half_h = np.exp(offsets[:, 3] * vh) * height / 2
        boxes = np.stack([x - half_w, y - half_h, x + half_w, y + half_h], axis=1)
        return np.clip(boxes, 0.0, 1.0) if self.clip else boxes

    def _detect(self, cls_prob, loc_pred, anchors, output):
        if cls_prob.shape[0] < 2:
            return
        foreground = cls_prob[1:]
        best = np.argmax(foreground, axis=0)                    # first maximum, as MXNet's strict '>'
        score = foreground[best, np.arange(cls_prob.shape[1])]
        keep = np.nonzero(score >= self.threshold)[0]
        if not len(keep):
            return
        rows = np.empty((len(keep), 6), np.float32)
        rows[:, 0] = best[keep]
        rows[:, 1] = score[keep]
        rows[:, 2:] = self._decode(anchors[keep], loc_pred[keep])
        valid = len(rows)
        output[:valid] = rows
        if not 0 < self.nms_threshold <= 1:
            return
        order = np.argsort(-rows[:, 1], kind="stable")
        candidates = valid if self.nms_topk <= 0 else min(self.nms_topk, valid)
        output[:candidates] = rows[order[:candidates]]
        output[candidates:valid, 0] = -1
        for i in range(candidates):
            if output[i, 0] < 0:
                continue
            rest = output[i + 1:candidates]
            overlap = _box_iou(output[i:i + 1, 2:], rest[:, 2:])[0]
            same = rest[:, 0] >= 0
            if not self.force_suppress:
                same &= rest[:, 0] == output[i, 0]
            rest[same & (overlap >= self.nms_threshold), 0] = -1
