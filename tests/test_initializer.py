"""mx.initializer: dispatch rules, registry/JSON round trips and the statistics of each initializer.

``tests/data/optimizer/initializer_reference.*`` were recorded with MXNet 1.9.1 (``gen_initializer_reference.py``):
FusedRNN packed vectors filled by a deterministic name-based initializer, Bilinear kernels and ``dumps()``
strings.
"""
import json
import logging
import math
import os

import numpy as np
import pytest
import torch

import mxtorch as mx
from mxtorch.base import MXNetError

DATA = os.path.join(os.path.dirname(__file__), "data", "optimizer")
REFERENCE = np.load(os.path.join(DATA, "initializer_reference.npz"))
REFERENCE_META = json.load(open(os.path.join(DATA, "initializer_reference.json")))


def fresh(shape, value=np.nan):
    return mx.nd.full(shape, value)


def desc(name, **attrs):
    return mx.init.InitDesc(name, attrs=attrs)


# -- dispatch -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, expected", [
    ("fc1_bias", 0.0), ("bn_gamma", 1.0), ("bn_beta", 0.0), ("bn_moving_mean", 0.0), ("bn_moving_var", 1.0),
    ("bn_moving_inv_var", 0.0), ("ema_moving_avg", 0.0), ("quant_min", 0.0), ("quant_max", 1.0),
    ("fc_bias_quantize", 0.0),
])
def test_suffix_dispatch_fixed_values(name, expected):
    arr = fresh((3, 4))
    mx.init.Uniform(0.5)(desc(name), arr)
    np.testing.assert_array_equal(arr.asnumpy(), np.full((3, 4), expected, np.float32))


def test_weight_goes_to_the_subclass_rule_and_global_init_is_set():
    arr = fresh((30, 40))
    description = desc("conv0_weight")
    init = mx.init.Uniform(0.25)
    init(description, arr)
    values = arr.asnumpy()
    assert values.min() >= -0.25 and values.max() <= 0.25 and values.std() > 0.1
    assert description.global_init is init


def test_unknown_name_raises():
    with pytest.raises(MXNetError, match="Unknown initialization pattern for rnn_parameters"):
        mx.init.Xavier()(desc("rnn_parameters"), fresh((10,)))


def test_rnn_parameters_unpacked_from_operator_attributes():
    # mode lstm, 1 layer, 3 hidden, 2 inputs: 4 gates x (3x2 + 3x3) weights, then 2 x 4 x 3 biases
    arr = fresh((4 * (6 + 9) + 24,))
    attrs = {"mode": "lstm", "num_layers": "1", "state_size": "3"}
    mx.init.One()(mx.init.InitDesc("rnn_parameters", attrs=attrs), arr)
    np.testing.assert_array_equal(arr.asnumpy()[:60], 1.0)
    np.testing.assert_array_equal(arr.asnumpy()[60:], 0.0)


def test_init_attribute_overrides_name():
    arr = fresh((2, 3))
    mx.init.Uniform()(desc("fc_bias", __init__=mx.init.Constant(2.5).dumps()), arr)
    np.testing.assert_array_equal(arr.asnumpy(), np.full((2, 3), 2.5, np.float32))
    arr = fresh((200, 100))
    mx.init.Zero()(desc("anything_at_all", __init__='["normal", {"sigma": 0.1}]'), arr)
    assert abs(arr.asnumpy().std() - 0.1) < 0.005
    # the BatchNorm statistics of MXNet symbols carry __init__ = ["zero", {}] / ["one", {}]
    arr = fresh((4,))
    mx.init.Xavier()(desc("bn_moving_var", __init__='["one", {}]'), arr)
    np.testing.assert_array_equal(arr.asnumpy(), np.ones(4, np.float32))


def test_legacy_string_names():
    with pytest.warns(DeprecationWarning, match="InitDesc"):
        arr = fresh((1, 1, 4, 4))
        mx.init.Uniform()("upsampling0_weight", arr)
        np.testing.assert_allclose(arr.asnumpy(), bilinear_formula((1, 1, 4, 4)))
        arr = fresh((6,))
        mx.init.Uniform()("stn_loc_bias", arr)
        np.testing.assert_array_equal(arr.asnumpy(), [1, 0, 0, 0, 1, 0])
        arr = fresh((2, 2))
        mx.init.Uniform()("stn_loc_weight", arr)
        np.testing.assert_array_equal(arr.asnumpy(), np.zeros((2, 2)))
        arr = fresh((3,))
        mx.init.Uniform()("bn_moving_var", arr)
        np.testing.assert_array_equal(arr.asnumpy(), np.ones(3))
        with pytest.raises(MXNetError, match="Unknown initialization pattern"):
            mx.init.Uniform()("mystery", fresh((3,)))


def test_quantized_weight_is_int8_range():
    arr = mx.nd.zeros((50, 40), dtype="int8")
    mx.init.Uniform()(desc("conv_weight_quantize"), arr)
    values = arr.asnumpy()
    assert values.dtype == np.int8 and values.min() >= -127 and values.max() <= 126 and values.std() > 50


# -- registry and JSON ------------------------------------------------------------------------------------
def test_dumps_match_mxnet_and_create_round_trips():
    built = dict(xavier=mx.init.Xavier(factor_type="in", magnitude=2.34), normal=mx.init.Normal(0.5),
                 constant=mx.init.Constant(2), msra=mx.init.MSRAPrelu(), uniform=mx.init.Uniform(),
                 zero=mx.init.Zero(), orthogonal=mx.init.Orthogonal(), lstmbias=mx.init.LSTMBias(2.0),
                 bilinear=mx.init.Bilinear(), fused=mx.init.FusedRNN(mx.init.Xavier(), 4, 1, "lstm"))
    for key, text in REFERENCE_META["dumps"].items():
        assert built[key].dumps() == text, key
        recreated = mx.init.create(text)
        assert type(recreated) is type(built[key]) and recreated.dumps() == text
        assert recreated == built[key]


def test_create_forms_and_aliases():
    assert isinstance(mx.init.create("zeros"), mx.init.Zero) and isinstance(mx.init.create("ONES"), mx.init.One)
    assert mx.init.create("normal", sigma=0.3).sigma == 0.3
    instance = mx.init.Xavier()
    assert mx.init.create(instance) is instance
    assert mx.init.create({"initializer": "uniform", "scale": 0.2}).scale == 0.2
    assert mx.init.create('{"initializer": "constant", "value": 4}').value == 4
    with pytest.raises(MXNetError, match="not registered"):
        mx.init.create("no_such_init")
    with pytest.raises(MXNetError, match="already an instance"):
        mx.init.create(instance, 3)
    with pytest.raises(MXNetError, match="invalid JSON"):
        mx.init.create("[broken")
    assert mx.init.Normal(0.1) == mx.init.Normal(0.1) and mx.init.Normal(0.1) != mx.init.Normal(0.2)


def test_register_custom_initializer_and_alias():
    @mx.init.register
    @mx.init.alias("sevens")
    class SevenInit(mx.init.Initializer):
        def _init_weight(self, _, arr):
            arr[:] = 7

    arr = fresh((2,))
    mx.init.Zero()(desc("w_weight", __init__=SevenInit().dumps()), arr)
    np.testing.assert_array_equal(arr.asnumpy(), [7, 7])
    assert isinstance(mx.init.create("sevens"), SevenInit)
    with pytest.raises(MXNetError, match="subclass of Initializer"):
        mx.init.register(dict)


def test_init_desc_is_a_str():
    description = mx.init.InitDesc("fc_weight", attrs={"lr_mult": "2"})
    assert isinstance(description, str) and description == "fc_weight"
    assert description.attrs == {"lr_mult": "2"} and description.global_init is None
    assert mx.init.InitDesc("x").attrs == {}


# -- statistics of the random initializers ------------------------------------------------------------
@pytest.mark.parametrize("shape, factor_type, rnd_type, magnitude", [
    ((64, 32), "avg", "uniform", 3), ((16, 8, 3, 3), "in", "uniform", 2), ((16, 8, 3, 3), "out", "gaussian", 2),
    ((40, 60), "avg", "gaussian", 3),
])
def test_xavier_scale_from_formula(shape, factor_type, rnd_type, magnitude):
    mx.random.seed(11)
    arr = fresh(shape)
    mx.init.Xavier(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)(desc("w_weight"), arr)
    receptive = np.prod(shape[2:]) if len(shape) > 2 else 1
    fan_in, fan_out = shape[1] * receptive, shape[0] * receptive
    factor = {"avg": (fan_in + fan_out) / 2, "in": fan_in, "out": fan_out}[factor_type]
    scale = math.sqrt(magnitude / factor)
    values = arr.asnumpy()
    if rnd_type == "uniform":
        assert np.abs(values).max() <= scale
        assert np.abs(values).max() > 0.95 * scale
        expected_std = scale / math.sqrt(3)
    else:
        expected_std = scale
    assert abs(values.std() / expected_std - 1) < 0.08
    assert abs(values.mean()) < 0.1 * expected_std


def test_xavier_rejects_vectors_and_bad_types():
    with pytest.raises(MXNetError, match="at least 2D"):
        mx.init.Xavier()(desc("v_weight"), fresh((5,)))
    with pytest.raises(MXNetError, match="factor_type"):
        mx.init.Xavier(factor_type="sideways")(desc("w_weight"), fresh((5, 5)))
    with pytest.raises(MXNetError, match="rnd_type"):
        mx.init.Xavier(rnd_type="beta")(desc("w_weight"), fresh((5, 5)))


def test_msra_prelu_is_gaussian_with_he_magnitude():
    mx.random.seed(5)
    arr = fresh((128, 64))
    mx.init.MSRAPrelu(factor_type="in", slope=0.0)(desc("w_weight"), arr)
    assert abs(arr.asnumpy().std() / math.sqrt(2.0 / 64) - 1) < 0.03
    assert mx.init.MSRAPrelu(slope=0.5).magnitude == pytest.approx(2 / 1.25)


def test_uniform_and_normal_statistics_and_seed():
    mx.random.seed(1)
    arr = fresh((100, 100))
    mx.init.Uniform(0.3)(desc("w_weight"), arr)
    first = arr.asnumpy()
    assert first.min() >= -0.3 and first.max() <= 0.3 and abs(first.std() - 0.3 / math.sqrt(3)) < 0.005
    mx.random.seed(1)
    again = fresh((100, 100))
    mx.init.Uniform(0.3)(desc("w_weight"), again)
    np.testing.assert_array_equal(first, again.asnumpy())
    arr = fresh((100, 100))
    mx.init.Normal(0.02)(desc("w_weight"), arr)
    assert abs(arr.asnumpy().std() - 0.02) < 0.0005 and abs(arr.asnumpy().mean()) < 0.001


def test_constant_scalar_and_array():
    arr = fresh((2, 3))
    mx.init.Constant(-1.5)(desc("c_weight"), arr)
    np.testing.assert_array_equal(arr.asnumpy(), np.full((2, 3), -1.5))
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    init = mx.init.Constant(mx.nd.array(value))
    init(desc("c_weight"), arr)
    np.testing.assert_array_equal(arr.asnumpy(), value)
    assert json.loads(init.dumps()) == ["constant", {"value": value.tolist()}]
    arr = fresh((2, 3))
    mx.init.create(init.dumps())(desc("c_weight"), arr)
    np.testing.assert_array_equal(arr.asnumpy(), value)


@pytest.mark.parametrize("shape, rand_type", [((6, 10), "uniform"), ((10, 6), "normal"), ((4, 2, 3, 3), "uniform")])
def test_orthogonal_rows_or_columns_are_orthonormal(shape, rand_type):
    arr = fresh(shape)
    mx.init.Orthogonal(scale=2.0, rand_type=rand_type)(desc("w_weight"), arr)
    matrix = arr.asnumpy().reshape(shape[0], -1) / 2.0
    if matrix.shape[0] <= matrix.shape[1]:
        np.testing.assert_allclose(matrix @ matrix.T, np.eye(matrix.shape[0]), atol=1e-5)
    else:
        np.testing.assert_allclose(matrix.T @ matrix, np.eye(matrix.shape[1]), atol=1e-5)


def bilinear_formula(shape):
    f = math.ceil(shape[3] / 2)
    c = (2 * f - 1 - f % 2) / (2 * f)
    out = np.zeros(shape, np.float32)
    for y in range(shape[2]):
        for x in range(shape[3]):
            out[..., y, x] = (1 - abs(x / f - c)) * (1 - abs(y / f - c))
    return out


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (1, 1, 3, 3)])
def test_bilinear_kernel_formula_and_mxnet(shape):
    arr = fresh(shape)
    mx.init.Bilinear()(desc("up_weight"), arr)
    np.testing.assert_allclose(arr.asnumpy(), bilinear_formula(shape), rtol=1e-6)
    np.testing.assert_array_equal(arr.asnumpy(), REFERENCE["bilinear:" + "x".join(map(str, shape))])


def test_lstm_bias():
    arr = fresh((12,))
    mx.init.LSTMBias(forget_bias=2.0)(desc("lstm_i2h_bias", __init__=mx.init.LSTMBias(2.0).dumps()), arr)
    np.testing.assert_array_equal(arr.asnumpy(), [0, 0, 0, 2, 2, 2, 0, 0, 0, 0, 0, 0])


class NameCode(mx.init.Initializer):
    """The deterministic initializer the FusedRNN reference was recorded with."""

    def _init_weight(self, name, arr):
        arr[:] = (sum(map(ord, name)) % 97) / 10.0 + np.arange(arr.size).reshape(arr.shape) / 1000.0

    def _init_bias(self, name, arr):
        arr[:] = -len(name)


@pytest.mark.parametrize("key", ["lstm_2l_bi", "gru_1l", "rnn_tanh_2l"])
def test_fused_rnn_layout_matches_mxnet(key):
    meta = REFERENCE_META[key]
    arr = mx.nd.zeros((meta["total"],))
    init = mx.init.FusedRNN(NameCode(), meta["num_hidden"], meta["num_layers"], meta["mode"],
                            meta["bidirectional"], forget_bias=1.5)
    init._init_weight(mx.init.InitDesc("rnn_parameters", global_init=NameCode()), arr)
    np.testing.assert_array_equal(arr.asnumpy(), REFERENCE["fused:" + key])


def test_fused_rnn_through_init_attribute_and_bad_size():
    init = mx.init.FusedRNN(mx.init.Constant(0.5), num_hidden=2, num_layers=1, mode="gru")
    arr = mx.nd.zeros(((3 + 2 + 2) * 2 * 3,))
    mx.init.Xavier()(desc("gru_parameters", __init__=init.dumps()), arr)
    weights, biases = arr.asnumpy()[:30], arr.asnumpy()[30:]
    np.testing.assert_array_equal(weights, 0.5)
    np.testing.assert_array_equal(biases, 0.0)
    with pytest.raises(MXNetError, match="does not fit"):
        init._init_weight(desc("gru_parameters"), mx.nd.zeros((31,)))


# -- combinators ------------------------------------------------------------------------------------
def test_mixed_patterns_first_match_wins():
    init = mx.init.Mixed(["special", "fc2_.*", ".*"], [mx.init.Constant(3), mx.init.One(), mx.init.Constant(-1)])
    results = {}
    for name in ["special_weight", "fc2_weight", "fc1_weight", "fc1_gamma", "my_special_weight"]:
        arr = fresh((2,))
        init(desc(name), arr)
        results[name] = arr.asnumpy()[0]
    # re.match anchors at the start ("my_special_weight" falls through to ".*"); the chosen initializer
    # still dispatches on the name, so a gamma gets 1
    assert results == {"special_weight": 3.0, "fc2_weight": 1.0, "fc1_weight": -1.0, "fc1_gamma": 1.0,
                       "my_special_weight": -1.0}
    with pytest.raises(MXNetError, match="did not match"):
        mx.init.Mixed(["a"], [mx.init.One()])(desc("b_weight"), fresh((1,)))
    with pytest.raises(MXNetError, match="patterns"):
        mx.init.Mixed(["a", "b"], [mx.init.One()])


def test_load_from_dict_and_default(tmp_path):
    params = {"arg:fc_weight": mx.nd.array([[1.0, 2.0]]), "aux:bn_moving_mean": mx.nd.array([5.0]),
              "plain_bias": mx.nd.array([7.0])}
    init = mx.init.Load(params, default_init=mx.init.Constant(9), verbose=True)
    assert sorted(init.param) == ["bn_moving_mean", "fc_weight", "plain_bias"]
    arr = fresh((1, 2))
    init("fc_weight", arr)
    np.testing.assert_array_equal(arr.asnumpy(), [[1, 2]])
    arr = fresh((1,))
    init(desc("other_weight"), arr)
    np.testing.assert_array_equal(arr.asnumpy(), [9])
    with pytest.raises(MXNetError, match="Shape mismatch"):
        init("fc_weight", fresh((2, 1)))
    with pytest.raises(MXNetError, match="no default"):
        mx.init.Load(params)("missing_weight", fresh((1,)))


def test_load_from_params_file(tmp_path):
    path = str(tmp_path / "model-0001.params")
    mx.nd.save(path, {"arg:fc_weight": mx.nd.array([[3.0, 4.0]])})
    arr = fresh((1, 2))
    mx.init.Load(path)("fc_weight", arr)
    np.testing.assert_array_equal(arr.asnumpy(), [[3, 4]])


def test_set_verbosity_logs(caplog):
    init = mx.init.One().set_verbosity(True)
    with caplog.at_level(logging.INFO):
        init(desc("fc_weight"), fresh((4,)))
    assert "Initialized fc_weight as weight: 1.0" in caplog.text


def test_initializer_works_on_float64_and_keeps_the_tensor():
    arr = mx.nd.zeros((20, 10), dtype="float64")
    tensor = arr._tensor
    mx.init.Xavier()(desc("w_weight"), arr)
    assert arr._tensor is tensor and arr.dtype == np.float64 and torch.any(tensor != 0)
