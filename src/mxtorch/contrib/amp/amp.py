"""``mx.contrib.amp``: automatic mixed precision for Symbol / NDArray / Module code.

Mixed precision is expressed with the registered ``amp_cast`` / ``amp_multicast`` operators,
so it runs wherever the graph runs (on CPU the casts are plain dtype conversions):

- ``init(target_dtype)`` wraps the operator functions of ``mx.sym`` and ``mx.nd`` so that
  operators of the low-precision list get their floating inputs cast to ``target_dtype``, the
  float32 list to float32, and the widest-type list a common type (MXNet's ``amp.init``);
- ``convert_symbol`` / ``convert_model`` / ``convert_bucketing_module`` rewrite an existing
  graph the same way, inserting ``amp_cast`` nodes named ``<entry>_amp_cast_<dtype>``
  (``remove_amp_cast=True``, the default of ``tojson`` / ``save_checkpoint``, drops them again);
- ``scale_loss`` / ``init_trainer`` / ``unscale`` implement dynamic loss scaling for an object
  with a Gluon Trainer's ``_scale`` and ``_params``; as in MXNet 1.9.1 a plain Optimizer raises
  TypeError.

The operator lists are in ``mx.contrib.amp.lists`` (``list_lp16_ops`` and friends return them).
"""
from __future__ import annotations

import contextlib
import functools
import logging

import numpy as np

from ... import ndarray as _nd
from ... import symbol as _sym
from ...base import MXNetError
from .lists import symbol_bf16, symbol_fp16
from .loss_scaler import LossScaler
from ...module.bucketing_module import BucketingModule
from ...ops.registry import get_operator
from ...optimizer import Optimizer
from ...symbol.symbol import Node, Symbol, topological_order
# names MXNet 1.9.1's mxnet.contrib.amp.amp had in its namespace from its ctypes binding
from ...base import (SymbolHandle, c_array_buf, c_str_array, check_call, mx_uint)  # noqa: E402,F401

__all__ = ["init", "init_trainer", "scale_loss", "unscale", "convert_symbol", "convert_model",
           "convert_hybrid_block", "convert_bucketing_module", "list_lp16_ops", "list_fp32_ops",
           "list_lp16_fp32_ops", "list_conditional_fp32_ops", "list_widest_type_cast",
           "list_loss_output_functions", "list_lp16_use_fp32_params"]

_amp_initialized = False
_amp_loss_scale_initialized = False
_loss_scaler = None


def _dtype_name(target_dtype):
    """'float16' or 'bfloat16' from a name or numpy dtype; MXNetError for anything else."""
    name = target_dtype if isinstance(target_dtype, str) else getattr(target_dtype, "__name__", None)
    if not isinstance(target_dtype, str):
        try:
            name = np.dtype(target_dtype).name
        except TypeError:
            pass
    if name not in ("float16", "bfloat16"):
        raise MXNetError(f"amp: target_dtype must be 'float16' or 'bfloat16', got {target_dtype!r}")
    return name


def _lists(target_dtype):
    return symbol_fp16 if _dtype_name(target_dtype) == "float16" else symbol_bf16


def list_lp16_ops(target_dtype):
    """Operators AMP runs in ``target_dtype`` ('float16' or 'bfloat16')."""
    lists = _lists(target_dtype)
    return list(lists.FP16_FUNCS if lists is symbol_fp16 else lists.BF16_FUNCS)


def list_fp32_ops(target_dtype):
    """Operators AMP keeps in float32."""
    return list(_lists(target_dtype).FP32_FUNCS)


def list_lp16_fp32_ops(target_dtype):
    """Operators that run in the type of their inputs."""
    lists = _lists(target_dtype)
    return list(lists.FP16_FP32_FUNCS if lists is symbol_fp16 else lists.BF16_FP32_FUNCS)


def list_conditional_fp32_ops(target_dtype):
    """``(operator, attribute, values)`` triples: float32 when the attribute has one of the values."""
    return list(_lists(target_dtype).CONDITIONAL_FP32_FUNCS)


def list_widest_type_cast(target_dtype):
    """Operators whose inputs are cast to the widest floating type among them."""
    return list(_lists(target_dtype).WIDEST_TYPE_CASTS)


def list_loss_output_functions(target_dtype):
    """The ``*Output`` loss heads whose ``grad_scale`` dynamic loss scaling multiplies."""
    return list(_lists(target_dtype).LOSS_OUTPUT_FUNCTIONS)


def list_lp16_use_fp32_params(target_dtype):
    """``{operator: parameter names}`` kept in float32 under bfloat16 (None for float16)."""
    if _dtype_name(target_dtype) == "float16":
        return None
    return dict(symbol_bf16.BF16_USE_FP32_PARAMS)


class _Policy:
    """Which dtype each operator's inputs get: 'low' (target), 'fp32', 'widest' or None (keep)."""

    def __init__(self, target_dtype, target_precision_ops=None, conditional_fp32_ops=None, fp32_ops=None,
                 excluded_sym_names=None):
        self.target = _dtype_name(target_dtype)
        self.low_ops = set(target_precision_ops if target_precision_ops is not None
                           else list_lp16_ops(self.target))
        self.fp32_ops = set(fp32_ops if fp32_ops is not None else list_fp32_ops(self.target))
        self.conditional = list(conditional_fp32_ops if conditional_fp32_ops is not None
                                else list_conditional_fp32_ops(self.target))
        self.widest_ops = set(list_widest_type_cast(self.target))
        self.passthrough_ops = set(list_lp16_fp32_ops(self.target))
        self.excluded = set(excluded_sym_names or ())
        both = self.low_ops & self.fp32_ops
        if both:
            raise MXNetError(f"amp: operators {sorted(both)} are in both the {self.target} and the float32 lists")

    def category(self, op_name, attrs, node_name=None):
        if node_name is not None and node_name in self.excluded:
            return None     # left exactly as it is (MXNet inserts no cast around it)
        for name, attribute, values in self.conditional:
            if name == op_name and str(attrs.get(attribute)) in [str(v) for v in values]:
                return "fp32"
        if op_name in self.low_ops:
            return "low"
        if op_name in self.fp32_ops:
            return "fp32"
        if op_name in self.widest_ops:
            return "widest"
        if op_name in self.passthrough_ops:
            return None
        return "fp32"


# -- the graph pass ---------------------------------------------------------------------------
def _rewrite(sym, policy, stored_low=()):
    """A copy of ``sym`` with ``amp_cast`` / ``amp_multicast`` nodes inserted by ``policy``.

    Types are tracked per entry: a variable's type is unknown (it is cast whenever an operator
    needs a definite type), an operator's output has the type its category gives it.
    Variables named in ``stored_low`` already hold the target dtype: they get no cast to it.
    Returns ``(symbol, {variable name: set of dtypes it is cast to})``.
    """
    copies = {}
    entry_type = {}
    cast_cache = {}
    variable_casts = {}

    def entry_name(node, index):
        if node.op is None:
            return node.name
        return node.output_names()[index]

    def cast(entry, dtype):
        node, index = entry
        if node.op is None and node.name in stored_low and dtype == policy.target:
            return entry
        key = (id(node), index, dtype)
        if key not in cast_cache:
            op = get_operator("amp_cast")({"dtype": dtype})
            cast_node = Node(op, f"{entry_name(node, index)}_amp_cast_{dtype}", dict(op.attrs), [entry])
            cast_cache[key] = (cast_node, 0)
            entry_type[(id(cast_node), 0)] = dtype
            if node.op is None:
                variable_casts.setdefault(node.name, set()).add(dtype)
        return cast_cache[key]

    def needs(entry, dtype):
        return entry_type.get((id(entry[0]), entry[1])) != dtype

    for node in topological_order(sym._outputs):
        if node.op is None:
            copies[id(node)] = node
            continue
        inputs = [(copies[id(child)], index) for child, index in node.inputs]
        # the casts AMP inserted (a graph converted twice) pass their inputs through
        category = None if node.op.is_amp_cast else policy.category(node.op.name, node.attrs, node.name)
        if category in ("low", "fp32"):
            dtype = policy.target if category == "low" else "float32"
            inputs = [cast(entry, dtype) if needs(entry, dtype) else entry for entry in inputs]
            out_type = dtype
        elif category == "widest":
            known = [entry_type.get((id(n), i)) for n, i in inputs]
            if "float32" in known:
                out_type = "float32"
                inputs = [cast(entry, "float32") if needs(entry, "float32") else entry for entry in inputs]
            elif len(inputs) > 1 and (None in known or len(set(known)) > 1):
                op = get_operator("amp_multicast")({"num_outputs": len(inputs)})
                multicast = Node(op, f"{node.name}_amp_multicast", dict(op.attrs), inputs)
                inputs = [(multicast, i) for i in range(len(inputs))]
                out_type = None
            else:
                out_type = known[0] if known else None
        else:
            first = [entry_type.get((id(n), i)) for n, i in inputs[:1]]
            out_type = first[0] if first else None
        copy = Node(node.op, node.name, node.attrs, inputs)
        copies[id(node)] = copy
        for index in range(node.num_outputs()):
            entry_type[(id(copy), index)] = out_type
    outputs = [(copies[id(node)], index) for node, index in sym._outputs]
    return Symbol(outputs), variable_casts


def convert_symbol(sym, target_dtype="float16", target_dtype_ops=None, fp32_ops=None, conditional_fp32_ops=None,
                   excluded_sym_names=None, data_names=None, cast_optional_params=False):
    """``sym`` with AMP casts inserted (MXNet's ``amp.convert_symbol``).

    Inputs of ``target_dtype_ops`` (default ``list_lp16_ops``) are cast to ``target_dtype``,
    inputs of ``fp32_ops`` / matching ``conditional_fp32_ops`` / operators in no list to
    float32, and inputs of the widest-type operators to one common type; nodes named in
    ``excluded_sym_names`` are left as they are.  ``data_names`` and ``cast_optional_params`` are accepted
    for MXNet's signature (types of variables are never assumed; parameters are cast by
    ``convert_model``).  The argument names and order of ``sym`` are unchanged.

    Raises MXNetError for a target dtype other than float16 / bfloat16 or an operator given in
    both lists.
    """
    policy = _Policy(target_dtype, target_dtype_ops, conditional_fp32_ops, fp32_ops, excluded_sym_names)
    return _rewrite(sym, policy)[0]


def convert_model(sym, arg_params, aux_params, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                  conditional_fp32_ops=None, excluded_sym_names=None, cast_optional_params=False):
    """``(symbol, arg_params, aux_params)`` converted for AMP (MXNet's ``amp.convert_model``).

    The symbol is ``convert_symbol``'s.  With ``cast_optional_params=True`` every parameter
    that is only ever cast to ``target_dtype`` is stored in ``target_dtype`` and its casts are
    dropped from the graph, halving its memory; otherwise the parameters keep their dtypes.

    Raises MXNetError when a name in ``arg_params`` / ``aux_params`` is not an input of ``sym``.
    """
    policy = _Policy(target_dtype, target_dtype_ops, conditional_fp32_ops, fp32_ops, excluded_sym_names)
    inputs = set(sym.list_inputs())
    for kind, params in (("arg_params", arg_params), ("aux_params", aux_params)):
        unknown = sorted(set(params or {}) - inputs)
        if unknown:
            raise MXNetError(f"amp.convert_model: {kind} names {unknown} are not inputs of the symbol")
    converted, variable_casts = _rewrite(sym, policy)
    arg_params = dict(arg_params or {})
    aux_params = dict(aux_params or {})
    if cast_optional_params:
        # parameters only ever read in the target dtype are stored in it, without their casts
        stored_low = set()
        for params in (arg_params, aux_params):
            for name, value in params.items():
                if variable_casts.get(name) == {policy.target}:
                    params[name] = value.astype(policy.target)
                    stored_low.add(name)
        if stored_low:
            converted = _rewrite(sym, policy, stored_low)[0]
    return converted, arg_params, aux_params


def convert_hybrid_block(block, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                         conditional_fp32_ops=None, excluded_sym_names=None, ctx=None, cast_optional_params=False):
    """Gluon's AMP conversion: needs ``mx.gluon``, which this module does not provide."""
    raise MXNetError("amp.convert_hybrid_block converts a Gluon HybridBlock; use convert_model on the block's "
                     "exported symbol and parameters, or convert_symbol, for Symbol/Module code")


def convert_bucketing_module(bucketing_mod, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                             conditional_fp32_ops=None, excluded_sym_names=None, cast_optional_params=False):
    """A new BucketingModule whose ``sym_gen`` returns converted symbols, with the parameters
    of ``bucketing_mod`` (which must have them initialised) converted by ``convert_model``."""
    if not bucketing_mod.params_initialized:
        raise MXNetError("amp.convert_bucketing_module: the module's parameters are not initialised; call "
                         "bind and init_params (or load) first")
    arg_params, aux_params = bucketing_mod.get_params()
    original_gen = bucketing_mod._sym_gen
    options = dict(target_dtype=target_dtype, target_dtype_ops=target_dtype_ops, fp32_ops=fp32_ops,
                   conditional_fp32_ops=conditional_fp32_ops, excluded_sym_names=excluded_sym_names)

    def sym_gen(bucket_key):
        sym, data_names, label_names = original_gen(bucket_key)
        return convert_symbol(sym, **options), data_names, label_names

    default_sym = sym_gen(bucketing_mod._default_bucket_key)[0]
    _, arg_params, aux_params = convert_model(default_sym, arg_params, aux_params,
                                              cast_optional_params=cast_optional_params, **options)
    result = BucketingModule(sym_gen, default_bucket_key=bucketing_mod._default_bucket_key,
                             context=bucketing_mod._context, work_load_list=bucketing_mod._work_load_list,
                             fixed_param_names=bucketing_mod._fixed_param_names,
                             state_names=bucketing_mod._state_names)
    result._amp_params = (arg_params, aux_params)
    return result


# -- init(): wrap the operator functions -------------------------------------------------------
def _wrap(function, category, target, is_symbol):
    def convert_value(value, dtype):
        if is_symbol:
            if isinstance(value, _sym.Symbol):
                return _sym.amp_cast(value, dtype=dtype)
            return value
        if isinstance(value, _nd.NDArray) and np.dtype(value.dtype).kind == "f" and np.dtype(value.dtype) != dtype:
            return _nd.amp_cast(value, dtype=dtype)
        return value

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        dtype = None
        if category == "low":
            dtype = target
        elif category == "fp32":
            dtype = "float32"
        elif category == "widest":
            if is_symbol:
                symbols = [a for a in args if isinstance(a, _sym.Symbol)]
                if len(symbols) > 1:
                    cast = _sym.amp_multicast(*symbols, num_outputs=len(symbols))
                    replaced = iter([cast[i] for i in range(len(symbols))])
                    args = tuple(next(replaced) if isinstance(a, _sym.Symbol) else a for a in args)
                return function(*args, **kwargs)
            floats = [np.dtype(a.dtype) for a in list(args) + list(kwargs.values())
                      if isinstance(a, _nd.NDArray) and np.dtype(a.dtype).kind == "f"]
            if floats:
                dtype = max(floats, key=lambda t: t.itemsize).name
        if dtype is not None:
            args = tuple(convert_value(a, dtype) for a in args)
            kwargs = {k: convert_value(v, dtype) for k, v in kwargs.items()}
        return function(*args, **kwargs)

    wrapper._amp_original = function
    return wrapper


def _wrap_namespace(namespace, policy, is_symbol):
    for name in sorted(policy.low_ops | policy.fp32_ops | policy.widest_ops |
                       {entry[0] for entry in policy.conditional}):
        function = getattr(namespace, name, None)
        if function is None or not callable(function) or hasattr(function, "_amp_original"):
            continue
        category = policy.category(name, {})
        conditional = [entry for entry in policy.conditional if entry[0] == name]
        if conditional:
            base = category

            def choose(*args, _function=function, _base=base, _conditional=conditional, **kwargs):
                for _, attribute, values in _conditional:
                    if str(kwargs.get(attribute)) in [str(v) for v in values]:
                        return _wrap(_function, "fp32", policy.target, is_symbol)(*args, **kwargs)
                return _wrap(_function, _base, policy.target, is_symbol)(*args, **kwargs)
            choose._amp_original = function
            functools.update_wrapper(choose, function)
            setattr(namespace, name, choose)
        else:
            setattr(namespace, name, _wrap(function, category, policy.target, is_symbol))


def init(target_dtype="float16", target_precision_ops=None, conditional_fp32_ops=None, fp32_ops=None):
    """Turn AMP on for graphs and arrays created afterwards (MXNet's ``amp.init``).

    The operator functions of ``mx.sym`` and ``mx.nd`` are wrapped: the low-precision list
    casts floating inputs to ``target_dtype``, the float32 list to float32, widest-type
    operators to a common type; ``conditional_fp32_ops`` entries ``(op, attribute, values)``
    pick float32 by attribute.  A second call does nothing.  Also creates the loss scaler
    that ``init_trainer`` hands out.

    Raises MXNetError for a target dtype other than float16 / bfloat16.
    """
    global _amp_initialized, _loss_scaler
    if _amp_initialized:
        return
    policy = _Policy(target_dtype, target_precision_ops, conditional_fp32_ops, fp32_ops)
    logging.info("Using AMP")
    _wrap_namespace(_sym, policy, True)
    _wrap_namespace(_nd, policy, False)
    _loss_scaler = LossScaler()
    _amp_initialized = True


def _check_trainer(optimizer_or_trainer):
    if isinstance(optimizer_or_trainer, Optimizer):
        raise TypeError("AMP is currently only compatible with Gluon Trainer")
    if not hasattr(optimizer_or_trainer, "_scale") or not hasattr(optimizer_or_trainer, "_params"):
        raise TypeError(f"optimizer_or_trainer should be a Gluon Trainer or an optimizer, instead is "
                        f"{type(optimizer_or_trainer)}")


def init_trainer(optimizer_or_trainer):
    """Attach dynamic loss scaling to a Gluon Trainer (``_amp_loss_scaler``,
    ``_amp_original_scale``).  Needs ``init()`` first (AssertionError otherwise, as in MXNet);
    an Optimizer raises TypeError, as in MXNet 1.9.1."""
    global _amp_loss_scale_initialized
    assert _amp_initialized, "AMP not initialized, did you forget to call amp.init()?"
    _check_trainer(optimizer_or_trainer)
    if not _amp_loss_scale_initialized:
        _amp_loss_scale_initialized = True
        scaler = _loss_scaler
    else:
        scaler = LossScaler()
    optimizer_or_trainer._amp_loss_scaler = scaler
    optimizer_or_trainer._amp_original_scale = optimizer_or_trainer._scale


@contextlib.contextmanager
def scale_loss(loss, optimizer_or_trainer):
    """Context manager yielding ``loss`` (or each of a list of losses) times the current loss
    scale, and setting the trainer's gradient scale to ``original / loss_scale`` so that the
    update sees unscaled gradients."""
    scaler = getattr(optimizer_or_trainer, "_amp_loss_scaler", None)
    assert scaler is not None, "Loss scaler is not initialized, did you forget to call amp.init_trainer()?"
    optimizer_or_trainer._scale = optimizer_or_trainer._amp_original_scale / scaler.loss_scale
    if isinstance(loss, (list, tuple)):
        yield [item * scaler.loss_scale for item in loss]
    else:
        yield scaler.loss_scale * loss


def unscale(optimizer_or_trainer):
    """Multiply the trainer's gradients by its current ``_scale`` now and set ``_scale`` to 1
    (for gradient clipping before the update).  An Optimizer raises TypeError, as in MXNet."""
    _check_trainer(optimizer_or_trainer)
    for param in optimizer_or_trainer._params:
        grads = param.list_grad() if getattr(param, "grad_req", "write") != "null" else []
        for grad in grads:
            grad[:] *= optimizer_or_trainer._scale
    optimizer_or_trainer._scale = 1.0

# names MXNet 1.9.1's mxnet.contrib.amp.amp had in its namespace (imported there, not defined)
from array import array  # noqa: E402,F401
from ...base import BFLOAT16 as bfloat16  # noqa: E402,F401
from ...context import gpu  # noqa: E402,F401
from ...ndarray.ndarray import NDArray  # noqa: E402,F401
