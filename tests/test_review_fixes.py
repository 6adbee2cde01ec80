"""Behaviours found by a fresh review against MXNet 1.9.1 (expected values printed by MXNet)."""
import numpy as np
import pytest

import mxtorch as mx


def softmax_grad(data, label, **attrs):
    symbol = mx.sym.SoftmaxOutput(mx.sym.Variable("data"), name="op", **attrs)
    executor = symbol.simple_bind(mx.cpu(), data=data.shape, op_label=label.shape)
    executor.arg_dict["data"][:] = data
    executor.arg_dict["op_label"][:] = label
    executor.forward(is_train=True)
    executor.backward()
    return executor.grad_dict["data"].asnumpy()


def test_softmax_output_out_of_range_labels_have_no_target():
    grad = softmax_grad(np.zeros((4, 3)), np.array([0, 1, 7, -3]))
    third = 1 / 3
    np.testing.assert_allclose(grad, [[third - 1, third, third], [third, third - 1, third],
                                      [third, third, third], [third, third, third]], rtol=1e-6)
    grad = softmax_grad(np.zeros((1, 3, 2)), np.array([[5, 1]]), multi_output=True)
    np.testing.assert_allclose(grad[0], [[1 / 6, 1 / 6], [1 / 6, -1 / 3], [1 / 6, 1 / 6]], rtol=1e-6)


def test_softmax_output_probability_labels():
    grad = softmax_grad(np.zeros((2, 3)), np.array([[0, 1, 0], [0.5, 0.5, 0]]))
    third = 1 / 3
    np.testing.assert_allclose(grad, [[third, third - 1, third], [third - 0.5, third - 0.5, third]], rtol=1e-6)


def test_rint_and_mae_gradient_follow_mxnet():
    values = mx.nd.rint(mx.nd.array([0.5, 1.5, 2.5, -0.5, -1.5, 0.7, -0.7, 3.5])).asnumpy()
    assert values.tolist() == [0, 1, 2, -1, -2, 1, -1, 3]
    assert mx.nd.round(mx.nd.array([0.5, 1.5, 2.5, -0.5, -1.5])).asnumpy().tolist() == [1, 2, 3, -1, -2]
    symbol = mx.sym.MAERegressionOutput(mx.sym.Variable("data"), name="op")
    executor = symbol.simple_bind(mx.cpu(), data=(2, 1))
    executor.arg_dict["data"][:] = np.array([[1.0], [2.0]])
    executor.arg_dict["op_label"][:] = np.array([1.0, 1.0])
    executor.forward(is_train=True)
    executor.backward()
    assert executor.grad_dict["data"].asnumpy().ravel().tolist() == [-1.0, 1.0]  # equality counts as -1


def test_fixed_gamma_is_written_as_one_in_training():
    net = mx.sym.BatchNorm(mx.sym.Variable("data"), name="bn")          # fix_gamma=True by default
    net = mx.sym.MakeLoss(mx.sym.sum(net))
    module = mx.mod.Module(net, label_names=None)
    module.bind(data_shapes=[("data", (4, 2))])
    module.init_params(mx.init.Constant(0.5))
    module.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "wd": 0.1})
    module.forward_backward(mx.io.DataBatch([mx.nd.array(np.random.RandomState(0).randn(4, 2))], None))
    module.update()
    # MXNet 1.9.1: gamma becomes 1 in the training pass, its gradient is 0, then weight decay: 0.99
    np.testing.assert_allclose(module.get_params()[0]["bn_gamma"].asnumpy(), [0.99, 0.99], rtol=1e-6)


@pytest.mark.parametrize("make", [
    lambda x: mx.sym.FullyConnected(x, num_hidden=0),
    lambda x: mx.sym.Convolution(x, kernel=(0, 3), num_filter=2),
    lambda x: mx.sym.Convolution(x, kernel=(3, 3), stride=(0, 1), num_filter=2),
    lambda x: mx.sym.Pooling(x, kernel=(2, 2), stride=(0, 0)),
])
def test_non_positive_sizes_are_rejected(make):
    with pytest.raises(mx.MXNetError, match="must"):
        make(mx.sym.Variable("x"))


def test_bad_contexts_and_bind_arguments_raise_mxnet_errors():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=2)
    if mx.num_gpus() == 0:
        with pytest.raises(mx.MXNetError, match="gpu\\(0\\).*no such GPU"):
            mx.nd.ones((2, 2), ctx=mx.gpu(0))
    with pytest.raises(mx.MXNetError, match="device_id"):
        mx.gpu(-1)
    with pytest.raises(mx.MXNetError, match="context must be"):
        mx.mod.Module(net, context="cpu")
    with pytest.raises(mx.MXNetError, match="symbol must be"):
        mx.mod.Module("net")
    with pytest.raises(mx.MXNetError, match="work_load_list"):
        mx.mod.Module(net, context=[mx.cpu(0), mx.cpu(1)], work_load_list=[1, -1])
    module = mx.mod.Module(net, label_names=None)
    with pytest.raises(mx.MXNetError, match="'data'.*non-negative integers.*4.5"):
        module.bind([("data", (4.5, 10))])
    with pytest.raises(mx.MXNetError, match="frequent"):
        mx.callback.Speedometer(8, 0)


def test_cli_rejects_values_that_train_nothing(capsys):
    from mxtorch import cli
    assert cli.main(["train", "--num-epochs", "0"]) == 1
    assert "--num-epochs must be at least 1" in capsys.readouterr().err
    assert cli.main(["train", "--lr", "nan"]) == 1
    assert "--lr must be a positive finite number" in capsys.readouterr().err


def test_contrib_package_reaches_contrib_operators():
    offset_free = mx.contrib.sym.DeformableConvolution(mx.sym.Variable("data"), mx.sym.Variable("offset"),
                                                       kernel=(3, 3), num_filter=2, name="dc")
    assert offset_free.list_arguments() == ["data", "offset", "dc_weight", "dc_bias"]
    boxes = mx.nd.array([[[0, 0.9, 0, 0, 1, 1], [0, 0.8, 0, 0, 1, 1]]])
    kept = mx.contrib.nd.box_nms(boxes, overlap_thresh=0.5, coord_start=2, score_index=1, id_index=0)
    assert kept.asnumpy()[0, 1, 0] == -1          # the overlapping lower-score box is suppressed


@pytest.mark.parametrize("kwargs", [{"momentum": "abc"}, {"learning_rate": "abc"}, {"wd": None}])
def test_optimizer_arguments_are_checked_when_created(kwargs):
    with pytest.raises(mx.MXNetError, match="must be a number"):
        mx.optimizer.create("sgd", **kwargs)


def test_roll_over_past_the_data_raises_mxnet_error():
    iterator = mx.io.NDArrayIter(np.ones((3, 2)), np.ones(3), batch_size=8, last_batch_handle="roll_over")
    assert list(iterator) == []          # as MXNet: the first epoch yields nothing
    iterator.reset()
    with pytest.raises(mx.MXNetError, match="cannot take samples"):
        list(iterator)                   # MXNet failed here with an operator error


def test_amp_cumsum_hard_sigmoid_cast_storage_match_mxnet():
    a, b = mx.sym.Variable("a"), mx.sym.Variable("b")
    multicast = mx.sym.amp_multicast(a, b, num_outputs=2)
    assert multicast.list_outputs() == ["amp_multicast0_output0", "amp_multicast0_output1"]
    assert multicast.infer_type(a="float16", b="float32")[1] == [np.float32, np.float32]
    narrow = mx.sym.amp_multicast(a, b, num_outputs=2, cast_narrow=True)
    assert narrow.infer_type(a="float16", b="float32")[1] == [np.float16, np.float16]
    x = mx.nd.array([[1, 2], [3, 4]])
    assert mx.nd.cumsum(x, axis=1).asnumpy().tolist() == [[1, 3], [3, 7]]
    assert mx.nd.cumsum(x).asnumpy().tolist() == [1, 3, 6, 10]
    np.testing.assert_allclose(mx.nd.hard_sigmoid(mx.nd.array([-5, 0, 1, 5])).asnumpy(), [0, 0.5, 0.7, 1],
                               rtol=1e-6)
    assert mx.nd.cast_storage(x, stype="row_sparse").asnumpy().tolist() == [[1, 2], [3, 4]]


@pytest.mark.parametrize("call, message", [
    (lambda nd: nd.FullyConnected(nd.ones((2, 4)), nd.ones((3, 4)), nd.ones(3), num_hidden=7), "weight"),
    (lambda nd: nd.Convolution(nd.ones((1, 1, 5, 5)), nd.ones((2, 1, 2, 2)), nd.ones(2), kernel=(3, 3),
                               num_filter=2), "weight"),
    (lambda nd: nd.SoftmaxOutput(nd.ones((2, 3)), nd.ones(5)), "label"),
    (lambda nd: nd.elemwise_add(nd.ones((2, 3)), nd.ones((3,))), "shape mismatch"),
    (lambda nd: nd.batch_dot(nd.ones((2, 3)), nd.ones((3, 2))), "at least 3 axes"),
    (lambda nd: nd.concat(nd.ones((2, 2)), nd.ones((2, 2)), dim=4), "dim 4"),
    (lambda nd: nd.FullyConnected(nd.ones((2, 4)), np.ones((3, 4)), np.ones(3), num_hidden=3), "must be an NDArray"),
    (lambda nd: nd.ones(2) + nd.ones(3), "do not broadcast"),
    (lambda nd: nd.zeros((-1, 2)), "non-negative"),
    (lambda nd: nd.ones(2, ctx="cpu(0)"), "ctx must be a Context"),
])
def test_imperative_calls_check_their_inputs(call, message):
    with pytest.raises(mx.MXNetError, match=message):
        call(mx.nd)


def test_symbol_files_in_latin1_load_and_garbage_raises(tmp_path):
    symbol = mx.sym.FullyConnected(mx.sym.Variable("donn\u00e9es"), num_hidden=2, name="fc")
    path = tmp_path / "latin-symbol.json"
    path.write_bytes(symbol.tojson().encode("latin-1"))
    assert mx.sym.load(str(path)).list_arguments() == ["donn\u00e9es", "fc_weight", "fc_bias"]
    garbage = tmp_path / "garbage-symbol.json"
    garbage.write_bytes(bytes(range(256)))
    with pytest.raises(mx.MXNetError, match="garbage-symbol.json"):
        mx.sym.load(str(garbage))


def test_random_namespaces_have_randn_and_shuffle():
    assert mx.sym.random.randn(2, 3, loc=1).infer_shape()[1] == [(2, 3)]
    assert mx.sym.random.shuffle(mx.sym.Variable("x")).name == "_shuffle0"
    values = mx.nd.random.shuffle(mx.nd.arange(6)).asnumpy()
    assert sorted(values.tolist()) == [0, 1, 2, 3, 4, 5]
    assert mx.nd.random.randn(2, 3).shape == (2, 3)


def test_set_params_with_unknown_names_is_also_a_value_error():
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2, name="fc")
    module = mx.mod.Module(net, label_names=None)
    module.bind(data_shapes=[("data", (1, 3))])
    module.init_params()
    arg_params, aux_params = module.get_params()
    extra = dict(arg_params, other_weight=mx.nd.ones((2, 3)))
    with pytest.raises(ValueError, match="'other_weight' is not an argument"):   # MXNet raised ValueError
        module.set_params(extra, aux_params, allow_missing=True)
    assert issubclass(mx.base.MXNetValueError, mx.MXNetError)
