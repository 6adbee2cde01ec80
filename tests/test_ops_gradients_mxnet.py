"""Operator values and gradients checked against MXNet 1.9.1 (expected values printed by MXNet):
SoftmaxOutput labels, rint, MAE, BatchNorm fix_gamma, amp_cast, cumsum, hard_sigmoid, cast_storage."""
import numpy as np

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
