"""Box utilities of MXNet's ``contrib`` namespace: box_nms, box_iou, box_encode, box_decode
and bipartite_matching.

Corner boxes are ``(x1, y1, x2, y2)``, centre boxes ``(x, y, width, height)``.  The greedy
parts (non-maximum suppression, bipartite matching) run on the host with numpy, as MXNet's
CPU kernels did.  box_iou, box_encode, box_decode and bipartite_matching return outputs
without gradient, so their inputs get zero gradients as in MXNet.
"""
from __future__ import annotations

import numpy as np
import torch

from ..base import MXNetError
from .helpers import _check_inputs, _check_ndim, _compute_dtype, _host, _where, capturing_graph
from .registry import Attr, Bool, Choice, Float, Int, merge_shape, Operator, register

__all__ = []


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


def _iou_rule(boxes, threshold, box_format="corner"):
    """``suppresses(i, later)`` for ``_greedy_keep`` over ``boxes`` ``(K, 4)`` (numpy, in
    ``box_format``): IoU above ``threshold`` (boxes without overlap or of zero area never
    suppress), computed in the boxes' dtype as MXNet's box_nms computes it."""
    dtype = boxes.dtype.type
    left, top, right, bottom = _corners(boxes, box_format)
    area = _areas(boxes, box_format)

    def rule(index, later):
        overlap_w = np.minimum(right[index], right[later]) - np.maximum(left[index], left[later])
        overlap_h = np.minimum(bottom[index], bottom[later]) - np.maximum(top[index], top[later])
        inter = np.where(overlap_w > 0, overlap_w, dtype(0)) * np.where(overlap_h > 0, overlap_h, dtype(0))
        with np.errstate(divide="ignore", invalid="ignore"):
            return inter / (area[index] + area[later] - inter) > dtype(threshold)
    return rule


@torch.library.custom_op("mxtorch::greedy_nms", mutates_args=())
def greedy_nms(boxes: torch.Tensor, priority: torch.Tensor, classes: torch.Tensor,
               overlap_thresh: float) -> torch.Tensor:
    """Greedy non-maximum suppression with a fixed-shape result, the form box_nms takes
    under a graph capture (``capturing_graph``): ``mxtorch.export`` writes it as ONNX's
    ``NonMaxSuppression``.

    boxes ``(B, N, 4)`` corners ``(x1, y1, x2, y2)`` (float32), priority ``(B, N)``: > 0
    for the candidates, a higher value ranks first (distinct within a batch item), classes
    ``(B, N)``: boxes suppress only boxes of an equal class value.  Returns ``(B, N)`` bool,
    True for the kept candidates (IoU above ``overlap_thresh`` with a kept candidate of
    higher priority and the same class suppresses)."""
    host_boxes = boxes.detach().cpu().to(torch.float32).numpy()
    host_priority = priority.detach().cpu().to(torch.float32).numpy()
    host_classes = classes.detach().cpu().to(torch.float32).numpy()
    keep = np.zeros(host_priority.shape, dtype=bool)
    for item in range(host_priority.shape[0]):
        candidates = np.flatnonzero(host_priority[item] > 0)
        candidates = candidates[np.argsort(-host_priority[item][candidates], kind="stable")]
        for value in np.unique(host_classes[item][candidates]):
            members = candidates[host_classes[item][candidates] == value]
            rule = _iou_rule(host_boxes[item][members], overlap_thresh)
            keep[item, members[_greedy_keep(len(members), rule)]] = True
    return torch.from_numpy(keep).to(boxes.device)


@greedy_nms.register_fake
def _greedy_nms_shape(boxes, priority, classes, overlap_thresh):
    return torch.empty(priority.shape, dtype=torch.bool, device=priority.device)


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
        if capturing_graph():
            source = self._select_captured(data.reshape(batch, count, width), topk)
        else:
            source = self._select(_host(data).reshape(batch, count, width), topk)      # (B, N) rows or -1
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
            output = torch.cat([output[..., :start], converted, output[..., start + 4:]], dim=-1)
        record = source.to(data.dtype).reshape(shape[:-1] + (1,))
        return [output.reshape(shape), record]

    def backward(self, out_grads, inputs, outputs, aux):
        """MXNet's gradient: each output row's head gradient goes to its source row (the
        hidden record output), without the coordinate conversion; dropped rows get 0."""
        data, grad = inputs[0], out_grads[0]
        width = data.shape[-1]
        source = outputs[1].reshape(-1).long()
        kept = source >= 0
        flat = torch.zeros(data.numel() // width, width, dtype=grad.dtype, device=grad.device)
        flat.index_add_(0, source[kept], grad.reshape(-1, width)[kept])
        return [flat.reshape(data.shape)]

    def _select_captured(self, rows, topk):
        """``_select`` in tensor operations for a graph capture (``capturing_graph``): the same
        (B, N) source rows (``item * N + row``, -1 after the kept rows) with fixed shapes; the
        greedy pass is ``greedy_nms`` (ONNX NonMaxSuppression once exported).  The ranking is a
        stable sort of the scores as on the host; boxes of negative width or height (area 0
        for MXNet) become empty boxes, which neither suppress nor are suppressed."""
        batch, count, _ = rows.shape
        compute = rows.detach().to(torch.float32)
        scores = compute[..., self.score_index]
        valid = scores > self.valid_thresh
        if self.id_index >= 0:
            valid = valid & (compute[..., self.id_index] != self.background_id)
        key = torch.where(valid, -scores, torch.full_like(scores, float("inf")))
        order = torch.sort(key, dim=1, stable=True).indices                     # (B, N): rank -> row
        positions = torch.arange(count, device=rows.device)
        ranked = compute.gather(1, order[..., None].expand(-1, -1, compute.shape[-1]))
        candidate = valid.gather(1, order) & (positions < topk)
        start = self.coord_start
        left, top, right, bottom = _corners(ranked[..., start:start + 4], self.in_format)
        empty = (right < left) | (bottom < top)
        right, bottom = torch.where(empty, left, right), torch.where(empty, top, bottom)
        boxes = torch.stack([left, top, right, bottom], dim=-1)
        priority = torch.where(candidate, (count - positions).to(torch.float32).expand(batch, -1),
                               torch.zeros_like(scores))
        if self.id_index >= 0 and not self.force_suppress:
            classes = torch.where(candidate, torch.trunc(ranked[..., self.id_index]), torch.zeros_like(scores))
        else:
            classes = torch.zeros_like(scores)
        keep = greedy_nms(boxes, priority, classes, float(self.overlap_thresh))   # (B, N) in rank order
        # kept ranks first, in rank order (distinct keys: no ties to break)
        placed = torch.sort(torch.where(keep, positions, positions + count), dim=1).indices
        kept = keep.gather(1, placed)
        items = torch.arange(batch, device=rows.device)[:, None] * count
        return torch.where(kept, items + order.gather(1, placed), torch.full_like(order, -1))

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
            classes = np.trunc(rows[candidates, self.id_index]) if self.id_index >= 0 else None

            def suppresses(members):
                return _iou_rule(boxes[members], threshold, self.in_format)

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
