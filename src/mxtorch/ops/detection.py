"""Anchor-based detection heads: SSD's MultiBoxPrior / MultiBoxTarget / MultiBoxDetection
and Faster R-CNN's region proposals (contrib Proposal, MultiProposal).

Images are ``(batch, channel, height, width)``; boxes are ``(x1, y1, x2, y2)`` corners.
The greedy non-maximum suppression runs on the host with numpy, as MXNet's CPU kernels did.
Proposal and MultiProposal return outputs without gradient, so their inputs get zero
gradients as in MXNet.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from .boxes import _greedy_keep
from .helpers import _check_inputs, _check_ndim, _host, _where
from .registry import Attr, Bool, Float, FloatTuple, Int, merge_shape, Operator, register

__all__ = ['rpn_anchors']


# -- SSD MultiBox operators ------------------------------------------------------------------------
@register("_contrib_MultiBoxPrior", "MultiBoxPrior")
class MultiBoxPrior(Operator):
    """Anchor boxes for every position of a feature map (SSD).

    data ``(batch, C, H, W)`` (only its shape is used).  At each cell (row r, column c) the
    centre is ``((c + offsets[1]) * step_x, (r + offsets[0]) * step_y)`` with ``steps``
    ``(step_y, step_x)`` (``-1``: ``1 / H`` and ``1 / W``).  Each cell gets
    ``len(sizes) + len(ratios) - 1`` boxes: every size with ``ratios[0]`` (as MXNet 1.9.1,
    which does not assume it is 1), then ``sizes[0]`` with every further ratio; a box of size s and ratio q has half-width
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
        first = math.sqrt(self.ratios[0])
        for size in self.sizes:
            half.append((size * height / width * first / 2, size / first / 2))
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
