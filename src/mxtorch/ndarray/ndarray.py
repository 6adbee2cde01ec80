"""NDArray: a ``torch.Tensor`` plus the MXNet ``Context`` it belongs to.

Operations are eager (torch runs them as they are called); ``wait_to_read``
and ``waitall`` synchronise the device where MXNet's asynchronous engine
needed it.  Parameter arrays bound to an executor are shared by reference:
the executor reads and writes ``NDArray._tensor`` in place, so a weight set
with ``arr[:] = value`` is what the next forward sees.
"""
from __future__ import annotations

import ctypes
import numbers
import weakref

import numpy as np
import torch
import torch.utils.dlpack

from .. import recording as _recording
from .. import base as _dtypes
from ..base import MXNetError, MXNetValueError
from ..context import Context, current_context, context_from_torch
from ..ops import registry
from . import indexing as _indexing
from . import pending

# NDArray tokens handed out as C handles (``NDArray._as_parameter_``), by id
_HANDLES = weakref.WeakValueDictionary()
# arrays made by a C API call (``base._LIB``): the handle owns them until ``NDArray(handle)``
# takes them over, as MXNet's NDArray took ownership of a handle the C library returned
_C_OWNED_HANDLES = {}
# names MXNet 1.9.1's mxnet.ndarray.ndarray had in its namespace from its ctypes binding
from array import array as native_array  # noqa: E402,F401
from functools import reduce  # noqa: E402,F401
from ..base_ctypes import NDArrayBase, _LIB  # noqa: E402,F401
from ..runtime import Features  # noqa: E402,F401
from ..util import is_np_array  # noqa: E402,F401
from ..base import (  # noqa: E402,F401
    DLPackHandle, NDArrayHandle, c_array, c_array_buf, c_handle_array, c_str, check_call,
    ctypes2buffer, integer_types, mx_int, mx_int64, mx_real_t, mx_uint, numeric_types,
)

# MXNet's mxnet.ndarray.ndarray held more (array, zeros, concat, from_numpy, CachedOp, ...): the package's
# __init__ completes this module's namespace with the names defined in the files above it
__all__ = ["NDArray", "array", "zeros", "ones", "empty", "full", "arange", "linspace", "eye", "concat",
           "concatenate", "waitall", "to_torch_dtype", "to_numpy_dtype", "from_torch", "moveaxis",
           "onehot_encode", "add", "subtract", "multiply", "divide", "true_divide", "modulo",
           "power", "maximum", "minimum", "equal", "not_equal", "greater", "greater_equal", "lesser",
           "lesser_equal", "logical_and", "logical_or", "logical_xor", "split_v2", "histogram", "from_numpy",
           "from_dlpack", "to_dlpack_for_read", "to_dlpack_for_write", "CachedOp"]

# MXNet's storage-type ids (sparse arrays are held dense and report their storage type)
_STORAGE_TYPE_UNDEFINED = -1
_STORAGE_TYPE_DEFAULT = 0
_STORAGE_TYPE_ROW_SPARSE = 1
_STORAGE_TYPE_CSR = 2
_STORAGE_TYPE_STR_TO_ID = {"undefined": _STORAGE_TYPE_UNDEFINED, "default": _STORAGE_TYPE_DEFAULT,
                           "row_sparse": _STORAGE_TYPE_ROW_SPARSE, "csr": _STORAGE_TYPE_CSR}
_STORAGE_TYPE_ID_TO_STR = {value: key for key, value in _STORAGE_TYPE_STR_TO_ID.items()}
_SIGNED_INT32_UPPER_LIMIT = 2 ** 31 - 1
"""The most elements MXNet built without ``USE_INT64_TENSOR_SIZE`` could hold in an array."""
# MXNet's type flags <-> NumPy types (None <-> -1, bfloat16 as base.BFLOAT16), from base's table;
# MXNet 1.9.1's tables had no int16 (flag 8), which only its NumPy front end used
_DTYPE_NP_TO_MX = {None: -1}
_DTYPE_NP_TO_MX.update({_dtypes.numpy_type(name): _dtypes.dtype_flag(name) for name in _dtypes.dtype_names()
                        if name != "int16"})
_DTYPE_MX_TO_NP = {flag: numpy_type for numpy_type, flag in _DTYPE_NP_TO_MX.items()}
# grad_req names -> MXNet's OpReqType values (kNullOp, kWriteTo, kAddTo)
_GRAD_REQ_MAP = {"null": 0, "write": 1, "add": 3}
# whether the library sizes tensors with 64-bit integers (asked once, from runtime.Features)
_INT64_TENSOR_SIZE_ENABLED = None


def _int64_enabled():
    """True when arrays may have more than 2**31 - 1 elements (``Features``' INT64_TENSOR_SIZE,
    always on under torch); the answer is cached in ``_INT64_TENSOR_SIZE_ENABLED``."""
    global _INT64_TENSOR_SIZE_ENABLED
    if _INT64_TENSOR_SIZE_ENABLED is None:
        _INT64_TENSOR_SIZE_ENABLED = Features().is_enabled("INT64_TENSOR_SIZE")
    return _INT64_TENSOR_SIZE_ENABLED

py_slice = slice  # MXNet's module name for the builtin ``slice`` (its ``slice`` was the operator)


def to_numpy_dtype(dtype):
    """Normalise a dtype given as str, numpy type, numpy dtype or torch dtype to a numpy dtype
    (``base.BFLOAT16`` for bfloat16, None for float32); MXNetError for unsupported dtypes."""
    if dtype is None:
        return np.dtype(np.float32)
    return _dtypes.numpy_dtype(dtype)


def to_torch_dtype(dtype):
    """The torch dtype for an MXNet/numpy dtype given in any accepted spelling."""
    if isinstance(dtype, torch.dtype):
        return dtype
    return _dtypes.torch_dtype(dtype)


def _host_dtype(dtype):
    """The NumPy dtype that holds values of ``dtype`` on the host (float32 for bfloat16)."""
    result = to_numpy_dtype(dtype)
    return np.dtype(np.float32) if result == _dtypes.BFLOAT16 else result


def _unwrap(value):
    return value._tensor if isinstance(value, NDArray) else value


class _Computation:
    """A function of tensors (one tensor out) as a computation ``registry.record_call`` records."""

    def __init__(self, function):
        self.function = function

    def forward(self, is_train, inputs, aux):  # noqa: ARG002
        return [self.function(*inputs)]


def _recorded(function, *tensors):
    """``function(*tensors)``, recorded inside ``mx.autograd.record()`` as MXNet recorded the
    operator it stands for (through integer tensors too: ``registry.record_call``)."""
    if not _recording.is_recording():
        return function(*tensors)
    with torch.enable_grad():
        outputs = registry.record_call(_Computation(function), _recording.is_training(), list(tensors), [])
        return registry.attach_zero_carriers(tensors, list(outputs))[0]


# -- what the package's other files provide to the array class -----------------------------------
# The array class is the bottom of mxtorch.ndarray: the imperative operator calls (register.py),
# storage types (sparse.py), the gradient engine (gradients.py) and the binary format
# (serialization.py) import it, so its methods reach them through this table, which each of
# them fills when mxtorch.ndarray imports it.
_PROVIDED = {}


def provide(name):
    """Decorator: register a function of a file above this one under ``name`` for the array
    class's methods (see ``_PROVIDED``)."""
    def decorate(function):
        _PROVIDED[name] = function
        return function
    return decorate


def _provided(name):
    """The function registered under ``name`` (``mxtorch.ndarray`` imports every provider)."""
    try:
        return _PROVIDED[name]
    except KeyError:
        raise MXNetError(f"mxtorch.ndarray: {name!r} is provided by a file of the package that was not "
                         f"imported; import mxtorch.ndarray (import mxtorch) first") from None


def _call(op_name, *args, **kwargs):
    """Run the registered operator ``op_name`` imperatively (``mx.nd.<op_name>(*args, **kwargs)``)."""
    return _provided("invoke")(registry.get_operator(op_name), args, kwargs)


class NDArray(NDArrayBase):
    """An n-dimensional array on a Context (MXNet's ``mx.nd.NDArray``).

    ``shape`` is a tuple of ints, ``dtype`` a numpy scalar type (``numpy.float32``
    by default), ``context`` the Context.  Arithmetic with arrays and scalars
    broadcasts like MXNet's ``broadcast_*`` operators.  Besides the methods written
    here, every operator declared ``fluent`` in ``ops`` is a method that calls the
    registered operator of that name with this array first (``x.sum(axis=1)`` is
    ``mx.nd.sum(x, axis=1)``).  ``writable=False`` makes assignments raise MXNetError.
    """

    __slots__ = ("_tensor", "_ctx", "_grad", "_grad_req", "writable", "_fresh_grad", "__weakref__")
    __array_priority__ = 1000.0

    def __init__(self, tensor=None, ctx=None, writable=True, handle=None):
        if handle is not None:
            # MXNet's keyword spelling NDArray(handle=h): the same first argument
            if tensor is not None:
                raise MXNetError("NDArray: give the tensor or handle, not both")
            tensor = handle
        if tensor is None:
            # MXNet's NDArray(None): the empty shell that unpickling fills through __setstate__
            tensor = torch.empty(0)
        if isinstance(tensor, ctypes.c_void_p):
            # MXNet's NDArray(handle): a handle from ctypes.cast(array, NDArrayHandle), as legacy
            # monitor callbacks build one; the new array shares the original's memory
            source = _C_OWNED_HANDLES.pop(tensor.value, None)
            if source is None:
                source = _HANDLES.get(tensor.value)
            if source is None:
                raise MXNetError(f"NDArray(handle): {tensor!r} is not the handle of a live NDArray "
                                 f"(handles come from ctypes.cast(array, NDArrayHandle))")
            tensor, ctx = source._tensor, ctx if ctx is not None else source._ctx
        if not isinstance(tensor, torch.Tensor):
            raise MXNetError(f"NDArray wraps a torch.Tensor, got {type(tensor).__name__}")
        self._tensor = tensor
        self._ctx = ctx if ctx is not None else context_from_torch(tensor.device)
        self._grad = None
        self._grad_req = "null"
        self.writable = writable
        # set by backward when it writes this array's gradient; gluon.Trainer reads and clears it
        self._fresh_grad = False

    # -- properties ---------------------------------------------------------------
    @property
    def shape(self):
        return tuple(self._tensor.shape)

    @property
    def dtype(self):
        """The NumPy type (``numpy.float32``, ...); for bfloat16 MXNet's ``base.BFLOAT16`` dtype."""
        return _dtypes.numpy_type(self._tensor.dtype)

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
        """The underlying ``torch.Tensor`` (MXNet's C handle)."""
        return self._tensor

    @property
    def _as_parameter_(self):
        # what ctypes.cast(array, NDArrayHandle) reads: a token that NDArray(handle) turns back into
        # an array on the same memory, for as long as this array lives
        _HANDLES[id(self)] = self
        return ctypes.c_void_p(id(self))

    @property
    def T(self):
        """The transpose (all axes reversed) for 2 or more dimensions; the array itself otherwise."""
        if self.ndim < 2:
            return self
        return self.transpose()

    @property
    def grad(self):
        """The gradient array given by ``attach_grad`` (None before); ``backward`` fills it."""
        return self._grad

    # -- conversion ---------------------------------------------------------------
    def asnumpy(self):
        """Copy to a numpy array (blocks until the value is computed).  Raises the pending
        error of the operator that computed this array, if it failed (MXNet's deferred engine
        errors, ``ndarray.pending``)."""
        pending.raise_if_failed(self._tensor)
        tensor = self._tensor.detach()
        if tensor.dtype == torch.bfloat16:
            tensor = tensor.float()
        return tensor.cpu().numpy().copy()

    def asscalar(self):
        """The value of a 1-element array as a numpy scalar; MXNetError otherwise."""
        if self.size != 1:
            raise MXNetValueError(f"asscalar: the array must have exactly one element, its shape is {self.shape}")
        return self.asnumpy().reshape(())[()]

    def astype(self, dtype, copy=True):
        """This array converted to ``dtype``; with ``copy=False`` the same array when already of it."""
        target = to_torch_dtype(dtype)
        if not copy and target == self._tensor.dtype:
            return self
        return self._inherit_failure(NDArray(_recorded(lambda t: t.to(target, copy=True), self._tensor),
                                             self._ctx))

    def copyto(self, other):
        """Copy into an NDArray (same shape) or onto a Context (new array)."""
        if isinstance(other, NDArray):
            if other is self:
                return other
            if other.shape != self.shape:
                raise MXNetError(f"copyto: shape mismatch, source {self.shape} vs target {other.shape}")
            with other._check_writable("copyto", self):
                other._tensor.copy_(self._tensor)
            return self._inherit_failure(other)
        if isinstance(other, Context):
            return self._inherit_failure(NDArray(self._tensor.detach().to(other.torch_device, copy=True), other))
        raise MXNetError(f"copyto: expected an NDArray or Context, got {type(other).__name__}")

    def copy(self):
        """A new array with a copy of the data, on the same context."""
        return self._inherit_failure(NDArray(self._tensor.detach().clone(), self._ctx))

    def _inherit_failure(self, copy):
        """``copy`` (an array computed from this one), carrying this array's pending error."""
        if pending.failure_of([self._tensor]) is not None:
            pending.mark([copy._tensor], pending.failure_of([self._tensor]))
        return copy

    def as_in_context(self, context):
        """This array on ``context`` (itself if already there)."""
        if context == self._ctx:
            return self
        return self.copyto(context)

    def as_nd_ndarray(self):
        """This array (it already is an ``mx.nd.NDArray``)."""
        return self

    def as_np_ndarray(self):
        """This array as an ``mx.np.ndarray`` on the same tensor (no copy; ``numpy_array.py``)."""
        return _provided("as_np_ndarray")(self)

    def tostype(self, stype):
        """This array in storage type ``stype`` ('default', 'row_sparse', 'csr'); sparse types
        are held dense and report their stype (``mx.nd.sparse``)."""
        return _provided("to_storage")(self, stype)

    def to_dlpack_for_read(self):
        """A DLPack capsule sharing this array's memory (see ``mx.nd.to_dlpack_for_read``)."""
        return to_dlpack_for_read(self)

    def to_dlpack_for_write(self):
        """A DLPack capsule sharing this array's memory (see ``mx.nd.to_dlpack_for_write``)."""
        return to_dlpack_for_write(self)

    # -- shape methods with MXNet's Python-level behaviour ---------------------------------
    def reshape(self, *shape, **kwargs):
        """A view with a new shape, using MXNet's special codes (0, -1, -2, -3, -4; ``reverse=``).

        ``x.reshape((2, 3))``, ``x.reshape(2, 3)`` and ``x.reshape(shape=(2, 3))`` are the same.
        The result shares memory with this array (writes go through, as in MXNet).  Keywords
        other than ``shape`` and ``reverse``, a missing shape, or a shape with another number of
        elements raise MXNetError.
        """
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        elif not shape:
            shape = kwargs.get("shape")
            if not shape:
                raise MXNetError("reshape: a target shape must be given")
            shape = tuple(shape)
        unknown = sorted(k for k in kwargs if k not in ("shape", "reverse"))
        if unknown:
            raise MXNetError(f"reshape: unknown keyword arguments {unknown}; accepted are 'shape' and 'reverse'")
        reverse = kwargs.get("reverse", False)
        from ..ops.shape_codes import infer_reshape
        target = infer_reshape(self.shape, tuple(shape), reverse, op_name="reshape")
        return NDArray(_recorded(lambda t: t.view(target) if t.is_contiguous() else t.reshape(target),
                                 self._tensor), self._ctx, self.writable)

    def flatten(self, inplace=False):
        """``(d0, d1, ...)`` -> ``(d0, d1 * ...)`` through the ``Flatten`` operator; with
        ``inplace=True`` a view sharing this array's memory."""
        if inplace:
            return self.reshape((0, -1))
        return _call("Flatten", self)

    def expand_dims(self, axis, inplace=False):
        """A new axis of size 1 at ``axis`` (``expand_dims`` operator); with ``inplace=True`` a
        view sharing this array's memory."""
        if not inplace:
            return _call("expand_dims", self, axis=axis)
        ndim = self.ndim
        if not -ndim - 1 <= axis <= ndim:
            raise MXNetError(f"expand_dims: axis {axis} is out of range for a {ndim}-d array")
        shape = list(self.shape)
        shape.insert(axis if axis >= 0 else axis + ndim + 1, 1)
        return self.reshape(shape)

    def squeeze(self, axis=None, inplace=False):
        """Remove axes of size 1 (all of them, or those in ``axis``) through the ``squeeze``
        operator; with ``inplace=True`` a view.  A result with no axis left has shape ``(1,)``."""
        if not inplace:
            return _call("squeeze", self, axis=axis)
        shape = list(self.shape)
        if axis is None:
            shape = [d for d in shape if d != 1]
        else:
            axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
            if len(set(axes)) != len(axes):
                raise MXNetError(f"squeeze: axis {axes} contains duplicates")
            resolved = []
            for item in axes:
                if not -len(shape) <= item < len(shape):
                    raise MXNetError(f"squeeze: axis {item} is out of range for a {len(shape)}-d array")
                index = item + len(shape) if item < 0 else item
                if shape[index] != 1:
                    raise MXNetError(f"squeeze: axis {item} has size {shape[index]}, only size-1 axes can be removed")
                resolved.append(index)
            shape = [d for i, d in enumerate(shape) if i not in resolved]
        return self.reshape(shape or [1])

    def diag(self, k=0, **kwargs):
        """The ``k``-th diagonal of a matrix, or a matrix with this vector on diagonal ``k``."""
        return _call("diag", self, k=k, **kwargs)

    def split_v2(self, *args, **kwargs):
        """``mx.nd.split_v2(self, indices_or_sections, axis=0, squeeze_axis=False)``."""
        return _provided("split_v2")(self, *args, **kwargs)

    def broadcast_to(self, shape):
        """Broadcast to ``shape``.  As in MXNet's NDArray method (not the operator), an array with
        fewer dimensions is first padded with leading 1s; every non-1 dimension must equal the
        target's.  MXNetError names both shapes otherwise."""
        shape = tuple(int(d) for d in shape)
        current = self.shape
        message = (f"broadcast_to: cannot broadcast an array of shape {current} to the requested shape {shape}")
        if len(shape) < len(current):
            raise MXNetError(message)
        padded = (1,) * (len(shape) - len(current)) + current
        if any(have != want and have != 1 for have, want in zip(padded, shape)):
            raise MXNetError(message)
        source = self.reshape(padded) if padded != current else self
        return _call("broadcast_to", source, shape=shape)

    def broadcast_like(self, other):
        """``broadcast_to(other.shape)``."""
        return self.broadcast_to(other.shape)

    # -- in-place slice assignment ------------------------------------------------------------
    def _slices(self, begin, end, step, function):
        ndim = self.ndim
        begin, end = tuple(begin), tuple(end)
        step = tuple(step) if step is not None else ()
        if len(begin) != len(end) or len(begin) > ndim or len(step) > len(begin):
            raise MXNetError(f"{function}: begin {begin}, end {end} and step {step} must have one entry per "
                             f"leading axis of the {ndim}-d array (step may be shorter)")
        index = []
        advanced = False
        for axis in range(len(begin)):
            stride = step[axis] if axis < len(step) and step[axis] is not None else 1
            if stride == 0:
                raise MXNetError(f"{function}: step must not be 0 (axis {axis})")
            start, stop, stride = slice(begin[axis], end[axis], stride).indices(self.shape[axis])
            if stride < 0:
                advanced = True
            index.append((start, stop, stride))
        if not advanced:
            return tuple(slice(*item) for item in index)
        # torch slicing has no negative steps: address the elements with index tensors
        tensors = []
        for axis, (start, stop, stride) in enumerate(index):
            positions = torch.arange(start, stop, stride, device=self._tensor.device)
            view = [1] * len(index)
            view[axis] = -1
            tensors.append(positions.reshape(view))
        return tuple(tensors)

    def slice_assign(self, rhs, begin, end, step):
        """Write ``rhs`` into ``self[begin:end:step]`` (per-axis tuples, None entries meaning the
        whole axis, negative steps allowed) in place and return this array.  ``rhs`` must have the
        slice's shape (MXNet's ``_slice_assign``)."""
        mode = self._check_writable("slice_assign", rhs, partial=True)
        key = self._slices(begin, end, step, "slice_assign")
        value = rhs._tensor if isinstance(rhs, NDArray) else torch.as_tensor(np.asarray(rhs))
        with mode:
            target_shape = tuple(self._tensor[key].shape)
            if tuple(value.shape) != target_shape:
                raise MXNetError(f"slice_assign: rhs has shape {tuple(value.shape)}, the slice has {target_shape}")
            self._tensor[key] = value.to(device=self._tensor.device, dtype=self._tensor.dtype)
        return self

    def slice_assign_scalar(self, value, begin, end, step):
        """Fill ``self[begin:end:step]`` with the scalar ``value`` in place and return this array
        (MXNet's ``_slice_assign_scalar``)."""
        self._check_writable("slice_assign_scalar")
        key = self._slices(begin, end, step, "slice_assign_scalar")
        with torch.no_grad():
            self._tensor[key] = float(value) if self._tensor.is_floating_point() else value
        return self

    def wait_to_read(self):
        """Block until the value is computed (synchronises the CUDA device).  Raises the pending
        error of a failed computation, as MXNet's ``wait_to_read`` did (``ndarray.pending``)."""
        pending.raise_if_failed(self._tensor)
        if self._tensor.is_cuda:
            torch.cuda.synchronize(self._tensor.device)

    # -- autograd -----------------------------------------------------------------------------
    def attach_grad(self, grad_req="write", stype=None):
        """Allocate ``grad`` (zeros, this array's shape and dtype) and mark the array as a variable
        that ``backward`` differentiates for.  ``grad_req``: 'write' (each backward overwrites
        ``grad``), 'add' (accumulates) or 'null' (no gradient).  An integer array receives its
        gradients truncated to integers, as in MXNet (a float carrier records them: see
        ``registry.gradient_carrier``); ``stype`` 'row_sparse' / 'csr' makes ``grad`` an array of that storage
        type (``mx.nd.sparse``, held dense like every mxtorch array: the gradient values are
        the same); another stype raises MXNetError.  Without ``stype`` the gradient has this
        array's storage type, as in MXNet."""
        if grad_req not in ("write", "add", "null"):
            raise MXNetError(f"attach_grad: grad_req must be 'write', 'add' or 'null', got {grad_req!r}")
        if stype is None:
            stype = self.stype
        zeros = torch.zeros_like(self._tensor, requires_grad=False)
        if stype in (None, "default"):
            grad = NDArray(zeros, self._ctx)
        else:
            grad = _provided("with_storage")(zeros, self._ctx, stype)
        _provided("make_variable")(self, grad, grad_req)

    def use_storage(self, tensor, requires_grad=False):
        """Hold the torch tensor ``tensor`` from now on instead of the current storage (no copy
        when dtype and device agree; otherwise converted to this array's).  Every holder of this
        NDArray object sees the new values: the executor hands its outputs and fresh gradients
        over this way.  The tensor is detached from any recorded computation; with
        ``requires_grad`` it becomes a torch leaf that records gradients (``attach_grad``).
        The one way code outside ``ndarray/`` swaps an array's storage.  An mxtorch extension
        (MXNet arrays could not change their memory)."""
        tensor = tensor.detach()
        current = self._tensor
        if tensor.dtype != current.dtype or tensor.device != current.device:
            tensor = tensor.to(device=current.device, dtype=current.dtype)
        if requires_grad:
            tensor.requires_grad_(True)
        self._tensor = tensor
        return self

    def detach(self):
        """An array sharing the data but cut from the recorded computation."""
        return NDArray(self._tensor.detach(), self._ctx)

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        """Gradients of this array (computed inside ``mx.autograd.record()``) with respect to every
        array marked with ``attach_grad``; they are written to ('write') or added to ('add') its
        ``grad``.  ``out_grad`` is the head gradient (ones when None); ``retain_graph=True`` keeps
        the recording for another backward.  ``train_mode`` is accepted for MXNet compatibility:
        the training flag already took effect when the forward computation was recorded.
        Raises MXNetError when nothing was recorded or the recording was already used."""
        _provided("backward")([self], [out_grad], retain_graph=retain_graph, train_mode=train_mode)

    def tolist(self):
        return self.asnumpy().tolist()

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
        raise MXNetValueError("The truth value of an NDArray with more than one element is ambiguous.")

    def __float__(self):
        return float(self.asscalar())

    def __int__(self):
        return int(self.asscalar())

    def __array__(self, dtype=None, copy=None):
        result = self.asnumpy()
        return result.astype(dtype) if dtype is not None else result

    def __reduce__(self):
        return (NDArray, (None,), self.__getstate__())

    def __deepcopy__(self, memo):
        """``copy.deepcopy``: what a pickle round trip gives (``__reduce__``), without writing
        the bytes: a new dense array on ``cpu(0)``, same values and dtype, no gradient,
        writable; pending errors raise as ``asnumpy`` would.  Subclasses (the sparse arrays)
        take the pickle path itself."""
        if type(self) is not NDArray:
            return _reduce_copy(self, memo)
        self.wait_to_read()
        tensor = self._tensor.detach().to("cpu").clone(memory_format=torch.contiguous_format)
        result = memo[id(self)] = NDArray(tensor, Context("cpu", 0))
        return result

    def __getstate__(self):
        """MXNet's pickled form: ``{'handle': bytearray}`` holding one array in the V2 record
        layout (what ``MXNDArraySaveRawBytes`` wrote), so pickles cross between MXNet and
        mxtorch."""
        return {"handle": bytearray(_provided("save_raw_bytes")(self))}

    def __setstate__(self, state):
        handle = state.get("handle") if isinstance(state, dict) else None
        if handle is None:
            self._tensor = torch.empty(0)
        else:
            loaded = _provided("load_raw_bytes")(bytes(handle))
            self._tensor = loaded._tensor
            self._adopt_storage(loaded)
        self._ctx = Context("cpu", 0)
        self._grad = None
        self._grad_req = "null"
        self.writable = True
        self._fresh_grad = False

    def _adopt_storage(self, loaded):
        """Take over what ``loaded`` (the array an unpickled record gave) stores besides its
        tensor; a dense array stores nothing more (the sparse classes keep their parts)."""

    @staticmethod
    def _basic_indexing_slice_is_contiguous(slices, shape):
        """Whether ``x[slices]`` (one slice per axis of ``shape``) is one contiguous block, so
        that basic indexing returns a view (MXNet's rule; see ``indexing.slice_is_contiguous``)."""
        return _indexing.slice_is_contiguous(slices, shape)

    def __getitem__(self, key):
        """``x[key]``: numpy's basic and advanced indexing (see ``mxtorch.ndarray.indexing``).
        A basic key gives a view sharing this array's memory; a result of no axes has shape
        ``(1,)``, as MXNet 1.x returns it.  Raises IndexError for an out-of-range integer and
        MXNetError for an unsupported key."""
        def read(tensor):
            result = _indexing.getitem(tensor, key, _unwrap)
            return result.reshape(1) if result.dim() == 0 else result
        return NDArray(_recorded(read, self._tensor), self._ctx)

    def __setitem__(self, key, value):
        """``x[key] = value`` in place: ``value`` is a number, a (nested) list, a numpy array or
        scalar, or an NDArray, broadcast onto the indexed region (leading unit axes of ``value``
        dropped) and cast to this array's dtype.  As in MXNet, assigning an array that autograd
        records (or into one) inside ``mx.autograd.record()`` raises MXNetError."""
        self._assign(key, value, "__setitem__")

    def _assign(self, key, value, function):
        """``self[key] = value`` past one :meth:`_check_writable` whose errors name ``function``
        (``__setitem__``, or the operator writing its result with ``out=``)."""
        whole = key is Ellipsis or (isinstance(key, slice) and key == slice(None))
        mode = self._check_writable(function, value, partial=not whole)
        value = _unwrap(value)
        if isinstance(value, (list, tuple)):
            value = np.asarray(value)
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, np.ndarray):
            value = torch.from_numpy(np.ascontiguousarray(value))
        with mode:
            _indexing.setitem(self._tensor, key, value, _unwrap)

    # -- arithmetic --------------------------------------------------------------------
    def _check_writable(self, function, value=None, partial=False):
        """The one guard every write into this array's memory passes (``x[key] = v``, ``+=`` and
        the other in-place operators, ``out=``, ``copyto``, ``slice_assign``).  Returns the torch
        grad mode the write runs under.

        Raises MXNetError when the array is read-only, or, inside ``autograd.record()``, when the
        array is already in the recorded graph (the result of a recorded operator, or a variable
        marked with ``attach_grad``): MXNet 1.9.1 refuses such writes since they would make the
        gradients wrong.  Writing a recorded ``value`` into an array outside the graph is
        recorded (the write becomes part of the graph) when it replaces the whole array; a
        ``partial`` write (one that keeps some of the old content: ``+=``, ``x[idx] = v``) of a
        recorded value raises MXNetError, as in MXNet."""
        if not self.writable:
            raise MXNetError(f"{function}: the array is read-only (writable=False)")
        if not _recording.is_recording():
            return torch.no_grad()
        if registry.gradient_carrier(self._tensor).requires_grad:
            raise MXNetError(
                f"{function}: Assigning to NDArrays that are already in a computational graph will cause "
                f"undefined behavior when evaluating gradients. Call backward first or do this outside a "
                f"record section; in-place operations like +=, *=, relu(x, out=x), y[idx]=x are not "
                f"allowed inside a record section on arrays the graph holds (this array has shape "
                f"{tuple(self._tensor.shape)})")
        if isinstance(value, NDArray) and registry.gradient_carrier(value._tensor).requires_grad:
            if partial:
                raise MXNetError(f"{function}: Inplace operations (+=, -=, x[:]=, etc) are not supported "
                                 f"when recording with autograd: the value is recorded and the write "
                                 f"keeps part of the array's old content; write the whole array "
                                 f"(x[:] = value) or use an out-of-place operator")
            return torch.enable_grad()
        return torch.no_grad()

    # The Python operators (+, -, *, /, %, **, comparisons, their reflected and in-place forms)
    # are installed by arithmetic.py, with the element-wise functions they dispatch to.
    def __abs__(self):
        return self.abs()

    __hash__ = object.__hash__


def from_torch(tensor, ctx=None):
    """Wrap a torch tensor (no copy)."""
    return NDArray(tensor, ctx)


def waitall():
    """Wait for all pending device work (``torch.cuda.synchronize`` when CUDA is in use).  As
    MXNet's ``waitall``, raises the first pending operator error and clears all of them
    (``ndarray.pending``)."""
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()
    pending.raise_first_and_clear()


def to_dlpack_for_read(data):
    """A DLPack capsule (``'dltensor'``) sharing ``data``'s memory, for another framework to read;
    waits for pending work first."""
    data.wait_to_read()
    return torch.utils.dlpack.to_dlpack(data._tensor.detach())


def to_dlpack_for_write(data):
    """A DLPack capsule (``'dltensor'``) sharing ``data``'s memory, for another framework to write."""
    data.wait_to_read()
    return torch.utils.dlpack.to_dlpack(data._tensor.detach())


def _reduce_copy(array, memo):
    """``copy.deepcopy`` through ``__reduce__`` (the pickle path)."""
    import copy
    constructor, arguments, state = array.__reduce__()
    result = constructor(*arguments)
    memo[id(array)] = result
    result.__setstate__(copy.deepcopy(state, memo))
    return result
