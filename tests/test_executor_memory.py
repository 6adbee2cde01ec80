"""Executor memory as MXNet 1.9.1 had it: reshape shares memory with the executor it comes from
(a smaller shape views the first elements of the original arguments, gradients and outputs), and
debug_str reports the plan's memory."""
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


def test_debug_str_reports_the_plans_memory_and_blocked_gradients_record_nothing():
    # MXNet 1.9.1 prints 'Total 90 MB allocated' for ten chained squares of (10, 3, 256, 256)
    # float32 with a gradient, 15 MB without one and 15 MB when stop_gradient blocks it; mxtorch's
    # plan holds every output with a gradient (10 x 7.5 MB) and two values at once without
    import re
    data = mx.sym.Variable("data")
    for _ in range(10):
        data = data * data

    def megabytes(symbol, **kwargs):
        exe = symbol.simple_bind(mx.cpu(), data=(10, 3, 256, 256), **kwargs)
        return exe, int(re.search(r"Total (\d+) MB allocated", exe.debug_str()).group(1))
    assert megabytes(data)[1] == 75
    assert megabytes(data, grad_req="null")[1] == 15
    blocked, size = megabytes(mx.sym.stop_gradient(data))
    assert size == 15
    blocked.arg_arrays[0][:] = 1
    blocked.grad_arrays[0][:] = 5
    blocked.forward(is_train=True)
    blocked.backward()
    assert blocked.grad_arrays[0].asnumpy().max() == 0     # 'write' of a blocked gradient: zeros
