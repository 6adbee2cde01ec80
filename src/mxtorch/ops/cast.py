"""Casts and pass-throughs: Cast, amp_cast / amp_multicast, cast_storage, BlockGrad and the
identity operators."""
from __future__ import annotations

import numpy as np
import torch

from .registry import Attr, Bool, Choice, Dtype, Int, merge_shape, Operator, register
from .helpers import _Unary, numpy_dtype, numpy_dtype_of, torch_dtype

__all__ = []


@register("BlockGrad", "stop_gradient")
class BlockGrad(Operator):
    """Identity forward; no gradient flows back to ``data`` (declared zero gradient)."""

    stops_gradient = True

    def forward(self, is_train, inputs, aux):
        return [inputs[0].detach()]

    def backward(self, out_grads, inputs, outputs, aux):
        return [None]


@register("_copy", "identity")
class Identity(Operator):
    """Copy of ``data``."""

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
        if given is not None and np.dtype(given).kind != "f":
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
    cast_narrow = Attr(Bool, default=False)

    def __init__(self, attrs=None, **kwargs):
        # the attribute is called num_outputs, which is also the Operator method's name
        given = dict(attrs or {})
        given.update(kwargs)
        if "num_outputs" not in given:
            raise self.error("required attribute 'num_outputs' is missing")
        count = given.pop("num_outputs")
        super().__init__(given)
        self.count = Int(count, "num_outputs")
        if self.count < 1:
            raise self.error(f"num_outputs must be positive, got {self.count}")
        self.attrs = {"num_outputs": str(count), **self.attrs}

    def arguments(self):
        return [f"data{i}" for i in range(self.count)]

    def outputs(self):
        return [f"output{i}" for i in range(self.count)]

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
    """Storage-type conversion.  mxtorch arrays are always dense, so this is the identity for
    every ``stype`` ('default', 'row_sparse', 'csr')."""

    stype = Attr(Choice("default", "row_sparse", "csr"), required=True)

    def forward(self, is_train, inputs, aux):
        return [inputs[0] * 1 if inputs[0].requires_grad else inputs[0].clone()]
