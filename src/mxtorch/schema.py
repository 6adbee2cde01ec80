"""Parameter schemas: how MXNet's keyword parameters are declared, parsed and checked.

MXNet passes operator attributes and C++ iterator parameters as strings (``'(3, 3)'``,
``'True'``, ``'128'``) or Python values.  Both kinds are declared here the same way: a class
whose fields are :class:`Attr` (a parser and MXNet's default), gathered by :func:`collect`
and read by :func:`parse_params`, which gives one error format for both::

    Operator Convolution: attribute 'kernel': expected integers, got 'a' (given 'a')
    CSVIter: argument 'batch_size': expected an integer at least 1, got 0 (given 0)

Operators (``ops/registry.py``) refuse unknown attributes; iterators (``io/``) ignore unknown
arguments with a warning, as MXNet's iterators accepted them (``InitAllowUnknown``) while
they had no effect.  This module sits in the base layer: it imports only ``base``.

A parser is ``parser(value, name) -> python value`` raising MXNetError (or ValueError /
TypeError) with a message saying what was expected.
"""
from __future__ import annotations

import ast
import numbers
import operator
import os
import warnings

import numpy as np

from .base import MXNetError, dtype_name, parse_bool, parse_tuple
from .base import MXNetTypeError, MXNetValueError

__all__ = ["Attr", "REQUIRED", "SchemaError", "collect", "parse_params",
           "Int", "Float", "Bool", "Str", "Text", "Shape", "ArrayShape", "OptionalShape", "FloatTuple", "IntTuple", "Dtype",
           "optional", "Choice", "at_least", "nonempty", "Path", "OptionalPath", "DtypeChoice", "DtypeOf", "OneOf",
           "numpy_shape", "numpy_integer", "NumpyShape", "NumpyInt"]


class _Required:
    def __repr__(self):
        return "REQUIRED"


REQUIRED = _Required()


class SchemaError(MXNetError):
    """A parameter is unknown, missing or malformed."""


# -- parsers: (value, name) -> python value -----------------------------------------------------
def Int(value, name):
    if isinstance(value, (bool, np.bool_, int, np.integer)):
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


def _integer_entry(item):
    """One entry of an integer tuple: a Python or NumPy integer.  As MXNet 1.9.1's tuple
    parser, a float is refused even when its value is whole (``2.0``), and so is a bool."""
    if isinstance(item, (bool, np.bool_)) or not isinstance(item, numbers.Integral):
        raise MXNetError(f"expected integers, got the entry {item!r}")
    return int(item)


def Shape(value, name):
    """A tuple of ints (``"(3, 3)"``, ``[3, 3]``, ``3``, NumPy integers); None entries, floats
    (``2.0`` too) and bools are rejected, as MXNet's ``Shape(tuple)`` parameters did."""
    result = parse_tuple(value, name, _integer_entry)
    if any(item is None for item in result):
        raise MXNetError(f"expected integers, got {value!r}")
    return result


def ArrayShape(value, name):
    """The shape of an array to create (MXNet's ``TShape`` parameters: ``_zeros``, the
    ``_random_*`` samplers): a :func:`Shape` whose sizes are at least -1, where -1 (like 0)
    marks a size left to shape inference."""
    result = Shape(value, name)
    if any(size < -1 for size in result):
        raise MXNetError(f"expected dimension sizes of at least -1 (-1 or 0: unknown), got the size "
                         f"{min(result)}")
    return result


# -- NumPy's integer arguments (mx.np: shape / size / newshape / reps / repeats, N / num / n) ---------
def _described(value):
    """``value`` for a message: its type and repr (``float 2.5``, ``str 'a'``; None as itself)."""
    return "None" if value is None else f"{type(value).__name__} {value!r}"


def _numpy_index(value, bools, what):
    """``value`` as a Python int the way NumPy reads an integer argument (``operator.index``:
    Python and NumPy integers, integer 0-d arrays); a bool only with ``bools`` (MXNet's FFI
    front end took ``True`` as 1 where its attribute parser refused it).  MXNetTypeError
    otherwise: a float is refused even when whole (``2.0``), as MXNet and NumPy refused it."""
    if isinstance(value, (bool, np.bool_)):
        if bools:
            return int(value)
        raise MXNetTypeError(f"expected {what}, got the bool {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise MXNetTypeError(f"expected {what}, got {_described(value)}") from None


def _numpy_text(value, text, what):
    """MXNet's text form of an attribute (``'(2, 3)'``, ``'3'``), read as a Python value;
    MXNetTypeError when ``text`` is False or the text is no literal."""
    if not text:
        raise MXNetTypeError(f"expected {what}, got {_described(value)}")
    stripped = value.strip()
    if stripped in ("", "()", "[]"):
        return ()
    try:
        return ast.literal_eval(stripped)
    except (ValueError, SyntaxError, TypeError, RecursionError):
        raise MXNetTypeError(f"expected {what}, got {_described(value)}") from None


def _at_least(values, low, note):
    for size in values:
        if size < low:
            raise MXNetValueError(f"expected sizes of at least {low} ({note}), got {size}")
    return values


def numpy_shape(low=0, text=True, bools=False, note=""):
    """Parser of a NumPy shape argument (``zeros``' ``shape``, the samplers' ``size``,
    ``reshape``'s ``newshape``, ``tile``'s ``reps``): an integer (a 1-tuple) or a sequence of
    integers (tuple, list, 1-D integer array), each at least ``low`` (NumPy's 0: "negative
    dimensions are not allowed"; ``reshape`` takes -1); with ``text``, also MXNet's text form
    of one (``'(2, 3)'``, ``'3'``: symbol JSON, and MXNet's front end passed a string through
    as that text).  Floats, None, strings inside a sequence and (unless ``bools``) bools raise
    MXNetTypeError, sizes below ``low`` MXNetValueError; ``note`` explains ``low`` in that message
    (default "negative dimensions are not allowed"; ``reshape``: "-1: the one size to infer")."""
    name = "NumpyShape" if (low, text, bools, note) == (0, True, False, "") else f"numpy_shape_at_least_{low}"
    note = note or "negative dimensions are not allowed"
    whole = "an integer or a sequence of integers"

    def parse(value, name):
        if isinstance(value, str):
            value = _numpy_text(value, text, whole)
            if isinstance(value, str):
                raise MXNetTypeError(f"expected {whole}, got {_described(value)}")
        if not isinstance(value, (tuple, list)) and getattr(value, "ndim", None) == 1:
            value = list(value)         # a 1-D array (NumPy's, mx.np's, torch's) of sizes
        if isinstance(value, (tuple, list)):
            result = tuple(_numpy_index(item, bools, "integer sizes") for item in value)
        else:
            result = (_numpy_index(value, bools, whole),)
        return _at_least(result, low, note)
    parse.__name__ = name
    return parse


def numpy_integer(low=None, text=True, bools=False):
    """Parser of a NumPy integer argument (``eye``'s ``N`` and ``k``, ``linspace``'s ``num``,
    ``multinomial``'s ``n``): a Python or NumPy integer (``operator.index``), at least ``low``
    when given; with ``text``, also MXNet's text of one (``'3'``).  Floats (``2.0`` too), None
    and (unless ``bools``) bools raise MXNetTypeError, values below ``low`` MXNetValueError."""
    def parse(value, name):
        if isinstance(value, str):
            value = _numpy_text(value, text, "an integer")
        result = _numpy_index(value, bools, "an integer")
        if low is not None and result < low:
            raise MXNetValueError(f"expected an integer of at least {low}, got {result}")
        return result
    parse.__name__ = "NumpyInt" if (low, text, bools) == (None, True, False) else f"numpy_integer_at_least_{low}"
    return parse


NumpyShape = numpy_shape()
NumpyInt = numpy_integer()


def OptionalShape(value, name):
    """A tuple of ints or None (``slice``'s ``begin=(None, 2)``); floats and bools are rejected."""
    return parse_tuple(value, name, _integer_entry)


def FloatTuple(value, name):
    return parse_tuple(value, name, float)


def IntTuple(value, name):
    return tuple(int(v) for v in Shape(value, name))


def Dtype(value, name):
    """MXNet's dtype name (``'float32'``, ``'bfloat16'``, ...) from any spelling base accepts."""
    if value is None or (isinstance(value, str) and value.strip() == "None"):
        return None
    return dtype_name(value)


def Text(value, name):
    """A string; None reads as '' (MXNet's empty string parameters)."""
    return "" if value is None else str(value)


def Path(value, name):
    """A file path (str or os.PathLike); None reads as ''."""
    return os.fspath(value) if isinstance(value, os.PathLike) else Text(value, name)


def OptionalPath(value, name):
    """A file path, or None for MXNet's '' / 'NULL' (no file)."""
    text = Path(value, name)
    return None if text in ("", "NULL") else text


def optional(parser, empty=False):
    """``parser`` that also accepts ``None`` / ``"None"`` (with ``empty``, ``""`` too) as None."""
    nones = ("None", "") if empty else ("None",)

    def parse(value, name):
        if value is None or (isinstance(value, str) and value.strip() in nones):
            return None
        return parser(value, name)
    parse.__name__ = f"optional_{parser.__name__}"
    return parse


def Choice(*choices):
    """A string that must be one of ``choices``."""
    def parse(value, name):
        text = str(value)
        if text not in choices:
            raise MXNetError(f"expected one of {list(choices)}, got {text!r}")
        return text
    parse.__name__ = "Choice"
    parse.choices = choices
    return parse


def OneOf(parser, choices):
    """``parser``'s value, which must be one of ``choices`` (``OneOf(Int, (0, 1, 2))``)."""
    def parse(value, name):
        result = parser(value, name)
        if result not in choices:
            raise MXNetError(f"expected one of {list(choices)}, got {value!r}")
        return result
    parse.__name__ = f"one_of_{parser.__name__}"
    return parse


def at_least(parser, low):
    """``parser``'s number, which must be ``>= low``; for tuples, every entry (and at least one)."""
    def parse(value, name):
        result = parser(value, name)
        entries = result if isinstance(result, tuple) else (result,)
        if not entries or any(entry is None or entry < low for entry in entries):
            what = "entries" if isinstance(result, tuple) else "a value"
            raise MXNetError(f"expected {what} of at least {low}, got {value!r}")
        return result
    parse.__name__ = f"{parser.__name__}_at_least_{low}"
    return parse


def nonempty(parser):
    """``parser``'s tuple, which must have at least one entry."""
    def parse(value, name):
        result = parser(value, name)
        if not result:
            raise MXNetError(f"expected one or more values, got {value!r}")
        return result
    parse.__name__ = f"nonempty_{parser.__name__}"
    return parse


def DtypeChoice(*names):
    """A dtype restricted to ``names`` (MXNet's names), given in any spelling :func:`Dtype`
    accepts (``'float16'``, ``numpy.float16``, ``numpy.dtype('float16')``: MXNet's Python front
    end turned NumPy types into these names); returns the name, None for None / 'None'."""
    def parse(value, name):
        if value is None or str(value) in ("None", ""):
            return None
        try:
            text = dtype_name(value)
        except (MXNetError, TypeError):
            raise MXNetError(f"unknown dtype {value!r}") from None
        if text not in names:
            raise MXNetError(f"expected one of {list(names)}, got {text!r}")
        return text
    parse.__name__ = "DtypeChoice"
    parse.choices = names
    return parse


def DtypeOf(*names, default=None):
    """:func:`DtypeChoice` as a numpy dtype; None / 'None' gives ``default`` (the iterators' form)."""
    choice = DtypeChoice(*names)

    def parse(value, name):
        text = choice(value, name)
        if text is None:
            return None if default is None else np.dtype(default)
        return np.dtype(text)
    parse.__name__ = "DtypeOf"
    return parse


# -- declarations --------------------------------------------------------------------------------
class Attr:
    """One declared parameter: how to parse MXNet's string form and its default.

    ``Attr(Int, required=True)`` or ``Attr(Shape, default=())``; ``doc`` describes it.  Declared
    as class fields; :func:`collect` gathers them (the field name is the parameter name).
    """

    def __init__(self, parser, default=REQUIRED, required=False, doc=""):
        self.parser = parser
        self.default = REQUIRED if required else default
        self.doc = doc
        self.name = None

    def __set_name__(self, owner, name):
        self.name = name

    def parse(self, value, owner, noun="attribute", error=SchemaError):
        """The parsed ``value``; ``error`` ("``owner``: ``noun`` 'name': what was expected
        (given value)") when the parser refuses it."""
        try:
            return self.parser(value, self.name)
        except (MXNetError, ValueError, TypeError, OverflowError, SyntaxError) as failure:
            message = str(failure)
            for prefix in (f"attribute {self.name!r}: ", f"argument {self.name!r}: ", f"{self.name}: "):
                if message.startswith(prefix):
                    message = message[len(prefix):]
            raise error(f"{owner}: {noun} {self.name!r}: {message} (given {value!r})") from None


def collect(cls):
    """``{name: Attr}`` declared on ``cls`` and its bases (subclasses override; a subclass that
    sets the name to something else, such as None, removes the attribute)."""
    schema = {}
    for klass in reversed(cls.__mro__):
        for key, value in vars(klass).items():
            if isinstance(value, Attr):
                schema[key] = value
            elif key in schema:
                del schema[key]
    return schema


def parse_params(schema, given, owner, noun="attribute", unknown="raise", ignored=(), error=SchemaError,
                 stacklevel=3):
    """``{name: value}`` for every parameter of ``schema`` from the ``given`` keywords.

    Missing parameters take their default (``error`` when required).  Keys of the form
    ``__name__`` are skipped (symbol attributes).  Names neither declared nor in ``ignored``
    raise ``error`` (``unknown='raise'``) or are ignored with one UserWarning
    (``unknown='warn'``, attributed to the caller ``stacklevel`` frames up)."""
    values = {}
    strange = [k for k in given if k not in schema and k not in ignored and not (k.startswith("__") and
                                                                                 k.endswith("__"))]
    if strange:
        valid = ", ".join(sorted(schema)) or "none"
        if unknown == "raise":
            raise error(f"{owner}: unknown {noun} {strange[0]!r} (valid {noun}s: {valid})")
        warnings.warn(f"{owner}: ignoring unknown {noun}s {sorted(strange)}; known {noun}s are {sorted(schema)}",
                      stacklevel=stacklevel)
    for key, attr in schema.items():
        if key in given:
            values[key] = attr.parse(given[key], owner, noun, error)
        elif attr.default is REQUIRED:
            raise error(f"{owner}: {noun} {key!r} is required but missing")
        else:
            values[key] = attr.default
    return values
