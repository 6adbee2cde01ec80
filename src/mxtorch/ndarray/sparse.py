"""``mx.nd.sparse``: row-sparse and CSR arrays, far enough for Module-era code.

mxtorch holds every array dense.  A ``RowSparseNDArray`` / ``CSRNDArray`` is an NDArray whose
values are stored densely and which reports its storage type (``stype``) and derives MXNet's
sparse views on request: ``indices`` / ``data`` (the rows holding a non-zero value) for
row-sparse, ``indptr`` / ``indices`` / ``data`` (compressed sparse rows) for CSR.  Every
operator works on them as on dense arrays and returns a dense result, which is what MXNet
computed numerically (MXNet picked sparse kernels for speed; here the dense torch kernels do
the work).  ``tostype`` / ``cast_storage`` convert between the three storage types.

Constructors follow MXNet: ``row_sparse_array((data, indices), shape=...)``,
``csr_matrix((data, indices, indptr), shape=...)``, either from a dense array,
``zeros(stype, shape)``, ``empty``, ``array`` (also from a scipy sparse matrix).

The operator functions of this module (``sqrt``, ``elemwise_mul``, ``dot``, ``retain``,
``sgd_update``, ...) are generated from the operator registry, like ``mx.nd``: every operator
that declares its storage types (``sparse_storage`` in ``mxtorch.ops``) is here, and returns
the storage type MXNet 1.9.1 returns for the given inputs (``sqrt`` of a csr array is csr,
``exp`` of it dense, ``dot(csr.T, dense)`` row_sparse, ...).  ``mx.nd.X`` gives the same
storage types; only the namespace differs.
"""
from __future__ import annotations

import numpy as np
import torch

from ..base import (MXNetError, NDArrayHandle, NotSupportedForSparseNDArray, integer_types, mx_real_t,  # noqa: F401
                    numeric_types, c_array_buf, check_call)
from ..context import Context, current_context  # noqa: F401
from ..ops import registry
from .arithmetic import _dispatch
from .creation import _resolve_ctx
from .creation import array as native_array  # noqa: F401
from .ndarray import NDArray, provide, to_torch_dtype

_OWN_NAMES = ["BaseSparseNDArray", "RowSparseNDArray", "CSRNDArray", "row_sparse_array", "csr_matrix", "zeros",
              "empty", "array", "add", "subtract", "multiply", "divide"]

py_slice = slice
py_sum = sum

STORAGE_TYPES = ("default", "row_sparse", "csr")
_operators = None     # the registered ``_sparse_*`` operators, set by ``mx.nd``


def __getattr__(name):
    if _operators is not None and not name.startswith("__"):
        return getattr(_operators, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class BaseSparseNDArray(NDArray):
    """Base of the sparse storage types: a dense NDArray that reports its ``stype``."""

    __slots__ = ()
    _storage = None

    @property
    def stype(self):
        return self._storage

    def __repr__(self):
        shape = "x".join(str(d) for d in self.shape)
        return f"\n<{type(self).__name__} {shape} @{self.context}>"

    def copy(self):
        return _with_storage(self._tensor.clone(), self._ctx, self._storage)

    def detach(self):
        """An array of this storage type sharing the data, cut from the recorded computation."""
        return _with_storage(self._tensor.detach(), self._ctx, self._storage)

    # as in MXNet, ``+ - *`` of a sparse array run mx.nd.sparse.add / subtract / multiply
    # (elemwise_* for one shape: csr + csr stays csr)
    def __add__(self, other):
        return add(self, other)

    def __sub__(self, other):
        return subtract(self, other)

    def __mul__(self, other):
        return multiply(self, other)

    def copyto(self, other):
        """Into an NDArray (values only; the target keeps its storage type) or onto a Context
        (a new array of this storage type)."""
        from ..context import Context
        if isinstance(other, Context):
            return _with_storage(self._tensor.detach().to(other.torch_device, copy=True), other, self._storage)
        return super().copyto(other)

    def astype(self, dtype, copy=True):
        if not copy and np.dtype(dtype) == np.dtype(self.dtype):
            return self
        return _with_storage(self._tensor.to(to_torch_dtype(dtype)), self._ctx, self._storage)

    def as_in_context(self, context):
        if context == self.context:
            return self
        return _with_storage(self._tensor.to(context.torch_device), context, self._storage)

    def check_format(self, full_check=True):
        """Dense storage is always well formed."""

    def _nonzero_rows(self):
        flat = self._tensor.reshape(self._tensor.shape[0], -1) if self._tensor.dim() else self._tensor
        return torch.nonzero(flat.ne(0).any(dim=1)).reshape(-1)


class RowSparseNDArray(BaseSparseNDArray):
    """A row-sparse array: ``indices`` (int64, sorted) are the rows holding a non-zero value and
    ``data`` those rows, shape ``(len(indices),) + shape[1:]``."""

    __slots__ = ()
    _storage = "row_sparse"

    @property
    def indices(self):
        return NDArray(self._nonzero_rows().to(torch.int64), self._ctx)

    @property
    def data(self):
        return NDArray(self._tensor.index_select(0, self._nonzero_rows()), self._ctx)

    def retain(self, *args, **kwargs):
        """``mx.nd.sparse.retain`` with this array as ``data``: a RowSparseNDArray keeping only
        the rows ``indices``."""
        return _operators.retain(self, *args, **kwargs)


class CSRNDArray(BaseSparseNDArray):
    """A 2-D array in compressed sparse row form: ``indptr`` (int64, ``shape[0] + 1``),
    ``indices`` (int64 column of each stored value) and ``data`` (the non-zero values)."""

    __slots__ = ()
    _storage = "csr"

    def _parts(self):
        if self._tensor.dim() != 2:
            raise MXNetError(f"CSRNDArray: a csr array is 2-D, got shape {self.shape}")
        rows, cols = torch.nonzero(self._tensor, as_tuple=True)
        counts = torch.bincount(rows, minlength=self._tensor.shape[0])
        indptr = torch.cat([torch.zeros(1, dtype=torch.int64, device=counts.device), counts.cumsum(0)])
        return indptr, cols, self._tensor[rows, cols]

    def __getitem__(self, key):
        """Rows of this array as a CSRNDArray, as MXNet: an int row ``i`` (rows ``i:i+1``) or a
        step-less slice on axis 0; other keys raise MXNetError (a ValueError, as in MXNet)."""
        from ..base import MXNetValueError
        rows = self._tensor.shape[0]
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            begin = rows - 1 if key == -1 else int(key)
            return CSRNDArray(self._tensor[begin:begin + 1].clone(), self._ctx)
        if isinstance(key, slice):
            if key.step is not None:
                raise MXNetValueError("CSRNDArray only supports continuous slicing on axis 0")
            if key.start is None and key.stop is None:
                return self
            return CSRNDArray(self._tensor[key].clone(), self._ctx)
        if isinstance(key, tuple):
            raise MXNetValueError("CSRNDArray: multi-dimension indexing is not supported")
        raise MXNetValueError(f"CSRNDArray: undefined behaviour for index {key!r}")

    @property
    def indptr(self):
        return NDArray(self._parts()[0], self._ctx)

    @property
    def indices(self):
        return NDArray(self._parts()[1], self._ctx)

    @property
    def data(self):
        return NDArray(self._parts()[2], self._ctx)

    def asscipy(self):
        """This array as a ``scipy.sparse.csr_matrix`` (needs scipy)."""
        try:
            import scipy.sparse
        except ImportError:
            raise MXNetError("CSRNDArray.asscipy: scipy is not installed") from None
        indptr, indices, data = (part.cpu().numpy() for part in self._parts())
        return scipy.sparse.csr_matrix((data, indices, indptr), shape=self.shape)


_CLASSES = {"row_sparse": RowSparseNDArray, "csr": CSRNDArray}


def _check_stype(stype, where):
    if stype not in STORAGE_TYPES:
        raise MXNetError(f"{where}: unknown storage type {stype!r}; expected one of {list(STORAGE_TYPES)}")


@provide("with_storage")
def _with_storage(tensor, ctx, stype):
    """An NDArray (or sparse subclass) of storage type ``stype`` holding ``tensor``."""
    _check_stype(stype, "tostype")
    if stype == "default":
        return NDArray(tensor, ctx)
    if stype == "csr" and tensor.dim() != 2:
        raise MXNetError(f"tostype: a csr array must be 2-D, got shape {tuple(tensor.shape)}")
    return _CLASSES[stype](tensor, ctx)


@provide("to_storage")
def to_storage(array, stype):
    """``array`` converted to storage type ``stype`` (a copy, except for 'default' of a dense
    array, which MXNet also returned as is)."""
    _check_stype(stype, "tostype")
    if stype == "default" and type(array) is NDArray:
        return array
    return _with_storage(array._tensor.clone(), array.context, stype)


@provide("sparse_zeros")
def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """An all-zero array of storage type ``stype``."""
    _check_stype(stype, "sparse.zeros")
    ctx = _resolve_ctx(ctx)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    tensor = torch.zeros(shape, dtype=to_torch_dtype(dtype or np.float32), device=ctx.torch_device)
    return _with_storage(tensor, ctx, stype)


@provide("sparse_empty")
def empty(stype, shape, ctx=None, dtype=None):
    """An array of storage type ``stype`` (zero-filled: sparse arrays start empty)."""
    return zeros(stype, shape, ctx, dtype)


def _as_tensor(value, dtype=None):
    if isinstance(value, NDArray):
        tensor = value._tensor
    else:
        tensor = torch.as_tensor(np.asarray(value))
    return tensor if dtype is None else tensor.to(to_torch_dtype(dtype))


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """A RowSparseNDArray from ``(data, indices)`` (``data[i]`` is row ``indices[i]``; ``shape``
    gives the full shape, default ``(max index + 1,) + data.shape[1:]``), or from a dense
    array / RowSparseNDArray."""
    ctx = _resolve_ctx(ctx)
    if isinstance(arg1, tuple) and len(arg1) == 2:
        data = _as_tensor(arg1[0], dtype or (None if isinstance(arg1[0], NDArray) else np.float32))
        indices = _as_tensor(arg1[1]).to(torch.int64).reshape(-1)
        if data.shape[0] != indices.shape[0]:
            raise MXNetError(f"row_sparse_array: {data.shape[0]} data rows for {indices.shape[0]} indices")
        if shape is None:
            shape = (int(indices.max()) + 1 if indices.numel() else 0,) + tuple(data.shape[1:])
        dense = torch.zeros(tuple(shape), dtype=data.dtype)
        if indices.numel():
            if int(indices.max()) >= shape[0] or int(indices.min()) < 0:
                raise MXNetError(f"row_sparse_array: indices must lie in [0, {shape[0]}), got {indices.tolist()}")
            dense[indices] = data.cpu()
        return RowSparseNDArray(dense.to(ctx.torch_device), ctx)
    tensor = _as_tensor(arg1, dtype or (None if isinstance(arg1, NDArray) else np.float32))
    return RowSparseNDArray(tensor.clone().to(ctx.torch_device), ctx)


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """A CSRNDArray from ``(data, indices, indptr)``, ``(data, (row, col))``, a dense 2-D
    array or a scipy sparse matrix."""
    ctx = _resolve_ctx(ctx)
    if hasattr(arg1, "tocsr") and hasattr(arg1, "toarray"):        # scipy.sparse
        tensor = torch.as_tensor(arg1.toarray())
        return CSRNDArray(tensor.to(to_torch_dtype(dtype or arg1.dtype)).to(ctx.torch_device), ctx)
    if isinstance(arg1, tuple) and len(arg1) == 3:
        data = _as_tensor(arg1[0], dtype or np.float32)
        indices = _as_tensor(arg1[1]).to(torch.int64)
        indptr = _as_tensor(arg1[2]).to(torch.int64)
        rows = indptr.shape[0] - 1
        if shape is None:
            shape = (rows, int(indices.max()) + 1 if indices.numel() else 0)
        counts = indptr[1:] - indptr[:-1]
        row_of = torch.repeat_interleave(torch.arange(rows), counts)
        dense = torch.zeros(tuple(shape), dtype=data.dtype)
        dense[row_of, indices] = data
        return CSRNDArray(dense.to(ctx.torch_device), ctx)
    if isinstance(arg1, tuple) and len(arg1) == 2 and isinstance(arg1[1], tuple):
        data = _as_tensor(arg1[0], dtype or np.float32)
        row = _as_tensor(arg1[1][0]).to(torch.int64)
        col = _as_tensor(arg1[1][1]).to(torch.int64)
        if shape is None:
            shape = (int(row.max()) + 1, int(col.max()) + 1)
        dense = torch.zeros(tuple(shape), dtype=data.dtype)
        dense.index_put_((row, col), data, accumulate=True)
        return CSRNDArray(dense.to(ctx.torch_device), ctx)
    tensor = _as_tensor(arg1, dtype or (None if isinstance(arg1, NDArray) else np.float32))
    if tensor.dim() != 2:
        raise MXNetError(f"csr_matrix: expected a 2-D array, got shape {tuple(tensor.shape)}")
    return CSRNDArray(tensor.clone().to(ctx.torch_device), ctx)


def array(source_array, ctx=None, dtype=None):
    """A sparse array from a sparse NDArray (same storage type) or a scipy sparse matrix (csr)."""
    if isinstance(source_array, BaseSparseNDArray):
        result = to_storage(source_array, source_array.stype)
        return result if dtype is None else result.astype(dtype)
    if hasattr(source_array, "tocsr"):
        return csr_matrix(source_array, ctx=ctx, dtype=dtype)
    raise MXNetError(f"sparse.array: expected a sparse NDArray or a scipy.sparse matrix, got "
                     f"{type(source_array).__name__}")


def gs_retain(*args, **kwargs):
    """The generated ``retain`` operator function (MXNet's name for it in this module)."""
    return _operators.retain(*args, **kwargs)


def _elementwise(function, same_shape_op, broadcast_op, scalar_op, reverse_scalar_op, summary):
    def apply(lhs, rhs):
        same_shape = isinstance(lhs, NDArray) and isinstance(rhs, NDArray) and lhs.shape == rhs.shape
        return _dispatch(function, lhs, rhs, same_shape_op if same_shape else broadcast_op, scalar_op,
                         reverse_scalar_op, summary[1])
    apply.__name__ = function
    apply.__qualname__ = function
    apply.__doc__ = (f"{summary[0]} of (sparse or dense) arrays or numbers, as MXNet's ``mx.nd.sparse.{function}``: "
                     f"arrays of one shape run ``{same_shape_op}`` (two csr or two row_sparse arrays give "
                     f"that storage type), other shapes ``{broadcast_op}``, an array and a number "
                     f"``{scalar_op}``.")
    return apply


add = _elementwise("add", "elemwise_add", "broadcast_add", "_plus_scalar", None,
                   ("``lhs + rhs``", lambda x, y: x + y))
subtract = _elementwise("subtract", "elemwise_sub", "broadcast_sub", "_minus_scalar", "_rminus_scalar",
                        ("``lhs - rhs``", lambda x, y: x - y))
multiply = _elementwise("multiply", "elemwise_mul", "broadcast_mul", "_mul_scalar", None,
                        ("``lhs * rhs``", lambda x, y: x * y))
divide = _elementwise("divide", "elemwise_div", "broadcast_div", "_div_scalar", "_rdiv_scalar",
                      ("``lhs / rhs``", lambda x, y: x / y))


def _is_sparse_operator(name):
    return name in registry.sparse_operator_names()


# what ``from mxnet.ndarray.sparse import *`` gave: the names above and the generated sparse
# operator functions (resolved by this module's __getattr__)
# -- MXNet's private helpers of mxnet.ndarray.sparse -------------------------------------------------
from ..base_ctypes import _LIB  # noqa: E402,F401
from .ndarray import (_DTYPE_MX_TO_NP, _DTYPE_NP_TO_MX, _STORAGE_TYPE_CSR, _STORAGE_TYPE_DEFAULT,  # noqa: E402,F401
                      _STORAGE_TYPE_ROW_SPARSE, _STORAGE_TYPE_STR_TO_ID, _STORAGE_TYPE_UNDEFINED, _int64_enabled)
from .creation import array as _array, zeros as _zeros_ndarray  # noqa: E402,F401

_STORAGE_AUX_TYPES = {"row_sparse": [np.int64], "csr": [np.int64, np.int64]}
"""The dtypes of each sparse storage type's auxiliary arrays (row_sparse: indices; csr: indptr,
indices), as MXNet stored them."""


def _prepare_src_array(source_array, dtype):
    """``source_array`` itself when it is an NDArray or a NumPy array, else
    ``numpy.array(source_array, dtype=dtype)``; TypeError when that fails."""
    if isinstance(source_array, (NDArray, np.ndarray)):
        return source_array
    try:
        return np.array(source_array, dtype=dtype)
    except Exception:
        raise TypeError("values must be array like object") from None


def _prepare_default_dtype(src_array, dtype):
    """``dtype``, or when it is None the dtype of ``src_array`` (an NDArray, NumPy array or scipy
    csr matrix), float32 for anything else."""
    if dtype is not None:
        return dtype
    if isinstance(src_array, (NDArray, np.ndarray)) or (hasattr(src_array, "tocsr") and hasattr(src_array, "dtype")):
        return src_array.dtype
    return mx_real_t


def _check_shape(s1, s2):
    """ValueError when both shapes are given (not empty / None) and differ."""
    if s1 and s2 and s1 != s2:
        raise ValueError("Shape mismatch detected. " + str(s1) + " v.s. " + str(s2))


def _csr_matrix_from_definition(data, indices, indptr, shape=None, ctx=None, dtype=None,
                                indices_type=None, indptr_type=None):
    """A CSRNDArray of the CSR triple ``(data, indices, indptr)``; ``shape`` by default
    ``(len(indptr) - 1, max(indices) + 1)``, ``dtype`` that of ``data`` (float32 for lists).
    ValueError for inputs that are not 1-D, an empty ``indptr`` or a shape that is not 2-D."""
    ctx = current_context() if ctx is None else ctx
    dtype = _prepare_default_dtype(data, dtype)
    indptr_type = _STORAGE_AUX_TYPES["csr"][0] if indptr_type is None else indptr_type
    indices_type = _STORAGE_AUX_TYPES["csr"][1] if indices_type is None else indices_type
    data = _prepare_src_array(data, dtype)
    indptr = _prepare_src_array(indptr, indptr_type)
    indices = _prepare_src_array(indices, indices_type)
    data, indptr, indices = (value if isinstance(value, NDArray) else _array(value, ctx, kind)
                             for value, kind in ((data, dtype), (indptr, indptr_type), (indices, indices_type)))
    if shape is None:
        if indices.shape[0] == 0:
            raise ValueError("invalid shape")
        shape = (len(indptr) - 1, int(indices.asnumpy().max()) + 1)
    if data.ndim != 1 or indptr.ndim != 1 or indices.ndim != 1 or indptr.shape[0] == 0 or len(shape) != 2:
        raise ValueError("invalid shape")
    return csr_matrix((data, indices, indptr), shape=shape, ctx=ctx, dtype=dtype)


def _row_sparse_ndarray_from_definition(data, indices, shape=None, ctx=None, dtype=None, indices_type=None):
    """A RowSparseNDArray of the rows ``data`` at the (sorted) row ``indices``; ``shape`` by
    default ``(indices[-1] + 1,) + data.shape[1:]``, ``dtype`` that of ``data`` (float32 for
    lists).  ValueError for empty indices without a shape, indices that are not 1-D, a shape of
    another rank than ``data`` or with an empty row."""
    ctx = current_context() if ctx is None else ctx
    dtype = _prepare_default_dtype(data, dtype)
    indices_type = _STORAGE_AUX_TYPES["row_sparse"][0] if indices_type is None else indices_type
    data = _prepare_src_array(data, dtype)
    indices = _prepare_src_array(indices, indices_type)
    data = data if isinstance(data, NDArray) else _array(data, ctx, dtype)
    indices = indices if isinstance(indices, NDArray) else _array(indices, ctx, indices_type)
    if shape is None:
        num_indices = indices.shape[0]
        if num_indices == 0:
            raise ValueError("invalid shape")
        shape = (int(indices.asnumpy()[num_indices - 1]) + 1,) + data.shape[1:]
    if data.ndim != len(shape) or indices.ndim != 1 or np.prod(shape[1:]) == 0:
        raise ValueError("invalid shape")
    return row_sparse_array((data, indices), shape=tuple(shape), ctx=ctx, dtype=dtype)


from ..util import star_exports  # noqa: E402
__all__ = star_exports(__name__, globals(), _OWN_NAMES, resolves=_is_sparse_operator)
