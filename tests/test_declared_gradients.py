"""Gradients MXNet defines itself are declared on the operator (``Operator.backward``) and run by
the registry inside one torch.autograd.Function, for the executor and for mx.autograd alike."""
import json
import os

import numpy as np
import pytest
import torch

import mxtorch as mx
from mxtorch.ops.registry import Operator, get_operator

DATA = os.path.join(os.path.dirname(__file__), "data", "gradients", "cast_chains.json")
with open(DATA) as handle:
    REFERENCE = json.load(handle)


def _chain_ids(case):
    return "-".join(case["chain"])


@pytest.mark.parametrize("case", REFERENCE["cases"], ids=_chain_ids)
def test_cast_chain_gradient_matches_mxnet_executor(case):
    data, head = np.array(REFERENCE["data"], np.float32), np.array(REFERENCE["head"], np.float32)
    net = mx.sym.var("x")
    for dtype in case["chain"]:
        net = mx.sym.Cast(net, dtype=dtype)
    executor = net.bind(mx.cpu(), {"x": mx.nd.array(data)}, args_grad={"x": mx.nd.zeros(data.shape)})
    output = executor.forward(is_train=True)[0]
    np.testing.assert_array_equal(output.asnumpy().astype(np.float64), case["output"])
    executor.backward(mx.nd.array(head, dtype=output.dtype))
    np.testing.assert_array_equal(executor.grad_dict["x"].asnumpy(), np.array(case["gradient"], np.float32))


@pytest.mark.parametrize("case", REFERENCE["cases"], ids=_chain_ids)
def test_cast_chain_gradient_matches_mxnet_autograd(case):
    data, head = np.array(REFERENCE["data"], np.float32), np.array(REFERENCE["head"], np.float32)
    x = mx.nd.array(data)
    x.attach_grad()
    with mx.autograd.record():
        y = x
        for dtype in case["chain"]:
            y = mx.nd.Cast(y, dtype=dtype)
    y.backward(mx.nd.array(head, dtype=y.dtype))
    np.testing.assert_array_equal(x.grad.asnumpy(), np.array(case["autograd_gradient"], np.float32))


def test_float_int_float_chain_passes_gradient_into_downstream_ops():
    # the integer segment sits inside a graph: gradient of sum(2 * Cast(Cast(x, int32), float32))
    x = mx.sym.var("x")
    net = mx.sym.sum(mx.sym.Cast(mx.sym.Cast(x, dtype="int32"), dtype="float32") * 2)
    executor = net.bind(mx.cpu(), {"x": mx.nd.array([1.5, -3.2])}, args_grad={"x": mx.nd.zeros((2,))})
    executor.forward(is_train=True)
    executor.backward()
    np.testing.assert_array_equal(executor.grad_dict["x"].asnumpy(), [2.0, 2.0])


def test_operators_declare_their_gradients():
    for name in ("Cast", "SoftmaxOutput", "LinearRegressionOutput", "MakeLoss", "make_loss", "BlockGrad",
                 "max", "min", "clip", "tile", "SVMOutput", "IdentityAttachKLSparseReg", "Pooling"):
        assert get_operator(name).backward is not Operator.backward, name
    assert Operator.backward is None


def test_declared_backward_runs_in_one_autograd_function():
    data = torch.randn(3, 4, requires_grad=True)
    label = torch.tensor([0.0, 2.0, 1.0])
    op = get_operator("SoftmaxOutput")({})
    with torch.enable_grad():
        (output,) = op.apply(True, [data, label], [])
    assert type(output.grad_fn).__name__ == "_DeclaredGradientBackward"
    # whatever head gradient arrives, SoftmaxOutput writes softmax - onehot(label)
    (grad,) = torch.autograd.grad(output, [data], torch.full((3, 4), 5.0))
    expected = torch.softmax(data.detach(), 1) - torch.nn.functional.one_hot(label.long(), 4)
    torch.testing.assert_close(grad, expected)


def test_selu_gradient_is_mxnets_rule_and_elu_is_autograds():
    x = mx.nd.array([-1.0, 0.5])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.LeakyReLU(x, act_type="selu")
    y.backward()
    scale, alpha = 1.0507009873554805, 1.6732632423543772
    negative = scale * (scale * alpha * (np.exp(-1.0) - 1) + alpha)
    np.testing.assert_allclose(x.grad.asnumpy(), [negative, scale], rtol=1e-6)
    with mx.autograd.record():
        y = mx.nd.LeakyReLU(x, act_type="elu", slope=0.5)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [0.5 * np.exp(-1.0), 1.0], rtol=1e-6)


def test_integer_arguments_get_their_gradient_through_cast():
    # MXNet 1.9.1: Cast(int32 -> float32) with head gradient [-2.7, 1.5, 3.9, -0.2] gives the int32
    # argument the gradient [-2, 1, 3, 0] (truncated); int32 -> int32 passes the int head through
    head = np.array([[-2.7, 1.5, 3.9, -0.2]])
    for target in (np.float32, np.int32):
        y = mx.sym.Cast(mx.sym.Variable("x", dtype=np.int32), dtype=target)
        exe = y.simple_bind(ctx=mx.cpu(), x=(1, 4))
        exe.arg_arrays[0][:] = head
        exe.forward(is_train=True)
        exe.backward(mx.nd.array(head, dtype=target))
        assert exe.grad_arrays[0].dtype == np.int32
        np.testing.assert_array_equal(exe.grad_arrays[0].asnumpy(), [[-2, 1, 3, 0]])
