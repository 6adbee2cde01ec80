"""MXNet's C entry points for the operator list, over the registry (``base._LIB``).

MXNet's Python front ends were generated at import from its C library: ``MXListAllOpNames``
listed the operators, ``NNGetOpHandle`` gave a handle per name and
``MXSymbolGetAtomicSymbolInfo`` described an operator's arguments, from which
``mxnet.ndarray.register`` and ``mxnet.symbol.register`` wrote the code of ``mx.nd.X`` /
``mx.sym.X``.  Legacy code (and MXNet's ``base._init_op_module``) makes the same calls; this
file answers them from the operator registry, with MXNet's calling convention (ctypes output
arguments through ``ctypes.byref``, status 0).

A handle is the ``c_void_p`` of a small integer token; ``operator_of_handle`` turns a handle (or
its value) back into the operator's registered name.
"""
from __future__ import annotations

import ctypes

from ..base import MXNetError
from ..base_ctypes import _LIB
from . import registry

__all__ = ["operator_arguments", "operator_of_handle", "describe_attribute"]

# token <-> operator name; tokens start at 1 so that no handle is NULL
_TOKENS = {}
_NAMES = {}
# the ctypes arrays handed out through output pointers stay alive here, one per call kind and
# operator, as MXNet's per-thread return stores kept the last answer
_KEEP = {}


def describe_attribute(attr):
    """MXNet's type string of a declared attribute: ``'int, required'``,
    ``"{'avg', 'max'}, optional, default='max'"``, ``'boolean, optional, default=False'``."""
    parser = getattr(attr.parser, "__name__", "value")
    kind = {"Int": "int", "Float": "float", "Bool": "boolean", "Str": "string", "Shape": "Shape(tuple)",
            "FloatTuple": "tuple of <float>", "Dtype": "dtype"}.get(parser.replace("optional_", ""), parser)
    choices = getattr(attr.parser, "choices", None)
    if choices:
        kind = "{" + ", ".join(repr(c) for c in sorted(choices, key=str)) + "}"     # sorted, as MXNet
    if attr.default is registry.REQUIRED:
        return f"{kind}, required"
    return f"{kind}, optional, default={attr.default!r}"


def _default_inputs(op_class):
    """The inputs of ``op_class`` under its default attributes; a required attribute, which has
    no default, is left None (the inputs rarely depend on one: FullyConnected's ``num_hidden``)."""
    try:
        op = op_class({})
    except MXNetError:
        op = object.__new__(op_class)
        for key, attr in op_class.schema.items():
            value = None if attr.default is registry.REQUIRED else attr.default
            setattr(op, "output_count" if key == "num_outputs" else key, value)
        op.attrs = {}
    try:
        return list(op.arguments()) + list(op.auxiliary_states())
    except Exception:   # an operator whose inputs need a required attribute's value
        return ["data"]


def operator_arguments(op_name):
    """``(names, types, descriptions, key_var_num_args)`` of operator ``op_name``, inputs first
    then attributes, as MXNet's ``MXSymbolGetAtomicSymbolInfo`` listed them.  A variadic
    operator has one input ``data`` of type ``'NDArray-or-Symbol[]'`` and ``key_var_num_args``
    ``'num_args'``; the inputs of the others are those of the default attributes (``['data']``
    where those need a required value)."""
    op_class = registry.get_operator(op_name)
    if op_class.variadic:
        inputs, input_type = ["data"], "NDArray-or-Symbol[]"
    else:
        input_type = "NDArray-or-Symbol"
        inputs = _default_inputs(op_class)
    names = list(inputs) + list(op_class.schema)
    types = [input_type] * len(inputs) + [describe_attribute(a) for a in op_class.schema.values()]
    descriptions = [""] * len(inputs) + [a.doc or "" for a in op_class.schema.values()]
    key_var_num_args = "num_args" if op_class.variadic and "num_args" in op_class.schema else ""
    return names, types, descriptions, key_var_num_args


def _token(op_name):
    registry.get_operator(op_name)   # MXNetError for an unknown name
    if op_name not in _TOKENS:
        _TOKENS[op_name] = len(_TOKENS) + 1
        _NAMES[_TOKENS[op_name]] = op_name
    return _TOKENS[op_name]


def operator_of_handle(handle):
    """The registered name behind an operator handle from ``NNGetOpHandle`` (a ``c_void_p`` or
    its integer value); MXNetError for anything else."""
    value = getattr(handle, "value", handle)
    try:
        return _NAMES[value]
    except (KeyError, TypeError):
        raise MXNetError(f"{handle!r} is not an operator handle (handles come from "
                         f"_LIB.NNGetOpHandle(c_str(name), byref(handle)))") from None


def _target(out):
    return getattr(out, "_obj", out)


def _string_array(strings, key):
    array = (ctypes.c_char_p * max(len(strings), 1))(*[s.encode("utf-8") for s in strings])
    _KEEP[key] = array
    return ctypes.cast(array, ctypes.POINTER(ctypes.c_char_p))


def _list_all_op_names(out_size, out_array):
    """``MXListAllOpNames(byref(size), byref(char**))``: every registered operator name."""
    names = registry.list_operators()
    _target(out_size).value = len(names)
    pointer = _string_array(names, "MXListAllOpNames")
    ctypes.pointer(_target(out_array))[0] = pointer
    return 0


def _get_op_handle(op_name, out):
    """``NNGetOpHandle(c_str(name), byref(OpHandle()))``."""
    name = op_name.value.decode("utf-8") if hasattr(op_name, "value") else op_name
    if isinstance(name, bytes):
        name = name.decode("utf-8")
    _target(out).value = _token(name)
    return 0


def _atomic_symbol_info(handle, name, description, num_args, arg_names, arg_types, arg_descs,
                        key_var_num_args, return_type=None):
    """``MXSymbolGetAtomicSymbolInfo(handle, byref(name), byref(desc), byref(num_args),
    byref(arg_names), byref(arg_types), byref(arg_descs), byref(key_var_num_args)[,
    byref(return_type)])``."""
    op_name = operator_of_handle(handle)
    names, types, descriptions, var_args = operator_arguments(op_name)
    op_class = registry.get_operator(op_name)
    for out, text in ((name, op_name), (description, (op_class.__doc__ or "").strip()),
                      (key_var_num_args, var_args)):
        _target(out).value = text.encode("utf-8")
    _target(num_args).value = len(names)
    for kind, out, strings in (("names", arg_names, names), ("types", arg_types, types),
                               ("descriptions", arg_descs, descriptions)):
        ctypes.pointer(_target(out))[0] = _string_array(strings, (op_name, kind))
    if return_type is not None:
        _target(return_type).value = None
    return 0


_LIB.provide("MXListAllOpNames", _list_all_op_names)
_LIB.provide("NNGetOpHandle", _get_op_handle)
_LIB.provide("MXSymbolGetAtomicSymbolInfo", _atomic_symbol_info)


def atomic_symbol_info(handle):
    """``(op_name, description, arg_names, arg_types, arg_descs, key_var_num_args, ret_type)``
    of an operator handle, read through ``_LIB.MXSymbolGetAtomicSymbolInfo`` as MXNet's
    generators did."""
    name, description, key_var_num_args, ret_type = (ctypes.c_char_p() for _ in range(4))
    num_args = ctypes.c_uint()
    arg_names, arg_types, arg_descs = (ctypes.POINTER(ctypes.c_char_p)() for _ in range(3))
    _LIB.MXSymbolGetAtomicSymbolInfo(handle, ctypes.byref(name), ctypes.byref(description),
                                     ctypes.byref(num_args), ctypes.byref(arg_names),
                                     ctypes.byref(arg_types), ctypes.byref(arg_descs),
                                     ctypes.byref(key_var_num_args), ctypes.byref(ret_type))
    count = num_args.value

    def text(value):
        return value.decode("utf-8") if value is not None else ""
    return (text(name.value), text(description.value), [text(arg_names[i]) for i in range(count)],
            [text(arg_types[i]) for i in range(count)], [text(arg_descs[i]) for i in range(count)],
            text(key_var_num_args.value), text(ret_type.value))


def split_signature(arg_names, arg_types):
    """How MXNet's generators split an operator's arguments: ``(dtype_name, array_name,
    input_names, attribute_names, signature)`` -- ``dtype_name`` 'dtype' when the operator has
    that attribute (else None), ``array_name`` the name of a variadic input (``*data``; else
    None), the other inputs (``name=None`` in the signature), the other attributes
    (``name=_Null``); ``signature`` lists inputs first.  AssertionError when a variadic input
    is not the last input, as in MXNet."""
    dtype_name = array_name = None
    inputs, attributes, input_signature, signature = [], [], [], []
    for name, kind in zip(arg_names, arg_types):
        if name == "dtype":
            dtype_name = name
            signature.append(f"{name}=_Null")
        elif kind.startswith("NDArray") or kind.startswith("Symbol"):
            assert not array_name, "Op can only have one argument with variable size and it must be the last argument."
            if kind.endswith("[]"):
                input_signature.append(f"*{name}")
                array_name = name
            else:
                input_signature.append(f"{name}=None")
                inputs.append(name)
        else:
            signature.append(f"{name}=_Null")
            attributes.append(name)
    return dtype_name, array_name, inputs, attributes, input_signature + signature


def build_doc(description, arg_names, arg_types, arg_descs, front, key_var_num_args=None):
    """The docstring of a generated operator function: the description, a ``Parameters``
    section (``build_param_doc``) and, for ``front`` 'ndarray', the ``out`` parameter and the
    NDArray return, for 'symbol' the ``name`` parameter and the Symbol return;
    ``NDArray-or-Symbol`` reads ``NDArray`` or ``Symbol``."""
    from ..base_ctypes import build_param_doc
    parameters = build_param_doc(arg_names, arg_types, arg_descs)
    if front == "ndarray":
        text = (f"{description}\n\n{parameters}\nout : NDArray, optional\n"
                "    The output NDArray to hold the result.\n\nReturns\n-------\n"
                "out : NDArray or list of NDArrays\n    The output of this function.")
        return text.replace("NDArray-or-Symbol", "NDArray") + "\n"
    if key_var_num_args:
        description += "\nThis function support variable length of positional input."
    text = (f"{description}\n\n{parameters}\nname : string, optional.\n"
            "    Name of the resulting symbol.\n\nReturns\n-------\nSymbol\n    The result symbol.")
    return text.replace("NDArray-or-Symbol", "Symbol") + "\n"


def indent_docstring(doc):
    """``doc`` as the indented raw docstring line of a generated function's source."""
    lines = f'r"""{doc}"""'.splitlines(True)
    return "\n" + "".join("    " + line if line.strip() else line for line in lines)
