"""Gluon Block / HybridBlock / Parameter / Trainer / losses / rnn against MXNet 1.9.1.

Reference values come from tools/make_gluon_reference.py run under real MXNet 1.9.1
(tests/data/gluon/)."""
import os

import numpy as np
import pytest

import mxtorch as mx
from mxtorch import autograd, gluon
from mxtorch.base import MXNetError
from mxtorch.gluon import nn, rnn

DATA = os.path.join(os.path.dirname(__file__), "data", "gluon")
REF = np.load(os.path.join(DATA, "reference.npz"))


def build_net():
    net = nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, in_channels=2), nn.BatchNorm(in_channels=4), nn.Activation("relu"),
                nn.MaxPool2D(2), nn.Dense(3, in_units=4 * 3 * 3))
    return net


def test_names_follow_mxnet():
    net = build_net()
    assert list(net.collect_params().keys()) == [
        "net_conv0_weight", "net_conv0_bias", "net_batchnorm0_gamma", "net_batchnorm0_beta",
        "net_batchnorm0_running_mean", "net_batchnorm0_running_var", "net_dense0_weight", "net_dense0_bias"]


@pytest.mark.parametrize("hybridize", [False, True])
def test_mxnet_trained_params_forward_backward(hybridize):
    net = build_net()
    net.load_parameters(os.path.join(DATA, "net.params"))
    if hybridize:
        net.hybridize()
    x = mx.nd.array(REF["net_x"])
    np.testing.assert_allclose(net(x).asnumpy(), REF["net_predict"], rtol=1e-5, atol=1e-5)
    x.attach_grad()
    with autograd.record():
        y = net(x)
        loss = (y * y).sum()
    loss.backward()
    np.testing.assert_allclose(y.asnumpy(), REF["net_train"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(x.grad.asnumpy(), REF["net_grad_x"], rtol=1e-4, atol=1e-5)
    params = net._collect_params_with_prefix()
    for key in REF.files:
        if key.startswith("net_grad."):
            np.testing.assert_allclose(params[key[9:]].grad().asnumpy(), REF[key], rtol=1e-4, atol=1e-5)
        elif key.startswith("net_after."):
            np.testing.assert_allclose(params[key[10:]].data().asnumpy(), REF[key], rtol=1e-5, atol=1e-6)


def test_hybridize_rebinds_new_shape_without_reinitialising():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(4, activation="tanh"), nn.Dense(2))
    net.initialize()
    net.hybridize()
    first = net(mx.nd.ones((3, 5)))
    weight = net[0].weight.data().asnumpy().copy()
    second = net(mx.nd.ones((7, 5)))
    assert second.shape == (7, 2)
    np.testing.assert_array_equal(net[0].weight.data().asnumpy(), weight)
    np.testing.assert_allclose(second.asnumpy()[:3], first.asnumpy(), rtol=1e-6)
    assert len(net._cached_op._executors) == 2


def test_export_loads_in_module_and_symbolblock(tmp_path):
    net = build_net()
    net.load_parameters(os.path.join(DATA, "net.params"))
    net.hybridize()
    x = mx.nd.array(REF["net_x"])
    expected = net(x).asnumpy()
    symbol_file, params_file = net.export(str(tmp_path / "net"), epoch=3)
    assert params_file.endswith("net-0003.params")
    saved = mx.nd.load(params_file)
    assert "arg:net_conv0_weight" in saved and "aux:net_batchnorm0_running_mean" in saved
    module = mx.mod.Module.load(str(tmp_path / "net"), 3, data_names=["data"], label_names=None)
    module.bind([("data", x.shape)], for_training=False)
    module.forward(mx.io.DataBatch([x]), is_train=False)
    np.testing.assert_allclose(module.get_outputs()[0].asnumpy(), REF["net_predict"], rtol=1e-5, atol=1e-5)
    block = gluon.SymbolBlock.imports(symbol_file, ["data"], params_file)
    np.testing.assert_allclose(block(x).asnumpy(), expected, rtol=1e-6, atol=1e-6)


def test_parameter_before_initialize_raises():
    dense = nn.Dense(3, in_units=2)
    with pytest.raises(MXNetError, match="dense.*weight.*has not been initialized"):
        dense.weight.data()
    with pytest.raises(MXNetError, match="has not been initialized"):
        dense(mx.nd.ones((1, 2)))


def test_load_parameters_shape_mismatch_names_both_shapes(tmp_path):
    path = str(tmp_path / "p.params")
    mx.nd.save(path, {"weight": mx.nd.ones((3, 4)), "bias": mx.nd.ones((3,))})
    dense = nn.Dense(3, in_units=5)
    with pytest.raises(MXNetError, match=r"dense\d+_weight.*\(3, 5\).*\(3, 4\)"):
        dense.load_parameters(path)


def test_hybrid_forward_missing_function_is_clear():
    class Bad(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.no_such_operator(x)
    block = Bad()
    with pytest.raises(MXNetError, match="mx.nd.*no_such_operator"):
        block(mx.nd.ones((2,)))
    block.hybridize()
    with pytest.raises(MXNetError, match="mx.sym.*no_such_operator"):
        block(mx.nd.ones((2,)))


def test_deferred_init_and_save_load_roundtrip(tmp_path):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(4), nn.Dense(2))
    net.initialize()
    assert net[0].weight.shape == (4, 0)
    x = mx.nd.array(np.arange(6, dtype="float32").reshape(2, 3))
    y = net(x).asnumpy()
    assert net[0].weight.shape == (4, 3)
    net.save_parameters(str(tmp_path / "a.params"))
    assert sorted(mx.nd.load(str(tmp_path / "a.params"))) == ["0.bias", "0.weight", "1.bias", "1.weight"]
    other = nn.HybridSequential()
    with other.name_scope():
        other.add(nn.Dense(4), nn.Dense(2))
    other.load_parameters(str(tmp_path / "a.params"))
    np.testing.assert_allclose(other(x).asnumpy(), y, rtol=1e-6)


@pytest.mark.parametrize("name", ["l2", "l1", "sce_sparse", "sce_dense", "bce", "bce_prob", "kl", "huber", "hinge",
                                  "sq_hinge", "logistic", "logistic_binary", "triplet", "poisson", "cosine", "ctc"])
@pytest.mark.parametrize("hybridize", [False, True])
def test_losses_match_mxnet(name, hybridize):
    P, L = mx.nd.array(REF["loss_pred"]), mx.nd.array(REF["loss_label"])
    W = mx.nd.array(REF["loss_weights"])
    sign = mx.nd.array(np.sign(REF["loss_label"]))
    prob = mx.nd.array(1 / (1 + np.exp(-REF["loss_pred"])))
    loss = gluon.loss
    cases = {
        "l2": (loss.L2Loss(), (P, L, W)),
        "l1": (loss.L1Loss(weight=0.5), (P, L)),
        "sce_sparse": (loss.SoftmaxCrossEntropyLoss(), (P, mx.nd.array(REF["loss_sparse"]))),
        "sce_dense": (loss.SoftmaxCrossEntropyLoss(sparse_label=False), (P, mx.nd.softmax(L))),
        "bce": (loss.SigmoidBinaryCrossEntropyLoss(), (P, L > 0, W)),
        "bce_prob": (loss.SigmoidBinaryCrossEntropyLoss(from_sigmoid=True), (prob, L > 0)),
        "kl": (loss.KLDivLoss(), (mx.nd.log_softmax(P), mx.nd.softmax(L))),
        "huber": (loss.HuberLoss(rho=0.7), (P, L)),
        "hinge": (loss.HingeLoss(), (P, sign)),
        "sq_hinge": (loss.SquaredHingeLoss(), (P, sign)),
        "logistic": (loss.LogisticLoss(), (P, sign)),
        "logistic_binary": (loss.LogisticLoss(label_format="binary"), (P, L > 0)),
        "triplet": (loss.TripletLoss(), (P, L, L * 0.5)),
        "poisson": (loss.PoissonNLLLoss(), (P, mx.nd.abs(L))),
        "cosine": (loss.CosineEmbeddingLoss(), (P, L, mx.nd.array([1, -1, 1, -1]))),
        "ctc": (loss.CTCLoss(), (mx.nd.array(REF["ctc_pred"]), mx.nd.array([[1, 2, -1], [2, 2, 1]]))),
    }
    block, args = cases[name]
    if hybridize:
        block.hybridize()
    np.testing.assert_allclose(block(*args).asnumpy(), REF["loss." + name], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("hybridize", [False, True])
def test_lstm_layer_matches_mxnet(hybridize):
    layer = rnn.LSTM(5, num_layers=2, bidirectional=True, input_size=3, prefix="lstm_")
    layer.load_parameters(os.path.join(DATA, "lstm.params"))
    if hybridize:
        layer.hybridize()
    out, states = layer(mx.nd.array(REF["lstm_x"]), layer.begin_state(2))
    np.testing.assert_allclose(out.asnumpy(), REF["lstm_out"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(states[0].asnumpy(), REF["lstm_h"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(states[1].asnumpy(), REF["lstm_c"], rtol=1e-5, atol=1e-6)


def test_gru_cell_unroll_valid_length_matches_mxnet():
    cell = rnn.GRUCell(4, input_size=3, prefix="gru_")
    cell.load_parameters(os.path.join(DATA, "gru_cell.params"))
    outputs, states = cell.unroll(4, mx.nd.array(REF["lstm_x"]), layout="TNC", merge_outputs=True,
                                  valid_length=mx.nd.array([4, 2]))
    np.testing.assert_allclose(outputs.asnumpy(), REF["gru_out"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(states[0].asnumpy(), REF["gru_state"], rtol=1e-5, atol=1e-6)


def test_trainer_sgd_momentum_matches_mxnet(tmp_path):
    dense = nn.Dense(2, in_units=3, prefix="fc_")
    dense.initialize(mx.init.Constant(0.3))
    trainer = gluon.Trainer(dense.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01})
    data = mx.nd.array(REF["trainer_x"])
    for _ in range(2):
        with autograd.record():
            loss = (dense(data) ** 2).sum()
        loss.backward()
        trainer.step(4)
    np.testing.assert_allclose(dense.weight.data().asnumpy(), REF["trainer_weight"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dense.bias.data().asnumpy(), REF["trainer_bias"], rtol=1e-5, atol=1e-6)
    trainer.save_states(str(tmp_path / "t.states"))
    trainer.load_states(str(tmp_path / "t.states"))
    assert trainer.learning_rate == 0.1
    # a step without a new backward: stale gradients are reported
    with pytest.raises(UserWarning, match="fc_(weight|bias)"):
        trainer.step(4)


def test_parameter_dtype_is_kept_as_given_like_mxnet():
    # MXNet 1.9.1: 'float16', numpy.float64, dtype('float32'), then 'float32' / 'float16' for Dense
    param = mx.gluon.Parameter("w", dtype="float16", shape=(2,))
    assert param.dtype == "float16"
    param.initialize()
    param.cast(np.float64)
    assert param.dtype is np.float64 and param.data().dtype == np.float64
    param.cast(np.dtype("float32"))
    assert param.dtype == np.dtype("float32")
    net = mx.gluon.nn.Dense(2, in_units=3)
    assert net.weight.dtype == "float32"
    net.initialize()
    net.cast("float16")
    assert net.weight.dtype == "float16" and net.weight.data().dtype == np.float16
    with pytest.raises(mx.MXNetError, match="unknown dtype 'flot16'") as info:
        net.cast("flot16")
    assert isinstance(info.value, TypeError)


def test_parameterless_block_export_imports_and_unnamed_files_raise(tmp_path):
    # A block without Parameters exports a parameter file of zero records, which reads back as a
    # list (MXNet's format stores no names then); MXNet 1.9.1's ParameterDict.load and
    # SymbolBlock.imports take it as the empty dict.
    data = mx.sym.var("data")
    block = gluon.SymbolBlock(mx.sym.relu(data) * 2, [data])
    block.hybridize()
    x = mx.nd.array([[-1.0, 0.5], [2.0, -3.0]])
    expected = block(x).asnumpy()
    symbol_file, params_file = block.export(str(tmp_path / "noparams"))
    assert mx.nd.load(params_file) == []
    loaded = gluon.SymbolBlock.imports(symbol_file, ["data"], params_file)
    np.testing.assert_array_equal(loaded(x).asnumpy(), expected)
    np.testing.assert_array_equal(expected, [[0.0, 1.0], [4.0, 0.0]])
    path = str(tmp_path / "unnamed.params")
    mx.nd.save(path, [mx.nd.ones((2,))])
    with pytest.raises(MXNetError, match="load_parameters: .*list of 1 arrays"):
        nn.Dense(2, in_units=2).load_parameters(path)
    with pytest.raises(MXNetError, match="load: .*list of 1 arrays"):
        gluon.ParameterDict().load(path)
