"""monitor_all=True reports each node's inputs before it runs, as MXNet 1.9.1 did.

The expected order was recorded with MXNet 1.9.1 on this graph:
['data', 'fc_data', 'fc_weight', 'fc_weight', 'fc_bias', 'fc_bias', 'fc_output', 'act_input0',
'act_output']: MXNet names the inputs of operators it registered without input names (Activation,
unary math, reductions, reshapes, Cast) 'input0', 'input1', ..."""
import numpy as np

import mxtorch as mx


def _executor():
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(data, num_hidden=2, name="fc")
    net = mx.sym.Activation(net, act_type="relu", name="act")
    return net.simple_bind(mx.cpu(), data=(1, 3))


def test_monitor_all_reports_inputs_in_mxnets_order():
    executor = _executor()
    seen = []
    executor.set_monitor_callback(lambda name, array: seen.append((name, array.asnumpy())), monitor_all=True)
    executor.arg_dict["data"][:] = mx.nd.array([[1.0, -2.0, 3.0]])
    executor.forward()
    assert [name for name, _ in seen] == ["data", "fc_data", "fc_weight", "fc_weight", "fc_bias", "fc_bias",
                                          "fc_output", "act_input0", "act_output"]
    values = dict(seen)
    np.testing.assert_array_equal(values["fc_data"], [[1.0, -2.0, 3.0]])
    np.testing.assert_array_equal(values["act_input0"], values["fc_output"])


def test_without_monitor_all_only_outputs():
    executor = _executor()
    seen = []
    executor.set_monitor_callback(lambda name, array: seen.append(name))
    executor.forward()
    assert seen == ["fc_output", "act_output"]


def test_monitor_class_passes_monitor_all():
    executor = _executor()
    monitor = mx.mon.Monitor(1, monitor_all=True)
    monitor.install(executor)
    monitor.tic()
    executor.forward()
    names = [name for _, name, _ in monitor.toc()]
    assert "fc_weight" in names and "act_input0" in names


def test_input_names_follow_mxnets_registrations():
    # recorded with MXNet 1.9.1 (monitor_all, MXNET_SUBGRAPH_BACKEND=NONE)
    def names(symbol, **shapes):
        seen = []
        executor = symbol.simple_bind(mx.cpu(), grad_req="null", **shapes)
        executor.set_monitor_callback(lambda name, array: seen.append(name), monitor_all=True)
        executor.forward()
        return seen
    x, y = mx.sym.var("x"), mx.sym.var("y")
    assert names(mx.sym.broadcast_mul(x, y, name="m") * 2, x=(2, 3), y=(2, 3)) == \
        ["x", "m_lhs", "y", "m_rhs", "m_output", "_mulscalar0_input0", "_mulscalar0_output"]
    assert names(mx.sym.sum(mx.sym.exp(x, name="e"), axis=1, name="s"), x=(2, 3)) == \
        ["x", "e_input0", "e_output", "s_input0", "s_output"]
    assert names(mx.sym.squeeze(mx.sym.expand_dims(x, axis=0, name="u"), name="q"), x=(2, 3)) == \
        ["x", "u_input0", "u_output", "q_data", "q_output"]
    assert names(mx.sym.concat(x, y, dim=0, name="c"), x=(2, 3), y=(2, 3)) == \
        ["x", "c_arg0", "y", "c_arg1", "c_output"]


def test_monitor_arrays_round_trip_through_their_c_handle():
    # MXNet's monitor callbacks got a C handle: ctypes.cast(array, NDArrayHandle), then NDArray(handle)
    import ctypes
    from mxtorch.base import MXNetError, NDArrayHandle
    array = mx.nd.array([1.0, -2.0])
    again = mx.nd.NDArray(ctypes.cast(array, NDArrayHandle), writable=False)
    array[:] = 7.0
    np.testing.assert_array_equal(again.asnumpy(), [7.0, 7.0])     # the same memory
    assert again.writable is False
    try:
        mx.nd.NDArray(ctypes.c_void_p(1))
    except MXNetError as error:
        assert "not the handle of a live NDArray" in str(error)
    else:
        raise AssertionError("a stray handle was accepted")
