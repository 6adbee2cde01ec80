"""What binding takes: gradient requests normalised, arrays given by name or position,
``simple_bind``'s inferred and allocated arrays, and the arrays of a reshaped executor."""
from __future__ import annotations

import warnings

import numpy as np
import torch

from ..base import MXNetError, MXNetValueError, numpy_dtype
from ..context import Context, current_context
from ..ndarray.ndarray import NDArray
from ..ndarray.sparse import _with_storage as with_storage
from ..ops.registry import product
from .placement import variable_contexts
from .storage import argument_storage_types, gradient_storage_types, zeros_of_storage

__all__ = ["normalize_grad_req", "bound_list", "simple_bind_arrays", "share_or_allocate"]

_GRAD_REQS = ("write", "add", "null", "inplace")


def normalize_grad_req(grad_req, names):
    """``{name: req}`` from a str, a list aligned with ``names`` or a dict (missing -> 'null'; entries
    for other names are ignored with a warning, as MXNet ignored them)."""
    if isinstance(grad_req, str):
        result = {name: grad_req for name in names}
    elif isinstance(grad_req, (list, tuple)):
        if len(grad_req) != len(names):
            raise MXNetError(f"grad_req: a list must have one entry per argument ({len(names)}), got {len(grad_req)}")
        result = dict(zip(names, grad_req))
    elif isinstance(grad_req, dict):
        unknown = set(grad_req) - set(names)
        if unknown:
            # MXNet ignored dict entries for names the symbol does not have (a Convolution with no_bias)
            warnings.warn(f"grad_req: {sorted(unknown)} are not arguments of the symbol and are ignored; "
                          f"arguments are {names}", stacklevel=3)
        result = {name: grad_req.get(name, "null") for name in names}
    else:
        raise MXNetError(f"grad_req must be a str, list or dict, got {type(grad_req).__name__}")
    for name, req in result.items():
        if req not in _GRAD_REQS:
            raise MXNetError(f"grad_req for {name!r} must be one of {_GRAD_REQS}, got {req!r}")
        if req == "inplace":
            result[name] = "write"
    return result


def bound_list(values, names, label, required):
    """``values`` (None, a dict by name or a list aligned with ``names``) as a list aligned with
    ``names``; MXNetError for a missing ``required`` array, a wrong count or a non-NDArray."""
    if values is None:
        if required and names:
            raise MXNetError(f"bind: {label} is required for {names}")
        return [None] * len(names)
    if isinstance(values, dict):
        missing = [n for n in names if n not in values]
        if missing and required:
            raise MXNetValueError(f"bind: {label} is missing arrays for {missing}")
        return [values.get(n) for n in names]
    values = list(values)
    if len(values) != len(names):
        raise MXNetError(f"bind: {label} has {len(values)} arrays, the symbol needs {len(names)} ({names})")
    for name, value in zip(names, values):
        if value is not None and not isinstance(value, NDArray):
            raise MXNetError(f"bind: {label} entry {name!r} must be an NDArray, got {type(value).__name__}")
    return values


def simple_bind_arrays(symbol, ctx, grad_req="write", type_dict=None, group2ctx=None, shared_arg_names=None,
                       shared_exec=None, shared_buffer=None, shapes=None, stype_dict=None):
    """``(args, grads, requests, aux, inferred)`` for ``Executor.simple_bind``: every shape and
    dtype inferred from the given ones (``shapes``, ``type_dict``), arrays allocated as zeros or
    shared with ``shared_exec`` (the names in ``shared_arg_names``) and ``shared_buffer``.  The
    arrays have the storage types of ``stype_dict`` or the variables' declared ``stype``, the
    gradient arrays those of MXNet's backward storage rules (``storage.py``)."""
    from ..symbol.inference import infer_graph
    shapes = dict(shapes or {})
    # MXNet read only tuple values as shapes and ignored the rest (simple_bind(..., axis=0))
    ignored = sorted(k for k, v in shapes.items() if not isinstance(v, (tuple, list)) and v is not None)
    if ignored:
        warnings.warn(f"simple_bind: keyword arguments {ignored} are not shapes and have no effect "
                      f"(as in MXNet)", stacklevel=4)
        shapes = {k: v for k, v in shapes.items() if k not in ignored}
    # MXNet 1.9.1's simple_bind also bound with shapes of names the symbol does not have (a
    # label shape given to a symbol without its loss head): they are left out
    inputs = set(symbol.list_inputs())
    unknown = sorted(k for k in shapes if k not in inputs)
    if unknown:
        warnings.warn(f"simple_bind: {unknown} are not inputs of the symbol; their shapes are ignored "
                      f"(as in MXNet)", stacklevel=4)
        shapes = {k: v for k, v in shapes.items() if k in inputs}
    arg_names = symbol.list_arguments()
    aux_names = symbol.list_auxiliary_states()
    types = {k: numpy_dtype(v) for k, v in (type_dict or {}).items()}
    try:
        known = symbol._given((), shapes, "infer_shape")
        inferred = infer_graph(symbol, known, {k: v for k, v in types.items() if k in set(arg_names + aux_names)})
    except MXNetError as error:
        raise MXNetError(f"simple_bind: {error}") from None
    arg_shapes, aux_shapes = [s or () for s in inferred.arg_shapes], [s or () for s in inferred.aux_shapes]
    incomplete = [n for n, s in zip(arg_names + aux_names, arg_shapes + aux_shapes)
                  if not s or not all(d > 0 for d in s)]
    incomplete = [n for n in incomplete if not _is_zero_size_given(n, shapes)]
    if incomplete:
        raise MXNetError(f"simple_bind: cannot infer the shapes of {incomplete} from the given input shapes "
                         f"{shapes}; give them as keyword arguments")
    arg_types = [t or np.float32 for t in inferred.arg_types]
    aux_types = [t or np.float32 for t in inferred.aux_types]
    if ctx is None:
        ctx = current_context()
    if not isinstance(ctx, Context):
        raise MXNetError(f"simple_bind: ctx must be a Context such as mx.cpu(), got {ctx!r}")
    requests = normalize_grad_req(grad_req, arg_names)
    try:
        stypes = argument_storage_types(symbol, stype_dict)
    except MXNetError as error:
        raise MXNetError(f"simple_bind: {error}") from None
    grad_stypes = gradient_storage_types(symbol, stypes)
    placement = variable_contexts(symbol, ctx, group2ctx) if group2ctx else {}
    shared_names = set(shared_arg_names or [])
    shared_args = shared_exec.arg_dict if shared_exec is not None else {}
    shared_grads = shared_exec.grad_dict if shared_exec is not None else {}
    shared_aux = shared_exec.aux_dict if shared_exec is not None else {}

    def reuse(source, name, shape, dtype, stype):
        """``source[name]`` when it exists with this shape, dtype and storage type, else a new
        zero array."""
        existing = source.get(name)
        if existing is not None and existing.shape == tuple(shape) and \
                numpy_dtype(existing.dtype) == numpy_dtype(dtype) and existing.stype == stype:
            return existing
        return zeros_of_storage(shape, dtype, placement.get(name, ctx), stype)

    args, grads = [], []
    for name, shape, dtype in zip(arg_names, arg_shapes, arg_types):
        stype, grad_stype = stypes[name], grad_stypes[name]
        if name in shared_names:
            # parameters named in shared_arg_names share the other executor's arrays (MXNet)
            array = reuse(shared_args, name, shape, dtype, stype)
            grad = reuse(shared_grads, name, shape, dtype, grad_stype) if requests[name] != "null" else None
        else:
            # other inputs reuse same-shaped arrays of shared_buffer and are recorded in it
            array = reuse(shared_buffer if shared_buffer is not None else {}, name, shape, dtype, stype)
            if shared_buffer is not None:
                shared_buffer[name] = array
            grad = reuse({}, name, shape, dtype, grad_stype) if requests[name] != "null" else None
        args.append(array)
        grads.append(grad)
    aux = [reuse(shared_aux, name, shape, dtype, stypes[name])
           for name, shape, dtype in zip(aux_names, aux_shapes, aux_types)]
    return args, grads, requests, aux, inferred


def share_or_allocate(array, shape):
    """An array of ``shape`` for a reshaped executor, of ``array``'s storage type: a view of the
    first elements of ``array`` when it is large enough (MXNet's executors share memory when
    reshaping down), otherwise new zeros."""
    tensor = array._tensor
    count = product(shape)
    if count <= tensor.numel() and tensor.is_contiguous():
        tensor = tensor.detach().view(-1)[:count].view(tuple(shape))
    else:
        tensor = torch.zeros(tuple(shape), dtype=tensor.dtype, device=tensor.device)
    return NDArray(tensor, array.context) if array.stype == "default" else \
        with_storage(tensor, array.context, array.stype)



def _is_zero_size_given(name, shapes):
    return name in shapes and 0 in tuple(shapes[name])
