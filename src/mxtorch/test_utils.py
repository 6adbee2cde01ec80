"""Testing helpers with MXNet 1.9.1's ``mx.test_utils`` names and signatures.

Comparisons (``assert_almost_equal``, ``almost_equal``) accept numpy arrays,
NDArrays and numbers and use ``|a - b| <= atol + rtol * |b|``; a tolerance left
as ``None`` takes a per-dtype default (the larger of the two operands'),
as MXNet did.  ``check_numeric_gradient`` compares the executor's backward pass
with central finite differences of ``sum(output * projection)`` for a random
projection; ``check_symbolic_forward`` / ``check_symbolic_backward`` compare an
executor's outputs and gradients with expected arrays.  Sparse storage types
are not supported (MXNetError).
"""
from __future__ import annotations

import bz2  # noqa: F401  (MXNet's module exported these modules through ``import *``)
import contextlib
import errno  # noqa: F401
import functools
import gzip  # noqa: F401
import json  # noqa: F401
import logging  # noqa: F401
import numbers
import os
import platform
import struct  # noqa: F401
import sys
import time  # noqa: F401
import traceback  # noqa: F401
import zipfile  # noqa: F401
from collections import OrderedDict  # noqa: F401
from contextlib import contextmanager  # noqa: F401

import numpy as np
import numpy.random as rnd  # noqa: F401
import numpy.testing as npt  # noqa: F401
import torch

import mxtorch as mx  # noqa: F401  (``from mxnet.test_utils import *`` gave ``mx``)
from .base import MXNetError
from .util import setenv, getenv, use_np, get_cuda_compute_capability  # noqa: F401
from .context import Context, current_context
from .ndarray.ndarray import NDArray, array as _nd_array
from .ndarray.ndarray import array  # noqa: F401
from .symbol.symbol import Symbol  # noqa: F401
from .runtime import Features
from . import io as _io


from .util import use_np  # noqa: E402,F401  (MXNet's test_utils re-exported it)


# -- process environment -------------------------------------------------------------------------
@contextlib.contextmanager
def environment(*args):
    """Set environment variables for the duration of a ``with`` block, then restore them.

    ``environment(name, value)`` or ``environment({name: value, ...})``; a value of ``None``
    unsets the variable inside the block.  As in MXNet 1.9.1 the change is visible both to
    ``os.environ`` and to ``mx.util.getenv``.  Raises MXNetError for any other argument form.
    """
    if len(args) == 2:
        changes = {args[0]: args[1]}
    elif len(args) == 1 and isinstance(args[0], dict):
        changes = dict(args[0])
    else:
        raise MXNetError("environment: expected (name, value) or a dict of {name: value}, "
                         f"got {len(args)} positional argument(s)")
    saved = {name: os.environ.get(name) for name in changes}
    try:
        for name, value in changes.items():
            setenv(name, value)
        yield
    finally:
        for name, value in saved.items():
            setenv(name, value)


@contextlib.contextmanager
def discard_stderr():
    """Silence everything written to file descriptor 2 (Python and native code) inside the block."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


# -- contexts and dtypes --------------------------------------------------------------------------
def default_context():
    """The context tests run on: the calling thread's current context (``mx.cpu()`` unless
    :func:`set_default_context` set another or a ``with ctx:`` block is active), as in MXNet."""
    return current_context()


def set_default_context(ctx):
    """Make ``ctx`` (a Context) the calling thread's default context (``Context.default_ctx``,
    which :func:`default_context` and array creation use), as MXNet's helper does."""
    if not isinstance(ctx, Context):
        raise MXNetError(f"set_default_context: expected a Context, got {type(ctx).__name__}")
    Context.default_ctx = ctx


def default_dtype():
    """The dtype of arrays created by the random helpers: ``numpy.float32``."""
    return np.float32


def list_gpus():
    """Indices of the visible CUDA devices (empty without a GPU; under gpu-as-cpu, those pretended)."""
    from .context import num_gpus
    return list(range(num_gpus()))


def default_rtols():
    """Per-dtype default relative tolerances (MXNet 1.9.1's values)."""
    return {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-5,
            np.dtype(np.bool_): 0, np.dtype(np.int8): 0, np.dtype(np.uint8): 0, np.dtype(np.int32): 0,
            np.dtype(np.uint32): 0, np.dtype(np.int64): 0, np.dtype(np.uint64): 0}


def default_atols():
    """Per-dtype default absolute tolerances (MXNet 1.9.1's values)."""
    return {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3, np.dtype(np.float64): 1e-20,
            np.dtype(np.bool_): 0, np.dtype(np.int8): 0, np.dtype(np.uint8): 0, np.dtype(np.int32): 0,
            np.dtype(np.uint32): 0, np.dtype(np.int64): 0, np.dtype(np.uint64): 0}


def default_numeric_eps():
    """Per-dtype finite-difference steps: 2**-6 (float16), 2**-9 (float32), 2**-14 (float64)."""
    return {np.dtype(np.float16): 1.0 / 2 ** 6, np.dtype(np.float32): 1.0 / 2 ** 9,
            np.dtype(np.float64): 1.0 / 2 ** 14}


def effective_dtype(dat):
    """The numpy dtype whose tolerances apply to ``dat`` (array, NDArray or number)."""
    if isinstance(dat, numbers.Number):
        return np.asarray(dat).dtype
    return np.dtype(dat.dtype)


def get_tolerance(dat, tol, default_tol):
    """``tol`` if it is a number, else ``tol[dtype]`` (a dict) or ``default_tol[dtype]``."""
    if isinstance(tol, numbers.Number):
        return tol
    dtype = effective_dtype(dat)
    table = dict(default_tol)
    table.update(tol or {})
    if dtype not in table:
        return 0
    return table[dtype]


def get_tols(x, y, rtol, atol):
    """(rtol, atol) for comparing ``x`` and ``y``: the larger default of the two dtypes."""
    rtol = max(get_tolerance(x, rtol, default_rtols()), get_tolerance(y, rtol, default_rtols()))
    atol = max(get_tolerance(x, atol, default_atols()), get_tolerance(y, atol, default_atols()))
    return rtol, atol


def get_rtol(rtol=None, dtype=np.dtype(np.float64)):
    """``rtol``, or the default relative tolerance of ``dtype``."""
    return rtol if isinstance(rtol, numbers.Number) else default_rtols().get(np.dtype(dtype), 1e-5)


def get_atol(atol=None, dtype=np.dtype(np.float64)):
    """``atol``, or the default absolute tolerance of ``dtype``."""
    return atol if isinstance(atol, numbers.Number) else default_atols().get(np.dtype(dtype), 1e-20)


def get_etol(etol=None):
    """The fraction of elements allowed to violate the tolerance (default 0)."""
    return 0 if etol is None else etol


# -- comparisons ----------------------------------------------------------------------------------
def _as_numpy(value):
    if isinstance(value, NDArray):
        return value.asnumpy()
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    return np.asarray(value)


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """True when ``|a - b| <= atol + rtol * |b|`` everywhere (see :func:`get_tols`)."""
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _as_numpy(a), _as_numpy(b)
    if not use_broadcast and a.shape != b.shape:
        return False
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def locationError(a, b, index, names, maxError=False):
    """A message giving the values of ``a`` and ``b`` at ``index``."""
    label = "Maximum error" if maxError else "Error"
    index = tuple(int(i) for i in index)
    return f"{label} at index {index}: {names[0]}={_item(a[index])}, {names[1]}={_item(b[index])}"


def _item(value):
    return value.item() if hasattr(value, "item") else value


def assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False, use_broadcast=True,
                        mismatches=(10, 10)):
    """Raise AssertionError unless ``a`` and ``b`` agree within ``atol + rtol * |b|``.

    The message names the operands (``names``), the tolerances, the largest violation with
    its index and values, and up to ``mismatches[0]`` mismatching positions.
    """
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _as_numpy(a), _as_numpy(b)
    if not use_broadcast and a.shape != b.shape:
        raise AssertionError(f"{names[0]} has shape {a.shape}, {names[1]} has shape {b.shape}")
    try:
        a_full, b_full = np.broadcast_arrays(a, b)
    except ValueError:
        raise AssertionError(f"{names[0]} of shape {a.shape} and {names[1]} of shape {b.shape} "
                             f"cannot be compared") from None
    if np.allclose(a_full, b_full, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    a64 = a_full.astype(np.float64) if a_full.dtype != np.bool_ else a_full.astype(np.float64)
    b64 = b_full.astype(np.float64) if b_full.dtype != np.bool_ else b_full.astype(np.float64)
    with np.errstate(invalid="ignore"):
        excess = np.abs(a64 - b64) - (atol + rtol * np.abs(b64))
        bad = ~np.isclose(a64, b64, rtol=rtol, atol=atol, equal_nan=equal_nan)
    excess = np.where(np.isnan(excess), np.inf, excess)
    worst = np.unravel_index(int(np.argmax(np.where(bad, excess, -np.inf))), a_full.shape) if a_full.ndim \
        else ()
    positions = np.argwhere(bad)
    lines = [f"Items are not equal (rtol={rtol}, atol={atol}): {len(positions)} of {bad.size} elements "
             f"differ.", locationError(a_full, b_full, worst, names, maxError=True)]
    for position in positions[:mismatches[0]]:
        key = tuple(int(i) for i in position)
        lines.append(f"  {key}: {names[0]}={_item(a_full[key])} {names[1]}={_item(b_full[key])}")
    lines.append(f" {names[0]}: {np.array2string(a_full, threshold=50)}")
    lines.append(f" {names[1]}: {np.array2string(b_full, threshold=50)}")
    raise AssertionError("\n".join(lines))


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=("a", "b")):
    """assert_almost_equal after setting positions that are NaN in either operand to 0."""
    a, b = np.copy(_as_numpy(a)), np.copy(_as_numpy(b))
    nan = np.logical_or(np.isnan(a), np.isnan(b))
    a[nan] = 0
    b[nan] = 0
    assert_almost_equal(a, b, rtol, atol, names)


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    """numpy.testing.assert_allclose on arrays or NDArrays."""
    np.testing.assert_allclose(_as_numpy(a), _as_numpy(b), rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_exception(f, exception_type, *args, **kwargs):
    """Assert that ``f(*args, **kwargs)`` raises ``exception_type``."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError(f"{getattr(f, '__name__', f)} did not raise {exception_type.__name__}")


def same(a, b):
    """True when ``a`` and ``b`` have the same shape and the same elements."""
    return bool(np.array_equal(_as_numpy(a), _as_numpy(b)))


def same_array(array1, array2):
    """True when two NDArrays share their memory (a write through one shows in the other)."""
    if array1.shape != array2.shape:
        return False
    return array1._tensor.data_ptr() == array2._tensor.data_ptr()


def checkShapes(a, b):
    """Assert that ``a`` and ``b`` have the same shape."""
    assert a.shape == b.shape, f"shapes differ: {a.shape} vs {b.shape}"


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None):
    """assert_almost_equal element by element over (nested) tuples of arrays; None skips."""
    if t1 is None or t2 is None:
        return
    if isinstance(t1, (tuple, list)):
        for a, b in zip(t1, t2):
            compare_ndarray_tuple(a, b, rtol, atol)
    else:
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """Reduce ``dat`` with ``numpy_reduce_func`` (np.sum, np.max, ...) over ``axis`` (None,
    an int or a list of ints), keeping reduced axes as size 1 when ``keepdims``."""
    if isinstance(axis, int):
        axis = [axis]
    else:
        axis = list(axis) if axis is not None else list(range(len(dat.shape)))
    result = dat
    for a in sorted((a % dat.ndim for a in axis), reverse=True):
        result = numpy_reduce_func(result, axis=a)
    if keepdims:
        shape = list(dat.shape)
        for a in axis:
            shape[a % dat.ndim] = 1
        result = np.asarray(result).reshape(shape)
    return result


def collapse_sum_like(a, shape):
    """Sum ``a`` over the axes on which it was broadcast from ``shape``."""
    a = _as_numpy(a)
    shape = tuple(shape)
    leading = a.ndim - len(shape)
    result = a.sum(axis=tuple(range(leading))) if leading else a
    axes = tuple(i for i, size in enumerate(shape) if size == 1 and result.shape[i] != 1)
    return result.sum(axis=axes, keepdims=True) if axes else result


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
    """Uniform numpy arrays on [low, high) (keywords ``low``=0, ``high``=1, ``dtype``=float32)."""
    low = kwargs.pop("low", 0.0)
    high = kwargs.pop("high", 1.0)
    dtype = kwargs.pop("dtype", default_dtype())
    if kwargs:
        raise MXNetError(f"random_uniform_arrays: unknown keyword(s) {sorted(kwargs)}")
    arrays = [np.random.uniform(low, high, size=s).astype(dtype) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


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
        if modifier_func is not None:
            values = np.vectorize(modifier_func)(values).astype(dtype)
        array = sparse.row_sparse_array((values, rows), shape=shape, ctx=ctx, dtype=dtype)
        return array, (values, rows)
    if stype == "csr":
        mask = np.random.uniform(0, 1, size=shape) < density
        values = np.random.uniform(0, 1, size=shape).astype(dtype)
        if data_init is not None:
            values[:] = data_init
        if modifier_func is not None:
            values = np.vectorize(modifier_func)(values).astype(dtype)
        array = sparse.csr_matrix(np.where(mask, values, 0).astype(dtype), ctx=ctx, dtype=dtype)
        return array, tuple(part.asnumpy() for part in (array.indptr, array.indices, array.data))
    raise MXNetError(f"rand_sparse_ndarray: unknown storage type {stype!r}; expected 'row_sparse' or 'csr'")


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


# -- executors -------------------------------------------------------------------------------------
def _parse_location(sym, location, ctx, dtype=np.float32):
    """``{name: NDArray}`` for every argument of ``sym`` from a list or dict of arrays."""
    names = sym.list_arguments()
    if isinstance(location, dict):
        unknown = set(location) - set(names)
        if unknown:
            raise MXNetError(f"location: {sorted(unknown)} are not arguments of the symbol (arguments: {names})")
        missing = [n for n in names if n not in location]
        if missing:
            raise MXNetError(f"location: no value for argument(s) {missing}")
        items = [(n, location[n]) for n in names]
    else:
        location = list(location)
        if len(location) != len(names):
            raise MXNetError(f"location: {len(location)} arrays for {len(names)} arguments {names}")
        items = list(zip(names, location))
    return {name: _to_ndarray(value, ctx, dtype) for name, value in items}


def _parse_aux_states(sym, aux_states, ctx, dtype=np.float32):
    if aux_states is None:
        return None
    names = sym.list_auxiliary_states()
    if isinstance(aux_states, dict):
        missing = [n for n in names if n not in aux_states]
        if missing:
            raise MXNetError(f"aux_states: no value for {missing}")
        items = [(n, aux_states[n]) for n in names]
    else:
        aux_states = list(aux_states)
        if len(aux_states) != len(names):
            raise MXNetError(f"aux_states: {len(aux_states)} arrays for {len(names)} states {names}")
        items = list(zip(names, aux_states))
    return {name: _to_ndarray(value, ctx, dtype) for name, value in items}


def _to_ndarray(value, ctx, dtype):
    if isinstance(value, NDArray):
        value = value.asnumpy()
    value = np.asarray(value)
    if dtype == "asnumpy":
        return _nd_array(value, ctx=ctx, dtype=value.dtype)
    return _nd_array(value, ctx=ctx, dtype=dtype)


def _output_sum(executor, projections, is_train):
    outputs = executor.forward(is_train=is_train)
    return sum(float(np.sum(out.asnumpy().astype(np.float64) * weight))
               for out, weight in zip(outputs, projections))


def _perturbation_writer(array, values):
    """A function ``write(i)`` that sets element ``i`` (flat, C order) of the bound NDArray
    ``array`` to ``values.flat[i]`` (``values``: a NumPy array of the array's dtype) and leaves
    the other elements alone.  One element moves per finite-difference step, so only that
    element of the bound memory is written when it is contiguous (the whole array otherwise).
    ``values`` must be C-contiguous: ``source`` shares its memory and sees later changes."""
    source = torch.from_numpy(values.reshape(-1))

    def write(i):
        tensor = array._tensor   # looked up each time: the binding's memory, not a stale copy
        if not (tensor.is_contiguous() and tuple(tensor.shape) == values.shape):
            array[:] = values
            return
        with torch.no_grad():
            tensor.view(-1)[i:i + 1].copy_(source[i:i + 1])
    return write


def _finite_differences(executor, location, aux_states, eps, use_forward_train, projections, names):
    """Central differences of ``sum(output * projection)`` for the arguments in ``names``.

    Element ``i`` is moved to ``x_i +/- eps / 2`` (computed in float64, then rounded to the
    argument's dtype) while every other element keeps its value from ``location``."""
    arg_dict = executor.arg_dict
    aux_dict = executor.aux_dict
    gradients = {}

    def run():
        if aux_states is not None:
            for key, value in aux_states.items():
                aux_dict[key][:] = value
        return _output_sum(executor, projections, use_forward_train)

    for name in names:
        dtype = location[name].dtype
        base = np.array(location[name], dtype=np.float64)
        flat = base.reshape(-1)
        # the argument's values, kept in its dtype; only element i differs at each step
        current = np.array(location[name], dtype=dtype)
        current_flat = current.reshape(-1)
        arg_dict[name][:] = current
        write = _perturbation_writer(arg_dict[name], current)
        gradient = np.zeros(flat.size, dtype=np.float64)
        for i in range(flat.size):
            original = flat[i]
            kept = current_flat[i]
            current_flat[i] = np.asarray(original + eps / 2).astype(dtype)
            write(i)
            upper = run()
            current_flat[i] = np.asarray(original - eps / 2).astype(dtype)
            write(i)
            lower = run()
            current_flat[i] = kept
            write(i)
            gradient[i] = (upper - lower) / eps
        arg_dict[name][:] = location[name]
        gradients[name] = gradient.reshape(base.shape)
    if aux_states is not None:
        for key, value in aux_states.items():
            aux_dict[key][:] = value
    return gradients


def numeric_grad(executor, location, aux_states=None, eps=1e-4, use_forward_train=True, dtype=np.float32):
    """Central finite-difference gradients of the sum of every output of ``executor`` with
    respect to the arguments in ``location`` (a dict name -> numpy array, or a list in
    argument order).  Returns ``{name: numpy array}`` (float64)."""
    names = list(executor.arg_dict)
    if not isinstance(location, dict):
        location = dict(zip(names, location))
    location = {k: np.asarray(v, dtype=dtype) for k, v in location.items()}
    if aux_states is not None and not isinstance(aux_states, dict):
        aux_states = dict(zip(executor.aux_dict, aux_states))
    for name, value in location.items():
        executor.arg_dict[name][:] = value
    projections = [np.ones(out.shape) for out in executor.outputs]
    return _finite_differences(executor, location, aux_states, eps, use_forward_train, projections,
                               list(location))


_NUMERIC_RTOLS = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-2, np.dtype(np.float64): 1e-4}
_NUMERIC_ATOLS = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3, np.dtype(np.float64): 1e-6}


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None, atol=None,
                           grad_nodes=None, use_forward_train=True, ctx=None, grad_stype_dict=None,
                           dtype=np.float32):
    """Check ``sym``'s backward pass against finite differences.

    The scalar checked is ``sum_i sum(output_i * P_i)`` with random projections ``P_i`` in
    [0.1, 1.1): the executor's backward with head gradients ``P_i`` must match central
    differences with step ``numeric_eps`` (default 2**-9 for float32, 2**-14 for float64,
    2**-6 for float16).  ``location`` / ``aux_states``: lists in argument order or dicts.
    ``grad_nodes``: the arguments to check (default all; a dict maps them to 'write' or
    'add'; 'add' checks that the gradient is added to the array's previous content).
    ``grad_stype_dict``: argument name -> storage type ('default', 'row_sparse', 'csr') of
    its gradient array (a sparse one starts as zeros; the values checked are the same).
    Tolerances left as None: rtol 1e-2 and atol 1e-3 for float32 (1e-4 / 1e-6 for
    float64, 1e-1 for float16).  Raises AssertionError naming the argument on mismatch.
    """
    if dtype not in (np.float16, np.float32, np.float64):
        raise MXNetError(f"check_numeric_gradient: dtype must be float16, float32 or float64, got {dtype}")
    grad_stype_dict = dict(grad_stype_dict or {})
    for name, stype in grad_stype_dict.items():
        if stype not in ("default", "row_sparse", "csr"):
            raise MXNetError(f"check_numeric_gradient: grad_stype_dict[{name!r}] must be 'default', 'row_sparse' "
                             f"or 'csr', got {stype!r}")
    ctx = ctx or default_context()
    dtype_key = np.dtype(dtype)
    eps = numeric_eps if numeric_eps is not None else default_numeric_eps()[dtype_key]
    rtol = _NUMERIC_RTOLS[dtype_key] if rtol is None else rtol
    atol = _NUMERIC_ATOLS[dtype_key] if atol is None else atol
    location = _parse_location(sym, location, ctx, dtype)
    location_npy = {k: v.asnumpy() for k, v in location.items()}
    aux = _parse_aux_states(sym, aux_states, ctx, dtype)
    aux_npy = None if aux is None else {k: v.asnumpy() for k, v in aux.items()}
    names = sym.list_arguments()
    if grad_nodes is None:
        requests = {name: "write" for name in names}
    elif isinstance(grad_nodes, dict):
        requests = dict(grad_nodes)
    else:
        requests = {name: "write" for name in grad_nodes}
    unknown = set(requests) - set(names)
    if unknown:
        raise MXNetError(f"check_numeric_gradient: grad_nodes {sorted(unknown)} are not arguments {names}")
    initial = {name: np.random.normal(0, 0.01, size=location_npy[name].shape) for name in requests}
    for name in requests:
        if grad_stype_dict.get(name, "default") != "default":
            # a sparse gradient array starts as zeros of its storage type, as in MXNet
            initial[name] = np.zeros_like(initial[name])
    args_grad = {name: _nd_array(initial[name], ctx=ctx, dtype=dtype).tostype(grad_stype_dict.get(name, "default"))
                 for name in requests}
    grad_req = {name: requests.get(name, "null") for name in names}
    executor = sym.bind(ctx, args=location, args_grad=args_grad, grad_req=grad_req,
                        aux_states=None if aux is None else aux)
    outputs = executor.forward(is_train=True)
    projections = [np.random.rand(*out.shape) + 0.1 for out in outputs]
    executor.backward([_nd_array(p, ctx=ctx, dtype=out.dtype) for p, out in zip(projections, outputs)])
    symbolic = {name: executor.grad_dict[name].asnumpy() for name in requests}
    numeric = _finite_differences(executor, location_npy, aux_npy, eps, use_forward_train, projections,
                                  [n for n, r in requests.items() if r != "null"])
    for name, request in requests.items():
        if request == "null":
            continue
        computed = symbolic[name].astype(np.float64)
        if request == "add":
            computed = computed - initial[name].astype(dtype).astype(np.float64)
        assert_almost_equal(numeric[name], computed, rtol=rtol, atol=atol,
                            names=(f"NUMERICAL_{name}", f"BACKWARD_{name}"))


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None, ctx=None,
                           equal_nan=False, dtype=np.float32):
    """Bind ``sym`` at ``location``, run forward (inference) and compare every output with
    ``expected`` (a list in output order or a dict by output name).  ``dtype='asnumpy'``
    keeps each numpy array's dtype.  Returns the executor's outputs."""
    ctx = ctx or default_context()
    location = _parse_location(sym, location, ctx, dtype)
    aux = _parse_aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, dict):
        expected = [expected[name] for name in sym.list_outputs()]
    executor = sym.bind(ctx, args=location, args_grad=None, grad_req="null", aux_states=aux)
    outputs = executor.forward(is_train=False)
    if len(expected) != len(outputs):
        raise AssertionError(f"check_symbolic_forward: {len(expected)} expected arrays for {len(outputs)} outputs")
    for name, want, got in zip(sym.list_outputs(), expected, outputs):
        assert_almost_equal(want, got, rtol, atol, (f"EXPECTED_{name}", f"FORWARD_{name}"), equal_nan=equal_nan)
    return outputs


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None, aux_states=None,
                            grad_req="write", ctx=None, grad_stypes=None, equal_nan=False, dtype=np.float32):
    """Bind ``sym`` at ``location``, run forward (training) and backward with ``out_grads``
    (list, dict by output name, or None for ones) and compare the gradients with
    ``expected`` (a list in argument order or a dict; arguments missing from a dict are not
    differentiated).  ``grad_req`` 'write', 'add' (gradient added to random initial
    values) or 'null' (array left untouched), per argument with a dict.  Returns
    ``{name: NDArray}`` of the gradient arrays."""
    if grad_stypes and any(v != "default" for v in grad_stypes.values()):
        raise MXNetError("check_symbolic_backward: sparse gradient storage is not supported")
    ctx = ctx or default_context()
    names = sym.list_arguments()
    location = _parse_location(sym, location, ctx, dtype)
    aux = _parse_aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, (list, tuple)):
        expected = dict(zip(names, expected))
    initial = {name: np.random.normal(size=np.shape(value)) for name, value in expected.items()}
    args_grad = {name: _to_ndarray(value, ctx, location[name].dtype if dtype == "asnumpy" else dtype)
                 for name, value in initial.items()}
    if isinstance(grad_req, str):
        requests = {name: (grad_req if name in expected else "null") for name in names}
    elif isinstance(grad_req, (list, tuple)):
        requests = dict(zip(names, grad_req))
    else:
        requests = {name: grad_req.get(name, "null") for name in names}
    requests = {name: (req if name in args_grad else "null") for name, req in requests.items()}
    executor = sym.bind(ctx, args=location, args_grad=args_grad, grad_req=requests, aux_states=aux)
    outputs = executor.forward(is_train=True)
    if isinstance(out_grads, dict):
        out_grads = [out_grads[name] for name in sym.list_outputs()]
    if out_grads is not None:
        out_grads = [_to_ndarray(g, ctx, out.dtype) for g, out in zip(out_grads, outputs)]
    executor.backward(out_grads)
    for name, want in expected.items():
        got = args_grad[name].asnumpy()
        request = requests[name]
        if request == "write":
            assert_almost_equal(want, got, rtol, atol, (f"EXPECTED_{name}", f"BACKWARD_{name}"),
                                equal_nan=equal_nan)
        elif request == "add":
            start = initial[name].astype(got.dtype)
            assert_almost_equal(want, got - start, rtol, atol, (f"EXPECTED_{name}", f"BACKWARD_{name}"),
                                equal_nan=equal_nan)
        elif request == "null":
            assert_almost_equal(initial[name].astype(got.dtype), got, rtol, atol,
                                (f"INITIAL_{name}", f"BACKWARD_{name}"), equal_nan=equal_nan)
    return args_grad


def simple_forward(sym, ctx=None, is_train=False, **inputs):
    """Outputs (numpy) of ``sym`` bound to the numpy ``inputs``; one array for one output."""
    ctx = ctx or default_context()
    arrays = {name: _nd_array(np.asarray(value), ctx=ctx, dtype=np.asarray(value).dtype)
              for name, value in inputs.items()}
    executor = sym.bind(ctx, args=arrays, grad_req="null")
    outputs = [out.asnumpy() for out in executor.forward(is_train=is_train)]
    return outputs[0] if len(outputs) == 1 else outputs


def check_consistency(sym, ctx_list, scale=1.0, grad_req="write", arg_params=None, aux_params=None, rtol=None,
                      atol=None, raise_on_err=True, ground_truth=None, equal_nan=False, use_uniform=False,
                      rand_type=np.float64):
    """Run ``sym`` under each entry of ``ctx_list`` (dicts holding ``ctx``, input shapes and an
    optional ``type_dict``) from the same random parameters and compare outputs and
    gradients (head gradients = outputs) with the most precise entry.  Returns the
    per-entry ``(outputs, gradients)`` numpy results."""
    if not isinstance(sym, (list, tuple)):
        sym = [sym] * len(ctx_list)
    executors = []
    for symbol, spec in zip(sym, ctx_list):
        spec = dict(spec)
        ctx = spec.pop("ctx")
        type_dict = spec.pop("type_dict", None)
        executors.append(symbol.simple_bind(ctx, grad_req=grad_req, type_dict=type_dict, **spec))
    reference = executors[0]
    arg_params = dict(arg_params or {})
    aux_params = dict(aux_params or {})
    for name, array in reference.arg_dict.items():
        if name not in arg_params:
            values = (np.random.uniform(-scale, scale, array.shape) if use_uniform
                      else np.random.normal(0, scale, array.shape))
            arg_params[name] = values.astype(rand_type)
    for name, array in reference.aux_dict.items():
        aux_params.setdefault(name, np.zeros(array.shape, dtype=rand_type))
    results = []
    for executor in executors:
        for name, array in executor.arg_dict.items():
            array[:] = np.asarray(_as_numpy(arg_params[name])).astype(array.dtype)
        for name, array in executor.aux_dict.items():
            array[:] = np.asarray(_as_numpy(aux_params[name])).astype(array.dtype)
        outputs = executor.forward(is_train=grad_req != "null")
        if grad_req != "null":
            executor.backward([out.copy() for out in outputs])
        results.append(([out.asnumpy() for out in outputs],
                        {k: v.asnumpy() for k, v in executor.grad_dict.items()}))
    precision = [max(np.dtype(a.dtype).itemsize for a in e.arg_dict.values()) if e.arg_dict else 4
                 for e in executors]
    best = int(np.argmax(precision)) if ground_truth is None else None
    truth = results[best] if ground_truth is None else ground_truth
    for index, (outputs, grads) in enumerate(results):
        if ground_truth is None and index == best:
            continue
        dtype = min((np.dtype(a.dtype) for a in executors[index].arg_dict.values()),
                    key=lambda d: d.itemsize, default=np.dtype(np.float32))
        tol_r = get_rtol(rtol, dtype) if not isinstance(rtol, numbers.Number) else rtol
        tol_a = get_atol(atol, dtype) if not isinstance(atol, numbers.Number) else atol
        try:
            for got, want in zip(outputs, truth[0]):
                assert_almost_equal(got, want, tol_r, tol_a, equal_nan=equal_nan)
            for name, want in truth[1].items():
                assert_almost_equal(grads[name], want, tol_r, tol_a, names=(f"{name}_{index}", f"{name}_ref"),
                                    equal_nan=equal_nan)
        except AssertionError:
            if raise_on_err:
                raise
    return results


def retry(n):
    """Decorator: run a (random) test up to ``n`` times until it passes."""
    if n < 1:
        raise MXNetError(f"retry: n must be positive, got {n}")

    def decorate(function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            for attempt in range(n):
                try:
                    return function(*args, **kwargs)
                except AssertionError:
                    if attempt == n - 1:
                        raise
        return wrapper
    return decorate


# -- checks of random generators --------------------------------------------------------------------
def mean_check(generator, mu, sigma, nsamples=1000000):
    """True when the mean of ``generator(nsamples)`` lies within mu +- 3 sigma / sqrt(n)."""
    samples = np.asarray(generator(nsamples), dtype=np.float64)
    bound = 3 * sigma / np.sqrt(nsamples)
    return bool(mu - bound < samples.mean() < mu + bound)


def var_check(generator, sigma, nsamples=1000000):
    """True when the variance of ``generator(nsamples)`` is within 3 standard errors of sigma**2."""
    samples = np.asarray(generator(nsamples), dtype=np.float64)
    bound = 3 * np.sqrt(2 * sigma ** 4 / (nsamples - 1))
    return bool(sigma ** 2 - bound < samples.var() < sigma ** 2 + bound)


def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """``nbuckets`` equal-probability buckets ``[(ppf(i/n), ppf((i+1)/n))]`` and their probabilities."""
    edges = [ppf(i / float(nbuckets)) for i in range(nbuckets + 1)]
    buckets = list(zip(edges[:-1], edges[1:]))
    return buckets, [1.0 / nbuckets] * nbuckets


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """Pearson chi-square test of ``generator(nsamples)`` against ``probs`` over ``buckets``
    (a list of ``(low, high)`` intervals, or of discrete values).  Returns
    ``(p_value, observed_counts, expected_counts)``."""
    from scipy import stats
    samples = np.asarray(generator(nsamples)).reshape(-1)
    if isinstance(buckets[0], (tuple, list)):
        observed = np.array([np.sum((samples >= low) & (samples < high)) for low, high in buckets], dtype=np.float64)
    else:
        observed = np.array([np.sum(samples == value) for value in buckets], dtype=np.float64)
    expected = np.asarray(probs, dtype=np.float64) * nsamples
    expected = expected * observed.sum() / expected.sum() if observed.sum() else expected
    _, p_value = stats.chisquare(f_obs=observed, f_exp=expected)
    return p_value, observed, expected


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5, success_rate=0.2, alpha=0.05):
    """Repeat :func:`chi_square_check` ``nrepeat`` times; assert that at least
    ``success_rate`` of the p-values exceed ``alpha``.  Returns the p-values."""
    p_values = [chi_square_check(generator, buckets, probs, nsamples)[0] for _ in range(nrepeat)]
    passed = sum(p > alpha for p in p_values)
    if passed < nrepeat * success_rate:
        raise AssertionError(f"verify_generator: only {passed} of {nrepeat} chi-square tests passed "
                             f"(p-values {p_values}, alpha {alpha})")
    return p_values


# the data-set helpers (download, get_mnist*, get_cifar10, ...) live in their own module
from .test_data import (download, download_model, get_im2rec_path,  # noqa: E402,F401
                        get_mnist, get_mnist_pkl, get_mnist_ubyte, get_cifar10,
                        get_mnist_iterator, get_zip_data, get_bz2_data)
from . import test_data as _test_data  # noqa: E402
# input builders and further checks live in their own modules
from .test_inputs import (assign_each, assign_each2, create_2d_tensor, create_vector,  # noqa: E402,F401
                          get_identity_mat, get_identity_mat_batch, create_sparse_array, create_sparse_array_zd,
                          shuffle_csr_column_indices, rand_coord_2d, new_matrix_with_real_eigvals_2d,
                          new_matrix_with_real_eigvals_nd, new_orthonormal_matrix_2d,
                          new_sym_matrix_with_real_eigvals_2d, new_sym_matrix_with_real_eigvals_nd)
from .test_checks import (assert_almost_equal_with_err, same_symbol_structure, check_speed,  # noqa: E402,F401
                          check_gluon_hybridize_consistency)



def compare_optimizer(opt1, opt2, shape, dtype, w_stype="default", g_stype="default", rtol=1e-4, atol=1e-5,
                      compare_states=True, ntensors=1):
    """Check that optimizers ``opt1`` and ``opt2`` make the same step (MXNet's test helper).

    ``shape`` a tuple: draws ``ntensors`` random weights and gradients of ``shape`` / ``dtype``
    (storage types ``w_stype`` / ``g_stype`` for ``opt2``; ``opt1``, the reference, gets dense
    copies as in MXNet), gives both optimizers identical values, creates their states with
    ``create_state_multi_precision``, applies one ``update_multi_precision`` each and asserts that
    the states (when ``compare_states``) and the updated weights agree within ``rtol`` / ``atol``
    (AssertionError otherwise).

    ``shape`` a list of shapes (``ntensors`` of them): the multi-tensor check -- ``opt2`` updates
    all the dense weights in one ``update_multi_precision`` call with a list of indices, ``opt1``
    one at a time, and each weight (and state) is compared.
    """
    if isinstance(shape, list):
        if len(shape) != ntensors:
            raise MXNetError(f"compare_optimizer: {len(shape)} shapes given for ntensors={ntensors}")
        weights1 = [rand_ndarray(s, "default", dtype=dtype) for s in shape]
        grads1 = [rand_ndarray(s, "default", dtype=dtype) for s in shape]
        weights2 = [w.copy() for w in weights1]
        grads2 = [g.copy() for g in grads1]
        states2 = [opt2.create_state_multi_precision(0, w) for w in weights2]
        opt2.update_multi_precision(list(range(ntensors)), weights2, grads2, states2)
        for i in range(ntensors):
            state1 = opt1.create_state_multi_precision(i, weights1[i])
            opt1.update_multi_precision(i, weights1[i], grads1[i], state1)
            if compare_states:
                compare_ndarray_tuple(state1, states2[i], rtol, atol)
            compare_ndarray_tuple(weights1[i], weights2[i], rtol, atol)
        return
    weights2 = [rand_ndarray(shape, w_stype, density=1, dtype=dtype) for _ in range(ntensors)]
    grads2 = [rand_ndarray(shape, g_stype, dtype=dtype) for _ in range(ntensors)]
    weights1 = [w.copyto(default_context()).tostype("default") for w in weights2]
    grads1 = [g.copyto(default_context()).tostype("default") for g in grads2]
    states1 = [opt1.create_state_multi_precision(i, w) for i, w in enumerate(weights1)]
    states2 = [opt2.create_state_multi_precision(i, w) for i, w in enumerate(weights2)]
    if compare_states:
        for state1, state2 in zip(states1, states2):
            compare_ndarray_tuple(state1, state2)
    for i in range(ntensors):
        opt1.update_multi_precision(i, weights1[i], grads1[i], states1[i])
        opt2.update_multi_precision(i, weights2[i], grads2[i], states2[i])
    if compare_states:
        for state1, state2 in zip(states1, states2):
            compare_ndarray_tuple(state1, state2, rtol=rtol, atol=atol)
    for weight1, weight2 in zip(weights1, weights2):
        assert_almost_equal(weight1, weight2, rtol=rtol, atol=atol)


# -- run-environment probes ----------------------------------------------------------------------------
def is_cd_run():
    """True when the environment variable ``CD_JOB`` is ``"1"`` (MXNet's continuous-delivery runs)."""
    return os.environ.get("CD_JOB", "0") == "1"


def is_aarch64_run():
    """True on a 64-bit ARM machine (``platform.machine() == "aarch64"``)."""
    return platform.machine() == "aarch64"


def has_tvm_ops():
    """Whether operators generated by TVM are available: never in mxtorch (``TVM_OP`` is off)."""
    return Features().is_enabled("TVM_OP")


def is_op_runnable():
    """Whether TVM-dependent operator tests can run on the current context: always on CPU, and on
    a GPU because mxtorch has no TVM operators whose compute capability could matter."""
    return True


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


# ``from mxnet.test_utils import *`` exported every public name of MXNet's module (it had no __all__),
# the modules it imported included; these are the ones mxtorch's module has.
from .util import star_exports  # noqa: E402
__all__ = star_exports(__name__, globals())
