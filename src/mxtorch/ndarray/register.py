"""Imperative front end: one ``mx.nd.<Name>`` function per registered operator."""
from __future__ import annotations

import numpy as np
import torch

from .. import recording as _recording
from ..base import MXNetError, OperatorRunError
from ..ops import registry
from .ndarray import NDArray, provide
# names MXNet 1.9.1's mxnet.ndarray.register had in its namespace from its ctypes binding
from ..base import (check_call, mx_uint, py_str)  # noqa: E402,F401
# names MXNet 1.9.1's mxnet.ndarray.register had in its namespace (imported there, not defined)
from ..base_ctypes import NDArrayBase, SymbolBase  # noqa: E402,F401
from ..util import use_np_shape  # noqa: E402,F401
from . import pending

__all__ = ["invoke", "install", "install_fluent_methods", "invoke_method",
           "OperatorNamespace"]

def install_fluent_methods(cls, call, front):
    """Give ``cls`` one method per operator declared ``fluent`` (``register(..., fluent=True)``:
    MXNet 1.9.1's list) that it does not define itself (NDArray.reshape, Symbol.flatten, ...).

    ``call(op_name, self, args, kwargs)`` runs or builds the operator; ``front`` ('mx.nd' or
    'mx.sym') only words the docstring.
    """
    for op_name in registry.fluent_operators():
        if op_name in cls.__dict__:
            continue
        setattr(cls, op_name, _fluent_method(op_name, call, front))


def _fluent_method(op_name, call, front):
    op_class = registry.get_operator(op_name)

    def method(self, *args, **kwargs):
        return call(op_name, self, args, kwargs)
    summary = (op_class.__doc__ or "").strip().split("\n\n")[0]
    method.__name__ = op_name
    method.__qualname__ = op_name
    method.__doc__ = (f"``x.{op_name}(*args, **kwargs)`` is ``{front}.{op_name}(x, *args, **kwargs)``: the "
                      f"registered operator {op_class.name!r} with this object as its first input; further "
                      f"positional values are the operator's attributes in MXNet's order.\n\n{summary}")
    return method


@provide("invoke")
def invoke(op_class, args, kwargs, result_class=None):
    """Run operator ``op_class`` on NDArrays now: positional and keyword arrays fill its
    arguments then aux states in declaration order; other keywords are attributes.
    ``out=`` receives the result in place.  Returns an NDArray or a list of them; dense
    results are of ``result_class`` when given (the NumPy front end's ``mx.np.ndarray``, a
    subclass of NDArray holding the same kind of tensor).
    """
    out = kwargs.pop("out", None)
    kwargs.pop("name", None)
    kwargs.pop("attr", None)
    for key, value in list(kwargs.items()):
        if isinstance(value, np.ndarray) and key in op_class.schema:
            # an attribute given as a NumPy array: MXNet passed ``str(value)``, so a 1-element or
            # 1-D array reads as the number or tuple it holds (``graph_sizes=sizes.asnumpy()``)
            kwargs[key] = value.tolist()
        elif isinstance(value, (np.ndarray, torch.Tensor)):
            raise MXNetError(f"Operator {op_class.name}: argument {key!r} must be an NDArray, got "
                             f"{type(value).__name__} (wrap it with mx.nd.array)")
    arrays = {key: value for key, value in kwargs.items() if isinstance(value, NDArray)}
    attrs = {key: value for key, value in kwargs.items() if not isinstance(value, NDArray)}
    for position, value in enumerate(args[0] if len(args) == 1 and isinstance(args[0], (list, tuple))
                                     and op_class.variadic else args):
        if isinstance(value, (np.ndarray, torch.Tensor)):
            raise MXNetError(f"Operator {op_class.name}: positional input {position} must be an NDArray, got "
                             f"{type(value).__name__} (wrap it with mx.nd.array)")
    given_args, given_kwargs = args, dict(kwargs)
    is_array = lambda value: isinstance(value, NDArray)  # noqa: E731
    registry.refuse_non_input_values(op_class, None, args, kwargs, is_array, "NDArray", eager=True)
    args, attrs = registry.split_call_arguments(op_class, args, attrs, lambda value: isinstance(value, NDArray),
                                                "NDArray", (SymbolBase,))
    if op_class.variadic and "num_args" in op_class.schema and "num_args" not in attrs:
        attrs["num_args"] = len(args) + len(arrays)
    try:
        op = op_class(attrs)
    except registry.OperatorSchemaError:
        # an "unknown attribute" that names an input given a non-NDArray says so instead
        registry.refuse_non_input_values(op_class, None, given_args, given_kwargs, is_array, "NDArray")
        raise
    names = op.arguments() + op.auxiliary_states()
    # None for an input means "not given" (``FullyConnected(x, w, None, no_bias=True)``), as in MXNet
    values = {key: value for key, value in zip(names, args) if value is not None}
    if len(args) > len(names):
        raise MXNetError(f"Operator {op.name}: takes {len(names)} inputs {names}, got {len(args)} positional")
    for key, value in arrays.items():
        if key not in names:
            raise MXNetError(f"Operator {op.name}: unknown input {key!r}; inputs are {names}")
        values[key] = value
    missing = [n for n in names if n not in values]
    if missing:
        raise MXNetError(f"Operator {op.name}: missing input(s) {missing}")
    for key, value in values.items():
        if not isinstance(value, NDArray):
            raise MXNetError(f"Operator {op.name}: input {key!r} must be an NDArray, got {type(value).__name__}")
    first = values[names[0]] if names else None
    ctx = first.context if first is not None else None
    if ctx is None and isinstance(getattr(op, "ctx", None), str):
        # an operator without inputs (_arange, _zeros, the samplers) lives on its ``ctx`` attribute
        from ..ops.helpers import context_of
        ctx = context_of(op.ctx)
    n_args = len(op.arguments())
    tensors = [values[n]._tensor for n in names]
    input_stypes = [values[n].stype for n in names]
    op.input_storage = input_stypes
    if op.uses_stored_parts:
        op.input_parts = [values[n]._explicit_parts() if stype != "default" else None
                          for n, stype in zip(names, input_stypes)]
    output_stypes = registry.output_storage_types(op, input_stypes)
    is_train = _recording.is_training()
    recording = _recording.is_recording()
    _check_shapes(op, names, tensors)
    # an input whose computation failed passes its pending error on (MXNet's engine)
    failure = pending.failure_of(tensors)
    try:
        with torch.set_grad_enabled(recording):
            outputs = op.apply(is_train, tensors[:n_args], tensors[n_args:])
            if recording:
                outputs = registry.attach_zero_carriers(tensors, list(outputs), op, is_train, n_args)
    except OperatorRunError as error:
        # an error of the computation itself: reported at the next wait on the outputs
        outputs = _placeholder_outputs(op, tensors, n_args, ctx)
        failure = pending.fail(error, [])
    except MXNetError:
        raise
    except (RuntimeError, IndexError, ValueError, TypeError) as error:
        shapes = {name: tuple(t.shape) for name, t in zip(names, tensors)}
        raise MXNetError(f"Operator {op.name} with inputs {shapes}: {error}") from None
    outputs = list(outputs)[:op.num_visible_outputs()]
    # as in MXNet, an imperative result owns its memory: outputs that are views of an input
    # (Flatten, Reshape, transpose, ...) are copied, so writing to them leaves the input alone
    shared = {t.untyped_storage().data_ptr() for t in tensors if t.numel()}
    outputs = [_own_memory(t, shared) for t in outputs]
    if recording:
        _recording.note_operator_call(op, tensors, outputs)   # what autograd.get_symbol rebuilds
    results = [_with_storage(t, ctx, stype, result_class) for t, stype in zip(outputs, output_stypes)]
    for result, parts in zip(results, op.output_parts or ()):
        if parts is not None and result.stype != "default":
            result._keep_parts(parts)
    if failure is not None:
        pending.mark(outputs, failure)
    if out is not None:
        targets = out if isinstance(out, (list, tuple)) else [out]
        for target, result in zip(targets, results):
            # Ellipsis: the whole array of any rank (a 0-d ``out`` included)
            target._assign(Ellipsis, result, f"Operator {op.name} (out=)")
            if failure is not None:
                pending.mark([target._tensor], failure)
        return out
    return results[0] if len(results) == 1 else results


def _with_storage(tensor, ctx, stype, result_class=None):
    """An output as an NDArray (or ``result_class``), or as the sparse array class of storage
    type ``stype``."""
    if stype == "default":
        return (result_class or NDArray)(tensor, ctx)
    from .sparse import _with_storage as sparse_array
    return sparse_array(tensor, ctx, stype)


def _placeholder_outputs(op, tensors, n_args, ctx):
    """Zeros of the inferred output shapes and dtypes: what a failed operator leaves in its
    outputs until its error is raised (MXNet left them unwritten)."""
    from .. import context as _context
    from ..ops.helpers import numpy_dtype_of
    from .ndarray import to_torch_dtype
    in_shapes = [tuple(t.shape) for t in tensors[:n_args]]
    _, out_shapes, _ = op.infer_shape(in_shapes, [None] * op.num_outputs())
    _, out_types, _ = op.infer_type([numpy_dtype_of(t) for t in tensors[:n_args]])
    device = tensors[0].device if tensors else (ctx or _context.current_context()).torch_device
    return [torch.zeros(tuple(shape or ()), dtype=to_torch_dtype(dtype or "float32"), device=device)
            for shape, dtype in zip(out_shapes, out_types)]


def _check_shapes(op, names, tensors):
    """Run the operator's shape inference on the given shapes first, as MXNet's imperative
    path did: an input whose shape disagrees with what the others imply raises MXNetError
    naming the operator, the input and both shapes (instead of a wrong result or a torch
    error from deep inside the computation)."""
    if not tensors:
        return
    n_args = len(op.arguments())
    given = [tuple(t.shape) for t in tensors]
    inferred_in, _, inferred_aux = op.infer_shape(list(given[:n_args]), [None] * op.num_outputs())
    for name, actual, inferred in zip(names, given, list(inferred_in) + list(inferred_aux or [])):
        if inferred is None:
            continue
        inferred = tuple(inferred)
        if len(inferred) != len(actual) or any(i and i != a for i, a in zip(inferred, actual)):
            raise MXNetError(f"Operator {op.name}: input {name!r} has shape {actual}, but the other inputs "
                             f"and the attributes imply {inferred}")


def _own_memory(tensor, input_storage):
    """``tensor`` itself, or a dense copy when it shares memory with an input (an integer
    result keeps its gradient carrier: ``registry.record_call``)."""
    if tensor.numel() and tensor.untyped_storage().data_ptr() in input_storage:
        return registry.keep_carrier(tensor, tensor.clone(memory_format=torch.contiguous_format))
    return tensor


def invoke_method(op_name, array, args, kwargs):
    """A fluent NDArray method: operator ``op_name`` with ``array`` as its first input."""
    return invoke(registry.get_operator(op_name), (array,) + tuple(args), kwargs)


def _make_function(op_name, op_class, result_class=None):
    def function(*args, **kwargs):
        return invoke(op_class, args, kwargs, result_class=result_class)
    function.__name__ = op_name
    function.__doc__ = (op_class.__doc__ or f"The {op_name} operator.") + \
        "\n\nImperative form: arrays as positional or keyword arguments, attributes as keywords."
    return function


def install(namespace):
    """Add a function for each registered operator name to ``namespace`` (a module dict)."""
    for op_name in registry.list_operators():
        if op_name in namespace and not getattr(namespace[op_name], "_generated", False) \
                and not op_name.startswith("_"):
            continue
        function = _make_function(op_name, registry.get_operator(op_name))
        function._generated = True
        namespace[op_name] = function


class OperatorNamespace:
    """``mx.nd.op`` / ``mx.nd._internal``: every registered operator by its name, public or
    underscore (``mx.nd.op.broadcast_add``, ``mx.nd._internal._plus_scalar``).  ``imported``
    holds the other names MXNet's module of the same name had (``mx.nd.op.CachedOp``);
    ``result_class``: the class of the results (``mx.nd.np._internal`` gives ``mx.np.ndarray``);
    ``prefix``: operators of that name prefix are reached by their short names too, first
    (``mx.nd.np._internal.hsplit`` is ``_npi_hsplit``, as in MXNet)."""

    def __init__(self, label, imported=None, result_class=None, prefix=None):
        self._label = label
        self._functions = dict(imported or {})
        self._result_class = result_class
        self._prefix = prefix

    def __getattr__(self, name):
        functions = self.__dict__.get("_functions")
        if functions is None or name.startswith("__"):
            raise AttributeError(name)
        if name not in functions:
            prefix = self.__dict__.get("_prefix")
            candidates = ([prefix + name] if prefix else []) + [name]
            for op_name in candidates:
                try:
                    op_class = registry.get_operator(op_name)
                    break
                except MXNetError:
                    continue
            else:
                raise AttributeError(f"{self._label} has no operator {name!r}")
            functions[name] = _make_function(op_name, op_class, self.__dict__.get("_result_class"))
        return functions[name]

    def __dir__(self):
        names = registry.list_operators()
        if self._prefix:
            names = names + [name[len(self._prefix):] for name in names if name.startswith(self._prefix)]
        return sorted(set(names))


# -- MXNet's generated-code front end (``mxnet.ndarray.register``'s private names) -----------------
# MXNet wrote the source of each mx.nd function from the operator's description and exec'd it;
# legacy code and tools call these helpers to build such functions themselves.  The generated
# code runs here: it calls ``_imperative_invoke`` with the operator's handle.
import numpy as _np  # noqa: E402  (the generated code's dtype handling reads it)
from ..base import _LIB, _Null, _init_op_module, _is_np_op, _output_is_list  # noqa: E402,F401
from ..ops import c_api as _c_api  # noqa: E402


def _build_doc(func_name, desc, arg_names, arg_types, arg_desc, key_var_num_args=None, ret_type=None):  # noqa: ARG001
    """The docstring of the imperative function of an operator (MXNet's
    ``mxnet.ndarray_doc._build_doc``): the description, its parameters, ``out`` and the return."""
    return _c_api.build_doc(desc, arg_names, arg_types, arg_desc, "ndarray", key_var_num_args)


def _verify_arrays(op_name, func_name, args, out, want_numpy):
    from .numpy_array import ndarray as np_ndarray
    outputs = [] if out is None else (list(out) if isinstance(out, (list, tuple)) else [out])
    for position, arr in enumerate(list(args) + outputs):
        if arr is None or isinstance(arr, np_ndarray) == want_numpy:
            continue
        role = "write to" if position >= len(args) else "accept"
        if want_numpy:
            raise TypeError(f"Operator `{op_name}` registered in backend is known as `{func_name}` in Python. "
                            f"This is a numpy operator which can only {role} MXNet numpy ndarrays, while "
                            f"received a legacy ndarray. Please ensure that you have activated numpy semantics "
                            f"by calling `npx.set_np()` in your code, or call `as_np_ndarray()` upon the legacy "
                            f"ndarray to convert it to an MXNet numpy ndarray.")
        raise TypeError(f"Operator `{op_name}` registered in backend is known as `{func_name}` in Python. "
                        f"This is a legacy operator which can only {role} legacy ndarrays, while received "
                        f"an MXNet numpy ndarray. Please call `as_nd_ndarray()` upon the numpy ndarray to "
                        f"convert it to a legacy ndarray, and then feed the converted array to this operator.")


def _verify_all_np_ndarrays(op_name, func_name, args, out):
    """TypeError naming the operator unless every array of ``args`` and ``out`` (None entries
    skipped) is an ``mx.np.ndarray``."""
    _verify_arrays(op_name, func_name, args, out, True)


def _verify_all_legacy_ndarrays(op_name, func_name, args, out):
    """TypeError naming the operator when an array of ``args`` or ``out`` is an
    ``mx.np.ndarray`` (legacy operators take ``mx.nd.NDArray``)."""
    _verify_arrays(op_name, func_name, args, out, False)


def _imperative_invoke(handle, ndargs, keys, vals, out, is_np_op, output_is_list):
    """Run the operator of ``handle`` (an ``NNGetOpHandle`` handle or its value) on the input
    arrays ``ndargs`` with attributes ``keys`` / ``vals``, writing into ``out`` when given (MXNet's
    ``mxnet._ctypes.ndarray._imperative_invoke``).  Returns ``out``, the array, or the list of
    arrays of a multi-output operator, each made by the function ``_set_ndarray_class`` set
    (``_ndarray_cls``: by storage type); NumPy operators give ``mx.np.ndarray`` results, as a
    list when ``output_is_list``."""
    op_class = registry.get_operator(_c_api.operator_of_handle(handle))
    kwargs = dict(zip(keys, vals))
    if out is not None:
        kwargs["out"] = out
    result_class = None
    if is_np_op:
        from .numpy_array import ndarray as result_class
    result = invoke(op_class, tuple(ndargs), kwargs, result_class=result_class)
    if out is not None:
        return out
    if is_np_op:
        return [result] if output_is_list and not isinstance(result, list) else result
    from .handles import wrap_output
    if isinstance(result, list):
        return [wrap_output(array) for array in result]
    return wrap_output(result)


def attribute_code(kwarg_names, dtype_name, is_np_op, keys, vals):
    """Lines of MXNet's generated operator functions (imperative and symbolic) that append the
    given attribute arguments to the lists named ``keys`` / ``vals``: each attribute not left
    at ``_Null``, and the ``dtype`` attribute as a NumPy dtype name (the first field name for a
    structured dtype, as MXNet wrote it; a NumPy-front-end operator also skips None)."""
    code = [f"""
    if {name} is not _Null:
        {keys}.append('{name}')
        {vals}.append({name})""" for name in kwarg_names]
    if dtype_name is not None and is_np_op:
        code.append(f"""
    if {dtype_name} is not _Null and {dtype_name} is not None:
        {keys}.append('{dtype_name}')
        {vals}.append(_np.dtype({dtype_name}).name)""")
    elif dtype_name is not None:
        code.append(f"""
    if {dtype_name} is not _Null:
        {keys}.append('{dtype_name}')
        if _np.dtype({dtype_name}).names:
            {vals}.append(_np.dtype({dtype_name}).names[0])
        else:
            {vals}.append(_np.dtype({dtype_name}).name)""")
    return code


def _generate_ndarray_function_code(handle, op_name, func_name, signature_only=False):
    """``(code, doc)``: the Python source of the imperative function ``func_name`` of the
    operator of ``handle``, as MXNet generated it (inputs ``name=None``, attributes
    ``name=_Null``, ``out=None``, ``name=None``, ``**kwargs``; a variadic operator takes
    ``*data``), and its docstring.  The code calls ``_imperative_invoke`` with the handle;
    with ``signature_only`` the body only returns ``(0,)`` (the stubs of
    ``base._generate_op_module_signature``)."""
    _, desc, arg_names, arg_types, arg_descs, key_var_num_args, ret_type = _c_api.atomic_symbol_info(handle)
    doc = _build_doc(op_name, desc, arg_names, arg_types, arg_descs, key_var_num_args, ret_type)
    dtype_name, arr_name, ndarg_names, kwarg_names, signature = _c_api.split_signature(arg_names, arg_types)
    signature += ["out=None", "name=None", "**kwargs"]
    is_np_op, output_is_list = _is_np_op(op_name), _output_is_list(op_name)
    code = []
    if arr_name:
        code.append(f"\ndef {func_name}(*{arr_name}, **kwargs):")
        if not signature_only:
            code.append(f"""
    ndargs = []
    for i in {arr_name}:
        assert isinstance(i, NDArrayBase), \\
            "Positional arguments must have NDArray type, " \\
            "but got %s"%str(i)
        ndargs.append(i)""")
            if dtype_name is not None:
                code.append(f"""
    if '{dtype_name}' in kwargs:
        if _np.dtype(kwargs['{dtype_name}']).names:
            kwargs['{dtype_name}'] = _np.dtype(kwargs['{dtype_name}']).names[0]
        else:
            kwargs['{dtype_name}'] = _np.dtype(kwargs['{dtype_name}']).name""")
            code.append("""
    _ = kwargs.pop('name', None)
    out = kwargs.pop('out', None)
    keys = list(kwargs.keys())
    vals = list(kwargs.values())""")
    else:
        code.append(f"\ndef {func_name}({', '.join(signature)}):")
        if not signature_only:
            code.append("""
    ndargs = []
    keys = list(kwargs.keys())
    vals = list(kwargs.values())""")
            for name in ndarg_names:
                code.append(f"""
    if {name} is not None:
        assert isinstance({name}, NDArrayBase), \\
            "Argument {name} must have NDArray type, but got %s"%str({name})
        ndargs.append({name})""")
            code.extend(attribute_code(kwarg_names, dtype_name, is_np_op, "keys", "vals"))
    if signature_only:
        code.append("""
    return (0,)""")
    else:
        verify = "_verify_all_np_ndarrays" if is_np_op else "_verify_all_legacy_ndarrays"
        code.append(f"""
    {verify}("{op_name}", "{func_name}", ndargs, out)
    return _imperative_invoke({handle.value}, ndargs, keys, vals, out, {is_np_op}, {output_is_list})""")
    code.insert(2 if is_np_op else 1, _c_api.indent_docstring(doc))
    return "".join(code), doc


def _make_ndarray_function(handle, name, func_name):
    """The imperative function ``func_name`` of the operator of ``handle``: the code of
    ``_generate_ndarray_function_code`` run in this module (MXNet's way of making ``mx.nd.X``)."""
    code, doc = _generate_ndarray_function_code(handle, name, func_name)
    local = {}
    exec(code, globals(), local)  # noqa: S102  (the generated function, as MXNet made it)
    function = local[func_name]
    function.__name__ = func_name
    function.__doc__ = doc
    function.__module__ = "mxnet.ndarray"
    return function
