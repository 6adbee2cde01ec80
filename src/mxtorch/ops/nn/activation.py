"""The activation layers: ``Activation``, the ``LeakyReLU`` family and ``SoftmaxActivation``."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from ..registry import Attr, Operator, register, Float, Choice, merge_shape

__all__ = []

_ACTIVATIONS = {
    "relu": torch.relu,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "softrelu": F.softplus,
    "softsign": F.softsign,
}


@register("Activation")
class Activation(Operator):
    """Elementwise activation ``act_type``: relu, sigmoid, tanh, softrelu (log(1 + e^x)),
    softsign (x / (1 + |x|)), the five MXNet 1.9.1 has.  Any shape."""

    lists_input_names = False

    quantized_name = "_contrib_quantized_act"

    def plot_label(self, op_name, node_name):
        return f"{op_name}\n{self.act_type}", "activation"

    act_type = Attr(Choice(*_ACTIVATIONS), required=True)
    traceable = True

    def activation_kind(self):
        return self.act_type

    def quantized_operator(self):
        return self.quantized_name if self.act_type == "relu" else None   # MXNet's int8 relu only

    def forward(self, is_train, inputs, aux):
        return [_ACTIVATIONS[self.act_type](inputs[0])]


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@register("LeakyReLU")
class LeakyReLU(Operator):
    """Parametrised rectifiers, selected by ``act_type``; data of any shape.

    - 'leaky' (default): ``x`` for ``x > 0``, else ``slope * x`` (``slope`` default 0.25);
    - 'prelu': like leaky with a learned slope ``gamma`` (an extra argument) of shape
      ``(C,)`` applied along axis 1 of data ``(batch, C, ...)``; a ``(1,)`` gamma is shared;
      a gamma of several axes covers the leading axes of data (``(batch, C)`` for
      ``(batch, C, H, W)`` data), as MXNet 1.9.1.
      Its gamma gradient is always the true derivative ``sum(head * x * (x <= 0))``; MXNet
      1.9.1's graph executor multiplied it by gamma whenever the layer's input was another
      operator's output (a deliberate difference);
    - 'elu': ``x`` for ``x > 0``, else ``slope * (exp(x) - 1)``;
    - 'selu': ``scale * elu_alpha(x)`` with the fixed constants alpha = 1.6732632...,
      scale = 1.0507009...; its gradient for ``x <= 0`` is MXNet's ``scale * (output + alpha)``
      (not the exact ``scale * alpha * exp(x)``);
    - 'gelu': ``0.5 * x * (1 + erf(x / sqrt(2)))`` (the exact, erf form);
    - 'rrelu': in training a slope drawn uniformly from ``[lower_bound, upper_bound]`` for
      each element (torch's RNG, ``mx.random.seed``); in inference the mean slope
      ``(lower_bound + upper_bound) / 2``.  rrelu has a second output ``mask`` holding the
      slopes used (MXNet left it uninitialised in inference; mxtorch fills in the mean).
    """

    traceable = True

    def plot_label(self, op_name, node_name):
        return f"{op_name}\n{self.attrs.get('act_type', 'Leaky')}", "activation"

    act_type = Attr(Choice("elu", "gelu", "leaky", "prelu", "rrelu", "selu"), default="leaky")
    slope = Attr(Float, default=0.25)
    lower_bound = Attr(Float, default=0.125)
    upper_bound = Attr(Float, default=0.334)

    def validate(self):
        if self.act_type == "rrelu" and self.lower_bound > self.upper_bound:
            raise self.error(f"lower_bound={self.lower_bound} must not exceed upper_bound={self.upper_bound}")

    def arguments(self):
        return ["data", "gamma"] if self.act_type == "prelu" else ["data"]

    def input_variable_attrs(self, input_name):
        """MXNet initialises a prelu gamma variable to 0.25 (``__init__`` attribute)."""
        if input_name == "gamma":
            return {"__init__": '["Constant", {"value": 0.25}]'}
        return {}

    def outputs(self):
        return ["output", "mask"] if self.act_type == "rrelu" else ["output"]

    def infer_shape(self, in_shapes, out_shapes):
        where = f"Operator {self.name}"
        data = in_shapes[0]
        for out in out_shapes:
            data = merge_shape(data, out, f"{where} argument 'data'")
        shapes = [data]
        if self.act_type == "prelu":
            gamma = in_shapes[1]
            if data is not None and len(data) < 2:
                # 1-d data: its only axis is the channel axis; gamma (1,) or (len,) (MXNet 1.9.1
                # broadcasts gamma against axis 0), gamma's shape cannot be inferred from it
                if len(data) == 0 or gamma is None:
                    raise self.error(f"prelu on data of shape {tuple(data)} needs gamma's shape "
                                     f"((1,) or ({data[0] if data else 'n'},)); it cannot be inferred from data "
                                     f"without a channel axis")
                if tuple(gamma) != (1,):
                    gamma = merge_shape(gamma, tuple(data), f"{where} argument 'gamma'")
            elif data is not None:
                if gamma is not None and len(gamma) > 1:
                    # a gamma of several axes covers the leading axes of data (MXNet 1.9.1)
                    gamma = merge_shape(gamma, tuple(data[:len(gamma)]), f"{where} argument 'gamma'")
                elif gamma is None or tuple(gamma) != (1,):
                    gamma = merge_shape(gamma, (data[1],), f"{where} argument 'gamma'")
            shapes.append(gamma)
        return shapes, [data] * len(out_shapes), []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        kind = self.act_type
        if kind == "leaky":
            return [F.leaky_relu(data, self.slope)]
        if kind == "prelu":
            gamma = inputs[1]
            if data.dim() < 2:
                view = [gamma.numel()]
            elif gamma.dim() > 1:
                view = list(gamma.shape) + [1] * (data.dim() - gamma.dim())
            else:
                view = [1] * data.dim()
                view[1] = gamma.shape[0]
            return [torch.where(data > 0, data, data * gamma.reshape(view))]
        if kind == "elu":
            return [torch.where(data > 0, data, torch.expm1(torch.clamp(data, max=0)) * self.slope)]
        if kind == "selu":
            return [F.selu(data)]
        if kind == "gelu":
            return [F.gelu(data)]
        # rrelu
        if is_train:
            slopes = torch.empty_like(data).uniform_(self.lower_bound, self.upper_bound)
        else:
            slopes = torch.full_like(data, (self.lower_bound + self.upper_bound) / 2)
        return [torch.where(data > 0, data, data * slopes), slopes]

    def declares_backward(self, inputs):
        return self.act_type == "selu"

    def backward(self, out_grads, inputs, outputs, aux):
        """selu: MXNet 1.9.1's gradient for x <= 0 is ``scale * (output + alpha)``, not the exact
        ``scale * alpha * exp(x)``; the recorded gradients show it, so mxtorch mirrors it."""
        data, output = inputs[0], outputs[0]
        derivative = torch.where(data > 0, torch.full_like(data, _SELU_SCALE), _SELU_SCALE * (output + _SELU_ALPHA))
        return [out_grads[0] * derivative] + [None] * (len(inputs) - 1)


@register("SoftmaxActivation")
class SoftmaxActivation(Operator):
    """Softmax of data: over the last axis for ``mode='instance'`` (default; trailing axes of
    an N-D input are not flattened), over axis 1 for ``mode='channel'`` (data must have at
    least 3 dimensions, ``(batch, channel, ...)``).

    For instance mode on data of more than 2 dimensions MXNet 1.9.1's gradient is
    ``y * (g - sum(g * y, axis=1))`` (summing over axis 1, not over the softmax axis);
    mxtorch reproduces it.
    """

    lists_input_names = False

    traceable = True

    mode = Attr(Choice("instance", "channel"), default="instance")

    def infer_shape(self, in_shapes, out_shapes):
        shapes = super().infer_shape(in_shapes, out_shapes)
        data = shapes[0][0]
        if self.mode == "channel" and data is not None and len(data) < 3:
            raise self.error(f"mode='channel' needs data with at least 3 dimensions (batch, channel, ...), "
                             f"got shape {tuple(data)}")
        return shapes

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if self.mode == "channel":
            if data.dim() < 3:
                raise self.error(f"mode='channel' needs data with at least 3 dimensions, got shape {tuple(data.shape)}")
            return [torch.softmax(data, dim=1)]
        return [torch.softmax(data, dim=-1)]

    def declares_backward(self, inputs):
        return self.mode == "instance" and inputs[0].dim() > 2

    def backward(self, out_grads, inputs, outputs, aux):
        """MXNet 1.9.1's instance-mode gradient ``y * (g - sum(g * y, axis=1))``, which for data
        of more than 2 dimensions sums over axis 1 instead of the softmax axis."""
        output, grad = outputs[0], out_grads[0]
        return [output * (grad - (grad * output).sum(dim=1, keepdim=True))]
