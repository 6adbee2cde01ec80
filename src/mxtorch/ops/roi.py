"""Region-of-interest pooling: ROIPooling, ROIAlign and contrib PSROIPooling /
DeformablePSROIPooling (R-FCN, Deformable ConvNets).

Images are ``(batch, channel, height, width)``; ROIs carry a leading batch index
``(batch_index, x1, y1, x2, y2)``.  Pooling gathers in blocks of at most ``_BLOCK_ELEMENTS``
elements so temporary memory stays bounded.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from .helpers import _check_inputs, _check_ndim, _compute_dtype, _where, capturing_graph, round_half_away
from .loss import data_label_types
from .registry import Attr, Bool, Float, Int, merge_shape, Operator, register, Shape, upcast_half

__all__ = []


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
        x1, y1, x2, y2 = (round_half_away(boxes[:, i] * scale).long() for i in range(1, 5))
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
        if self.sample_ratio > 0:
            span_h = span_w = self.sample_ratio     # fixed: no look at the values (graph captures need none)
        elif capturing_graph():
            raise self.error("sample_ratio <= 0 (samples per bin from each ROI's size) makes the sampling grid "
                             "depend on the ROI values; a captured graph (torch.export, ONNX) needs "
                             "sample_ratio > 0")
        else:
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


# elements of one gathered block in the pooling operators (bounds their temporary memory)
_BLOCK_ELEMENTS = 1 << 24


def _check_rois(op, rois):
    if rois is not None and (len(rois) != 2 or (rois[1] and rois[1] != 5)):
        raise op.error(f"rois must have shape (num_rois, 5) = (batch_index, x1, y1, x2, y2), got {tuple(rois)}")


# -- position-sensitive ROI pooling ----------------------------------------------------------------
@register("_contrib_PSROIPooling")
class PSROIPooling(Operator):
    """Position-sensitive ROI average pooling (R-FCN).

    data ``(batch, output_dim * group_size ** 2, H, W)``; rois ``(R, 5)`` rows
    ``(batch_index, x1, y1, x2, y2)`` in image pixels.  Corners are rounded (half away from
    zero), the region spans ``round(x1) * spatial_scale`` to ``(round(x2) + 1) *
    spatial_scale`` (at least 0.1 wide) and is split into ``pooled_size`` x ``pooled_size``
    bins with floor / ceil pixel bounds clipped to the map.  Bin ``(i, j)`` of output channel
    ``c`` averages input channel ``(c * group_size + gi) * group_size + gj`` with
    ``gi = floor(i * group_size / pooled_size)`` (``group_size=0`` means ``pooled_size``);
    empty bins and ROIs whose batch index is out of range give 0.

    Output ``(R, output_dim, pooled_size, pooled_size)``.  The gradient spreads each bin's
    gradient evenly over its pixels; rois get a zero gradient.  MXNetError when data has
    fewer than ``output_dim * group_size ** 2`` channels.
    """

    spatial_scale = Attr(Float, required=True)
    output_dim = Attr(Int, required=True)
    pooled_size = Attr(Int, required=True)
    group_size = Attr(Int, default=0)

    def validate(self):
        if self.pooled_size < 1 or self.output_dim < 1 or self.group_size < 0:
            raise self.error(f"pooled_size and output_dim must be positive and group_size >= 0, got pooled_size="
                             f"{self.pooled_size}, output_dim={self.output_dim}, group_size={self.group_size}")
        if self.spatial_scale <= 0:
            raise self.error(f"spatial_scale must be positive, got {self.spatial_scale}")

    @property
    def groups(self):
        return self.group_size if self.group_size > 0 else self.pooled_size

    def arguments(self):
        return ["data", "rois"]

    def infer_shape(self, in_shapes, out_shapes):
        data, rois = in_shapes
        out = out_shapes[0]
        _check_ndim(self, "data", data, 4, "(batch, channel, height, width)")
        _check_rois(self, rois)
        if data is not None and data[1] and data[1] < self.output_dim * self.groups ** 2:
            raise self.error(f"data has {data[1]} channels, needs output_dim * group_size ** 2 = "
                             f"{self.output_dim * self.groups ** 2} (shape {tuple(data)})")
        if rois is not None:
            out = merge_shape(out, (rois[0], self.output_dim, self.pooled_size, self.pooled_size),
                              f"{_where(self)} output")
        return [data, rois], [out], []

    def infer_type(self, in_types):
        dtype = in_types[0] if in_types[0] is not None else in_types[1]
        return [dtype, in_types[1] if in_types[1] is not None else dtype], [dtype], []

    def forward(self, is_train, inputs, aux):
        _check_inputs(self, inputs)
        data, rois = inputs
        batch, channels, height, width = data.shape
        if channels < self.output_dim * self.groups ** 2:
            raise self.error(f"data has {channels} channels, needs output_dim * group_size ** 2 = "
                             f"{self.output_dim * self.groups ** 2}")
        pooled, groups = self.pooled_size, self.groups
        dtype = _compute_dtype(data)
        device = data.device
        boxes = rois.detach().to(dtype)
        scale = torch.tensor(self.spatial_scale, dtype=dtype)
        index = boxes[:, 0].long()
        start_w = round_half_away(boxes[:, 1]) * scale
        start_h = round_half_away(boxes[:, 2]) * scale
        end_w = (round_half_away(boxes[:, 3]) + 1) * scale
        end_h = (round_half_away(boxes[:, 4]) + 1) * scale
        bin_w = torch.clamp(end_w - start_w, min=0.1) / pooled
        bin_h = torch.clamp(end_h - start_h, min=0.1) / pooled
        steps = torch.arange(pooled, dtype=dtype, device=device)

        def bounds(start, size, limit):
            low = torch.floor(steps * size[:, None] + start[:, None]).long().clamp(0, limit)
            high = torch.ceil((steps + 1) * size[:, None] + start[:, None]).long().clamp(0, limit)
            return low, high

        h_low, h_high = bounds(start_h, bin_h, height)                          # (R, P)
        w_low, w_high = bounds(start_w, bin_w, width)
        group = torch.clamp(torch.floor(steps * groups / pooled).long(), 0, groups - 1)
        channel = ((torch.arange(self.output_dim, device=device)[:, None, None] * groups + group[None, :, None])
                   * groups + group[None, None, :])                              # (D, P, P)
        # summed-area table (float64 for accuracy): sums over a bin from four corners
        table = data.to(torch.float64 if dtype != torch.float64 else dtype)
        table = F.pad(table.cumsum(2).cumsum(3), (1, 0, 1, 0))                  # (N, C, H + 1, W + 1)
        flat = table.reshape(-1)
        image = index.clamp(0, batch - 1)[:, None, None, None]
        base = (image * channels + channel[None]) * (height + 1)                # (R, D, P, P)

        def corner(rows, cols):
            position = (base + rows[:, None, :, None]) * (width + 1) + cols[:, None, None, :]
            return flat[position]

        total = corner(h_high, w_high) - corner(h_low, w_high) - corner(h_high, w_low) + corner(h_low, w_low)
        area = ((h_high - h_low)[:, None, :, None] * (w_high - w_low)[:, None, None, :]).to(total.dtype)
        valid = (area > 0) & ((index >= 0) & (index < batch))[:, None, None, None]
        output = torch.where(valid, total / area.clamp(min=1), torch.zeros_like(total))
        return [output.to(data.dtype)]


@register("_contrib_DeformablePSROIPooling")
class DeformablePSROIPooling(Operator):
    """Deformable position-sensitive ROI pooling (Deformable ConvNets, R-FCN head).

    data ``(batch, output_dim * group_size ** 2, H, W)``; rois ``(R, 5)``; trans
    ``(R, 2 * num_classes, part_size, part_size)`` normalised bin offsets (absent with
    ``no_trans=True``).  The region spans ``round(x1) * spatial_scale - 0.5`` to
    ``(round(x2) + 1) * spatial_scale - 0.5`` (at least 0.1) split into ``pooled_size`` bins
    (``part_size=0`` means ``pooled_size``).  Bin ``(i, j)`` of output channel ``c`` is moved
    by ``trans_std * trans[r, 2 k (+1), pi, pj] * roi size`` (x then y; class
    ``k = c // (output_dim / num_classes)``, part ``pi = floor(i / pooled_size * part_size)``)
    and averages ``sample_per_part ** 2`` bilinear samples of input channel
    ``(c * group_size + gi) * group_size + gj``; samples more than half a pixel outside the
    map are skipped, the others are clamped to it.

    Outputs: output ``(R, output_dim, pooled_size, pooled_size)`` (0 where no sample fell
    inside) and the hidden top_count (samples used per bin).  Gradients flow to data and
    trans; rois get a zero gradient.
    """

    spatial_scale = Attr(Float, required=True)
    output_dim = Attr(Int, required=True)
    group_size = Attr(Int, required=True)
    pooled_size = Attr(Int, required=True)
    part_size = Attr(Int, default=0)
    sample_per_part = Attr(Int, default=1)
    trans_std = Attr(Float, default=0.0)
    no_trans = Attr(Bool, default=False)

    def validate(self):
        if min(self.output_dim, self.group_size, self.pooled_size, self.sample_per_part) < 1 or self.part_size < 0:
            raise self.error(f"output_dim, group_size, pooled_size and sample_per_part must be positive and "
                             f"part_size >= 0, got output_dim={self.output_dim}, group_size={self.group_size}, "
                             f"pooled_size={self.pooled_size}, sample_per_part={self.sample_per_part}, "
                             f"part_size={self.part_size}")
        if self.spatial_scale <= 0:
            raise self.error(f"spatial_scale must be positive, got {self.spatial_scale}")

    @property
    def parts(self):
        return self.part_size if self.part_size > 0 else self.pooled_size

    def arguments(self):
        return ["data", "rois"] + ([] if self.no_trans else ["trans"])

    def outputs(self):
        return ["output", "top_count"]

    def num_visible_outputs(self):
        return 1

    def _classes(self, trans_channels):
        if trans_channels % 2 or not trans_channels:
            raise self.error(f"trans must have 2 * num_classes channels (an x and a y offset per class), got "
                             f"{trans_channels}")
        classes = trans_channels // 2
        if self.output_dim % classes:
            raise self.error(f"output_dim={self.output_dim} must be divisible by num_classes={classes} "
                             f"(trans has {trans_channels} channels)")
        return classes

    def infer_shape(self, in_shapes, out_shapes):
        where = _where(self)
        data, rois = in_shapes[0], in_shapes[1]
        trans = None if self.no_trans else in_shapes[2]
        outs = list(out_shapes)
        _check_ndim(self, "data", data, 4, "(batch, channel, height, width)")
        _check_rois(self, rois)
        _check_ndim(self, "trans", trans, 4, "(num_rois, 2 * num_classes, part_size, part_size)")
        if data is not None and data[1] and data[1] < self.output_dim * self.group_size ** 2:
            raise self.error(f"data has {data[1]} channels, needs output_dim * group_size ** 2 = "
                             f"{self.output_dim * self.group_size ** 2} (shape {tuple(data)})")
        if trans is not None:
            if trans[1]:
                self._classes(trans[1])
            if rois is not None:
                trans = merge_shape(trans, (rois[0], trans[1], self.parts, self.parts), f"{where} argument 'trans'")
            else:
                trans = merge_shape(trans, (0, trans[1], self.parts, self.parts), f"{where} argument 'trans'")
        if rois is not None:
            shape = (rois[0], self.output_dim, self.pooled_size, self.pooled_size)
            outs[0] = merge_shape(outs[0], shape, f"{where} output 'output'")
            outs[1] = merge_shape(outs[1], shape, f"{where} output 'top_count'")
        shapes = [data, rois] + ([] if self.no_trans else [trans])
        return shapes, outs, []

    def infer_type(self, in_types):
        dtype = next((t for t in in_types if t is not None), None)
        return [t if t is not None else dtype for t in in_types], [dtype, dtype], []

    def forward(self, is_train, inputs, aux):
        _check_inputs(self, inputs)
        data, rois = inputs[0], inputs[1]
        batch, channels, height, width = data.shape
        if channels < self.output_dim * self.group_size ** 2:
            raise self.error(f"data has {channels} channels, needs output_dim * group_size ** 2 = "
                             f"{self.output_dim * self.group_size ** 2}")
        dtype = _compute_dtype(data)
        device = data.device
        pooled, parts, groups, samples = self.pooled_size, self.parts, self.group_size, self.sample_per_part
        dim = self.output_dim
        boxes = rois.detach().to(dtype)
        scale = torch.tensor(self.spatial_scale, dtype=dtype)
        index = boxes[:, 0].long()
        start_w = round_half_away(boxes[:, 1]) * scale - 0.5
        start_h = round_half_away(boxes[:, 2]) * scale - 0.5
        end_w = (round_half_away(boxes[:, 3]) + 1) * scale - 0.5
        end_h = (round_half_away(boxes[:, 4]) + 1) * scale - 0.5
        roi_w = torch.clamp(end_w - start_w, min=0.1)
        roi_h = torch.clamp(end_h - start_h, min=0.1)
        bin_w, bin_h = roi_w / pooled, roi_h / pooled
        sub_w, sub_h = bin_w / samples, bin_h / samples
        steps = torch.arange(pooled, dtype=dtype, device=device)
        part = torch.floor(steps / pooled * parts).long().clamp(0, parts - 1)
        group = torch.clamp(torch.floor(steps * groups / pooled).long(), 0, groups - 1)
        channel = ((torch.arange(dim, device=device)[:, None, None] * groups + group[None, :, None]) * groups
                   + group[None, None, :])                                          # (D, P, P)
        count_rois = boxes.shape[0]
        if self.no_trans:
            shift_x = shift_y = torch.zeros((count_rois, dim, pooled, pooled), dtype=dtype, device=device)
        else:
            trans = inputs[2].to(dtype)
            classes = self._classes(trans.shape[1])
            class_id = torch.arange(dim, device=device) // (dim // classes)
            picked = trans[:, :, part[:, None], part[None, :]]                       # (R, 2K, P, P)
            shift_x = picked[:, 2 * class_id] * self.trans_std                       # (R, D, P, P)
            shift_y = picked[:, 2 * class_id + 1] * self.trans_std
        w_start = steps[None, None, None, :] * bin_w[:, None, None, None] + start_w[:, None, None, None] \
            + shift_x * roi_w[:, None, None, None]
        h_start = steps[None, None, :, None] * bin_h[:, None, None, None] + start_h[:, None, None, None] \
            + shift_y * roi_h[:, None, None, None]
        sample_steps = torch.arange(samples, dtype=dtype, device=device)
        compute = data.to(dtype)
        flat = compute.reshape(-1)
        valid_roi = (index >= 0) & (index < batch)
        image = index.clamp(0, batch - 1)
        outputs, counts = [], []
        per_roi = dim * pooled * pooled * samples * samples * 4
        for block in _roi_blocks(count_rois, per_roi):
            # sample coordinates (B, D, P, P, S, S)
            xs = w_start[block][..., None, None] + sample_steps[None, :] * sub_w[block].reshape(-1, 1, 1, 1, 1, 1)
            ys = h_start[block][..., None, None] + sample_steps[:, None] * sub_h[block].reshape(-1, 1, 1, 1, 1, 1)
            inside = (xs >= -0.5) & (xs <= width - 0.5) & (ys >= -0.5) & (ys <= height - 0.5)
            inside = inside & valid_roi[block].reshape(-1, 1, 1, 1, 1, 1)
            xs = xs.clamp(0, width - 1)
            ys = ys.clamp(0, height - 1)
            x_low, y_low = torch.floor(xs), torch.floor(ys)
            x_high, y_high = torch.ceil(xs), torch.ceil(ys)
            frac_x, frac_y = xs - x_low, ys - y_low
            base = ((image[block].reshape(-1, 1, 1, 1, 1, 1) * channels + channel[None, ..., None, None])
                    * height)

            def value(rows, cols):
                return flat[(base + rows.long()) * width + cols.long()]

            sampled = ((1 - frac_x) * (1 - frac_y) * value(y_low, x_low) + (1 - frac_x) * frac_y * value(y_high, x_low)
                       + frac_x * (1 - frac_y) * value(y_low, x_high) + frac_x * frac_y * value(y_high, x_high))
            sampled = torch.where(inside, sampled, torch.zeros_like(sampled))
            count = inside.sum(dim=(-1, -2)).to(dtype)
            total = sampled.sum(dim=(-1, -2))
            outputs.append(torch.where(count > 0, total / count.clamp(min=1), torch.zeros_like(total)))
            counts.append(count)
        if not outputs:
            empty = data.new_zeros((0, dim, pooled, pooled))
            return [empty, empty.clone()]
        output = torch.cat(outputs) if len(outputs) > 1 else outputs[0]
        count = torch.cat(counts) if len(counts) > 1 else counts[0]
        return [output.to(data.dtype), count.to(data.dtype)]


@register("_contrib_RROIAlign")
class RotatedROIAlign(Operator):
    """ROIAlign over rotated boxes (MXNet's ``contrib.RROIAlign``): ``data`` ``(batch, channels,
    height, width)`` and ``rois`` ``(num_rois, 6)`` rows ``[batch_index, centre_x, centre_y,
    width, height, angle_in_degrees]`` in image units (scaled by ``spatial_scale``; width and
    height at least 1).  Each of the ``pooled_size`` bins averages ``sampling_ratio`` squared
    bilinear samples (or ``ceil(roi_size / pooled_size)`` per side when ``sampling_ratio <= 0``),
    taken in the box frame rotated by the angle about the centre; samples beyond one pixel
    outside the map count as 0.  Output ``(num_rois, channels, pooled_h, pooled_w)``; the
    gradient of ``data`` is that of the bilinear sums, ``rois`` gets none."""

    pooled_size = Attr(Shape, required=True)
    spatial_scale = Attr(Float, required=True)
    sampling_ratio = Attr(Int, default=-1)

    def arguments(self):
        return ["data", "rois"]

    def infer_shape(self, in_shapes, out_shapes):
        data, rois = in_shapes
        if len(self.pooled_size) != 2:
            raise self.error(f"pooled_size must have 2 values (h, w), got {tuple(self.pooled_size)}")
        if rois is not None and (len(rois) != 2 or rois[1] not in (0, 6)):
            raise self.error(f"rois must be (num_rois, 6), got {tuple(rois)}")
        out = None
        if data is not None and rois is not None:
            out = (rois[0], data[1]) + tuple(self.pooled_size)
        return [data, rois], [out], []

    def forward(self, is_train, inputs, aux):
        data, rois = inputs
        height, width = data.shape[2], data.shape[3]
        pooled_h, pooled_w = self.pooled_size
        outputs = []
        for roi in rois.detach().to(torch.float64).cpu().tolist():
            batch = int(roi[0])
            cx, cy = roi[1] * self.spatial_scale, roi[2] * self.spatial_scale
            roi_w = max(roi[3] * self.spatial_scale, 1.0)
            roi_h = max(roi[4] * self.spatial_scale, 1.0)
            theta = roi[5] * math.pi / 180.0
            grid_h = self.sampling_ratio if self.sampling_ratio > 0 else math.ceil(roi_h / pooled_h)
            grid_w = self.sampling_ratio if self.sampling_ratio > 0 else math.ceil(roi_w / pooled_w)
            bin_h, bin_w = roi_h / pooled_h, roi_w / pooled_w
            device = data.device
            yy = -roi_h / 2 + (torch.arange(pooled_h, device=device, dtype=torch.float64)[:, None] * bin_h +
                               (torch.arange(grid_h, device=device, dtype=torch.float64)[None, :] + 0.5) * bin_h / grid_h)
            xx = -roi_w / 2 + (torch.arange(pooled_w, device=device, dtype=torch.float64)[:, None] * bin_w +
                               (torch.arange(grid_w, device=device, dtype=torch.float64)[None, :] + 0.5) * bin_w / grid_w)
            yy = yy.reshape(pooled_h, 1, grid_h, 1)
            xx = xx.reshape(1, pooled_w, 1, grid_w)
            x = xx * math.cos(theta) + yy * math.sin(theta) + cx
            y = yy * math.cos(theta) - xx * math.sin(theta) + cy
            outside = (y < -1.0) | (y > height) | (x < -1.0) | (x > width)
            y, x = y.clamp(min=0), x.clamp(min=0)
            y_low, x_low = y.floor().long(), x.floor().long()
            y_edge, x_edge = y_low >= height - 1, x_low >= width - 1
            y_low, x_low = y_low.clamp(max=height - 1), x_low.clamp(max=width - 1)
            y = torch.where(y_edge, y_low.to(y.dtype), y)
            x = torch.where(x_edge, x_low.to(x.dtype), x)
            y_high = torch.where(y_edge, y_low, y_low + 1)
            x_high = torch.where(x_edge, x_low, x_low + 1)
            ly, lx = y - y_low, x - x_low
            hy, hx = 1 - ly, 1 - lx
            plane = data[batch].reshape(data.shape[1], -1)
            total = 0
            for rows, cols, weight in ((y_low, x_low, hy * hx), (y_low, x_high, hy * lx),
                                       (y_high, x_low, ly * hx), (y_high, x_high, ly * lx)):
                weight = torch.where(outside, torch.zeros_like(weight), weight).to(data.dtype)
                total = total + plane[:, (rows * width + cols).reshape(-1)].reshape(
                    (data.shape[1],) + tuple(weight.shape)) * weight
            outputs.append(total.sum(dim=(3, 4)) / (grid_h * grid_w))
        if not outputs:
            return [data.new_zeros((0, data.shape[1], pooled_h, pooled_w))]
        return [torch.stack(outputs)]
