"""The int8 operators of contrib (quantized_fully_connected, quantized_conv, requantize, ...)
against the integers and ranges MXNet 1.9.1's CPU build printed for the same inputs."""
import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError

nd = mx.nd
DATA = [[10, -20, 30], [-40, 50, 127]]
WEIGHT = [[1, 2, 3], [-4, 5, 6]]


def r(value):
    return nd.array([value])


def values(outputs):
    return [o.asnumpy().tolist() for o in outputs]


@pytest.mark.parametrize("dtype,low,bias,expected,out_range", [
    ("int8", -2.0, [3, -7], [[155, -183], [536, 949]], 266288.5),
    ("int8", -2.0, [-3, 7], [[-35, 263], [346, 1395]], 266288.5),
    ("uint8", 0.0, [3, -7], [[331, -207], [1096, 1173]], 132622.125)])
def test_quantized_fully_connected(dtype, low, bias, expected, out_range):
    data = nd.array([[10, 20, 30], [40, 50, 255]] if dtype == "uint8" else DATA, dtype=dtype)
    out = nd.contrib.quantized_fully_connected(data, nd.array(WEIGHT, dtype="int8"), nd.array(bias, dtype="int8"),
                                               r(low), r(2.0), r(-1.0), r(1.0), r(-0.5), r(0.5), num_hidden=2)
    assert out[0].dtype == np.int32
    assert values(out) == [expected, [-out_range], [out_range]]
    plain = nd.contrib.quantized_fully_connected(nd.array(DATA, dtype="int8"), nd.array(WEIGHT, dtype="int8"),
                                                 r(-2.0), r(2.0), r(-1.0), r(1.0), num_hidden=2, no_bias=True)
    assert plain[0].asnumpy().tolist() == (np.array(DATA) @ np.array(WEIGHT).T).tolist()


def test_quantized_conv_pooling_flatten_act():
    data = nd.array(np.arange(32).reshape(1, 2, 4, 4), dtype="uint8")
    weight = nd.array(np.array([1, -1, 2, 0, 3, 1, -2, 1]).reshape(2, 2, 1, 2), dtype="int8")
    out = nd.contrib.quantized_conv(data, weight, nd.array([1, -3], dtype="int8"), r(0.0), r(2.0), r(-1.0), r(1.0),
                                    r(-0.5), r(0.5), kernel=(1, 2), num_filter=2)
    assert values(out) == [[[[[32, 34, 36], [40, 42, 44], [48, 50, 52], [56, 58, 60]],
                             [[-17, -14, -11], [-5, -2, 1], [7, 10, 13], [19, 22, 25]]]], [-266288.5], [266288.5]]
    signed = nd.array(np.arange(-8, 24).reshape(1, 2, 4, 4), dtype="int8")
    pooled = nd.contrib.quantized_pooling(signed, r(-2.0), r(2.0), kernel=(2, 2), stride=(2, 2), pool_type="avg")
    assert values(pooled) == [[[[[-6, -4], [2, 4]], [[10, 12], [18, 20]]]], [-2.0], [2.0]]
    padded = nd.contrib.quantized_pooling(signed, r(-2.0), r(2.0), kernel=(3, 3), stride=(2, 2), pad=(1, 1),
                                          pool_type="avg")
    assert padded[0].asnumpy().tolist() == [[[[-2, -3], [0, 2]], [[5, 8], [11, 18]]]]
    flat = nd.contrib.quantized_flatten(nd.array(np.arange(8).reshape(2, 2, 2), dtype="int8"), r(-1.0), r(1.0))
    assert flat[0].shape == (2, 4)
    relu = nd.contrib.quantized_act(nd.array(DATA, dtype="int8"), r(-2.0), r(2.0), act_type="relu")
    assert relu[0].asnumpy().tolist() == [[10, 0, 30], [0, 50, 127]]
    with pytest.raises(MXNetError, match="relu"):
        nd.contrib.quantized_act(nd.array(DATA, dtype="int8"), r(-2.0), r(2.0), act_type="tanh")


def test_requantize_and_quantize_asym():
    data = nd.array([1000, -2000, 300000], dtype="int32")
    assert values(nd.contrib.requantize(data, r(-10.0), r(10.0)))[0] == [0, -1, 127]
    out = nd.contrib.requantize(data, r(-10.0), r(10.0), min_calib_range=-0.5, max_calib_range=0.7)
    assert out[0].asnumpy().tolist() == [0, 0, 0]
    np.testing.assert_allclose(out[2].asnumpy(), [0.7])
    # the documented formula: out = data * scale + shift + 0.5, scale = 255 / (max - min)
    quantized, scale, shift = nd.contrib.quantize_asym(nd.array([-1.0, 0.5, 3.0]))
    assert quantized.dtype == np.uint8 and quantized.asnumpy().tolist() == [0, 96, 255]
    np.testing.assert_allclose([scale.asnumpy()[0], shift.asnumpy()[0]], [63.75, 63.75])


def test_quantized_elementwise_concat_embedding_batch_norm():
    lhs, rhs = nd.array(DATA, dtype="int8"), nd.array(WEIGHT, dtype="int8")
    total = nd.contrib.quantized_elemwise_add(lhs, rhs, r(-2.0), r(2.0), r(-1.0), r(1.0))
    assert values(total) == [[[117901064, -213344784, 353703200], [-471604256, 589505344, 1459727488]], [-3.0], [3.0]]
    calibrated = nd.contrib.quantized_elemwise_add(lhs, rhs, r(-2.0), r(2.0), r(-1.0), r(1.0),
                                                   min_calib_range=-3.0, max_calib_range=3.0)
    assert calibrated[0].asnumpy().tolist() == [[7, -13, 21], [-28, 35, 87]]
    joined = nd.contrib.quantized_concat(lhs, rhs, r(-1.0), r(1.0), r(-4.0), r(3.0), num_args=2, dim=1)
    assert values(joined) == [[[2, -5, 8, 1, 2, 3], [-10, 12, 32, -4, 5, 6]], [-4.0], [3.0]]
    rows = nd.contrib.quantized_embedding(nd.array([0, 1, 0]), rhs, r(-1.0), r(1.0), input_dim=2, output_dim=3)
    assert rows[0].asnumpy().tolist() == [[1, 2, 3], [-4, 5, 6], [1, 2, 3]]
    data = nd.array(np.arange(-8, 24).reshape(1, 2, 4, 4), dtype="int8")
    normalised = nd.contrib.quantized_batch_norm(data, nd.array([1.0, 2]), nd.array([0.0, 0.5]), nd.array([0.5, 1]),
                                                 nd.array([2.0, 4]), r(-2.0), r(2.0), eps=1e-3,
                                                 min_calib_range=-3.0, max_calib_range=3.0)
    assert normalised[0].asnumpy().tolist() == [[
        [[-19, -18, -18, -17], [-17, -16, -16, -15], [-15, -15, -14, -14], [-13, -13, -12, -12]],
        [[-16, -15, -15, -14], [-13, -13, -12, -11], [-11, -10, -9, -9], [-8, -7, -7, -6]]]]
    with pytest.raises(MXNetError, match="calib"):
        nd.contrib.quantized_batch_norm(data, nd.ones((2,)), nd.zeros((2,)), nd.zeros((2,)), nd.ones((2,)),
                                        r(-2.0), r(2.0))


def test_quantized_symbols_infer_shapes():
    node = mx.sym.contrib.quantized_fully_connected(mx.sym.var("data"), mx.sym.var("weight"), mx.sym.var("bias"),
                                                    mx.sym.var("min_data"), mx.sym.var("max_data"),
                                                    mx.sym.var("min_weight"), mx.sym.var("max_weight"),
                                                    mx.sym.var("min_bias"), mx.sym.var("max_bias"), num_hidden=4)
    args, outs, _ = node.infer_shape(data=(2, 3))
    assert args[:3] == [(2, 3), (4, 3), (4,)] and outs == [(2, 4), (1,), (1,)]


@pytest.mark.parametrize("bins,levels,threshold,divergence", [
    (16, 5, 2.284607172012329, 0.007702506), (41, 7, 4.733391284942627, 0.03502896)])
def test_calibrate_entropy(bins, levels, threshold, divergence):
    rs = np.random.RandomState(0)
    samples = rs.randn(1000) if bins == 16 else (rs.randn(1000), rs.standard_t(3, 5000))[1]
    limit = np.abs(samples).max()
    hist, edges = np.histogram(samples, bins=bins, range=(-limit, limit))
    found, kl = nd.contrib.calibrate_entropy(nd.array(hist.astype(np.float32)), nd.array(edges.astype(np.float32)),
                                             num_quantized_bins=levels)
    # MXNet 1.9.1 for the same histograms
    np.testing.assert_allclose(found.asnumpy(), [threshold], rtol=1e-6)
    np.testing.assert_allclose(kl.asnumpy(), [divergence], rtol=1e-4)
