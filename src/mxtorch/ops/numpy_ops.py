"""The operators of MXNet's NumPy front end (``mx.np`` / ``mx.npx``): ``_npi_*`` and ``_np_*``.

Each is declared once here, under MXNet 1.9.1's name and attributes, so that the imperative
``mx.np`` / ``mx.nd.np`` functions, the symbolic ``mx.sym.np`` ones and the ``-symbol.json``
reader of blocks hybridized under ``npx.set_np()`` all run the same declaration.

What differs from the classic operators of the same families is NumPy's (MXNet 1.9.1's)
typing: two arrays of different dtypes give the more precise one (``promote_types``, MXNet's
``np_binary_out_infer_type``: float beats int, the wider wins, uint8 with int8 gives int32);
true division of integers gives float32; comparisons give bool; an array with a scalar keeps
the array's dtype; unary math keeps the input's dtype (an integer result is truncated, as
MXNet's kernels computed it); reductions keep the dtype except ``mean`` of integers (float32)
and ``argmax`` / ``argmin`` (int64).  Shapes follow NumPy: zero-dim results, zero-size arrays,
``axis=None`` meaning all axes.

Shape and dtype inference of these operators runs the computation on torch's ``meta`` device
(shapes and dtypes, no data), so it cannot disagree with the forward.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from ..base import MXNetError
from ..exceptions import MXNetTypeError, MXNetValueError
from ..schema import SchemaError
from .registry import Attr, Bool, Float, Int, Operator, OperatorSchemaError, _to_dtype, optional, register


__all__ = ["promote_types", "true_divide_type", "NUMPY_UNARY", "NUMPY_BINARY"]

_FLOAT_RANK = {torch.float16: 0, torch.bfloat16: 0, torch.float32: 1, torch.float64: 2}
_INT_RANK = {torch.bool: -1, torch.int8: 0, torch.uint8: 1, torch.int32: 2, torch.int64: 3}


def promote_types(first, second):
    """The result dtype (torch) of a binary ``mx.np`` operator on arrays of two dtypes, by
    MXNet 1.9.1's rule (``common::np_binary_out_infer_type``)."""
    if first == second:
        return first
    if {first, second} == {torch.uint8, torch.int8}:
        return torch.int32
    first_float, second_float = first in _FLOAT_RANK, second in _FLOAT_RANK
    if first_float and second_float:
        return max(first, second, key=_FLOAT_RANK.get)
    if first_float or second_float:
        return first if first_float else second
    return max(first, second, key=lambda dtype: _INT_RANK.get(dtype, 3))


def true_divide_type(first, second):
    """``_npi_true_divide``'s result dtype: the float operand's (the more precise of two
    floats), float32 for two integer operands."""
    if first in _FLOAT_RANK or second in _FLOAT_RANK:
        return promote_types(first, second) if first in _FLOAT_RANK and second in _FLOAT_RANK else \
            (first if first in _FLOAT_RANK else second)
    return torch.float32


def _torch_dtype(name):
    if name is None:
        return None
    from ..base import torch_dtype
    return torch_dtype(name)


def _numpy_dtype(dtype):
    from ..base import numpy_type
    return np.dtype(numpy_type(dtype))


def _axes(axis):
    """An ``axis`` attribute (None, an int or a tuple of ints) as torch's ``dim`` argument."""
    if axis is None:
        return None
    return tuple(axis) if isinstance(axis, (tuple, list)) else (int(axis),)


def _axis_attr(value, name):
    """Parser of a NumPy ``axis``: None, an int or a tuple of ints ("(0, 1)", "1", "None")."""
    if value is None or (isinstance(value, str) and value.strip() in ("None", "")):
        return None
    if isinstance(value, str):
        value = eval(value, {"__builtins__": {}}, {"None": None, "L": 1})  # noqa: S307 (MXNet's tuple text)
    if isinstance(value, (tuple, list)):
        return tuple(int(v) for v in value)
    return int(value)


def _shape_attr(value, name):
    """Parser of a NumPy shape: an int or a tuple (a zero dimension is a zero-size axis)."""
    value = _axis_attr(value, name)
    if value is None:
        return None
    return (value,) if isinstance(value, int) else tuple(value)


_Axis = optional(_axis_attr)
_Ctx = optional(lambda value, name: str(value))
_Dtype = optional(lambda value, name: None if value in (None, "None") else str(np.dtype(value)
                                                                              if not isinstance(value, str)
                                                                              else value))


class NumpyArgumentTypeError(OperatorSchemaError, MXNetTypeError):
    """An ``mx.np`` operator attribute (or front-end argument) of the wrong type (``size=(2.5,)``,
    ``newshape='a'``): an OperatorSchemaError and a TypeError, as NumPy raised TypeError."""


class NumpyArgumentValueError(OperatorSchemaError, MXNetValueError):
    """An ``mx.np`` operator attribute (or front-end argument) of a bad value (a negative size):
    an OperatorSchemaError and a ValueError, as NumPy raised ValueError."""


class NumpyAttr(Attr):
    """An attribute whose parser's MXNetTypeError / MXNetValueError (``schema.numpy_shape``,
    ``schema.numpy_integer``) is raised as :class:`NumpyArgumentTypeError` /
    :class:`NumpyArgumentValueError`, in :class:`Attr`'s format ("Operator _npi_zeros:
    attribute 'shape': expected ... (given ...)"); other failures as :class:`Attr` reports them."""

    def parse(self, value, owner, noun="attribute", error=SchemaError):
        try:
            return self.parser(value, self.name)
        except (MXNetTypeError, MXNetValueError) as failure:
            kind = NumpyArgumentTypeError if isinstance(failure, TypeError) else NumpyArgumentValueError
            raise kind(f"{owner}: {noun} {self.name!r}: {failure} (given {value!r})") from None
        except (MXNetError, ValueError, TypeError, OverflowError, SyntaxError):
            return super().parse(value, owner, noun, error)


def numpy_argument(parser, value, function, name):
    """``value`` of the argument ``name`` of the ``mx.np`` function ``function`` (``'mx.np.zeros'``)
    read by ``parser`` (``schema.NumpyShape``, ``schema.numpy_integer(low=0)``, ...), for front-end
    functions that check an argument before it reaches an operator: NumpyArgumentTypeError /
    NumpyArgumentValueError "mx.np.zeros: argument 'shape': expected ... (given ...)"."""
    attr = NumpyAttr(parser)
    attr.name = name
    return attr.parse(value, function, "argument")


class _NumpyOperator(Operator):
    """Base of the ``mx.np`` operators: shapes and dtypes inferred by running ``forward`` on
    torch's ``meta`` device (NumPy shapes: zero-dim and zero-size are shapes, not unknowns)."""

    deterministic = True
    traceable = True
    lists_input_names = False

    def __init_subclass__(cls, **kwargs):
        # every result owns its memory (a view of an input -- reshape, transpose, ... -- is copied
        # inside the computation), so the gradient carrier a recorded integer result gets stays
        # on the tensor the caller receives (the front end copies views made outside it)
        super().__init_subclass__(**kwargs)
        if "forward" in cls.__dict__:
            computation = cls.__dict__["forward"]

            def forward(self, is_train, inputs, aux, _computation=computation):
                outputs = _computation(self, is_train, inputs, aux)
                return [t.clone() if t._is_view() or any(t is i for i in inputs) else t for t in outputs]
            forward.__doc__ = computation.__doc__
            cls.forward = forward

    def _meta_outputs(self, in_shapes, in_types):
        # torch's meta kernels are slow (a reduction ~4 ms): a bound graph asks several times
        # for the same node, so the result's shapes and dtypes are kept on the operator
        key = (tuple(tuple(shape) for shape in in_shapes), tuple(in_types))
        cache = self.__dict__.setdefault("_meta_cache", {})
        if key not in cache:
            tensors = [torch.empty(tuple(shape), dtype=_torch_dtype(dtype) if dtype is not None else torch.float32,
                                   device="meta") for shape, dtype in zip(in_shapes, in_types)]
            outputs = self.forward(False, tensors, [])
            cache[key] = [torch.empty(tuple(t.shape), dtype=t.dtype, device="meta") for t in outputs]
        return cache[key]

    def infer_shape(self, in_shapes, out_shapes):
        if any(shape is None or any(d is None or d < 0 for d in shape) for shape in in_shapes):
            return list(in_shapes), list(out_shapes), []
        try:
            outputs = self._meta_outputs(in_shapes, [None] * len(in_shapes))
        except MXNetError:
            raise
        except Exception:  # noqa: BLE001 -- torch's meta kernels raise several kinds; the forward reports it
            return list(in_shapes), list(out_shapes), []
        return list(in_shapes), [tuple(t.shape) for t in outputs], []

    def infer_type(self, in_types):
        if any(dtype is None for dtype in in_types):
            return list(in_types), [None] * self.num_outputs(), []
        # placeholder shapes: dtypes do not depend on them, but some operators need axes
        for shape in ((1, 1), (1,), ()):
            try:
                outputs = self._meta_outputs([shape] * len(in_types), in_types)
            except Exception:  # noqa: BLE001 -- try the next placeholder
                continue
            return list(in_types), [_numpy_dtype(t.dtype) for t in outputs], []
        return list(in_types), [None] * self.num_outputs(), []


# -- element-wise: two arrays --------------------------------------------------------------------
def _remainder(a, b):
    """NumPy's ``mod`` (the divisor's sign); an integer modulo zero gives 0 as in MXNet."""
    if a.is_floating_point() or a.device.type == "meta":
        return torch.remainder(a, b)
    zero = b == 0
    return torch.where(zero, torch.zeros_like(a), torch.remainder(a, torch.where(zero, torch.ones_like(b), b)))


def _integer_only(kind, function, a, b):
    """``function`` of two integer tensors; floats raise MXNetError (MXNet's ``lcm``)."""
    if a.device.type == "meta":
        return torch.empty(np.broadcast_shapes(tuple(a.shape), tuple(b.shape)), dtype=a.dtype, device=a.device)
    if a.is_floating_point() or b.is_floating_point() or a.dtype == torch.bool:
        raise MXNetError(f"{kind}: the operands must be integers, got {a.dtype} and {b.dtype}")
    return torch.abs(function(a, b))


NUMPY_BINARY = {
    "add": torch.add, "subtract": torch.sub, "multiply": torch.mul, "mod": _remainder, "power": torch.pow,
    "maximum": torch.maximum, "minimum": torch.minimum, "hypot": torch.hypot, "arctan2": torch.atan2,
    "copysign": torch.copysign, "equal": torch.eq, "not_equal": torch.ne, "greater": torch.gt,
    "greater_equal": torch.ge, "less": torch.lt, "less_equal": torch.le,
    "logical_and": torch.logical_and, "logical_or": torch.logical_or, "logical_xor": torch.logical_xor,
    "bitwise_and": torch.bitwise_and, "bitwise_or": torch.bitwise_or, "bitwise_xor": torch.bitwise_xor,
    "lcm": lambda a, b: _integer_only("lcm", torch.lcm, a, b), "ldexp": lambda a, b: _ldexp(a, b),
}


def _ldexp(a, b):
    """``a * 2**b``; on integer arrays an integer result, truncated (MXNet's ldexp keeps the dtype)."""
    if a.is_floating_point():
        return a * torch.pow(2.0, b)
    return _to_dtype(a.double() * torch.pow(2.0, b.double()), a.dtype)
_COMPARISONS = {"equal", "not_equal", "greater", "greater_equal", "less", "less_equal",
                "logical_and", "logical_or", "logical_xor"}
_FLOAT_ONLY = {"hypot", "arctan2", "copysign"}
# MXNet's backward of these on integer arrays gives zeros (Operator.integer_gradient_zero)
_INTEGER_GRADIENT_ZERO = {"mod", "lcm", "bitwise_and", "bitwise_or", "bitwise_xor"}


def _binary_class(kind):
    function = NUMPY_BINARY[kind]

    class Binary(_NumpyOperator):
        __doc__ = (f"NumPy's ``{kind}`` of two arrays, broadcasting; the result dtype by MXNet's promotion "
                   f"rule" + (" (bool for a comparison)" if kind in _COMPARISONS else "") + ".")
        integer_gradient_zero = kind in _INTEGER_GRADIENT_ZERO

        def arguments(self):
            return ["lhs", "rhs"]

        def forward(self, is_train, inputs, aux):
            lhs, rhs = inputs
            dtype = promote_types(lhs.dtype, rhs.dtype)
            if kind in _FLOAT_ONLY and dtype not in _FLOAT_RANK:
                dtype = torch.float32
            result = function(lhs.to(dtype), rhs.to(dtype))
            return [result]
    Binary.__name__ = Binary.__qualname__ = f"Numpy_{kind}"
    return Binary


for _kind in NUMPY_BINARY:
    register(f"_npi_{_kind}")(_binary_class(_kind))


@register("_npi_true_divide")
class NumpyTrueDivide(_NumpyOperator):
    """NumPy's true division of two arrays, broadcasting; integers give float32."""

    def arguments(self):
        return ["lhs", "rhs"]

    def forward(self, is_train, inputs, aux):
        dtype = true_divide_type(inputs[0].dtype, inputs[1].dtype)
        return [torch.div(inputs[0].to(dtype), inputs[1].to(dtype))]


# -- element-wise: an array and a scalar ---------------------------------------------------------
def _scalar_class(kind, reverse):
    function = NUMPY_BINARY.get(kind)

    class Scalar(_NumpyOperator):
        __doc__ = (f"NumPy's ``{kind}`` of an array and the number ``scalar``"
                   + (" (the number on the left)" if reverse else "") + "; the result keeps the array's dtype"
                   + (" (bool for a comparison)" if kind in _COMPARISONS else "")
                   + (", float32 for integers" if kind == "true_divide" else "") + ".")
        scalar = Attr(Float, default=1.0)
        is_int = Attr(Bool, default=True)
        integer_gradient_zero = kind in _INTEGER_GRADIENT_ZERO

        def forward(self, is_train, inputs, aux):
            data = inputs[0]
            dtype = data.dtype
            if kind == "true_divide" or (kind in _FLOAT_ONLY and dtype not in _FLOAT_RANK):
                dtype = dtype if dtype in _FLOAT_RANK else torch.float32
            data = data.to(dtype)
            value = self.scalar
            if dtype not in _FLOAT_RANK and dtype != torch.bool:
                value = int(value)
            other = torch.full((), value, dtype=dtype if dtype != torch.bool else torch.float32,
                               device=data.device)
            if dtype == torch.bool:
                data = data.to(torch.float32)
            operation = torch.div if kind == "true_divide" else function
            result = operation(other, data) if reverse else operation(data, other)
            if kind not in _COMPARISONS:
                result = result.to(dtype if dtype != torch.bool else torch.float32)
            return [result]
    Scalar.__name__ = Scalar.__qualname__ = f"Numpy_{'r' if reverse else ''}{kind}_scalar"
    return Scalar


for _kind in list(NUMPY_BINARY) + ["true_divide"]:
    register(f"_npi_{_kind}_scalar")(_scalar_class(_kind, False))
for _kind in ("subtract", "true_divide", "mod", "power", "arctan2", "copysign", "ldexp"):
    register(f"_npi_r{_kind}_scalar")(_scalar_class(_kind, True))


# -- element-wise: one array ---------------------------------------------------------------------
def _fix(x):
    return torch.trunc(x)


NUMPY_UNARY = {
    "exp": torch.exp, "expm1": torch.expm1, "log": torch.log, "log2": torch.log2, "log10": torch.log10,
    "log1p": torch.log1p, "sqrt": torch.sqrt, "cbrt": lambda x: torch.sign(x) * torch.abs(x) ** (1.0 / 3),
    "sin": torch.sin, "cos": torch.cos, "tan": torch.tan, "arcsin": torch.asin, "arccos": torch.acos,
    "arctan": torch.atan, "sinh": torch.sinh, "cosh": torch.cosh, "tanh": torch.tanh, "arcsinh": torch.asinh,
    "arccosh": torch.acosh, "arctanh": torch.atanh, "degrees": torch.rad2deg, "radians": torch.deg2rad,
    "rad2deg": torch.rad2deg, "deg2rad": torch.deg2rad, "reciprocal": torch.reciprocal,
    # exact on integers too
    "abs": torch.abs, "absolute": torch.abs, "negative": torch.neg, "square": torch.square, "sign": torch.sign,
    "floor": torch.floor, "ceil": torch.ceil, "trunc": torch.trunc, "rint": torch.round, "fix": _fix,
}
_EXACT_ON_INTEGERS = {"abs", "absolute", "negative", "square", "sign", "floor", "ceil", "trunc", "rint", "fix"}


def _unary_class(kind):
    function = NUMPY_UNARY[kind]

    class Unary(_NumpyOperator):
        __doc__ = (f"NumPy's ``{kind}`` element by element; the result keeps the input's dtype (an integer "
                   f"result truncated toward zero, as MXNet 1.9.1 computed it).")

        def forward(self, is_train, inputs, aux):
            data = inputs[0]
            if data.is_floating_point():
                return [function(data)]
            if kind in _EXACT_ON_INTEGERS and data.dtype != torch.bool:
                return [data.clone() if kind in ("floor", "ceil", "trunc", "rint", "fix") else function(data)]
            return [torch.trunc(function(data.to(torch.float64))).to(data.dtype)]
    Unary.__name__ = Unary.__qualname__ = f"Numpy_{kind}"
    return Unary


for _kind in NUMPY_UNARY:
    register(f"_npi_{_kind}")(_unary_class(_kind))


@register("_npi_logical_not")
class NumpyLogicalNot(_NumpyOperator):
    """NumPy's ``logical_not``: bool, True where the input is zero."""

    def forward(self, is_train, inputs, aux):
        return [inputs[0] == 0]


@register("_npi_bitwise_not")
class NumpyBitwiseNot(_NumpyOperator):
    """NumPy's ``invert`` / ``bitwise_not`` of an integer or bool array."""

    def forward(self, is_train, inputs, aux):
        if inputs[0].device.type == "meta":
            # shape inference runs on float placeholders: the dtype check waits for real inputs
            return [torch.empty_like(inputs[0])]
        if inputs[0].is_floating_point():
            raise MXNetError("bitwise_not: This operation only support integer types, not "
                             f"{_numpy_dtype(inputs[0].dtype)}")
        return [torch.bitwise_not(inputs[0])]


@register("_npi_clip")
class NumpyClip(_NumpyOperator):
    """NumPy's ``clip`` between ``a_min`` and ``a_max`` (None: no bound); dtype kept."""

    a_min = Attr(optional(Float), default=None)
    a_max = Attr(optional(Float), default=None)

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        low, high = self.a_min, self.a_max
        if not data.is_floating_point() and data.dtype != torch.bool:
            # a bound beyond the integer dtype's range bounds nothing on that side (torch would
            # wrap it into the dtype: -120 for uint8 is 136); NumPy 1 and MXNet 1.9.1 compared
            # the values themselves
            info = torch.iinfo(data.dtype)
            low = None if low is None else min(max(math.ceil(low), info.min), info.max)
            high = None if high is None else max(min(math.floor(high), info.max), info.min)
        return [torch.clamp(data, low, high)]


def _where_class(name, scalars):
    class Where(_NumpyOperator):
        __doc__ = (f"NumPy's ``where(condition, x, y)``" + {"": "", "l": " with ``x`` the number ``scalar``",
                   "r": " with ``y`` the number ``scalar``", "2": " with numbers ``x`` and ``y``"}[scalars] + ".")
        if scalars in ("l", "r"):
            scalar = Attr(Float, default=0.0)
        if scalars == "2":
            x = Attr(Float, default=0.0)
            y = Attr(Float, default=0.0)

        def arguments(self):
            return {"": ["condition", "x", "y"], "l": ["condition", "y"], "r": ["condition", "x"],
                    "2": ["condition"]}[scalars]

        def forward(self, is_train, inputs, aux):
            condition = inputs[0] != 0
            if scalars == "":
                x, y = inputs[1], inputs[2]
                dtype = promote_types(x.dtype, y.dtype)
                x, y = x.to(dtype), y.to(dtype)
            elif scalars == "l":
                y = inputs[1]
                x = torch.full((), self.scalar, dtype=y.dtype, device=y.device)
            elif scalars == "r":
                x = inputs[1]
                y = torch.full((), self.scalar, dtype=x.dtype, device=x.device)
            else:
                x = torch.full((), self.x, dtype=torch.float32, device=condition.device)
                y = torch.full((), self.y, dtype=torch.float32, device=condition.device)
            return [torch.where(condition, x, y)]
    Where.__name__ = Where.__qualname__ = f"NumpyWhere{scalars}"
    return Where


register("_npi_where")(_where_class("_npi_where", ""))
register("_npi_where_lscalar")(_where_class("_npi_where_lscalar", "l"))
register("_npi_where_rscalar")(_where_class("_npi_where_rscalar", "r"))
register("_npi_where_scalar2")(_where_class("_npi_where_scalar2", "2"))


# -- reductions -----------------------------------------------------------------------------------
def _reduce_dims(data, axis):
    dims = _axes(axis)
    if dims is None:
        return tuple(range(data.dim()))
    return tuple(d % max(data.dim(), 1) for d in dims)


def _reduction_class(kind, default_dtype, has_dtype, has_initial):
    class Reduction(_NumpyOperator):
        __doc__ = (f"NumPy's ``{kind}`` over ``axis`` (None: all axes; an int or a tuple), ``keepdims`` "
                   f"keeping the reduced axes as size 1.")
        axis = Attr(_Axis, default=None)
        keepdims = Attr(Bool, default=False)
        if has_dtype:
            dtype = Attr(_Dtype, default=None)
        if has_initial:
            initial = Attr(optional(Float), default=None)

        def forward(self, is_train, inputs, aux):
            data = inputs[0]
            dims = _reduce_dims(data, self.axis)
            target = _torch_dtype(getattr(self, "dtype", None)) or default_dtype(data.dtype)
            if self.axis is not None and not dims:
                # axis=(): NumPy reduces over no axis
                return [_to_dtype(data, target).clone()]
            if kind in ("max", "min"):
                if data.numel() == 0 and getattr(self, "initial", None) is None:
                    raise MXNetError(f"{kind}: zero-size array to reduction operation {kind} which has no "
                                     f"identity")
                result = data.amax(dim=dims, keepdim=self.keepdims) if kind == "max" else \
                    data.amin(dim=dims, keepdim=self.keepdims)
                if getattr(self, "initial", None) is not None:
                    bound = torch.full((), self.initial, dtype=result.dtype, device=result.device)
                    result = torch.maximum(result, bound) if kind == "max" else torch.minimum(result, bound)
                return [result.to(target)]
            work = data.to(torch.float64 if not data.is_floating_point() else data.dtype)
            if kind == "sum":
                result = work.sum(dim=dims, keepdim=self.keepdims)
            elif kind == "prod":
                result = work
                for dim in sorted(dims, reverse=True):
                    result = result.prod(dim=dim, keepdim=self.keepdims)
            elif not data.is_floating_point() and not target.is_floating_point and target != torch.bool:
                # NumPy's and MXNet's integer mean accumulates in the integer dtype (wrapping)
                total = _to_dtype(work.sum(dim=dims, keepdim=self.keepdims), target)
                count = max(1, int(np.prod([data.shape[d] for d in dims])))
                result = total.to(work.dtype) / count
            else:
                result = work.mean(dim=dims, keepdim=self.keepdims)
            if has_initial and getattr(self, "initial", None) is not None:
                result = result + self.initial if kind == "sum" else result * self.initial
            return [_to_dtype(result, target)]
    Reduction.__name__ = Reduction.__qualname__ = f"Numpy_{kind}"
    return Reduction


def _same(dtype):
    return torch.int64 if dtype == torch.bool else dtype


def _float_of(dtype):
    return dtype if dtype in _FLOAT_RANK else torch.float32


register("_np_sum")(_reduction_class("sum", _same, True, True))
register("_np_prod")(_reduction_class("prod", _same, True, True))
register("_np_max")(_reduction_class("max", lambda dtype: dtype, False, True))
register("_np_min")(_reduction_class("min", lambda dtype: dtype, False, True))
register("_npi_mean")(_reduction_class("mean", _float_of, True, True))


def _moment_class(kind):
    class Moment(_NumpyOperator):
        __doc__ = (f"NumPy's ``{kind}`` over ``axis`` with ``ddof`` delta degrees of freedom; the result "
                   f"keeps the input's dtype unless ``dtype`` is given (MXNet 1.9.1).")
        axis = Attr(_Axis, default=None)
        dtype = Attr(_Dtype, default=None)
        ddof = Attr(Int, default=0)
        keepdims = Attr(Bool, default=False)

        def forward(self, is_train, inputs, aux):
            data = inputs[0]
            dims = _reduce_dims(data, self.axis)
            target = _torch_dtype(self.dtype) or data.dtype
            work = data.to(torch.float64 if not data.is_floating_point() else data.dtype)
            if self.axis is not None and not dims:
                # axis=(): no axis reduced, each element alone: 0 / max(1 - ddof, 0) (NaN for ddof >= 1,
                # as NumPy divides)
                result = (work - work) / max(1 - self.ddof, 0)
                return [result.to(target) if target.is_floating_point else torch.zeros_like(data, dtype=target)]
            result = torch.var(work, dim=dims, correction=self.ddof, keepdim=self.keepdims)
            if kind == "std":
                result = torch.sqrt(result)
            if not target.is_floating_point:
                result = torch.trunc(result)
            return [result.to(target)]
    Moment.__name__ = Moment.__qualname__ = f"Numpy_{kind}"
    return Moment


register("_npi_std")(_moment_class("std"))
register("_npi_var")(_moment_class("var"))


def _arg_class(kind):
    class ArgReduction(_NumpyOperator):
        __doc__ = f"NumPy's ``{kind}``: int64 indices along ``axis`` (None: of the flattened array)."
        axis = Attr(optional(Int), default=None)
        keepdims = Attr(Bool, default=False)

        def forward(self, is_train, inputs, aux):
            data = inputs[0]
            function = torch.argmax if kind == "argmax" else torch.argmin
            if self.axis is None:
                if data.numel() == 0:
                    raise MXNetError(f"{kind}: attempt to get {kind} of an empty sequence")
                result = function(data.reshape(-1))
                if self.keepdims:
                    result = result.reshape((1,) * data.dim())
                return [result]
            if not -max(data.dim(), 1) <= self.axis < max(data.dim(), 1):
                raise MXNetError(f"{kind}: axis {self.axis} is out of bounds for an array of dimension {data.dim()}")
            if data.dim() == 0:
                return [torch.zeros((), dtype=torch.int64, device=data.device)]
            if data.shape[self.axis] == 0:
                raise MXNetError(f"{kind}: attempt to get {kind} of an empty sequence")
            if data.numel() == 0:
                shape = list(data.shape)
                if self.keepdims:
                    shape[self.axis] = 1
                else:
                    del shape[self.axis]
                return [torch.zeros(shape, dtype=torch.int64, device=data.device)]
            return [function(data, dim=self.axis, keepdim=self.keepdims)]
    ArgReduction.__name__ = ArgReduction.__qualname__ = f"Numpy_{kind}"
    return ArgReduction


register("_npi_argmax")(_arg_class("argmax"))
register("_npi_argmin")(_arg_class("argmin"))
