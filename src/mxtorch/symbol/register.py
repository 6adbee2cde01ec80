"""Symbolic front end: one ``mx.sym.<Name>`` function per registered operator (MXNet 1.9.1's
``mxnet.symbol.register``, which generated them from the C library's operator list).

``make_function(op_name)`` returns the function that composes a node of the operator:
input Symbols positionally or by argument name, attributes as keywords, ``name=`` and
``attr=``; ``install(namespace)`` puts one per registered operator into ``namespace``
(``mx.sym``), keeping the ``zeros`` / ``ones`` creators already there.
"""
from __future__ import annotations

from ..ops import registry as _registry
from .symbol import create
# names MXNet 1.9.1's mxnet.symbol.register had in its namespace (imported there, not defined)
from ..attribute import AttrScope  # noqa: F401
from ..base import check_call, mx_uint, py_str  # noqa: F401
from ..base_ctypes import SymbolBase  # noqa: F401
from ..name import NameManager  # noqa: F401

__all__ = ["make_function", "install"]


def make_function(op_name):
    """The ``mx.sym`` function of the registered operator ``op_name`` (MXNetError if unknown)."""
    op_class = _registry.get_operator(op_name)

    def function(*args, **kwargs):
        return create(op_name, *args, **kwargs)
    function.__name__ = op_name
    function.__doc__ = (op_class.__doc__ or f"The {op_name} operator.") + \
        "\n\nSymbolic form: input Symbols positionally or by argument name, attributes as keywords, " \
        "``name=`` and ``attr=``."
    return function


def install(namespace):
    """Add one function per registered operator to ``namespace`` (a module's globals)."""
    for op_name in _registry.list_operators():
        if op_name in namespace:
            continue        # the Python-level functions imported before (zeros, ones) win
        namespace[op_name] = make_function(op_name)


# -- MXNet's generated-code front end (``mxnet.symbol.register``'s private names) ------------------
# MXNet wrote the source of each mx.sym function from the operator's description and exec'd it;
# the generated code runs here: it calls ``_symbol_creator`` with the operator's handle.
import numpy as _np  # noqa: E402  (the generated code's dtype handling reads it)
from ..base import _LIB, _Null, _init_op_module, _is_np_op, _output_is_list  # noqa: E402,F401
from ..ops import c_api as _c_api  # noqa: E402
from ..ndarray.register import attribute_code  # noqa: E402


def _build_doc(func_name, desc, arg_names, arg_types, arg_desc, key_var_num_args=None, ret_type=None):  # noqa: ARG001
    """The docstring of the symbolic function of an operator (MXNet's
    ``mxnet.symbol_doc._build_doc``): the description, its parameters, ``name`` and the return."""
    return _c_api.build_doc(desc, arg_names, arg_types, arg_desc, "symbol", key_var_num_args)


def _is_np_symbol(sym):
    return type(sym).__name__ == "_Symbol" and type(sym).__module__.endswith("numpy._symbol")


def _verify_np_symbol(op_name, func_name, sym):
    """TypeError naming the operator unless ``sym`` is a NumPy-front-end symbol (``mx.sym.np``)."""
    if not _is_np_symbol(sym):
        raise TypeError(f"Operator `{op_name}` registered in backend is known as `{func_name}` in Python. "
                        f"This is a numpy operator which can only accept MXNet numpy ndarrays, while "
                        f"received a legacy ndarray. Please ensure that you have activated numpy semantics "
                        f"by calling `npx.set_np()` in your code, or call `as_np_ndarray()` upon the legacy "
                        f"ndarray to convert it to an MXNet numpy ndarray.")


def _verify_legacy_symbol(op_name, func_name, sym):
    """TypeError naming the operator when ``sym`` is a NumPy-front-end symbol (legacy operators
    take ``mx.sym.Symbol``)."""
    if _is_np_symbol(sym):
        raise TypeError(f"Operator `{op_name}` registered in backend is known as `{func_name}` in Python. "
                        f"This is a legacy operator which can only accept legacy ndarrays, while received "
                        f"an MXNet numpy ndarray. Please call `as_nd_ndarray()` upon the numpy ndarray to "
                        f"convert it to a legacy ndarray, and then feed the converted array to this operator.")


_SYMBOL_CLASS = [None]


def _set_symbol_class(cls):
    """Set the class of the Symbols ``_symbol_creator`` makes (MXNet's
    ``mxnet._ctypes.symbol._set_symbol_class``): ``cls(outputs)`` is called with the node's
    outputs, so ``cls`` is Symbol or a subclass of it."""
    _SYMBOL_CLASS[0] = cls


def _symbol_creator(handle, args, kwargs, keys, vals, name, is_np_op, output_is_list=False):
    """A node of the operator of ``handle`` (an ``NNGetOpHandle`` handle or its value) with
    attributes ``keys`` / ``vals``, composed with the input Symbols ``args`` (positional) or
    ``kwargs`` (by argument name) under ``name`` (MXNet's ``mxnet._ctypes.symbol._symbol_creator``).
    TypeError when both ``args`` and ``kwargs`` are given.  The Symbol is of the class set by
    ``_set_symbol_class`` (Symbol by default).  A NumPy operator gives a NumPy symbol,
    a list of them for several outputs or ``output_is_list``."""
    if args and kwargs:
        raise TypeError("Operators with variable length input can only accept input"
                        "Symbols either as positional or keyword arguments, not both")
    op_name = _c_api.operator_of_handle(handle)
    attrs = dict(zip(keys, vals))
    result = create(op_name, *(args or ()), **dict(kwargs or {}), **attrs, name=name)
    if _SYMBOL_CLASS[0] is not None and not is_np_op:
        result = _SYMBOL_CLASS[0](result._outputs)
    if is_np_op:
        result = result.as_np_ndarray()
        if len(result.list_outputs()) > 1:
            return list(result)
        if output_is_list:
            return [result]
    return result


def _split_keywords_code(verify, op_name, func_name, keys, vals):
    """Generated lines that split ``kwargs`` into Symbol inputs (``sym_kwargs``, each checked by
    ``verify``) and attributes (the lists named ``keys`` / ``vals``), as MXNet's generated
    symbolic functions did."""
    return f"""
    {keys} = []
    {vals} = []
    sym_kwargs = dict()
    for _k, _v in kwargs.items():
        if isinstance(_v, SymbolBase):
            sym_kwargs[_k] = _v
            {verify}('{op_name}', '{func_name}', _v)
        else:
            {keys}.append(_k)
            {vals}.append(_v)"""


def _generate_symbol_function_code(handle, op_name, func_name, signature_only=False):
    """``(code, doc)``: the Python source of the symbolic function ``func_name`` of the operator
    of ``handle``, as MXNet generated it (inputs ``name=None``, attributes ``name=_Null``,
    ``name=None``, ``attr=None``, ``out=None``, ``**kwargs``; a variadic operator takes
    ``*data``), and its docstring.  The code names the node through ``NameManager``, reads the
    ``AttrScope`` and calls ``_symbol_creator``; with ``signature_only`` the body only returns
    ``(0,)``."""
    _, desc, arg_names, arg_types, arg_descs, key_var_num_args, ret_type = _c_api.atomic_symbol_info(handle)
    doc = _build_doc(op_name, desc, arg_names, arg_types, arg_descs, key_var_num_args, ret_type)
    dtype_name, arr_name, ndarg_names, kwarg_names, signature = _c_api.split_signature(arg_names, arg_types)
    signature += ["name=None", "attr=None", "out=None", "**kwargs"]
    is_np_op, output_is_list = _is_np_op(op_name), _output_is_list(op_name)
    verify = "_verify_np_symbol" if is_np_op else "_verify_legacy_symbol"
    hint = func_name.lower()
    code = []
    if arr_name:
        code.append(f"\ndef {func_name}(*{arr_name}, **kwargs):")
        if not signature_only:
            code.append(f"""
    sym_args = []
    for i in {arr_name}:
        assert isinstance(i, SymbolBase), \\
            "Positional arguments must be Symbol instances, " \\
            "but got %s"%str(i)
        {verify}('{op_name}', '{func_name}', i)
        sym_args.append(i)""")
            if dtype_name is not None:
                code.append(f"""
    if '{dtype_name}' in kwargs:
        if _np.dtype(kwargs['{dtype_name}']).names:
            kwargs['{dtype_name}'] = _np.dtype(kwargs['{dtype_name}']).names[0]
        else:
            kwargs['{dtype_name}'] = _np.dtype(kwargs['{dtype_name}']).name""")
            code.append(f"""
    attr = kwargs.pop('attr', None)
    kwargs.update(AttrScope.current.get(attr))
    name = kwargs.pop('name', None)
    name = NameManager.current.get(name, '{hint}')
    _ = kwargs.pop('out', None)
""" + _split_keywords_code(verify, op_name, func_name, "keys", "vals"))
            if key_var_num_args:
                code.append(f"""
    if '{key_var_num_args}' not in kwargs:
        keys.append('{key_var_num_args}')
        vals.append(len(sym_args) + len(sym_kwargs))""")
            code.append(f"""
    return _symbol_creator({handle.value}, sym_args, sym_kwargs, keys, vals, name, {is_np_op}, {output_is_list})""")
    else:
        code.append(f"\ndef {func_name}({', '.join(signature)}):")
        if not signature_only:
            code.append(f"""
    kwargs.update(AttrScope.current.get(attr))""" + _split_keywords_code(verify, op_name, func_name, "_keys", "_vals"))
            for name in ndarg_names:
                code.append(f"""
    if {name} is not None:
        assert isinstance({name}, SymbolBase), \\
            "Argument {name} must be Symbol instances, but got %s"%str({name})
        sym_kwargs['{name}'] = {name}
        {verify}('{op_name}', '{func_name}', {name})""")
            code.extend(attribute_code(kwarg_names, dtype_name, is_np_op, "_keys", "_vals"))
            code.append(f"""
    name = NameManager.current.get(name, '{hint}')
    return _symbol_creator({handle.value}, None, sym_kwargs, _keys, _vals, name, {is_np_op}, {output_is_list})""")
    if signature_only:
        code.append("""
    return (0,)""")
    code.insert(1, _c_api.indent_docstring(doc))
    return "".join(code), doc


def _make_symbol_function(handle, name, func_name):
    """The symbolic function ``func_name`` of the operator of ``handle``: the code of
    ``_generate_symbol_function_code`` run in this module (MXNet's way of making ``mx.sym.X``)."""
    code, doc = _generate_symbol_function_code(handle, name, func_name)
    local = {}
    exec(code, globals(), local)  # noqa: S102  (the generated function, as MXNet made it)
    function = local[func_name]
    function.__name__ = func_name
    function.__doc__ = doc
    function.__module__ = "mxnet.symbol"
    return function
