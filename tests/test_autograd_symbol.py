"""mx.autograd.get_symbol: the Symbol of a recorded imperative computation.  The expected
graphs are MXNet 1.9.1's (printed by ~/mxref for the same programs)."""
import json

import numpy as np
import pytest

import mxtorch as mx


def _graph(symbol):
    nodes = json.loads(symbol.tojson())["nodes"]
    return [(n["op"], n.get("attrs", {}), [i[0] for i in n["inputs"]]) for n in nodes]


def test_get_symbol_rebuilds_the_recorded_operators():
    x = mx.nd.ones((1,))
    x.attach_grad()
    z = mx.nd.ones((1,))
    z.attach_grad()
    c = mx.nd.ones((1,))
    with mx.autograd.record():
        y = x * x + 2 * z - 1 + c
    symbol = mx.autograd.get_symbol(y)
    assert symbol.list_arguments() == ["var0", "var1", "null2"]
    assert _graph(symbol) == [
        ("null", {}, []), ("broadcast_mul", {}, [0, 0]), ("null", {}, []),
        ("_mul_scalar", {"scalar": "2.0"}, [2]), ("broadcast_add", {}, [1, 3]),
        ("_minus_scalar", {"scalar": "1.0"}, [4]), ("null", {}, []), ("broadcast_add", {}, [5, 6])]
    # the rebuilt graph computes what was recorded
    executor = symbol.bind(mx.cpu(), {"var0": mx.nd.array([3.0]), "var1": mx.nd.array([2.0]),
                                      "null2": mx.nd.array([5.0])})
    np.testing.assert_allclose(executor.forward()[0].asnumpy(), [3 * 3 + 2 * 2 - 1 + 5])


def test_get_symbol_of_one_output_of_several_and_of_a_variable():
    x = mx.nd.array([1.0, 3.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        value, index = mx.nd.topk(x, k=1, ret_typ="both")
        u = value + index
    graph = _graph(mx.autograd.get_symbol(u))
    assert graph[1][0] == "topk" and graph[1][1]["ret_typ"] == "both"
    assert json.loads(mx.autograd.get_symbol(u).tojson())["nodes"][2]["inputs"] == [[1, 0, 0], [1, 1, 0]]
    assert mx.autograd.get_symbol(x).list_arguments() == ["var0"]


def test_get_symbol_of_an_unrecorded_array_is_an_error():
    with pytest.raises(mx.MXNetError, match="not part of a computation graph"):
        mx.autograd.get_symbol(mx.nd.ones((2,)) * 3)


def test_get_symbol_of_a_hybridized_block_output():
    net = mx.gluon.nn.Dense(3)
    net.initialize()
    with mx.autograd.record():
        y = net(mx.nd.zeros((1, 4)))
    # MXNet 1.9.1 (~/mxref): variables numbered in the order they were marked or first used
    assert mx.autograd.get_symbol(y).list_arguments() == ["null2", "var1", "var0"]
    net.hybridize()
    with mx.autograd.record():
        y = net(mx.nd.zeros((1, 4)))
    # one FullyConnected: inlined (inline_limit 2), its inputs the data and the two parameters
    symbol = mx.autograd.get_symbol(y)
    assert [node["op"] for node in json.loads(symbol.tojson())["nodes"]] == ["null", "null", "null", "FullyConnected"]
    assert sorted(symbol.list_arguments())[1:] == ["var0", "var1"]


def test_hybridized_block_recorded_as_mxnet_cached_op():
    # MXNet 1.9.1: a hybridized block's call is recorded inlined when its graph has at most
    # inline_limit operators (default 2), else as one _CachedOp node (its test_gluon.test_inline)
    net = mx.gluon.nn.HybridSequential()
    with net.name_scope():
        for _ in range(3):
            net.add(mx.gluon.nn.Dense(10))
    net.initialize()
    shapes = {}
    for limit in (3, 0, 2):
        net.hybridize(inline_limit=limit)
        with mx.autograd.record():
            y = net(mx.nd.zeros((1, 10)))
        nodes = json.loads(mx.autograd.get_symbol(y).tojson())["nodes"]
        shapes[limit] = [node["op"] for node in nodes if node["op"] != "null"]
        y.backward()
    assert shapes[3] == ["FullyConnected"] * 3
    assert shapes[0] == shapes[2] == ["_CachedOp"]
