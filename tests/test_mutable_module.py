"""MutableModule: re-binding on new shapes shares parameters, gradients and optimizer state."""
import gc
import weakref

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.executor import Executor


def conv_net():
    data = mx.sym.Variable("data")
    net = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv")
    net = mx.sym.Activation(net, act_type="relu")
    net = mx.sym.Pooling(net, global_pool=True, pool_type="avg", kernel=(1, 1), name="gap")
    net = mx.sym.FullyConnected(net, num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def batch(n, h, w, seed=0):
    rng = np.random.RandomState(seed)
    x = mx.nd.array(rng.randn(n, 2, h, w))
    y = mx.nd.array(rng.randint(0, 3, n))
    return mx.io.DataBatch([x], [y], provide_data=[mx.io.DataDesc("data", (n, 2, h, w))],
                           provide_label=[mx.io.DataDesc("softmax_label", (n,))])


def make(fixed_param_prefix=None):
    module = mx.mod.MutableModule(conv_net(), data_names=["data"], label_names=["softmax_label"],
                                  max_data_shapes=[("data", (2, 2, 12, 12))], fixed_param_prefix=fixed_param_prefix)
    module.bind(data_shapes=[("data", (2, 2, 8, 8))], label_shapes=[("softmax_label", (2,))])
    module.init_params(mx.init.Xavier())
    module.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    return module


def test_binds_at_max_shape_and_follows_batches():
    module = make()
    assert module.data_shapes[0].shape == (2, 2, 12, 12)
    module.forward(batch(2, 6, 9), is_train=False)
    assert module.data_shapes[0].shape == (2, 2, 6, 9)
    assert module.get_outputs()[0].shape == (2, 3)


def test_training_across_shapes_equals_a_plain_module_reshaped_each_step():
    mutable = make()
    arg_params, aux_params = mutable.get_params()
    plain = mx.mod.Module(conv_net())
    plain.bind(data_shapes=[("data", (2, 2, 12, 12))], label_shapes=[("softmax_label", (2,))])
    plain.set_params({k: v.copy() for k, v in arg_params.items()}, aux_params)
    plain.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    for step, (h, w) in enumerate([(6, 9), (12, 12), (5, 5), (6, 9), (10, 7)]):
        b = batch(2, h, w, seed=step)
        for module in (mutable, plain):
            module.forward(b, is_train=True)
            module.backward()
            module.update()
    for name, value in plain.get_params()[0].items():
        np.testing.assert_allclose(mutable.get_params()[0][name].asnumpy(), value.asnumpy(), rtol=1e-5, atol=1e-6)
    # momentum state lives in one updater shared by every binding
    assert len(mutable._max_module._updater.states) == len(mutable._max_module._param_names)


def test_fixed_param_prefix_freezes_parameters():
    module = make(fixed_param_prefix=["conv"])
    before = module.get_params()[0]["conv_weight"].asnumpy().copy()
    module.forward(batch(2, 7, 7), is_train=True)
    module.backward()
    module.update()
    np.testing.assert_array_equal(module.get_params()[0]["conv_weight"].asnumpy(), before)


def test_many_shape_changes_keep_a_bounded_number_of_executors():
    module = make()
    created = []
    original_init = Executor.__init__

    def tracking_init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        created.append(weakref.ref(self))

    Executor.__init__ = tracking_init
    try:
        rng = np.random.RandomState(0)
        for step in range(150):
            h, w = rng.randint(4, 13, size=2)
            module.forward(batch(2, int(h), int(w), seed=step), is_train=True)
            module.backward()
            module.update()
    finally:
        Executor.__init__ = original_init
    gc.collect()
    alive = sum(1 for ref in created if ref() is not None)
    assert len(created) > 50 and alive <= 2
