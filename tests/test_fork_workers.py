"""Worker processes that compute with mxtorch: MXNet 1.9.1 restarted its engine in a forked
child, so a ``multiprocessing.Pool`` of workers running Module forward passes (as face
detectors did) finished; without that a forked child hangs in torch's OpenMP thread pool."""
import multiprocessing

import numpy as np
import pytest

import mxtorch as mx

_MODULE = None


def _module():
    global _MODULE
    if _MODULE is None:
        mx.random.seed(3)
        data = mx.sym.var("data")
        net = mx.sym.Convolution(data, num_filter=8, kernel=(3, 3), name="conv")
        net = mx.sym.Activation(net, act_type="relu")
        net = mx.sym.FullyConnected(net, num_hidden=5, name="fc")
        module = mx.mod.Module(net, label_names=None, context=mx.cpu())
        module.bind(data_shapes=[("data", (4, 3, 24, 24))], for_training=False)
        module.init_params(mx.init.Xavier())
        _MODULE = module
    return _MODULE


def _batch(seed):
    return np.random.RandomState(seed).rand(4, 3, 24, 24).astype(np.float32)


def _forward(seed):
    module = _module()
    module.forward(mx.io.DataBatch([mx.nd.array(_batch(seed))]), is_train=False)
    return module.get_outputs()[0].asnumpy()


def _imperative(seed):
    x = mx.nd.array(_batch(seed))
    return (mx.nd.dot(x.reshape((4, -1)), x.reshape((4, -1)).T) + 1).asnumpy()


def _train_steps(seed):
    """Three SGD steps of a small convolutional Module on fixed data; returns the weights."""
    mx.random.seed(seed)
    data = mx.sym.var("data")
    net = mx.sym.Convolution(data, num_filter=4, kernel=(3, 3), name="conv")
    net = mx.sym.FullyConnected(mx.sym.Activation(net, act_type="relu"), num_hidden=3, name="fc")
    net = mx.sym.SoftmaxOutput(net, name="softmax")
    module = mx.mod.Module(net, context=mx.cpu())
    module.bind(data_shapes=[("data", (4, 3, 12, 12))], label_shapes=[("softmax_label", (4,))])
    module.init_params(mx.init.Xavier())
    module.init_optimizer(optimizer_params={"learning_rate": 0.1})
    batch = mx.io.DataBatch([mx.nd.array(_batch(seed)[:, :, :12, :12])], [mx.nd.array([0, 1, 2, 1])])
    for _ in range(3):
        module.forward_backward(batch)
        module.update()
    return module.get_params()[0]["fc_weight"].asnumpy()


def _run_in_pool(method, function, seeds):
    pool = multiprocessing.get_context(method).Pool(2)
    try:
        return pool.map_async(function, seeds).get(timeout=90)
    finally:
        pool.terminate()
        pool.join()


def test_forked_workers_run_modules_computed_in_the_parent_first():
    expected = [_forward(seed) for seed in range(4)]      # the parent computes first (its thread pool runs)
    results = _run_in_pool("fork", _forward, range(4))
    for got, want in zip(results, expected):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    imperative = _run_in_pool("fork", _imperative, [7, 8])
    np.testing.assert_allclose(imperative[0], _imperative(7), rtol=1e-5)
    trained = _train_steps(5)
    np.testing.assert_allclose(_run_in_pool("fork", _train_steps, [5])[0], trained, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_fresh_worker_processes_compute_the_same(method):
    results = _run_in_pool(method, _imperative, [1, 2])
    np.testing.assert_allclose(results[1], _imperative(2), rtol=1e-5)
