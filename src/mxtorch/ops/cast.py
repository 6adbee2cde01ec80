"""Casts and pass-throughs: Cast, amp_cast / amp_multicast, cast_storage, BlockGrad and the
identity operators."""
from __future__ import annotations

import numpy as np
import torch

from ..base import BFLOAT16
from .registry import Attr, Bool, Choice, Dtype, Int, merge_shape, Operator, register
from .helpers import _Unary, numpy_dtype, numpy_dtype_of, torch_dtype

__all__ = []


@register("BlockGrad", "stop_gradient")
class BlockGrad(Operator):
    """Identity forward; no gradient flows back to ``data`` (declared zero gradient).  A
    row_sparse or csr input keeps its storage type."""

    lists_input_names = False

    sparse_storage = "preserve"

    traceable = True

    stops_gradient = True

    def forward(self, is_train, inputs, aux):
        return [inputs[0].detach()]

    def backward(self, out_grads, inputs, outputs, aux):
        return [None]


@register("_copy", "identity")
class Identity(Operator):
    """Copy of ``data``."""

    lists_input_names = False

    traceable = True

    def forward(self, is_train, inputs, aux):
        return [inputs[0].clone() if not inputs[0].requires_grad else inputs[0] * 1]


@register("_identity_with_attr_like_rhs")
class IdentityWithAttrLikeRhs(Operator):
    """``lhs`` unchanged, constrained to the shape of ``rhs`` (so shape inference can flow
    from ``rhs`` to ``lhs``); ``rhs`` gets no gradient."""

    def arguments(self):
        return ["lhs", "rhs"]

    def forward(self, is_train, inputs, aux):
        lhs, _ = inputs
        return [lhs.clone() if not lhs.requires_grad else lhs * 1]


@register("Cast", "cast")
class Cast(_Unary):
    """``data`` converted to ``dtype``.  Float to integer truncates toward zero (out-of-range
    values wrap as in C); to bool gives ``data != 0``.  The gradient is the head gradient
    converted back to the input dtype (MXNet's rule), also through integer dtypes: the gradient
    through ``Cast(int32)`` then ``Cast(float32)`` is the head gradient truncated to integers.
    """

    lists_input_names = False

    dtype = Attr(Dtype, required=True)

    def infer_shape(self, in_shapes, out_shapes):
        # elementwise: the shape is known from either side (a weight behind a cast gets the
        # partial shape its consumer infers), as MXNet's ElemwiseShape
        shape = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name}")
        return [shape], [shape], []

    def infer_type(self, in_types):
        return [in_types[0]], [numpy_dtype(self.dtype)], []

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        target = torch_dtype(self.dtype)
        if data.is_floating_point() and not target.is_floating_point and target != torch.bool:
            return [data.trunc().to(torch.int64).to(target)]
        return [data.to(target)]

    def backward(self, out_grads, inputs, outputs, aux):
        return [out_grads[0].to(inputs[0].dtype)]


@register("amp_cast")
class AmpCast(Cast):
    """Mixed-precision cast inserted by MXNet's AMP graph pass: floating ``data`` converted to
    ``dtype``; integer and boolean data pass through unchanged, as in MXNet
    (``remove_amp_cast`` drops these nodes when a symbol is saved)."""

    def infer_type(self, in_types):
        given = in_types[0]
        # bfloat16 (a structured numpy dtype, kind 'V') is floating too
        if given is not None and np.dtype(given).kind != "f" and np.dtype(given) != BFLOAT16:
            return [given], [np.dtype(given)], []
        return super().infer_type(in_types)

    def forward(self, is_train, inputs, aux):
        if not inputs[0].is_floating_point():
            return [inputs[0]]
        return super().forward(is_train, inputs, aux)

    is_amp_cast = True


@register("amp_multicast")
class AmpMulticast(Operator):
    """Casts its ``num_outputs`` inputs to one common float type: the widest among them, or
    the narrowest with ``cast_narrow=True`` (MXNet's AMP pass inserts it)."""

    is_amp_cast = True

    variadic = True
    num_outputs = Attr(Int, required=True)
    cast_narrow = Attr(Bool, default=False)

    def validate(self):
        if self.output_count < 1:
            raise self.error(f"num_outputs must be positive, got {self.output_count}")

    def arguments(self):
        return [f"data{i}" for i in range(self.output_count)]

    def outputs(self):
        return [f"output{i}" for i in range(self.output_count)]

    def infer_shape(self, in_shapes, out_shapes):
        shapes = [merge_shape(s, o, f"Operator {self.name}") for s, o in zip(in_shapes, out_shapes)]
        return shapes, list(shapes), []

    def _common(self, types):
        floats = [np.dtype(t) for t in types if t is not None and np.dtype(t).kind == "f"]
        if not floats:
            return None
        sizes = [t.itemsize for t in floats]
        return floats[sizes.index(min(sizes) if self.cast_narrow else max(sizes))]

    def infer_type(self, in_types):
        common = self._common(in_types)
        return list(in_types), [common if common is not None else t for t in in_types], []

    def forward(self, is_train, inputs, aux):
        common = self._common([numpy_dtype_of(t) for t in inputs])
        if common is None:
            return list(inputs)
        target = torch_dtype(common.name)
        return [t.to(target) if t.is_floating_point() else t for t in inputs]


@register("cast_storage", "_sparse_cast_storage")
class CastStorage(Operator):
    """Storage-type conversion to ``stype`` ('default', 'row_sparse', 'csr'; csr needs a 2-D
    input).  mxtorch holds every array dense, so the values are copied unchanged and the result
    reports the new storage type (``mx.nd.sparse``)."""

    stype = Attr(Choice("default", "row_sparse", "csr"), required=True)
    sparse_from_dense = True

    def sparse_storage(self, stypes):
        return [self.stype]

    def forward(self, is_train, inputs, aux):
        return [inputs[0] * 1 if inputs[0].requires_grad else inputs[0].clone()]


@register("_sparse_retain")
class SparseRetain(Operator):
    """The rows ``indices`` (1-D, any integer-valued dtype) of a row_sparse ``data`` of shape
    ``(rows, ...)``; every other row becomes zero.  The result is row_sparse, of ``data``'s shape
    and dtype (MXNet's ``sparse.retain``); a dense or csr ``data`` raises MXNetError, as MXNet
    has no such form.  The gradient of ``data`` is the head gradient on the kept rows."""

    sparse_from_dense = True

    def sparse_storage(self, stypes):
        if stypes[0] != "row_sparse":
            raise self.error(f"argument 'data' must be a row_sparse array, got storage type {stypes[0]!r}")
        return ["row_sparse"]

    def arguments(self):
        return ["data", "indices"]

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0] if in_shapes[0] is not None else out_shapes[0]
        return [data, in_shapes[1]], [data], []

    def infer_type(self, in_types):
        return [in_types[0], in_types[1]], [in_types[0]], []

    def forward(self, is_train, inputs, aux):
        data, indices = inputs
        rows = indices.reshape(-1).to(torch.int64)
        if rows.numel() and (int(rows.min()) < 0 or int(rows.max()) >= data.shape[0]):
            raise self.error(f"indices must lie in [0, {data.shape[0]}), got {rows.tolist()}")
        keep = torch.zeros(data.shape[0], dtype=torch.bool, device=data.device)
        keep[rows] = True
        keep = keep.reshape((-1,) + (1,) * (data.dim() - 1))
        return [torch.where(keep, data, torch.zeros((), dtype=data.dtype, device=data.device))]
