"""BucketingModule: buckets share parameters and optimizer state; checkpoints in MXNet's layout."""
import os

import numpy as np
import pytest

import mxtorch as mx


def sym_gen(seq_len):
    """A bag-of-positions model: the input (batch, seq_len, 3) is summed over time, so every
    bucket uses the same parameters."""
    data = mx.sym.Variable("data")
    pooled = mx.sym.sum(data, axis=1) if hasattr(mx.sym, "sum") else None
    net = mx.sym.FullyConnected(mx.sym.Reshape(data, shape=(0, -1)) if pooled is None else pooled,
                                num_hidden=4, name="fc")
    return mx.sym.SoftmaxOutput(net, name="softmax"), ("data",), ("softmax_label",)


def batch(seq_len, seed):
    rng = np.random.RandomState(seed)
    return mx.io.DataBatch([mx.nd.array(rng.randn(2, seq_len, 3))], [mx.nd.array(rng.randint(0, 4, 2))],
                           bucket_key=seq_len, provide_data=[mx.io.DataDesc("data", (2, seq_len, 3))],
                           provide_label=[mx.io.DataDesc("softmax_label", (2,))])


def make():
    module = mx.mod.BucketingModule(sym_gen, default_bucket_key=5)
    module.bind([("data", (2, 5, 3))], [("softmax_label", (2,))])
    module.init_params(mx.init.Xavier())
    module.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    return module


def test_buckets_share_parameters_and_momentum():
    module = make()
    reference = mx.mod.Module(sym_gen(5)[0])
    reference.bind([("data", (2, 5, 3))], [("softmax_label", (2,))])
    reference.set_params(*[{k: v.copy() for k, v in d.items()} for d in module.get_params()])
    reference.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    for step, seq_len in enumerate([5, 3, 5, 2, 3]):
        b = batch(seq_len, step)
        module.forward_backward(b)
        module.update()
        reference.forward_backward(b)   # the plain module reshapes: same parameters, same math
        reference.update()
    assert sorted(module._buckets) == [2, 3, 5]
    for name, value in reference.get_params()[0].items():
        np.testing.assert_allclose(module.get_params()[0][name].asnumpy(), value.asnumpy(), rtol=1e-5, atol=1e-6)


def test_bucket_with_extra_parameters_binds():
    def gen(key):
        data = mx.sym.Variable("data")
        net = mx.sym.FullyConnected(data, num_hidden=4, name="fc")
        if key == 2:
            net = mx.sym.FullyConnected(net, num_hidden=4, name="extra")
        return mx.sym.SoftmaxOutput(net, name="softmax"), ("data",), ("softmax_label",)
    module = mx.mod.BucketingModule(gen, default_bucket_key=1)
    module.bind([("data", (2, 3))], [("softmax_label", (2,))])
    module.init_params(mx.init.Xavier())
    module.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    b = mx.io.DataBatch([mx.nd.ones((2, 3))], [mx.nd.zeros((2,))], bucket_key=2,
                        provide_data=[("data", (2, 3))], provide_label=[("softmax_label", (2,))])
    module.forward_backward(b)
    module.update()
    params = module.get_params()[0]
    assert "extra_weight" in params and np.abs(params["extra_weight"].asnumpy()).sum() > 0
    # the new parameter's momentum does not collide with the default bucket's states
    indices = module._buckets[2]._param_index
    assert sorted(indices.values()) == list(range(len(indices)))
    assert indices["fc_weight"] == module._buckets[1]._param_names.index("fc_weight")


def test_checkpoint_files_and_load(tmp_path):
    module = make()
    for step, seq_len in enumerate([5, 3]):
        module.forward_backward(batch(seq_len, step))
        module.update()
    prefix = str(tmp_path / "bk")
    module.save_checkpoint(prefix, 1)
    assert sorted(os.listdir(tmp_path)) == ["bk-0001.params", "bk-3-symbol.json", "bk-5-symbol.json", "bk.buckets"]
    keys = mx.nd.load(prefix + ".buckets")[0]
    assert keys.dtype == np.int32 and sorted(keys.asnumpy().tolist()) == [3, 5]
    loaded = mx.mod.BucketingModule.load(prefix, 1, sym_gen=sym_gen, default_bucket_key=5)
    assert loaded.params_initialized and not loaded.binded
    loaded.bind([("data", (2, 5, 3))], [("softmax_label", (2,))])
    for name, value in module.get_params()[0].items():
        np.testing.assert_array_equal(loaded.get_params()[0][name].asnumpy(), value.asnumpy())
