"""monitor_all=True reports each node's inputs before it runs, as MXNet 1.9.1 did.

The expected order was recorded with MXNet 1.9.1 on this graph:
['data', 'fc_data', 'fc_weight', 'fc_weight', 'fc_bias', 'fc_bias', 'fc_output', 'act_input0',
'act_output'] (MXNet names Activation's input 'input0'; mxtorch uses the declared argument name
'data')."""
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
                                          "fc_output", "act_data", "act_output"]
    values = dict(seen)
    np.testing.assert_array_equal(values["fc_data"], [[1.0, -2.0, 3.0]])
    np.testing.assert_array_equal(values["act_data"], values["fc_output"])


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
    assert "fc_weight" in names and "act_data" in names
