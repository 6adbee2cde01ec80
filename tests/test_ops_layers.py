"""Layer operators: normalisation, Deconvolution, RNN, vision and detection layers, LeakyReLU,
Embedding, SoftmaxActivation and the avg-pooling 'full' gradient rule.

- reference cases recorded with MXNet 1.9.1 (tests/data/ops_layers, made by
  tools/gen_ops_layers.py): training forward, outputs and input gradients;
- finite-difference gradient checks in float64 through the executor;
- float16 / float64 smoke checks, imperative ``mx.nd.<Op>`` against the bound symbol;
- shape-inference errors that name the operator, the argument and the shapes.
"""
import json
import math
import os

import numpy as np
import pytest

import mxtorch as mx
from op_checks import bind, numeric_gradient_check, symbol_for

DATA = os.path.join(os.path.dirname(__file__), "data", "ops_layers")
with open(os.path.join(DATA, "index.json")) as handle:
    REFERENCE = json.load(handle)["cases"]


@pytest.mark.parametrize("case", REFERENCE, ids=[c["name"] for c in REFERENCE])
def test_reference_case(case):
    arrays = np.load(os.path.join(DATA, case["name"] + ".npz"))
    values = {n: arrays["arg:" + n] for n in case["inputs"]}
    symbol = symbol_for(case["op"], case["inputs"], case["attrs"])
    assert symbol.list_arguments() == case["inputs"]
    assert symbol.list_outputs() == case["outputs"]
    grad_req = case["grad_req"]
    executor = bind(symbol, values, grad_req)
    outputs = executor.forward(is_train=case["backward"])
    exact = case["op"] in ("Crop", "Pad") or case["attrs"].get("sample_type") == "nearest"
    rtol, atol = (0, 0) if exact else (1e-4, 1e-5)
    # gradients of copies sum head gradients, in an order that may differ: not bit-exact
    for i, output in enumerate(outputs):
        expected = arrays[f"out:{i}"]
        assert output.shape == expected.shape
        assert output.dtype == expected.dtype
        np.testing.assert_allclose(output.asnumpy().astype(np.float64), expected.astype(np.float64),
                                   rtol=rtol, atol=atol, err_msg=f"output {i}")
    if not case["backward"]:
        return
    executor.backward([mx.nd.array(arrays[f"head:{i}"], dtype=arrays[f"head:{i}"].dtype)
                       for i in range(len(outputs))])
    rtol, atol = (1e-6, 1e-6) if exact else (1e-3, 1e-4)
    if case["inputs"][0] == "data" and arrays["arg:data"].dtype == np.float16:
        rtol, atol = 1e-2, 1e-2
    for n in case["inputs"]:
        if grad_req[n] == "write":
            np.testing.assert_allclose(executor.grad_dict[n].asnumpy().astype(np.float64),
                                       arrays["grad:" + n].astype(np.float64), rtol=rtol, atol=atol,
                                       err_msg=f"gradient of {n}")


# -- finite differences ----------------------------------------------------------------------------
def rnn_inputs(mode, layers, bidirectional, seq=3, batch=2, width=2, hidden=2, seed=1):
    rng = np.random.RandomState(seed)
    from mxtorch.ops.recurrent import rnn_parameter_count
    directions = 2 if bidirectional else 1
    count = rnn_parameter_count(mode, layers, bidirectional, width, hidden)
    values = {"data": rng.randn(seq, batch, width), "parameters": rng.randn(count) * 0.5,
              "state": rng.randn(layers * directions, batch, hidden) * 0.5}
    if mode == "lstm":
        values["state_cell"] = rng.randn(layers * directions, batch, hidden) * 0.5
    return values


def away_from_zero(rng, *shape):
    values = rng.randn(*shape)
    return values + np.sign(values) * 0.1


RNG = np.random.RandomState(7)
GRADIENT_CASES = [
    ("InstanceNorm", {"data": RNG.randn(2, 2, 3), "gamma": RNG.randn(2), "beta": RNG.randn(2)}, {"eps": "0.01"}),
    ("LayerNorm", {"data": RNG.randn(3, 4), "gamma": RNG.randn(4), "beta": RNG.randn(4)}, {}),
    ("LayerNorm", {"data": RNG.randn(3, 2, 2), "gamma": RNG.randn(2), "beta": RNG.randn(2)}, {"axis": "1"}),
    ("GroupNorm", {"data": RNG.randn(2, 4, 2), "gamma": RNG.randn(2), "beta": RNG.randn(2)}, {"num_groups": "2"}),
    ("L2Normalization", {"data": RNG.randn(2, 3, 2)}, {"mode": "instance"}),
    ("L2Normalization", {"data": RNG.randn(2, 3, 2)}, {"mode": "channel"}),
    ("L2Normalization", {"data": RNG.randn(2, 2, 3)}, {"mode": "spatial"}),
    ("LRN", {"data": RNG.randn(1, 4, 2, 2)}, {"nsize": "3", "alpha": "0.1"}),
    ("Deconvolution", {"data": RNG.randn(1, 2, 2, 3), "weight": RNG.randn(2, 2, 2, 2), "bias": RNG.randn(4)},
     {"kernel": "(2, 2)", "num_filter": "4", "num_group": "2", "stride": "(2, 1)", "pad": "(1, 0)",
      "adj": "(1, 0)", "no_bias": "False"}),
    ("Deconvolution", {"data": RNG.randn(2, 1, 3), "weight": RNG.randn(1, 2, 3)},
     {"kernel": "(3,)", "num_filter": "2", "stride": "(2,)", "dilate": "(2,)", "target_shape": "(8,)"}),
    ("Deconvolution", {"data": RNG.randn(1, 1, 2, 2, 1), "weight": RNG.randn(1, 1, 2, 1, 2)},
     {"kernel": "(2, 1, 2)", "num_filter": "1", "stride": "(2, 2, 1)"}),
    ("RNN", rnn_inputs("lstm", 2, True), {"state_size": "2", "num_layers": "2", "mode": "lstm",
                                          "bidirectional": "True", "state_outputs": "True"}),
    ("RNN", rnn_inputs("gru", 1, True), {"state_size": "2", "num_layers": "1", "mode": "gru",
                                         "bidirectional": "True", "state_outputs": "True"}),
    ("RNN", rnn_inputs("rnn_tanh", 2, False), {"state_size": "2", "num_layers": "2", "mode": "rnn_tanh"}),
    ("RNN", rnn_inputs("rnn_relu", 1, False), {"state_size": "2", "num_layers": "1", "mode": "rnn_relu",
                                               "state_outputs": "True"}),
    ("UpSampling", {"a": RNG.randn(1, 1, 2, 2), "b": RNG.randn(1, 2, 1, 1)},
     {"scale": "2", "sample_type": "nearest", "num_args": "2"}),
    ("UpSampling", {"a": RNG.randn(1, 2, 2, 2), "b": RNG.randn(1, 2, 4, 4)},
     {"scale": "2", "sample_type": "nearest", "num_args": "2", "multi_input_mode": "sum"}),
    ("UpSampling", {"data": RNG.randn(1, 2, 2, 2), "weight": RNG.randn(2, 1, 4, 4)},
     {"scale": "2", "sample_type": "bilinear", "num_filter": "2", "num_args": "1"}),
    ("Crop", {"a": RNG.randn(1, 1, 4, 4), "b": RNG.randn(1, 1, 2, 3)}, {"num_args": "2", "offset": "(1, 1)"}),
    ("Pad", {"data": RNG.randn(1, 1, 3, 3)}, {"mode": "constant", "pad_width": "(0, 0, 0, 0, 1, 2, 2, 1)",
                                               "constant_value": "2"}),
    ("Pad", {"data": RNG.randn(1, 1, 3, 3)}, {"mode": "edge", "pad_width": "(0, 0, 0, 0, 1, 2, 2, 1)"}),
    ("Pad", {"data": RNG.randn(1, 1, 3, 3)}, {"mode": "reflect", "pad_width": "(0, 0, 0, 0, 1, 2, 2, 1)"}),
    ("BilinearSampler", {"data": RNG.randn(1, 2, 3, 3), "grid": RNG.uniform(-1.1, 1.1, (1, 2, 2, 2))}, {}),
    ("GridGenerator", {"data": RNG.randn(2, 6)}, {"transform_type": "affine", "target_shape": "(2, 3)"}),
    ("GridGenerator", {"data": RNG.randn(1, 2, 2, 3)}, {"transform_type": "warp"}),
    ("SpatialTransformer", {"data": RNG.randn(1, 1, 3, 3), "loc": np.array([[0.8, 0.1, 0.05, -0.1, 0.9, 0.1]])},
     {"target_shape": "(2, 2)", "transform_type": "affine", "sampler_type": "bilinear"}),
    ("LeakyReLU", {"data": away_from_zero(RNG, 3, 4)}, {"act_type": "leaky", "slope": "0.3"}),
    ("LeakyReLU", {"data": away_from_zero(RNG, 2, 3, 2), "gamma": RNG.randn(3)}, {"act_type": "prelu"}),
    ("LeakyReLU", {"data": away_from_zero(RNG, 3, 4)}, {"act_type": "elu", "slope": "0.5"}),
    ("LeakyReLU", {"data": RNG.randn(3, 4)}, {"act_type": "gelu"}),
    ("SoftmaxActivation", {"data": RNG.randn(2, 4)}, {}),
    ("SoftmaxActivation", {"data": RNG.randn(2, 3, 2)}, {"mode": "channel"}),
    ("Pooling", {"data": RNG.randn(1, 1, 5, 5)}, {"kernel": "(3, 3)", "stride": "(2, 2)", "pool_type": "avg",
                                                  "pooling_convention": "full"}),
]


@pytest.mark.parametrize("op, inputs, attrs", GRADIENT_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(GRADIENT_CASES)])
def test_finite_difference_gradient(op, inputs, attrs):
    numeric_gradient_check(op, inputs, attrs)


def test_roi_gradients_by_finite_differences():
    rng = np.random.RandomState(3)
    data = rng.permutation(2 * 2 * 5 * 5).reshape(2, 2, 5, 5) / 10.0   # distinct values: a unique max
    rois = np.array([[0, 0.4, 0.6, 3.2, 4.1], [1, 1.0, 0.0, 4.0, 2.5]])
    numeric_gradient_check("ROIPooling", {"data": data, "rois": rois}, {"pooled_size": "(2, 2)",
                                                                         "spatial_scale": "1.0"}, wrt=["data"])
    numeric_gradient_check("_contrib_ROIAlign", {"data": rng.randn(1, 2, 5, 5), "rois": rois[:1] * [0, 1, 1, 1, 1]},
                           {"pooled_size": "(2, 2)", "spatial_scale": "1.0", "sample_ratio": "2"}, wrt=["data"])


def test_embedding_weight_gradient_accumulates_and_data_gradient_is_refused():
    weight = np.arange(12.0).reshape(4, 3)
    data = np.array([[1, 1, 3]], np.float64)
    outputs = numeric_gradient_check("Embedding", {"data": data, "weight": weight},
                                     {"input_dim": "4", "output_dim": "3", "dtype": "float64"}, wrt=["weight"])
    np.testing.assert_array_equal(outputs[0], weight[[1, 1, 3]][None])
    executor = bind(symbol_for("Embedding", ["data", "weight"], {"input_dim": "4", "output_dim": "3"}),
                    {"data": data.astype(np.float32), "weight": weight.astype(np.float32)})
    executor.forward(is_train=True)
    with pytest.raises(mx.MXNetError, match="Embedding.*'data'"):
        executor.backward(mx.nd.ones((1, 3, 3)))


def test_embedding_clips_and_truncates_indices():
    weight = mx.nd.array(np.arange(12).reshape(4, 3))
    output = mx.nd.Embedding(mx.nd.array([[-1, 5, 1.7, 2.2]]), weight, input_dim=4, output_dim=3)
    np.testing.assert_array_equal(output.asnumpy()[0], np.arange(12).reshape(4, 3)[[0, 3, 1, 2]])


# -- MXNet behaviours reproduced on purpose --------------------------------------------------------
def test_selu_gradient_is_mxnet_formula():
    data = np.array([[-1.5, -0.2, 0.3, 2.0]], np.float32)
    executor = bind(symbol_for("LeakyReLU", ["data"], {"act_type": "selu"}), {"data": data})
    output = executor.forward(is_train=True)[0].asnumpy()
    executor.backward(mx.nd.ones((1, 4)))
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    expected = np.where(data > 0, scale, scale * (output + alpha))
    np.testing.assert_allclose(executor.grad_dict["data"].asnumpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(output, np.where(data > 0, scale * data, scale * alpha * np.expm1(data)), rtol=1e-6)


def test_average_pooling_full_gradient_rule():
    """float32 'full' avg pooling: the gradient divides by the kernel size when the output
    passes oneDNN's symmetric test (MXNet's oneDNN backward), else follows the forward."""
    data = np.ones((1, 1, 7), np.float32)
    executor = bind(symbol_for("Pooling", ["data"], {"kernel": "(2,)", "stride": "(2,)", "pool_type": "avg",
                                                     "pooling_convention": "full"}), {"data": data})
    output = executor.forward(is_train=True)[0].asnumpy()
    np.testing.assert_allclose(output, np.ones((1, 1, 4)))            # the last window holds one element
    executor.backward(mx.nd.ones((1, 1, 4)))
    np.testing.assert_allclose(executor.grad_dict["data"].asnumpy(), np.full((1, 1, 7), 0.5))
    # (9 + 0 - 4) / 3 is not whole: no oneDNN, the last window (3 elements) divides by 3
    data = np.ones((1, 1, 9), np.float32)
    executor = bind(symbol_for("Pooling", ["data"], {"kernel": "(4,)", "stride": "(3,)", "pool_type": "avg",
                                                     "pooling_convention": "full"}), {"data": data})
    executor.forward(is_train=True)
    executor.backward(mx.nd.array([[[0, 0, 1]]]))
    np.testing.assert_allclose(executor.grad_dict["data"].asnumpy()[0, 0], [0] * 6 + [1 / 3] * 3, rtol=1e-6)


def test_multibox_detection_ignores_background_id_like_mxnet():
    cls_prob = mx.nd.array([[[0.1, 0.8], [0.6, 0.1], [0.3, 0.1]]])
    loc_pred = mx.nd.zeros((1, 8))
    anchor = mx.nd.array([[[0.1, 0.1, 0.3, 0.3], [0.5, 0.5, 0.9, 0.9]]])
    first = mx.nd._contrib_MultiBoxDetection(cls_prob, loc_pred, anchor, threshold=0.2).asnumpy()
    second = mx.nd._contrib_MultiBoxDetection(cls_prob, loc_pred, anchor, threshold=0.2, background_id=1).asnumpy()
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(first[0, 0], [0, 0.6, 0.1, 0.1, 0.3, 0.3], rtol=1e-6)
    np.testing.assert_allclose(first[0, 1], [-1] * 6)          # anchor 1: best foreground score 0.1 < 0.2


# -- RNN options MXNet's CPU build ignored -----------------------------------------------------------
def run_rnn(values, **attrs):
    names = list(values)
    executor = bind(symbol_for("RNN", names, attrs), {n: np.asarray(v, np.float64) for n, v in values.items()},
                    "null")
    return [o.asnumpy() for o in executor.forward(is_train=False)]


def test_rnn_sequence_length_matches_truncated_sequences():
    values = rnn_inputs("lstm", 1, True, seq=4, batch=2)
    lengths = np.array([2, 4], np.float64)
    attrs = dict(state_size=2, num_layers=1, mode="lstm", bidirectional=True, state_outputs=True)
    masked = run_rnn(dict(values, sequence_length=lengths), use_sequence_length=True, **attrs)
    for item, length in enumerate(lengths.astype(int)):
        single = {k: (v[:length, item:item + 1] if k == "data" else
                      v[:, item:item + 1] if k.startswith("state") else v) for k, v in values.items()}
        reference = run_rnn(single, **attrs)
        np.testing.assert_allclose(masked[0][:length, item], reference[0][:, 0], rtol=1e-10)
        np.testing.assert_array_equal(masked[0][length:, item], 0)
        np.testing.assert_allclose(masked[1][:, item], reference[1][:, 0], rtol=1e-10)
        np.testing.assert_allclose(masked[2][:, item], reference[2][:, 0], rtol=1e-10)


def test_rnn_lstm_state_clip_bounds_the_cell():
    values = rnn_inputs("lstm", 1, False, seq=4)
    values["parameters"] = values["parameters"] * 6
    attrs = dict(state_size=2, num_layers=1, mode="lstm", state_outputs=True)
    free = run_rnn(values, **attrs)
    clipped = run_rnn(values, lstm_state_clip_min=-0.2, lstm_state_clip_max=0.2, **attrs)
    assert np.abs(free[2]).max() > 0.2
    assert np.abs(clipped[2]).max() <= 0.2 + 1e-12
    assert np.abs(clipped[0]).max() <= math.tanh(0.2) + 1e-12
    # the unclipped step-by-step path equals the fused kernel
    same = run_rnn(values, lstm_state_clip_min=-100.0, lstm_state_clip_max=100.0, **attrs)
    for a, b in zip(free, same):
        np.testing.assert_allclose(a, b, rtol=1e-10)



def test_rnn_parameters_gradient_is_torch_lstm_gradient_in_mxnet_packed_order():
    # the gradient reaching MXNet's flat 'parameters' vector, against torch.nn.LSTM's own
    # per-tensor gradients packed in MXNet's order (weights per layer and direction, then biases)
    import torch
    layers, hidden, features = 2, 3, 4
    reference = torch.nn.LSTM(features, hidden, layers, bidirectional=True).double()
    suffixes = ["", "_reverse"]
    weights = [getattr(reference, f"{kind}_l{layer}{suffix}") for layer in range(layers) for suffix in suffixes
               for kind in ("weight_ih", "weight_hh")]
    biases = [getattr(reference, f"{kind}_l{layer}{suffix}") for layer in range(layers) for suffix in suffixes
              for kind in ("bias_ih", "bias_hh")]
    flat = torch.cat([t.detach().reshape(-1) for t in weights + biases])
    data = torch.linspace(-1, 1, 5 * 2 * features, dtype=torch.float64).reshape(5, 2, features)
    state = torch.zeros(2 * layers, 2, hidden, dtype=torch.float64)
    head = torch.linspace(0.5, 1.5, 5 * 2 * 2 * hidden, dtype=torch.float64).reshape(5, 2, 2 * hidden)
    output, _ = reference(data, (state, state))
    (output * head).sum().backward()
    expected = torch.cat([t.grad.reshape(-1) for t in weights + biases]).numpy()
    parameters = mx.nd.array(flat.numpy(), dtype=np.float64)
    parameters.attach_grad()
    with mx.autograd.record():
        result = mx.nd.RNN(mx.nd.array(data.numpy(), dtype=np.float64), parameters,
                           mx.nd.array(state.numpy(), dtype=np.float64), mx.nd.array(state.numpy(), dtype=np.float64),
                           state_size=hidden, num_layers=layers, mode="lstm", bidirectional=True)
    result.backward(mx.nd.array(head.numpy(), dtype=np.float64))
    np.testing.assert_allclose(result.asnumpy(), output.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(parameters.grad.asnumpy(), expected, rtol=1e-10, atol=1e-12)

def test_rnn_dropout_only_in_training_and_projection_refused():
    values = {k: v.astype(np.float32) for k, v in rnn_inputs("gru", 2, False).items()}
    symbol = symbol_for("RNN", list(values), dict(state_size=2, num_layers=2, mode="gru", p=0.5))
    executor = bind(symbol, values, "null")
    inference = executor.forward(is_train=False)[0].asnumpy()
    np.testing.assert_allclose(executor.forward(is_train=False)[0].asnumpy(), inference)
    mx.random.seed(1)
    train = [executor.forward(is_train=True)[0].asnumpy() for _ in range(2)]
    assert not np.allclose(train[0], train[1])
    projected = mx.sym.RNN(mx.sym.var("data"), state_size=3, num_layers=1, mode="lstm", projection_size=2,
                           state_outputs=True, name="r")
    arg_shapes, out_shapes, _ = projected.infer_shape(data=(5, 2, 4))
    assert arg_shapes[1:] == [(4 * 3 * (4 + 2) + 8 * 3 + 2 * 3,), (1, 2, 2), (1, 2, 3)]
    assert out_shapes == [(5, 2, 2), (1, 2, 2), (1, 2, 3)]
    with pytest.raises(mx.MXNetError, match="projection_size"):
        mx.nd.RNN(mx.nd.ones((5, 2, 4)), mx.nd.ones(arg_shapes[1]), mx.nd.ones((1, 2, 2)), mx.nd.ones((1, 2, 3)),
                  state_size=3, num_layers=1, mode="lstm", projection_size=2)


def test_prelu_gamma_gradient_is_the_derivative_after_another_operator():
    """Deliberate difference: MXNet 1.9.1's executor gives gamma * sum(g * x * (x <= 0)) when
    the prelu input is an operator output (it is right for a variable input and imperatively)."""
    rng = np.random.RandomState(4)
    x = rng.randn(2, 3, 2, 2).astype(np.float32)
    gamma = np.array([0.2, 0.5, 2.0], np.float32)
    head = rng.randn(2, 3, 2, 2).astype(np.float32)
    net = mx.sym.LeakyReLU(mx.sym.var("data") * 2, act_type="prelu", name="p")
    assert json.loads(net.tojson())["nodes"][2]["attrs"]["__init__"] == '["Constant", {"value": 0.25}]'
    executor = bind(net, {"data": x, "p_gamma": gamma})
    executor.forward(is_train=True)
    executor.backward(mx.nd.array(head))
    scaled = 2 * x
    np.testing.assert_allclose(executor.grad_dict["p_gamma"].asnumpy(),
                               (head * scaled * (scaled <= 0)).sum(axis=(0, 2, 3)), rtol=1e-5)
    np.testing.assert_allclose(executor.grad_dict["data"].asnumpy(),
                               2 * head * np.where(x > 0, 1, gamma[None, :, None, None]), rtol=1e-6)


def test_rrelu_random_in_training_mean_slope_in_inference():
    data = -np.ones((2, 50), np.float32)
    symbol = symbol_for("LeakyReLU", ["data"], {"act_type": "rrelu", "lower_bound": "0.1", "upper_bound": "0.3"})
    assert symbol.list_outputs() == ["op_output", "op_mask"]
    executor = bind(symbol, {"data": data})
    output = executor.forward(is_train=False)[0].asnumpy()
    np.testing.assert_allclose(output, -0.2, rtol=1e-6)
    output, mask = [o.asnumpy() for o in executor.forward(is_train=True)]
    assert mask.min() >= 0.1 and mask.max() <= 0.3 and mask.std() > 0.01
    np.testing.assert_allclose(output, -mask, rtol=1e-6)
    executor.backward([mx.nd.ones((2, 50)), mx.nd.zeros((2, 50))])
    np.testing.assert_allclose(executor.grad_dict["data"].asnumpy(), mask, rtol=1e-6)


# -- dtypes ----------------------------------------------------------------------------------------
DTYPE_CASES = [
    ("InstanceNorm", {"data": (2, 3, 4), "gamma": (3,), "beta": (3,)}, {}),
    ("LayerNorm", {"data": (2, 3, 4), "gamma": (4,), "beta": (4,)}, {}),
    ("GroupNorm", {"data": (2, 4, 4), "gamma": (2,), "beta": (2,)}, {"num_groups": "2"}),
    ("L2Normalization", {"data": (2, 3, 4)}, {}),
    ("LRN", {"data": (2, 3, 4, 4)}, {"nsize": "3"}),
    ("Deconvolution", {"data": (1, 2, 3, 3), "weight": (2, 2, 3, 3)}, {"kernel": "(3, 3)", "num_filter": "2"}),
    ("UpSampling", {"data": (1, 2, 3, 3)}, {"scale": "2", "sample_type": "nearest", "num_args": "1"}),
    ("UpSampling", {"data": (1, 2, 3, 3), "weight": (2, 1, 4, 4)},
     {"scale": "2", "sample_type": "bilinear", "num_filter": "2", "num_args": "1"}),
    ("Crop", {"data": (1, 2, 4, 4)}, {"num_args": "1", "h_w": "(2, 2)"}),
    ("Pad", {"data": (1, 2, 4, 4)}, {"mode": "reflect", "pad_width": "(0, 0, 0, 0, 1, 1, 1, 1)"}),
    ("BilinearSampler", {"data": (1, 2, 4, 4), "grid": (1, 2, 3, 3)}, {}),
    ("GridGenerator", {"data": (1, 6)}, {"transform_type": "affine", "target_shape": "(3, 3)"}),
    ("SpatialTransformer", {"data": (1, 2, 4, 4), "loc": (1, 6)},
     {"transform_type": "affine", "sampler_type": "bilinear", "target_shape": "(3, 3)"}),
    ("ROIPooling", {"data": (1, 2, 4, 4), "rois": None}, {"pooled_size": "(2, 2)", "spatial_scale": "1"}),
    ("_contrib_ROIAlign", {"data": (1, 2, 4, 4), "rois": None}, {"pooled_size": "(2, 2)", "spatial_scale": "1"}),
    ("LeakyReLU", {"data": (2, 3)}, {"act_type": "gelu"}),
    ("LeakyReLU", {"data": (2, 3), "gamma": (3,)}, {"act_type": "prelu"}),
    ("SoftmaxActivation", {"data": (2, 3)}, {}),
    ("RNN", {"data": (3, 2, 3), "parameters": (144,), "state": (1, 2, 4), "state_cell": (1, 2, 4)},
     {"state_size": "4", "num_layers": "1", "mode": "lstm"}),
    ("_contrib_MultiBoxPrior", {"data": (1, 2, 3, 3)}, {"sizes": "(0.5, 0.3)"}),
]


@pytest.mark.parametrize("dtype", [np.float16, np.float64])
@pytest.mark.parametrize("op, shapes, attrs", DTYPE_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(DTYPE_CASES)])
def test_dtype_smoke(op, shapes, attrs, dtype):
    rng = np.random.RandomState(5)
    values = {}
    for name, shape in shapes.items():
        values[name] = np.array([[0, 0.5, 0.2, 3.1, 2.7]], np.float32) if shape is None else \
            rng.uniform(-1, 1, shape).astype(np.float32)
    reference = bind(symbol_for(op, list(values), attrs), values, "null").forward()[0].asnumpy()
    cast = {n: v.astype(dtype) for n, v in values.items()}
    output = bind(symbol_for(op, list(values), attrs), cast, "null").forward()[0]
    assert output.dtype == dtype
    tolerance = 1e-2 if dtype == np.float16 else 1e-5
    np.testing.assert_allclose(output.asnumpy().astype(np.float64), reference, rtol=tolerance, atol=tolerance)


# -- imperative against symbolic -------------------------------------------------------------------
@pytest.mark.parametrize("op, shapes, attrs", DTYPE_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(DTYPE_CASES)])
def test_imperative_equals_symbolic(op, shapes, attrs):
    rng = np.random.RandomState(6)
    values = {name: (np.array([[0, 0.5, 0.2, 3.1, 2.7]], np.float32) if shape is None else
                     rng.uniform(-1, 1, shape).astype(np.float32)) for name, shape in shapes.items()}
    symbolic = bind(symbol_for(op, list(values), attrs), values, "null").forward()
    imperative = getattr(mx.nd, op)(*[mx.nd.array(v) for v in values.values()], **attrs)
    imperative = imperative if isinstance(imperative, list) else [imperative]
    assert len(imperative) == len(symbolic)
    for a, b in zip(imperative, symbolic):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


# -- shape inference -------------------------------------------------------------------------------
def test_inferred_parameter_shapes():
    data = mx.sym.var("data")
    cases = [
        (mx.sym.Deconvolution(data, kernel=(3, 3), num_filter=4, num_group=2, stride=(2, 2), pad=(1, 1),
                              adj=(1, 1), no_bias=False, name="d"),
         {"data": (2, 6, 5, 5)}, [(2, 6, 5, 5), (6, 2, 3, 3), (4,)], [(2, 4, 10, 10)]),
        (mx.sym.GroupNorm(data, num_groups=3, name="g"), {"data": (2, 6, 4)}, [(2, 6, 4), (3,), (3,)], [(2, 6, 4)]),
        (mx.sym.LayerNorm(data, axis=1, name="l"), {"data": (2, 5, 4)}, [(2, 5, 4), (5,), (5,)], [(2, 5, 4)]),
        (mx.sym.LeakyReLU(data, act_type="prelu", name="p"), {"data": (2, 5, 4)}, [(2, 5, 4), (5,)], [(2, 5, 4)]),
        (mx.sym.Embedding(data, input_dim=7, output_dim=3, name="e"), {"data": (2, 4)}, [(2, 4), (7, 3)],
         [(2, 4, 3)]),
        (mx.sym.UpSampling(data, scale=3, sample_type="bilinear", num_filter=2, name="u"), {"data": (1, 2, 4, 4)},
         [(1, 2, 4, 4), (2, 1, 5, 5)], [(1, 2, 12, 12)]),
        (mx.sym.SpatialTransformer(data, target_shape=(5, 6), transform_type="affine", sampler_type="bilinear",
                                   name="s"), {"data": (2, 3, 8, 8)}, [(2, 3, 8, 8), (2, 6)], [(2, 3, 5, 6)]),
        (mx.sym.RNN(data, state_size=3, num_layers=2, mode="gru", name="r"), {"data": (5, 2, 4)},
         [(5, 2, 4), (153,), (2, 2, 3)], [(5, 2, 3)]),
    ]
    for symbol, given, arguments, outputs in cases:
        arg_shapes, out_shapes, _ = symbol.infer_shape(**given)
        assert arg_shapes == arguments, symbol.list_arguments()
        assert out_shapes == outputs


@pytest.mark.parametrize("build, given, words", [
    (lambda d: mx.sym.Deconvolution(d, kernel=(3, 3), num_filter=2, name="dc"),
     {"data": (1, 4, 5, 5), "dc_weight": (3, 2, 3, 3)}, ["Deconvolution", "weight", "(3, 2, 3, 3)", "(4, 2, 3, 3)"]),
    (lambda d: mx.sym.LayerNorm(d, name="ln"), {"data": (2, 5), "ln_gamma": (4,)},
     ["LayerNorm", "gamma", "(4,)", "(5,)"]),
    (lambda d: mx.sym.RNN(d, state_size=3, num_layers=1, mode="lstm", name="r"),
     {"data": (4, 2, 3), "r_state": (1, 3, 3)}, ["RNN", "state", "(1, 3, 3)", "(1, 2, 3)"]),
    (lambda d: mx.sym.Embedding(d, input_dim=5, output_dim=2, name="e"), {"data": (3,), "e_weight": (5, 3)},
     ["Embedding", "weight", "(5, 3)", "(5, 2)"]),
    (lambda d: mx.sym.GroupNorm(d, num_groups=3, name="g"), {"data": (2, 4, 3)}, ["GroupNorm", "num_groups=3", "(2, 4, 3)"]),
    (lambda d: mx.sym.Crop(d, num_args=1, h_w=(4, 4), offset=(2, 2), name="c"), {"data": (1, 1, 5, 5)},
     ["Crop", "(4, 4)", "(2, 2)", "(1, 1, 5, 5)"]),
    (lambda d: mx.sym.Pad(d, mode="constant", pad_width=(1, 0, 0, 0, 1, 1, 1, 1), name="p"), {"data": (1, 1, 3, 3)},
     ["Pad", "pad_width"]),
    (lambda d: mx.sym.Deconvolution(d, kernel=(3,), stride=(2,), target_shape=(20,), num_filter=1, name="t"),
     {"data": (1, 1, 4)}, ["Deconvolution", "target_shape", "(20,)"]),
    (lambda d: mx.sym.InstanceNorm(d, name="i"), {"data": (2, 4)}, ["InstanceNorm", "(2, 4)"]),
    (lambda d: mx.sym.ROIPooling(d, mx.sym.var("rois"), pooled_size=(2, 2), spatial_scale=1.0, name="r"),
     {"data": (1, 2, 4, 4), "rois": (3, 4)}, ["ROIPooling", "rois", "(3, 4)"]),
])
def test_shape_errors_name_operator_argument_and_shapes(build, given, words):
    symbol = build(mx.sym.var("data"))
    with pytest.raises(mx.MXNetError) as error:
        symbol.infer_shape(**given)
    message = str(error.value)
    for word in words:
        assert word in message, message


def test_attribute_errors():
    with pytest.raises(mx.MXNetError, match="LRN.*odd"):
        mx.sym.LRN(mx.sym.var("data"), nsize=4)
    with pytest.raises(mx.MXNetError, match="Deconvolution.*adj"):
        mx.sym.Deconvolution(mx.sym.var("data"), kernel=(3, 3), num_filter=2, adj=(1, 1)).infer_shape(
            data=(1, 1, 3, 3))
    with pytest.raises(mx.MXNetError, match="SoftmaxActivation.*3 dimensions"):
        mx.sym.SoftmaxActivation(mx.sym.var("data"), mode="channel").infer_shape(data=(2, 3))
    with pytest.raises(mx.MXNetError, match="UpSampling.*integer factor"):
        mx.sym.UpSampling(mx.sym.var("a"), mx.sym.var("b"), scale=2, sample_type="nearest").infer_shape(
            a=(1, 1, 4, 4), b=(1, 1, 3, 3))


def test_input_variables_get_mxnet_initializer_attributes():
    upsampled = mx.sym.UpSampling(mx.sym.var("data"), scale=2, sample_type="bilinear", num_filter=3, name="up")
    nodes = {n["name"]: n for n in json.loads(upsampled.tojson())["nodes"]}
    assert nodes["up_weight"]["attrs"]["__init__"] == '["bilinear", {}]'
    assert "attrs" not in nodes["data"]
    nearest = mx.sym.UpSampling(mx.sym.var("a"), mx.sym.var("b"), scale=2, sample_type="nearest")
    nodes = {n["name"]: n for n in json.loads(nearest.tojson())["nodes"]}
    assert nodes["b"]["attrs"] == {"__init__": '["bilinear", {}]'}      # MXNet marks input 1 whatever the type
    assert "attrs" not in nodes["a"]


def test_json_round_trip_of_layer_ops():
    data = mx.sym.var("data")
    net = mx.sym.Deconvolution(data, kernel=(2, 2), stride=(2, 2), num_filter=3, name="up")
    net = mx.sym.LeakyReLU(net, act_type="prelu", name="act")
    net = mx.sym.GroupNorm(net, num_groups=3, name="gn")
    net = mx.sym._contrib_ROIAlign(net, mx.sym.var("rois"), pooled_size=(2, 2), spatial_scale=0.5, name="align")
    loaded = mx.sym.load_json(net.tojson())
    assert loaded.tojson() == net.tojson()
    assert loaded.list_arguments() == ["data", "up_weight", "act_gamma", "gn_gamma", "gn_beta", "rois"]
    assert loaded.infer_shape(data=(1, 2, 3, 3), rois=(4, 5))[1] == [(4, 3, 2, 2)]


def test_prelu_gamma_of_several_axes_covers_the_leading_data_axes():
    # values printed by MXNet 1.9.1: data (2, 2, 1, 2), gamma (2, 2) broadcast over the last axes
    data = mx.nd.array([[[[-1.0, 2.0]], [[-3.0, 0.5]]], [[[1.0, -2.0]], [[-0.5, -1.0]]]])
    gamma = mx.nd.array([[0.1, 0.2], [0.3, 0.4]])
    grad_data, grad_gamma = mx.nd.zeros(data.shape), mx.nd.zeros(gamma.shape)
    net = mx.sym.LeakyReLU(data=mx.sym.Variable("x"), gamma=mx.sym.Variable("gamma"), act_type="prelu")
    exe = net.bind(mx.cpu(), args={"x": data, "gamma": gamma}, args_grad={"x": grad_data, "gamma": grad_gamma})
    out = exe.forward(is_train=True)[0]
    exe.backward(mx.nd.ones(data.shape))
    np.testing.assert_allclose(out.asnumpy(), [[[[-0.1, 2.0]], [[-0.6, 0.5]]], [[[1.0, -0.6]], [[-0.2, -0.4]]]],
                               rtol=1e-6)
    np.testing.assert_allclose(grad_data.asnumpy(), [[[[0.1, 1.0]], [[0.2, 1.0]]], [[[1.0, 0.3]], [[0.4, 0.4]]]],
                               rtol=1e-6)
    np.testing.assert_allclose(grad_gamma.asnumpy(), [[-1.0, -3.0], [-2.0, -1.5]], rtol=1e-6)


def test_dropout_with_p_one_is_nan_in_training_as_mxnet():
    # MXNet 1.9.1: mask 0 * (1 / 0) gives NaN outputs and gradients; inference is the identity
    x = mx.nd.array([[1., -2., 0.]])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Dropout(x, p=1.0)
    y.backward()
    assert np.isnan(y.asnumpy()).all() and np.isnan(x.grad.asnumpy()).all()
    assert mx.nd.Dropout(x, p=1.0).asnumpy().tolist() == [[1., -2., 0.]]


@pytest.mark.parametrize("shape, kernel, stride, pad, dilate, no_bias, dtype", [
    ((2, 5, 4, 5), (3, 2), (2, 2), (1, 0), (1, 1), True, "float64"),     # 2x2 output, strided
    ((3, 6, 2, 2), (1, 1), (1, 1), (0, 0), (1, 1), False, "float32"),    # 1x1 kernel, 4 positions
    ((2, 4, 5, 5), (3, 3), (1, 1), (1, 1), (3, 3), False, "float64"),    # dilated: a 1x1 output
    ((2, 4, 1, 1), (3, 3), (1, 1), (1, 1), (1, 1), False, "float32"),    # a ResNet's last stage on small images
])
def test_small_output_convolution_gradients_match_torch_autograd(shape, kernel, stride, pad, dilate, no_bias, dtype,
                                                                 monkeypatch):
    """Convolutions with at most four output positions take their weight gradient as one
    matrix product of the unfolded input (ops/convolution.py): data, weight and bias gradients
    are torch autograd's of F.conv2d, to float rounding."""
    import torch
    from mxtorch import autograd
    from mxtorch.ops import convolution
    calls = []
    apply = convolution._SmallOutputConv2d.apply
    monkeypatch.setattr(convolution._SmallOutputConv2d, "apply", lambda *args: calls.append(1) or apply(*args))
    rng = np.random.RandomState(3)
    x, w, b = (rng.uniform(-1, 1, s).astype(dtype) for s in (shape, (7, shape[1]) + kernel, (7,)))
    arrays = [mx.nd.array(v, dtype=dtype) for v in (x, w, b)]
    for array in arrays:
        array.attach_grad()
    with autograd.record():
        out = mx.nd.Convolution(arrays[0], arrays[1], None if no_bias else arrays[2], kernel=kernel, stride=stride,
                                pad=pad, dilate=dilate, num_filter=7, no_bias=no_bias)
        (out * out).sum().backward()
    assert calls == [1]
    tensors = [torch.tensor(v, requires_grad=True) for v in (x, w, b)]
    expected = torch.conv2d(tensors[0], tensors[1], None if no_bias else tensors[2], stride, pad, dilate)
    (expected * expected).sum().backward()
    tolerance = 1e-12 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(out.asnumpy(), expected.detach().numpy(), rtol=tolerance, atol=tolerance)
    for array, tensor in zip(arrays, tensors[:2] if no_bias else tensors):
        scale = float(np.abs(tensor.grad.numpy()).max())
        np.testing.assert_allclose(array.grad.asnumpy(), tensor.grad.numpy(), rtol=0, atol=tolerance * scale)


def test_small_output_convolution_second_order_gradient():
    """The small-output weight gradient is itself differentiable (create_graph): the gradient of
    sum(d loss / d weight) with respect to the data is torch autograd's."""
    import torch
    from mxtorch import autograd
    rng = np.random.RandomState(4)
    x, w = rng.uniform(-1, 1, (2, 3, 2, 2)), rng.uniform(-1, 1, (4, 3, 3, 3))
    data, weight = mx.nd.array(x, dtype="float64"), mx.nd.array(w, dtype="float64")
    data.attach_grad()
    weight.attach_grad()
    with autograd.record():
        out = mx.nd.Convolution(data, weight, kernel=(3, 3), pad=(1, 1), num_filter=4, no_bias=True)
        grad_weight = autograd.grad((out * out).sum(), [weight], create_graph=True, retain_graph=True)[0]
        grad_weight.sum().backward()
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    yt = torch.conv2d(xt, wt, None, 1, 1)
    (gwt,) = torch.autograd.grad((yt * yt).sum(), [wt], create_graph=True)
    gwt.sum().backward()
    np.testing.assert_allclose(data.grad.asnumpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
