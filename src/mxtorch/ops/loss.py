"""Loss heads whose gradient MXNet defines itself (the head gradient is ignored).

``SoftmaxOutput`` returns the softmax of its input in the forward pass; its
backward writes ``(softmax - onehot(label)) * grad_scale / normalizer`` into the
data gradient no matter which gradient arrives from above.
"""
from __future__ import annotations

import torch

from ..base import MXNetError
from .registry import Attr, Operator, register, Float, Bool, Choice, merge_shape, product

__all__ = []


def data_label_types(in_types):
    """``infer_type`` result of an operator whose output has the dtype of its inputs
    ``(data, label, ...)``: data's dtype, or the label's while data's is unknown, for the output
    and for every input whose dtype is unknown."""
    dtype = in_types[0] if in_types[0] is not None else in_types[1]
    return [dtype] + [t if t is not None else dtype for t in in_types[1:]], [dtype], []


class _LabelledLossHead(Operator):
    """Loss heads with the inputs data and label and one output of data's shape (SoftmaxOutput,
    SVMOutput, the regression outputs): ``infer_shape`` merges data's shape with the output's
    and, once data's is known, lets ``_infer_label(data, label)`` check and complete the
    label's."""

    is_loss = True

    def arguments(self):
        return ["data", "label"]

    def _infer_label(self, data, label):
        raise NotImplementedError(f"{type(self).__name__} must implement _infer_label")

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name} argument 'data'")
        label = in_shapes[1]
        if data is not None:
            label = self._infer_label(data, label)
        return [data, label], [data], []


@register("SoftmaxOutput", "Softmax")
class SoftmaxOutput(_LabelledLossHead):
    """Softmax with the cross-entropy gradient (MXNet's classification head).

    data ``(batch, classes)`` (more axes are flattened into classes unless
    ``multi_output`` — softmax over axis 1, label ``(batch, prod(spatial))`` — or
    ``preserve_shape`` — softmax over the last axis, label ``data.shape[:-1]``);
    label holds class indices as floats.  ``normalization``: 'null' (divide by 1;
    with multi_output by the spatial size), 'batch' (by the batch size), 'valid'
    (by the number of labels not equal to ``ignore_label`` when ``use_ignore``).
    ``smooth_alpha`` spreads ``alpha / (classes - 1)`` onto the other classes.
    """

    traceable = True

    def plot_label(self, op_name, node_name):
        # MXNet's plot_network colours only nodes written as "Softmax"
        return node_name, "softmax" if op_name == "Softmax" else "other"

    grad_scale = Attr(Float, default=1.0)
    ignore_label = Attr(Float, default=-1.0)
    multi_output = Attr(Bool, default=False)
    use_ignore = Attr(Bool, default=False)
    preserve_shape = Attr(Bool, default=False)
    normalization = Attr(Choice("null", "batch", "valid"), default="null")
    out_grad = Attr(Bool, default=False)
    smooth_alpha = Attr(Float, default=0.0)

    def _label_shape(self, data):
        if self.multi_output:
            return (data[0],) + ((product(data[2:]),) if all(data[2:]) else (0,)) if len(data) > 2 else (data[0],)
        if self.preserve_shape:
            return tuple(data[:-1])
        return (data[0],)

    def _infer_label(self, data, label):
        expected = self._label_shape(data)
        if label is not None and tuple(label) == tuple(data) and not self.multi_output:
            return label  # probability labels of the data's shape
        if self.multi_output and label is not None and len(data) > 2 and all(data) and all(label):
            # MXNet also takes (batch, *spatial) and (batch, 1, *spatial) labels
            spatial = tuple(data[2:])
            if tuple(label) in ((data[0],) + spatial, (data[0], 1) + spatial):
                return tuple(label)
        return merge_shape(label, expected, f"Operator {self.name} argument 'label'")

    def forward(self, is_train, inputs, aux):
        data, label = inputs
        shape = data.shape
        if self.multi_output:
            logits = data.reshape(shape[0], shape[1], -1)
            probability = torch.softmax(logits, dim=1)
            output = probability.reshape(shape)
        elif self.preserve_shape:
            probability = torch.softmax(data, dim=-1)
            output = probability
        else:
            logits = data.reshape(shape[0], -1)
            probability = torch.softmax(logits, dim=1)
            output = probability.reshape(shape)
        return [output]

    def backward(self, out_grads, inputs, outputs, aux):
        data, label = inputs
        shape = data.shape
        if self.multi_output:
            probability = outputs[0].reshape(shape[0], shape[1], -1)
        elif self.preserve_shape:
            probability = outputs[0]
        else:
            probability = outputs[0].reshape(shape[0], -1)
        return [self._gradient(probability, label).reshape(shape), None]

    def _gradient(self, probability, label):
        """``(p - target) * weight``: target the one-hot label (smoothed by ``smooth_alpha``), or
        the label itself when it has the probability's shape; weight ``grad_scale`` over the
        normalisation count, zero where ``use_ignore`` ignores the label.  One-hot targets are
        never materialised: ``p * weight`` with the label's entries lowered by a scatter."""
        if self.multi_output:
            grid = probability.reshape(probability.shape[0], probability.shape[1], -1)
        else:
            grid = probability.reshape(-1, probability.shape[-1] if self.preserve_shape else
                                       probability.shape[1]).unsqueeze(-1)
        rows, classes, spatial = grid.shape
        if not self.multi_output and label.dim() > 1 and label.numel() == probability.numel():
            # probability (or one-hot) labels of the data's shape
            gradient = probability.reshape(rows, classes) - label.reshape(rows, classes).to(probability.dtype)
            return gradient * self._scale(rows, spatial, None, probability.dtype)
        label = torch.nan_to_num(label.reshape(rows, spatial), nan=-1.0)
        index = label.long()
        valid = label != self.ignore_label if self.use_ignore else None
        # as in MXNet, a label outside [0, classes) has no target class: its gradient is p
        safe = index.clamp(0, classes - 1)
        hit = safe == index
        if valid is not None:
            hit = hit & valid
        weight = self._scale(rows, spatial, valid, grid.dtype)
        if valid is not None:
            weight = valid.to(grid.dtype) * weight
        on = 1.0
        if self.smooth_alpha:
            off = self.smooth_alpha / (classes - 1)
            on = 1.0 - self.smooth_alpha - off
            grid = grid - off
        gradient = grid * (weight.unsqueeze(1) if torch.is_tensor(weight) and weight.dim() else weight)
        lowered = hit.to(grid.dtype) * (-on * weight)
        gradient.scatter_add_(1, safe.unsqueeze(1), lowered.unsqueeze(1))
        return gradient.reshape(probability.shape)

    def _scale(self, rows, spatial, valid, dtype):
        """``grad_scale`` over the normalisation count (a tensor for 'valid' with ignored labels)."""
        scale = self.grad_scale
        if self.normalization == "valid":
            if valid is not None:
                return scale / valid.sum().clamp(min=1).to(dtype)
            return scale / (rows * spatial)
        if self.normalization == "batch":
            return scale / rows / (spatial if self.multi_output else 1)
        return scale / (spatial if self.multi_output else 1)


class _Regression(_LabelledLossHead):
    grad_scale = Attr(Float, default=1.0)

    def _infer_label(self, data, label):
        if label is not None and len(label) == len(data) - 1 and len(data) == 2 and data[1] == 1:
            return merge_shape(label, (data[0],), f"Operator {self.name} argument 'label'")
        if len(data) == 2 and data[1] == 1 and label is None:
            return (data[0],)
        return merge_shape(label, data, f"Operator {self.name} argument 'label'")

    def transform(self, data):
        return data

    def difference(self, output, label):
        return output - label

    def forward(self, is_train, inputs, aux):
        return [self.transform(inputs[0])]

    def backward(self, out_grads, inputs, outputs, aux):
        output = outputs[0]
        label = inputs[1].reshape(output.shape).to(output.dtype)
        per_sample = label.numel() // max(label.shape[0], 1)
        return [self.difference(output, label) * (self.grad_scale / per_sample), None]


@register("LinearRegressionOutput")
class LinearRegressionOutput(_Regression):
    """Identity forward; gradient ``(data - label) * grad_scale / num_output`` (squared loss)."""

    traceable = True
    sparse_storage = "dense"


@register("LogisticRegressionOutput")
class LogisticRegressionOutput(_Regression):
    """Sigmoid forward; gradient ``(sigmoid(data) - label) * grad_scale / num_output``."""

    traceable = True
    sparse_storage = "dense"

    def transform(self, data):
        return torch.sigmoid(data)


@register("MAERegressionOutput")
class MAERegressionOutput(_Regression):
    """Identity forward; gradient ``sign(data - label) * grad_scale / num_output`` where, as in
    MXNet, a zero difference counts as negative (-1)."""

    sparse_storage = "dense"

    def difference(self, output, label):
        return torch.where(output - label > 0, 1.0, -1.0).to(output.dtype)


@register("SVMOutput")
class SVMOutput(_LabelledLossHead):
    """Support-vector-machine head: identity forward on ``data`` ``(batch, classes)``; label
    ``(batch,)`` holds class indices.  The backward pass (head gradients ignored) writes the
    squared-hinge (L2-SVM, default) gradient ``2 * c * max(0, margin + x_j)`` for the other
    classes and ``-2 * c * max(0, margin - x_y)`` for the label class, or with
    ``use_linear`` the hinge (L1-SVM) gradient ``c * [margin + x_j > 0]`` /
    ``-c * [margin - x_y > 0]`` (``c = regularization_coefficient``), not normalised by the
    batch size, as in MXNet."""

    margin = Attr(Float, default=1.0)
    regularization_coefficient = Attr(Float, default=1.0)
    use_linear = Attr(Bool, default=False)

    def _infer_label(self, data, label):
        try:
            return merge_shape(label, (data[0],), "")
        except MXNetError:
            raise MXNetError(f"Operator {self.name}: argument 'label' must have shape ({data[0]},) "
                             f"for 'data' {tuple(data)}, got {tuple(label)}") from None

    def forward(self, is_train, inputs, aux):
        return [inputs[0].clone()]

    def backward(self, out_grads, inputs, outputs, aux):
        data, label = inputs
        scores = data.reshape(data.shape[0], -1)
        classes = scores.shape[1]
        target = torch.nn.functional.one_hot(label.reshape(-1).to(torch.int64).clamp(0, classes - 1),
                                             classes).to(torch.bool)
        coefficient = self.regularization_coefficient
        if self.use_linear:
            other = (self.margin + scores > 0).to(scores.dtype) * coefficient
            own = -(self.margin - scores > 0).to(scores.dtype) * coefficient
        else:
            other = 2 * torch.clamp(self.margin + scores, min=0) * coefficient
            own = -2 * torch.clamp(self.margin - scores, min=0) * coefficient
        gradient = torch.where(target, own, other)
        return [gradient.reshape(data.shape), None]


@register("MakeLoss")
class MakeLoss(Operator):
    """Turn ``data`` into a loss head: identity forward; the backward pass ignores head
    gradients and writes ``grad_scale`` ('null' normalization), ``grad_scale / batch``
    ('batch') or ``grad_scale / count(data > valid_thresh)`` ('valid', at least 1)."""

    is_loss = True
    grad_scale = Attr(Float, default=1.0)
    valid_thresh = Attr(Float, default=0.0)
    normalization = Attr(Choice("batch", "null", "valid"), default="null")

    def forward(self, is_train, inputs, aux):
        return [inputs[0].clone()]

    def backward(self, out_grads, inputs, outputs, aux):
        data = inputs[0]
        scale = self.grad_scale
        if self.normalization == "batch":
            scale = scale / max(data.shape[0], 1) if data.dim() else scale
            return [torch.full_like(data, scale)]
        if self.normalization == "valid":
            count = (data > self.valid_thresh).sum().clamp(min=1).to(data.dtype)
            return [torch.full_like(data, scale) / count]
        return [torch.full_like(data, scale)]


@register("make_loss")
class MakeLossLegacy(Operator):
    """The older ``make_loss``: identity forward (output named ``loss``); the backward pass
    writes ones into the data gradient whatever head gradient arrives."""

    lists_input_names = False

    sparse_storage = "preserve"

    is_loss = True

    def outputs(self):
        return ["loss"]

    def forward(self, is_train, inputs, aux):
        return [inputs[0].clone()]

    def backward(self, out_grads, inputs, outputs, aux):
        return [torch.ones_like(inputs[0])]


@register("softmax_cross_entropy")
class SoftmaxCrossEntropy(Operator):
    """``sum_i -log(softmax(data[i])[label[i]])`` over the batch: data ``(batch, classes)``,
    label ``(batch,)`` class indices; output shape ``(1,)``.  The label gets a zero
    gradient (MXNet refused to compute one)."""

    def arguments(self):
        return ["data", "label"]

    def infer_shape(self, in_shapes, out_shapes):
        data, label = in_shapes
        if data is not None:
            if len(data) != 2:
                raise MXNetError(f"Operator {self.name}: argument 'data' must be (batch, classes), "
                                 f"got {tuple(data)}")
            try:
                label = merge_shape(label, (data[0],), "")
            except MXNetError:
                raise MXNetError(f"Operator {self.name}: argument 'label' must have shape ({data[0]},) for "
                                 f"'data' {tuple(data)}, got {tuple(label)}") from None
        return [data, label], [merge_shape(out_shapes[0], (1,), f"Operator {self.name} output")], []

    def forward(self, is_train, inputs, aux):
        data, label = inputs
        index = label.detach().reshape(-1).to(torch.int64)
        log_probability = torch.log_softmax(data, dim=-1)
        picked = log_probability.gather(1, index.unsqueeze(1))
        return [-picked.sum().reshape(1)]


@register("smooth_l1")
class SmoothL1(Operator):
    """Elementwise smooth L1 with ``sigma = scalar``: ``0.5 * (sigma * x)^2`` where
    ``|x| < 1 / sigma^2``, else ``|x| - 0.5 / sigma^2``."""

    lists_input_names = False

    scalar = Attr(Float, default=1.0)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        sigma2 = self.scalar * self.scalar
        inside = data.abs() < 1.0 / sigma2
        return [torch.where(inside, 0.5 * sigma2 * data * data, data.abs() - 0.5 / sigma2)]


@register("CTCLoss", "ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss")
class CTCLoss(Operator):
    """Connectionist temporal classification loss per sequence (output ``(batch,)``).

    ``data`` ``(T, batch, alphabet)`` holds unnormalised activations (softmax is applied
    inside); ``label`` ``(batch, L)`` holds label indices.  ``blank_label='first'`` reserves
    index 0 for the blank and pads labels with 0; ``'last'`` reserves ``alphabet - 1`` and
    pads with -1.  ``use_data_lengths`` / ``use_label_lengths`` add the inputs
    ``data_lengths`` / ``label_lengths`` ``(batch,)``; otherwise every sequence has length T
    and a label ends at its first padding value.  Steps past a sequence's data length are
    not read: their gradient is 0 whatever they hold (NaN included), as in MXNet 1.9.1.
    The gradient follows the head gradient (torch.nn.functional.ctc_loss); impossible
    alignments give an infinite loss."""

    use_data_lengths = Attr(Bool, default=False)
    use_label_lengths = Attr(Bool, default=False)
    blank_label = Attr(Choice("first", "last"), default="first")

    def arguments(self):
        names = ["data", "label"]
        if self.use_data_lengths:
            names.append("data_lengths")
        if self.use_label_lengths:
            names.append("label_lengths")
        return names

    def outputs(self):
        return ["output0"]

    def infer_shape(self, in_shapes, out_shapes):
        data, label = in_shapes[0], in_shapes[1]
        where = f"Operator {self.name}"
        out = out_shapes[0]
        rest = list(in_shapes[2:])
        if data is not None:
            if len(data) != 3:
                raise MXNetError(f"{where}: argument 'data' must be (sequence_length, batch, alphabet_size), "
                                 f"got {tuple(data)}")
            batch = data[1]
            if label is not None and (len(label) != 2 or (label[0] and batch and label[0] != batch)):
                raise MXNetError(f"{where}: argument 'label' must be (batch, max_label_length) with batch "
                                 f"{batch} ('data' {tuple(data)}), got {tuple(label)}")
            if label is not None and len(label) == 2:
                label = (label[0] or batch, label[1])
            out = merge_shape(out, (batch,), f"{where} output")
            rest = [merge_shape(s, (batch,), f"{where} argument {name!r}")
                    for s, name in zip(rest, self.arguments()[2:])]
        return [data, label] + rest, [out], []

    def infer_type(self, in_types):
        return data_label_types(in_types)

    def forward(self, is_train, inputs, aux):
        data, label = inputs[0], inputs[1]
        steps, batch, alphabet = data.shape
        position = 2
        if self.use_data_lengths:
            data_lengths = inputs[position].detach().reshape(-1).to(torch.int64)
            position += 1
        else:
            data_lengths = torch.full((batch,), steps, dtype=torch.int64, device=data.device)
        labels = label.detach().to(torch.int64)
        if self.blank_label == "first":
            blank, padding = 0, 0
        else:
            blank, padding = alphabet - 1, -1
        if self.use_label_lengths:
            label_lengths = inputs[position].detach().reshape(-1).to(torch.int64)
        else:
            is_pad = labels == padding
            first_pad = torch.where(is_pad.any(1), is_pad.to(torch.int64).argmax(1),
                                    torch.full((batch,), labels.shape[1], dtype=torch.int64, device=data.device))
            label_lengths = first_pad
        if bool((labels.clamp(min=0) >= alphabet).any()):
            raise MXNetError(f"Operator {self.name}: argument 'label' holds indices >= alphabet size {alphabet}")
        targets = labels.clamp(min=0)
        work = data if data.dtype in (torch.float32, torch.float64) else data.float()
        if self.use_data_lengths:
            # steps past a sequence's length are never read (MXNet: their gradient is 0 even
            # when they hold NaN), so they are masked before the softmax
            valid = torch.arange(steps, device=data.device).reshape(-1, 1) < data_lengths.reshape(1, -1)
            work = torch.where(valid.unsqueeze(-1), work, torch.zeros((), dtype=work.dtype, device=work.device))
        log_probs = torch.log_softmax(work, dim=-1)
        loss = torch.nn.functional.ctc_loss(log_probs, targets, data_lengths, label_lengths, blank=blank,
                                            reduction="none", zero_infinity=False)
        return [loss.to(data.dtype)]
