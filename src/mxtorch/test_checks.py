"""Checks of symbols, executors, blocks and optimizers of ``mx.test_utils`` (MXNet 1.9.1):
gradients against finite differences (``check_numeric_gradient``, ``numeric_grad``),
forward / backward against expected arrays (``check_symbolic_forward`` /
``check_symbolic_backward``), consistency across contexts and dtypes, graph-structure
equality, executor speed, Gluon hybridize consistency and ``compare_optimizer``.

``check_numeric_gradient`` compares the executor's backward pass with central finite
differences of ``sum(output * projection)`` for a random projection; ``check_symbolic_forward``
/ ``check_symbolic_backward`` compare an executor's outputs and gradients with expected arrays.
"""
from __future__ import annotations

import json
import numbers
import time

import numpy as np
import torch

from . import autograd
from . import ndarray as nd
from .base import MXNetError
from .initializer import Initializer
from .ndarray.ndarray import NDArray, array as _nd_array
from .test_compare import _as_numpy, assert_almost_equal, compare_ndarray_tuple, default_numeric_eps, get_atol, get_rtol
from .test_environment import default_context
from .test_inputs import rand_ndarray

__all__ = ["numeric_grad", "check_numeric_gradient", "check_symbolic_forward",
           "check_symbolic_backward", "simple_forward", "check_consistency", "same_symbol_structure",
           "check_speed", "check_gluon_hybridize_consistency", "compare_optimizer"]


# -- executors -------------------------------------------------------------------------------------
def _parse_location(sym, location, ctx, dtype=np.float32):
    """``{name: NDArray}`` for every argument of ``sym`` from a dict of arrays, or a list in the
    order of ``sym.list_arguments()`` (entries beyond the arguments dropped, as MXNet's ``zip``;
    fewer raise MXNetError)."""
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
        if len(location) < len(names):
            raise MXNetError(f"location: {len(location)} arrays for {len(names)} arguments {names}")
        # MXNet pairs the list with the arguments and drops what is left over (its own
        # test_Deconvolution passes a bias array to a Deconvolution without bias)
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
    if isinstance(value, NDArray) and value.stype != "default":
        # a sparse array keeps its storage type (and stored parts), as MXNet bound it
        return _nd_array(value, ctx=ctx, dtype=value.dtype if dtype == "asnumpy" else dtype)
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


# arguments with fewer elements are differenced one forward pass at a time
_BATCHED_MIN_SIZE = 64
_BATCHED_MAX_ELEMENTS = 1 << 22


def _batched_differences(executor, name, flat, current, eps, is_train, projections):
    """The central differences of ``_finite_differences`` for argument ``name``, computed by
    running the graph on a batch of perturbed copies at once (``torch.vmap`` over the plan's
    ``run_tensors``): the same values per element, a fraction of the forward passes' overhead
    (MXNet's own test files difference 36,000-element arguments; one pass at a time took
    minutes).  Returns None, and the caller differences one pass at a time, for a small
    argument or a graph that vmap cannot batch (random operators, data-dependent control
    flow, operators computing outside torch, in-place state updates)."""
    size = flat.size
    if size < _BATCHED_MIN_SIZE:
        return None
    position = executor._arg_names.index(name)
    args = [array._tensor for array in executor.arg_arrays]
    aux = [array._tensor for array in executor.aux_arrays]
    if args[position].dtype not in (torch.float16, torch.float32, torch.float64):
        return None
    dtype = current.dtype
    heads = [torch.as_tensor(weight, dtype=torch.float64) for weight in projections]
    chunk = max(1, min(256, _BATCHED_MAX_ELEMENTS // size))
    device = args[position].device
    point = torch.from_numpy(np.ascontiguousarray(current).reshape(-1)).to(device)
    shape = tuple(current.shape)

    def objective(value):
        values = list(args)
        values[position] = value
        outputs = executor.run_tensors(values, aux, is_train=is_train)
        return sum((out.to(torch.float64) * head.to(out.device)).sum() for out, head in zip(outputs, heads))

    batched = torch.vmap(objective, randomness="error")
    gradient = np.zeros(size, dtype=np.float64)
    try:
        with torch.no_grad():
            for start in range(0, size, chunk):
                index = np.arange(start, min(start + chunk, size))
                upper = np.asarray(flat[index] + eps / 2).astype(dtype)
                lower = np.asarray(flat[index] - eps / 2).astype(dtype)
                rows = torch.arange(len(index))
                stacked = point.repeat(2 * len(index), 1)
                stacked[rows, torch.from_numpy(index)] = torch.from_numpy(upper).to(device)
                stacked[rows + len(index), torch.from_numpy(index)] = torch.from_numpy(lower).to(device)
                sums = batched(stacked.reshape((2 * len(index),) + shape)).cpu().numpy()
                gradient[index] = (sums[:len(index)] - sums[len(index):]) / eps
    except Exception:       # noqa: BLE001  (vmap cannot batch this graph: one pass at a time)
        return None
    return gradient


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
        gradient = None
        if aux_states is None or not use_forward_train:
            gradient = _batched_differences(executor, name, flat, current, eps, use_forward_train, projections)
        if gradient is not None:
            arg_dict[name][:] = location[name]
            gradients[name] = gradient.reshape(base.shape)
            continue
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
    ctx = ctx or default_context()
    names = sym.list_arguments()
    location = _parse_location(sym, location, ctx, dtype)
    aux = _parse_aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, (list, tuple)):
        expected = dict(zip(names, expected))
    initial = {name: np.random.normal(size=np.shape(value)) for name, value in expected.items()}
    args_grad = {name: _to_ndarray(value, ctx, location[name].dtype if dtype == "asnumpy" else dtype)
                 for name, value in initial.items()}
    for name, stype in (grad_stypes or {}).items():
        # gradient arrays of the requested storage types (``grad_stypes``), as MXNet allocated them
        if name in args_grad and stype != "default":
            args_grad[name] = args_grad[name].tostype(stype)
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


def same_symbol_structure(sym1, sym2):
    """True when the node lists of the two Symbols' JSON have the same operator at each
    position (compared over the shorter list, as MXNet's helper did); names and attributes are
    not compared."""
    nodes1 = json.loads(sym1.tojson())["nodes"]
    nodes2 = json.loads(sym2.tojson())["nodes"]
    return all(node1["op"] == node2["op"] for node1, node2 in zip(nodes1, nodes2))


def check_speed(sym, location=None, ctx=None, N=20, grad_req=None, typ="whole", **kwargs):
    """Seconds per run of ``sym`` bound on ``ctx`` (default ``default_context()``), averaged
    over ``N`` runs after one warm-up run.

    ``location`` maps argument names to NumPy arrays (their shapes bind the executor); without
    it the shapes come from ``kwargs`` and the arguments are standard-normal.  ``typ='whole'``
    times forward plus backward (the outputs as head gradients, ``grad_req`` default 'write'),
    ``typ='forward'`` inference only; ValueError for another ``typ``."""
    ctx = ctx or default_context()
    grad_req = grad_req or "write"
    if typ not in ("whole", "forward"):
        raise ValueError('typ can only be "whole" or "forward".')
    if location is None:
        executor = sym.simple_bind(grad_req=grad_req, ctx=ctx, **kwargs)
        location = {name: np.random.normal(size=array.shape, scale=1.0)
                    for name, array in executor.arg_dict.items()}
    else:
        if not isinstance(location, dict):
            raise MXNetError(f"check_speed: location must be a dict of argument name -> NumPy array, "
                             f"got {type(location).__name__}")
        executor = sym.simple_bind(grad_req=grad_req, ctx=ctx,
                                   **{name: value.shape for name, value in location.items()})
    for name, value in location.items():
        executor.arg_dict[name][:] = value.astype(executor.arg_dict[name].dtype)

    def run():
        if typ == "whole":
            executor.forward(is_train=True)
            executor.backward(out_grads=executor.outputs)
        else:
            executor.forward(is_train=False)

    run()
    nd.waitall()
    start = time.time()
    for _ in range(N):
        run()
    nd.waitall()
    return (time.time() - start) / N


def check_gluon_hybridize_consistency(net_builder, data_l, numpy_func=None, test_grad=True, rtol=1E-4,
                                      atol=1E-4):
    """Check that a HybridBlock gives the same outputs (and, with ``test_grad``, the same input
    gradients for head gradient = output) imperatively and hybridized.

    ``net_builder(prefix=...)`` builds the block (it must not draw random numbers); every build
    gets the parameter values of the first one.  ``data_l`` are the input arrays (copied for
    each run).  With ``numpy_func`` the output is also compared with
    ``numpy_func(*inputs as NumPy)``.  AssertionError on a mismatch beyond ``rtol`` / ``atol``."""

    class _FromValues(Initializer):
        def __init__(self, values):
            super().__init__()
            self._values = values

        def _init_weight(self, name, arr):
            arr[:] = self._values[name]

    reference_out = None
    reference_grads = None
    initializer = None
    for hybridize in (False, True):
        for use_autograd in ((False, True) if test_grad else (False,)):
            net = net_builder(prefix="net_")
            if initializer is None:
                net.initialize()
            else:
                net.initialize(initializer)
            if hybridize:
                net.hybridize()
            inputs = [value.copy() for value in data_l]
            if use_autograd:
                for value in inputs:
                    value.attach_grad()
                with autograd.record():
                    out = net(*inputs)
                out.backward(out)
            else:
                out = net(*inputs)
            if initializer is None:
                initializer = _FromValues({name: param.data().asnumpy()
                                           for name, param in net.collect_params().items()})
            if reference_out is None:
                reference_out = out.asnumpy()
            else:
                assert_almost_equal(out.asnumpy(), reference_out, rtol=rtol, atol=atol)
            if use_autograd:
                grads = [value.grad.asnumpy() for value in inputs]
                if reference_grads is None:
                    reference_grads = grads
                else:
                    for grad, expected in zip(grads, reference_grads):
                        assert_almost_equal(grad, expected, rtol=rtol, atol=atol)
    if numpy_func is not None:
        expected = numpy_func(*[value.asnumpy() for value in data_l])
        assert_almost_equal(reference_out, expected, rtol=rtol, atol=atol)


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
