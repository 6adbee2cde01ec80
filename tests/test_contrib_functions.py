"""The Python-level functions of mx.nd.contrib / mx.sym.contrib (rand_zipfian, the AdamW front
ends, uniform): expected counts from MXNet's formula ``num_sampled * log((k + 2) / (k + 1)) /
log(range_max + 1)``, AdamW numbers printed by MXNet 1.9.1."""
import math

import numpy as np

import mxtorch as mx


def expected_counts(classes, num_sampled, range_max):
    classes = np.asarray(classes, dtype=np.float64)
    return num_sampled * np.log((classes + 2) / (classes + 1)) / math.log(range_max + 1)


def test_rand_zipfian_imperative_and_symbolic():
    mx.random.seed(3)
    sampled, count_true, count_sampled = mx.nd.contrib.rand_zipfian(mx.nd.array([3.0, 0]), 50, 10)
    assert sampled.dtype == np.int64 and sampled.shape == (50,)
    values = sampled.asnumpy()
    assert values.min() >= 0 and values.max() < 10
    np.testing.assert_allclose(count_true.asnumpy(), expected_counts([3, 0], 50, 10))
    np.testing.assert_allclose(count_sampled.asnumpy(), expected_counts(values, 50, 10))
    # small classes are the most frequent (log-uniform): class 0 has probability log 2 / log 11
    assert (values == 0).sum() > (values == 9).sum()
    symbols = mx.sym.contrib.rand_zipfian(mx.sym.var("t"), 5, 10)
    outputs = mx.sym.Group(list(symbols)).bind(mx.cpu(), {"t": mx.nd.array([1.0])}).forward()
    np.testing.assert_allclose(outputs[1].asnumpy(), expected_counts([1], 5, 10))
    np.testing.assert_allclose(outputs[2].asnumpy(), expected_counts(outputs[0].asnumpy(), 5, 10))


def test_symbolic_adamw_update_with_a_number_rescale():
    names = ["weight", "grad", "mean", "var"]
    node = mx.sym.contrib.adamw_update(*[mx.sym.var(n) for n in names], rescale_grad=0.5, lr=0.1, eta=0.7, wd=0.3)
    assert node.list_arguments() == names
    values = [mx.nd.ones((2, 2)), mx.nd.array([[0.5, 1], [2, -1]]), mx.nd.ones((2, 2)) * 0.1, mx.nd.ones((2, 2)) * 0.2]
    out = node.bind(mx.cpu(), dict(zip(names, values))).forward()[0]
    np.testing.assert_allclose(out.asnumpy(), [[0.77199346, 0.7680893], [0.7603196, 0.7837398]], rtol=1e-6)


def test_contrib_namespaces_list_their_functions():
    for name in ("rand_zipfian", "adamw_update", "multi_lamb_update", "foreach", "fft"):
        assert name in dir(mx.nd.contrib)
    assert mx.nd.contrib.uniform is mx.nd.random.uniform or mx.nd.contrib.uniform is mx.random.uniform
    assert "adamw_update" in dir(mx.sym.contrib)
