"""mxnet.contrib.quantization.quantize_model: the quantized graph, the int8 parameters and the
network's outputs, as MXNet 1.9.1 produced them for the same model (printed by ~/mxref)."""
import json
import warnings

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError
from mxtorch.contrib import quantization


def model():
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=4, name="fc0")
    act = mx.sym.Activation(fc, act_type="relu", name="relu0")
    out = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(act, num_hidden=3, name="fc1"), name="softmax")
    rs = np.random.RandomState(0)
    params = {"fc0_weight": rs.randn(4, 5), "fc0_bias": rs.randn(4), "fc1_weight": rs.randn(3, 4), "fc1_bias": rs.randn(3)}
    return out, {k: mx.nd.array(v) for k, v in params.items()}, rs.randn(6, 5).astype(np.float32)


def predict(symbol, params, data):
    module = mx.mod.Module(symbol, label_names=["softmax_label"])
    module.bind([("data", data.shape)], [("softmax_label", (data.shape[0],))], for_training=False)
    module.set_params(params, {})
    module.forward(mx.io.DataBatch([mx.nd.array(data)], [mx.nd.zeros((data.shape[0],))]), is_train=False)
    return module.get_outputs()[0].asnumpy()


def test_quantize_model_graph_and_parameters_as_mxnet():
    symbol, params, data = model()
    qsym, qparams, _ = quantization.quantize_model(symbol, params, {}, calib_mode="none", quantize_mode="full")
    nodes = [(n["op"], n["name"], [i[0] for i in n["inputs"]]) for n in json.loads(qsym.tojson())["nodes"]]
    assert [(op, name) for op, name, _ in nodes if op != "null"] == [
        ("_contrib_quantize_v2", "data_quantize"), ("_contrib_quantized_fully_connected", "quantized_fc0"),
        ("_contrib_requantize", "requantize_fc0"), ("_contrib_quantized_act", "quantized_relu0"),
        ("_contrib_quantized_fully_connected", "quantized_fc1"), ("_contrib_requantize", "requantize_fc1"),
        ("_contrib_dequantize", "fc1_dequantize"), ("SoftmaxOutput", "softmax")]
    assert nodes[8] == ("_contrib_quantized_fully_connected", "quantized_fc0", [1, 2, 3, 1, 1, 4, 5, 6, 7])
    assert qparams["fc0_weight_quantize"].dtype == np.int8
    assert qparams["fc0_weight_quantize"].asnumpy().tolist() == [
        [100, 23, 55, 127, 106], [-55, 54, -9, -6, 23], [8, 82, 43, 7, 25], [19, 85, -12, 18, -48]]
    np.testing.assert_allclose(predict(qsym, qparams, data)[:2],
                               [[0.038368888, 0.9575222, 0.0041088713], [0.30432695, 0.63609958, 0.059573494]],
                               rtol=1e-5)


def test_naive_calibration_sets_the_input_range():
    symbol, params, data = model()
    calib = mx.io.NDArrayIter(data, batch_size=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        qsym, qparams, _ = quantization.quantize_model(symbol, params, {}, calib_mode="naive", calib_data=calib,
                                                       num_calib_examples=6)
    assert any("smart" in str(w.message) for w in caught)
    attrs = {n["name"]: n.get("attrs", {}) for n in json.loads(qsym.tojson())["nodes"]}
    assert attrs["data_quantize"] == {"max_calib_range": "1.950775", "min_calib_range": "-1.726283",
                                      "out_type": "int8"}
    assert "min_calib_range" not in attrs["requantize_fc0"]
    np.testing.assert_allclose(predict(qsym, qparams, data)[0], [0.038368907, 0.9575222, 0.004108875], rtol=1e-5)


def test_quantization_options_and_histogram():
    symbol, params, _ = model()
    with pytest.raises(MXNetError, match="calib_data"):
        quantization.quantize_model(symbol, params, {}, calib_mode="entropy", quantize_mode="full")
    with pytest.raises(MXNetError, match="channel-wise"):
        quantization.quantize_model(symbol, params, {}, calib_mode="none", quantize_granularity="row-wise")
    with pytest.raises(MXNetError, match="calib_data"):
        quantization.quantize_model(symbol, params, {}, calib_mode="naive", quantize_mode="full")
    excluded, _, _ = quantization.quantize_model(symbol, params, {}, calib_mode="none", quantize_mode="full",
                                                 excluded_sym_names=["fc1"])
    names = [n["name"] for n in json.loads(excluded.tojson())["nodes"]]
    assert "quantized_fc1" not in names and "relu0_dequantize" in names
    counts, edges = np.histogram([0.5, -0.5], bins=4, range=(-1, 1))
    grown = quantization.combine_histogram((counts, edges, -0.5, 0.5, 1.0), np.array([1.2, 0.1]), 0.1, 1.2, 1.2)
    # MXNet 1.9.1: the range grows by one old bin (0.5) on each side, 6 bins over [-1.5, 1.5]
    assert grown[2:] == (-0.5, 1.2, 1.5) and grown[0].tolist() == [0, 0, 1, 1, 1, 1]
    same = quantization.combine_histogram((counts, edges, -0.5, 0.5, 1.0), np.array([0.7, 0.1]), 0.1, 0.7, 0.7)
    assert same[0].tolist() == [0, 1, 1, 2] and same[4] == 1.0


def test_quantize_net_gives_an_int8_symbol_block():
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(4, activation="relu"), mx.gluon.nn.Dense(3))
    net.initialize(mx.init.Uniform(1.0))
    x = mx.nd.array(np.random.RandomState(1).randn(2, 5))
    expected = net(x).asnumpy()
    quantized = quantization.quantize_net(net, quantized_dtype="int8", data_shapes=[(2, 5)], calib_mode="none")
    weights = [p for name, p in quantized.collect_params().items() if name.endswith("weight_quantize")]
    assert weights and all(p.data().dtype == np.int8 for p in weights)
    # int8 steps of max|w| / 127: the result stays within a few percent of the float network
    np.testing.assert_allclose(quantized(x).asnumpy(), expected, atol=0.05 * np.abs(expected).max())


def test_entropy_calibration_uses_the_histogram_threshold(monkeypatch):
    # MXNet 1.9.1 prints max_calib_range '2.854203' for this model and data with its 8001 bins; the
    # test uses 401 bins (fast) and checks the plumbing against calibrate_entropy itself
    monkeypatch.setattr(quantization, "_HISTOGRAM_BINS", 401)
    symbol, params, data = model()
    samples = np.tile(data, (40, 1)) * np.linspace(0.5, 1.5, 240)[:, None].astype(np.float32)
    qsym, _, _ = quantization.quantize_model(symbol, params, {}, calib_mode="entropy", quantize_mode="full",
                                             calib_data=mx.io.NDArrayIter(samples, batch_size=30))
    attrs = {n["name"]: n.get("attrs", {}) for n in json.loads(qsym.tojson())["nodes"]}
    # the batches' histograms combined equal one histogram of all data over the first batch's range
    # grown by whole bins; recompute it the same way
    counts, edges = None, None
    state = None
    for start in range(0, 240, 30):
        batch = samples[start:start + 30]
        limit = float(np.abs(batch).max())
        if state is None:
            counts, edges = np.histogram(batch, bins=401, range=(-limit, limit))
            state = (counts, edges, float(batch.min()), float(batch.max()), limit)
        else:
            state = quantization.combine_histogram(state, batch, float(batch.min()), float(batch.max()), limit)
    threshold = mx.nd.contrib.calibrate_entropy(mx.nd.array(state[0].astype(np.float32)),
                                                mx.nd.array(state[1].astype(np.float32)),
                                                num_quantized_bins=255)[0].asscalar()
    assert attrs["data_quantize"]["max_calib_range"] == "%f" % threshold
    assert attrs["data_quantize"]["min_calib_range"] == "%f" % -threshold
