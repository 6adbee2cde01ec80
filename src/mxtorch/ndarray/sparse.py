"""``mx.nd.sparse``: row-sparse and CSR arrays, far enough for Module-era code.

mxtorch computes on dense tensors.  A ``RowSparseNDArray`` / ``CSRNDArray`` is an NDArray whose
values are held densely (so every operator runs on it) and which reports its storage type
(``stype``) and MXNet's sparse parts: ``indices`` / ``data`` for row-sparse, ``indptr`` /
``indices`` / ``data`` for CSR.  An array built from explicit parts (``row_sparse_array((data,
indices))``, ``csr_matrix((data, indices, indptr))``, a scipy matrix, a sparse record of a
``.params`` file or pickle) keeps those parts as given, explicit zeros and invalid structures
included (``check_format`` reports the latter, as MXNet); once its values are written in place
(the tensor's version counter moves) or for an array made from dense values, the parts are
derived from the non-zero values, which is what MXNet's ``cast_storage`` stores.  Every
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

from ..base import (MXNetError, MXNetValueError, NDArrayHandle, NotSupportedForSparseNDArray, integer_types, mx_real_t,  # noqa: F401
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
    """Base of the sparse storage types: a dense NDArray that reports its ``stype`` and its
    sparse parts (see the module docstring)."""

    __slots__ = ("_given",)
    _storage = None
    _AUX_NAMES = ()

    @property
    def stype(self):
        return self._storage

    def __repr__(self):
        shape = "x".join(str(d) for d in self.shape)
        return f"\n<{type(self).__name__} {shape} @{self.context}>"

    def __reduce__(self):
        """Pickled as MXNet: ``{'handle': record}`` of this storage type, unpickled into this class."""
        return (type(self), (None,), self.__getstate__())

    def _adopt_storage(self, loaded):
        parts = loaded._explicit_parts() if isinstance(loaded, BaseSparseNDArray) else None
        if parts is not None:
            self._keep_parts(parts)

    # -- the stored parts -----------------------------------------------------------------
    def _explicit_parts(self):
        """The parts given at construction, while the values were not written since; else None."""
        given = getattr(self, "_given", None)
        if given is not None and given[0] is self._tensor and given[1] == self._tensor._version:
            return given[2]
        return None

    def _keep_parts(self, parts):
        """Remember ``parts`` (a tuple of tensors: aux arrays then data) as this array's structure."""
        self._given = (self._tensor, self._tensor._version, tuple(parts))
        return self

    def _parts(self):
        """``aux arrays + (data,)`` as tensors: the explicit ones, or derived from the values."""
        parts = self._explicit_parts()
        return parts if parts is not None else self._derived_parts()

    def _derive_from(self, source, transform=lambda part, index, aux: part):
        """Carry ``source``'s explicit parts over to this array (``transform(part, index,
        is_aux)`` converts each: device, dtype of the data)."""
        parts = source._explicit_parts() if isinstance(source, BaseSparseNDArray) else None
        if parts is not None:
            count = len(parts) - 1
            self._keep_parts(tuple(transform(part, index, index < count) for index, part in enumerate(parts)))
        return self

    @property
    def _num_aux(self):
        """The number of auxiliary arrays: 1 (row_sparse: indices), 2 (csr: indptr, indices)."""
        return len(self._AUX_NAMES)

    @property
    def _aux_types(self):
        """The dtypes of the auxiliary arrays (int64 each, as MXNet)."""
        return [np.int64] * self._num_aux

    def _aux_type(self, i):
        """The dtype of auxiliary array ``i``."""
        return self._aux_types[i]

    def _aux_data(self, i):
        """Auxiliary array ``i`` as a dense NDArray (row_sparse: 0 indices; csr: 0 indptr, 1 indices)."""
        if not 0 <= int(i) < self._num_aux:
            raise MXNetError(f"_aux_data: {type(self).__name__} has {self._num_aux} auxiliary arrays, got index {i}")
        return NDArray(self._parts()[int(i)], self._ctx)

    def _data(self):
        """The stored values as a dense NDArray (MXNet's ``data``)."""
        return NDArray(self._parts()[-1], self._ctx)

    @property
    def data(self):
        return self._data()

    def copy(self):
        return _with_storage(self._tensor.clone(), self._ctx, self._storage)._derive_from(
            self, lambda part, index, aux: part.clone())

    def detach(self):
        """An array of this storage type sharing the data, cut from the recorded computation."""
        return _with_storage(self._tensor.detach(), self._ctx, self._storage)._derive_from(self)

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
            moved = self._tensor.detach().to(other.torch_device, copy=True)
            return _with_storage(moved, other, self._storage)._derive_from(
                self, lambda part, index, aux: part.to(other.torch_device, copy=True))
        return super().copyto(other)

    def astype(self, dtype, copy=True):
        if not copy and np.dtype(dtype) == np.dtype(self.dtype):
            return self
        torch_dtype = to_torch_dtype(dtype)
        return _with_storage(self._tensor.to(torch_dtype), self._ctx, self._storage)._derive_from(
            self, lambda part, index, aux: part if aux else part.to(torch_dtype))

    def as_in_context(self, context):
        if context == self.context:
            return self
        return _with_storage(self._tensor.to(context.torch_device), context, self._storage)._derive_from(
            self, lambda part, index, aux: part.to(context.torch_device))

    def check_format(self, full_check=True):
        """Check the stored structure as MXNet's ``check_format``: MXNetError naming what is wrong
        (row_sparse: indices non-negative, below ``shape[0]``, ascending, one per data row; csr:
        ``indptr`` from 0 to nnz without decreasing and ``shape[0] + 1`` long, column indices
        below ``shape[1]``, ascending within a row).  ``full_check=False`` checks only the
        sizes.  Parts derived from the values are always well formed."""
        parts = self._explicit_parts()
        if parts is not None:
            problem = self._format_problem(parts, bool(full_check))
            if problem:
                raise MXNetError(f"check_format: {type(self).__name__} of shape {self.shape}: {problem}")

    def _stored_rows(self):
        """Row numbers of the stored rows (row_sparse: ``indices``): the rows a lazy update touches."""
        return self._parts()[0]

    def _nonzero_rows(self):
        flat = self._tensor.reshape(self._tensor.shape[0], -1) if self._tensor.dim() else self._tensor
        return torch.nonzero(flat.ne(0).any(dim=1)).reshape(-1)


class RowSparseNDArray(BaseSparseNDArray):
    """A row-sparse array: ``indices`` (int64, ascending) are the stored rows and ``data`` those
    rows, shape ``(len(indices),) + shape[1:]``."""

    __slots__ = ()
    _storage = "row_sparse"
    _AUX_NAMES = ("indices",)

    def _derived_parts(self):
        rows = self._nonzero_rows()
        return rows.to(torch.int64), self._tensor.index_select(0, rows)

    @staticmethod
    def _format_problem(parts, full_check):
        indices, data = parts
        if data.dim() == 0 or data.shape[0] != indices.shape[0]:
            return f"{indices.shape[0]} indices for data of shape {tuple(data.shape)}"
        return None

    def check_format(self, full_check=True):
        super().check_format(full_check)
        parts = self._explicit_parts()
        if parts is not None and full_check and parts[0].numel():
            indices = parts[0]
            if int(indices.min()) < 0 or int(indices.max()) >= self.shape[0] or \
                    (indices.numel() > 1 and bool((indices[1:] <= indices[:-1]).any())):
                raise MXNetError(f"check_format: RowSparseNDArray of shape {self.shape}: indices should be "
                                 f"non-negative, less than the size of the first dimension ({self.shape[0]}) and "
                                 f"in ascending order, got {indices.tolist()}")

    @property
    def indices(self):
        return NDArray(self._parts()[0], self._ctx)

    def retain(self, *args, **kwargs):
        """``mx.nd.sparse.retain`` with this array as ``data``: a RowSparseNDArray keeping only
        the rows ``indices``."""
        return _operators.retain(self, *args, **kwargs)


class CSRNDArray(BaseSparseNDArray):
    """A 2-D array in compressed sparse row form: ``indptr`` (int64, ``shape[0] + 1``),
    ``indices`` (int64 column of each stored value) and ``data`` (the stored values)."""

    __slots__ = ()
    _storage = "csr"
    _AUX_NAMES = ("indptr", "indices")

    def _derived_parts(self):
        if self._tensor.dim() != 2:
            raise MXNetError(f"CSRNDArray: a csr array is 2-D, got shape {self.shape}")
        rows, cols = torch.nonzero(self._tensor, as_tuple=True)
        counts = torch.bincount(rows, minlength=self._tensor.shape[0])
        indptr = torch.cat([torch.zeros(1, dtype=torch.int64, device=counts.device), counts.cumsum(0)])
        return indptr, cols, self._tensor[rows, cols]

    def _format_problem(self, parts, full_check):
        return _csr_problem(parts, self.shape, full_check)

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

    def asscipy(self):
        """This array as a ``scipy.sparse.csr_matrix`` (needs scipy)."""
        try:
            import scipy.sparse
        except ImportError:
            raise MXNetError("CSRNDArray.asscipy: scipy is not installed") from None
        indptr, indices, data = (part.cpu().numpy() for part in self._parts())
        return scipy.sparse.csr_matrix((data, indices, indptr), shape=self.shape)


def _csr_problem(parts, shape, full_check):
    """What is wrong with csr parts ``(indptr, indices, data)`` of ``shape``, or None."""
    indptr, indices, data = parts
    rows, columns = shape
    if indptr.shape[0] != rows + 1:
        return f"indptr has {indptr.shape[0]} entries for {rows} rows (expected {rows + 1})"
    if indices.shape[0] != data.shape[0]:
        return f"{indices.shape[0]} column indices for {data.shape[0]} values"
    if not full_check:
        return None
    if int(indptr[0]) != 0 or int(indptr[-1]) != indices.shape[0] or bool((indptr[1:] < indptr[:-1]).any()):
        return (f"indptr should rise from 0 to the number of values ({indices.shape[0]}) without decreasing, "
                f"got {indptr.tolist()}")
    if indices.numel() and (int(indices.min()) < 0 or int(indices.max()) >= columns):
        return f"column indices should lie in [0, {columns}), got {indices.tolist()}"
    if indices.numel() > 1:
        row_of = torch.repeat_interleave(torch.arange(rows, device=indptr.device), indptr[1:] - indptr[:-1])
        unsorted = (indices[1:] <= indices[:-1]) & (row_of[1:] == row_of[:-1])
        if bool(unsorted.any()):
            row = int(row_of[1:][unsorted][0])
            segment = indices[int(indptr[row]):int(indptr[row + 1])]
            return f"column indices of row {row} should be ascending, got {segment.tolist()}"
    return None


_CLASSES = {"row_sparse": RowSparseNDArray, "csr": CSRNDArray}


def _check_stype(stype, where):
    if stype not in STORAGE_TYPES:
        raise MXNetValueError(f"{where}: unknown storage type {stype!r}; expected one of {list(STORAGE_TYPES)}")


@provide("with_storage")
def _with_storage(tensor, ctx, stype):
    """An NDArray (or sparse subclass) of storage type ``stype`` holding ``tensor``."""
    _check_stype(stype, "tostype")
    if stype == "default":
        return NDArray(tensor, ctx)
    if stype == "csr" and tensor.dim() != 2:
        raise MXNetValueError(f"tostype: a csr array must be 2-D, got shape {tuple(tensor.shape)}")
    return _CLASSES[stype](tensor, ctx)


@provide("to_storage")
def to_storage(array, stype):
    """``array`` converted to storage type ``stype`` (a copy, except for 'default' of a dense
    array, which MXNet also returned as is)."""
    _check_stype(stype, "tostype")
    if stype == "default" and type(array) is NDArray:
        return array
    result = _with_storage(array._tensor.clone(), array.context, stype)
    if stype == getattr(array, "stype", "default"):
        result._derive_from(array, lambda part, index, aux: part.clone())
    return result


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
        tensor = value._tensor.detach()
    else:
        tensor = torch.as_tensor(np.asarray(value))
    return tensor if dtype is None else tensor.to(to_torch_dtype(dtype))


def _default_dtype(source, dtype):
    """MXNet's dtype rule of the sparse constructors: ``dtype`` if given, else the source's
    dtype for an NDArray, NumPy array or scipy matrix, else float32."""
    if dtype is not None:
        return dtype
    if isinstance(source, torch.Tensor):
        return source.dtype
    if isinstance(source, (NDArray, np.ndarray)) or hasattr(source, "tocsr"):
        return np.dtype(source.dtype) if not isinstance(source, NDArray) else source.dtype
    return np.float32


def _is_shape(arg1):
    return isinstance(arg1, tuple) and len(arg1) > 0 and all(
        isinstance(d, integer_types) and not isinstance(d, bool) for d in arg1)


def _check_shape(given, shape):
    """ValueError when an explicit ``shape`` disagrees with the one the source gives, as MXNet."""
    if shape is not None and tuple(int(d) for d in given) != tuple(int(d) for d in shape):
        raise MXNetValueError(f"Shape mismatch detected. {tuple(int(d) for d in given)} v.s. "
                              f"{tuple(int(d) for d in shape)}")


def _sparse_from_dense(cls, arg1, shape, ctx, dtype, where):
    tensor = _as_tensor(arg1, _default_dtype(arg1, dtype))
    _check_shape(tensor.shape, shape)
    if cls is CSRNDArray and tensor.dim() != 2:
        raise MXNetValueError(f"{where}: a csr array is 2-D, got shape {tuple(tensor.shape)}")
    return cls(tensor.clone().to(ctx.torch_device), ctx)


def _copy_of_sparse(cls, source, shape, ctx, dtype, where):
    """A copy of the sparse array ``source`` on ``ctx`` in ``dtype``, its stored parts carried over."""
    result = _sparse_from_dense(cls, source, shape, ctx, dtype, where)
    return result._derive_from(source, lambda part, index, aux: part.to(ctx.torch_device) if aux else
                               part.to(result._tensor.dtype).to(ctx.torch_device))


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """A RowSparseNDArray, as MXNet's ``mx.nd.sparse.row_sparse_array``.

    ``arg1`` is ``(data, indices)`` (``data[i]`` is row ``indices[i]``; ``shape`` gives the full
    shape, default ``(max index + 1,) + data.shape[1:]``; the parts are kept as given), a shape
    tuple (an all-zero array), or a dense array / RowSparseNDArray (the rows with a non-zero
    value are stored).  dtype: ``dtype``, else the source's (NDArray / NumPy), else float32.
    ValueError (MXNetValueError) when ``shape`` disagrees with the source or cannot be inferred.
    """
    ctx = _resolve_ctx(ctx)
    if _is_shape(arg1):
        _check_shape(arg1, shape)
        return zeros("row_sparse", tuple(int(d) for d in arg1), ctx=ctx, dtype=dtype)
    if isinstance(arg1, tuple):
        if len(arg1) != 2:
            raise MXNetValueError(f"row_sparse_array: expected (data, indices), got a tuple of {len(arg1)} items")
        data = _as_tensor(arg1[0], _default_dtype(arg1[0], dtype))
        indices = _as_tensor(arg1[1]).to(torch.int64).reshape(-1)
        if data.dim() == 0:
            raise MXNetValueError("row_sparse_array: data must have at least one dimension")
        if shape is None:
            if indices.numel() == 0:
                raise MXNetValueError("row_sparse_array: invalid shape (cannot infer it from empty indices)")
            shape = (int(indices.max()) + 1,) + tuple(data.shape[1:])
        shape = tuple(int(d) for d in shape)
        if data.shape[0] != indices.shape[0]:
            raise MXNetError(f"row_sparse_array: {data.shape[0]} data rows for {indices.shape[0]} indices")
        dense = torch.zeros(shape, dtype=data.dtype)
        valid = (indices >= 0) & (indices < shape[0])        # invalid rows: check_format reports them
        if bool(valid.any()):
            dense[indices[valid]] = data.cpu()[valid]
        result = RowSparseNDArray(dense.to(ctx.torch_device), ctx)
        return result._keep_parts((indices.to(ctx.torch_device), data.to(ctx.torch_device)))
    if isinstance(arg1, RowSparseNDArray):
        return _copy_of_sparse(RowSparseNDArray, arg1, shape, ctx, dtype, "row_sparse_array")
    return _sparse_from_dense(RowSparseNDArray, arg1, shape, ctx, dtype, "row_sparse_array")


def _csr_dense(indptr, indices, data, shape):
    """The dense values of csr parts; zeros where the parts are not a valid structure (their
    ``check_format`` reports why)."""
    dense = torch.zeros(shape, dtype=data.dtype)
    if _csr_problem((indptr, indices, data), shape, True) is None and indices.numel():
        counts = indptr[1:] - indptr[:-1]
        row_of = torch.repeat_interleave(torch.arange(shape[0]), counts)
        dense[row_of, indices] = data
    return dense


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """A CSRNDArray, as MXNet's ``mx.nd.sparse.csr_matrix``.

    ``arg1`` is ``(data, indices, indptr)`` (kept as given; ``shape`` default
    ``(len(indptr) - 1, max index + 1)``), ``(data, (row, col))`` (coordinates, duplicates
    summed), a shape ``(rows, columns)`` (all zero), a scipy sparse matrix (its canonical csr
    parts) or a dense 2-D array / CSRNDArray.  dtype: ``dtype``, else the source's (NDArray /
    NumPy / scipy), else float32.  ValueError (MXNetValueError) when ``shape`` disagrees with
    the source or cannot be inferred, or the source is not 2-D.
    """
    ctx = _resolve_ctx(ctx)
    if hasattr(arg1, "tocsr") and hasattr(arg1, "toarray"):        # scipy.sparse
        matrix = arg1.tocsr(copy=True)
        matrix.sum_duplicates()
        _check_shape(matrix.shape, shape)
        torch_dtype = to_torch_dtype(_default_dtype(arg1, dtype))
        parts = (torch.as_tensor(matrix.indptr.astype(np.int64)), torch.as_tensor(matrix.indices.astype(np.int64)),
                 torch.as_tensor(matrix.data).to(torch_dtype))
        dense = torch.as_tensor(matrix.toarray()).to(torch_dtype)
        result = CSRNDArray(dense.to(ctx.torch_device), ctx)
        return result._keep_parts(tuple(part.to(ctx.torch_device) for part in parts))
    if _is_shape(arg1) and len(arg1) == 2:
        _check_shape(arg1, shape)
        return zeros("csr", tuple(int(d) for d in arg1), ctx=ctx, dtype=dtype)
    if isinstance(arg1, tuple) and len(arg1) == 3:
        data = _as_tensor(arg1[0], _default_dtype(arg1[0], dtype)).reshape(-1)
        indices = _as_tensor(arg1[1]).to(torch.int64).reshape(-1)
        indptr = _as_tensor(arg1[2]).to(torch.int64).reshape(-1)
        if shape is None:
            if indices.numel() == 0:
                raise MXNetValueError("csr_matrix: invalid shape (cannot infer it from empty indices)")
            shape = (indptr.shape[0] - 1, int(indices.max()) + 1)
        shape = tuple(int(d) for d in shape)
        if len(shape) != 2:
            raise MXNetValueError(f"csr_matrix: a csr array is 2-D, got shape {shape}")
        dense = _csr_dense(indptr, indices, data.cpu(), shape)
        result = CSRNDArray(dense.to(ctx.torch_device), ctx)
        return result._keep_parts(tuple(part.to(ctx.torch_device) for part in (indptr, indices, data)))
    if isinstance(arg1, tuple) and len(arg1) == 2 and isinstance(arg1[1], tuple):
        data = _as_tensor(arg1[0], _default_dtype(arg1[0], dtype))
        row = _as_tensor(arg1[1][0]).to(torch.int64)
        col = _as_tensor(arg1[1][1]).to(torch.int64)
        if shape is None:
            shape = (int(row.max()) + 1, int(col.max()) + 1)
        dense = torch.zeros(tuple(shape), dtype=data.dtype)
        dense.index_put_((row, col), data, accumulate=True)
        return CSRNDArray(dense.to(ctx.torch_device), ctx)
    if isinstance(arg1, tuple):
        raise MXNetValueError(f"csr_matrix: expected (data, indices, indptr), (data, (row, col)) or a shape, "
                              f"got a tuple of {len(arg1)} items")
    if isinstance(arg1, CSRNDArray):
        return _copy_of_sparse(CSRNDArray, arg1, shape, ctx, dtype, "csr_matrix")
    return _sparse_from_dense(CSRNDArray, arg1, shape, ctx, dtype, "csr_matrix")


@provide("sparse_from_parts")
def from_parts(stype, shape, aux, data, ctx):
    """An array of storage type ``stype`` and ``shape`` from its stored parts (tensors):
    ``aux`` = ``[indices]`` (row_sparse) or ``[indptr, indices]`` (csr) and ``data``, kept as
    given (what a sparse record of a file or pickle holds)."""
    if stype == "row_sparse":
        return row_sparse_array((data, aux[0]), shape=shape, ctx=ctx)
    if stype == "csr":
        return csr_matrix((data, aux[1], aux[0]), shape=shape, ctx=ctx)
    raise MXNetError(f"sparse_from_parts: unknown sparse storage type {stype!r}")


@provide("sparse_array")
def array(source_array, ctx=None, dtype=None):
    """A sparse array from a sparse NDArray (a copy of the same storage type, on ``ctx``,
    default the current context, as MXNet) or a scipy sparse matrix (csr)."""
    if isinstance(source_array, BaseSparseNDArray):
        result = to_storage(source_array, source_array.stype).as_in_context(_resolve_ctx(ctx))
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
