"""Module-era APIs that MXNet's examples and unit tests use: ``mx.model.FeedForward``,
``mx.contrib.svrg_optimization``, ``mx.contrib.amp``, ``group2ctx`` placement, the monitor's
backward entries, output batch axes from ``__layout__``.

Expected values were produced with MXNet 1.9.1 (``/root/mxref``) running the same code.
"""
import os
import warnings

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError


# -- FeedForward ---------------------------------------------------------------------------------
def _feedforward_problem():
    X = np.random.RandomState(1).uniform(-1, 1, (50, 4)).astype(np.float32)
    W = np.array([[1, -1, .5, 2], [-.5, 1, 1, -1], [0, .3, -2, 1]], np.float32)
    y = (X @ W.T).argmax(1).astype(np.float32)
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc"), name="softmax")
    arg = {"fc_weight": mx.nd.array(W * 0.5), "fc_bias": mx.nd.array([0.1, -0.1, 0.0])}
    return X, y, net, arg


def test_feedforward_predict_fit_score_save_load_match_mxnet(tmp_path):
    X, y, net, arg = _feedforward_problem()
    with pytest.warns(DeprecationWarning, match="FeedForward has been deprecated"):
        model = mx.model.FeedForward(net, ctx=mx.cpu(), num_epoch=2, numpy_batch_size=50, arg_params=arg,
                                     optimizer="sgd", learning_rate=0.5, initializer=mx.init.Zero())
    before = model.predict(X)
    assert before.shape == (50, 3)
    np.testing.assert_allclose(before[0], [0.116321, 0.236166, 0.647513], atol=1e-5)
    np.testing.assert_allclose(before[-1], [0.564494, 0.155255, 0.280251], atol=1e-5)
    assert model.score(mx.io.NDArrayIter(X, y, 10)) == pytest.approx(0.96)
    model.fit(X, y)
    # one full batch per epoch, so the shuffle does not matter: MXNet 1.9.1's numbers
    np.testing.assert_allclose(model.arg_params["fc_weight"].asnumpy(),
                               [[0.488237, -0.545515, 0.322535, 1.073808],
                                [-0.248207, 0.506210, 0.574155, -0.572537],
                                [0.009970, 0.189305, -1.146689, 0.498729]], atol=1e-5)
    np.testing.assert_allclose(model.arg_params["fc_bias"].asnumpy(), [0.042734, -0.108386, 0.065652], atol=1e-5)
    after = model.predict(X)
    np.testing.assert_allclose(after[0], [0.085817, 0.197563, 0.716620], atol=1e-5)
    assert model.score(mx.io.NDArrayIter(X, y, 10)) == pytest.approx(0.98)
    out, data, label = model.predict(mx.io.NDArrayIter(X, y, 20), return_data=True)
    assert out.shape == (50, 3) and data.shape == (50, 4) and label.shape == (50,)
    assert float(label.sum()) == float(y.sum())
    prefix = str(tmp_path / "ff")
    model.save(prefix, 3)
    assert os.path.exists(prefix + "-0003.params") and os.path.exists(prefix + "-symbol.json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        loaded = mx.model.FeedForward.load(prefix, 3, ctx=mx.cpu())
    assert loaded.begin_epoch == 3
    np.testing.assert_allclose(loaded.predict(X), after, atol=1e-6)


def test_feedforward_create_trains_and_bad_inputs_raise():
    X, y, net, arg = _feedforward_problem()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        model = mx.model.FeedForward.create(net, X, y, num_epoch=2, numpy_batch_size=50, learning_rate=0.5,
                                            arg_params=arg, initializer=mx.init.Zero())
        np.testing.assert_allclose(model.arg_params["fc_bias"].asnumpy(), [0.042734, -0.108386, 0.065652],
                                   atol=1e-5)
        with pytest.raises(ValueError, match="y must be specified"):
            model.fit(X)
        with pytest.raises(ValueError, match="label must be 1D or 2D"):
            model.fit(X, np.zeros((50, 2)))
        with pytest.raises(TypeError, match="symbol must be"):
            mx.model.FeedForward("not a symbol")
        with pytest.raises(MXNetError, match="no parameters"):
            mx.model.FeedForward(net).predict(X)


# -- SVRG ------------------------------------------------------------------------------------------
def test_svrg_module_fit_matches_mxnet():
    from mxtorch.contrib.svrg_optimization.svrg_module import SVRGModule
    X = np.array([[1, 2], [2, 1], [3, 1], [1, 4], [2, 2], [4, 1], [1, 1], [3, 3]], np.float32)
    y = X.dot(np.array([1.0, 2.0], np.float32))
    data = mx.io.NDArrayIter(X, y, batch_size=4, shuffle=False, label_name="lin_reg_label")
    sym = mx.sym.LinearRegressionOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=1, name="fc1"),
                                        label=mx.sym.var("lin_reg_label"), name="lro")
    mod = SVRGModule(sym, data_names=["data"], label_names=["lin_reg_label"], update_freq=2)
    mod.fit(data, eval_metric="mse", optimizer="sgd", optimizer_params=(("learning_rate", 0.02),), num_epoch=3,
            initializer=mx.init.Zero())
    args, _ = mod.get_params()
    np.testing.assert_allclose(args["fc1_weight"].asnumpy(), [[0.9070574, 1.0016661]], rtol=1e-5)
    np.testing.assert_allclose(args["fc1_bias"].asnumpy(), [0.43714872], rtol=1e-5)
    # the full gradient of the epoch-2 snapshot (mean over the two batches)
    np.testing.assert_allclose(mod._param_dict[0]["fc1_weight"].asnumpy(), [[-20.820904, -23.856928]], rtol=1e-5)
    with pytest.raises(TypeError):
        SVRGModule(sym, data_names=["data"], label_names=["lin_reg_label"], update_freq="2")
    with pytest.raises(ValueError):
        SVRGModule(sym, data_names=["data"], label_names=["lin_reg_label"], update_freq=0)


def test_svrg_optimizer_routes_full_keys_to_assignment():
    from mxtorch.contrib.svrg_optimization.svrg_optimizer import _SVRGOptimizer
    opt = _SVRGOptimizer(default_optimizer="sgd", param_idx2name={0: "w", 1: "w_full"}, learning_rate=0.5)
    kv = mx.kv.create("local")
    kv.set_optimizer(opt)
    kv.init(0, mx.nd.array([1.0, 1.0]))
    kv.init(1, mx.nd.array([5.0, 5.0]))
    kv.push(0, mx.nd.array([2.0, 4.0]))
    kv.push(1, mx.nd.array([3.0, 7.0]))
    out0, out1 = mx.nd.zeros((2,)), mx.nd.zeros((2,))
    kv.pull(0, out0)
    kv.pull(1, out1)
    np.testing.assert_allclose(out0.asnumpy(), [1 - 0.5 * 2, 1 - 0.5 * 4])   # sgd step
    np.testing.assert_allclose(out1.asnumpy(), [3.0, 7.0])                 # assigned


# -- AMP -------------------------------------------------------------------------------------------
def _amp_net():
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=4, name="fc")
    act = mx.sym.Activation(fc, act_type="relu", name="act")
    return data, fc, mx.sym.elemwise_add(mx.sym.softmax(act, name="sm"), data, name="add")


def test_amp_convert_symbol_inserts_mxnets_casts():
    from mxtorch.contrib import amp
    _, fc, net = _amp_net()
    converted = amp.convert_symbol(net, target_dtype="float16")
    assert converted.list_arguments() == ["data", "fc_weight", "fc_bias"]
    assert converted.get_internals().list_outputs() == [
        "data", "data_amp_cast_float16_output", "fc_weight", "fc_weight_amp_cast_float16_output", "fc_bias",
        "fc_bias_amp_cast_float16_output", "fc_output", "act_output", "act_output_amp_cast_float32_output",
        "sm_output", "data_amp_cast_float32_output", "add_output"]
    softrelu = amp.convert_symbol(mx.sym.Activation(fc, act_type="softrelu", name="sr"), target_dtype="float16")
    assert softrelu.get_internals().list_outputs()[-2:] == ["fc_output_amp_cast_float32_output", "sr_output"]
    excluded = amp.convert_symbol(mx.sym.Activation(fc, act_type="relu", name="act"), excluded_sym_names=["fc"])
    assert excluded.get_internals().list_outputs() == ["data", "fc_weight", "fc_bias", "fc_output", "act_output"]
    # saving drops the casts again
    assert mx.sym.load_json(converted.tojson()).get_internals().list_outputs() == \
        net.get_internals().list_outputs()
    with pytest.raises(MXNetError, match="target_dtype"):
        amp.convert_symbol(net, target_dtype="int8")


def test_amp_converted_graph_computes_in_half_precision():
    from mxtorch.contrib import amp
    _, _, net = _amp_net()
    converted = amp.convert_symbol(net, target_dtype="float16")
    x = np.array([[1, 2, 3, 4], [-1, 0, 1, 2]], np.float32)
    w = np.array([[.1, .2, .3, .4], [-.1, 0, .1, .2], [.5, .5, .5, .5], [0, 0, 0, 1]], np.float32)
    b = np.array([0, 1, 0, 1], np.float32)
    ex = converted.simple_bind(mx.cpu(), data=(2, 4))
    ex.copy_params_from({"fc_weight": mx.nd.array(w), "fc_bias": mx.nd.array(b)})
    out = ex.forward(data=mx.nd.array(x))[0]
    assert out.dtype == np.float32
    hidden = np.maximum(x.astype(np.float16) @ w.astype(np.float16).T + b.astype(np.float16), 0).astype(np.float32)
    soft = np.exp(hidden) / np.exp(hidden).sum(1, keepdims=True)
    np.testing.assert_allclose(out.asnumpy(), soft + x, rtol=2e-3)


def test_amp_convert_model_casts_optional_params():
    from mxtorch.contrib import amp
    _, _, net = _amp_net()
    args = {"fc_weight": mx.nd.ones((4, 4)), "fc_bias": mx.nd.zeros((4,))}
    sym, arg_params, _ = amp.convert_model(net, args, {}, target_dtype="float16", cast_optional_params=True)
    assert {k: v.dtype for k, v in arg_params.items()} == {"fc_weight": np.float16, "fc_bias": np.float16}
    assert sym.get_internals().list_outputs() == [
        "data", "data_amp_cast_float16_output", "fc_weight", "fc_bias", "fc_output", "act_output",
        "act_output_amp_cast_float32_output", "sm_output", "data_amp_cast_float32_output", "add_output"]
    _, kept, _ = amp.convert_model(net, args, {}, target_dtype="float16")
    assert {v.dtype for v in kept.values()} == {np.float32}


def test_amp_cast_passes_integers_through():
    ints = mx.nd.array([1, 2], dtype="int32")
    assert mx.nd.amp_cast(ints, dtype="float16").dtype == np.int32
    assert mx.nd.amp_cast(mx.nd.array([1.5]), dtype="float16").dtype == np.float16


def test_loss_scaler_halves_on_overflow_and_requires_a_trainer():
    from mxtorch.contrib.amp import LossScaler, amp
    scaler = LossScaler()
    assert scaler.loss_scale == 2.0 ** 16
    assert scaler.has_overflow([mx.nd.array([1.0, np.inf])]) is True
    assert scaler.has_overflow([mx.nd.array([1.0])]) is False
    assert scaler.loss_scale == 2.0 ** 15
    with pytest.raises(TypeError, match="Gluon Trainer"):
        amp._check_trainer(mx.optimizer.SGD())


# -- group2ctx ---------------------------------------------------------------------------------------
def _two_group_net():
    with mx.AttrScope(ctx_group="dev1"):
        a = mx.sym.Variable("a")
        hidden = mx.sym.FullyConnected(a, num_hidden=3, name="fc1")
    with mx.AttrScope(ctx_group="dev2"):
        out = mx.sym.FullyConnected(mx.sym.Activation(hidden, act_type="tanh"), num_hidden=2, name="fc2")
    return out


def test_group2ctx_places_arrays_and_outputs_and_keeps_the_numbers():
    net = _two_group_net()
    rng = np.random.RandomState(0)
    values = {"a": rng.randn(4, 5), "fc1_weight": rng.randn(3, 5), "fc1_bias": rng.randn(3),
              "fc2_weight": rng.randn(2, 3), "fc2_bias": rng.randn(2)}
    results = []
    for group2ctx in ({"dev1": mx.cpu(0), "dev2": mx.cpu(1)}, None):
        ex = net.simple_bind(mx.cpu(0), group2ctx=group2ctx, a=(4, 5))
        for name, value in values.items():
            ex.arg_dict[name][:] = value
        out = ex.forward(is_train=True)[0]
        ex.backward([mx.nd.ones((4, 2))])
        results.append((out.asnumpy(), ex.grad_dict["fc1_weight"].asnumpy(), ex))
    placed = results[0][2]
    assert placed.arg_dict["fc1_weight"].context == mx.cpu(0)
    assert placed.arg_dict["fc2_weight"].context == mx.cpu(1)
    assert placed.grad_dict["fc2_bias"].context == mx.cpu(1)
    assert placed.outputs[0].context == mx.cpu(1)
    hidden = np.tanh(values["a"] @ values["fc1_weight"].T + values["fc1_bias"])
    expected = hidden @ values["fc2_weight"].T + values["fc2_bias"]
    np.testing.assert_allclose(results[0][0], expected, rtol=1e-5)
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)


def test_group2ctx_every_node_output_is_on_its_group_context():
    """Each node's output (the monitor sees all of them; an internal output of the graph too)
    is an array of its ``ctx_group``'s context, and the numbers are the single-device ones."""
    net = mx.sym.Group([_two_group_net().get_internals()["fc1_output"], _two_group_net()])
    seen = {}
    ex = net.simple_bind(mx.cpu(0), group2ctx={"dev1": mx.cpu(2), "dev2": mx.cpu(3)}, a=(4, 5))
    single = net.simple_bind(mx.cpu(0), a=(4, 5))
    for name, array in ex.arg_dict.items():
        array[:] = np.random.RandomState(len(name)).randn(*array.shape)
        single.arg_dict[name][:] = array
    ex.set_monitor_callback(lambda name, array: seen.__setitem__(name, array.context), monitor_all=True)
    outputs = ex.forward(is_train=False)
    assert [o.context for o in outputs] == [mx.cpu(2), mx.cpu(3)]
    assert seen["fc1_output"] == mx.cpu(2) and seen["fc2_output"] == mx.cpu(3)
    assert seen["fc2_data"] == mx.cpu(3)              # the input copied onto fc2's device
    assert [k for k, v in seen.items() if k.endswith("_output") and v == mx.cpu(3)] == \
        [k for k in seen if k.endswith("_output") and not k.startswith("fc1")]
    for got, expected in zip(outputs, single.forward(is_train=False)):
        np.testing.assert_allclose(got.asnumpy(), expected.asnumpy(), rtol=1e-6)


def test_module_group2ctxs_forms_give_input_grads_on_group_contexts():
    with mx.AttrScope(ctx_group="dev1"):
        a = mx.sym.Variable("a") * 2
    with mx.AttrScope(ctx_group="dev2"):
        c = a + mx.sym.Variable("b")
    mod = mx.mod.Module(c, context=[mx.cpu(0)], data_names=["a", "b"], label_names=None,
                        group2ctxs={"dev1": mx.cpu(1), "dev2": [mx.cpu(2)]})
    mod.bind(data_shapes=[("a", (2, 3)), ("b", (2, 3))], inputs_need_grad=True)
    mod.init_params()
    mod.forward(mx.io.DataBatch(data=[mx.nd.ones((2, 3)), mx.nd.ones((2, 3))]), is_train=True)
    mod.backward([mx.nd.ones((2, 3))])
    grads = mod.get_input_grads()
    assert [g.context for g in grads] == [mx.cpu(1), mx.cpu(2)]
    np.testing.assert_allclose(grads[0].asnumpy(), np.full((2, 3), 2.0))
    np.testing.assert_allclose(grads[1].asnumpy(), np.ones((2, 3)))
    with pytest.raises(MXNetError, match="group2ctxs"):
        mx.mod.Module(c, context=[mx.cpu(0), mx.cpu(1)], data_names=["a", "b"], label_names=None,
                      group2ctxs={"dev1": [mx.cpu(1)] * 3}).bind(data_shapes=[("a", (2, 3)), ("b", (2, 3))])


# -- monitor, layouts, outputs ------------------------------------------------------------------------
def test_monitor_reports_backward_outputs_like_mxnet():
    x = mx.sym.FullyConnected(mx.sym.Variable("data"), name="fc_0", num_hidden=2)
    x = mx.sym.Activation(x, name="act_0", act_type="sigmoid")
    x = mx.sym.LinearRegressionOutput(x, name="out", grad_scale=2)
    mon = mx.mon.Monitor(1, stat_func=lambda a: mx.nd.sum(mx.nd.abs(a)) / a.size, pattern=".*", sort=True)
    mod = mx.mod.Module(x, label_names=["out_label"])
    mod.bind([("data", (1, 2))], [("out_label", (1, 2))])
    mod.install_monitor(mon)
    mod.init_params(arg_params={"fc_0_weight": mx.nd.array([[.15, .20], [.25, .30]]),
                                "fc_0_bias": mx.nd.array([.35, .35])})
    mon.tic()
    mod.forward_backward(mx.io.DataBatch([mx.nd.array([[0.05, .10]])], [mx.nd.array([[.01, 0.99]])]))
    names = {name: float(value) for _, name, value in mon.toc()}
    assert {"act_0_backward_output", "fc_0_backward_output0", "fc_0_backward_output1", "fc_0_backward_output2",
            "out_backward_output0", "out_backward_output1"} <= set(names)
    # MXNet 1.9.1: mean |d loss / d act_0 input| and |d loss / d fc_0_bias|
    out = 1 / (1 + np.exp(-(np.array([[.15, .20], [.25, .30]]) @ [0.05, .10] + .35)))
    head = 2 / 2 * (out - [.01, .99])     # grad_scale / outputs per sample, MXNet's regression rule
    assert names["act_0_backward_output"] == pytest.approx(np.abs(head * out * (1 - out)).mean(), rel=1e-5)
    assert names["fc_0_backward_output2"] == pytest.approx(np.abs(head * out * (1 - out)).mean(), rel=1e-5)


def test_output_batch_axis_follows_layout_attribute():
    sym = mx.sym.Activation(mx.sym.Variable("data"), act_type="relu", __layout__="TNC")
    mod = mx.mod.Module(sym, ("data",), None, context=[mx.cpu(0), mx.cpu(1)])
    mod.bind(data_shapes=[mx.io.DataDesc("data", (3, 8, 7), np.float32, layout="TNC")], inputs_need_grad=True)
    mod.init_params()
    values = np.random.RandomState(0).randn(3, 8, 7).astype(np.float32)
    mod.forward(mx.io.DataBatch(data=[mx.nd.array(values)]), is_train=True)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), np.maximum(values, 0))
    mod.backward([mx.nd.ones((3, 8, 7))])
    np.testing.assert_allclose(mod.get_input_grads()[0].asnumpy(), (values > 0).astype(np.float32))
    with pytest.raises(TypeError):
        mod.bind(data_shapes=[("data", mx.nd.array([10, 10]))], force_rebind=True)


def test_writing_into_a_training_output_keeps_gradients_right():
    data = mx.sym.Variable("data")
    out = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=2, name="fc"), act_type="relu")
    ex = out.simple_bind(mx.cpu(), data=(1, 2))
    ex.arg_dict["data"][:] = np.array([[1.0, 2.0]])
    ex.arg_dict["fc_weight"][:] = np.array([[1.0, 0.0], [0.0, -1.0]])
    ex.arg_dict["fc_bias"][:] = 0
    result = ex.forward(is_train=True)[0]
    result += 100          # a program adding into the output, as stochastic-depth code does
    ex.backward([mx.nd.ones((1, 2))])
    np.testing.assert_allclose(ex.grad_dict["fc_weight"].asnumpy(), [[1.0, 2.0], [0.0, 0.0]])


def test_bucketing_module_names_each_bucket_from_zero():
    def sym_gen(key):
        embed = mx.sym.Embedding(mx.sym.Variable("data"), input_dim=10, output_dim=4)
        return mx.sym.FullyConnected(embed, num_hidden=key), ("data",), None
    mx.sym.Embedding(mx.sym.Variable("x"), input_dim=3, output_dim=2)   # uses up embedding0 outside
    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=3, context=mx.cpu())
    mod.bind([("data", (2,))], None, for_training=False)
    assert mod.symbol.list_arguments()[1] == "embedding0_weight"


def test_encode_sentences_unknown_token_takes_the_first_free_id_from_start_label():
    # MXNet 1.9.1: {'a': 1, 'b': 2, 'c': 3, 'UNK': 0}, [[1, 2, 3], [2, 3, 0]]
    result, vocab = mx.rnn.encode_sentences([["a", "b", "c"], ["b", "c", "d"]], vocab={"a": 1, "b": 2, "c": 3},
                                            invalid_label=-1, invalid_key="\n", start_label=0, unknown_token="UNK")
    assert vocab == {"a": 1, "b": 2, "c": 3, "UNK": 0}
    assert result == [[1, 2, 3], [2, 3, 0]]
    # an id already used is skipped (MXNet would have given 'UNK' the id of 'a')
    _, vocab = mx.rnn.encode_sentences([["z"]], vocab={"a": 1}, start_label=1, unknown_token="UNK")
    assert vocab["UNK"] == 2


def test_file_iterators_getdata_returns_the_array(tmp_path):
    # MXNet 1.9.1: CSVIter.getdata() / getlabel() are NDArrays, batch.data a list
    path = str(tmp_path / "d.csv")
    np.savetxt(path, np.arange(12).reshape(4, 3), delimiter=",")
    it = mx.io.CSVIter(data_csv=path, data_shape=(3,), batch_size=2)
    assert it.iter_next()
    assert isinstance(it.getdata(), mx.nd.NDArray) and isinstance(it.getlabel(), mx.nd.NDArray)
    np.testing.assert_allclose(it.getdata().asnumpy(), [[0, 1, 2], [3, 4, 5]])
    assert isinstance(it.next().data, list)


# -- executor_manager -----------------------------------------------------------------------------------
def test_executor_manager_split_and_data_parallel_run():
    from mxtorch.executor_manager import DataParallelExecutorManager, _split_input_slice, _check_arguments
    # MXNet 1.9.1's values
    assert _split_input_slice(10, [1, 2, 2]) == [slice(0, 2), slice(2, 6), slice(6, 10)]
    assert _split_input_slice(7, [1, 1]) == [slice(0, 4), slice(4, 7)]
    with pytest.raises(ValueError):
        _split_input_slice(2, [1, 1, 1])
    data = mx.sym.Variable("data")
    net = mx.sym.LinearRegressionOutput(mx.sym.FullyConnected(data, num_hidden=1, name="fc"), name="lro")
    X = np.arange(12, dtype=np.float32).reshape(6, 2)
    y = X @ np.array([1.0, -1.0], np.float32)
    it = mx.io.NDArrayIter(X, y, batch_size=6, label_name="lro_label")
    manager = DataParallelExecutorManager(net, [mx.cpu(0), mx.cpu(1)], it, net.list_arguments(),
                                          ["fc_weight", "fc_bias"], [], work_load_list=[1, 2])
    manager.set_params({"fc_weight": mx.nd.array([[0.5, 0.5]]), "fc_bias": mx.nd.array([0.0])}, {})
    manager.load_data_batch(next(iter(it)))
    manager.forward(is_train=True)
    manager.backward()
    # d/dw of 0.5 * sum((x.w - y)^2) summed over both devices' rows
    residual = X @ np.array([0.5, 0.5]) - y
    total = sum(g.asnumpy() for g in manager.grad_arrays[0])
    np.testing.assert_allclose(total, [residual @ X], rtol=1e-5)
    assert [g.shape for g in manager.grad_arrays[0]] == [(1, 2), (1, 2)]
    out = {"fc_weight": mx.nd.zeros((1, 2)), "fc_bias": mx.nd.zeros((1,))}
    manager.copy_to(out, {})
    np.testing.assert_allclose(out["fc_weight"].asnumpy(), [[0.5, 0.5]])
    metric = mx.metric.MSE()
    manager.update_metric(metric, [mx.nd.array(y)])
    # MXNet's MSE averages the per-device means (rows 0-1 and 2-5)
    expected = (np.mean(residual[:2] ** 2) + np.mean(residual[2:] ** 2)) / 2
    assert metric.get()[1] == pytest.approx(float(expected), rel=1e-5)
    bad = mx.sym.FullyConnected(mx.sym.FullyConnected(data, num_hidden=2, name="fc"), num_hidden=1, name="fc")
    with pytest.raises(ValueError, match="duplicated"):
        _check_arguments(bad)


# -- notebook.callback -----------------------------------------------------------------------------------
def test_pandas_logger_records_rows_during_fit():
    from mxtorch.notebook import callback
    X = np.random.RandomState(0).randn(40, 3).astype(np.float32)
    y = (X[:, 0] > 0).astype(np.float32)
    it = mx.io.NDArrayIter(X, y, batch_size=10)
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2), name="softmax")
    logger = callback.PandasLogger(batch_size=10, frequent=2)
    mod = mx.mod.Module(net)
    mod.fit(it, eval_data=it, num_epoch=2, **logger.callback_args())
    train = logger._rows["train"]
    assert [(row["epoch"], row["minibatch_count"]) for row in train] == [(0, 0), (0, 2), (1, 0), (1, 2)]
    assert all(0.0 <= row["accuracy"] <= 1.0 for row in train)
    assert all(row["records_per_sec"] == pytest.approx(10 * row["batches_per_sec"]) for row in train)
    assert len(logger._rows["eval"]) == 2 and len(logger._rows["epoch"]) == 2
    merged = callback.args_wrapper(logger, logger)
    assert merged["batch_end_callback"] == [logger.train_cb, logger.train_cb]
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(MXNetError, match="pandas"):
            logger.train_df
    else:
        assert list(logger.train_df["minibatch_count"]) == [0, 2, 0, 2]


def test_softmax_output_multi_output_accepts_mxnets_label_layouts():
    # MXNet 1.9.1 accepts (2, 12), (2, 3, 4) and (2, 1, 3, 4) labels for data (2, 5, 3, 4)
    sym = mx.sym.SoftmaxOutput(mx.sym.var("data"), mx.sym.var("label"), multi_output=True)
    for label in [(2, 12), (2, 3, 4), (2, 1, 3, 4)]:
        assert sym.infer_shape(data=(2, 5, 3, 4), label=label)[0] == [(2, 5, 3, 4), label]
    with pytest.raises(MXNetError):
        sym.infer_shape(data=(2, 5, 3, 4), label=(2, 2, 3, 4))
    labels = np.random.RandomState(0).randint(0, 5, (2, 3, 4)).astype(np.float32)
    grads = []
    for shape in [(2, 12), (2, 1, 3, 4)]:
        ex = sym.simple_bind(mx.cpu(), data=(2, 5, 3, 4), label=shape)
        ex.arg_dict["data"][:] = np.linspace(-1, 1, 120).reshape(2, 5, 3, 4)
        ex.arg_dict["label"][:] = labels.reshape(shape)
        ex.forward(is_train=True)
        ex.backward()
        grads.append(ex.grad_dict["data"].asnumpy())
    np.testing.assert_allclose(grads[0], grads[1])
