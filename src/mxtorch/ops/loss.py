"""Loss heads whose gradient MXNet defines itself (the head gradient is ignored).

``SoftmaxOutput`` returns the softmax of its input in the forward pass; its
backward writes ``(softmax - onehot(label)) * grad_scale / normalizer`` into the
data gradient no matter which gradient arrives from above.
"""
from __future__ import annotations

import torch

from .registry import Attr, Operator, register, Float, Bool, Choice, merge_shape, product

__all__ = []


class _HeadGradient(torch.autograd.Function):
    """Forward returns ``output``; backward returns ``gradient`` for ``data`` whatever arrives."""

    @staticmethod
    def forward(ctx, data, output, gradient):
        ctx.save_for_backward(gradient)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        (gradient,) = ctx.saved_tensors
        return gradient, None, None


def with_gradient(data, output, gradient):
    """``output`` in the forward pass; ``gradient`` flows to ``data`` in backward.

    ``gradient`` is computed eagerly (it is cheap for the loss heads) and only
    attached when ``data`` requires a gradient.
    """
    if not data.requires_grad:
        return output
    return _HeadGradient.apply(data, output.detach(), gradient.detach())


@register("SoftmaxOutput", "Softmax")
class SoftmaxOutput(Operator):
    """Softmax with the cross-entropy gradient (MXNet's classification head).

    data ``(batch, classes)`` (more axes are flattened into classes unless
    ``multi_output`` — softmax over axis 1, label ``(batch, prod(spatial))`` — or
    ``preserve_shape`` — softmax over the last axis, label ``data.shape[:-1]``);
    label holds class indices as floats.  ``normalization``: 'null' (divide by 1;
    with multi_output by the spatial size), 'batch' (by the batch size), 'valid'
    (by the number of labels not equal to ``ignore_label`` when ``use_ignore``).
    ``smooth_alpha`` spreads ``alpha / (classes - 1)`` onto the other classes.
    """

    is_loss = True
    grad_scale = Attr(Float, default=1.0)
    ignore_label = Attr(Float, default=-1.0)
    multi_output = Attr(Bool, default=False)
    use_ignore = Attr(Bool, default=False)
    preserve_shape = Attr(Bool, default=False)
    normalization = Attr(Choice("null", "batch", "valid"), default="null")
    out_grad = Attr(Bool, default=False)
    smooth_alpha = Attr(Float, default=0.0)

    def arguments(self):
        return ["data", "label"]

    def _label_shape(self, data):
        if self.multi_output:
            return (data[0],) + ((product(data[2:]),) if all(data[2:]) else (0,)) if len(data) > 2 else (data[0],)
        if self.preserve_shape:
            return tuple(data[:-1])
        return (data[0],)

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name} argument 'data'")
        label = in_shapes[1]
        if data is not None:
            expected = self._label_shape(data)
            if label is not None and tuple(label) == tuple(data) and not self.multi_output:
                pass  # probability labels of the data's shape
            else:
                label = merge_shape(label, expected, f"Operator {self.name} argument 'label'")
        return [data, label], [data], []

    def infer_type(self, in_types):
        dtype = in_types[0] if in_types[0] is not None else in_types[1]
        return [dtype, in_types[1] if in_types[1] is not None else dtype], [dtype], []

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
        if not data.requires_grad:
            return [output]
        gradient = self._gradient(probability.detach(), label.detach())
        return [with_gradient(data, output, gradient.reshape(shape))]

    def _gradient(self, probability, label):
        if self.multi_output:
            classes = probability.shape[1]
            spatial = probability.shape[2]
            label = label.reshape(probability.shape[0], spatial)
            class_axis = 1
        elif self.preserve_shape:
            classes = probability.shape[-1]
            probability = probability.reshape(-1, classes)
            label = label.reshape(-1)
            class_axis = 1
            spatial = 1
        else:
            classes = probability.shape[1]
            label = label.reshape(-1)
            class_axis = 1
            spatial = 1
        if label.shape == probability.shape:
            target = label.to(probability.dtype)
            valid = torch.ones(label.shape[0], dtype=torch.bool, device=label.device)
        else:
            index = label.long()
            valid = torch.ones_like(index, dtype=torch.bool)
            if self.use_ignore:
                valid = label != self.ignore_label
            safe = torch.where(valid, index, torch.zeros_like(index)).clamp(0, classes - 1)
            target = torch.nn.functional.one_hot(safe, classes).to(probability.dtype)
            if self.multi_output:
                target = target.movedim(-1, class_axis)
            if self.smooth_alpha:
                alpha = self.smooth_alpha
                target = target * (1 - alpha) + (1 - target) * (alpha / (classes - 1))
        gradient = probability - target
        if self.use_ignore:
            mask = valid.unsqueeze(class_axis).to(gradient.dtype)
            gradient = gradient * mask
        scale = self.grad_scale
        if self.normalization == "valid":
            count = valid.sum().clamp(min=1).to(gradient.dtype) if self.use_ignore else valid.numel()
            gradient = gradient * scale / count
        elif self.normalization == "batch":
            gradient = gradient * (scale / probability.shape[0] / (spatial if self.multi_output else 1))
        else:
            gradient = gradient * (scale / (spatial if self.multi_output else 1))
        return gradient


class _Regression(Operator):
    is_loss = True
    grad_scale = Attr(Float, default=1.0)

    def arguments(self):
        return ["data", "label"]

    def infer_shape(self, in_shapes, out_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name} argument 'data'")
        label = in_shapes[1]
        if data is not None:
            if label is not None and len(label) == len(data) - 1 and len(data) == 2 and data[1] == 1:
                label = merge_shape(label, (data[0],), f"Operator {self.name} argument 'label'")
            elif len(data) == 2 and data[1] == 1 and label is None:
                label = (data[0],)
            else:
                label = merge_shape(label, data, f"Operator {self.name} argument 'label'")
        return [data, label], [data], []

    def transform(self, data):
        return data

    def difference(self, output, label):
        return output - label

    def forward(self, is_train, inputs, aux):
        data, label = inputs
        output = self.transform(data)
        if not data.requires_grad:
            return [output]
        label = label.detach().reshape(output.shape).to(output.dtype)
        per_sample = label.numel() // max(label.shape[0], 1)
        gradient = self.difference(output.detach(), label) * (self.grad_scale / per_sample)
        return [with_gradient(data, output, gradient)]


@register("LinearRegressionOutput")
class LinearRegressionOutput(_Regression):
    """Identity forward; gradient ``(data - label) * grad_scale / num_output`` (squared loss)."""


@register("LogisticRegressionOutput")
class LogisticRegressionOutput(_Regression):
    """Sigmoid forward; gradient ``(sigmoid(data) - label) * grad_scale / num_output``."""

    def transform(self, data):
        return torch.sigmoid(data)


@register("MAERegressionOutput")
class MAERegressionOutput(_Regression):
    """Identity forward; gradient ``sign(data - label) * grad_scale / num_output``."""

    def difference(self, output, label):
        return torch.sign(output - label)
