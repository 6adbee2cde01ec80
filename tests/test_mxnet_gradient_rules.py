"""Gradient values where autograd of a torch formula differs from MXNet 1.9.1's backward:
ties and NaNs of maximum / minimum, cbrt / rcbrt / gamma / gammaln at their singular points.
Reference numbers printed by MXNet 1.9.1 (the same script run under ~/mxref)."""
import numpy as np
import pytest

import mxtorch as mx

NAN = float("nan")


def gradients(function, a, b):
    a, b = mx.nd.array(a), mx.nd.array(b)
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        y = function(a, b)
    y.backward(mx.nd.ones(a.shape) * 2)
    return y.asnumpy(), a.grad.asnumpy(), b.grad.asnumpy()


@pytest.mark.parametrize("function", [mx.nd.maximum, mx.nd.broadcast_maximum])
def test_maximum_ties_go_to_lhs_and_nan_has_no_gradient(function):
    y, ga, gb = gradients(function, [1, 2, 3, NAN, 1], [1, 1, 4, 2, NAN])
    np.testing.assert_array_equal(y, [1, 2, 4, NAN, NAN])
    np.testing.assert_array_equal(ga, [2, 2, 0, 0, 0])
    np.testing.assert_array_equal(gb, [0, 0, 2, 0, 0])


def test_minimum_ties_go_to_lhs():
    y, ga, gb = gradients(mx.nd.minimum, [1, 2, 3, NAN, 1], [1, 1, 4, 2, NAN])
    np.testing.assert_array_equal(y, [1, 1, 3, NAN, NAN])
    np.testing.assert_array_equal(ga, [2, 0, 2, 0, 0])
    np.testing.assert_array_equal(gb, [0, 2, 0, 0, 0])


@pytest.mark.parametrize("name,at_zero,at_minus_one", [
    ("cbrt", np.inf, 2 / 3), ("rcbrt", -np.inf, -2 / 3),
    ("gamma", np.inf, None), ("gammaln", np.inf, np.inf),
])
def test_unary_gradients_at_singular_points(name, at_zero, at_minus_one):
    for x0, expected in ((0.0, at_zero), (-1.0, at_minus_one)):
        if expected is None:
            continue
        x = mx.nd.array([x0])
        x.attach_grad()
        with mx.autograd.record():
            y = getattr(mx.nd, name)(x)
        y.backward(mx.nd.array([2.0]))
        np.testing.assert_allclose(x.grad.asnumpy(), [expected], rtol=1e-5)


def test_bound_outputs_have_mxnet_storage_types():
    rsp = mx.nd.sparse.row_sparse_array(([[1.0, -2.0]], [1]), shape=(3, 2))
    executor = mx.sym.relu(mx.sym.var("x")).bind(mx.cpu(), {"x": rsp})
    executor.forward()
    assert executor.outputs[0].stype == "row_sparse"
    assert executor.outputs[0].asnumpy().tolist() == [[0, 0], [1, 0], [0, 0]]
    square = mx.sym._internal._square_sum(mx.sym.var("x"), axis=1, keepdims=True)
    executor = square.bind(mx.cpu(), {"x": rsp})
    executor.forward()
    assert executor.outputs[0].stype == "row_sparse"
    assert mx.nd._internal._square_sum(rsp, axis=0).stype == "default"
    both = mx.sym._internal._maximum(mx.sym.var("a"), mx.sym.var("b"))
    executor = both.bind(mx.cpu(), {"a": rsp, "b": rsp})
    executor.forward()
    assert executor.outputs[0].stype == "row_sparse"


def test_check_symbolic_backward_allocates_gradients_of_the_given_storage():
    from mxtorch.test_utils import check_symbolic_backward
    rsp = mx.nd.sparse.row_sparse_array(([[1.0, 2.0]], [1]), shape=(3, 2))
    grads = check_symbolic_backward(mx.sym.square(mx.sym.var("x")), [rsp], [np.ones((3, 2))],
                                    [2 * rsp.asnumpy()], grad_stypes={"x": "row_sparse"})
    assert grads["x"].stype == "row_sparse"


def test_symbol_functions_accept_out_as_mxnet():
    lhs, rhs = mx.sym.var("l"), mx.sym.var("r")
    assert mx.sym.elemwise_add(lhs, rhs, out=lhs).list_arguments() == ["l", "r"]
