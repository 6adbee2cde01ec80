"""Higher-order gradients through mx.autograd.grad(create_graph=True); values from MXNet 1.9.1
(tools/gen_higher_order_grad.py -> tests/data/higher_order/unary.json)."""
import json
import os

import numpy as np
import pytest

import mxtorch as mx
from mxtorch import autograd, nd

with open(os.path.join(os.path.dirname(__file__), "data", "higher_order", "unary.json")) as _fh:
    REF = json.load(_fh)

OPS = {
    "sin": lambda x: nd.sin(x),
    "cos": lambda x: nd.cos(x),
    "log": lambda x: nd.log(x),
    "sigmoid": lambda x: nd.sigmoid(x),
    "tanh": lambda x: nd.tanh(x),
    "relu": lambda x: nd.relu(x),
    "radians": lambda x: nd.radians(x),
    "abs": lambda x: nd.abs(x),
    "clip": lambda x: nd.clip(x, -0.5, 0.5),
    "reciprocal": lambda x: nd.reciprocal(x),
    "square": lambda x: nd.square(x),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_first_second_third_order_match_mxnet(name):
    x0 = np.array(REF["x"], dtype=np.float32)
    x = nd.array(np.abs(x0) if name == "log" else x0)
    x.attach_grad()
    computed = []
    with autograd.record():
        y = OPS[name](x)
        for head in REF["head_grads"]:
            result = autograd.grad(y, x, head_grads=nd.array(head), create_graph=True, retain_graph=True)
            assert isinstance(result, list) and len(result) == 1   # a list even for one variable, as MXNet
            y = result[0]
            computed.append(y.asnumpy())
    for order, (value, expected) in enumerate(zip(computed, REF["grads"][name]), start=1):
        np.testing.assert_allclose(value, np.array(expected), rtol=1e-4, atol=1e-6,
                                   err_msg=f"{name} order {order}")


def test_constant_gradient_differentiates_to_zeros_and_backward_reaches_nothing():
    # d/dx (3x) = 3 does not depend on x; its derivative is zero rather than an error
    x = nd.array([1.0, -2.0])
    x.attach_grad()
    with autograd.record():
        (g,) = autograd.grad(x * 3, x, create_graph=True)
        (gg,) = autograd.grad(g, x, create_graph=True)
    np.testing.assert_array_equal(g.asnumpy(), [3, 3])
    np.testing.assert_array_equal(gg.asnumpy(), [0, 0])


def test_arcsinh_second_derivative_is_the_true_one():
    # d2/dx2 asinh(x) = -x / (1 + x^2)^(3/2); MXNet 1.9.1's rule has the opposite sign
    x = nd.array([0.5, 1.0, -2.0])
    x.attach_grad()
    with autograd.record():
        (g,) = autograd.grad(nd.arcsinh(x), x, create_graph=True)
        (gg,) = autograd.grad(g, x)
    xs = np.array([0.5, 1.0, -2.0])
    np.testing.assert_allclose(gg.asnumpy(), -xs / (1 + xs ** 2) ** 1.5, rtol=1e-5)


def test_grad_of_no_variables_is_an_error():
    x = nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        y = x * 2
    with pytest.raises(mx.base.MXNetError, match="variables cannot be an empty list"):
        autograd.grad(y, [])
