"""Input builders of ``mx.test_utils`` (MXNet 1.9.1): random shapes, dense and sparse random
arrays, element-wise maps, large-tensor test arrays, sparse arrays with canonical indices,
random coordinates, matrices with known eigen-structure and ``DummyIter``.  All randomness comes from NumPy's global generator (``np.random.seed`` makes
them repeatable), as in MXNet.
"""
from __future__ import annotations

import numpy as np

from . import io as _io
from .base import MXNetError
from .ndarray.ndarray import array as _nd_array
from .test_environment import default_context, default_dtype

__all__ = ["rand_shape_2d", "rand_shape_3d", "rand_shape_nd", "random_arrays", "random_uniform_arrays",
           "random_sample", "rand_sparse_ndarray", "rand_ndarray", "assign_each", "assign_each2",
           "create_2d_tensor", "create_vector", "get_identity_mat", "get_identity_mat_batch",
           "create_sparse_array", "create_sparse_array_zd", "shuffle_csr_column_indices",
           "rand_coord_2d", "new_matrix_with_real_eigvals_2d", "new_matrix_with_real_eigvals_nd",
           "new_orthonormal_matrix_2d", "new_sym_matrix_with_real_eigvals_2d",
           "new_sym_matrix_with_real_eigvals_nd", "DummyIter"]


# -- random data ---------------------------------------------------------------------------------
def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    """A random 2-D shape with sizes in [1, dim] ([0, dim] when ``allow_zero_size``)."""
    low = 0 if allow_zero_size else 1
    return np.random.randint(low, dim0 + 1), np.random.randint(low, dim1 + 1)


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    """A random 3-D shape with sizes in [1, dim] ([0, dim] when ``allow_zero_size``)."""
    low = 0 if allow_zero_size else 1
    return (np.random.randint(low, dim0 + 1), np.random.randint(low, dim1 + 1),
            np.random.randint(low, dim2 + 1))


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    """A random shape of ``num_dim`` axes with sizes in [1, dim] ([0, dim] with zero size)."""
    low = 0 if allow_zero_size else 1
    return tuple(np.random.randint(low, dim + 1, size=num_dim))


def random_arrays(*shapes):
    """Standard-normal float32 numpy arrays of ``shapes`` (one array when one shape is given)."""
    arrays = [np.array(np.random.randn(), dtype=default_dtype()) if len(s) == 0
              else np.random.randn(*s).astype(default_dtype()) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_uniform_arrays(*shapes, **kwargs):
    """A list of uniform numpy arrays on [low, high), one per shape (keywords ``low``=0,
    ``high``=1, ``dtype``=float32).  Always a list, one shape too, as MXNet 1.9.1's (unlike
    ``random_arrays``, which gives a single array for one shape)."""
    low = kwargs.pop("low", 0.0)
    high = kwargs.pop("high", 1.0)
    dtype = kwargs.pop("dtype", default_dtype())
    if kwargs:
        raise MXNetError(f"random_uniform_arrays: unknown keyword(s) {sorted(kwargs)}")
    return [np.random.uniform(low, high, size=s).astype(dtype) for s in shapes]


def random_sample(population, k):
    """``k`` distinct elements of ``population`` in random order."""
    population = list(population)
    if k > len(population):
        raise MXNetError(f"random_sample: k={k} is larger than the population ({len(population)})")
    order = np.random.permutation(len(population))[:k]
    return [population[i] for i in order]


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None, data_init=None,
                        rsp_indices=None, modifier_func=None, shuffle_csr_indices=False, ctx=None):
    """``(array, parts)``: a random 'row_sparse' or 'csr' array (``mx.nd.sparse``) of ``shape``
    whose rows (row_sparse; ``rsp_indices`` picks them) or elements (csr) are non-zero with
    probability ``density`` (random when None), values uniform in [0, 1) or ``data_init``.
    ``parts`` is ``(data, indices)`` for row_sparse and ``(indptr, indices, data)`` for csr,
    as numpy arrays.  MXNetError for another stype."""
    from .ndarray import sparse
    density = np.random.rand() if density is None else density
    dtype = dtype or default_dtype()
    ctx = ctx or default_context()
    if stype == "row_sparse":
        if rsp_indices is not None:
            rows = np.asarray(rsp_indices, dtype=np.int64)
        else:
            rows = np.argwhere(np.random.uniform(0, 1, size=shape[0]) < density).flatten()
        values = np.random.uniform(0, 1, size=(len(rows),) + tuple(shape[1:])).astype(dtype)
        if data_init is not None:
            values[:] = data_init
        if modifier_func is not None and values.size:
            values = np.vectorize(modifier_func)(values).astype(dtype)
        array = sparse.row_sparse_array((values, rows), shape=shape, ctx=ctx, dtype=dtype)
        return array, (values, rows)
    if stype == "csr":
        if len(shape) != 2:
            raise MXNetError(f"rand_sparse_ndarray: a csr array is 2-D, got shape {tuple(shape)}")
        if distribution in (None, "uniform"):
            values = _uniform_csr_values(shape, density, dtype)
        elif distribution == "powerlaw":
            values = _powerlaw_csr_values(shape, density, dtype)
        else:
            raise MXNetError(f"rand_sparse_ndarray: unknown distribution {distribution!r}; "
                             f"expected 'uniform' or 'powerlaw'")
        if data_init is not None:
            values[values != 0] = data_init
        nonzero = values != 0
        if modifier_func is not None and nonzero.any():
            values[nonzero] = np.vectorize(modifier_func)(values[nonzero]).astype(dtype)
        array = sparse.csr_matrix(values, ctx=ctx, dtype=dtype)
        if shuffle_csr_indices:
            shuffle_csr_column_indices(array)
        return array, tuple(part.asnumpy() for part in (array.indptr, array.indices, array.data))
    raise MXNetError(f"rand_sparse_ndarray: unknown storage type {stype!r}; expected 'row_sparse' or 'csr'")


def _uniform_csr_values(shape, density, dtype):
    """Dense values of a uniform random csr array: ``round(density * rows * columns)`` distinct
    positions (as scipy.sparse.rand, which MXNet used) hold values uniform in [0, 1)."""
    rows, columns = shape
    count = int(round(density * rows * columns))
    values = np.zeros(rows * columns, dtype=dtype)
    positions = np.random.choice(rows * columns, count, replace=False) if count else np.zeros(0, dtype=np.int64)
    values[positions] = np.random.uniform(0, 1, size=count)
    return values.reshape(rows, columns)


def _powerlaw_csr_values(shape, density, dtype):
    """Dense values of MXNet's power-law csr test array: ``int(rows * columns * density)``
    non-zeros, first one at column 0 of every row, then row ``i`` is filled up to column
    ``2 ** (i + 1)`` (whole rows once that passes the width) until the count is used; values
    uniform in [1.001, 3).  ValueError (as MXNet) when the count is below twice the rows or
    more than the array holds."""
    rows, columns = shape
    total = int(rows * columns * density)
    if total < 2 * rows or total > rows * columns:
        raise ValueError(f"rand_sparse_ndarray: the powerlaw distribution needs between {2 * rows} and "
                         f"{rows * columns} non-zeros, density {density} gives {total}")
    values = np.zeros((rows, columns), dtype=dtype)

    def fill(row, begin, end):
        values[row, begin:end] = 1 + np.random.uniform(0.001, 2, size=end - begin)

    left = total
    for row in range(rows):                       # no empty row
        fill(row, 0, 1)
        left -= 1
    width = 2
    for row in range(rows):
        if left <= 0:
            break
        limit = min(columns, width)
        take = min(limit - 1, left)
        fill(row, 1, 1 + take)
        left -= take
        width *= 2
    if left > 0:
        raise ValueError(f"rand_sparse_ndarray: the powerlaw rows of shape {tuple(shape)} hold fewer than "
                         f"the {total} non-zeros density {density} asks for")
    return values


def rand_ndarray(shape, stype="default", density=None, dtype=None, modifier_func=None,
                 shuffle_csr_indices=False, distribution=None, ctx=None):
    """An NDArray of ``shape`` with uniform random values in [0, 1) (``modifier_func`` is
    applied to the numpy values first); 'row_sparse' / 'csr' give a sparse array of
    ``rand_sparse_ndarray``."""
    if stype != "default":
        return rand_sparse_ndarray(shape, stype, density=density, dtype=dtype, modifier_func=modifier_func,
                                   shuffle_csr_indices=shuffle_csr_indices, distribution=distribution,
                                   ctx=ctx)[0]
    values = np.random.uniform(0, 1, size=shape).astype(dtype or default_dtype())
    if modifier_func is not None:
        values = np.vectorize(modifier_func)(values).astype(values.dtype)
    return _nd_array(values, ctx=ctx or default_context(), dtype=values.dtype)


# -- element-wise maps --------------------------------------------------------------------------------
def assign_each(the_input, function):
    """A float64 NumPy array of ``the_input``'s shape holding ``function(x)`` for each element
    (a copy of ``the_input`` itself when ``function`` is None)."""
    if function is None:
        return np.array(the_input)
    values = np.asarray(the_input)
    output = np.zeros(values.shape)
    for index in np.ndindex(values.shape):
        output[index] = function(values[index])
    return output


def assign_each2(input1, input2, function):
    """A float64 NumPy array holding ``function(x1, x2)`` for each pair of elements of two
    arrays of the same shape (AssertionError otherwise; a copy of ``input1`` when ``function``
    is None)."""
    if function is None:
        return np.array(input1)
    first, second = np.asarray(input1), np.asarray(input2)
    assert first.shape == second.shape, f"assign_each2: shapes {first.shape} and {second.shape} differ"
    output = np.zeros(first.shape)
    for index in np.ndindex(first.shape):
        output[index] = function(first[index], second[index])
    return output


# -- large-tensor test arrays -------------------------------------------------------------------------
def create_2d_tensor(rows, columns, dtype=np.int64):
    """An NDArray of shape ``(rows, columns)`` whose row ``i`` is all ``i`` (``dtype``)."""
    from . import ndarray as nd
    column = nd.arange(0, rows, dtype=dtype).reshape(rows, 1)
    return nd.broadcast_to(column, shape=(rows, columns))


def create_vector(size, dtype=np.int64):
    """``mx.nd.arange(0, size)`` in ``dtype``."""
    from . import ndarray as nd
    return nd.arange(0, size, dtype=dtype)


def get_identity_mat(size):
    """The float32 identity NDArray of shape ``(size, size)``."""
    from . import ndarray as nd
    matrix = nd.zeros((size, size))
    for i in range(size):
        matrix[i, i] = 1
    return matrix


def get_identity_mat_batch(size):
    """Two stacked identities: an NDArray of shape ``(2, size, size)``."""
    from . import ndarray as nd
    identity = get_identity_mat(size).asnumpy()
    return nd.array([identity, identity])


# -- sparse arrays --------------------------------------------------------------------------------------
def create_sparse_array(shape, stype, data_init=None, rsp_indices=None, dtype=None, modifier_func=None,
                        density=.5, shuffle_csr_indices=False):
    """A random sparse NDArray ('row_sparse' or 'csr') of ``shape`` (see ``rand_sparse_ndarray``);
    the row_sparse ``rsp_indices`` are sorted first, so the indices are canonical.  With
    ``shuffle_csr_indices`` the column indices of each csr row are put in random order.
    AssertionError for another ``stype``, as MXNet."""
    if stype == "row_sparse":
        rows = None if rsp_indices is None else np.sort(np.asarray(rsp_indices))
        array, _ = rand_sparse_ndarray(shape, stype, density=density, data_init=data_init, rsp_indices=rows,
                                       dtype=dtype, modifier_func=modifier_func)
        return array
    if stype == "csr":
        array, _ = rand_sparse_ndarray(shape, stype, density=density, data_init=data_init, dtype=dtype,
                                       modifier_func=modifier_func)
        if shuffle_csr_indices:
            shuffle_csr_column_indices(array)
        return array
    raise AssertionError("Unknown storage type: " + str(stype))


def create_sparse_array_zd(shape, stype, density, data_init=None, rsp_indices=None, dtype=None,
                           modifier_func=None, shuffle_csr_indices=False):
    """``create_sparse_array`` where, for row_sparse, only ``rsp_indices`` decide the non-zero
    rows (density 0 otherwise; at most ``shape[0]`` indices)."""
    if stype == "row_sparse":
        density = 0.0
        if rsp_indices is not None:
            assert len(rsp_indices) <= shape[0], "create_sparse_array_zd: more row indices than rows"
    return create_sparse_array(shape, stype, data_init=data_init, rsp_indices=rsp_indices, dtype=dtype,
                               modifier_func=modifier_func, density=density,
                               shuffle_csr_indices=shuffle_csr_indices)


def shuffle_csr_column_indices(csr):
    """Permute the column indices within each row of ``csr`` at random, in place, leaving the
    ``data`` values where they are (so each row's stored values move among that row's non-zero
    columns), as MXNet's helper did through the array's shared index buffer.

    ``csr`` is a CSRNDArray (its values are rewritten to match the permuted indices) or a
    ``scipy.sparse.csr_matrix`` / any object with writable ``indptr`` and ``indices`` arrays."""
    from .ndarray.sparse import CSRNDArray
    indptr = np.asarray(_host(csr.indptr))
    indices = np.array(_host(csr.indices))
    for row in range(len(indptr) - 1):
        segment = indices[indptr[row]:indptr[row + 1]].copy()
        np.random.shuffle(segment)
        indices[indptr[row]:indptr[row + 1]] = segment
    if not isinstance(csr, CSRNDArray):
        csr.indices[:] = indices
        return
    import torch
    values = csr.data.asnumpy()
    dense = np.zeros(csr.shape, dtype=values.dtype)
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    dense[rows, indices] = values
    csr._tensor.copy_(torch.from_numpy(dense))


def _host(values):
    return values.asnumpy() if hasattr(values, "asnumpy") else values


def rand_coord_2d(x_low, x_high, y_low, y_high):
    """A random int64 coordinate pair ``(x, y)``, ``x`` in ``[x_low, x_high)`` and ``y`` in
    ``[y_low, y_high)``."""
    x = np.random.randint(x_low, x_high, dtype=np.int64)
    y = np.random.randint(y_low, y_high, dtype=np.int64)
    return x, y


# -- matrices with known eigen-structure --------------------------------------------------------------
def new_matrix_with_real_eigvals_2d(n):
    """A random ``(n, n)`` float64 matrix ``Q^-1 D Q`` with real eigenvalues (the diagonal of
    ``D``, uniform in [-10, 10)); ``Q`` is a Householder reflection times a diagonal matrix
    drawn until its 2-norm condition number is below 3, so the result is well conditioned."""
    while True:
        diagonal = np.diag(np.random.uniform(-1.0, 1.0, n))
        vector = np.random.uniform(-1.0, 1.0, n).reshape(n, 1)
        vector = vector / np.linalg.norm(vector, axis=-2, keepdims=True)
        reflection = np.eye(n) - 2 * vector @ vector.T
        basis = reflection @ diagonal
        if np.linalg.cond(basis, 2) < 3:
            break
    eigenvalues = np.diag(np.random.uniform(-10.0, 10.0, n))
    return np.linalg.inv(basis) @ eigenvalues @ basis


def _batched(builder, shape):
    count = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array([builder(shape[-1]) for _ in range(count)]).reshape(shape)


def new_matrix_with_real_eigvals_nd(shape):
    """A stack of ``new_matrix_with_real_eigvals_2d(shape[-1])`` matrices of ``shape``
    (``(..., n, n)``)."""
    return _batched(new_matrix_with_real_eigvals_2d, shape)


def new_orthonormal_matrix_2d(n):
    """A random ``(n, n)`` orthonormal float64 matrix: the Q factor of ``X^T X`` for a standard
    normal ``X``."""
    x = np.random.randn(n, n)
    return np.linalg.qr(x.T @ x)[0]


def new_sym_matrix_with_real_eigvals_2d(n):
    """A random symmetric ``(n, n)`` float64 matrix ``Q^T D Q`` (``Q`` orthonormal, eigenvalues
    uniform in [-10, 10))."""
    basis = new_orthonormal_matrix_2d(n)
    eigenvalues = np.diag(np.random.uniform(-10.0, 10.0, n))
    return basis.T @ eigenvalues @ basis


def new_sym_matrix_with_real_eigvals_nd(shape):
    """A stack of ``new_sym_matrix_with_real_eigvals_2d(shape[-1])`` matrices of ``shape``."""
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise MXNetError(f"new_sym_matrix_with_real_eigvals_nd: expected a shape (..., n, n), got {shape}")
    return _batched(new_sym_matrix_with_real_eigvals_2d, shape)


# -- iterators ------------------------------------------------------------------------------------
class DummyIter(_io.DataIter):
    """An iterator that returns the first batch of ``real_iter`` forever (MXNet's speed-test helper).

    ``provide_data`` / ``provide_label`` and ``batch_size`` are those of ``real_iter``; ``next()``
    never raises StopIteration.
    """

    def __init__(self, real_iter):
        super().__init__()
        self.real_iter = real_iter
        self.provide_data = real_iter.provide_data
        self.provide_label = real_iter.provide_label
        self.batch_size = real_iter.batch_size
        self.the_batch = next(real_iter)

    def __iter__(self):
        return self

    def next(self):
        return self.the_batch

    __next__ = next
