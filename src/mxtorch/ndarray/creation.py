"""The array constructors of ``mx.nd``: ``array``, ``zeros``, ``ones``, ``empty``, ``full``,
``arange``, ``linspace``, ``eye`` (MXNet 1.9.1's functions of the same names in
``mxnet.ndarray.ndarray``), with MXNet's defaults (float32, the current context) and its shape
rules (a 0 dimension or ``()`` raises outside ``mx.np_shape()``)."""
from __future__ import annotations

import numbers

import numpy as np
import torch

from .. import base as _dtypes
from ..base import MXNetError, MXNetTypeError
from ..context import Context, current_context
from .ndarray import NDArray, _call, _host_dtype, _provided, to_numpy_dtype, to_torch_dtype

def _resolve_ctx(ctx):
    if ctx is None:
        return current_context()
    if not isinstance(ctx, Context):
        raise MXNetError(f"ctx must be a Context such as mx.cpu() or mx.gpu(0), got {ctx!r}")
    return ctx


def array(source_array, ctx=None, dtype=None):
    """A new NDArray holding a copy of ``source_array`` (list, numpy array, NDArray, tensor).

    Mirrors MXNet: the dtype is ``source_array.dtype`` for an NDArray source and
    float32 otherwise, unless ``dtype`` is given.  A row_sparse / csr NDArray or a scipy
    sparse matrix gives an array of its storage type (``mx.nd.sparse.array``), as in MXNet.
    """
    if getattr(source_array, "stype", "default") != "default" or (
            hasattr(source_array, "tocsr") and hasattr(source_array, "toarray")):
        return _provided("sparse_array")(source_array, ctx=ctx, dtype=dtype)
    ctx = _resolve_ctx(ctx)
    if isinstance(source_array, NDArray):
        dtype = source_array.dtype if dtype is None else dtype
        tensor = source_array._tensor.detach()
    elif isinstance(source_array, torch.Tensor):
        tensor = source_array.detach()
        dtype = to_numpy_dtype(tensor.dtype) if dtype is None else dtype
    else:
        dtype = np.float32 if dtype is None else dtype
        try:
            numpy_array = np.asarray(source_array, dtype=_host_dtype(dtype))
        except (TypeError, ValueError) as error:
            raise MXNetTypeError(f"array: cannot convert {type(source_array).__name__} to an array: {error}") from None
        tensor = torch.from_numpy(np.array(numpy_array, copy=True))
    return NDArray(tensor.to(device=ctx.torch_device, dtype=to_torch_dtype(dtype), copy=True), ctx)


def _shape_tuple(shape, function):
    """A shape as a tuple of non-negative ints; MXNetError naming ``function`` for anything else."""
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    if isinstance(shape, np.ndarray) and shape.ndim == 1 and shape.dtype.kind in "iu":
        shape = tuple(shape.tolist())   # MXNet accepted a 1-D integer numpy array as a shape
    if not isinstance(shape, (tuple, list)) or \
            not all(isinstance(d, numbers.Integral) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise MXNetError(f"{function}: argument 'shape' must be a tuple of non-negative integers, got {shape!r}")
    return tuple(int(d) for d in shape)


def _known_shape(function, shape):
    """``shape`` as a tuple for the operator-backed creators (zeros, ones, full): MXNet 1.x reads
    a 0 dimension or the shape ``()`` as unknown there and raises, unless NumPy shape semantics
    are on (``mx.np_shape()``), which make them zero-size and scalar arrays."""
    shape = _shape_tuple(shape, function)
    from ..util import is_np_shape
    if not is_np_shape() and (not shape or 0 in shape):
        raise MXNetError(f"{function}: shape {shape} has unknown dimensions (MXNet 1.x reads () and 0 as unknown); "
                         f"zero-size and scalar arrays need mx.np_shape(True)")
    return shape


def zeros(shape, ctx=None, dtype=None, stype=None, **kwargs):
    """An array of zeros of ``shape`` (float32 unless ``dtype``).  ``stype`` 'row_sparse' /
    'csr' gives a sparse array of ``mx.nd.sparse`` (held dense, reporting its stype).  A shape
    with a 0 dimension, or ``()``, raises MXNetError outside ``mx.np_shape()``, as in MXNet 1.x."""
    if stype not in (None, "default"):
        return _provided("sparse_zeros")(stype, shape, ctx=ctx, dtype=dtype)
    ctx = _resolve_ctx(ctx)
    return _into(NDArray(torch.zeros(_known_shape("zeros", shape), dtype=to_torch_dtype(dtype or np.float32),
                                     device=ctx.torch_device), ctx), kwargs.get("out"))


def _into(result, out):
    """``result``, or ``out`` (an NDArray) holding it: MXNet's ``out=`` of the creation functions."""
    if out is None:
        return result
    out[:] = result
    return out


def ones(shape, ctx=None, dtype=None, **kwargs):
    """An array of ones of ``shape`` (float32 unless ``dtype``); a shape with a 0 dimension, or
    ``()``, raises MXNetError outside ``mx.np_shape()`` (see ``zeros``).  ``out=`` receives the
    ones and is returned, as in MXNet (also for ``zeros``)."""
    ctx = _resolve_ctx(ctx)
    return _into(NDArray(torch.ones(_known_shape("ones", shape), dtype=to_torch_dtype(dtype or np.float32),
                                    device=ctx.torch_device), ctx), kwargs.get("out"))


def empty(shape, ctx=None, dtype=None, stype=None):
    """An uninitialised array of ``shape`` (float32 unless ``dtype``); ``stype`` as in ``zeros``."""
    if stype not in (None, "default"):
        return _provided("sparse_empty")(stype, shape, ctx=ctx, dtype=dtype)
    ctx = _resolve_ctx(ctx)
    return NDArray(torch.empty(_shape_tuple(shape, "empty"), dtype=to_torch_dtype(dtype or np.float32),
                               device=ctx.torch_device), ctx)


def _fill_value(val, dtype):
    """``val`` of ``full`` as MXNet 1.9.1 assigned it (``out[:] = val``): a real number as is, an
    NDArray as is, anything else converted by NumPy to the array's dtype (``'3.5'``, ``None``: nan,
    ``[1, 2]``, broadcast later); MXNetTypeError naming ``full`` when it cannot be."""
    if isinstance(val, NDArray):
        return val
    if isinstance(val, (numbers.Real, np.bool_)):
        return val
    try:
        if isinstance(val, (numbers.Complex, dict, set)):
            raise TypeError
        return np.asarray(val, dtype=_host_dtype(dtype))
    except (TypeError, ValueError, OverflowError):
        raise MXNetTypeError(f"full: argument 'val' must be a number, an array-like or an NDArray that converts to "
                             f"{np.dtype(_host_dtype(dtype)).name}, got {val!r} of type {type(val).__name__}") from None


def full(shape, val, ctx=None, dtype=None, out=None):
    """An array of ``shape`` filled with ``val``: a number, a string NumPy reads as one
    (``'3.5'``), an array-like or NDArray broadcast onto ``shape`` (as MXNet's ``out[:] = val``);
    MXNetTypeError for a value that is none of these (``'x'``).  As MXNet 1.9.1 (which filled an
    ``empty`` array), a 0 dimension gives a zero-size array; the shape ``()`` raises outside
    ``mx.np_shape()``."""
    ctx = _resolve_ctx(ctx)
    shape = _shape_tuple(shape, "full")
    if not shape:
        shape = _known_shape("full", shape)
    dtype = dtype or np.float32
    fill = _fill_value(val, dtype)
    if isinstance(fill, (NDArray, np.ndarray)):
        result = NDArray(torch.empty(shape, dtype=to_torch_dtype(dtype), device=ctx.torch_device), ctx)
        result[:] = fill
    else:
        result = NDArray(torch.full(shape, fill, dtype=to_torch_dtype(dtype), device=ctx.torch_device), ctx)
    return _into(result, out)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=None, ctx=None, dtype=np.float32):
    """``start, start + step, ...`` up to (excluding) ``stop``, each value repeated ``repeat``
    times, through the ``_arange`` operator; ``arange(n)`` is ``[0, n)``.  float32 unless
    ``dtype``; ``infer_range`` is deprecated in MXNet and ignored."""
    ctx = _resolve_ctx(ctx)
    return _call("_arange", start=start, stop=stop, step=step, repeat=repeat, infer_range=False,
                 dtype=_dtypes.dtype_name(dtype or np.float32), ctx=str(ctx))


def linspace(start, stop, num, endpoint=True, ctx=None, dtype=np.float32):
    """``num`` evenly spaced values from ``start`` to ``stop`` (included unless
    ``endpoint=False``), through the ``_linspace`` operator; float32 unless ``dtype``."""
    ctx = _resolve_ctx(ctx)
    return _call("_linspace", start=start, stop=stop, num=num, endpoint=endpoint,
                 dtype=_dtypes.dtype_name(dtype or np.float32), ctx=str(ctx))


def eye(N, M=0, k=0, ctx=None, dtype=None, **kwargs):
    """An ``(N, M)`` matrix (``M=0``: ``(N, N)``) with ones on diagonal ``k`` (positive: above the
    main diagonal) and zeros elsewhere, through the ``_eye`` operator; float32 unless ``dtype``."""
    ctx = _resolve_ctx(ctx)
    return _call("_eye", N=N, M=M, k=k, dtype=_dtypes.dtype_name(dtype or np.float32), ctx=str(ctx), **kwargs)
