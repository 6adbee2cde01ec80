"""The NumPy front end's selection and rearrangement operators: tests (``isnan``, ...), ``any`` /
``all``, ``around``, ``flip``, ``roll``, ``rot90``, ``tril`` / ``triu``, ``diag``, ``diagonal``,
``trace``, ``take``, ``sort`` / ``argsort``, ``nonzero``, ``einsum`` (``_npi_*`` / ``_np_*``),
declared once as the other ``mx.np`` operators (``numpy_ops._NumpyOperator``)."""
from __future__ import annotations

import torch

from ..base import MXNetError
from .helpers import host_check_failed
from .registry import Attr, Bool, Float, Int, Str, optional, register
from .numpy_ops import _Axis, _Dtype, _NumpyOperator, _axes, _reduce_dims, _shape_attr, _torch_dtype

__all__ = ["NUMPY_TESTS"]

NUMPY_TESTS = {
    "isnan": torch.isnan, "isinf": torch.isinf, "isfinite": torch.isfinite, "isposinf": torch.isposinf,
    "isneginf": torch.isneginf, "signbit": torch.signbit,
}


def _test_class(kind):
    function = NUMPY_TESTS[kind]

    class Test(_NumpyOperator):
        __doc__ = f"NumPy's ``{kind}``: a bool array."

        def forward(self, is_train, inputs, aux):
            return [function(inputs[0])]
    Test.__name__ = Test.__qualname__ = f"Numpy_{kind}"
    return Test


for _kind in NUMPY_TESTS:
    register(f"_npi_{_kind}")(_test_class(_kind))


def _truth_class(kind):
    class Truth(_NumpyOperator):
        __doc__ = f"NumPy's ``{kind}`` over ``axis``: bool."
        axis = Attr(_Axis, default=None)
        keepdims = Attr(Bool, default=False)

        def forward(self, is_train, inputs, aux):
            data = inputs[0] != 0
            dims = _reduce_dims(data, self.axis)
            if self.axis is not None and not dims:
                return [data.clone()]
            function = torch.any if kind == "any" else torch.all
            result = data
            for dim in sorted(dims, reverse=True):
                result = function(result, dim=dim, keepdim=self.keepdims)
            return [result]
    Truth.__name__ = Truth.__qualname__ = f"Numpy_{kind}"
    return Truth


register("_np_any")(_truth_class("any"))
register("_np_all")(_truth_class("all"))


@register("_npi_around")
class NumpyAround(_NumpyOperator):
    """NumPy's ``around`` to ``decimals`` (half to even)."""

    decimals = Attr(Int, default=0)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if not data.is_floating_point():
            if self.decimals >= 0:
                return [data.clone()]
            scale = 10 ** (-self.decimals)
            return [(torch.round(data.double() / scale) * scale).to(data.dtype)]
        return [torch.round(data, decimals=self.decimals)]


@register("_npi_flip")
class NumpyFlip(_NumpyOperator):
    """NumPy's ``flip`` along ``axis`` (None: all axes)."""

    axis = Attr(_Axis, default=None)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        dims = _reduce_dims(data, self.axis)
        return [torch.flip(data, dims) if dims else data.clone()]


@register("_np_roll")
class NumpyRoll(_NumpyOperator):
    """NumPy's ``roll`` by ``shift`` along ``axis`` (None: the flattened array)."""

    shift = Attr(optional(_shape_attr), default=None)
    axis = Attr(_Axis, default=None)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        shift = tuple(self.shift or (0,))
        if self.axis is None:
            return [torch.roll(data.reshape(-1), shift[0]).reshape(data.shape)]
        axes = _axes(self.axis)
        if len(shift) == 1 and len(axes) > 1:
            shift = shift * len(axes)
        return [torch.roll(data, shift, axes)]


@register("_npi_rot90")
class NumpyRot90(_NumpyOperator):
    """NumPy's ``rot90``: ``k`` quarter turns in the plane of ``axes``."""

    k = Attr(Int, default=1)
    axes = Attr(_shape_attr, default=(0, 1))

    def forward(self, is_train, inputs, aux):
        return [torch.rot90(inputs[0], self.k, tuple(self.axes))]


def _triangle_class(kind):
    class Triangle(_NumpyOperator):
        __doc__ = f"NumPy's ``{kind}``: the {'lower' if kind == 'tril' else 'upper'} triangle from diagonal ``k``."
        k = Attr(Int, default=0)

        def forward(self, is_train, inputs, aux):
            data = inputs[0]
            function = torch.tril if kind == "tril" else torch.triu
            if data.dim() == 1:
                data = data.unsqueeze(0).expand(data.shape[0], data.shape[0])
            return [function(data, self.k)]
    Triangle.__name__ = Triangle.__qualname__ = f"Numpy_{kind}"
    return Triangle


register("_npi_tril")(_triangle_class("tril"))
register("_npi_triu")(_triangle_class("triu"))


@register("_np_diag")
class NumpyDiag(_NumpyOperator):
    """NumPy's ``diag``: the ``k``-th diagonal of a 2-D array, or the 2-D array of a 1-D diagonal."""

    k = Attr(Int, default=0)

    def forward(self, is_train, inputs, aux):
        if inputs[0].dim() not in (1, 2):
            raise MXNetError("diag: Input must be 1- or 2-d")
        return [torch.diag(inputs[0], self.k)]


@register("_np_diagonal")
class NumpyDiagonal(_NumpyOperator):
    """NumPy's ``diagonal`` at ``offset`` of the plane ``axis1``, ``axis2`` (moved last)."""

    offset = Attr(Int, default=0)
    axis1 = Attr(Int, default=0)
    axis2 = Attr(Int, default=1)

    def forward(self, is_train, inputs, aux):
        return [torch.diagonal(inputs[0], self.offset, self.axis1, self.axis2).clone()]


@register("_np_trace")
class NumpyTrace(_NumpyOperator):
    """NumPy's ``trace``: the sum of the diagonal at ``offset`` of the plane ``axis1``, ``axis2``."""

    offset = Attr(Int, default=0)
    axis1 = Attr(Int, default=0)
    axis2 = Attr(Int, default=1)

    def forward(self, is_train, inputs, aux):
        return [torch.diagonal(inputs[0], self.offset, self.axis1, self.axis2).sum(-1)]


@register("_npi_take")
class NumpyTake(_NumpyOperator):
    """NumPy's ``take`` of ``indices`` along ``axis`` (None: the flattened array); ``mode``
    'clip' or 'wrap' (MXNet 1.9.1's two modes; 'raise' checks the range)."""

    axis = Attr(optional(Int), default=None)
    mode = Attr(Str, default="clip")

    def arguments(self):
        return ["a", "indices"]

    def forward(self, is_train, inputs, aux):
        data, indices = inputs
        if self.axis is None:
            data = data.reshape(-1)
        axis = 0 if self.axis is None else self.axis % data.dim()
        length = data.shape[axis]
        index = indices.to(torch.int64)
        if self.mode == "wrap":
            index = torch.remainder(index, length)
        elif self.mode == "clip":
            index = index.clamp(0, length - 1)
        elif host_check_failed((index < -length) | (index >= length)):
            raise MXNetError(f"take: indices out of range for an axis of length {length}")
        else:
            index = torch.remainder(index, length)
        result = torch.index_select(data, axis, index.reshape(-1))
        shape = tuple(data.shape[:axis]) + tuple(indices.shape) + tuple(data.shape[axis + 1:])
        return [result.reshape(shape)]


@register("_npi_sort")
class NumpySort(_NumpyOperator):
    """NumPy's ``sort`` along ``axis`` (None: flattened), ascending unless ``is_ascend`` is False."""

    axis = Attr(optional(Int), default=-1)
    is_ascend = Attr(Bool, default=True)

    def forward(self, is_train, inputs, aux):
        data = inputs[0] if self.axis is not None else inputs[0].reshape(-1)
        axis = -1 if self.axis is None else self.axis
        return [torch.sort(data, dim=axis, descending=not self.is_ascend, stable=True).values]


@register("_npi_argsort")
class NumpyArgsort(_NumpyOperator):
    """NumPy's ``argsort`` along ``axis`` (None: flattened): int64 indices unless ``dtype``."""

    axis = Attr(optional(Int), default=-1)
    is_ascend = Attr(Bool, default=True)
    dtype = Attr(_Dtype, default="int64")

    def forward(self, is_train, inputs, aux):
        data = inputs[0] if self.axis is not None else inputs[0].reshape(-1)
        axis = -1 if self.axis is None else self.axis
        order = torch.sort(data, dim=axis, descending=not self.is_ascend, stable=True).indices
        return [order.to(_torch_dtype(self.dtype or "int64"))]


@register("_npx_nonzero", "_npi_nonzero")
class NumpyNonzero(_NumpyOperator):
    """The indices of the non-zero elements, one row per element (int64, shape (n, ndim))."""

    traceable = False

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if data.dim() == 0:
            # MXNet 1.9.1 read a 0-d array as 1-d: shape (1, 1) or (0, 1)
            return [torch.nonzero(data.reshape(1)).to(torch.int64)]
        return [torch.nonzero(data).to(torch.int64)]


@register("_npi_einsum")
class NumpyEinsum(_NumpyOperator):
    """NumPy's ``einsum`` of ``subscripts`` over ``num_args`` operands."""

    variadic = True
    num_args = Attr(Int, default=1)
    subscripts = Attr(Str, default="")
    optimize = Attr(Int, default=0)

    def arguments(self):
        return [f"data{i}" for i in range(self.num_args)]

    def forward(self, is_train, inputs, aux):
        from .numpy_ops import promote_types
        dtype = inputs[0].dtype
        for tensor in inputs[1:]:
            dtype = promote_types(dtype, tensor.dtype)
        return [torch.einsum(self.subscripts, *[t.to(dtype) for t in inputs])]


def _stack_class(kind, function):
    class Stacked(_NumpyOperator):
        __doc__ = f"NumPy's ``{kind}`` of ``num_args`` arrays."
        variadic = True
        num_args = Attr(Int, default=1)

        def arguments(self):
            return [f"data{i}" for i in range(self.num_args)]

        def forward(self, is_train, inputs, aux):
            from .numpy_ops import promote_types
            dtype = inputs[0].dtype
            for tensor in inputs[1:]:
                dtype = promote_types(dtype, tensor.dtype)
            return [function([t.to(dtype) for t in inputs])]
    Stacked.__name__ = Stacked.__qualname__ = f"Numpy_{kind}"
    return Stacked


for _kind, _function in (("hstack", torch.hstack), ("vstack", torch.vstack), ("dstack", torch.dstack),
                         ("column_stack", torch.column_stack)):
    register(f"_npi_{_kind}")(_stack_class(_kind, _function))


# -- boolean-mask assignment (``a[mask] = value`` of MXNet's NumPy front end) --------------------
class _BooleanMaskAssign(_NumpyOperator):
    """``data`` with the positions a boolean ``mask`` selects set to a value: NumPy's
    ``data[(slice(None),) * start_axis + (mask,)] = value``.  ``mask`` (bool, or non-zero
    entries of another dtype) must have the shape of ``data``'s dimensions ``start_axis`` ..
    ``start_axis + mask.ndim - 1``; the value is cast to ``data``'s dtype (truncated for
    integers, as MXNet cast it).  Output: ``data``'s shape and dtype.  MXNet 1.9.1 ran these
    only in place (``out=data``); here ``out=`` is optional.  Raises MXNetError for a mask
    whose shape does not match, or a value that does not broadcast to the selected part.
    Attributes, in MXNet's order: (``value``,) ``start_axis``."""

    def infer_shape(self, in_shapes, out_shapes):
        return list(in_shapes), [in_shapes[0]], []

    def infer_type(self, in_types):
        return list(in_types), [in_types[0]], []

    def _selection(self, data, mask):
        start, block = self.start_axis, tuple(mask.shape)
        if start < 0 or start + len(block) > data.dim() or tuple(data.shape[start:start + len(block)]) != block:
            raise self.error(f"the boolean mask of shape {block} does not match data of shape "
                             f"{tuple(data.shape)} at start_axis={start}")
        keep = mask if mask.dtype == torch.bool else mask != 0
        return (slice(None),) * start + (keep.to(data.device),)

    def _assign(self, data, mask, value):
        where = self._selection(data, mask)
        result = data.clone()
        selected = result[where]
        value = value.to(result.dtype)
        if value.numel() != 1:
            try:
                value = value.expand(selected.shape)
            except RuntimeError:
                raise self.error(f"a value of shape {tuple(value.shape)} cannot be assigned to the "
                                 f"{tuple(selected.shape)} positions the mask selects") from None
        result[where] = value.reshape(()) if value.numel() == 1 else value
        return [result]


@register("_npi_boolean_mask_assign_scalar")
class BooleanMaskAssignScalar(_BooleanMaskAssign):
    __doc__ = _BooleanMaskAssign.__doc__ + "  The value is the attribute ``value`` (a number)."

    value = Attr(Float, default=0.0)
    start_axis = Attr(Int, default=0)

    def arguments(self):
        return ["data", "mask"]

    def forward(self, is_train, inputs, aux):
        data, mask = inputs
        return self._assign(data, mask, torch.tensor(self.value, dtype=torch.float64))


@register("_npi_boolean_mask_assign_tensor")
class BooleanMaskAssignTensor(_BooleanMaskAssign):
    __doc__ = _BooleanMaskAssign.__doc__ + "  The value is the array input ``value``."

    start_axis = Attr(Int, default=0)

    def arguments(self):
        return ["data", "mask", "value"]

    def forward(self, is_train, inputs, aux):
        data, mask, value = inputs
        return self._assign(data, mask, value)
