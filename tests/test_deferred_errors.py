"""Operator errors of the computation are reported late, as MXNet 1.9.1's engine did
(mxtorch.ndarray.pending): at asnumpy / wait_to_read / waitall on the outputs, passed on to
the arrays computed from them, and each raised once.  Behaviour checked against MXNet 1.9.1."""
import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError


def test_failed_sampler_raises_at_the_next_wait_on_its_outputs():
    samples = mx.nd.random.normal(0, -1, (2, 2))        # no error at the call (MXNet 1.9.1)
    product = mx.nd.dot(mx.nd.ones((2, 2)), samples)    # a reader of a failed array fails too
    with pytest.raises(MXNetError, match="'scale' must be positive"):
        product.asnumpy()
    # raised once: the same failure is cleared for every array it reached
    product.asnumpy()
    samples.asnumpy()
    with pytest.raises(MXNetError, match="'high' \\(1\\) must be larger than 'low' \\(3\\)"):
        mx.nd.random.randint(3, 1, (2,)).wait_to_read()
    # MXNet 1.9.1: raising one pending error clears the others (then nothing else raises)
    first, second = mx.nd.random.normal(0, -1, (2,)), mx.nd.random.normal(0, -1, (2,))
    with pytest.raises(MXNetError):
        second.asnumpy()
    first.asnumpy()
    mx.nd.waitall()


def test_rows_of_a_failed_copy_share_its_error_and_waitall_clears_all():
    first, second = mx.nd.random.normal(0, -1, (2, 2)).copyto(mx.cpu())
    with pytest.raises(MXNetError):
        first.asnumpy()
    assert second.asnumpy().shape == (2,)                     # MXNet: no second error
    mx.nd.random.uniform(2, 1, (2,))
    with pytest.raises(MXNetError, match="'low' must be less than or equal to 'high'"):
        mx.nd.waitall()
    mx.nd.waitall()                                            # a second waitall raises nothing


def test_failed_node_in_an_executor_defers_to_its_outputs_and_gradients():
    x = mx.sym.Variable("x")
    noise = mx.sym.random.normal(0, -1, (2, 2))
    out = mx.sym.make_loss(mx.sym.dot(x, noise))
    exe = out.bind(mx.cpu(), args={"x": mx.nd.ones((2, 2))}, args_grad={"x": mx.nd.zeros((2, 2))})
    outputs = exe.forward(is_train=True)
    exe.backward()
    with pytest.raises(MXNetError, match="'scale' must be positive"):
        exe.grad_arrays[0].asnumpy()
    assert outputs[0].shape == (2, 2)
    mx.nd.waitall()
    # a good forward afterwards runs normally
    good = mx.sym.make_loss(mx.sym.dot(x, mx.sym.ones((2, 2)))).bind(
        mx.cpu(), args={"x": mx.nd.ones((2, 2))}, args_grad={"x": mx.nd.zeros((2, 2))})
    good.forward(is_train=True)
    good.backward()
    np.testing.assert_array_equal(good.grad_arrays[0].asnumpy(), np.full((2, 2), 2.0))


def test_shape_errors_still_raise_at_the_call():
    with pytest.raises(MXNetError):
        mx.nd.dot(mx.nd.ones((2, 3)), mx.nd.ones((2, 3)))


def test_take_out_of_range_in_an_executor_raises_at_asnumpy():
    # MXNet 1.9.1 (test_operator's test_take): forward returns, outputs[0].asnumpy() raises
    data, indices = mx.sym.Variable("a"), mx.sym.BlockGrad(mx.sym.Variable("indices"))
    exe = mx.sym.take(data, indices, mode="raise").simple_bind(mx.cpu(), a=(3, 2), indices=(2,))
    exe.arg_dict["indices"][:] = mx.nd.array([0, 6])
    exe.forward(is_train=True)
    with pytest.raises(MXNetError, match="mode='raise'"):
        exe.outputs[0].asnumpy()
