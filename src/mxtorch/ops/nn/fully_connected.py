"""``FullyConnected``: the inner-product layer."""
from __future__ import annotations

import torch.nn.functional as F

from ..registry import uniform_dtype
from ..registry import Attr, Operator, register, Int, Bool, merge_shape, product

__all__ = []


@register("FullyConnected")
class FullyConnected(Operator):
    """``output = data @ weight.T + bias``.

    data ``(batch, ...)`` is flattened to ``(batch, prod(rest))`` when ``flatten``
    (default), else the last axis is transformed; weight ``(num_hidden, input_dim)``,
    bias ``(num_hidden,)``.
    """

    quantized_name = "_contrib_quantized_fully_connected"

    sparse_storage = "dense"

    def plot_label(self, op_name, node_name):
        return f"{op_name}\n{self.num_hidden}", "weighted"

    def summary_parameters(self, input_channels, output_shape):
        return (input_channels + (0 if self.no_bias else 1)) * self.num_hidden

    traceable = True

    def dense_units(self):
        return self.num_hidden

    def channel_linear_rank(self):
        return 2 if self.flatten else None

    def with_bias(self):
        return type(self)({**self.attrs, "no_bias": "False"})

    def pointwise_fusion(self):
        return ("inner_product", {}) if self.flatten else None

    num_hidden = Attr(Int, required=True)
    no_bias = Attr(Bool, default=False)
    flatten = Attr(Bool, default=True)

    def validate(self):
        if self.num_hidden < 1:
            raise self.error(f"num_hidden must be positive, got {self.num_hidden}")

    def arguments(self):
        return ["data", "weight"] + ([] if self.no_bias else ["bias"])

    def infer_shape(self, in_shapes, out_shapes):
        data, weight, out = in_shapes[0], in_shapes[1], out_shapes[0]
        where = f"Operator {self.name}"
        if data is not None and len(data) > 0:
            if self.flatten:
                rows = product(data[1:]) if all(data[1:]) else 0
                out = merge_shape(out, (data[0], self.num_hidden), f"{where} output")
            else:
                rows = data[-1]
                out = merge_shape(out, tuple(data[:-1]) + (self.num_hidden,), f"{where} output")
            if (weight is not None and len(weight) == 2 and rows and weight[1] and weight[1] != rows
                    and weight[0] in (0, self.num_hidden)):
                # the data's feature count disagrees with a known weight (a Gluon Dense layer
                # initialised for another input size): name the input, not only the weight
                features = "features per sample (the product of the non-batch axes)" if self.flatten else \
                    "features on the last axis"
                raise self.error(f"the data of shape {tuple(data)} has {rows} {features}, but 'weight' has "
                                 f"shape {tuple(weight)} (this data needs {(self.num_hidden, rows)}): this layer "
                                 f"takes {weight[1]} input features")
            weight = merge_shape(weight, (self.num_hidden, rows), f"{where} argument 'weight'")
        # (as in MXNet, nothing is inferred for the weight while the data shape is unknown)
        # backward inference: the batch size from the output, the row size from the weight
        weight_rows = weight[1] if weight is not None and len(weight) == 2 else 0
        if out is not None and self.flatten:
            if data is None and weight_rows:
                data = (out[0], weight_rows)
            elif data is not None and len(data) >= 1:
                if data[0] == 0:
                    data = (out[0],) + tuple(data[1:])
                if len(data) == 2 and data[1] == 0 and weight_rows:
                    data = (data[0], weight_rows)
        shapes = [data, weight]
        if not self.no_bias:
            bias = in_shapes[2]
            # MXNet's FullyConnected accepts a (num_hidden,) or a (num_hidden, 1) bias
            if data is not None and not (bias is not None and tuple(bias) == (self.num_hidden, 1)):
                bias = merge_shape(bias, (self.num_hidden,), f"{where} argument 'bias'")
            shapes.append(bias)
        return shapes, [out], []

    def forward(self, is_train, inputs, aux):
        data, weight = inputs[0], inputs[1]
        bias = None if self.no_bias else inputs[2].reshape(-1)
        if self.flatten:
            data = data.reshape(data.shape[0], -1)
        try:
            return [F.linear(data, weight, bias)]
        except RuntimeError:
            # torch refuses mixed dtypes: the MXNetError naming both (checked only on failure,
            # not on every forward)
            uniform_dtype(self, self.arguments(), [tensor.dtype for tensor in inputs])
            raise
