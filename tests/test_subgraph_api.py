"""MXNet's generic subgraph API (mxtorch.subgraph): partitioning by operator names through the C
API and ``optimize_for``, the ``_CachedOp`` node, Gluon ``hybridize(backend=...)``.

The partitioned graphs are compared with MXNet 1.9.1's (tests/data/subgraph/reference.json, made
by tools/gen_subgraph_reference.py from the same graphs), and their outputs with the graph as
built."""
import ctypes
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import (MXNetError, SymbolHandle, _LIB, c_str, c_str_array, check_call, mx_uint)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from gen_subgraph_reference import build_graphs, describe  # noqa: E402

REFERENCE = json.loads((Path(__file__).parent / "data/subgraph/reference.json").read_text())
CASES = [(name, names) for name, (_, op_lists) in build_graphs(mx).items() for names in op_lists]


def _set_names(names, backend="default"):
    check_call(_LIB.MXSetSubgraphPropertyOpNamesV2(c_str(backend), mx_uint(len(names)), c_str_array(names)))


def _remove_names(backend="default"):
    check_call(_LIB.MXRemoveSubgraphPropertyOpNamesV2(c_str(backend)))


def _build(sym, names):
    out = SymbolHandle()
    check_call(_LIB.MXBuildSubgraphByOpNames(sym.handle, c_str("default"), mx_uint(len(names)),
                                             c_str_array(names), ctypes.byref(out)))
    return mx.sym.Symbol(out)


def _partitions(sym, names):
    _set_names(names)
    try:
        return {"build": _build(sym, names), "optimize_for": sym.optimize_for("default"),
                "dedup": sym.optimize_for("default", dedup_subgraph=True)}
    finally:
        _remove_names()


def _entries(graph):
    """The graph JSON with the entry versions dropped (MXNet marks the auxiliary inputs of a
    subgraph's operators with version 0, mxtorch's writer with 1)."""
    if isinstance(graph, dict):
        return {key: [entry[:2] for entry in value] if key in ("inputs", "heads") else _entries(value)
                for key, value in graph.items()}
    if isinstance(graph, list):
        return [_entries(value) for value in graph]
    return graph


@pytest.mark.parametrize("name,names", CASES, ids=[f"{n}:{'+'.join(o) or 'none'}" for n, o in CASES])
def test_partitioned_graphs_are_mxnets(name, names):
    sym = build_graphs(mx)[name][0]
    for kind, result in _partitions(sym, names).items():
        expected, got = REFERENCE[f"{name}:{','.join(names)}"][kind], describe(result)
        for key in ("inputs", "arguments", "aux", "outputs", "internals"):
            assert got[key] == expected[key], (kind, key)
        want, have = _entries(expected["json"]), _entries(got["json"])
        if name == "two_bn":
            # the auxiliary states of a subgraph whose inputs put one before an argument are
            # repeated after the arguments (ops/subgraph_op.py)
            node = have["nodes"][-1]
            flags = [n in got["aux"] for n in [have["nodes"][i]["name"] for i, _ in want["nodes"][-1]["inputs"]]]
            repeated = [entry for entry, is_aux in zip(want["nodes"][-1]["inputs"], flags) if is_aux]
            assert node["inputs"] == want["nodes"][-1]["inputs"] + repeated
            node["inputs"] = want["nodes"][-1]["inputs"]
        if name == "head_and_reader" and kind == "build":
            # MXNet's MXBuildSubgraphByOpNames wired the reader to the first of the two equal
            # outputs, its optimize_for to the second: mxtorch does the latter in both
            assert have["nodes"][-1]["inputs"] == [[3, 1]]
            have["nodes"][-1]["inputs"] = [[3, 0]]
        assert have == want, kind


def _random_inputs(sym, seed):
    shapes, _, aux_shapes = sym.infer_shape()
    rng = np.random.RandomState(seed)
    args = {n: mx.nd.array(rng.uniform(0.5, 1.5, s)) for n, s in zip(sym.list_arguments(), shapes)}
    aux = {n: mx.nd.array(rng.uniform(0.5, 1.5, s)) for n, s in zip(sym.list_auxiliary_states(), aux_shapes)}
    return args, aux


@pytest.mark.parametrize("is_train", [False, True])
@pytest.mark.parametrize("name,names", CASES, ids=[f"{n}:{'+'.join(o) or 'none'}" for n, o in CASES])
def test_partitioned_graphs_compute_what_the_graph_computes(name, names, is_train):
    sym = build_graphs(mx)[name][0]
    args, aux = _random_inputs(sym, 0)
    reference_aux = {k: v.copy() for k, v in aux.items()}
    expected = sym.bind(mx.cpu(), args, aux_states=reference_aux, grad_req="null").forward(is_train=is_train)
    for kind, result in _partitions(sym, names).items():
        states = {k: v.copy() for k, v in aux.items()}
        outputs = result.bind(mx.cpu(), args, aux_states=states, grad_req="null").forward(is_train=is_train)
        assert len(outputs) == len(expected)
        for got, want in zip(outputs, expected):
            np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)
        for key in states:     # the moving statistics are updated through the subgraph node
            np.testing.assert_allclose(states[key].asnumpy(), reference_aux[key].asnumpy(), rtol=1e-5, atol=1e-6)


def test_gradients_flow_through_a_subgraph_node():
    sym = build_graphs(mx)["conv_bn"][0]
    args, aux = _random_inputs(sym, 1)
    part = _partitions(sym, ["Convolution", "BatchNorm"])["optimize_for"]
    grads = []
    for graph in (sym, part):
        grad = {k: mx.nd.zeros(v.shape) for k, v in args.items()}
        exe = graph.bind(mx.cpu(), args, args_grad=grad, aux_states={k: v.copy() for k, v in aux.items()})
        exe.forward(is_train=True)
        exe.backward(mx.nd.ones(exe.outputs[0].shape))
        grads.append({k: v.asnumpy() for k, v in grad.items()})
    for key in grads[0]:
        np.testing.assert_allclose(grads[1][key], grads[0][key], rtol=1e-4, atol=1e-5)
    assert np.abs(grads[0]["conv_weight"]).sum() > 0


def test_cached_op_from_a_subgraph_json_attribute():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    inner = mx.sym.elemwise_mul(a, b, name="mul")
    node = mx.sym._internal._CachedOp(mx.sym.var("a"), mx.sym.var("b"), subgraph=inner.tojson(), name="cop")
    assert node.list_arguments() == ["a", "b"] and node.list_outputs() == ["cop_mul_output"]
    graph = json.loads(node.tojson())["nodes"][-1]
    assert graph["op"] == "_CachedOp" and json.loads(graph["attrs"]["subgraph"])["nodes"][-1]["op"] == "elemwise_mul"
    x, y = mx.nd.array([[1.0, 2.0]]), mx.nd.array([[3.0, -4.0]])
    grad = {"a": mx.nd.zeros((1, 2)), "b": mx.nd.zeros((1, 2))}
    exe = (node * 2).bind(mx.cpu(), {"a": x, "b": y}, args_grad=grad)
    np.testing.assert_allclose(exe.forward(is_train=True)[0].asnumpy(), [[6.0, -16.0]])
    exe.backward(mx.nd.ones((1, 2)))
    np.testing.assert_allclose(grad["a"].asnumpy(), [[6.0, -8.0]])
    np.testing.assert_allclose(grad["b"].asnumpy(), [[2.0, 4.0]])
    bn = mx.sym.BatchNorm(mx.sym.var("data"), name="bn")
    wrapped = mx.sym._internal._CachedOp(*[mx.sym.var(n) for n in bn.list_inputs()], subgraph=bn.tojson(), name="c")
    assert wrapped.list_arguments() == ["data", "bn_gamma", "bn_beta"]
    assert wrapped.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]


def test_a_subgraph_node_infers_input_shapes_from_its_outputs():
    weight = mx.sym.var("w", shape=(1, 0, 2, 2))
    conv = mx.sym.Convolution(mx.sym.var("d", shape=(3, 3, 6, 6)), weight=mx.sym.sin(weight, name="s"),
                              kernel=(2, 2), num_filter=1, no_bias=True, name="conv")
    part = _partitions(conv, ["sin"])["optimize_for"]
    assert part.infer_shape()[0] == conv.infer_shape()[0] == [(3, 3, 6, 6), (1, 3, 2, 2)]


def test_hybridize_with_a_backend_partitions_the_traced_graph():
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(4, activation="relu"), mx.gluon.nn.Dense(2))
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(np.random.RandomState(2).uniform(-1, 1, (3, 5)))
    expected = net(x).asnumpy()
    _set_names(["FullyConnected"])
    try:
        net.hybridize(backend="default")
        got = net(x).asnumpy()
        graph = json.loads(net._cached_graph[1].tojson())
        operators = [n for n in graph["nodes"] if n["op"] != "null"]
        assert [(n["op"], n["name"]) for n in operators] == [
            ("_CachedOp", "_CachedOp0"), ("Activation", operators[1]["name"]), ("_CachedOp", "_CachedOp1")]
        for node in (operators[0], operators[2]):
            assert [n["op"] for n in node["subgraphs"][0]["nodes"] if n["op"] != "null"] == ["FullyConnected"]
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(net.optimize_for(x, backend="default").asnumpy(), expected, rtol=1e-5, atol=1e-6)
    finally:
        _remove_names()
    with pytest.raises(MXNetError, match="not registered"):
        net.hybridize(backend="no_such_backend")


def test_c_api_errors_reach_check_call_and_names_need_setting():
    sym = mx.sym.exp(mx.sym.var("x"))
    with pytest.raises(MXNetError, match="not registered"):
        check_call(_LIB.MXSetSubgraphPropertyOpNamesV2(c_str("nope"), mx_uint(1), c_str_array(["exp"])))
    with pytest.raises(MXNetError, match="op_names"):
        sym.optimize_for("default_v2")
    _set_names(["exp"], "default_v2")
    try:
        assert json.loads(sym.optimize_for("default_v2").tojson())["nodes"][1]["op"] == "_CachedOp"
    finally:
        _remove_names("default_v2")
    with pytest.raises(MXNetError, match="handle"):
        mx.sym.Symbol(ctypes.c_void_p(12345))
    assert mx.sym.Symbol(sym.handle).tojson() == sym.tojson()


def test_list_all_op_names_gives_the_registry():
    size, names = ctypes.c_uint(), ctypes.POINTER(ctypes.c_char_p)()
    check_call(_LIB.MXListAllOpNames(ctypes.byref(size), ctypes.byref(names)))
    listed = [names[i].decode() for i in range(size.value)]
    assert listed == mx.ops.list_operators() and "_CachedOp" in listed and "Convolution" in listed


def test_hybridize_gives_the_inputs_a_backend_adds_their_values():
    from mxtorch.symbol.subgraph_backends import register_backend

    class ScaleBackend:
        """Multiplies the graph by a new input 'scale' whose value it puts into args."""

        def partition(self, symbol, args, aux, options):
            args["scale"] = mx.nd.array([float(options["factor"])])
            return mx.sym.broadcast_mul(symbol, mx.sym.var("scale"))

    register_backend("test_scale", ScaleBackend())
    net = mx.gluon.nn.Dense(3)
    net.initialize(mx.init.One())
    x = mx.nd.ones((2, 4))
    net.hybridize(backend="test_scale", backend_opts={"factor": 3})
    np.testing.assert_allclose(net(x).asnumpy(), np.full((2, 3), 12.0))
    assert "scale" in net._cached_graph[1].list_arguments()
