"""Elementwise arithmetic: binary (same shape and broadcasting), scalar and unary operators,
plus ``clip`` and the three-input ``where``.

Each operator is declared once through a small factory so that every MXNet
name and alias (``elemwise_add`` / ``_plus`` / ``_Plus``, ``_plus_scalar`` /
``_PlusScalar``, ...) resolves to one class.  Comparison and logical
operators return 0/1 in the input dtype and have zero gradients, as in MXNet.
"""
from __future__ import annotations

import math

import torch

from ..base import MXNetError
from .registry import Attr, Operator, register, Float, Bool, Int, known, merge_shape
from .helpers import round_half_away, shape_text

__all__ = ["broadcast_shapes"]


def _as_float(function):
    def compare(a, b):
        return function(a, b).to(a.dtype if isinstance(a, torch.Tensor) else b.dtype)
    return compare


def _divide(a, b):
    if not a.is_floating_point():
        return torch.div(a, b, rounding_mode="trunc")
    return a / b


def _modulo(a, b):
    # MXNet's mod follows the sign of the divisor (Python/numpy semantics), and x % 0 is 0
    # (MXNet 1.9.1, integers and floats alike; torch raises for integers, gives nan for floats)
    if not isinstance(b, torch.Tensor):
        return torch.zeros_like(a) if b == 0 else torch.remainder(a, b)
    # no host check for zeros (a sync per call, and a data-dependent branch that stops
    # torch.export, e.g. for GluonCV's CenterNet decoder): the masked form always
    zero = b == 0
    result = torch.remainder(a, torch.where(zero, torch.ones_like(b), b))
    return torch.where(zero, torch.zeros_like(result), result)


def _logical(function):
    def apply(a, b):
        a_bool = a != 0
        b_bool = b != 0
        return function(a_bool, b_bool).to(a.dtype if isinstance(a, torch.Tensor) else b.dtype)
    return apply


def _pick(take_lhs, take_rhs, lhs, rhs):
    """``lhs`` where ``take_lhs``, ``rhs`` where ``take_rhs``, NaN (without gradient) elsewhere."""
    return torch.where(take_lhs, lhs, torch.where(take_rhs, rhs, (lhs + rhs).detach()))


_BINARY = {
    "add": torch.add,
    "sub": torch.sub,
    "mul": torch.mul,
    "div": _divide,
    "mod": _modulo,
    "power": torch.pow,
    # MXNet's gradient rule: a tie sends the whole gradient to ``lhs`` (torch.maximum splits it);
    # a NaN operand gives NaN and no gradient
    "maximum": lambda lhs, rhs: _pick(lhs >= rhs, lhs < rhs, lhs, rhs),
    "minimum": lambda lhs, rhs: _pick(lhs <= rhs, lhs > rhs, lhs, rhs),
    "hypot": torch.hypot,
    "equal": _as_float(torch.eq),
    "not_equal": _as_float(torch.ne),
    "greater": _as_float(torch.gt),
    "greater_equal": _as_float(torch.ge),
    "lesser": _as_float(torch.lt),
    "lesser_equal": _as_float(torch.le),
    "logical_and": _logical(torch.logical_and),
    "logical_or": _logical(torch.logical_or),
    "logical_xor": _logical(torch.logical_xor),
}


class _Binary(Operator):
    deterministic = True
    function = None
    traceable = True
    arithmetic = None       # what arithmetic_kind() answers

    def arithmetic_kind(self):
        return type(self).arithmetic

    def arguments(self):
        return ["lhs", "rhs"]

    def forward(self, is_train, inputs, aux):
        result = type(self).function(inputs[0], inputs[1])
        if self.input_storage is not None and type(self).sparse_storage in (_product_storage, _scaled_csr_storage):
            # a sparse product holds values only where its sparse operands store them (MXNet
            # never computes 0 * inf or 0 / 0 there)
            result = _on_sparse_pattern(result, inputs, self.input_storage)
        return [result]


# -- storage types of the sparse forms (mx.nd.sparse.elemwise_add, broadcast_mul, add_n, ...) ---
def _same_storage(op, stypes):
    """elemwise_add / elemwise_sub / _maximum / _minimum / _hypot: two arrays of one sparse storage
    type keep it."""
    first = stypes[0]
    return [first if first != "default" and all(s == first for s in stypes) else "default"]


def _product_storage(op, stypes):
    """elemwise_mul: one sparse storage type among the operands (the others dense) is kept."""
    sparse = {s for s in stypes if s != "default"}
    return [sparse.pop() if len(sparse) == 1 else "default"]


def _scaled_csr_storage(op, stypes):
    """broadcast_mul / broadcast_div: a csr ``lhs`` scaled by a dense ``rhs`` stays csr."""
    return ["csr" if list(stypes) == ["csr", "default"] else "default"]


def _sum_storage(op, stypes):
    """add_n: row_sparse arrays only give a row_sparse sum."""
    return ["row_sparse" if stypes and all(s == "row_sparse" for s in stypes) else "default"]


def _on_sparse_pattern(result, inputs, stypes):
    """``result`` with zeros wherever a sparse operand stores nothing (a zero of a csr array, a
    zero row of a row_sparse array)."""
    for tensor, stype in zip(inputs, stypes):
        if stype == "csr":
            stored = tensor != 0
        elif stype == "row_sparse":
            stored = (tensor.reshape(tensor.shape[0], -1) != 0).any(dim=1)
            stored = stored.reshape((-1,) + (1,) * (tensor.dim() - 1))
        else:
            continue
        result = torch.where(stored, result, torch.zeros((), dtype=result.dtype, device=result.device))
    return result


_SAME_SHAPE_STORAGE = {"add": _same_storage, "sub": _same_storage, "mul": _product_storage, "div": "dense",
                       "maximum": _same_storage, "minimum": _same_storage, "hypot": _same_storage}
_BROADCAST_STORAGE = {"add": "dense", "sub": "dense", "mul": _scaled_csr_storage, "div": _scaled_csr_storage}


def broadcast_shapes(lhs, rhs, where):
    """numpy-style broadcast of two partial shapes; MXNetError naming ``where`` if incompatible."""
    if lhs is None or rhs is None:
        return None
    ndim = max(len(lhs), len(rhs))
    lhs = (1,) * (ndim - len(lhs)) + tuple(lhs)
    rhs = (1,) * (ndim - len(rhs)) + tuple(rhs)
    result = []
    for a, b in zip(lhs, rhs):
        if a == 0 or b == 0:
            result.append(0 if (a in (0, 1) and b in (0, 1)) else max(a, b))
        elif a == b or b == 1:
            result.append(a)
        elif a == 1:
            result.append(b)
        else:
            raise MXNetErrorShape(where, lhs, rhs)
    return tuple(result)


def MXNetErrorShape(where, lhs, rhs):
    from ..base import MXNetError
    return MXNetError(f"{where}: operands of shapes {tuple(lhs)} and {tuple(rhs)} do not broadcast together")


class _Broadcast(_Binary):
    def infer_shape(self, in_shapes, out_shapes):
        out = broadcast_shapes(in_shapes[0], in_shapes[1], f"Operator {self.name}")
        return list(in_shapes), [merge_shape(out_shapes[0], out, f"Operator {self.name} output")], []


_SAME_SHAPE_ALIASES = {
    "add": ("elemwise_add", "_plus", "_Plus", "_add", "_grad_add"),  # _grad_add: distinct in MXNet
    "sub": ("elemwise_sub", "_minus", "_Minus", "_sub"),
    "mul": ("elemwise_mul", "_mul", "_Mul"),
    "div": ("elemwise_div", "_div", "_Div"),
    "mod": ("_mod", "_Mod"),
    "power": ("_power", "_Power"),
    "maximum": ("_maximum", "_Maximum"),
    "minimum": ("_minimum", "_Minimum"),
    "hypot": ("_hypot", "_Hypot"),
    "equal": ("_equal",),
    "not_equal": ("_not_equal",),
    "greater": ("_greater",),
    "greater_equal": ("_greater_equal",),
    "lesser": ("_lesser",),
    "lesser_equal": ("_lesser_equal",),
    "logical_and": ("_logical_and",),
    "logical_or": ("_logical_or",),
    "logical_xor": ("_logical_xor",),
}
_BROADCAST_ALIASES = {
    "add": ("broadcast_add", "broadcast_plus"),
    "sub": ("broadcast_sub", "broadcast_minus"),
    "mul": ("broadcast_mul",),
    "div": ("broadcast_div",),
    "mod": ("broadcast_mod",),
    "power": ("broadcast_power",),
    "maximum": ("broadcast_maximum",),
    "minimum": ("broadcast_minimum",),
    "hypot": ("broadcast_hypot",),
    "equal": ("broadcast_equal",),
    "not_equal": ("broadcast_not_equal",),
    "greater": ("broadcast_greater",),
    "greater_equal": ("broadcast_greater_equal",),
    "lesser": ("broadcast_lesser",),
    "lesser_equal": ("broadcast_lesser_equal",),
    "logical_and": ("broadcast_logical_and",),
    "logical_or": ("broadcast_logical_or",),
    "logical_xor": ("broadcast_logical_xor",),
}

for _key, _names in _SAME_SHAPE_ALIASES.items():
    register(*_names)(type(_names[0], (_Binary,), {
        "function": staticmethod(_BINARY[_key]),
        "arithmetic": {"add": "add", "mul": "multiply"}.get(_key),
        "sparse_storage": _SAME_SHAPE_STORAGE.get(_key),
        "quantized_name": "_contrib_quantized_elemwise_add" if _key == "add" else None,
        "distinct_names": tuple(n for n in _names if n == "_grad_add"),
        "__doc__": f"Elementwise {_key} of two arrays of the same shape (``lhs``, ``rhs``)."}))
for _key, _names in _BROADCAST_ALIASES.items():
    register(*_names)(type(_names[0], (_Broadcast,), {
        "function": staticmethod(_BINARY[_key]),
        "sparse_storage": _BROADCAST_STORAGE.get(_key),
        "__doc__": f"Elementwise {_key} with numpy broadcasting of ``lhs`` and ``rhs``."}))


# -- scalar forms: what Symbol/NDArray arithmetic with a Python number produces -------------------
class _Scalar(Operator):
    lists_input_names = False
    deterministic = True
    scalar = Attr(Float, default=1.0)
    is_int = Attr(Bool, default=True)
    function = None
    traceable = True

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        # MXNet converts the scalar to the array's dtype first: int32 array * 0.5 multiplies by 0
        scalar = self.scalar if data.is_floating_point() else \
            torch.tensor(math.trunc(self.scalar), dtype=data.dtype, device=data.device)
        result = type(self).function(data, scalar)
        if isinstance(result, torch.Tensor) and result.dtype != data.dtype:
            result = result.to(data.dtype)
        return [result]


def _reverse(function):
    def apply(data, scalar):
        if not isinstance(scalar, torch.Tensor):
            scalar = torch.tensor(scalar, dtype=data.dtype, device=data.device)
        else:
            scalar = scalar.to(device=data.device, dtype=data.dtype)
        return function(scalar.expand_as(data), data)
    return apply


def _scalar_compare(function):
    def apply(data, scalar):
        return function(data, scalar).to(data.dtype)
    return apply


def _scalar_logical(function):
    def apply(data, scalar):
        return function(data != 0, torch.tensor(float(scalar) != 0, device=data.device)).to(data.dtype)
    return apply


_SCALAR = {
    ("_plus_scalar", "_PlusScalar"): lambda x, s: x + s,
    ("_minus_scalar", "_MinusScalar"): lambda x, s: x - s,
    ("_rminus_scalar", "_RMinusScalar"): lambda x, s: s - x,
    ("_mul_scalar", "_MulScalar"): lambda x, s: x * s,
    ("_div_scalar", "_DivScalar"): lambda x, s: x / s,
    ("_rdiv_scalar", "_RDivScalar"): lambda x, s: s / x,
    ("_mod_scalar", "_ModScalar"): _modulo,
    ("_rmod_scalar", "_RModScalar"): _reverse(_modulo),
    ("_power_scalar", "_PowerScalar"): lambda x, s: torch.pow(x, s),
    ("_rpower_scalar", "_RPowerScalar"): _reverse(torch.pow),
    ("_maximum_scalar", "_MaximumScalar"): lambda x, s: torch.clamp(x, min=s),
    ("_minimum_scalar", "_MinimumScalar"): lambda x, s: torch.clamp(x, max=s),
    ("_hypot_scalar", "_HypotScalar"): lambda x, s: torch.hypot(x, torch.full_like(x, float(s))),
    ("_equal_scalar", "_EqualScalar"): _scalar_compare(torch.eq),
    ("_not_equal_scalar", "_NotEqualScalar"): _scalar_compare(torch.ne),
    ("_greater_scalar", "_GreaterScalar"): _scalar_compare(torch.gt),
    ("_greater_equal_scalar", "_GreaterEqualScalar"): _scalar_compare(torch.ge),
    ("_lesser_scalar", "_LesserScalar"): _scalar_compare(torch.lt),
    ("_lesser_equal_scalar", "_LesserEqualScalar"): _scalar_compare(torch.le),
    ("_logical_and_scalar",): _scalar_logical(torch.logical_and),
    ("_logical_or_scalar",): _scalar_logical(torch.logical_or),
    ("_logical_xor_scalar",): _scalar_logical(torch.logical_xor),
}

def _one_minus(self):
    return "one_minus" if self.scalar == 1.0 else None
# the scalar forms MXNet gives a sparse form: they keep a sparse input's storage type when they
# map 0 to 0 for the given scalar (``csr * 2``, ``csr + 0``, ``csr == 1``; not ``csr == 0``)
_SPARSE_SCALAR = ("_plus_scalar", "_minus_scalar", "_mul_scalar", "_div_scalar", "_equal_scalar",
                  "_not_equal_scalar", "_greater_scalar", "_greater_equal_scalar", "_lesser_scalar",
                  "_lesser_equal_scalar")


def _zero_preserving_scalar(op, stypes):
    if stypes[0] == "default":
        return ["default"]          # a dense input: nothing to decide, and no extra computation
    zero = torch.zeros(1)
    return [stypes[0] if float(op.forward(False, [zero], [])[0][0]) == 0 else "default"]


for _names, _function in _SCALAR.items():
    register(*_names)(type(_names[0], (_Scalar,), {
        "function": staticmethod(_function),
        **({"arithmetic_kind": _one_minus} if _names[0] == "_rminus_scalar" else {}),
        "sparse_storage": _zero_preserving_scalar if _names[0] in _SPARSE_SCALAR else None,
        "__doc__": f"``{_names[0]}``: elementwise operation of ``data`` with the attribute ``scalar``."}))


# -- unary math ------------------------------------------------------------------------------------
def _softsign(x):
    return x / (1 + x.abs())


def _gamma(x):
    return torch.exp(torch.lgamma(x)) * torch.where(
        (x < 0) & (torch.floor(x).remainder(2) == 0), -1.0, 1.0).to(x.dtype)


_UNARY = {
    ("exp",): torch.exp, ("log",): torch.log, ("log1p",): torch.log1p, ("expm1",): torch.expm1,
    ("log2",): torch.log2, ("log10",): torch.log10,
    ("sqrt",): torch.sqrt, ("rsqrt",): torch.rsqrt, ("cbrt",): lambda x: torch.sign(x) * x.abs().pow(1 / 3),
    ("rcbrt",): lambda x: 1 / (torch.sign(x) * x.abs().pow(1 / 3)),
    ("square",): torch.square, ("abs",): torch.abs, ("sign",): torch.sign, ("negative",): torch.neg,
    ("reciprocal",): torch.reciprocal, ("floor",): torch.floor, ("ceil",): torch.ceil,
    ("round",): round_half_away, ("rint",): lambda x: torch.ceil(x - 0.5), ("fix",): torch.trunc, ("trunc",): torch.trunc,
    ("sin",): torch.sin, ("cos",): torch.cos, ("tan",): torch.tan, ("arcsin",): torch.asin,
    ("arccos",): torch.acos, ("arctan",): torch.atan, ("sinh",): torch.sinh, ("cosh",): torch.cosh,
    ("tanh",): torch.tanh, ("arcsinh",): torch.asinh, ("arccosh",): torch.acosh, ("arctanh",): torch.atanh,
    ("degrees",): torch.rad2deg, ("radians",): torch.deg2rad,
    ("sigmoid",): torch.sigmoid, ("relu",): torch.relu, ("softsign",): _softsign,
    ("erf",): torch.erf, ("erfinv",): torch.erfinv, ("gamma",): _gamma, ("gammaln",): torch.lgamma,
    ("logical_not",): lambda x: (x == 0).to(x.dtype),
}


@register("hard_sigmoid")
class HardSigmoid(Operator):
    """``clip(alpha * data + beta, 0, 1)`` elementwise (defaults alpha 0.2, beta 0.5)."""

    alpha = Attr(Float, default=0.2)
    beta = Attr(Float, default=0.5)

    def forward(self, is_train, inputs, aux):
        return [torch.clamp(inputs[0] * self.alpha + self.beta, 0.0, 1.0)]


class _Unary(Operator):
    lists_input_names = False
    deterministic = True
    function = None
    traceable = True
    activation = None       # what activation_kind() answers

    def activation_kind(self):
        return type(self).activation

    def forward(self, is_train, inputs, aux):
        return [type(self).function(inputs[0])]


# unary functions that MXNet does not also give NDArray / Symbol as methods
_NOT_FLUENT = ("negative", "softsign", "erf", "erfinv", "gamma", "gammaln", "logical_not")

# MXNet's sparse forms (mx.nd.sparse): f(0) == 0 keeps a row_sparse / csr input's storage type,
# the others give a dense result
_SPARSE_PRESERVING = ("abs", "arcsin", "arcsinh", "arctan", "arctanh", "cbrt", "ceil", "degrees", "expm1", "fix",
                      "floor", "log1p", "negative", "radians", "relu", "rint", "round", "sign", "sin", "sinh",
                      "sqrt", "square", "tan", "tanh", "trunc")
_SPARSE_DENSE = ("arccos", "arccosh", "cos", "cosh", "exp", "gamma", "gammaln", "log", "log10", "log2", "rsqrt",
                 "sigmoid")

def _digamma(x):
    """digamma with MXNet's value +inf at the poles (0, -1, -2, ...), where torch gives -inf / nan."""
    return torch.where((x <= 0) & (x == torch.floor(x)), torch.full_like(x, float("inf")), torch.digamma(x))


# MXNet's own backward formulas where autograd of the forward above gives other numbers at the
# singular points (cbrt / rcbrt at 0: sign(0) * inf is nan; digamma at the poles):
# ``gradient(x, y, head)`` with ``y`` the output
_UNARY_GRADIENTS = {
    "cbrt": lambda x, y, head: head / (3 * y * y),
    "rcbrt": lambda x, y, head: -head * y / (3 * x),
    "gamma": lambda x, y, head: head * y * _digamma(x),
    "gammaln": lambda x, y, head: head * _digamma(x),
}


def _declared_unary_backward(gradient):
    def backward(self, out_grads, inputs, outputs, aux):
        return [gradient(inputs[0], outputs[0], out_grads[0])]
    backward.__doc__ = "MXNet's backward formula of this function (see ``_UNARY_GRADIENTS``)."
    return backward


for _names, _function in _UNARY.items():
    register(*_names, fluent=_names[0] not in _NOT_FLUENT)(type(_names[0], (_Unary,), {
        "function": staticmethod(_function),
        **({"backward": _declared_unary_backward(_UNARY_GRADIENTS[_names[0]])} if _names[0] in _UNARY_GRADIENTS
           else {}),
        "activation": _names[0] if _names[0] in ("relu", "sigmoid", "tanh") else None,
        "sparse_storage": "preserve" if _names[0] in _SPARSE_PRESERVING else
                          "dense" if _names[0] in _SPARSE_DENSE else None,
        "__doc__": f"Elementwise ``{_names[0]}`` of ``data`` (any shape)."
                   + (" A row_sparse or csr input gives a result of its storage type, as in MXNet."
                      if _names[0] in _SPARSE_PRESERVING else "")}))


@register("add_n", "ElementWiseSum", "_sparse_add_n")
class AddN(Operator):
    """Sum of ``num_args`` arrays of one shape; row_sparse arrays only give a row_sparse sum,
    other storage types a dense one (MXNet's ``add_n`` / ``ElementWiseSum``)."""
    deterministic = True

    traceable = True
    variadic = True
    sparse_storage = _sum_storage
    num_args = Attr(Int, required=True)

    def forward(self, is_train, inputs, aux):
        total = inputs[0]
        for value in inputs[1:]:
            total = total + value
        return [total]


@register("clip", fluent=True)
class Clip(Operator):
    """``data`` limited to ``[a_min, a_max]``; the gradient passes where
    ``a_min <= data <= a_max`` (bounds included) and is zero elsewhere.  MXNet's kernel order
    decides when ``a_min > a_max``: a value above ``a_max`` becomes ``a_max``, else a value
    below ``a_min`` becomes ``a_min`` (``clip([1, 5], 4, 2)`` is ``[4, 2]``).  A row_sparse or csr
    input keeps its storage type and needs ``a_min <= 0 <= a_max`` (MXNetError otherwise)."""

    lists_input_names = False
    deterministic = True

    a_min = Attr(Float, required=True)
    a_max = Attr(Float, required=True)
    traceable = True

    def sparse_storage(self, stypes):
        # MXNet's sparse clip keeps the storage type and needs the bounds to keep zeros at zero
        if stypes[0] != "default" and not self.a_min <= 0 <= self.a_max:
            raise self.error(f"a {stypes[0]} input needs a_min <= 0 <= a_max (zeros stay zeros), got "
                             f"a_min={self.a_min}, a_max={self.a_max}; convert it with tostype('default') first")
        return [stypes[0]]

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        low, high = self.a_min, self.a_max
        if not data.is_floating_point():
            low, high = int(low), int(high)
        if low > high:
            low_value = torch.full_like(data, low)
            return [torch.where(data > high, torch.full_like(data, high),
                                torch.where(data < low, low_value, data))]
        return [data.clamp(low, high)]

    def backward(self, out_grads, inputs, outputs, aux):
        data = inputs[0]
        inside = (data >= self.a_min) & (data <= self.a_max)
        return [out_grads[0] * inside.to(out_grads[0].dtype)]


@register("where")
class Where(Operator):
    """``x`` where ``condition`` is non-zero, else ``y``.  ``condition`` has the shape of ``x``
    or is 1-D with ``x.shape[0]`` entries (then it selects whole rows).  ``condition``
    gets a zero gradient."""
    deterministic = True

    sparse_storage = "dense"

    def arguments(self):
        return ["condition", "x", "y"]

    def infer_shape(self, in_shapes, out_shapes):
        condition, x, y = in_shapes
        where = f"Operator {self.name}"
        try:
            value = merge_shape(x, y, "")
            value = merge_shape(value, out_shapes[0], "")
        except MXNetError:
            raise self.error(f"arguments 'x' {shape_text(x)} and 'y' {shape_text(y)} must have the same "
                             f"shape") from None
        condition_known = known(condition)
        if condition is not None and value is not None:
            if len(condition) == 1 and len(value) > 1:
                if condition[0] and value[0] and condition[0] != value[0]:
                    raise self.error(f"a 1-D argument 'condition' {tuple(condition)} must have x.shape[0]="
                                     f"{value[0]} entries ('x' {tuple(value)})")
                # a 1-D condition is only checked, never inferred from 'x' (MXNet's rule)
            else:
                try:
                    condition = merge_shape(condition, value, where)
                except MXNetError:
                    raise self.error(f"argument 'condition' {tuple(condition)} must have the shape of 'x' "
                                     f"{tuple(value)} or be 1-D with x.shape[0] entries") from None
        # MXNet infers the output only once 'condition' is fully known
        out = value if condition_known else out_shapes[0]
        return [condition, value, value], [out], []

    def infer_type(self, in_types):
        condition, x, y = in_types
        dtype = x if x is not None else y
        return [condition if condition is not None else dtype, dtype, dtype], [dtype], []

    def forward(self, is_train, inputs, aux):
        condition, x, y = inputs
        mask = condition != 0
        if mask.dim() == 1 and x.dim() > 1:
            mask = mask.reshape((-1,) + (1,) * (x.dim() - 1))
        return [torch.where(mask, x, y)]


# -- contrib elementwise functions -----------------------------------------------------------------
@register("_contrib_quadratic")
class Quadratic(Operator):
    """``a * data**2 + b * data + c`` elementwise (any shape, the dtype of ``data``); gradient
    ``2 * a * data + b`` (MXNet's ``contrib.quadratic``, attributes default 0)."""

    a = Attr(Float, default=0.0)
    b = Attr(Float, default=0.0)
    c = Attr(Float, default=0.0)

    def sparse_storage(self, stypes):
        # MXNet keeps a csr input csr when c == 0 (zeros stay zeros); row_sparse gives dense
        return ["csr" if stypes[0] == "csr" and self.c == 0 else "default"]

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        return [(self.a * data + self.b) * data + self.c]


@register("_contrib_backward_quadratic")
class QuadraticBackward(Operator):
    """The gradient node of ``contrib.quadratic``: ``out_grad * (2 * a * data + b)`` for the
    head gradient ``out_grad`` and the forward input ``data`` (one shape).  MXNet 1.9.1's
    imperative front end could not pass it inputs; here it computes its gradient."""

    a = Attr(Float, default=0.0)
    b = Attr(Float, default=0.0)
    c = Attr(Float, default=0.0)

    def arguments(self):
        return ["out_grad", "data"]

    def forward(self, is_train, inputs, aux):
        out_grad, data = inputs
        return [out_grad * (2 * self.a * data + self.b)]


@register("_contrib_div_sqrt_dim")
class DivSqrtDim(Operator):
    """``data / sqrt(data.shape[-1])`` (MXNet's ``contrib.div_sqrt_dim``, the scaling of
    dot-product attention); any shape of at least one dimension, the dtype of ``data``."""

    def forward(self, is_train, inputs, aux):
        data = inputs[0]
        if data.dim() == 0:
            raise self.error("data must have at least one dimension, got a 0-d array")
        return [data / math.sqrt(data.shape[-1])]


class _StraightThrough(Operator):
    """Forward ``function(data)``, backward the head gradient unchanged (straight-through estimator).
    A row_sparse or csr input keeps its storage type."""
    function = None
    sparse_storage = "preserve"

    def forward(self, is_train, inputs, aux):
        return [type(self).function(inputs[0])]

    def backward(self, out_grads, inputs, outputs, aux):
        return [out_grads[0]]


@register("_contrib_round_ste")
class RoundSTE(_StraightThrough):
    """``round(data)`` (halves away from zero) whose gradient is the head gradient unchanged
    (MXNet's ``contrib.round_ste``)."""
    function = staticmethod(round_half_away)


@register("_contrib_sign_ste")
class SignSTE(_StraightThrough):
    """``sign(data)`` whose gradient is the head gradient unchanged (MXNet's ``contrib.sign_ste``)."""
    function = staticmethod(torch.sign)


@register("_contrib_gradientmultiplier")
class GradientMultiplier(Operator):
    """``data`` unchanged; its gradient is the head gradient times ``scalar`` (MXNet's
    ``contrib.gradientmultiplier``, used for gradient reversal with a negative scalar)."""

    scalar = Attr(Float, default=1.0)
    is_int = Attr(Bool, default=True)

    def forward(self, is_train, inputs, aux):
        return [inputs[0].clone()]

    def backward(self, out_grads, inputs, outputs, aux):
        return [out_grads[0] * self.scalar]


@register("_contrib_backward_gradientmultiplier")
class GradientMultiplierBackward(_Scalar):
    """The gradient node of ``contrib.gradientmultiplier``: ``data * scalar`` (``data`` is the
    head gradient), as MXNet 1.9.1's ``contrib.backward_gradientmultiplier(x, scalar=s)``."""

    function = staticmethod(lambda x, s: x * s)


@register("_contrib_allclose")
class AllClose(Operator):
    """1 (uint8, shape ``()``) when every pair of ``a`` and ``b`` (one shape) satisfies
    ``a == b or |a - b| <= atol + rtol * |b|``, else 0.  A NaN pair counts as close when
    ``equal_nan`` (default) and both are NaN; a NaN against a number never does
    (MXNet's ``contrib.allclose``).  No gradient."""

    rtol = Attr(Float, default=1e-5)
    atol = Attr(Float, default=1e-8)
    equal_nan = Attr(Bool, default=True)

    def arguments(self):
        return ["a", "b"]

    def infer_shape(self, in_shapes, out_shapes):
        a, b = in_shapes
        try:
            common = merge_shape(a, b, "")
        except MXNetError:
            raise self.error(f"arrays 'a' {shape_text(a)} and 'b' {shape_text(b)} must have the same shape") from None
        return [common, common], [()], []

    def infer_type(self, in_types):
        # MXNet 1.9.1 compares arrays of different dtypes too (both are read as float)
        import numpy as np
        a, b = in_types
        return [a if a is not None else b, b if b is not None else a], [np.dtype(np.uint8)], []

    def forward(self, is_train, inputs, aux):
        a, b = (t.detach() for t in inputs)
        compute = torch.float64 if a.dtype == torch.float64 else torch.float32
        a, b = a.to(compute), b.to(compute)
        a_nan, b_nan = torch.isnan(a), torch.isnan(b)
        close = (a == b) | ((a - b).abs() <= self.atol + self.rtol * b.abs())
        either = a_nan | b_nan
        nan_ok = (a_nan & b_nan) if self.equal_nan else torch.zeros_like(a_nan)
        close = torch.where(either, nan_ok, close)
        return [close.all().to(torch.uint8)]


class _FloatClass(Operator):
    """1 where ``data`` is in a floating-point class, else 0, in ``data``'s dtype (MXNet's
    ``contrib.isinf`` / ``isfinite`` / ``isnan``, Python functions there); no gradient."""
    function = None

    def forward(self, is_train, inputs, aux):
        data = inputs[0].detach()
        return [type(self).function(data).to(data.dtype)]


for _name, _function in (("isinf", torch.isinf), ("isfinite", torch.isfinite), ("isnan", torch.isnan)):
    register(f"_contrib_{_name}")(type(_name, (_FloatClass,), {
        "function": staticmethod(_function),
        "__doc__": f"``contrib.{_name}(data)``: 1 where ``torch.{_name}`` holds, else 0, in the dtype of ``data`` "
                   f"(any shape); no gradient."}))
