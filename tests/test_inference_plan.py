"""The inference plan (executor/inference.py) computes what the plain graph computes.

The reference is the same symbol bound with gradients (so it runs the plain
per-operator path) and run with ``forward(is_train=False)``; the inference
binding folds BatchNorm into the layers before it and, under
``MXTORCH_COMPILE=1``, runs a frozen TorchScript graph.
"""
import numpy as np
import pytest

import mxtorch as mx
from mxtorch.executor import inference

MODES = ["0", "1", "auto"]


def _network():
    """conv -> BN -> relu (foldable), pre-activation BN -> conv, conv with bias -> BN(fix_gamma),
    FullyConnected -> BN (foldable), a residual add, and a second, non-loss output."""
    data = mx.sym.Variable("data")
    x = mx.sym.Convolution(data, num_filter=6, kernel=(3, 3), pad=(1, 1), no_bias=True, name="c1")
    x = mx.sym.BatchNorm(x, fix_gamma=False, eps=2e-5, name="b1")
    x = mx.sym.Activation(x, act_type="relu")
    y = mx.sym.BatchNorm(x, fix_gamma=False, name="pre")
    y = mx.sym.Convolution(y, num_filter=6, kernel=(3, 3), pad=(1, 1), name="c2")
    y = mx.sym.BatchNorm(y, fix_gamma=True, name="b2")
    x = mx.sym.Activation(x + y, act_type="relu")
    x = mx.sym.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="max")
    x = mx.sym.FullyConnected(mx.sym.Flatten(x), num_hidden=7, name="f1")
    x = mx.sym.BatchNorm(x, fix_gamma=False, name="b3")
    features = mx.sym.Activation(x, act_type="tanh", name="features")
    scores = mx.sym.FullyConnected(features, num_hidden=4, name="f2")
    return mx.sym.Group([mx.sym.SoftmaxOutput(scores, name="softmax"), features])


def _random_params(symbol, data_shape, seed):
    rng = np.random.RandomState(seed)
    arg_shapes, _, aux_shapes = symbol.infer_shape(data=data_shape)
    args = {name: mx.nd.array(rng.normal(0, 0.5, shape)) for name, shape in zip(symbol.list_arguments(), arg_shapes)
            if name not in ("data", "softmax_label")}
    aux = {}
    for name, shape in zip(symbol.list_auxiliary_states(), aux_shapes):
        aux[name] = mx.nd.array(rng.uniform(0.5, 2.0, shape) if "var" in name else rng.normal(0, 0.3, shape))
    return args, aux


def _modules(data_shape, args, aux):
    symbol = _network()
    plain = mx.mod.Module(symbol, label_names=["softmax_label"])
    plain.bind(data_shapes=[("data", data_shape)], label_shapes=[("softmax_label", (data_shape[0],))])
    plain.set_params(args, aux)
    predict = mx.mod.Module(symbol, label_names=["softmax_label"])
    predict.bind(data_shapes=[("data", data_shape)], for_training=False)
    predict.set_params(args, aux)
    return plain, predict


def _outputs(module, data, is_train=False):
    module.forward(mx.io.DataBatch(data=[mx.nd.array(data)], label=[mx.nd.zeros((data.shape[0],))]),
                   is_train=is_train)
    return [out.asnumpy() for out in module.get_outputs()]


def _assert_same(got, expected):
    assert len(got) == len(expected)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_folded_and_traced_plan_matches_the_plain_graph(monkeypatch, mode):
    monkeypatch.setenv("MXTORCH_COMPILE", mode)
    shape = (5, 3, 8, 8)
    args, aux = _random_params(_network(), shape, 0)
    plain, predict = _modules(shape, args, aux)
    plan = predict._exec_group.execs[0]._inference
    assert plan is not None and plain._exec_group.execs[0]._inference is None
    assert len(plan._folds) == 3        # c1 <- b1, c2 <- b2, f1 <- b3; 'pre' follows a relu
    if inference._fuse_convolutions():
        # c1 (+ b1) + relu as one oneDNN convolution; c2 (+ b2) feeds the addition
        assert [entry.op.name for entry in plan._entries].count("_fused_convolution") == 2
    rng = np.random.RandomState(1)
    for _ in range(3):
        data = rng.rand(*shape).astype(np.float32)
        _assert_same(_outputs(predict, data), _outputs(plain, data))
    assert (plan._traced is not None) == (mode != "0")


@pytest.mark.parametrize("mode", ["0", "1"])
def test_plan_refolds_after_set_params_and_in_place_changes(monkeypatch, mode):
    monkeypatch.setenv("MXTORCH_COMPILE", mode)
    shape = (4, 3, 8, 8)
    args, aux = _random_params(_network(), shape, 2)
    plain, predict = _modules(shape, args, aux)
    data = np.random.RandomState(3).rand(*shape).astype(np.float32)
    before = _outputs(predict, data)
    _outputs(predict, data)
    new_args, new_aux = _random_params(_network(), shape, 4)
    predict.set_params(new_args, new_aux)
    plain.set_params(new_args, new_aux)
    after = _outputs(predict, data)
    _assert_same(after, _outputs(plain, data))
    assert not np.allclose(after[0], before[0])
    # an in-place write into one moving statistic (what a training module sharing aux states does)
    executor = predict._exec_group.execs[0]
    executor.aux_dict["b1_moving_mean"][:] = 0.7
    plain._exec_group.execs[0].aux_dict["b1_moving_mean"][:] = 0.7
    _assert_same(_outputs(predict, data), _outputs(plain, data))
    # and one into a weight through a replaced tensor
    executor.arg_dict["c1_weight"]._tensor = executor.arg_dict["c1_weight"]._tensor * 2
    plain._exec_group.execs[0].arg_dict["c1_weight"][:] = executor.arg_dict["c1_weight"]
    _assert_same(_outputs(predict, data), _outputs(plain, data))


@pytest.mark.parametrize("mode", ["0", "1"])
def test_plan_after_reshape(monkeypatch, mode):
    monkeypatch.setenv("MXTORCH_COMPILE", mode)
    args, aux = _random_params(_network(), (4, 3, 8, 8), 5)
    plain, predict = _modules((4, 3, 8, 8), args, aux)
    _outputs(predict, np.ones((4, 3, 8, 8), np.float32))
    predict.reshape(data_shapes=[("data", (2, 3, 8, 8))])
    plain.reshape(data_shapes=[("data", (2, 3, 8, 8))], label_shapes=[("softmax_label", (2,))])
    data = np.random.RandomState(6).rand(2, 3, 8, 8).astype(np.float32)
    _assert_same(_outputs(predict, data), _outputs(plain, data))
    _assert_same(_outputs(predict, data), _outputs(plain, data))


@pytest.mark.parametrize("mode", ["0", "1"])
def test_is_train_on_an_inference_binding_uses_batch_statistics(monkeypatch, mode):
    monkeypatch.setenv("MXTORCH_COMPILE", mode)
    shape = (6, 3, 8, 8)
    args, aux = _random_params(_network(), shape, 7)
    plain, predict = _modules(shape, args, aux)
    data = np.random.RandomState(8).rand(*shape).astype(np.float32)
    _outputs(predict, data)
    _outputs(predict, data)
    _assert_same(_outputs(predict, data, is_train=True), _outputs(plain, data, is_train=True))
    # the training pass moved the moving statistics of both; inference sees the new ones
    _assert_same(_outputs(predict, data), _outputs(plain, data))


def test_predict_of_an_inference_module_matches_a_numpy_forward():
    """Module.predict on a conv -> BN -> relu -> FC graph against the formula computed in NumPy."""
    rng = np.random.RandomState(9)
    data = mx.sym.Variable("data")
    x = mx.sym.Convolution(data, num_filter=2, kernel=(1, 1), no_bias=True, name="c")
    x = mx.sym.Activation(mx.sym.BatchNorm(x, fix_gamma=False, eps=1e-3, name="bn"), act_type="relu")
    out = mx.sym.FullyConnected(mx.sym.Flatten(x), num_hidden=3, no_bias=True, name="fc")
    images = rng.rand(10, 3, 2, 2).astype(np.float32)
    weight = rng.normal(size=(2, 3, 1, 1)).astype(np.float32)
    gamma, beta = rng.rand(2).astype(np.float32) + 0.5, rng.normal(size=2).astype(np.float32)
    mean, var = rng.normal(size=2).astype(np.float32), rng.rand(2).astype(np.float32) + 0.5
    fc = rng.normal(size=(3, 8)).astype(np.float32)
    module = mx.mod.Module(out, label_names=None)
    module.bind(data_shapes=[("data", (5, 3, 2, 2))], for_training=False)
    module.set_params({"c_weight": mx.nd.array(weight), "bn_gamma": mx.nd.array(gamma),
                       "bn_beta": mx.nd.array(beta), "fc_weight": mx.nd.array(fc)},
                      {"bn_moving_mean": mx.nd.array(mean), "bn_moving_var": mx.nd.array(var)})
    got = module.predict(mx.io.NDArrayIter(images, batch_size=5)).asnumpy()
    conv = np.einsum("oc,nchw->nohw", weight[:, :, 0, 0], images)
    normalized = (conv - mean[:, None, None]) / np.sqrt(var[:, None, None] + 1e-3) * gamma[:, None, None] \
        + beta[:, None, None]
    expected = np.maximum(normalized, 0).reshape(10, -1) @ fc.T
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", ["0", "auto"])
def test_fused_inner_products_match_the_plain_graph(monkeypatch, mode):
    """FullyConnected + relu / sigmoid / tanh (one oneDNN inner product each in the plan), a
    FullyConnected without bias, and one whose output also feeds a second consumer."""
    monkeypatch.setenv("MXTORCH_COMPILE", mode)
    data = mx.sym.Variable("data")
    x = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=9, name="f1"), act_type="relu")
    x = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=8, no_bias=True, name="f2"), act_type="sigmoid")
    shared = mx.sym.FullyConnected(x, num_hidden=8, name="f3")
    x = mx.sym.Activation(shared, act_type="tanh") + shared
    x = mx.sym.FullyConnected(x, num_hidden=4, name="f4")
    symbol = mx.sym.SoftmaxOutput(x, name="softmax")
    shape = (6, 2, 5)
    args, aux = _random_params(symbol, shape, 11)
    plain = mx.mod.Module(symbol)
    plain.bind(data_shapes=[("data", shape)], label_shapes=[("softmax_label", (6,))])
    plain.set_params(args, aux)
    predict = mx.mod.Module(symbol)
    predict.bind(data_shapes=[("data", shape)], for_training=False)
    predict.set_params(args, aux)
    plan = predict._exec_group.execs[0]._inference
    names = [entry.op.name for entry in plan._entries]
    if inference._linear_pointwise_works():
        # f1+relu, f2+sigmoid fused; f3 feeds two nodes (no activation fused); f4 alone
        assert names.count("_fused_linear") == 4 and names.count("Activation") == 1
    data_value = np.random.RandomState(12).normal(size=shape).astype(np.float32)
    for _ in range(3):
        _assert_same(_outputs(predict, data_value), _outputs(plain, data_value))
    # a graph of inner products is traced (from the second batch under auto) only for oneDNN Graph
    traced = mode == "auto" and inference.onednn_graph_enabled() and inference._linear_pointwise_works()
    assert isinstance(plan._traced, inference._OneDNNGraphModule) == traced
    assert (plan._traced is None) == (not traced)
    new_args, _ = _random_params(symbol, shape, 13)
    predict.set_params(new_args, aux)
    plain.set_params(new_args, aux)
    _assert_same(_outputs(predict, data_value), _outputs(plain, data_value))


@pytest.mark.parametrize("prepack", ["1", "0"])
def test_prepacked_inner_product_weights_are_repacked_after_set_params(monkeypatch, prepack):
    """The eager plan reorders inner-product weights into oneDNN's layout once per parameter
    version; new parameters (set_params, an in-place write) are packed again before the next
    batch, and the numbers are those of the plain graph either way.  (Eager plan: under
    oneDNN Graph a traced graph of inner products freezes its own weights instead.)"""
    monkeypatch.setenv("MXTORCH_PREPACK", prepack)
    monkeypatch.setenv("MXTORCH_COMPILE", "0")
    data = mx.sym.Variable("data")
    x = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=16, name="f1"), act_type="relu")
    x = mx.sym.BatchNorm(mx.sym.FullyConnected(x, num_hidden=12, name="f2"), fix_gamma=False, name="bn")
    symbol = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(x, num_hidden=5, name="f3"), name="softmax")
    shape = (8, 10)
    args, aux = _random_params(symbol, shape, 21)
    plain = mx.mod.Module(symbol)
    plain.bind(data_shapes=[("data", shape)], label_shapes=[("softmax_label", (8,))])
    predict = mx.mod.Module(symbol)
    predict.bind(data_shapes=[("data", shape)], for_training=False)
    for module in (plain, predict):
        module.set_params(args, aux)
    plan = predict._exec_group.execs[0]._inference
    if prepack == "1" and inference._prepacked_linear_works():
        assert len(plan._packs) == 3          # f2's weight is the BatchNorm-folded one
    else:
        assert not plan._packs
    data_value = np.random.RandomState(22).normal(size=shape).astype(np.float32)
    for _ in range(2):
        _assert_same(_outputs(predict, data_value), _outputs(plain, data_value))
    new_args, new_aux = _random_params(symbol, shape, 23)
    for module in (plain, predict):
        module.set_params(new_args, new_aux)
    _assert_same(_outputs(predict, data_value), _outputs(plain, data_value))
    for module in (plain, predict):
        module._exec_group.execs[0].arg_dict["f1_weight"][:] *= 0.5
    _assert_same(_outputs(predict, data_value), _outputs(plain, data_value))


def test_plan_rewrites_follow_operator_declarations_not_names():
    """The passes ask the operator (``pointwise_fusion``, ``activation_kind``, ``traceable``):
    the unary ``relu`` / ``sigmoid`` operators fuse into the inner product as Activation does,
    a Dropout is traceable except with ``mode='always'``, and the numbers are NumPy's."""
    from mxtorch.ops.registry import get_operator
    assert get_operator("relu")({}).activation_kind() == "relu"
    assert get_operator("Activation")({"act_type": "tanh"}).activation_kind() == "tanh"
    assert get_operator("exp")({}).activation_kind() is None
    assert get_operator("Dropout")({}).traceable and not get_operator("Dropout")({"mode": "always"}).traceable
    assert get_operator("FullyConnected")({"num_hidden": 2, "flatten": "False"}).pointwise_fusion() is None
    rng = np.random.RandomState(31)
    data = mx.sym.Variable("data")
    x = mx.sym.relu(mx.sym.FullyConnected(data, num_hidden=5, name="f1"))
    out = mx.sym.sigmoid(mx.sym.FullyConnected(x, num_hidden=3, no_bias=True, name="f2"))
    w1, b1 = rng.normal(size=(5, 4)).astype(np.float32), rng.normal(size=5).astype(np.float32)
    w2 = rng.normal(size=(3, 5)).astype(np.float32)
    executor = out.simple_bind(mx.cpu(), grad_req="null", data=(2, 4))
    for name, value in (("f1_weight", w1), ("f1_bias", b1), ("f2_weight", w2)):
        executor.arg_dict[name][:] = value
    plan = executor._inference
    if inference._linear_pointwise_works():
        assert [(entry.op.name, entry.op.activation) for entry in plan._entries] == \
            [("_fused_linear", "relu"), ("_fused_linear", "sigmoid")]
    values = rng.normal(size=(2, 4)).astype(np.float32)
    executor.arg_dict["data"][:] = values
    got = executor.forward(is_train=False)[0].asnumpy()
    expected = 1 / (1 + np.exp(-(np.maximum(values @ w1.T + b1, 0) @ w2.T)))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("onednn_graph", ["1", "0"])
def test_onednn_graph_fusion_matches_the_plain_graph_and_stays_local(monkeypatch, onednn_graph):
    """The traced graph handed to oneDNN Graph (MXTORCH_ONEDNN_GRAPH=1, the default) computes what
    the plain graph computes, before and after set_params; its fused partitions exist (a
    oneDNN fusion group in the graph torch last optimised); torch's process-wide fusion switch
    is off again after each call; MXTORCH_ONEDNN_GRAPH=0 uses optimize_for_inference."""
    import torch
    monkeypatch.setenv("MXTORCH_COMPILE", "1")
    monkeypatch.setenv("MXTORCH_ONEDNN_GRAPH", onednn_graph)
    shape = (4, 3, 8, 8)
    args, aux = _random_params(_network(), shape, 5)
    plain, predict = _modules(shape, args, aux)
    rng = np.random.RandomState(6)
    for _ in range(2):
        data = rng.rand(*shape).astype(np.float32)
        _assert_same(_outputs(predict, data), _outputs(plain, data))
        assert not torch.jit.onednn_fusion_enabled()
    plan = predict._exec_group.execs[0]._inference
    fused = isinstance(plan._traced, inference._OneDNNGraphModule)
    assert fused == (onednn_graph == "1" and inference.onednn_graph_enabled())
    if fused:
        plan._traced(*plan._variables()[1])
        assert "prim::oneDNNFusionGroup" in str(torch.jit.last_executed_optimized_graph())
    new_args, new_aux = _random_params(_network(), shape, 7)
    predict.set_params(new_args, new_aux)
    plain.set_params(new_args, new_aux)
    data = rng.rand(*shape).astype(np.float32)
    _assert_same(_outputs(predict, data), _outputs(plain, data))
    assert isinstance(plan._traced, inference._OneDNNGraphModule) == fused
