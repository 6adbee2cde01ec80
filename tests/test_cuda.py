"""The same computations on every available device: cpu always, cuda(0) when PyTorch sees a GPU
(the cuda cases are skipped on machines without one; bench/cuda_check.sh runs them where one
is lent).  Each case compares with NumPy or with the cpu result, so the cpu case checks the
test itself on every machine."""
import numpy as np
import pytest
import torch

import mxtorch as mx

CUDA = torch.cuda.is_available()
DEVICES = ["cpu", pytest.param("gpu", marks=pytest.mark.skipif(not CUDA, reason="PyTorch sees no CUDA device"))]


def context(kind):
    return mx.gpu(0) if kind == "gpu" else mx.cpu()


@pytest.mark.parametrize("kind", DEVICES)
def test_arrays_and_operators_on_the_device(kind):
    ctx = context(kind)
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = mx.nd.array(data, ctx=ctx)
    assert x.context == ctx
    y = mx.nd.dot(x, x.T) + mx.nd.relu(x - 5).sum(axis=1, keepdims=True)
    expected = data @ data.T + np.maximum(data - 5, 0).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(y.asnumpy(), expected, rtol=1e-5)
    assert y.context == ctx
    assert x.copyto(mx.cpu()).context == mx.cpu()


@pytest.mark.parametrize("kind", DEVICES)
def test_autograd_on_the_device(kind):
    x = mx.nd.array([[1.0, -2.0], [3.0, 4.0]], ctx=context(kind))
    x.attach_grad()
    with mx.autograd.record():
        y = (mx.nd.sigmoid(x) * x).sum()
    y.backward()
    s = 1 / (1 + np.exp(-x.asnumpy()))
    np.testing.assert_allclose(x.grad.asnumpy(), s + x.asnumpy() * s * (1 - s), rtol=1e-5)


def _train_module(ctx):
    mx.random.seed(7)
    np.random.seed(7)
    data = np.random.uniform(-1, 1, (64, 10)).astype(np.float32)
    label = (data.sum(axis=1) > 0).astype(np.float32)
    net = mx.sym.var("data")
    net = mx.sym.FullyConnected(net, num_hidden=16, name="fc1")
    net = mx.sym.Activation(net, act_type="relu")
    net = mx.sym.FullyConnected(net, num_hidden=2, name="fc2")
    net = mx.sym.SoftmaxOutput(net, name="softmax")
    module = mx.mod.Module(net, context=ctx)
    train = mx.io.NDArrayIter(data, label, batch_size=16)
    module.fit(train, num_epoch=3, optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9},
               initializer=mx.init.Xavier(rnd_type="uniform", magnitude=1.0))
    arg_params, _ = module.get_params()
    return {name: value.asnumpy() for name, value in arg_params.items()}


@pytest.mark.parametrize("kind", DEVICES)
def test_module_training_gives_the_cpu_numbers(kind):
    reference = _train_module(mx.cpu())
    trained = _train_module(context(kind))
    for name, value in reference.items():
        np.testing.assert_allclose(trained[name], value, rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("kind", DEVICES)
def test_hybridized_gluon_step_on_the_device(kind):
    ctx = context(kind)
    results = []
    for device in (mx.cpu(), ctx):
        mx.random.seed(3)
        net = mx.gluon.nn.HybridSequential()
        net.add(mx.gluon.nn.Conv2D(4, 3, padding=1), mx.gluon.nn.BatchNorm(), mx.gluon.nn.Activation("relu"),
                mx.gluon.nn.GlobalAvgPool2D(), mx.gluon.nn.Dense(3))
        net.initialize(mx.init.Xavier(), ctx=device)
        net.hybridize()
        trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
        x = mx.nd.array(np.linspace(-1, 1, 2 * 3 * 8 * 8).reshape(2, 3, 8, 8), ctx=device)
        label = mx.nd.array([0, 2], ctx=device)
        loss_function = mx.gluon.loss.SoftmaxCrossEntropyLoss()
        with mx.autograd.record():
            loss = loss_function(net(x), label)
        loss.backward()
        trainer.step(2)
        results.append(net(x).asnumpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("kind", DEVICES)
def test_float16_inference_on_the_device(kind):
    ctx = context(kind)
    x = mx.nd.array(np.linspace(-1, 1, 32).reshape(4, 8), ctx=ctx)
    w = mx.nd.array(np.linspace(-0.5, 0.5, 24).reshape(3, 8), ctx=ctx)
    full = mx.nd.FullyConnected(x, w, no_bias=True, num_hidden=3)
    half = mx.nd.FullyConnected(x.astype("float16"), w.astype("float16"), no_bias=True, num_hidden=3)
    assert half.dtype == np.float16
    np.testing.assert_allclose(half.asnumpy().astype(np.float32), full.asnumpy(), rtol=1e-2, atol=1e-3)


@pytest.mark.parametrize("kind", DEVICES)
def test_kvstore_sums_device_arrays(kind):
    ctx = context(kind)
    kv = mx.kv.create("device")
    kv.init("w", mx.nd.zeros((2, 3), ctx=ctx))
    kv.push("w", [mx.nd.ones((2, 3), ctx=ctx), mx.nd.ones((2, 3), ctx=ctx) * 2])
    out = mx.nd.zeros((2, 3), ctx=ctx)
    kv.pull("w", out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.full((2, 3), 3.0))
