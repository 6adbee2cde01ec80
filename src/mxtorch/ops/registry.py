"""The operator registry: every MXNet operator is declared here once.

An operator is a subclass of :class:`Operator` decorated with
:func:`register`.  Its class body declares the attribute schema with
:class:`Attr` (types and MXNet's defaults); its methods give the argument
and auxiliary-state names, shape and dtype inference, and the computation in
PyTorch.  ``mx.sym.<Name>``, ``mx.nd.<Name>``, the JSON reader and the
executor are all generated from, or driven by, this registry.

Shapes during inference are tuples in which ``0`` marks an unknown
dimension (MXNet 1.x's convention) or ``None`` when nothing is known.
"""
from __future__ import annotations

import math

import numpy as np

from ..base import MXNetError, parse_bool, parse_tuple, format_value

__all__ = ["Attr", "Operator", "register", "get_operator", "list_operators", "REQUIRED",
           "Int", "Float", "Bool", "Str", "Shape", "OptionalShape", "FloatTuple", "Dtype", "optional", "Choice",
           "known", "merge_shape", "OperatorSchemaError"]


class _Required:
    def __repr__(self):
        return "REQUIRED"


REQUIRED = _Required()


class OperatorSchemaError(MXNetError):
    """An attribute is unknown, missing or malformed."""


# -- attribute value parsers: (value, name) -> python value ------------------------------------
def Int(value, name):
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    try:
        number = float(str(value).strip())
    except ValueError:
        raise MXNetError(f"expected an integer, got {value!r}") from None
    if not number.is_integer():
        raise MXNetError(f"expected an integer, got {value!r}")
    return int(number)


def Float(value, name):
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        return float(value)
    try:
        return float(str(value).strip())
    except ValueError:
        raise MXNetError(f"expected a number, got {value!r}") from None


def Bool(value, name):
    return parse_bool(value, name)


def Str(value, name):
    return str(value)


def Shape(value, name):
    """A tuple of ints (``"(3, 3)"``); None entries are rejected."""
    result = parse_tuple(value, name, int)
    if any(item is None for item in result):
        raise MXNetError(f"expected integers, got {value!r}")
    return result


def OptionalShape(value, name):
    """A tuple of ints or None (``slice``'s ``begin=(None, 2)``)."""
    return parse_tuple(value, name, int)


def FloatTuple(value, name):
    return parse_tuple(value, name, float)


def Dtype(value, name):
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        if text == "None":
            return None
        return np.dtype(text).name
    return np.dtype(value).name


def optional(parser):
    """A parser that also accepts ``None`` / ``"None"``."""
    def parse(value, name):
        if value is None or (isinstance(value, str) and value.strip() == "None"):
            return None
        return parser(value, name)
    parse.__name__ = f"optional_{parser.__name__}"
    return parse


def Choice(*choices):
    """A parser for a string that must be one of ``choices``."""
    def parse(value, name):
        text = str(value)
        if text not in choices:
            raise MXNetError(f"expected one of {list(choices)}, got {text!r}")
        return text
    parse.__name__ = "Choice"
    parse.choices = choices
    return parse


class Attr:
    """One operator attribute: how to parse MXNet's string form and its default.

    ``Attr(Int, required=True)`` or ``Attr(Shape, default=())``.  Parsed values
    are available as instance attributes of the operator.
    """

    def __init__(self, parser, default=REQUIRED, required=False, doc=""):
        self.parser = parser
        self.default = REQUIRED if required else default
        self.doc = doc
        self.name = None

    def __set_name__(self, owner, name):
        self.name = name

    def parse(self, value, op_name):
        try:
            return self.parser(value, self.name)
        except (MXNetError, ValueError, TypeError, OverflowError, SyntaxError) as error:
            message = str(error)
            prefix = f"attribute {self.name!r}: "
            if message.startswith(prefix):
                message = message[len(prefix):]
            raise OperatorSchemaError(f"Operator {op_name}: attribute {self.name!r}: {message} "
                                      f"(given {value!r})") from None


_REGISTRY = {}


def register(name, *aliases):
    """Class decorator: register an Operator under ``name`` and its ``aliases``."""
    def decorate(cls):
        cls.name = name
        cls.aliases = tuple(aliases)
        schema = {}
        for klass in reversed(cls.__mro__):
            for key, value in vars(klass).items():
                if isinstance(value, Attr):
                    schema[key] = value
        cls.schema = schema
        for key in (name,) + tuple(aliases):
            if key in _REGISTRY and _REGISTRY[key] is not cls:
                raise MXNetError(f"operator {key!r} is registered twice")
            _REGISTRY[key] = cls
        return cls
    return decorate


def get_operator(name):
    """The Operator class registered under ``name``; MXNetError naming it if unknown."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise MXNetError(f"Operator {name!r} is not implemented in mxtorch") from None


def list_operators():
    """All registered names, aliases included."""
    return sorted(_REGISTRY)


def known(shape):
    """True when ``shape`` is fully known (no None, no 0 dimension)."""
    return shape is not None and all(d > 0 for d in shape)


def merge_shape(first, second, where=""):
    """Unify two partial shapes (0 = unknown dim); MXNetError naming ``where`` on conflict."""
    if first is None:
        return second
    if second is None:
        return first
    if len(first) != len(second):
        if not first:
            return second
        if not second:
            return first
        raise MXNetError(f"{where}: shape mismatch, {tuple(first)} vs {tuple(second)}")
    merged = []
    for a, b in zip(first, second):
        if a and b and a != b:
            raise MXNetError(f"{where}: shape mismatch, {tuple(first)} vs {tuple(second)}")
        merged.append(a or b)
    return tuple(merged)


class Operator:
    """Base of every operator declaration.

    Subclasses declare :class:`Attr` class attributes and override:

    - ``arguments()``: argument names (without the node-name prefix),
    - ``auxiliary_states()``: aux-state names (BatchNorm's moving statistics),
    - ``outputs()``: output names (``['output']`` by default),
    - ``infer_shape(in_shapes, out_shapes)``: refined ``(in_shapes, out_shapes,
      aux_shapes)`` from partial shapes,
    - ``infer_type(in_types)``: ``(in_types, out_types, aux_types)`` as numpy dtypes,
    - ``forward(is_train, inputs, aux)``: output tensors from input tensors;
      aux tensors are updated in place.

    ``is_loss`` marks the ``*Output`` heads whose backward ignores head gradients.
    ``variadic`` operators take any number of inputs, counted by ``num_args``.
    ``distinct_names``: aliases that are separate operators in MXNet (``Convolution_v1``);
    a node created under one is written back to JSON under that name (``json_name``).
    """

    name = None
    aliases = ()
    schema = {}
    is_loss = False
    variadic = False
    hint = None
    distinct_names = ()
    # False for operators whose computation cannot be traced into TorchScript / ONNX
    # (mxtorch.export refuses them, quoting export_note)
    exportable = True
    export_note = ""

    def __init__(self, attrs=None, **kwargs):
        given = dict(attrs or {})
        given.update(kwargs)
        self.attrs = {}
        for key, value in given.items():
            if key.startswith("__") and key.endswith("__"):
                continue
            if key not in self.schema:
                valid = ", ".join(sorted(self.schema)) or "none"
                raise OperatorSchemaError(
                    f"Operator {self.name}: unknown attribute {key!r} (valid attributes: {valid})")
            setattr(self, key, self.schema[key].parse(value, self.name))
            self.attrs[key] = value if isinstance(value, str) else format_value(value)
        for key, attr in self.schema.items():
            if key in given:
                continue
            if attr.default is REQUIRED:
                raise OperatorSchemaError(
                    f"Operator {self.name}: required attribute {key!r} is missing")
            setattr(self, key, attr.default)
        self.validate()

    @property
    def json_name(self):
        """The operator name written to symbol JSON."""
        return self.__dict__.get("_json_name", self.name)

    def use_name(self, op_name):
        """Record the name the operator was created under, when MXNet keeps it in JSON."""
        if op_name in self.distinct_names:
            self._json_name = op_name
        return self

    def validate(self):
        """Check attribute combinations; raise OperatorSchemaError."""

    def error(self, message):
        return MXNetError(f"Operator {self.name}: {message}")

    # -- graph interface --------------------------------------------------------------------
    def arguments(self):
        if self.variadic:
            return [f"arg{i}" for i in range(self.num_args)]
        return ["data"]

    def auxiliary_states(self):
        return []

    def outputs(self):
        return ["output"]

    def num_outputs(self):
        return len(self.outputs())

    def num_visible_outputs(self):
        return self.num_outputs()

    def infer_shape(self, in_shapes, out_shapes):
        """Default: every input and output has one common shape (elementwise ops)."""
        shape = None
        for s in list(in_shapes) + list(out_shapes):
            shape = merge_shape(shape, s, f"Operator {self.name}")
        return [shape] * len(in_shapes), [shape] * len(out_shapes), []

    def infer_type(self, in_types):
        """Default: everything takes the first known input dtype."""
        dtype = next((t for t in in_types if t is not None), None)
        return ([dtype] * len(in_types), [dtype] * self.num_outputs(),
                [dtype] * len(self.auxiliary_states()))

    def forward(self, is_train, inputs, aux):
        raise NotImplementedError(f"Operator {self.name} has no forward")

    # -- misc -------------------------------------------------------------------------------
    def __repr__(self):
        return f"{self.name}({', '.join(f'{k}={v}' for k, v in self.attrs.items())})"


def upcast_half(tensor):
    """``tensor`` in float32 when it is float16/bfloat16 (to compute a reduction precisely), else
    itself; callers cast results back to the input dtype."""
    import torch
    return tensor.float() if tensor.dtype in (torch.float16, torch.bfloat16) else tensor


def product(values):
    return int(math.prod(values))


def positional_attributes(op_class, values, op_name=None):
    """Map positional values that follow an operator's inputs to its attributes, in the
    order the schema declares them (MXNet's generated functions take ``clip(x, 0, 1)``), or in
    the operator's ``positional_order`` where its class hierarchy declares them in another order."""
    keys = list(getattr(op_class, "positional_order", None) or op_class.schema)
    if len(values) > len(keys):
        raise MXNetError(f"Operator {op_name or op_class.name}: {len(values)} positional attribute values for "
                         f"{len(keys)} attributes {keys}")
    return dict(zip(keys, values))


# front-end namespaces: mx.nd.linalg.gemm2 is the operator _linalg_gemm2, and so on
NAMESPACE_PREFIXES = {"linalg": ("_linalg_",), "contrib": ("_contrib_",), "random": ("_random_", "_sample_"),
                      "image": ("_image_",), "sparse": ("_sparse_",)}


def namespace_operators(namespace):
    """``{short_name: operator_name}`` for a front-end namespace (linalg, contrib, random, ...).

    For ``random`` the ``_random_`` form (scalar parameters) wins over ``_sample_`` (array
    parameters); the front end picks ``_sample_`` when arrays are passed.
    """
    result = {}
    for prefix in reversed(NAMESPACE_PREFIXES[namespace]):
        for name in _REGISTRY:
            if name.startswith(prefix):
                result[name[len(prefix):]] = name
    if namespace == "random" and "_shuffle" in _REGISTRY:
        result["shuffle"] = "_shuffle"    # mx.nd.random.shuffle / mx.sym.random.shuffle
    return result
