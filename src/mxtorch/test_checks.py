"""Checks of ``mx.test_utils`` (MXNet 1.9.1) beyond the element-wise comparisons: comparison
with a tolerated error rate, graph-structure equality, executor speed and Gluon hybridize
consistency.
"""
from __future__ import annotations

import json
import time

import numpy as np

from .base import MXNetError

__all__ = ["assert_almost_equal_with_err", "same_symbol_structure", "check_speed",
           "check_gluon_hybridize_consistency"]


def assert_almost_equal_with_err(a, b, rtol=None, atol=None, etol=None, names=("a", "b"), equal_nan=False,
                                 mismatches=(10, 10)):
    """Like ``assert_almost_equal``, but up to a fraction ``etol`` of the elements may differ.

    With ``etol`` > 0 the arrays pass when the fraction of elements outside
    ``atol + rtol * |b|`` is at most ``etol``; otherwise AssertionError gives that fraction,
    the tolerances and the largest violations (``mismatches[0]`` of them).  With ``etol`` None
    or 0 this is ``assert_almost_equal``."""
    from .test_utils import _as_numpy, assert_almost_equal, get_etol, get_tols, locationError
    etol = get_etol(etol)
    if etol <= 0:
        assert_almost_equal(a, b, rtol=rtol, atol=atol, names=names, equal_nan=equal_nan, mismatches=mismatches)
        return
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = np.broadcast_arrays(_as_numpy(a), _as_numpy(b))
    close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    error_rate = 1 - np.count_nonzero(close) / close.size
    if error_rate <= etol:
        return
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(invalid="ignore"):
        excess = np.where(close, -np.inf, np.abs(a64 - b64) - (atol + rtol * np.abs(b64)))
    excess = np.where(np.isnan(excess), np.inf, excess)
    order = np.argsort(excess, axis=None)[::-1][:max(int(mismatches[0]), 1)]
    lines = [f"Error rate {error_rate:.6f} exceeds etol={etol} (rtol={rtol}, atol={atol}): "
             f"{close.size - np.count_nonzero(close)} of {close.size} elements differ."]
    for flat in order:
        index = np.unravel_index(int(flat), a.shape) if a.ndim else ()
        if close[index]:
            break
        lines.append("  " + locationError(a, b, index, names))
    raise AssertionError("\n".join(lines))


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
    from . import ndarray as nd
    from .test_utils import default_context
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
    from . import autograd
    from .initializer import Initializer
    from .test_utils import assert_almost_equal

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
