"""Detection operators of MXNet's ``contrib`` namespace: region proposals (Faster R-CNN),
position-sensitive and deformable ROI pooling (R-FCN, Deformable ConvNets), deformable
convolution, box utilities (``box_nms``, ``box_iou``, ``box_encode``, ``box_decode``,
``bipartite_matching``) and the resizing layers ``BilinearResize2D`` and
``AdaptiveAvgPooling2D``.

Images are ``(batch, channel, height, width)``.  Corner boxes are ``(x1, y1, x2, y2)``,
centre boxes ``(x, y, width, height)``; ROIs carry a leading batch index
``(batch_index, x1, y1, x2, y2)``.

The greedy parts (non-maximum suppression, bipartite matching) run on the host with numpy,
as MXNet's CPU kernels did; everything else is vectorised torch on the data's device.  The
box operators that MXNet does not differentiate (Proposal, MultiProposal, box_iou,
box_encode, box_decode, bipartite_matching) return outputs without gradient, so their
inputs get zero gradients as in MXNet.
"""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from .registry import (Attr, Operator, register, Int, Float, Bool, Shape, FloatTuple, Choice, optional,
                       merge_shape)
from ..base import MXNetError
from .nn import _conv_output_size, _expand_conv_geometry

__all__ = ["rpn_anchors"]

# elements of one gathered block in the pooling operators (bounds their temporary memory)
_BLOCK_ELEMENTS = 1 << 24


def _where(op):
    return f"Operator {op.name}"


def _compute_dtype(tensor):
    """float32 for half-precision tensors, else the tensor's own floating dtype."""
    if tensor.dtype in (torch.float16, torch.bfloat16) or not tensor.is_floating_point():
        return torch.float32
    return tensor.dtype


def _host(tensor):
    """A numpy copy of ``tensor`` in float32 (float64 stays float64)."""
    array = tensor.detach().cpu()
    if array.dtype != torch.float64:
        array = array.to(torch.float32)
    return array.numpy()


def _round_half_away(values):
    """C's ``round``: halves go away from zero."""
    return torch.sign(values) * torch.floor(values.abs() + 0.5)


def _check_ndim(op, label, shape, ndim, layout):
    if shape is not None and len(shape) != ndim:
        raise op.error(f"{label} must be {ndim}-D {layout}, got shape {tuple(shape)}")


def _check_rois(op, rois):
    if rois is not None and (len(rois) != 2 or (rois[1] and rois[1] != 5)):
        raise op.error(f"rois must have shape (num_rois, 5) = (batch_index, x1, y1, x2, y2), got {tuple(rois)}")


def _check_inputs(op, inputs):
    """Run ``op``'s shape inference on the actual input shapes (imperative calls skip binding)."""
    op.infer_shape([tuple(tensor.shape) for tensor in inputs], [None] * op.num_outputs())


def _roi_blocks(count, per_roi):
    """Slices of at most ``_BLOCK_ELEMENTS`` elements over ``count`` ROIs."""
    step = max(1, _BLOCK_ELEMENTS // max(per_roi, 1))
    return [slice(start, min(start + step, count)) for start in range(0, count, step)]


def _greedy_keep(count, suppresses, limit=None):
    """Greedy non-maximum suppression over candidates ``0 .. count - 1`` in rank order.

    ``suppresses(i, later)`` returns a boolean mask over the indices ``later`` (all greater
    than ``i`` and not yet suppressed) of those that the kept candidate ``i`` suppresses.
    Stops once ``limit`` candidates are kept.  Returns the kept indices in rank order.
    """
    alive = np.ones(count, dtype=bool)
    keep = []
    for index in range(count):
        if limit is not None and len(keep) >= limit:
            break
        if not alive[index]:
            continue
        keep.append(index)
        later = np.flatnonzero(alive[index + 1:]) + index + 1
        if len(later):
            alive[later[suppresses(index, later)]] = False
    return np.asarray(keep, dtype=np.int64)


# -- region proposals ------------------------------------------------------------------------------
def rpn_anchors(feature_stride, ratios, scales):
    """The ``(len(ratios) * len(scales), 4)`` float32 anchors of one feature-map cell.

    Faster R-CNN's rule, as MXNet's Proposal computes it in float32: the base box is
    ``(0, 0, feature_stride - 1, feature_stride - 1)``; for each ratio (outer loop) and
    scale (inner loop) the width is ``round(sqrt(floor(area / ratio))) * scale`` and the
    height ``round(width / scale * ratio) * scale`` (``round`` = floor of x + 0.5), centred
    on the base box: ``(centre - (w - 1) / 2, centre - (h - 1) / 2, centre + (w - 1) / 2,
    centre + (h - 1) / 2)``.  With stride 16, ratios (0.5, 1, 2), scales (8, 16, 32) the
    first anchor is ``(-84, -40, 99, 55)``.
    """
    f32 = np.float32
    side = f32(feature_stride)
    area = side * side
    centre = f32(0.5) * (side - f32(1))
    ratio = np.repeat(np.asarray(ratios, f32), len(scales))
    scale = np.tile(np.asarray(scales, f32), len(ratios))
    size_ratios = np.floor(area / ratio)
    width = np.floor(np.sqrt(size_ratios) + f32(0.5)) * scale
    height = np.floor(width / scale * ratio + f32(0.5)) * scale
    half_w = f32(0.5) * (width - f32(1))
    half_h = f32(0.5) * (height - f32(1))
    return np.stack([centre - half_w, centre - half_h, centre + half_w, centre + half_h], axis=1).astype(f32)


class _ProposalBase(Operator):
    """Attributes, arguments and shape rules shared by Proposal and MultiProposal."""

    rpn_pre_nms_top_n = Attr(Int, default=6000)
    rpn_post_nms_top_n = Attr(Int, default=300)
    threshold = Attr(Float, default=0.7)
    rpn_min_size = Attr(Int, default=16)
    scales = Attr(FloatTuple, default=(4.0, 8.0, 16.0, 32.0))
    ratios = Attr(FloatTuple, default=(0.5, 1.0, 2.0))
    feature_stride = Attr(Int, default=16)
    output_score = Attr(Bool, default=False)
    iou_loss = Attr(Bool, default=False)

    def validate(self):
        if self.rpn_post_nms_top_n < 1:
            raise self.error(f"rpn_post_nms_top_n must be positive, got {self.rpn_post_nms_top_n}")
        if self.feature_stride < 1:
            raise self.error(f"feature_stride must be positive, got {self.feature_stride}")
        if not self.scales or not self.ratios or min(self.ratios) <= 0:
            raise self.error(f"scales and ratios must be non-empty (ratios positive), got scales {self.scales} "
                             f"and ratios {self.ratios}")

    @property
    def num_anchors(self):
        return len(self.scales) * len(self.ratios)

    def arguments(self):
        return ["cls_prob", "bbox_pred", "im_info"]

    def outputs(self):
        return ["output", "score"]

    def num_visible_outputs(self):
        return 2 if self.output_score else 1

    def _rows(self, batch):
        raise NotImplementedError

    def infer_shape(self, in_shapes, out_shapes):
        where = _where(self)
        cls_prob, bbox_pred, im_info = in_shapes
        outs = list(out_shapes)
        _check_ndim(self, "cls_prob", cls_prob, 4, "(batch, 2 * num_anchors, height, width)")
        _check_ndim(self, "bbox_pred", bbox_pred, 4, "(batch, 4 * num_anchors, height, width)")
        if cls_prob is None and bbox_pred is not None:
            cls_prob = (bbox_pred[0], bbox_pred[1] // 2 if bbox_pred[1] else 0) + tuple(bbox_pred[2:])
        if cls_prob is not None:
            if cls_prob[1] and cls_prob[1] != 2 * self.num_anchors:
                raise self.error(f"cls_prob has {cls_prob[1]} channels, expected 2 * num_anchors = "
                                 f"{2 * self.num_anchors} ({len(self.scales)} scales x {len(self.ratios)} ratios); "
                                 f"shape {tuple(cls_prob)}")
            bbox_pred = merge_shape(bbox_pred, (cls_prob[0], cls_prob[1] * 2) + tuple(cls_prob[2:]),
                                    f"{where} argument 'bbox_pred'")
            im_info = merge_shape(im_info, (cls_prob[0], 3), f"{where} argument 'im_info'")
            rows = self._rows(cls_prob[0])
            if rows:
                outs[0] = merge_shape(outs[0], (rows, 5), f"{where} output 'output'")
                outs[1] = merge_shape(outs[1], (rows, 1), f"{where} output 'score'")
        return [cls_prob, bbox_pred, im_info], outs, []

    def forward(self, is_train, inputs, aux):
        _check_inputs(self, inputs)
        cls_prob, bbox_pred, im_info = inputs
        self._check_batch(cls_prob.shape[0])
        scores = _host(cls_prob).astype(np.float32)
        deltas = _host(bbox_pred).astype(np.float32)
        info = _host(im_info).astype(np.float32)
        rows, row_scores = [], []
        for image in range(scores.shape[0]):
            boxes, box_scores = self._propose(scores[image], deltas[image], info[image])
            index = np.full((len(boxes), 1), image, np.float32)
            rows.append(np.concatenate([index, boxes], axis=1))
            row_scores.append(box_scores[:, None])
        device = cls_prob.device
        dtype = cls_prob.dtype if cls_prob.is_floating_point() else torch.float32
        output = torch.from_numpy(np.concatenate(rows)).to(device=device, dtype=dtype)
        score = torch.from_numpy(np.concatenate(row_scores)).to(device=device, dtype=dtype)
        return [output, score]

    def _check_batch(self, batch):
        pass

    def _propose(self, scores, deltas, info):
        """``(post_nms_top_n, 4)`` boxes and their scores for one image (float32 numpy)."""
        f32 = np.float32
        count_anchors = self.num_anchors
        channels, height, width = scores.shape
        if channels != 2 * count_anchors:
            raise self.error(f"cls_prob has {channels} channels, expected 2 * num_anchors = {2 * count_anchors}")
        stride = self.feature_stride
        anchors = rpn_anchors(stride, self.ratios, self.scales)                          # (A, 4)
        shift_x = np.arange(width, dtype=f32) * f32(stride)
        shift_y = np.arange(height, dtype=f32) * f32(stride)
        shifts = np.stack(np.broadcast_arrays(shift_x[None, :], shift_y[:, None],
                                              shift_x[None, :], shift_y[:, None]), axis=-1)  # (H, W, 4)
        # proposals are ordered (row, column, anchor), as MXNet enumerates them
        boxes = (anchors[None, None] + shifts[:, :, None]).reshape(-1, 4)
        score = scores[count_anchors:].transpose(1, 2, 0).reshape(-1).copy()
        delta = deltas.reshape(count_anchors, 4, height, width).transpose(2, 3, 0, 1).reshape(-1, 4)
        im_height, im_width, im_scale = (f32(v) for v in info[:3])
        real_height = int(im_height / f32(stride))
        real_width = int(im_width / f32(stride))
        if real_height > height or real_width > width:
            raise self.error(f"im_info (height {float(im_height)}, width {float(im_width)}) / feature_stride "
                             f"{stride} = ({real_height}, {real_width}) cells exceeds the feature map "
                             f"({height}, {width})")
        if self.iou_loss:
            boxes = (boxes + delta).astype(f32)
        else:
            boxes = self._apply_deltas(boxes, delta)
        limits = np.array([im_width - 1, im_height - 1, im_width - 1, im_height - 1], f32)
        boxes = np.maximum(np.minimum(boxes, limits), f32(0))
        rows, cols = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
        padded = ((rows >= real_height) | (cols >= real_width))[:, :, None]
        score[np.broadcast_to(padded, (height, width, count_anchors)).reshape(-1)] = f32(-1)
        # boxes smaller than rpn_min_size (in image pixels) are widened and given score -1
        min_size = f32(self.rpn_min_size) * im_scale
        small = ((boxes[:, 2] - boxes[:, 0] + f32(1)) < min_size) | ((boxes[:, 3] - boxes[:, 1] + f32(1)) < min_size)
        half = min_size / f32(2)
        boxes[small] += np.array([-half, -half, half, half], f32)
        score[small] = f32(-1)
        count = len(score)
        pre_nms = self.rpn_pre_nms_top_n if self.rpn_pre_nms_top_n > 0 else count
        pre_nms = min(pre_nms, count)
        post_nms = min(self.rpn_post_nms_top_n, pre_nms)
        order = np.argsort(-score, kind="stable")[:pre_nms]
        boxes, score = boxes[order], score[order]
        area = (boxes[:, 2] - boxes[:, 0] + f32(1)) * (boxes[:, 3] - boxes[:, 1] + f32(1))
        threshold = f32(self.threshold)

        def suppresses(index, later):
            box = boxes[index]
            others = boxes[later]
            overlap_w = np.maximum(f32(0), np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0]) + f32(1))
            overlap_h = np.maximum(f32(0), np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1]) + f32(1))
            inter = overlap_w * overlap_h
            with np.errstate(divide="ignore", invalid="ignore"):
                return inter / (area[index] + area[later] - inter) > threshold

        keep = _greedy_keep(pre_nms, suppresses, post_nms)
        # fewer survivors than rows: MXNet repeats the kept boxes cyclically
        picks = keep[np.arange(self.rpn_post_nms_top_n) % len(keep)]
        return boxes[picks], score[picks]

    @staticmethod
    def _apply_deltas(boxes, delta):
        f32 = np.float32
        widths = boxes[:, 2] - boxes[:, 0] + f32(1)
        heights = boxes[:, 3] - boxes[:, 1] + f32(1)
        centre_x = boxes[:, 0] + f32(0.5) * (widths - f32(1))
        centre_y = boxes[:, 1] + f32(0.5) * (heights - f32(1))
        pred_x = delta[:, 0] * widths + centre_x
        pred_y = delta[:, 1] * heights + centre_y
        pred_w = (np.exp(delta[:, 2].astype(np.float64)) * widths).astype(f32)
        pred_h = (np.exp(delta[:, 3].astype(np.float64)) * heights).astype(f32)
        half_w = 0.5 * (pred_w.astype(np.float64) - 1.0)
        half_h = 0.5 * (pred_h.astype(np.float64) - 1.0)
        return np.stack([pred_x - half_w, pred_y - half_h, pred_x + half_w, pred_y + half_h], axis=1).astype(f32)


@register("_contrib_Proposal", "Proposal")
class Proposal(_ProposalBase):
    """Region proposals of a region proposal network (Faster R-CNN) for one image.

    cls_prob ``(1, 2 * A, H, W)`` (background scores first, then the A foreground scores),
    bbox_pred ``(1, 4 * A, H, W)`` (``(dx, dy, dw, dh)`` per anchor), im_info ``(1, 3)``
    ``(height, width, scale)`` of the image; ``A = len(scales) * len(ratios)``.  Anchors
    (:func:`rpn_anchors`) shifted by ``feature_stride`` per cell are moved by the deltas
    (centre ``+ d * size``, size ``* exp(d)``, with Faster R-CNN's +1 pixel convention;
    with ``iou_loss`` the deltas are added to the corners) and clipped to the image.
    Cells beyond ``im_info / feature_stride`` (padding) and boxes smaller than
    ``rpn_min_size * scale`` get score -1.  The ``rpn_pre_nms_top_n`` best (all when <= 0)
    go through greedy non-maximum suppression (IoU above ``threshold`` suppresses) until
    ``rpn_post_nms_top_n`` are kept.

    Outputs: output ``(rpn_post_nms_top_n, 5)`` rows ``(0, x1, y1, x2, y2)``; score
    ``(rpn_post_nms_top_n, 1)``, visible only with ``output_score=True`` (a hidden output
    otherwise, as in MXNet).  When fewer boxes survive, the kept ones repeat cyclically.
    Equal scores keep their (row, column, anchor) order (MXNet's CPU build sorted with an
    unstable sort, so the order of ties among more than 16 boxes could differ there).
    Batch size must be 1 (MXNetError otherwise; use MultiProposal).  Computed on the host
    in float32; no gradient flows to the inputs.
    """

    def _rows(self, batch):
        return self.rpn_post_nms_top_n

    def _check_batch(self, batch):
        if batch != 1:
            raise self.error(f"handles one image per call, got a batch of {batch} (use _contrib_MultiProposal)")


@register("_contrib_MultiProposal", "MultiProposal")
class MultiProposal(_ProposalBase):
    """Region proposals for a batch of images: :class:`Proposal` applied to each image.

    cls_prob ``(batch, 2 * A, H, W)``, bbox_pred ``(batch, 4 * A, H, W)``, im_info
    ``(batch, 3)``.  Outputs: output ``(batch * rpn_post_nms_top_n, 5)`` rows
    ``(image_index, x1, y1, x2, y2)``, image after image; score
    ``(batch * rpn_post_nms_top_n, 1)`` (hidden unless ``output_score``).  No gradient.
    """

    def _rows(self, batch):
        return batch * self.rpn_post_nms_top_n if batch else 0


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
        start_w = _round_half_away(boxes[:, 1]) * scale
        start_h = _round_half_away(boxes[:, 2]) * scale
        end_w = (_round_half_away(boxes[:, 3]) + 1) * scale
        end_h = (_round_half_away(boxes[:, 4]) + 1) * scale
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
        start_w = _round_half_away(boxes[:, 1]) * scale - 0.5
        start_h = _round_half_away(boxes[:, 2]) * scale - 0.5
        end_w = (_round_half_away(boxes[:, 3]) + 1) * scale - 0.5
        end_h = (_round_half_away(boxes[:, 4]) + 1) * scale - 0.5
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


# -- deformable convolution ------------------------------------------------------------------------
@register("_contrib_DeformableConvolution")
class DeformableConvolution(Operator):
    """2-D deformable convolution (Deformable ConvNets v1).

    data ``(batch, C, H, W)``; offset ``(batch, 2 * num_deformable_group * kh * kw, out_h,
    out_w)`` holds for every deformable group and kernel tap ``(i, j)`` (channels
    ``2 * (i * kw + j)`` and ``+ 1``) the (y, x) displacement of the sampling point
    ``(oh * stride - pad + i * dilate + dy, ow * stride - pad + j * dilate + dx)``; weight
    ``(num_filter, C / num_group, kh, kw)``; bias ``(num_filter,)`` unless ``no_bias``.
    Sampling follows MXNet's kernels: a point outside ``[0, H) x [0, W)`` reads 0, a point
    inside is bilinearly interpolated, and beyond the last row / column (``[H - 1, H)``) it
    reads that row / column.  Output ``(batch, num_filter, out_h, out_w)`` with
    ``out = floor((x + 2 * pad - dilate * (kernel - 1) - 1) / stride) + 1``.

    Gradients flow to data, offset, weight and bias.  Only 2-D kernels exist (as in MXNet);
    the offset shape is inferred from data when not given.
    """

    kernel = Attr(Shape, required=True)
    stride = Attr(Shape, default=())
    dilate = Attr(Shape, default=())
    pad = Attr(Shape, default=())
    num_filter = Attr(Int, required=True)
    num_group = Attr(Int, default=1)
    num_deformable_group = Attr(Int, default=1)
    workspace = Attr(Int, default=1024)
    no_bias = Attr(Bool, default=False)
    layout = Attr(optional(Choice("NCDHW", "NCHW", "NCW")), default=None)

    def validate(self):
        if len(self.kernel) != 2:
            raise self.error(f"only 2-D kernels are supported (as in MXNet), got kernel {self.kernel}")
        if min(self.kernel) < 1:
            raise self.error(f"kernel sizes must be positive, got {self.kernel}")
        if self.layout not in (None, "NCHW"):
            raise self.error(f"layout must be NCHW for a 2-D kernel, got {self.layout}")
        _expand_conv_geometry(self)
        if self.num_filter < 1 or self.num_group < 1 or self.num_deformable_group < 1:
            raise self.error(f"num_filter, num_group and num_deformable_group must be positive, got "
                             f"{self.num_filter}, {self.num_group} and {self.num_deformable_group}")
        if self.num_filter % self.num_group:
            raise self.error(f"num_filter={self.num_filter} must be divisible by num_group={self.num_group}")

    def arguments(self):
        return ["data", "offset", "weight"] + ([] if self.no_bias else ["bias"])

    def infer_shape(self, in_shapes, out_shapes):
        where = _where(self)
        data, offset, weight = in_shapes[0], in_shapes[1], in_shapes[2]
        out = out_shapes[0]
        taps = self.kernel[0] * self.kernel[1]
        _check_ndim(self, "data", data, 4, "(batch, channel, height, width)")
        _check_ndim(self, "offset", offset, 4, "(batch, 2 * num_deformable_group * kh * kw, out_h, out_w)")
        if data is not None:
            channels = data[1]
            if channels and channels % self.num_group:
                raise self.error(f"input channels {channels} of data {tuple(data)} are not divisible by "
                                 f"num_group={self.num_group}")
            if channels and channels % self.num_deformable_group:
                raise self.error(f"input channels {channels} of data {tuple(data)} are not divisible by "
                                 f"num_deformable_group={self.num_deformable_group}")
            weight = merge_shape(weight, (self.num_filter, channels // self.num_group if channels else 0)
                                 + tuple(self.kernel), f"{where} argument 'weight'")
            spatial = _conv_output_size(self, data[2:])
            expected = (data[0], 2 * self.num_deformable_group * taps) + spatial
            try:
                offset = merge_shape(offset, expected, where)
            except MXNetError:
                raise self.error(f"offset must have shape {expected} = (batch, 2 * num_deformable_group * kh * kw, "
                                 f"out_h, out_w) for data {tuple(data)}, got {tuple(offset)}") from None
            out = merge_shape(out, (data[0], self.num_filter) + spatial, f"{where} output")
        else:
            weight = merge_shape(weight, (self.num_filter, 0) + tuple(self.kernel), f"{where} argument 'weight'")
        shapes = [data, offset, weight]
        if not self.no_bias:
            shapes.append(merge_shape(in_shapes[3], (self.num_filter,), f"{where} argument 'bias'"))
        return shapes, [out], []

    def forward(self, is_train, inputs, aux):
        _check_inputs(self, inputs)
        data, offset, weight = inputs[0], inputs[1], inputs[2]
        bias = None if self.no_bias else inputs[3]
        batch, channels, height, width = data.shape
        out_h, out_w = _conv_output_size(self, (height, width))
        kernel_h, kernel_w = self.kernel
        taps = kernel_h * kernel_w
        groups = self.num_deformable_group
        dtype = _compute_dtype(data)
        device = data.device
        # sampling points (N, G, taps, L) with L = out_h * out_w
        offset = offset.to(dtype).reshape(batch, groups, taps, 2, out_h * out_w)
        tap_y = torch.arange(kernel_h, device=device, dtype=dtype).repeat_interleave(kernel_w) * self.dilate_[0]
        tap_x = torch.arange(kernel_w, device=device, dtype=dtype).repeat(kernel_h) * self.dilate_[1]
        grid_y = (torch.arange(out_h, device=device, dtype=dtype) * self.stride_[0] - self.pad_[0])
        grid_x = (torch.arange(out_w, device=device, dtype=dtype) * self.stride_[1] - self.pad_[1])
        base_y = (tap_y[:, None, None] + grid_y[None, :, None]).expand(taps, out_h, out_w).reshape(taps, -1)
        base_x = (tap_x[:, None, None] + grid_x[None, None, :]).expand(taps, out_h, out_w).reshape(taps, -1)
        ys = base_y + offset[:, :, :, 0]
        xs = base_x + offset[:, :, :, 1]
        inside = (ys >= 0) & (ys < height) & (xs >= 0) & (xs < width)
        ys = torch.minimum(ys, torch.tensor(height - 1, dtype=dtype, device=device))
        xs = torch.minimum(xs, torch.tensor(width - 1, dtype=dtype, device=device))
        y_low = torch.floor(ys).clamp(0, height - 1)
        x_low = torch.floor(xs).clamp(0, width - 1)
        frac_y, frac_x = ys - y_low, xs - x_low
        y_low, x_low = y_low.long(), x_low.long()
        y_high = (y_low + 1).clamp(max=height - 1)
        x_high = (x_low + 1).clamp(max=width - 1)
        inside = inside.to(dtype)
        per_group = channels // groups
        image = data.to(dtype).reshape(batch, groups, per_group, height * width)
        columns = 0
        for rows, weight_y in ((y_low, 1 - frac_y), (y_high, frac_y)):
            for cols, weight_x in ((x_low, 1 - frac_x), (x_high, frac_x)):
                position = (rows * width + cols).reshape(batch, groups, 1, taps * out_h * out_w)
                values = torch.gather(image, 3, position.expand(batch, groups, per_group, position.shape[-1]))
                factor = (weight_y * weight_x * inside).reshape(batch, groups, 1, -1)
                columns = columns + values * factor
        # (N, C * taps, L): channel-major, tap-minor, as the weight (F, C / g, kh, kw) flattens
        columns = columns.reshape(batch, self.num_group, channels // self.num_group * taps, out_h * out_w)
        kernels = weight.to(dtype).reshape(self.num_group, self.num_filter // self.num_group, -1)
        output = torch.matmul(kernels[None], columns).reshape(batch, self.num_filter, out_h, out_w)
        if bias is not None:
            output = output + bias.to(dtype).reshape(1, -1, 1, 1)
        return [output.to(data.dtype)]


# -- box utilities ---------------------------------------------------------------------------------
def _corners(boxes, box_format):
    """``(left, top, right, bottom)`` of ``(..., 4)`` boxes in 'corner' or 'center' form."""
    if box_format == "corner":
        return boxes[..., 0], boxes[..., 1], boxes[..., 2], boxes[..., 3]
    half_w, half_h = boxes[..., 2] / 2, boxes[..., 3] / 2
    return boxes[..., 0] - half_w, boxes[..., 1] - half_h, boxes[..., 0] + half_w, boxes[..., 1] + half_h


def _areas(boxes, box_format):
    """Box areas, 0 for boxes of negative width or height (MXNet's rule)."""
    if box_format == "corner":
        width, height = boxes[..., 2] - boxes[..., 0], boxes[..., 3] - boxes[..., 1]
    else:
        width, height = boxes[..., 2], boxes[..., 3]
    degenerate = (width < 0) | (height < 0)
    area = width * height
    return area * ~degenerate if isinstance(area, np.ndarray) else torch.where(degenerate, torch.zeros_like(area), area)


@register("_contrib_box_nms", "_contrib_box_non_maximum_suppression")
class BoxNMS(Operator):
    """Non-maximum suppression of boxes, per batch item (GluonCV's ``box_nms``).

    data ``(..., N, width)``: every leading axis is a batch axis; each of the N rows holds a
    score at ``score_index``, four coordinates from ``coord_start`` (``in_format`` 'corner'
    ``(x1, y1, x2, y2)`` or 'center' ``(x, y, w, h)``) and, when ``id_index >= 0``, a class
    id.  Rows with score <= ``valid_thresh`` (and, with ids, of class ``background_id``) are
    dropped; the rest are ranked by score (ties keep their order) and the first ``topk``
    (all when < 0) are suppressed greedily: a row whose IoU with a kept higher-ranked row of
    the same class (ids compared as integers; any class with ``force_suppress`` or without
    ids) exceeds ``overlap_thresh`` goes.  ``topk=0`` returns data unchanged.

    Output: data's shape; the kept rows first in rank order, then rows of -1.  With
    ``out_format`` different from ``in_format`` the coordinates are converted, except in
    rows whose first coordinate is negative (MXNet's rule, which also skips the -1 rows).  A
    hidden second output records the source row of each output row (-1 for none).  The
    gradient of an output row goes to its source row (conversion ignored, as MXNet's
    backward); dropped rows get 0.  The ranking and suppression run on the host.
    """

    overlap_thresh = Attr(Float, default=0.5)
    valid_thresh = Attr(Float, default=0.0)
    topk = Attr(Int, default=-1)
    coord_start = Attr(Int, default=2)
    score_index = Attr(Int, default=1)
    id_index = Attr(Int, default=-1)
    background_id = Attr(Int, default=-1)
    force_suppress = Attr(Bool, default=False)
    in_format = Attr(Choice("center", "corner"), default="corner")
    out_format = Attr(Choice("center", "corner"), default="corner")

    def outputs(self):
        return ["output0", "output1"]

    def num_visible_outputs(self):
        return 1

    def _check_width(self, shape):
        if len(shape) < 2:
            raise self.error(f"data must have at least 2 dimensions (..., num_boxes, box_width), got shape "
                             f"{tuple(shape)}")
        width = shape[-1]
        if not width:
            return
        expected = 6 if self.id_index >= 0 else 5
        if width < expected:
            raise self.error(f"the last axis of data must hold at least {expected} values (score, 4 coordinates"
                             f"{', class id' if self.id_index >= 0 else ''}), got shape {tuple(shape)}")
        coord_end = self.coord_start + 3
        if not 0 <= self.score_index < width:
            raise self.error(f"score_index={self.score_index} is out of range for box width {width}")
        if self.coord_start <= self.score_index <= coord_end:
            raise self.error(f"score_index={self.score_index} overlaps the coordinates "
                             f"[{self.coord_start}, {coord_end}]")
        if self.coord_start < 0 or coord_end >= width:
            raise self.error(f"coordinates [{self.coord_start}, {coord_end}] are out of range for box width {width}")
        if self.id_index >= 0:
            if self.id_index >= width:
                raise self.error(f"id_index={self.id_index} is out of range for box width {width}")
            if self.coord_start <= self.id_index <= coord_end:
                raise self.error(f"id_index={self.id_index} overlaps the coordinates [{self.coord_start}, {coord_end}]")
            if self.id_index == self.score_index:
                raise self.error(f"id_index={self.id_index} equals score_index")

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"{_where(self)} argument 'data'")
        if data is None:
            return [None], list(out_shapes), []
        self._check_width(data)
        record = tuple(data[:-1]) + (1,)
        return [data], [data, merge_shape(out_shapes[1], record, f"{_where(self)} output 'output1'")], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        shape = tuple(data.shape)
        self._check_width(shape)
        count, width = shape[-2], shape[-1]
        batch = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
        flat = data.reshape(batch * count, width)
        topk = count if self.topk < 0 else min(count, self.topk)
        if topk < 1:
            record = torch.arange(batch * count, device=data.device).to(data.dtype)
            return [data * 1, record.reshape(shape[:-1] + (1,))]
        source = self._select(_host(data).reshape(batch, count, width), topk)          # (B, N) rows or -1
        source = torch.from_numpy(source).to(data.device)
        kept = source >= 0
        rows = flat[source.clamp(min=0).reshape(-1)].reshape(batch, count, width)
        output = torch.where(kept[..., None], rows, torch.full_like(rows, -1))
        if self.in_format != self.out_format:
            start = self.coord_start
            box = output[..., start:start + 4]
            left, top, right, bottom = box.unbind(-1)
            if self.out_format == "center":
                converted = torch.stack([(left + right) / 2, (top + bottom) / 2, right - left, bottom - top], -1)
            else:
                converted = torch.stack(_corners(box, "center"), -1)
            converted = torch.where((box[..., :1] < 0), box, converted)
            # MXNet's backward copies the head gradient through without the conversion
            box = box + (converted - box).detach()
            output = torch.cat([output[..., :start], box, output[..., start + 4:]], dim=-1)
        record = source.to(data.dtype).reshape(shape[:-1] + (1,))
        return [output.reshape(shape), record]

    def _select(self, host, topk):
        batch, count, _ = host.shape
        dtype = host.dtype.type
        source = np.full((batch, count), -1, np.int64)
        start = self.coord_start
        threshold = dtype(self.overlap_thresh)
        for item in range(batch):
            rows = host[item]
            scores = rows[:, self.score_index]
            valid = scores > dtype(self.valid_thresh)
            if self.id_index >= 0:
                valid &= rows[:, self.id_index] != dtype(self.background_id)
            candidates = np.flatnonzero(valid)
            candidates = candidates[np.argsort(-scores[candidates], kind="stable")][:topk]
            if not len(candidates):
                continue
            boxes = rows[candidates, start:start + 4]
            left, top, right, bottom = _corners(boxes, self.in_format)
            area = _areas(boxes, self.in_format)
            classes = np.trunc(rows[candidates, self.id_index]) if self.id_index >= 0 else None

            def suppresses(members):
                def rule(index, later):
                    index, later = members[index], members[later]
                    overlap_w = np.minimum(right[index], right[later]) - np.maximum(left[index], left[later])
                    overlap_h = np.minimum(bottom[index], bottom[later]) - np.maximum(top[index], top[later])
                    inter = np.where(overlap_w > 0, overlap_w, dtype(0)) * np.where(overlap_h > 0, overlap_h, dtype(0))
                    with np.errstate(divide="ignore", invalid="ignore"):
                        return inter / (area[index] + area[later] - inter) > threshold
                return rule

            if classes is None or self.force_suppress:
                groups = [np.arange(len(candidates))]
            else:
                # boxes of different classes never suppress each other: one greedy pass per class
                groups = [np.flatnonzero(classes == value) for value in np.unique(classes)]
            keep = np.sort(np.concatenate([members[_greedy_keep(len(members), suppresses(members))]
                                           for members in groups]))
            source[item, :len(keep)] = item * count + candidates[keep]
        return source


@register("_contrib_box_iou")
class BoxIoU(Operator):
    """Intersection over union of every box in lhs ``(..., 4)`` with every box in rhs
    ``(..., 4)``: output ``lhs.shape[:-1] + rhs.shape[:-1]``.  ``format`` 'corner'
    ``(x1, y1, x2, y2)`` or 'center' ``(x, y, w, h)``; boxes without overlap give 0 and a box
    of negative width or height has area 0.  No gradient (MXNet's backward is zero)."""

    format = Attr(Choice("center", "corner"), default="corner")

    def arguments(self):
        return ["lhs", "rhs"]

    def infer_shape(self, in_shapes, out_shapes):
        lhs, rhs = in_shapes
        for label, shape in (("lhs", lhs), ("rhs", rhs)):
            if shape is not None and (len(shape) < 2 or (shape[-1] and shape[-1] != 4)):
                raise self.error(f"{label} must have shape (..., 4) with at least 2 dimensions, got {tuple(shape)}")
        out = out_shapes[0]
        if lhs is not None and rhs is not None:
            out = merge_shape(out, tuple(lhs[:-1]) + tuple(rhs[:-1]), f"{_where(self)} output")
        return [lhs, rhs], [out], []

    def forward(self, is_train, inputs, aux):
        _check_inputs(self, inputs)
        lhs, rhs = (tensor.detach() for tensor in inputs)
        dtype = _compute_dtype(lhs)
        left = lhs.reshape(-1, 1, 4).to(dtype)
        right = rhs.reshape(1, -1, 4).to(dtype)
        l_box, r_box = _corners(left, self.format), _corners(right, self.format)
        overlap_w = (torch.minimum(l_box[2], r_box[2]) - torch.maximum(l_box[0], r_box[0])).clamp(min=0)
        overlap_h = (torch.minimum(l_box[3], r_box[3]) - torch.maximum(l_box[1], r_box[1])).clamp(min=0)
        inter = overlap_w * overlap_h
        union = _areas(left, self.format) + _areas(right, self.format) - inter
        iou = torch.where(inter > 0, inter / torch.where(inter > 0, union, torch.ones_like(union)),
                          torch.zeros_like(inter))
        return [iou.reshape(tuple(lhs.shape[:-1]) + tuple(rhs.shape[:-1])).to(lhs.dtype)]


@register("_contrib_box_encode")
class BoxEncode(Operator):
    """Regression targets of anchors towards matched reference boxes (Faster R-CNN / SSD).

    samples ``(B, N)`` (> 0.5 marks a positive anchor), matches ``(B, N)`` (index of the
    reference box, truncated to an integer), anchors ``(B, N, 4)`` and refs ``(B, M, 4)``
    corner boxes, means ``(4,)`` and stds ``(4,)``.  For a positive anchor with centre
    ``(ax, ay)`` and size ``(aw, ah)`` matched to a reference ``(gx, gy, gw, gh)``:
    ``((gx - ax) / aw - means[0]) / stds[0]``, the same for y, and
    ``(log(gw / aw) - means[2]) / stds[2]``, the same for h.

    Outputs: targets ``(B, N, 4)`` (0 for other anchors) and masks ``(B, N, 4)`` (1 for
    positives).  Matches outside ``[0, M)`` are clamped.  No gradient.
    """

    def arguments(self):
        return ["samples", "matches", "anchors", "refs", "means", "stds"]

    def outputs(self):
        return ["output0", "output1"]

    def infer_shape(self, in_shapes, out_shapes):
        where = _where(self)
        samples, matches, anchors, refs, means, stds = in_shapes
        _check_ndim(self, "samples", samples, 2, "(batch, num_anchors)")
        _check_ndim(self, "matches", matches, 2, "(batch, num_anchors)")
        _check_ndim(self, "anchors", anchors, 3, "(batch, num_anchors, 4)")
        _check_ndim(self, "refs", refs, 3, "(batch, num_refs, 4)")
        for label, shape in (("anchors", anchors), ("refs", refs)):
            if shape is not None and shape[2] and shape[2] != 4:
                raise self.error(f"the last axis of {label} must be 4, got shape {tuple(shape)}")
        means = merge_shape(means, (4,), f"{where} argument 'means'")
        stds = merge_shape(stds, (4,), f"{where} argument 'stds'")
        given = [(label, shape) for label, shape in (("samples", samples), ("matches", matches), ("anchors", anchors))
                 if shape is not None]
        pair = None
        for label, shape in given:
            try:
                pair = merge_shape(pair, tuple(shape[:2]), where)
            except MXNetError:
                listed = ", ".join(f"{name} {tuple(value)}" for name, value in given)
                raise self.error(f"samples, matches and anchors must share (batch, num_anchors); "
                                 f"got {listed}") from None
        if pair is not None:
            samples = merge_shape(samples, pair, f"{where} argument 'samples'")
            matches = merge_shape(matches, pair, f"{where} argument 'matches'")
            anchors = merge_shape(anchors, tuple(pair) + (4,), f"{where} argument 'anchors'")
        if refs is not None and pair is not None and pair[0] and refs[0] and refs[0] != pair[0]:
            raise self.error(f"refs {tuple(refs)} and anchors {tuple(anchors)} have different batch sizes")
        outs = list(out_shapes)
        if anchors is not None:
            outs = [merge_shape(outs[0], anchors, f"{where} output 'output0'"),
                    merge_shape(outs[1], anchors, f"{where} output 'output1'")]
        return [samples, matches, anchors, refs, means, stds], outs, []

    def forward(self, is_train, inputs, aux):
        _check_inputs(self, inputs)
        samples, matches, anchors, refs, means, stds = (tensor.detach() for tensor in inputs)
        dtype = _compute_dtype(anchors)
        anchors, refs, means, stds = (t.to(dtype) for t in (anchors, refs, means, stds))
        index = matches.long().clamp(0, refs.shape[1] - 1)
        ref = torch.gather(refs, 1, index[..., None].expand(-1, -1, 4))
        ref_w, ref_h = ref[..., 2] - ref[..., 0], ref[..., 3] - ref[..., 1]
        ref_x, ref_y = ref[..., 0] + ref_w * 0.5, ref[..., 1] + ref_h * 0.5
        a_w, a_h = anchors[..., 2] - anchors[..., 0], anchors[..., 3] - anchors[..., 1]
        a_x, a_y = anchors[..., 0] + a_w * 0.5, anchors[..., 1] + a_h * 0.5
        targets = torch.stack([((ref_x - a_x) / a_w - means[0]) / stds[0], ((ref_y - a_y) / a_h - means[1]) / stds[1],
                               (torch.log(ref_w / a_w) - means[2]) / stds[2],
                               (torch.log(ref_h / a_h) - means[3]) / stds[3]], dim=-1)
        positive = (samples > 0.5)[..., None].expand_as(targets)
        targets = torch.where(positive, targets, torch.zeros_like(targets))
        out_dtype = inputs[2].dtype
        return [targets.to(out_dtype), positive.to(out_dtype)]


@register("_contrib_box_decode")
class BoxDecode(Operator):
    """Boxes from regression offsets (the inverse of :class:`BoxEncode` without means).

    data ``(B, N, 4)`` offsets ``(dx, dy, dw, dh)``; anchors ``(k, N, 4)`` (the first is
    used) in ``format`` 'center' ``(x, y, w, h)`` or 'corner'.  Output ``(B, N, 4)`` corner
    boxes with centre ``anchor_centre + d * std * anchor_size`` and half size
    ``exp(min(d * std, clip)) * anchor_size / 2`` (no clipping when ``clip <= 0``).  No
    gradient.
    """

    std0 = Attr(Float, default=1.0)
    std1 = Attr(Float, default=1.0)
    std2 = Attr(Float, default=1.0)
    std3 = Attr(Float, default=1.0)
    clip = Attr(Float, default=-1.0)
    format = Attr(Choice("center", "corner"), default="center")

    def arguments(self):
        return ["data", "anchors"]

    def infer_shape(self, in_shapes, out_shapes):
        data, anchors = in_shapes
        _check_ndim(self, "data", data, 3, "(batch, num_boxes, 4)")
        _check_ndim(self, "anchors", anchors, 3, "(1, num_boxes, 4)")
        out = merge_shape(data, out_shapes[0], f"{_where(self)} argument 'data'")
        for label, shape in (("data", out), ("anchors", anchors)):
            if shape is not None and shape[2] and shape[2] != 4:
                raise self.error(f"the last axis of {label} must be 4, got shape {tuple(shape)}")
        if out is not None and anchors is not None and out[1] and anchors[1] and out[1] != anchors[1]:
            raise self.error(f"anchors {tuple(anchors)} must have one box per data box {tuple(out)}")
        return [out, anchors], [out], []

    def forward(self, is_train, inputs, aux):
        _check_inputs(self, inputs)
        data, anchors = (tensor.detach() for tensor in inputs)
        dtype = _compute_dtype(data)
        offsets = data.to(dtype)
        anchor = anchors[:1].to(dtype)
        if self.format == "corner":
            a_w, a_h = anchor[..., 2] - anchor[..., 0], anchor[..., 3] - anchor[..., 1]
            a_x, a_y = anchor[..., 0] + a_w * 0.5, anchor[..., 1] + a_h * 0.5
        else:
            a_x, a_y, a_w, a_h = anchor.unbind(-1)
        x = offsets[..., 0] * self.std0 * a_w + a_x
        y = offsets[..., 1] * self.std1 * a_h + a_y
        d_w, d_h = offsets[..., 2] * self.std2, offsets[..., 3] * self.std3
        if self.clip > 0:
            d_w, d_h = d_w.clamp(max=self.clip), d_h.clamp(max=self.clip)
        half_w = torch.exp(d_w) * a_w * 0.5
        half_h = torch.exp(d_h) * a_h * 0.5
        return [torch.stack([x - half_w, y - half_h, x + half_w, y + half_h], dim=-1).to(data.dtype)]


@register("_contrib_bipartite_matching")
class BipartiteMatching(Operator):
    """Greedy bipartite matching of a score matrix (SSD / Faster R-CNN target assignment).

    data ``(..., R, C)``.  Per batch item the entries are visited by score, descending
    (ascending with ``is_ascend``; ties in row-major order); an entry whose row and column
    are both free is matched when its score is above ``threshold`` (below with
    ``is_ascend``), otherwise the matching stops.  As in MXNet, with ``topk > 0`` it stops
    after ``topk + 1`` matches.

    Outputs: the column matched to each row ``(..., R)`` and the row matched to each column
    ``(..., C)``, -1 for unmatched, in data's dtype.  Computed on the host; no gradient.
    """

    is_ascend = Attr(Bool, default=False)
    threshold = Attr(Float, required=True)
    topk = Attr(Int, default=-1)

    def outputs(self):
        return ["output0", "output1"]

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        outs = list(out_shapes)
        if data is not None:
            if len(data) < 2:
                raise self.error(f"data must be a score matrix (..., rows, columns), got shape {tuple(data)}")
            outs[0] = merge_shape(outs[0], tuple(data[:-1]), f"{_where(self)} output 'output0'")
            outs[1] = merge_shape(outs[1], tuple(data[:-2]) + (data[-1],), f"{_where(self)} output 'output1'")
        return [data], outs, []

    def forward(self, is_train, inputs, aux):
        _check_inputs(self, inputs)
        data = inputs[0]
        shape = tuple(data.shape)
        rows, cols = shape[-2], shape[-1]
        host = _host(data).reshape(-1, rows * cols)
        dtype = host.dtype.type
        threshold = dtype(self.threshold)
        row_match = np.full((host.shape[0], rows), -1, np.int64)
        col_match = np.full((host.shape[0], cols), -1, np.int64)
        for item, scores in enumerate(host):
            order = np.argsort(scores if self.is_ascend else -scores, kind="stable")
            sorted_rows, sorted_cols = np.divmod(order, cols)
            passes = scores[order] < threshold if self.is_ascend else scores[order] > threshold
            matched, start = 0, 0
            while start < len(order):
                free = (row_match[item, sorted_rows[start:]] < 0) & (col_match[item, sorted_cols[start:]] < 0)
                if not free.any():
                    break
                position = start + int(np.argmax(free))
                if not passes[position]:
                    break
                row_match[item, sorted_rows[position]] = sorted_cols[position]
                col_match[item, sorted_cols[position]] = sorted_rows[position]
                matched += 1
                start = position + 1
                if 0 < self.topk < matched:
                    break
        device, out_dtype = data.device, data.dtype
        return [torch.from_numpy(row_match).to(device=device, dtype=out_dtype).reshape(shape[:-1]),
                torch.from_numpy(col_match).to(device=device, dtype=out_dtype).reshape(shape[:-2] + (cols,))]


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
        if not self.align_corners:
            # MXNet samples index 0 along an output axis of size 1
            if size[0] == 1:
                source = source[:, :, :1]
            if size[1] == 1:
                source = source[:, :, :, :1]
        output = F.interpolate(source, size=tuple(size), mode="bilinear", align_corners=self.align_corners)
        return [output.to(data.dtype)]


@register("_contrib_AdaptiveAvgPooling2D")
class AdaptiveAvgPooling2D(Operator):
    """Adaptive average pooling of data ``(batch, C, H, W)`` to ``(batch, C, oh, ow)``.

    ``output_size``: ``()`` (default) means ``(1, 1)``, one value a square, two values
    ``(oh, ow)``.  Output cell ``(i, j)`` averages rows ``floor(i * H / oh)`` to
    ``ceil((i + 1) * H / oh)`` (exclusive) and the columns likewise, as PyTorch's
    ``adaptive_avg_pool2d``.  Gradients flow to data.
    """

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
