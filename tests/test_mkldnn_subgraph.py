"""The oneDNN subgraph backends 'MKLDNN' / 'MKLDNN_QUANTIZE' and the fused _sg_mkldnn_* operators,
checked against MXNet 1.9.1 (tools/gen_mkldnn_reference.py wrote tests/data/mkldnn/)."""
import json
import os

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.module import Module

DATA = os.path.join(os.path.dirname(__file__), "data", "mkldnn")
CASES = ["conv_bn_relu_add", "add_then_conv"]


def _structure(text):
    """Nodes as (op, name, attrs, inputs without versions), subgraphs included."""
    graph = json.loads(text)
    nodes = []
    for node in graph["nodes"]:
        inner = [_structure(json.dumps(g)) for g in node.get("subgraphs", [])]
        nodes.append((node["op"], node["name"], node.get("attrs", {}), [e[:2] for e in node["inputs"]], inner))
    return nodes, [h[:2] for h in graph["heads"]]


def _case_symbol(name):
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "gen", os.path.join(os.path.dirname(__file__), "..", "tools", "gen_mkldnn_reference.py"))
    source = open(spec.origin).read().replace("import mxnet as mx", "import mxtorch as mx") \
        .replace("from mxnet.module", "from mxtorch.module")
    scope = {"__name__": "gen", "__file__": spec.origin}
    exec(compile(source, spec.origin, "exec"), scope)
    with mx.name.NameManager():
        return scope["CASES"][name]()


def _cpu_of(ref, monkeypatch):
    """Run the int8 kernels as oneDNN ran them on the CPU that wrote the reference ``ref``
    (its ``vnni`` flag; see tools/gen_mkldnn_reference.py), emulated exactly."""
    monkeypatch.setenv("MXTORCH_ONEDNN_VNNI", "1" if bool(ref["vnni"]) else "0")
    monkeypatch.setenv("MXTORCH_INT8_EXACT", "1")


def _run(sym, args, aux, data):
    mod = Module(symbol=sym, label_names=None)
    mod.bind(for_training=False, data_shapes=[("data", data.shape)])
    mod.set_params(args, aux)
    mod.forward(mx.io.DataBatch([mx.nd.array(data)], []), is_train=False)
    return mod.get_outputs()[0].asnumpy()


@pytest.mark.parametrize("case", CASES)
def test_mkldnn_fusion_writes_mxnets_graph(case):
    sym, _, _ = _case_symbol(case)
    expected = open(os.path.join(DATA, f"{case}-fused.json")).read()
    assert _structure(sym.get_backend_symbol("MKLDNN").tojson()) == _structure(expected)


@pytest.mark.parametrize("case", CASES)
def test_mxnet_int8_graph_loads_and_gives_mxnets_output(case, monkeypatch):
    qsym = mx.sym.load(os.path.join(DATA, f"{case}-quantized.json"))
    saved = mx.nd.load(os.path.join(DATA, f"{case}-quantized.params"))
    args = {k[4:]: v for k, v in saved.items() if k.startswith("arg:")}
    aux = {k[4:]: v for k, v in saved.items() if k.startswith("aux:")}
    ref = np.load(os.path.join(DATA, f"{case}.npz"))
    _cpu_of(ref, monkeypatch)
    # the JSON round trip keeps MXNet's input order (BatchNorm's moving statistics before the
    # range inputs of the quantized convolution)
    again = mx.sym.load_json(qsym.tojson())
    assert _structure(again.tojson()) == _structure(open(os.path.join(DATA, f"{case}-quantized.json")).read())
    assert sorted(qsym.list_auxiliary_states()) == sorted(aux)
    out = _run(qsym, args, aux, ref["data"])
    scale = np.abs(ref["int8_out"]).max()
    # every int8 layer gives MXNet's int8 numbers: the float outputs agree to float32 rounding
    np.testing.assert_allclose(out, ref["int8_out"], rtol=1e-5, atol=1e-6 * scale)
    assert np.abs(ref["float_out"] - ref["int8_out"]).max() > 1e-3 * scale      # int8, not float


def test_fused_float_graph_computes_the_unfused_chain():
    sym, shape, _ = _case_symbol("conv_bn_relu_add")
    fused = sym.get_backend_symbol("MKLDNN")
    rng = np.random.RandomState(3)
    arg_shapes, _, aux_shapes = sym.infer_shape(data=shape)
    args = {n: mx.nd.array(rng.uniform(-1, 1, s)) for n, s in zip(sym.list_arguments(), arg_shapes)}
    aux = {n: mx.nd.array(rng.uniform(0.5, 1, s)) for n, s in zip(sym.list_auxiliary_states(), aux_shapes)}
    data = args.pop("data").asnumpy()
    assert sorted(fused.list_arguments()) == sorted(sym.list_arguments())
    assert sorted(fused.list_auxiliary_states()) == sorted(sym.list_auxiliary_states())
    np.testing.assert_allclose(_run(fused, args, aux, data), _run(sym, args, aux, data), rtol=1e-5, atol=1e-5)


def test_quantize_model_mkldnn_matches_mxnets_int8_graph(monkeypatch):
    # MXNet's model, convolution parameters and calibration data: MXNet's int8 graph (the FC's
    # parameters were saved quantized, so new float ones are drawn for it)
    case = "conv_bn_relu_add"
    sym, shape, dtype = _case_symbol(case)
    saved = mx.nd.load(os.path.join(DATA, f"{case}-quantized.params"))
    ref = np.load(os.path.join(DATA, f"{case}.npz"))
    _cpu_of(ref, monkeypatch)
    args = {k[4:]: v for k, v in saved.items() if k.startswith("arg:") and "_quantize" not in k}
    aux = {k[4:]: v for k, v in saved.items() if k.startswith("aux:")}
    data = mx.nd.array(ref["data"])

    class OneBatch(mx.io.DataIter):
        def __init__(self):
            super().__init__(shape[0])
            self.provide_data = [("data", shape)]
            self.provide_label = []

        def __iter__(self):
            yield mx.io.DataBatch([data], [])

    rng = np.random.RandomState(0)
    args["fc_weight"] = mx.nd.array(rng.uniform(-0.5, 0.5, (6, 8 * 3 * 3)))
    args["fc_bias"] = mx.nd.array(rng.uniform(-0.5, 0.5, (6,)))
    qsym, qargs, qaux = mx.contrib.quant.quantize_model_mkldnn(
        sym, args, aux, ctx=mx.cpu(), calib_mode="naive", calib_data=OneBatch(), label_names=None,
        num_calib_examples=1, quantized_dtype=dtype, quantize_mode="full")
    got = _structure(qsym.tojson())
    want = _structure(open(os.path.join(DATA, f"{case}-quantized.json")).read())
    strip = lambda nodes: [(op, name, {k: v for k, v in attrs.items() if "calib" not in k}, inputs)
                           for op, name, attrs, inputs, _ in nodes[0]]
    assert strip(got) == strip(want)
    attrs = {name: a for _, name, a, _, _ in got[0]}
    # the calibrated ranges of the convolutions are MXNet's (same float graph, same data)
    for _, name, a, _, _ in want[0]:
        if name.startswith("quantized_sg_mkldnn_conv") or name == "data_quantize":
            assert float(attrs[name]["min_calib_range"]) == pytest.approx(float(a["min_calib_range"]), abs=1e-6)
            assert float(attrs[name]["max_calib_range"]) == pytest.approx(float(a["max_calib_range"]), rel=1e-5)
    assert qargs["fc_weight_quantize"].dtype == np.int8
    out = _run(qsym, qargs, qaux, ref["data"])
    expected = _run(sym, args, aux, ref["data"])
    np.testing.assert_allclose(out, expected, atol=0.05 * np.abs(expected).max())


def test_mkldnn_environment_switch_disables_bn_fusion(monkeypatch):
    sym, _, _ = _case_symbol("conv_bn_relu_add")
    monkeypatch.setenv("MXNET_DISABLE_MKLDNN_FUSE_CONV_BN", "1")
    nodes, _ = _structure(sym.get_backend_symbol("MKLDNN").tojson())
    names = [n[1] for n in nodes]
    assert "bn" in names and "sg_mkldnn_conv_0" in names


def test_identity_after_fc_is_dropped():
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    out = mx.sym.Activation(mx.sym.Dropout(fc), act_type="relu")
    nodes, _ = _structure(out.get_backend_symbol("MKLDNN").tojson())
    assert [n[0] for n in nodes if n[0] != "null"] == ["_sg_mkldnn_fully_connected"]
    assert nodes[-1][1] == "sg_mkldnn_fully_connected_eltwise_0"


def test_gluon_int8_model_file_loads_and_gives_mxnets_output(monkeypatch):
    # the layout of GluonCV's *_int8 model zoo files: quantize_net's exported SymbolBlock with
    # _sg_mkldnn_conv / _sg_mkldnn_fully_connected nodes, loaded with SymbolBlock.imports
    net = mx.gluon.SymbolBlock.imports(os.path.join(DATA, "tiny_int8-symbol.json"), ["data"],
                                       os.path.join(DATA, "tiny_int8-0000.params"))
    ref = np.load(os.path.join(DATA, "tiny_int8.npz"))
    _cpu_of(ref, monkeypatch)
    out = net(mx.nd.array(ref["data"])).asnumpy()
    scale = np.abs(ref["int8_out"]).max()
    np.testing.assert_allclose(out, ref["int8_out"], rtol=1e-5, atol=1e-6 * scale)


def test_quantize_net_builds_mxnets_fused_int8_graph():
    # MXNet 1.9.1's quantize_net on this tiny network wrote tiny_int8-symbol.json: the same nodes
    from mxtorch.gluon import nn
    with mx.name.NameManager():
        net = nn.HybridSequential(prefix="tiny_")
        with net.name_scope():
            net.add(nn.Conv2D(8, 3, padding=1, use_bias=False), nn.BatchNorm(), nn.Activation("relu"),
                    nn.Conv2D(8, 3, padding=1), nn.Activation("relu"), nn.MaxPool2D(2), nn.Dense(5))
        net.initialize(mx.init.Xavier(magnitude=2.0))
    ref = np.load(os.path.join(DATA, "tiny_int8.npz"))
    x = mx.nd.array(ref["data"])
    net(x)
    calib = mx.io.NDArrayIter(x, batch_size=2)
    q = mx.contrib.quant.quantize_net(net, quantized_dtype="auto", calib_mode="naive", calib_data=calib,
                                      num_calib_examples=2, ctx=mx.cpu(),
                                      data_shapes=[mx.io.DataDesc("data", (2, 3, 8, 8))])
    got = json.loads(q(mx.sym.var("data")).tojson())
    want = json.loads(open(os.path.join(DATA, "tiny_int8-symbol.json")).read())
    ops = lambda g: [(n["op"], n["name"], sorted(k for k in n.get("attrs", {}) if not k.startswith("__")))
                     for n in g["nodes"] if n["op"] != "null"]
    assert ops(got) == ops(want)
    float_out = net(x).asnumpy()
    np.testing.assert_allclose(q(x).asnumpy(), float_out, atol=0.05 * np.abs(float_out).max())


def test_mxnet_1_5_attribute_names_of_fused_conv_are_read_as_1_9s(tmp_path):
    # GluonCV's *_int8 files were written by MXNet 1.5 (mxnet_version 10500): _sg_mkldnn_conv's
    # with_relu / with_postsum_relu, which MXNet 1.9.1 reads as with_act / with_postsum_act
    text = open(os.path.join(DATA, "tiny_int8-symbol.json")).read()
    assert '"with_act": "true"' in text
    old = text.replace('"with_act"', '"with_relu"').replace('"with_postsum_act"', '"with_postsum_relu"')
    (tmp_path / "old-symbol.json").write_text(old)
    net = mx.gluon.SymbolBlock.imports(str(tmp_path / "old-symbol.json"), ["data"],
                                       os.path.join(DATA, "tiny_int8-0000.params"))
    again = mx.gluon.SymbolBlock.imports(os.path.join(DATA, "tiny_int8-symbol.json"), ["data"],
                                         os.path.join(DATA, "tiny_int8-0000.params"))
    ref = np.load(os.path.join(DATA, "tiny_int8.npz"))
    np.testing.assert_array_equal(net(mx.nd.array(ref["data"])).asnumpy(), again(mx.nd.array(ref["data"])).asnumpy())
    written = mx.sym.load(str(tmp_path / "old-symbol.json")).tojson()
    assert '"with_act": "true"' in written and "with_relu" not in written


def _selfatt_symbols():
    data = mx.sym.Variable("data")
    qk = mx.sym.contrib.interleaved_matmul_selfatt_qk(queries_keys_values=data, heads=2, name="qk")
    valatt = mx.sym.contrib.interleaved_matmul_selfatt_valatt(
        queries_keys_values=data, attention=mx.sym.Variable("attention"), heads=2, name="valatt")
    return {"qk": qk, "valatt": valatt}


class _Feeds(mx.io.DataIter):
    def __init__(self, feeds):
        super().__init__(4)
        self.feeds = feeds
        self.provide_data = [(k, v.shape) for k, v in feeds.items()]
        self.provide_label = []

    def __iter__(self):
        yield mx.io.DataBatch(list(self.feeds.values()), [])


def _selfatt_quantized(sym, feeds, calib_mode):
    extra = {} if calib_mode == "none" else {"calib_data": _Feeds(feeds), "num_calib_examples": 1}
    qsym, _, _ = mx.contrib.quant.quantize_model(
        sym=sym.get_backend_symbol("MKLDNN_QUANTIZE"), arg_params={}, aux_params={}, ctx=mx.cpu(),
        quantized_dtype="auto", data_names=tuple(feeds), label_names=None, quantize_mode="full",
        calib_mode=calib_mode, **extra)
    return qsym.get_backend_symbol("MKLDNN_QUANTIZE")


@pytest.mark.parametrize("name", ["qk", "valatt"])
def test_selfatt_fusion_and_quantization_give_mxnets_graphs_and_numbers(name):
    ref = np.load(os.path.join(DATA, "selfatt.npz"))
    sym = _selfatt_symbols()[name]
    fused = sym.get_backend_symbol("MKLDNN")
    assert _structure(fused.tojson()) == _structure(open(os.path.join(DATA, f"selfatt_{name}-fused.json")).read())
    feeds = {"data": mx.nd.array(ref["qkv"])}
    if name == "valatt":
        feeds["attention"] = mx.nd.array(ref["attention"])
    # the fused float node computes the product itself
    got = fused.bind(mx.cpu(), dict(feeds)).forward()[0].asnumpy()
    np.testing.assert_allclose(got, ref[f"{name}_float"], rtol=1e-5, atol=1e-6)
    qsym = _selfatt_quantized(sym, feeds, "naive")
    assert _structure(qsym.tojson()) == _structure(open(os.path.join(DATA, f"selfatt_{name}-quantized.json")).read())
    got = qsym.bind(mx.cpu(), dict(feeds)).forward()[0].asnumpy()
    # the ranges keep oneDNN's int16 pair sums from saturating (see the generator), so MXNet's
    # int8 results are the integer products of the int8 inputs times the float32 scales made
    # with its 127.5 / 255.5 levels
    np.testing.assert_allclose(got, ref[f"{name}_int8"], rtol=1e-6, atol=1e-7)
    assert np.abs(got - ref[f"{name}_float"]).max() > 1e-4        # int8 numbers, not the float ones
    np.testing.assert_allclose(got, ref[f"{name}_float"], atol=0.02 * np.abs(ref[f"{name}_float"]).max())


def test_uncalibrated_quantized_selfatt_qk_has_mxnets_zero_range():
    # MXNet 1.9.1 gives the int32 scores the range (0, 0) (computed from zeroed locals), so the
    # requantize and dequantize after it give zeros
    ref = np.load(os.path.join(DATA, "selfatt.npz"))
    feeds = {"data": mx.nd.array(ref["qkv"])}
    qsym = _selfatt_quantized(_selfatt_symbols()["qk"], feeds, "none")
    ops = [n["op"] for n in json.loads(qsym.tojson())["nodes"] if n["op"] != "null"]
    assert ops == ["_contrib_quantize_v2", "_sg_mkldnn_selfatt_qk", "_contrib_requantize", "_contrib_dequantize"]
    outputs = qsym.get_internals()
    scores = outputs["quantized_sg_mkldnn_selfatt_qk_0_output"]
    ex = mx.sym.Group([scores, outputs["quantized_sg_mkldnn_selfatt_qk_0_min_output"],
                       outputs["quantized_sg_mkldnn_selfatt_qk_0_max_output"], qsym,
                       outputs["data_quantize_output0"]]).bind(mx.cpu(), dict(feeds))
    int32, low, high, final, q8 = [o.asnumpy() for o in ex.forward()]
    assert int32.dtype == np.int32 and low[0] == 0 and high[0] == 0
    np.testing.assert_array_equal(final, ref["qk_uncalibrated"])
    # the int32 scores are the int8 products q . k / sqrt(head_dim), rounded
    q8 = q8.astype(np.int64).reshape(4, 4, 3, 6).transpose(1, 2, 0, 3)
    exact = np.einsum("bid,bjd->bij", q8[:, 0], q8[:, 1]) / np.sqrt(6)
    assert np.abs(int32 - exact).max() <= 0.5 + 1e-3


@pytest.mark.parametrize("kind", ["int8", "uint8"])
def test_quantized_conv_gives_mxnets_int8_values_for_its_cpu(kind, monkeypatch):
    # MXNet 1.9.1 on a CPU without VNNI (single_conv.npz): an int8 source runs with halved
    # weights, a uint8 one saturates its int16 pair sums; mxtorch gives the same int8 values,
    # and the other CPU's arithmetic gives different ones
    ref = np.load(os.path.join(DATA, "single_conv.npz"))
    qsym = mx.sym.load(os.path.join(DATA, f"single_conv_{kind}-quantized.json"))
    saved = mx.nd.load(os.path.join(DATA, f"single_conv_{kind}-quantized.params"))
    args = {k[4:]: v for k, v in saved.items()}
    conv = qsym.get_internals()["quantized_sg_mkldnn_conv_0_output"]
    results = {}
    monkeypatch.setenv("MXTORCH_INT8_EXACT", "1")
    for vnni in ("0", "1"):
        monkeypatch.setenv("MXTORCH_ONEDNN_VNNI", vnni)
        results[vnni] = _run(conv, args, {}, ref[f"data_{kind}"]).astype(np.int64)
    same, other = ("1", "0") if bool(ref["vnni"]) else ("0", "1")
    np.testing.assert_array_equal(results[same], ref[f"out_{kind}"])
    assert results[same].dtype == np.int64 and np.abs(ref[f"out_{kind}"]).max() > 50
    assert (results[other] != ref[f"out_{kind}"]).mean() > 0.05


def _cpu_has_vnni():
    from mxtorch.ops import quantized_mkldnn
    return quantized_mkldnn._cpu_vnni()


@pytest.mark.parametrize("kind", ["int8", "uint8"])
def test_torch_int8_kernels_give_the_numbers_of_this_cpus_onednn(kind, monkeypatch):
    # the default path runs torch's quantized oneDNN convolution; on a CPU of the kind that wrote
    # single_conv.npz it gives MXNet's int8 values, on any CPU the exact emulation's for that CPU
    ref = np.load(os.path.join(DATA, "single_conv.npz"))
    qsym = mx.sym.load(os.path.join(DATA, f"single_conv_{kind}-quantized.json"))
    args = {k[4:]: v for k, v in mx.nd.load(os.path.join(DATA, f"single_conv_{kind}-quantized.params")).items()}
    conv = qsym.get_internals()["quantized_sg_mkldnn_conv_0_output"]
    monkeypatch.delenv("MXTORCH_ONEDNN_VNNI", raising=False)
    monkeypatch.setenv("MXTORCH_INT8_EXACT", "0")
    fast = _run(conv, args, {}, ref[f"data_{kind}"])
    monkeypatch.setenv("MXTORCH_INT8_EXACT", "1")
    exact = _run(conv, args, {}, ref[f"data_{kind}"])
    assert fast.dtype == exact.dtype == np.int8
    np.testing.assert_array_equal(fast, exact)
    if _cpu_has_vnni() == bool(ref["vnni"]):
        np.testing.assert_array_equal(fast, ref[f"out_{kind}"])


def test_torch_int8_kernels_with_fused_sums_stay_within_one_step(monkeypatch):
    # conv + BatchNorm + relu and conv + sum + relu (oneDNN's sum post-op through torch): the
    # int8 outputs of every fused node agree with the exact emulation within one step, on at
    # most 1 % of the values
    case = "conv_bn_relu_add"
    qsym = mx.sym.load(os.path.join(DATA, f"{case}-quantized.json"))
    saved = mx.nd.load(os.path.join(DATA, f"{case}-quantized.params"))
    args = {k[4:]: v for k, v in saved.items() if k.startswith("arg:")}
    aux = {k[4:]: v for k, v in saved.items() if k.startswith("aux:")}
    ref = np.load(os.path.join(DATA, f"{case}.npz"))
    inter = qsym.get_internals()
    names = [n for n in inter.list_outputs() if n.startswith("quantized_sg_mkldnn_conv") and n.endswith("_output")]
    assert len(names) == 2
    group = mx.sym.Group([inter[n] for n in names])
    monkeypatch.delenv("MXTORCH_ONEDNN_VNNI", raising=False)
    results = {}
    for exact in ("0", "1"):
        monkeypatch.setenv("MXTORCH_INT8_EXACT", exact)
        mod = Module(symbol=group, label_names=None)
        mod.bind(for_training=False, data_shapes=[("data", ref["data"].shape)])
        mod.set_params(args, aux)
        mod.forward(mx.io.DataBatch([mx.nd.array(ref["data"])], []), is_train=False)
        results[exact] = [o.asnumpy().astype(np.int64) for o in mod.get_outputs()]
    for fast, exact in zip(results["0"], results["1"]):
        steps = np.abs(fast - exact)
        assert steps.max() <= 1 and (steps > 0).mean() <= 0.01
        assert exact.max() > 100
