"""The executor group's labels are the ones ``label_shapes`` names: bind refuses a label whose
batch size (along its layout's batch axis) differs from the data's, naming the label and both
sizes, as MXNet 1.9.1's DataParallelExecutorGroup.decide_slices did."""
import pytest

import mxtorch as mx


def _softmax_net():
    data = mx.sym.Variable("data")
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(data, num_hidden=3, name="fc"), name="softmax")


def test_mismatched_label_batch_raises_at_bind_over_two_contexts():
    module = mx.mod.Module(_softmax_net(), context=[mx.cpu(0), mx.cpu(1)])
    with pytest.raises(mx.MXNetError, match=r"label 'softmax_label' has batch size 3 .*the data 4"):
        module.bind(data_shapes=[("data", (4, 10))], label_shapes=[("softmax_label", (3,))])
    assert not module.binded


def test_matching_labels_are_sliced_like_the_data():
    module = mx.mod.Module(_softmax_net(), context=[mx.cpu(0), mx.cpu(1)])
    module.bind(data_shapes=[("data", (6, 10))], label_shapes=[("softmax_label", (6,))])
    shapes = [e.arg_dict["softmax_label"].shape for e in module._exec_group.execs]
    assert shapes == [(3,), (3,)]


def test_label_batch_axis_follows_its_layout():
    data = mx.sym.Variable("data")
    label = mx.sym.Variable("label")
    net = mx.sym.LinearRegressionOutput(mx.sym.FullyConnected(data, num_hidden=5, name="fc"),
                                        mx.sym.transpose(label), name="out")
    module = mx.mod.Module(net, label_names=["label"], context=mx.cpu())
    module.bind(data_shapes=[("data", (4, 2))],
                label_shapes=[mx.io.DataDesc("label", (5, 4), layout="TN")])      # batch axis 1
    assert module._exec_group.execs[0].arg_dict["label"].shape == (5, 4)
    module = mx.mod.Module(net, label_names=["label"], context=mx.cpu())
    with pytest.raises(mx.MXNetError, match=r"label 'label' has batch size 5 \(shape \(4, 5\)\), the data 4"):
        module.bind(data_shapes=[("data", (4, 2))], label_shapes=[mx.io.DataDesc("label", (4, 5), layout="TN")])


def test_per_device_labels_are_checked_per_context():
    module = mx.mod.Module(_softmax_net(), context=[mx.cpu(0), mx.cpu(1)])
    with pytest.raises(mx.MXNetError, match=r"label 'softmax_label' has batch size 1 .*the data 2"):
        module.bind(data_shapes=[[("data", (1, 10))], [("data", (2, 10))]],
                    label_shapes=[[("softmax_label", (1,))], [("softmax_label", (1,))]])
