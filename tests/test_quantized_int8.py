"""Quantization front-end details checked against MXNet 1.9.1 (values printed by ~/mxref)."""
import numpy as np
import pytest

import mxtorch as mx
from mxtorch.contrib import quantization as quant


def test_quantize_and_requantize_output_names_as_mxnet():
    # MXNet 1.9.1: quantize / quantize_v2 / requantize registered no output names
    d, lo, hi = mx.sym.var("data"), mx.sym.var("lo"), mx.sym.var("hi")
    assert mx.sym.contrib.quantize_v2(d, name="q2").list_outputs() == ["q2_output0", "q2_output1", "q2_output2"]
    assert mx.sym.contrib.quantize(d, lo, hi, name="q1").list_outputs() == ["q1_output0", "q1_output1", "q1_output2"]
    assert mx.sym.contrib.requantize(d, lo, hi, name="rq").list_outputs() == ["rq_output0", "rq_output1", "rq_output2"]
    assert mx.sym.contrib.quantized_act(d, lo, hi, act_type="relu", name="qa").list_outputs() == \
        ["qa_output", "qa_min_output", "qa_max_output"]


def test_smooth_distribution_moves_eps_onto_zero_bins():
    with pytest.raises(ValueError):
        quant._smooth_distribution(np.zeros((2,)), eps=1e-3)
    p = np.array([0.0, 0.0, 1.0, 3.0])
    # 2 zeros, 2 non-zeros: zeros get eps, non-zeros lose eps * 2 / 2
    np.testing.assert_allclose(quant._smooth_distribution(p, eps=1e-3), [1e-3, 1e-3, 1 - 1e-3, 3 - 1e-3], rtol=1e-6)


def test_quantize_symbol_and_calibration_names():
    data = mx.sym.var("data")
    conv = mx.sym.Convolution(data, kernel=(1, 1), num_filter=4, name="conv")
    relu = mx.sym.Activation(conv, act_type="relu", name="relu")
    fc = mx.sym.FullyConnected(relu, num_hidden=3, name="fc")
    params = ["conv_weight", "conv_bias", "fc_weight", "fc_bias"]
    qsym, layers = quant._quantize_symbol(fc, mx.cpu(), offline_params=params, quantize_mode="full")
    # MXNet 1.9.1 prints ['data', 'conv_output', 'fc_output'] for this graph
    assert layers == ["data", "conv_output", "fc_output"]
    calibrated = quant._calibrate_quantized_sym(qsym, {"data": (-1.0, 2.0), "conv_output": (-3.5, 4.25)})
    attrs = calibrated.attr_dict()
    assert attrs["data_quantize"]["min_calib_range"] == "-1.000000"
    assert attrs["requantize_conv"]["max_calib_range"] == "4.250000"
    assert "min_calib_range" not in attrs["requantize_fc"]
    qparams = quant._quantize_params(calibrated, {"conv_weight": mx.nd.array([[[[0.5]]], [[[-1.0]]]]),
                                                  "fc_bias": mx.nd.array([2.0, 1.0, 0.0])}, th_dict={})
    assert qparams["conv_weight_quantize"].asnumpy().ravel().tolist() == [64, -127]
    assert qparams["fc_bias_quantize"].asnumpy().tolist() == [127, 64, 0]


def test_optimal_threshold_of_an_edge_histogram_is_the_edge():
    # all mass in the last bin: the best threshold is the whole range (MXNet's adversarial case)
    hist = [0] * 998 + [1000]
    edges = [(4.0 / 999) * i - 2 for i in range(999)] + [2.0]
    for dtype in ("int8", "uint8", "auto"):
        low, high, threshold, _ = quant._get_optimal_threshold((hist, edges, -2, 2, 2), dtype, num_quantized_bins=5)
        assert abs(float(threshold[0]) - 2) < 1e-5
    th = quant._get_optimal_thresholds({"x": (np.array(hist), np.array(edges), 0.5, 2, 2)}, "uint8",
                                       num_quantized_bins=5)
    assert th["x"][0] == 0.0 and abs(th["x"][1] - 2) < 1e-5


def test_quantized_concat_of_int8_and_uint8_is_int8_as_mxnet():
    # MXNet 1.9.1 prints [[64, -32, 5, 127, 50, 1], [-1.0], [2.0]] int8 for these inputs
    a = mx.nd.array(np.array([127, -64, 10], dtype=np.int8), dtype="int8")
    b = mx.nd.array(np.array([255, 100, 3], dtype=np.uint8), dtype="uint8")
    out = mx.nd.contrib.quantized_concat(a, b, mx.nd.array([-1.0]), mx.nd.array([1.0]), mx.nd.array([0.0]),
                                         mx.nd.array([2.0]), num_args=2, dim=0)
    assert out[0].dtype == np.int8
    assert out[0].asnumpy().tolist() == [64, -32, 5, 127, 50, 1]
    assert out[1].asnumpy().tolist() == [-1.0] and out[2].asnumpy().tolist() == [2.0]


def test_uncalibrated_int8_dense_network_close_to_mxnet():
    # quantize_net(calib_mode='none'): int32 FullyConnected (+relu) results requantized at run
    # time; MXNet 1.9.1 printed [[1.5649974, 1.059762, 0.8133057], [-0.998148, 0.0369684, 0.2834247]]
    # (float network: [[1.5899132, 1.0893177, 0.8139584], [-0.9967157, 0.0309452, 0.2795903]])
    nn = mx.gluon.nn
    rng = np.random.RandomState(5)
    with mx.name.NameManager():
        net = nn.HybridSequential(prefix="m_")
        with net.name_scope():
            net.add(nn.Dense(4, activation="relu"), nn.Dense(3))
        net.initialize()
    x = mx.nd.array(rng.randn(2, 5).astype(np.float32))
    net(x)
    for p in sorted(net.collect_params().values(), key=lambda p: p.name):
        p.set_data(mx.nd.array(rng.uniform(-1, 1, p.shape).astype(np.float32)))
    np.testing.assert_allclose(net(x).asnumpy(), [[1.5899132, 1.0893177, 0.8139584], [-0.9967157, 0.0309452, 0.2795903]],
                               rtol=1e-5)
    q = quant.quantize_net(net, quantized_dtype="int8", data_shapes=[mx.io.DataDesc("data", (2, 5))],
                           calib_mode="none", ctx=mx.cpu())
    np.testing.assert_allclose(q(x).asnumpy(), [[1.5649974, 1.059762, 0.8133057], [-0.998148, 0.0369684, 0.2834247]],
                               atol=1e-3)


@pytest.mark.parametrize("bidirectional", [False, True])
def test_quantized_lstm_close_to_the_float_lstm(bidirectional):
    # MXNet 1.9.1's names (its 'statecell_ouput' spelling included) and its test's bound:
    # mean squared error against the float LSTM below 1e-3
    rng = np.random.RandomState(2)
    seq, batch, width = 5, 2, 16
    lstm = mx.sym.RNN(data=mx.sym.var("data"), num_layers=1, bidirectional=bidirectional, state_outputs=True,
                      state_size=width, mode="lstm", name="rnn")
    shapes, _, _ = lstm.infer_shape(data=(seq, batch, width))
    values = [mx.nd.array(rng.uniform(-1, 1, s).astype(np.float32)) for s in shapes]
    expected = lstm.bind(mx.cpu(), values, grad_req="null").forward()[0].asnumpy()
    low, high = values[0].min().asscalar(), values[0].max().asscalar()
    scale = 128.0 / (high - low)
    shift = 128.0 - high * scale
    q = (values[0] * scale + shift + 0.5).astype("uint8")
    qlstm = mx.sym.contrib.quantized_rnn(data=mx.sym.var("qdata", dtype="uint8"), num_layers=1,
                                         bidirectional=bidirectional, state_outputs=True, state_size=width,
                                         mode="lstm", name="qrnn")
    assert qlstm.list_arguments() == ["qdata", "qrnn_parameters", "qrnn_state", "qrnn_state_cell", "qrnn_min_data",
                                      "qrnn_max_data"]
    assert qlstm.list_outputs() == ["qrnn_output", "qrnn_state_output", "qrnn_statecell_ouput"]
    got = qlstm.bind(mx.cpu(), [q] + values[1:] + [mx.nd.array([scale]), mx.nd.array([shift])],
                     grad_req="null").forward()[0].asnumpy()
    assert np.mean((got - expected) ** 2) < 1e-3
    assert np.abs(got - expected).max() > 0     # the input was quantized: not the float result
