"""Executor.reshape shares memory with the executor it comes from, as MXNet 1.9.1's did: a
smaller shape views the first elements of the original arguments, gradients and outputs."""
import numpy as np

import mxtorch as mx


def test_reshaped_executor_shares_arguments_gradients_and_outputs():
    # reference values printed by MXNet 1.9.1 for the same calls
    x = mx.sym.Variable("x")
    y = mx.sym.FullyConnected(x, num_hidden=4)
    exe = y.simple_bind(mx.cpu(), x=(5, 4), grad_req="write")
    exe.arg_arrays[0][:] = 1
    exe.arg_arrays[1][:] = mx.nd.ones((4, 4))
    exe.arg_arrays[2][:] = 0
    small = exe.reshape(x=(3, 4))
    small.arg_arrays[0][:] = 2
    np.testing.assert_array_equal(exe.arg_arrays[0].asnumpy()[:, 0], [2, 2, 2, 1, 1])
    small.forward(is_train=True)
    np.testing.assert_array_equal(exe.outputs[0].asnumpy()[:, 0], [8, 8, 8, 0, 0])
    small.backward(mx.nd.ones((3, 4)))
    np.testing.assert_array_equal(exe.grad_arrays[0].asnumpy()[:, 0], [4, 4, 4, 0, 0])
    np.testing.assert_array_equal(exe.grad_arrays[1].asnumpy()[0], [6, 6, 6, 6])
    # the original executor still runs on its own shapes
    exe.forward(is_train=False)
    np.testing.assert_array_equal(exe.outputs[0].asnumpy()[:, 0], [8, 8, 8, 4, 4])
    # a larger shape gets new memory for the data; the weight stays shared
    large = exe.reshape(allow_up_sizing=True, x=(6, 4))
    large.arg_arrays[0][:] = 0
    np.testing.assert_array_equal(exe.arg_arrays[0].asnumpy()[:, 0], [2, 2, 2, 1, 1])
    assert large.arg_arrays[1] is exe.arg_arrays[1]
