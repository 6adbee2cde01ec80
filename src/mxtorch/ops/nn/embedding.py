"""``Embedding`` and contrib ``SparseEmbedding``: row lookups in a weight matrix."""
from __future__ import annotations

import numpy as np
import torch.nn.functional as F

from ...base import MXNetError
from ..registry import Attr, Operator, register, Int, Bool, Dtype, merge_shape

__all__ = []


@register("Embedding")
class Embedding(Operator):
    """Row lookup: ``output[..., :] = weight[data[...], :]``.

    data: indices of any shape, stored as floats (or integers); they are truncated toward
    zero and clipped to ``[0, input_dim - 1]`` as in MXNet.  weight ``(input_dim,
    output_dim)`` of dtype ``dtype`` (default float32); output ``data.shape + (output_dim,)``.
    The weight gradient adds up the head gradients of repeated indices.  The data (index)
    argument has no gradient: a backward pass that asks for one raises MXNetError, as MXNet
    did.  With ``sparse_grad`` the weight gradient is row_sparse, as in MXNet (held densely: the
    rows of the looked-up indices, which an optimizer's lazy update touches alone).
    """

    traceable = True
    quantized_name = "_contrib_quantized_embedding"
    quantized_inputs = ("weight",)

    sparse_storage = "dense"

    def summary_parameters(self, input_channels, output_shape):
        return self.input_dim * self.output_dim

    input_dim = Attr(Int, required=True)
    output_dim = Attr(Int, required=True)
    dtype = Attr(Dtype, default="float32")
    sparse_grad = Attr(Bool, default=False)

    def validate(self):
        if self.input_dim < 1 or self.output_dim < 1:
            raise self.error(f"input_dim and output_dim must be positive, got {self.input_dim}, {self.output_dim}")

    def arguments(self):
        return ["data", "weight"]

    def infer_shape(self, in_shapes, out_shapes):
        where = f"Operator {self.name}"
        data, weight, out = in_shapes[0], in_shapes[1], out_shapes[0]
        weight = merge_shape(weight, (self.input_dim, self.output_dim), f"{where} argument 'weight'")
        if data is not None:
            out = merge_shape(out, tuple(data) + (self.output_dim,), f"{where} output")
        if out is not None and len(out) >= 1:
            if out[-1] and out[-1] != self.output_dim:
                raise self.error(f"output last dimension {out[-1]} differs from output_dim={self.output_dim}")
            data = merge_shape(data, tuple(out[:-1]), f"{where} argument 'data'")
        return [data, weight], [out], []

    def infer_type(self, in_types):
        dtype = np.dtype(self.dtype or "float32")
        data = in_types[0] if in_types[0] is not None else np.dtype(np.float32)
        return [data, dtype], [dtype], []

    def forward(self, is_train, inputs, aux):
        data, weight = inputs
        index = data.detach()
        if index.is_floating_point():
            index = index.trunc()
        index = index.long().clamp(0, self.input_dim - 1)
        return [F.embedding(index, weight)]

    def declares_backward(self, inputs):
        return inputs[0].requires_grad

    def gradient_storage_types(self, input_stypes):
        """MXNet's ``_backward_Embedding`` storage rule: the data gradient is dense, the weight
        gradient row_sparse with ``sparse_grad`` (dense without)."""
        return ["default", "row_sparse" if self.sparse_grad else "default"]

    def backward(self, out_grads, inputs, outputs, aux):
        raise MXNetError(f"Operator {self.name}: cannot compute the gradient of argument 'data' "
                         f"(integer indices); bind it with grad_req='null'")



@register("_contrib_SparseEmbedding")
class SparseEmbedding(Embedding):
    """MXNet's row-sparse-gradient embedding: the same lookup as ``Embedding``, whose weight
    gradient is always row_sparse; ``deterministic`` is accepted (torch's result is always
    deterministic here)."""

    deterministic = Attr(Bool, default=False)

    def gradient_storage_types(self, input_stypes):
        """MXNet's ``_backward_SparseEmbedding`` storage rule: a row_sparse weight gradient."""
        return ["default", "row_sparse"]
