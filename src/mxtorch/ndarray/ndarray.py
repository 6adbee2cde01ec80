"""NDArray: a ``torch.Tensor`` plus the MXNet ``Context`` it belongs to.

Operations are eager (torch runs them as they are called); ``wait_to_read``
and ``waitall`` synchronise the device where MXNet's asynchronous engine
needed it.  Parameter arrays bound to an executor are shared by reference:
the executor reads and writes ``NDArray._tensor`` in place, so a weight set
with ``arr[:] = value`` is what the next forward sees.
"""
from __future__ import annotations

import numbers

import numpy as np
import torch

from ..base import MXNetError
from ..context import Context, current_context, context_from_torch

__all__ = ["NDArray", "array", "zeros", "ones", "empty", "full", "arange", "concat",
           "waitall", "to_torch_dtype", "to_numpy_dtype", "from_torch", "moveaxis",
           "onehot_encode", "imdecode"]

_NUMPY_TO_TORCH = {
    np.dtype(np.float32): torch.float32,
    np.dtype(np.float64): torch.float64,
    np.dtype(np.float16): torch.float16,
    np.dtype(np.uint8): torch.uint8,
    np.dtype(np.int8): torch.int8,
    np.dtype(np.int32): torch.int32,
    np.dtype(np.int64): torch.int64,
    np.dtype(np.bool_): torch.bool,
    np.dtype(np.int16): torch.int16,
}
_TORCH_TO_NUMPY = {v: k for k, v in _NUMPY_TO_TORCH.items()}
_TORCH_TO_NUMPY[torch.bfloat16] = np.dtype(np.float32)


def to_numpy_dtype(dtype):
    """Normalise a dtype given as str, numpy type, numpy dtype or torch dtype to a numpy dtype."""
    if dtype is None:
        return np.dtype(np.float32)
    if isinstance(dtype, torch.dtype):
        return _TORCH_TO_NUMPY[dtype]
    try:
        result = np.dtype(dtype)
    except TypeError:
        raise MXNetError(f"unknown dtype {dtype!r}") from None
    if result not in _NUMPY_TO_TORCH:
        raise MXNetError(f"dtype {result.name} is not supported; expected one of "
                         f"{sorted(d.name for d in _NUMPY_TO_TORCH)}")
    return result


def to_torch_dtype(dtype):
    """The torch dtype for an MXNet/numpy dtype given in any accepted spelling."""
    if isinstance(dtype, torch.dtype):
        return dtype
    return _NUMPY_TO_TORCH[to_numpy_dtype(dtype)]


def _unwrap(value):
    return value._tensor if isinstance(value, NDArray) else value


class NDArray:
    """An n-dimensional array on a Context (MXNet's ``mx.nd.NDArray``).

    ``shape`` is a tuple of ints, ``dtype`` a numpy scalar type (``numpy.float32``
    by default), ``context`` the Context.  Arithmetic with arrays and scalars
    broadcasts like MXNet's ``broadcast_*`` operators.
    """

    __slots__ = ("_tensor", "_ctx", "_grad", "_grad_req", "__weakref__")
    __array_priority__ = 1000.0

    def __init__(self, tensor, ctx=None):
        if tensor is None:
            # MXNet's NDArray(None): the empty shell that unpickling fills through __setstate__
            tensor = torch.empty(0)
        if not isinstance(tensor, torch.Tensor):
            raise MXNetError(f"NDArray wraps a torch.Tensor, got {type(tensor).__name__}")
        self._tensor = tensor
        self._ctx = ctx if ctx is not None else context_from_torch(tensor.device)
        self._grad = None
        self._grad_req = "null"

    # -- properties ---------------------------------------------------------------
    @property
    def shape(self):
        return tuple(self._tensor.shape)

    @property
    def dtype(self):
        return to_numpy_dtype(self._tensor.dtype).type

    @property
    def context(self):
        return self._ctx

    ctx = context

    @property
    def size(self):
        return int(self._tensor.numel())

    @property
    def ndim(self):
        return self._tensor.dim()

    @property
    def stype(self):
        return "default"

    @property
    def handle(self):
        return self._tensor

    @property
    def T(self):
        if self.ndim < 2:
            return self.copy()
        return NDArray(self._tensor.permute(*reversed(range(self.ndim))).contiguous(), self._ctx)

    @property
    def grad(self):
        return self._grad

    # -- conversion ---------------------------------------------------------------
    def asnumpy(self):
        """Copy to a numpy array (blocks until the value is computed)."""
        tensor = self._tensor.detach()
        if tensor.dtype == torch.bfloat16:
            tensor = tensor.float()
        return tensor.cpu().numpy().copy()

    def asscalar(self):
        """The value of a 1-element array as a numpy scalar; MXNetError otherwise."""
        if self.size != 1:
            raise MXNetError(f"asscalar: the array must have exactly one element, its shape is {self.shape}")
        return self.asnumpy().reshape(())[()]

    def astype(self, dtype, copy=True):
        """This array converted to ``dtype``; with ``copy=False`` the same array when already of it."""
        target = to_torch_dtype(dtype)
        if not copy and target == self._tensor.dtype:
            return self
        return NDArray(self._tensor.to(target, copy=True), self._ctx)

    def copyto(self, other):
        """Copy into an NDArray (same shape) or onto a Context (new array)."""
        if isinstance(other, NDArray):
            if other is self:
                return other
            if other.shape != self.shape:
                raise MXNetError(f"copyto: shape mismatch, source {self.shape} vs target {other.shape}")
            with torch.no_grad():
                other._tensor.copy_(self._tensor)
            return other
        if isinstance(other, Context):
            return NDArray(self._tensor.detach().to(other.torch_device, copy=True), other)
        raise MXNetError(f"copyto: expected an NDArray or Context, got {type(other).__name__}")

    def copy(self):
        return NDArray(self._tensor.detach().clone(), self._ctx)

    def as_in_context(self, context):
        """This array on ``context`` (itself if already there)."""
        if context == self._ctx:
            return self
        return self.copyto(context)

    def as_np_ndarray(self):
        return self

    def tostype(self, stype):
        if stype != "default":
            raise MXNetError(f"tostype: storage type {stype!r} is not supported; mxtorch arrays are dense")
        return self

    def reshape(self, *shape, **kwargs):
        """Reshape with MXNet's special codes (0, -1, -2, -3, -4; ``reverse=``)."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        if "shape" in kwargs:
            shape = tuple(kwargs.pop("shape"))
        reverse = kwargs.pop("reverse", False)
        if kwargs:
            raise MXNetError(f"reshape: unexpected keyword arguments {sorted(kwargs)}")
        from ..ops.shape_codes import infer_reshape
        target = infer_reshape(self.shape, tuple(shape), reverse, op_name="reshape")
        return NDArray(self._tensor.reshape(target), self._ctx)

    def reshape_like(self, other):
        return NDArray(self._tensor.reshape(other.shape), self._ctx)

    def flatten(self):
        return NDArray(self._tensor.reshape(self.shape[0], -1) if self.ndim else self._tensor.reshape(1, 1), self._ctx)

    def expand_dims(self, axis):
        return NDArray(self._tensor.unsqueeze(axis), self._ctx)

    def squeeze(self, axis=None):
        return NDArray(self._tensor.squeeze() if axis is None else self._tensor.squeeze(axis), self._ctx)

    def transpose(self, axes=None):
        if not axes:
            axes = tuple(reversed(range(self.ndim)))
        return NDArray(self._tensor.permute(*axes), self._ctx)

    def wait_to_read(self):
        if self._tensor.is_cuda:
            torch.cuda.synchronize(self._tensor.device)

    def attach_grad(self, grad_req="write", stype=None):
        self._grad = NDArray(torch.zeros_like(self._tensor), self._ctx)
        self._grad_req = grad_req

    def detach(self):
        return NDArray(self._tensor.detach(), self._ctx)

    def tolist(self):
        return self.asnumpy().tolist()

    def zeros_like(self):
        return NDArray(torch.zeros_like(self._tensor), self._ctx)

    def ones_like(self):
        return NDArray(torch.ones_like(self._tensor), self._ctx)

    # -- reductions used by legacy code directly on arrays -------------------------------
    def _reduce(self, function, axis, keepdims):
        tensor = self._tensor
        if axis is None or axis == ():
            result = function(tensor)
            if keepdims:
                result = result.reshape((1,) * tensor.dim())
            elif result.dim() == 0:
                result = result.reshape(1)
            return NDArray(result, self._ctx)
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        return NDArray(function(tensor, dim=axes, keepdim=keepdims), self._ctx)

    def sum(self, axis=None, keepdims=False, **kwargs):
        return self._reduce(torch.sum, axis, keepdims)

    def mean(self, axis=None, keepdims=False, **kwargs):
        return self._reduce(torch.mean, axis, keepdims)

    def max(self, axis=None, keepdims=False, **kwargs):
        return self._reduce(torch.amax, axis, keepdims)

    def min(self, axis=None, keepdims=False, **kwargs):
        return self._reduce(torch.amin, axis, keepdims)

    def norm(self, **kwargs):
        return NDArray(torch.linalg.vector_norm(self._tensor.float()).reshape(1).to(self._tensor.dtype), self._ctx)

    def argmax(self, axis=None, keepdims=False):
        tensor = self._tensor
        result = tensor.reshape(-1).argmax() if axis is None else tensor.argmax(dim=axis, keepdim=keepdims)
        return NDArray(result.to(tensor.dtype if tensor.is_floating_point() else torch.float32), self._ctx)

    def abs(self):
        return NDArray(self._tensor.abs(), self._ctx)

    def sqrt(self):
        return NDArray(self._tensor.sqrt(), self._ctx)

    def square(self):
        return NDArray(self._tensor.square(), self._ctx)

    def exp(self):
        return NDArray(self._tensor.exp(), self._ctx)

    def log(self):
        return NDArray(self._tensor.log(), self._ctx)

    def clip(self, a_min, a_max):
        return NDArray(self._tensor.clamp(a_min, a_max), self._ctx)

    # -- python protocol ---------------------------------------------------------------
    def __repr__(self):
        shape = "x".join(str(d) for d in self.shape)
        return f"\n{self.asnumpy()}\n<NDArray {shape} @{self._ctx}>"

    def __len__(self):
        if self.ndim == 0:
            raise MXNetError("len() of a 0-d NDArray")
        return self.shape[0]

    def __iter__(self):
        for index in range(len(self)):
            yield self[index]

    def __bool__(self):
        if self.size == 1:
            return bool(self._tensor.reshape(()).item())
        if self.size == 0:
            return False
        raise MXNetError("The truth value of an NDArray with more than one element is ambiguous.")

    def __float__(self):
        return float(self.asscalar())

    def __int__(self):
        return int(self.asscalar())

    def __array__(self, dtype=None, copy=None):
        result = self.asnumpy()
        return result.astype(dtype) if dtype is not None else result

    def __reduce__(self):
        return (NDArray, (None,), self.__getstate__())

    def __getstate__(self):
        """MXNet's pickled form: ``{'handle': bytearray}`` holding one array in the V2 record
        layout (what ``MXNDArraySaveRawBytes`` wrote), so pickles cross between MXNet and
        mxtorch."""
        from .serialization import save_raw_bytes
        return {"handle": bytearray(save_raw_bytes(self))}

    def __setstate__(self, state):
        from .serialization import load_raw_bytes
        handle = state.get("handle") if isinstance(state, dict) else None
        if handle is None:
            self._tensor = torch.empty(0)
        else:
            loaded = load_raw_bytes(bytes(handle))
            self._tensor = loaded._tensor
        self._ctx = Context("cpu", 0)
        self._grad = None
        self._grad_req = "null"

    @staticmethod
    def _index(key):
        if isinstance(key, NDArray):
            return key._tensor.long()
        if isinstance(key, tuple):
            return tuple(k._tensor.long() if isinstance(k, NDArray) else k for k in key)
        if isinstance(key, np.ndarray):
            return torch.from_numpy(key).long()
        return key

    def __getitem__(self, key):
        result = self._tensor[self._index(key)]
        if result.dim() == 0:
            result = result.reshape(1)
        return NDArray(result, self._ctx)

    def __setitem__(self, key, value):
        value = _unwrap(value)
        if isinstance(value, np.ndarray):
            value = torch.from_numpy(np.ascontiguousarray(value))
        with torch.no_grad():
            if isinstance(value, torch.Tensor):
                value = value.to(device=self._tensor.device, dtype=self._tensor.dtype)
            target = self._tensor[self._index(key)] if not (isinstance(key, slice) and key == slice(None)) \
                else self._tensor
            if isinstance(value, torch.Tensor) and target.shape != value.shape:
                try:
                    torch.broadcast_shapes(value.shape, target.shape)
                except RuntimeError:
                    raise MXNetError(f"__setitem__: cannot assign a value of shape {tuple(value.shape)} "
                                     f"to a slice of shape {tuple(target.shape)}") from None
            if isinstance(key, slice) and key == slice(None):
                if isinstance(value, torch.Tensor):
                    self._tensor.copy_(value.expand_as(self._tensor) if value.shape != self._tensor.shape
                                       else value)
                else:
                    self._tensor.fill_(value)
            else:
                self._tensor[self._index(key)] = value

    # -- arithmetic --------------------------------------------------------------------
    def _binary(self, other, function):
        if isinstance(other, NDArray):
            return NDArray(function(self._tensor, other._tensor), self._ctx)
        if isinstance(other, (numbers.Number, np.generic)):
            return NDArray(function(self._tensor, _scalar(other, self._tensor)), self._ctx)
        if isinstance(other, np.ndarray):
            return NDArray(function(self._tensor, torch.from_numpy(other).to(self._tensor)), self._ctx)
        return NotImplemented

    def _inplace(self, other, function):
        result = self._binary(other, function)
        if result is NotImplemented:
            return result
        with torch.no_grad():
            self._tensor.copy_(result._tensor)
        return self

    def __add__(self, other): return self._binary(other, torch.add)
    def __radd__(self, other): return self._binary(other, torch.add)
    def __sub__(self, other): return self._binary(other, torch.sub)
    def __rsub__(self, other): return self._binary(other, lambda a, b: b - a)
    def __mul__(self, other): return self._binary(other, torch.mul)
    def __rmul__(self, other): return self._binary(other, torch.mul)
    def __truediv__(self, other): return self._binary(other, _divide)
    def __rtruediv__(self, other): return self._binary(other, lambda a, b: _divide(b, a))
    __div__ = __truediv__
    __rdiv__ = __rtruediv__
    def __mod__(self, other): return self._binary(other, torch.fmod)
    def __rmod__(self, other): return self._binary(other, lambda a, b: torch.fmod(b, a))
    def __pow__(self, other): return self._binary(other, torch.pow)
    def __rpow__(self, other): return self._binary(other, lambda a, b: torch.pow(b, a))
    def __iadd__(self, other): return self._inplace(other, torch.add)
    def __isub__(self, other): return self._inplace(other, torch.sub)
    def __imul__(self, other): return self._inplace(other, torch.mul)
    def __itruediv__(self, other): return self._inplace(other, _divide)
    __idiv__ = __itruediv__
    def __imod__(self, other): return self._inplace(other, torch.fmod)

    def __neg__(self):
        return NDArray(-self._tensor, self._ctx)

    def __abs__(self):
        return self.abs()

    def _compare(self, other, function):
        result = self._binary(other, function)
        if result is NotImplemented:
            return result
        return NDArray(result._tensor.to(self._tensor.dtype), self._ctx)

    def __eq__(self, other): return self._compare(other, torch.eq)
    def __ne__(self, other): return self._compare(other, torch.ne)
    def __gt__(self, other): return self._compare(other, torch.gt)
    def __ge__(self, other): return self._compare(other, torch.ge)
    def __lt__(self, other): return self._compare(other, torch.lt)
    def __le__(self, other): return self._compare(other, torch.le)

    __hash__ = object.__hash__


def _scalar(value, like):
    """A python/numpy scalar as a 0-d tensor of ``like``'s dtype and device (MXNet casts scalars)."""
    return torch.tensor(value, dtype=like.dtype, device=like.device) if not like.is_floating_point() \
        else float(value)


def _divide(a, b):
    if isinstance(a, torch.Tensor) and not a.is_floating_point():
        return torch.div(a, b, rounding_mode="trunc")
    return torch.div(a, b)


def from_torch(tensor, ctx=None):
    """Wrap a torch tensor (no copy)."""
    return NDArray(tensor, ctx)


def _resolve_ctx(ctx):
    return ctx if ctx is not None else current_context()


def array(source_array, ctx=None, dtype=None):
    """A new NDArray holding a copy of ``source_array`` (list, numpy array, NDArray, tensor).

    Mirrors MXNet: the dtype is ``source_array.dtype`` for an NDArray source and
    float32 otherwise, unless ``dtype`` is given.
    """
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
            numpy_array = np.asarray(source_array, dtype=to_numpy_dtype(dtype))
        except (TypeError, ValueError) as error:
            raise MXNetError(f"array: cannot convert {type(source_array).__name__} to an array: {error}") from None
        tensor = torch.from_numpy(np.array(numpy_array, copy=True))
    return NDArray(tensor.to(device=ctx.torch_device, dtype=to_torch_dtype(dtype), copy=True), ctx)


def _shape_tuple(shape):
    if isinstance(shape, numbers.Integral):
        return (int(shape),)
    return tuple(int(d) for d in shape)


def zeros(shape, ctx=None, dtype=None, **kwargs):
    """An array of zeros of ``shape`` (float32 unless ``dtype``)."""
    ctx = _resolve_ctx(ctx)
    return NDArray(torch.zeros(_shape_tuple(shape), dtype=to_torch_dtype(dtype or np.float32),
                               device=ctx.torch_device), ctx)


def ones(shape, ctx=None, dtype=None, **kwargs):
    """An array of ones of ``shape`` (float32 unless ``dtype``)."""
    ctx = _resolve_ctx(ctx)
    return NDArray(torch.ones(_shape_tuple(shape), dtype=to_torch_dtype(dtype or np.float32),
                              device=ctx.torch_device), ctx)


def empty(shape, ctx=None, dtype=None):
    """An uninitialised array of ``shape`` (float32 unless ``dtype``)."""
    ctx = _resolve_ctx(ctx)
    return NDArray(torch.empty(_shape_tuple(shape), dtype=to_torch_dtype(dtype or np.float32),
                               device=ctx.torch_device), ctx)


def full(shape, val, ctx=None, dtype=None, out=None):
    """An array of ``shape`` filled with ``val``."""
    ctx = _resolve_ctx(ctx)
    result = NDArray(torch.full(_shape_tuple(shape), val, dtype=to_torch_dtype(dtype or np.float32),
                                device=ctx.torch_device), ctx)
    if out is not None:
        out[:] = result
        return out
    return result


def arange(start, stop=None, step=1.0, repeat=1, infer_range=None, ctx=None, dtype=None):
    """Evenly spaced values in ``[start, stop)``, each repeated ``repeat`` times (MXNet's arange)."""
    ctx = _resolve_ctx(ctx)
    if stop is None:
        start, stop = 0, start
    values = np.arange(start, stop, step, dtype=np.float64)
    if repeat != 1:
        values = np.repeat(values, int(repeat))
    return array(values, ctx=ctx, dtype=dtype or np.float32)


def concat(*arrays, dim=1, **kwargs):
    """Join arrays along ``dim`` (MXNet's ``nd.concat``; ``num_args`` is accepted and ignored)."""
    if "axis" in kwargs:
        dim = kwargs.pop("axis")
    if len(arrays) == 1 and isinstance(arrays[0], (list, tuple)):
        arrays = tuple(arrays[0])
    if not arrays:
        raise MXNetError("concat: needs at least one array")
    return NDArray(torch.cat([a._tensor for a in arrays], dim=dim), arrays[0].context)


def moveaxis(tensor, source, destination):
    return NDArray(torch.movedim(tensor._tensor, source, destination), tensor.context)


def onehot_encode(indices, out):
    """Write the one-hot encoding of ``indices`` into ``out`` (legacy MXNet helper)."""
    depth = out.shape[1]
    encoded = torch.nn.functional.one_hot(indices._tensor.long(), depth).to(out._tensor.dtype)
    out[:] = NDArray(encoded)
    return out


def imdecode(*args, **kwargs):
    raise MXNetError("nd.imdecode: use mx.image.imdecode")


def waitall():
    """Wait for all pending device work (``torch.cuda.synchronize`` when CUDA is in use)."""
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()
