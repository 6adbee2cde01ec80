"""Symbol construction, naming, attributes and inference; expected values are what
MXNet 1.9.1 returns for the same calls."""
import json

import numpy as np
import pytest

import mxtorch as mx


def test_automatic_names_of_operator_sugar():
    a = mx.sym.Variable("a")
    b = mx.sym.Variable("b")
    c = a + b
    d = c * 2
    e = 2 - d
    f = d / a
    g = -a
    h = a ** 2
    assert [s.name for s in (c, d, e, f, g, h)] == ["_plus0", "_mulscalar0", "_rminusscalar0", "_div0",
                                                     "_mulscalar1", "_powerscalar0"]
    node = json.loads(e.tojson())["nodes"][-1]
    assert node == {"op": "_rminus_scalar", "name": "_rminusscalar0", "attrs": {"scalar": "2"},
                    "inputs": [[3, 0, 0]]}


def test_layer_names_and_implicit_variables():
    a = mx.sym.Variable("a")
    fc0 = mx.sym.FullyConnected(a, num_hidden=3)
    fc1 = mx.sym.FullyConnected(a, num_hidden=3)
    assert (fc0.name, fc1.name) == ("fullyconnected0", "fullyconnected1")
    assert fc0.list_arguments() == ["a", "fullyconnected0_weight", "fullyconnected0_bias"]
    # implicit variables carry the operator's attributes, as in MXNet
    assert fc0.attr_dict() == {"fullyconnected0_weight": {"num_hidden": "3"},
                               "fullyconnected0_bias": {"num_hidden": "3"},
                               "fullyconnected0": {"num_hidden": "3"}}
    with mx.name.Prefix("net_"):
        assert mx.sym.FullyConnected(a, num_hidden=1, name="fc").name == "net_fc"


def test_variable_attributes_and_attr_scope():
    b = mx.sym.Variable("b", shape=(2, 3), dtype="float16", lr_mult=2.0)
    assert b.list_attr() == {"__shape__": "(2, 3)", "__dtype__": "2", "__lr_mult__": "2.0", "lr_mult": "2.0"}
    assert b.attr("lr_mult") == "2.0" and b.attr("__lr_mult__") == "2.0" and b.attr("missing") is None
    a = mx.sym.Variable("a")
    with mx.AttrScope(ctx_group="dev1"):
        z = mx.sym.FullyConnected(a, num_hidden=2, name="z")
    expected = {"num_hidden": "2", "__ctx_group__": "dev1", "ctx_group": "dev1"}
    assert z.attr_dict() == {"z_weight": expected, "z_bias": expected, "z": expected}
    with pytest.raises(mx.MXNetError, match="__key__|__custom__"):
        mx.sym.Variable("x", custom=1)


def test_outputs_groups_internals():
    a = mx.sym.Variable("a")
    fc = mx.sym.FullyConnected(a, num_hidden=3)
    assert fc.get_internals().list_outputs() == ["a", "fullyconnected0_weight", "fullyconnected0_bias",
                                                 "fullyconnected0_output"]
    internals = fc.get_internals()
    assert internals["fullyconnected0_output"].name == "fullyconnected0"
    group = mx.sym.Group([fc, a * 2])
    assert group.list_outputs() == ["fullyconnected0_output", "_mulscalar0_output"]
    assert len(group) == 2 and group[1].list_outputs() == ["_mulscalar0_output"]
    with pytest.raises(mx.MXNetError, match="no output named"):
        internals["nothing"]


def test_infer_shape_both_ways_and_errors():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=10, name="fc1")
    net = mx.sym.BatchNorm(net, name="bn")
    net = mx.sym.SoftmaxOutput(net, name="softmax")
    arg_shapes, out_shapes, aux_shapes = net.infer_shape(data=(4, 7))
    assert dict(zip(net.list_arguments(), arg_shapes)) == {
        "data": (4, 7), "fc1_weight": (10, 7), "fc1_bias": (10,), "bn_gamma": (10,), "bn_beta": (10,),
        "softmax_label": (4,)}
    assert out_shapes == [(4, 10)] and aux_shapes == [(10,), (10,)]
    assert net.infer_shape() == (None, None, None)
    partial = net.infer_shape_partial(fc1_weight=(10, 7))
    assert partial[0][0] == () and partial[0][1] == (10, 7)
    with pytest.raises(mx.MXNetError) as info:
        net.infer_shape(data=(4, 7), fc1_weight=(10, 8))
    assert "fc1" in str(info.value) and "(10, 8)" in str(info.value) and "(10, 7)" in str(info.value)
    types = net.infer_type(data="float64")
    assert types[0][0] == np.float64 and types[1] == [np.float64]


def test_operator_attribute_errors_name_operator_and_attribute():
    a = mx.sym.Variable("a")
    with pytest.raises(mx.MXNetError, match="FullyConnected.*'foo'"):
        mx.sym.FullyConnected(a, num_hidden=3, foo=2)
    with pytest.raises(mx.MXNetError, match="FullyConnected.*'num_hidden'.*missing"):
        mx.sym.FullyConnected(a)
    with pytest.raises(mx.MXNetError, match="Activation.*act_type.*relu"):
        mx.sym.Activation(a, act_type="rel")
    with pytest.raises(mx.MXNetError, match="Convolution.*'kernel'"):
        mx.sym.Convolution(a, kernel="(3, x)", num_filter=2)
    with pytest.raises(mx.MXNetError, match="NoSuchOp.*does not implement"):
        mx.sym.load_json(json.dumps({"nodes": [{"op": "null", "name": "x", "inputs": []},
                                               {"op": "NoSuchOp", "name": "n1", "inputs": [[0, 0, 0]]}],
                                     "arg_nodes": [0], "heads": [[1, 0, 0]]}))


def test_json_round_trip_and_save(tmp_path):
    data = mx.sym.Variable("data", shape=(0, 3))
    net = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv")
    net = mx.sym.Pooling(net, kernel=(2, 2), pool_type="max", name="pool")
    net = mx.sym.Concat(net, net, dim=1, name="cat")
    text = net.tojson()
    graph = json.loads(text)
    assert graph["attrs"] == {"mxnet_version": ["int", 10901]}
    # max pooling declares a hidden workspace output, as MXNet 1.9.1 (oneDNN build) does
    assert graph["node_row_ptr"] == [0, 1, 2, 3, 4, 6, 7]
    assert graph["nodes"][-1] == {"op": "Concat", "name": "cat", "attrs": {"dim": "1", "num_args": "2"},
                                  "inputs": [[4, 0, 0], [4, 0, 0]]}
    again = mx.sym.load_json(text)
    assert again.tojson() == text
    path = tmp_path / "net-symbol.json"
    net.save(str(path))
    assert mx.sym.load(str(path)).list_arguments() == net.list_arguments()
    with pytest.raises(mx.MXNetError, match="net-missing"):
        mx.sym.load(str(tmp_path / "net-missing.json"))


def test_executor_grad_req_write_add_null():
    x = mx.sym.Variable("x")
    w = mx.sym.Variable("w")
    y = x * w
    executor = y.simple_bind(mx.cpu(), grad_req={"x": "add", "w": "write"}, x=(3,), w=(3,))
    executor.arg_dict["x"][:] = np.array([1, 2, 3])
    executor.arg_dict["w"][:] = np.array([4, 5, 6])
    for _ in range(2):
        executor.forward(is_train=True)
        executor.backward(mx.nd.ones((3,)))
    assert executor.grad_dict["x"].asnumpy().tolist() == [8, 10, 12]   # added twice
    assert executor.grad_dict["w"].asnumpy().tolist() == [1, 2, 3]     # written
    null = y.simple_bind(mx.cpu(), grad_req="null", x=(3,), w=(3,))
    assert null.grad_dict == {}
    with pytest.raises(mx.MXNetError, match="'x'.*\\(4,\\).*\\(3,\\)"):
        executor.forward(x=mx.nd.ones((4,)))


def test_simple_bind_shares_arrays_with_another_executor_and_a_buffer():
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=3, name="fc")
    first = net.simple_bind(mx.cpu(), data=(4, 5))
    buffer = {}
    second = net.simple_bind(mx.cpu(), data=(4, 5), shared_exec=first, shared_arg_names=["fc_weight", "fc_bias"],
                             shared_buffer=buffer)
    assert second.arg_dict["fc_weight"] is first.arg_dict["fc_weight"]
    assert second.grad_dict["fc_weight"] is first.grad_dict["fc_weight"]
    assert second.arg_dict["data"] is not first.arg_dict["data"] and buffer["data"] is second.arg_dict["data"]
    third = net.simple_bind(mx.cpu(), data=(4, 5), shared_buffer=buffer)
    assert third.arg_dict["data"] is buffer["data"]
    with pytest.raises(mx.MXNetError, match="ctx must be a Context"):
        net.simple_bind("cpu", data=(4, 5))


def test_gen_atomic_symbol_keeps_operator_and_attributes_only():
    # MXNet 1.9.1: the atomic symbol of a 3-output RNN has no arguments, outputs
    # ['output', 'state_output', 'statecell_output'] and the node's attributes under name ''
    data = mx.sym.Variable("data")
    rnn = mx.sym.RNN(data, mx.sym.var("p"), mx.sym.var("h0"), mx.sym.var("h1"), state_size=10,
                     num_layers=2, bidirectional=True, state_outputs=True, mode="lstm", name="r")
    atom = rnn._gen_atomic_symbol()
    assert atom.list_arguments() == []
    assert atom.list_outputs() == ["output", "state_output", "statecell_output"]
    assert atom.attr_dict() == {"": {"state_outputs": "True", "mode": "lstm", "bidirectional": "True",
                                     "num_layers": "2", "state_size": "10"}}
    with pytest.raises(mx.base.MXNetError, match="variable"):
        data._gen_atomic_symbol()
