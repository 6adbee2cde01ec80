"""``mx.contrib.amp``: automatic mixed precision (MXNet 1.9.1's ``mxnet.contrib.amp.amp``).

- ``init(target_dtype)`` wraps the operator functions of ``mx.sym`` and ``mx.nd`` as MXNet does:
  the low-precision list casts the floating inputs to ``target_dtype`` (a Symbol's inputs, apart
  from its auxiliary states, get ``amp_cast`` nodes), the float32 list and the matching
  conditional entries to float32, the widest-type list to the widest type among the inputs
  (``amp_multicast`` for symbols); the NDArray loss heads (``SoftmaxOutput`` ...) get their
  ``grad_scale`` multiplied by the loss scale (the symbolic ones log that they cannot).
- ``init_trainer`` / ``scale_loss`` / ``unscale``: dynamic loss scaling for a Gluon Trainer; the
  Trainer asks the scaler before each update and skips the update when a gradient overflowed
  (``LossScaler``).  A plain Optimizer raises TypeError, as in MXNet 1.9.1.
- ``convert_symbol`` / ``convert_model`` / ``convert_hybrid_block`` / ``convert_bucketing_module``
  rewrite a float32 graph with MXNet's ReducePrecision pass (``reduce_precision.py``) and cast the
  parameters to the dtypes the pass gives them.

The operator lists are MXNet's, in ``mx.contrib.amp.lists`` (``list_lp16_ops`` and friends).
"""
from __future__ import annotations

import contextlib
import logging

import numpy as np

from ... import ndarray
from ... import symbol
from ...base import MXNetError, dtype_from_flag
from ...context import gpu
from ...gluon import HybridBlock, SymbolBlock, trainer
from ...module import BucketingModule, Module
from ...ndarray.ndarray import NDArray
from ... import optimizer as opt
from ...symbol import Symbol
from ...symbol.graph import Node
from . import lists
from .loss_scaler import LossScaler
from .reduce_precision import numpy_target, reduce_precision

__all__ = ["init", "init_trainer", "scale_loss", "unscale", "convert_model", "convert_hybrid_block",
           "list_lp16_ops", "list_fp32_ops", "list_lp16_fp32_ops", "list_conditional_fp32_ops",
           "list_widest_type_cast", "list_loss_output_functions", "list_lp16_use_fp32_params", "convert_symbol"]

_amp_initialized = False
_amp_loss_scale_initialized = False
_loss_scaler = None


class AMPAssertionError(MXNetError, AssertionError):
    """A rejected argument (MXNet asserted: an AssertionError, also an MXNetError)."""


def _check(condition, message):
    if not condition:
        raise AMPAssertionError(message)


def _target_name(target_dtype):
    """'float16' or 'bfloat16' for the names / dtypes MXNet accepts; None for anything else."""
    if isinstance(target_dtype, str):
        return target_dtype if target_dtype in ("float16", "bfloat16") else None
    try:
        dtype = np.dtype(target_dtype)
    except TypeError:
        return None
    if dtype == numpy_target("bfloat16"):
        return "bfloat16"
    return "float16" if dtype == np.float16 else None


def _lists(target_dtype):
    name = _target_name(target_dtype)
    _check(name is not None, "not supported type")
    return lists.symbol_fp16 if name == "float16" else lists.symbol_bf16


def list_lp16_ops(target_dtype):
    """Operators AMP runs in ``target_dtype`` ('float16' or bfloat16)."""
    module = _lists(target_dtype)
    return module.FP16_FUNCS if module is lists.symbol_fp16 else module.BF16_FUNCS


def list_fp32_ops(target_dtype):
    """Operators AMP runs in float32."""
    return _lists(target_dtype).FP32_FUNCS


def list_lp16_fp32_ops(target_dtype):
    """Operators that run in the type of their inputs."""
    module = _lists(target_dtype)
    return module.FP16_FP32_FUNCS if module is lists.symbol_fp16 else module.BF16_FP32_FUNCS


def list_conditional_fp32_ops(target_dtype):
    """``(operator, attribute, values)``: float32 when the attribute has one of the values."""
    return _lists(target_dtype).CONDITIONAL_FP32_FUNCS


def list_widest_type_cast(target_dtype):
    """Operators whose inputs are cast to the widest floating type among them."""
    return _lists(target_dtype).WIDEST_TYPE_CASTS


def list_loss_output_functions(target_dtype):
    """The loss heads whose ``grad_scale`` dynamic loss scaling multiplies."""
    return _lists(target_dtype).LOSS_OUTPUT_FUNCTIONS


def list_lp16_use_fp32_params(target_dtype):
    """``{operator: input names kept in float32}`` under bfloat16; None for float16."""
    module = _lists(target_dtype)
    return None if module is lists.symbol_fp16 else module.BF16_USE_FP32_PARAMS


# -- init(): wrap the operator functions -------------------------------------------------------
def _cast_symbol_NDArray(s, dtype):
    """``s`` cast to ``dtype`` for a low-precision / float32 operator (MXNet's rule: a Symbol
    always gets an ``amp_cast``; an NDArray on the CPU is cast from float32 / bfloat16, on a GPU
    from float32 / float16; anything else is returned as it is)."""
    if isinstance(s, Symbol):
        return symbol.amp_cast(s, dtype=dtype)
    if isinstance(s, NDArray):
        castable = ("float32", "bfloat16") if s.context.device_type == "cpu" else ("float32", "float16")
        if _dtype_label(s.dtype) != _dtype_label(dtype) and _dtype_label(s.dtype) in castable:
            return ndarray.amp_cast(s, dtype=dtype)
    return s


def _dtype_label(dtype):
    dtype = np.dtype(dtype) if not isinstance(dtype, str) else dtype
    if isinstance(dtype, str):
        return dtype
    return "bfloat16" if dtype == numpy_target("bfloat16") else dtype.name


def _described_as(wrapper, function):
    wrapper.__name__ = function.__name__
    wrapper.__module__ = function.__module__
    wrapper.__doc__ = function.__doc__
    wrapper._amp_original = function
    return wrapper


def _ndarray_wrapper(function, target_dtype, fp32_param=None, cond_arg=None):
    def wrapped(*args, **kwargs):
        if cond_arg is not None and (cond_arg[0] not in kwargs or kwargs[cond_arg[0]] not in cond_arg[1]):
            return function(*args, **kwargs)
        if fp32_param:
            args = tuple(x if position < len(fp32_param) and fp32_param[position] else
                         _cast_symbol_NDArray(x, target_dtype) for position, x in enumerate(args))
            kwargs = {k: v if k in fp32_param else _cast_symbol_NDArray(v, target_dtype) for k, v in kwargs.items()}
        else:
            args = tuple(_cast_symbol_NDArray(x, target_dtype) for x in args)
            kwargs = {k: _cast_symbol_NDArray(v, target_dtype) for k, v in kwargs.items()}
        return function(*args, **kwargs)
    return _described_as(wrapped, function)


def _symbol_wrapper(function, target_dtype, fp32_param=None, cond_arg=None):
    def wrapped(*args, **kwargs):
        if cond_arg is not None and (cond_arg[0] not in kwargs or kwargs[cond_arg[0]] not in cond_arg[1]):
            return function(*args, **kwargs)
        sym = function(*args, **kwargs)
        children = sym.get_children()
        inputs = [children[i] for i in range(len(children.list_outputs()))] if children is not None else []
        aux = sym.list_auxiliary_states()
        inputs = [x if x.name in aux or (fp32_param and position < len(fp32_param) and fp32_param[position])
                  else _cast_symbol_NDArray(x, target_dtype) for position, x in enumerate(inputs)]
        return _recomposed(sym, inputs)
    return _described_as(wrapped, function)


def _recomposed(sym, inputs):
    """``sym``'s operator node (same name and attributes) applied to ``inputs`` (MXNet composed
    ``sym._gen_atomic_symbol()`` with them and set the name back)."""
    node = sym._outputs[0][0]
    copy = Node(node.op, node.name, node.attrs, [inp._outputs[0] for inp in inputs])
    return Symbol([(copy, index) for _, index in sym._outputs])


def _widest_wrapper(function, target_dtype):
    def wrapped(*args, **kwargs):
        args = list(args)
        found = [(args, i, a) for i, a in enumerate(args) if isinstance(a, (Symbol, NDArray))]
        found += [(kwargs, k, a) for k, a in kwargs.items() if isinstance(a, (Symbol, NDArray))]
        if not any(isinstance(a, Symbol) for _, _, a in found):
            widest = "float32" if any(_dtype_label(a.dtype) == "float32" for _, _, a in found) \
                else _dtype_label(target_dtype)
            for holder, key, value in found:
                if _dtype_label(value.dtype) != widest and _dtype_label(value.dtype) == _dtype_label(target_dtype):
                    holder[key] = ndarray.amp_cast(value, dtype=widest)
        elif found:
            casts = symbol.amp_multicast(*[a for _, _, a in found], num_outputs=len(found))
            for position, (holder, key, _) in enumerate(found):
                holder[key] = casts[position]
        return function(*args, **kwargs)
    return _described_as(wrapped, function)


def _function_home(name, module):
    """``(attribute name, namespace)`` of operator ``name`` in ``module`` (mx.sym or mx.nd), as
    MXNet's ``_get_fun_to_wrap``: ``_contrib_X`` is ``contrib.X``, other ``_`` names live in
    ``_internal``; None where mxtorch has no such function."""
    for prefix in ("_contrib_", "_linalg_", "_sparse_", "_image_", "_random_"):
        if name.startswith(prefix) and not (prefix == "_random_" and not name.endswith("_like")):
            home = getattr(module, prefix[1:-1], None)
            return (name[len(prefix):], home) if home is not None and hasattr(home, name[len(prefix):]) else None
    home = getattr(module, "_internal", None) if name.startswith("_") else module
    return (name, home) if home is not None and callable(getattr(home, name, None)) else None


def _wrap_functions(module, target_dtype, target_precision_ops=None, conditional_fp32_ops=None, fp32_ops=None):
    wrapper = _symbol_wrapper if module is symbol else _ndarray_wrapper
    fp32_params = list_lp16_use_fp32_params(target_dtype) or {}

    def install(name, make):
        found = _function_home(name, module)
        if found is None:
            return   # an operator of MXNet's lists that mxtorch does not have
        attribute, home = found
        function = getattr(home, attribute)
        setattr(home, attribute, make(function))
        if home is module and hasattr(module, "op"):
            setattr(module.op, attribute, make(function))

    for name in (target_precision_ops if target_precision_ops is not None else list_lp16_ops(target_dtype)):
        install(name, lambda f, n=name: wrapper(f, target_dtype, fp32_param=fp32_params.get(n)))
    for name in (fp32_ops if fp32_ops is not None else list_fp32_ops(target_dtype)):
        install(name, lambda f: wrapper(f, np.float32))
    for name, attribute, values in (conditional_fp32_ops if conditional_fp32_ops is not None
                                    else list_conditional_fp32_ops(target_dtype)):
        install(name, lambda f, a=attribute, v=values: wrapper(f, np.float32, cond_arg=(a, v)))
    for name in list_widest_type_cast(target_dtype):
        install(name, lambda f: _widest_wrapper(f, target_dtype))


def _wrap_loss_output_functions(module, scaler, target_dtype):
    for name in list_loss_output_functions(target_dtype):
        function = getattr(module, name, None)
        if function is None:
            continue
        if module is ndarray:
            def wrapped(*args, _function=function, **kwargs):
                kwargs["grad_scale"] = kwargs.get("grad_scale", 1.0) * scaler.loss_scale
                return _function(*args, **kwargs)
        else:
            def wrapped(*args, _function=function, **kwargs):
                logging.warning("%s does not support dynamic loss scaling in symbolic and hybridized execution.",
                                _function.__name__)
                return _function(*args, **kwargs)
        setattr(module, name, _described_as(wrapped, function))


def init(target_dtype="float16", target_precision_ops=None, conditional_fp32_ops=None, fp32_ops=None):
    """Turn AMP on for the graphs and arrays created afterwards (MXNet's ``amp.init``; a second
    call does nothing).  ``target_precision_ops`` / ``fp32_ops`` / ``conditional_fp32_ops``
    replace the default lists.  Creates the loss scaler the first ``init_trainer`` hands out.
    A target other than float16 / bfloat16 raises AssertionError (also an MXNetError)."""
    global _amp_initialized, _loss_scaler
    if _amp_initialized:
        return
    name = _target_name(target_dtype)
    _check(name is not None, "AMP currently supports only float16 or bfloat16 as a target_dtype")
    _amp_initialized = True
    logging.info("Using AMP")
    target = numpy_target(name)
    _wrap_functions(symbol, target, target_precision_ops, conditional_fp32_ops, fp32_ops)
    _wrap_functions(ndarray, target, target_precision_ops, conditional_fp32_ops, fp32_ops)
    _loss_scaler = LossScaler()
    _wrap_loss_output_functions(ndarray, _loss_scaler, target)
    _wrap_loss_output_functions(symbol, _loss_scaler, target)


# -- dynamic loss scaling ----------------------------------------------------------------------
def _check_trainer(optimizer_or_trainer):
    if isinstance(optimizer_or_trainer, trainer.Trainer):
        return
    if isinstance(optimizer_or_trainer, opt.Optimizer):
        raise TypeError("AMP is currently only compatible with Gluon Trainer")
    raise TypeError(f"optimizer_or_trainer should be a Gluon Trainer or an optimizer, instead is "
                    f"{type(optimizer_or_trainer)}")


def init_trainer(optimizer_or_trainer):
    """Attach dynamic loss scaling to a Gluon Trainer: the first trainer gets the scaler ``init``
    made, later ones a new one each.  Needs ``init()`` first (AssertionError otherwise)."""
    global _amp_loss_scale_initialized
    assert _amp_initialized, "AMP not initialized, did you forget to call amp.init()?"
    if not _amp_loss_scale_initialized:
        _amp_loss_scale_initialized = True
        scaler = _loss_scaler
    else:
        scaler = LossScaler()
    _check_trainer(optimizer_or_trainer)
    optimizer_or_trainer._amp_loss_scaler = scaler
    optimizer_or_trainer._amp_original_scale = optimizer_or_trainer._scale


@contextlib.contextmanager
def scale_loss(loss, optimizer_or_trainer):
    """Yield ``loss`` (or each of a list of losses) times the current loss scale, and set the
    trainer's gradient scale to ``original / loss_scale`` so that the update sees unscaled
    gradients."""
    scaler = getattr(optimizer_or_trainer, "_amp_loss_scaler", None)
    assert scaler is not None, "Loss scaler is not initialized, did you forget to call amp.init_trainer()?"
    optimizer_or_trainer._scale = optimizer_or_trainer._amp_original_scale / scaler.loss_scale
    if isinstance(loss, (list, tuple)):
        yield [item * scaler.loss_scale for item in loss]
    else:
        yield scaler.loss_scale * loss


def unscale(optimizer_or_trainer):
    """Multiply the trainer's gradients by its ``_scale`` now and set ``_scale`` to 1 (to read or
    clip true gradients before the update)."""
    _check_trainer(optimizer_or_trainer)
    for param in optimizer_or_trainer._params:
        for grad in (param._grad or ()):
            grad[:] *= optimizer_or_trainer._scale
    optimizer_or_trainer._scale = 1.0


# -- converting float32 graphs -----------------------------------------------------------------
class _Policy:
    """The operator lists of one conversion, checked as MXNet checks them."""

    def __init__(self, target_dtype, target_dtype_ops, fp32_ops, conditional_fp32_ops, excluded_sym_names):
        _check(target_dtype in ("float16", "bfloat16"), "Only target_dtype float16 and bfloat16 are supported currently")
        self.target = target_dtype
        for given, what in ((target_dtype_ops, "target_dtype_ops should be a list of strs"),
                            (fp32_ops, "fp32_ops should be a list of strs"),
                            (conditional_fp32_ops, "conditional_fp32_ops should be a list"),
                            (excluded_sym_names, "excluded_sym_names should be a list of strs")):
            _check(given is None or isinstance(given, list), what)
        low = list(target_dtype_ops) if target_dtype_ops is not None else list(list_lp16_ops(target_dtype))
        fp32 = list(fp32_ops) if fp32_ops is not None else list(list_fp32_ops(target_dtype))
        conditional = list(conditional_fp32_ops) if conditional_fp32_ops is not None \
            else list(list_conditional_fp32_ops(target_dtype))
        for entry in conditional:
            _check(isinstance(entry[0], str) and isinstance(entry[1], str) and isinstance(entry[2], list),
                   "conditional_fp32_ops should be a list of (str, str, list of str)")
        conditional_names = [entry[0] for entry in conditional]
        for first, second, label in ((low, fp32, "target_dtype_ops and fp32_ops"),
                                     (low, conditional_names, "target_dtype_ops and conditional_fp32_ops"),
                                     (conditional_names, fp32, "fp32_ops and conditional_fp32_ops")):
            common = set(first) & set(second)
            _check(not common, f"Ops cannot be in two or more lists. Common ops in {label} {common}")
        known = set(list_lp16_ops(target_dtype)) | set(list_fp32_ops(target_dtype)) | \
            set(list_lp16_fp32_ops(target_dtype)) | {e[0] for e in list_conditional_fp32_ops(target_dtype)}
        illegal = set(low + fp32 + conditional_names) - known
        _check(not illegal, f"Can only choose ops from one of the three lists for lp16_ops and fp32_ops: "
                            f"amp.list_lp16_ops, amp.list_fp32_ops, amp.list_lp16_fp32_ops, "
                            f"amp.list_conditional_fp32_ops; Op {illegal} not in any of them")
        self.low_ops = set(low)
        self.fp32_ops = set(fp32)
        self.widest_ops = set(list_widest_type_cast(target_dtype))
        self.excluded = set(excluded_sym_names or ())
        self.conditional = {}
        for name, attribute, values in conditional:
            self.conditional.setdefault(name, {}).setdefault(attribute, []).extend(str(v) for v in values)

    def conditional_match(self, op_name, node):
        """Whether ``node`` (operator ``op_name``) matches a conditional float32 entry."""
        if node.name in self.excluded:
            return False
        for attribute, values in self.conditional.get(op_name, {}).items():
            if attribute in node.attrs and str(node.attrs[attribute]) in values:
                return True
        return False


def convert_symbol(sym, target_dtype="float16", target_dtype_ops=None, fp32_ops=None, conditional_fp32_ops=None,
                   excluded_sym_names=None, data_names=None, cast_optional_params=False):
    """``sym`` (a float32 graph) with ``amp_cast`` / ``amp_multicast`` nodes where MXNet 1.9.1's
    ReducePrecision pass puts them (see ``reduce_precision.py``).  ``data_names``: the inputs
    that are data (default: the inputs without a ``__dtype__`` attribute); the others are model
    parameters and get ``__dtype__`` attributes with their dtype after conversion.  With
    ``cast_optional_params`` parameters read by low-precision operators get no cast (the
    parameters are to be stored in the target dtype, see ``convert_model``).
    Wrong arguments raise AssertionError (also an MXNetError), as MXNet asserted."""
    _check(isinstance(sym, Symbol), "First argument to convert_symbol should be Symbol")
    policy = _Policy(target_dtype, target_dtype_ops, fp32_ops, conditional_fp32_ops, excluded_sym_names)
    attrs = sym.attr_dict()
    if data_names is None:
        data_names = [name for name in sym.list_inputs() if "__dtype__" not in attrs.get(name, {})]
    model_param_names = sorted(set(sym.list_inputs()) - set(data_names))
    return reduce_precision(sym, policy, data_names, model_param_names, cast_optional_params)


def _cast_to_declared(converted, names, params):
    """Cast each of ``params`` to the dtype of its variable's ``__dtype__`` attribute."""
    attrs = converted.attr_dict()
    for name in names:
        declared = attrs.get(name, {}).get("__dtype__")
        if name in params and declared is not None and declared != "-1":
            dtype = dtype_from_flag(int(declared))
            if _dtype_label(params[name].dtype) != _dtype_label(dtype):
                params[name] = params[name].astype(dtype)


def convert_model(sym, arg_params, aux_params, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                  conditional_fp32_ops=None, excluded_sym_names=None, cast_optional_params=False):
    """``(symbol, arg_params, aux_params)`` converted for mixed precision (MXNet's
    ``amp.convert_model``): the symbol from ``convert_symbol`` with the parameters as model
    parameters, each parameter cast to the dtype the conversion gave it (the target dtype for
    those read only by low-precision operators when ``cast_optional_params``).  The given dicts
    are updated in place and returned, as in MXNet."""
    _check(target_dtype in ("float16", "bfloat16"), "Only target_dtype float16 and bfloat16 are supported currently")
    _check(isinstance(sym, Symbol), "First argument to convert_model should be Symbol")
    _check(isinstance(arg_params, dict), "Second argument to convert_model should be a dict of name to ndarray")
    _check(isinstance(aux_params, dict), "Third argument to convert_model should be a dict of name to ndarray")
    param_names = list(arg_params) + list(aux_params)
    data_names = [name for name in sym.list_inputs() if name not in set(param_names)]
    converted = convert_symbol(sym, target_dtype, target_dtype_ops, fp32_ops, conditional_fp32_ops,
                               excluded_sym_names, data_names, cast_optional_params)
    _cast_to_declared(converted, converted.list_arguments(), arg_params)
    _cast_to_declared(converted, converted.list_auxiliary_states(), aux_params)
    return converted, arg_params, aux_params


def convert_hybrid_block(block, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                         conditional_fp32_ops=None, excluded_sym_names=None, ctx=None, cast_optional_params=False):
    """A SymbolBlock computing ``block`` (a hybridized HybridBlock that has run forward once) in
    mixed precision (MXNet's ``amp.convert_hybrid_block``): its cached graph converted by
    ``convert_symbol`` with the block's inputs as data, its parameters cast to the dtypes the
    conversion gave them and loaded on ``ctx`` (MXNet's default: ``gpu(0)``).
    RuntimeError if the block has no cached graph yet."""
    assert isinstance(block, HybridBlock), "block input should be a HybridBlock"
    if not block._cached_graph:
        raise RuntimeError("Please first call block.hybridize() and then run forward with this block at least "
                           "once before calling export.")
    inputs, sym = block._cached_graph
    converted = convert_symbol(sym, target_dtype, target_dtype_ops, fp32_ops, conditional_fp32_ops,
                               excluded_sym_names, data_names=[inp.name for inp in inputs],
                               cast_optional_params=cast_optional_params)
    arg_names = set(converted.list_arguments())
    values = {}
    for name, param in block.collect_params().items():
        values[name] = param._reduce()
    _cast_to_declared(converted, sorted(values), values)
    result = SymbolBlock(converted, inputs)
    loaded = {}
    for name, param in result.collect_params().items():
        if name in values:
            if _dtype_label(param.dtype) != _dtype_label(values[name].dtype):
                param.cast(values[name].dtype)
            loaded[("arg:" if name in arg_names else "aux:") + name] = values[name]
    result.collect_params().load_dict(loaded, ctx=ctx if ctx is not None else gpu(0))
    return result


def convert_bucketing_module(bucketing_mod, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                             conditional_fp32_ops=None, excluded_sym_names=None, cast_optional_params=False):
    """A new BucketingModule holding ``bucketing_mod``'s buckets converted by ``convert_model``
    and its parameters cast accordingly (MXNet's ``convert_bucketing_module``, built as its
    ``BucketingModule.load_dict`` builds one: unbound modules, parameters initialised)."""
    assert isinstance(bucketing_mod, BucketingModule), "module should be instance of bucketing module"
    assert len(bucketing_mod._buckets) > 0, "Bucketing Module should not be empty"
    assert bucketing_mod.params_initialized, \
        "bucketing_mod params should be initialized for mixed precision conversion"
    arg_params, aux_params = bucketing_mod._curr_module._arg_params, bucketing_mod._curr_module._aux_params
    symbols = {}
    for key, module in bucketing_mod._buckets.items():
        symbols[key], arg_params, aux_params = convert_model(
            module._symbol, arg_params, aux_params, target_dtype=target_dtype, target_dtype_ops=target_dtype_ops,
            fp32_ops=fp32_ops, conditional_fp32_ops=conditional_fp32_ops, excluded_sym_names=excluded_sym_names,
            cast_optional_params=cast_optional_params)
    options = dict(logger=bucketing_mod.logger, context=bucketing_mod._context,
                   work_load_list=bucketing_mod._work_load_list, fixed_param_names=bucketing_mod._fixed_param_names,
                   state_names=bucketing_mod._state_names, group2ctxs=bucketing_mod._group2ctxs,
                   compression_params=bucketing_mod._compression_params)
    result = BucketingModule(bucketing_mod._sym_gen, bucketing_mod._default_bucket_key, **options)
    _, data_names, label_names = bucketing_mod._sym_gen(bucketing_mod._default_bucket_key)
    for key, converted in symbols.items():
        result._buckets[key] = Module(converted, data_names, label_names, **options)
        if key == bucketing_mod._default_bucket_key:
            result._curr_module = result._buckets[key]
    result._curr_module._arg_params = arg_params
    result._curr_module._aux_params = aux_params
    result._curr_module.params_initialized = True
    result._arg_params, result._aux_params = arg_params, aux_params
    result.params_initialized = True
    return result

# names MXNet 1.9.1's mxnet.contrib.amp.amp had in its namespace (imported there, not defined)
from array import array  # noqa: E402,F401
from ...base import BFLOAT16 as bfloat16  # noqa: E402,F401
from ...base import (SymbolHandle, c_array_buf, c_str_array, check_call, mx_uint)  # noqa: E402,F401

# the C library object MXNet's module held (``from .base import _LIB``; see base_ctypes._CLibrary)
from ...base_ctypes import _LIB  # noqa: E402,F401
