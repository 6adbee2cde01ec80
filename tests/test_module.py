"""Module life cycle against MXNet 1.9.1 training runs (tests/data/module, made by
tools/gen_module_reference.py with the real MXNet) and the intermediate API."""
import ast
import logging
import os

import numpy as np
import pytest

import mxtorch as mx
from module_networks import mlp

DATA = os.path.join(os.path.dirname(__file__), "data", "module")


def convbn():
    data = mx.sym.Variable("data")
    net = mx.sym.Convolution(data, name="conv1", kernel=(3, 3), num_filter=4, pad=(1, 1))
    net = mx.sym.BatchNorm(net, name="bn1", fix_gamma=False)
    net = mx.sym.Activation(net, name="relu1", act_type="relu")
    net = mx.sym.Pooling(net, name="pool1", kernel=(2, 2), stride=(2, 2), pool_type="max")
    net = mx.sym.Flatten(net)
    net = mx.sym.FullyConnected(net, name="fc", num_hidden=3)
    return mx.sym.SoftmaxOutput(net, name="softmax")


BUILDERS = {"mlp_sgd": mlp, "mlp_adam": mlp, "convbn_sgd": convbn, "mlp_pad": mlp}


def load_reference(name):
    ref = np.load(os.path.join(DATA, name + ".npz"))
    optimizer, params, batch = ast.literal_eval(str(ref["config"]))
    prefix = lambda p: {k[len(p):]: ref[k] for k in ref.files if k.startswith(p)}
    return ref, optimizer, params, batch, prefix


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_fit_matches_mxnet(name):
    ref, optimizer, params, batch, prefix = load_reference(name)
    train = mx.io.NDArrayIter(ref["x"], ref["y"], batch_size=batch, shuffle=False, last_batch_handle="pad")
    module = mx.mod.Module(BUILDERS[name](), context=mx.cpu())
    metric = mx.metric.create("acc")
    history = []
    module.fit(train, eval_metric=metric, optimizer=optimizer, optimizer_params=params,
               arg_params={k: mx.nd.array(v) for k, v in prefix("init_arg:").items()},
               aux_params={k: mx.nd.array(v) for k, v in prefix("init_aux:").items()},
               num_epoch=2, epoch_end_callback=lambda epoch, sym, arg, aux: history.append(metric.get()[1]))
    arg_params, aux_params = module.get_params()
    for key, value in prefix("final_arg:").items():
        np.testing.assert_allclose(arg_params[key].asnumpy(), value, rtol=1e-4, atol=1e-5, err_msg=key)
    for key, value in prefix("final_aux:").items():
        np.testing.assert_allclose(aux_params[key].asnumpy(), value, rtol=1e-4, atol=1e-5, err_msg=key)
    predictions = module.predict(mx.io.NDArrayIter(ref["x"], ref["y"], batch_size=batch))
    np.testing.assert_allclose(predictions.asnumpy(), ref["predict"], rtol=1e-4, atol=1e-5)
    score = dict(module.score(mx.io.NDArrayIter(ref["x"], ref["y"], batch_size=batch), "acc"))["accuracy"]
    if name == "mlp_pad":
        # deliberate difference: padding rows are not counted (MXNet scored 40 rows for 37 samples)
        expected = float(np.mean(ref["predict"].argmax(1) == ref["y"]))
        assert score == pytest.approx(expected)
        assert len(ref["y"]) == 37
    else:
        assert score == pytest.approx(float(ref["score_acc"]))
        np.testing.assert_allclose(history, ref["train_acc"])


def make_module(batch=8, **kwargs):
    module = mx.mod.Module(mlp(), **kwargs)
    module.bind(data_shapes=[("data", (batch, 6))], label_shapes=[("softmax_label", (batch,))])
    return module


def test_state_flags_and_shapes():
    module = mx.mod.Module(mlp())
    assert not module.binded and not module.params_initialized and not module.optimizer_initialized
    module.bind(data_shapes=[("data", (8, 6))], label_shapes=[("softmax_label", (8,))])
    assert module.binded and module.for_training and not module.inputs_need_grad
    assert module.data_names == ["data"] and module.output_names == ["softmax_output"]
    assert [tuple(d.shape) for d in module.data_shapes] == [(8, 6)]
    assert [tuple(d.shape) for d in module.label_shapes] == [(8,)]
    assert module.output_shapes == [("softmax_output", (8, 4))]
    module.init_params(mx.init.Xavier())
    assert module.params_initialized
    arg_params, aux_params = module.get_params()
    assert sorted(arg_params) == ["fc1_bias", "fc1_weight", "fc2_bias", "fc2_weight"]
    assert arg_params["fc1_weight"].shape == (16, 6) and aux_params == {}
    module.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1})
    assert module.optimizer_initialized
    assert module._optimizer.rescale_grad == pytest.approx(1 / 8)
    assert module._total_exec_bytes > 0


def test_calls_out_of_order_name_the_missing_step():
    module = mx.mod.Module(mlp())
    batch = mx.io.DataBatch([mx.nd.ones((8, 6))], [mx.nd.zeros((8,))])
    with pytest.raises(mx.MXNetError, match="bind"):
        module.forward(batch)
    with pytest.raises(mx.MXNetError, match="bind"):
        module.init_params()
    module.bind(data_shapes=[("data", (8, 6))], label_shapes=[("softmax_label", (8,))])
    with pytest.raises(mx.MXNetError, match="init_params"):
        module.forward(batch)
    module.init_params()
    with pytest.raises(mx.MXNetError, match="init_optimizer"):
        module.update()
    module.forward(batch)
    module.backward()
    module.init_optimizer()
    module.update()


def test_bad_batch_shape_names_input_and_shapes():
    module = make_module()
    module.init_params()
    bad = mx.io.DataBatch([mx.nd.ones((8, 7))], [mx.nd.zeros((8,))])
    with pytest.raises(mx.MXNetError) as info:
        module.forward(bad)
    message = str(info.value)
    assert "data" in message and "(8, 7)" in message and "(8, 6)" in message


def test_bad_data_names_raise():
    with pytest.raises(mx.MXNetError, match="datax"):
        mx.mod.Module(mlp(), data_names=["datax"])
    module = mx.mod.Module(mlp())
    with pytest.raises(mx.MXNetError, match="don't match"):
        module.bind(data_shapes=[("other", (8, 6))])


def test_forward_reshapes_for_a_new_batch_size_and_shares_parameters():
    module = make_module()
    module.init_params(mx.init.Xavier())
    module.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.5})
    x = np.random.RandomState(0).randn(8, 6).astype("float32")
    module.forward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.zeros((8,))]), is_train=False)
    full = module.get_outputs()[0].asnumpy()
    module.forward(mx.io.DataBatch([mx.nd.array(x[:3])], [mx.nd.zeros((3,))]), is_train=False)
    assert module.get_outputs()[0].shape == (3, 4)
    np.testing.assert_allclose(module.get_outputs()[0].asnumpy(), full[:3], rtol=1e-6)
    assert [tuple(d.shape) for d in module.data_shapes] == [(3, 6)]
    # a training step at the new size changes the parameters seen by the original size
    module.forward(mx.io.DataBatch([mx.nd.array(x[:3])], [mx.nd.array([0, 1, 2])]), is_train=True)
    module.backward()
    module.update()
    module.forward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.zeros((8,))]), is_train=False)
    assert not np.allclose(module.get_outputs()[0].asnumpy(), full)


def test_inference_module_without_labels_predicts_any_batch_size():
    trained = make_module()
    trained.init_params(mx.init.Xavier())
    arg_params, aux_params = trained.get_params()
    module = mx.mod.Module(mlp(), label_names=None)
    module.bind(data_shapes=[("data", (8, 6))], for_training=False)
    # as MXNet inference scripts do: the label is then an unused "parameter"
    module.set_params(arg_params, aux_params, allow_missing=True)
    x = np.random.RandomState(1).randn(5, 6).astype("float32")
    result = module.predict(mx.nd.array(x))
    trained.forward(mx.io.DataBatch([mx.nd.array(np.concatenate([x, x[:3]]))], [mx.nd.zeros((8,))]),
                    is_train=False)
    np.testing.assert_allclose(result.asnumpy(), trained.get_outputs()[0].asnumpy()[:5], rtol=1e-6)


def test_input_grads_and_grad_req_add():
    module = mx.mod.Module(mlp())
    module.bind(data_shapes=[("data", (4, 6))], label_shapes=[("softmax_label", (4,))], inputs_need_grad=True,
                grad_req="add")
    module.init_params(mx.init.Xavier())
    batch = mx.io.DataBatch([mx.nd.array(np.random.RandomState(2).randn(4, 6))], [mx.nd.array([0, 1, 2, 3])])
    module.forward_backward(batch)
    first = module.get_input_grads()[0].asnumpy().copy()
    weight_grad = module._exec_group.grad_arrays[0][0].asnumpy().copy()
    module.forward_backward(batch)
    np.testing.assert_allclose(module.get_input_grads()[0].asnumpy(), 2 * first, rtol=1e-5)
    np.testing.assert_allclose(module._exec_group.grad_arrays[0][0].asnumpy(), 2 * weight_grad, rtol=1e-5)
    # the data gradient equals the chain rule through the network computed independently
    assert np.abs(first).sum() > 0


def test_fixed_param_names_are_not_updated():
    module = mx.mod.Module(mlp(), fixed_param_names=["fc1_weight"])
    module.bind(data_shapes=[("data", (8, 6))], label_shapes=[("softmax_label", (8,))])
    module.init_params(mx.init.Xavier())
    module.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 1.0})
    before = {k: v.asnumpy().copy() for k, v in module.get_params()[0].items()}
    batch = mx.io.DataBatch([mx.nd.array(np.random.RandomState(3).randn(8, 6))], [mx.nd.arange(8) % 4])
    module.forward_backward(batch)
    module.update()
    after = module.get_params()[0]
    np.testing.assert_array_equal(after["fc1_weight"].asnumpy(), before["fc1_weight"])
    assert not np.allclose(after["fc1_bias"].asnumpy(), before["fc1_bias"])
    assert not np.allclose(after["fc2_weight"].asnumpy(), before["fc2_weight"])


def test_checkpoint_round_trip_and_load(tmp_path):
    module = make_module()
    module.init_params(mx.init.Xavier())
    module.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    batch = mx.io.DataBatch([mx.nd.array(np.random.RandomState(4).randn(8, 6))], [mx.nd.arange(8) % 4])
    module.forward_backward(batch)
    module.update()
    prefix = str(tmp_path / "model")
    module.save_checkpoint(prefix, 3, save_optimizer_states=True)
    for suffix in ("-symbol.json", "-0003.params", "-0003.states"):
        assert os.path.exists(prefix + suffix)
    loaded = mx.mod.Module.load(prefix, 3, load_optimizer_states=True)
    loaded.bind(data_shapes=[("data", (8, 6))], label_shapes=[("softmax_label", (8,))])
    loaded.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    for key, value in module.get_params()[0].items():
        np.testing.assert_array_equal(loaded.get_params()[0][key].asnumpy(), value.asnumpy())
    module.forward(batch, is_train=False)
    loaded.forward(batch, is_train=False)
    np.testing.assert_array_equal(loaded.get_outputs()[0].asnumpy(), module.get_outputs()[0].asnumpy())
    params_file = str(tmp_path / "plain.params")
    module.save_params(params_file)
    other = make_module()
    other.init_params()
    other.load_params(params_file)
    np.testing.assert_array_equal(other.get_params()[0]["fc2_weight"].asnumpy(),
                                  module.get_params()[0]["fc2_weight"].asnumpy())


def test_fit_calls_init_params_and_set_params_like_mxnet():
    calls = []

    class Recording(mx.mod.Module):
        def init_params(self, initializer=None, arg_params=None, aux_params=None, allow_missing=False,
                        force_init=False, allow_extra=False):
            calls.append(("init_params", initializer is None, force_init, allow_missing))
            super().init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                                allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)

    x = np.random.RandomState(5).randn(16, 6).astype("float32")
    y = (np.arange(16) % 4).astype("float32")
    module = Recording(mlp())
    module.fit(mx.io.NDArrayIter(x, y, batch_size=8), num_epoch=2, initializer=mx.init.Xavier())
    # fit: one init_params with the initializer, then set_params -> init_params(None, force_init=True) per epoch
    assert calls == [("init_params", False, False, False), ("init_params", True, True, False),
                     ("init_params", True, True, False)]


def test_fit_logs_mxnet_epoch_lines(caplog):
    x = np.random.RandomState(6).randn(16, 6).astype("float32")
    y = (np.arange(16) % 4).astype("float32")
    module = mx.mod.Module(mlp())
    with caplog.at_level(logging.INFO):
        module.fit(mx.io.NDArrayIter(x, y, batch_size=8), eval_data=mx.io.NDArrayIter(x, y, batch_size=8),
                   num_epoch=1)
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("Epoch[0] Train-accuracy=") for m in messages)
    assert any(m.startswith("Epoch[0] Time cost=") for m in messages)
    assert any(m.startswith("Epoch[0] Validation-accuracy=") for m in messages)


def test_fit_without_labels_works():
    data = mx.sym.Variable("data")
    loss = mx.sym.MakeLoss(mx.sym.sum(mx.sym.square(mx.sym.FullyConnected(data, num_hidden=2, name="fc"))),
                           name="loss")
    x = np.random.RandomState(7).randn(16, 3).astype("float32")
    train = mx.io.NDArrayIter(x, None, batch_size=8)
    assert train.provide_label == []
    module = mx.mod.Module(loss, label_names=None)
    module.fit(train, num_epoch=3, eval_metric="loss", optimizer_params={"learning_rate": 0.01},
               initializer=mx.init.Xavier())
    weights = module.get_params()[0]["fc_weight"].asnumpy()
    assert np.all(np.isfinite(weights))
