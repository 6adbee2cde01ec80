"""The steps Module, MutableModule, BucketingModule and the kvstores share (one function each):
the start of bind / init_optimizer / set_params, and the kvstore's shape check."""
import logging

import numpy as np
import pytest

import mxtorch as mx


def _net():
    return mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2, name="fc")


def _modules():
    module = mx.mod.Module(_net(), label_names=None)
    bucketing = mx.mod.BucketingModule(lambda key: (_net(), ("data",), None), default_bucket_key=3)
    mutable = mx.mod.MutableModule(_net(), data_names=["data"], label_names=None)
    return [module, bucketing, mutable]


@pytest.mark.parametrize("index", [0, 1, 2])
def test_second_bind_warns_and_force_rebind_binds_again(index, caplog):
    module = _modules()[index]
    module.bind([("data", (1, 3))], for_training=False)
    with caplog.at_level(logging.WARNING):
        module.bind([("data", (1, 3))], for_training=False)
    assert [r.getMessage() for r in caplog.records] == ["Already bound, ignoring bind()"]
    module.bind([("data", (2, 3))], for_training=False, force_rebind=True)
    assert module.binded and tuple(module.data_shapes[0][1]) == (2, 3)


@pytest.mark.parametrize("index, message", [(0, "optimizer already initialized, ignoring..."),
                                            (1, "optimizer already initialized, ignoring."),
                                            (2, "optimizer already initialized, ignoring.")])
def test_second_init_optimizer_warns_with_mxnets_message(index, message, caplog):
    module = _modules()[index]
    with pytest.raises(mx.mod.base_module.ModuleStateError):
        module.init_optimizer()            # parameters first
    module.bind([("data", (1, 3))])
    module.init_params()
    module.init_optimizer()
    with caplog.at_level(logging.WARNING):
        module.init_optimizer()
    assert [r.getMessage() for r in caplog.records] == [message]


@pytest.mark.parametrize("index", [0, 1])
def test_set_params_with_allow_missing_keeps_initialized_values_without_force_init(index):
    module = _modules()[index]
    module.bind([("data", (1, 3))], for_training=False)
    module.init_params(mx.init.Constant(0.5))
    ones = {"fc_weight": mx.nd.ones((2, 3)), "fc_bias": mx.nd.ones((2,))}
    with pytest.warns(UserWarning, match="set_params call ignored") as record:
        module.set_params(ones, {}, allow_missing=True, force_init=False)
    assert record[0].filename == __file__          # the warning points at the caller
    np.testing.assert_array_equal(module.get_params()[0]["fc_weight"].asnumpy(), np.full((2, 3), 0.5))
    module.set_params(ones, {}, allow_missing=True, force_init=True)
    np.testing.assert_array_equal(module.get_params()[0]["fc_weight"].asnumpy(), np.ones((2, 3)))


def test_kvstore_push_and_pull_check_shapes_alike():
    kv = mx.kv.create("local")
    assert (kv.rank, kv.num_workers) == (0, 1)
    kv.init(3, mx.nd.zeros((2,)))
    with pytest.raises(mx.MXNetError, match=r"KVStore.push: key 3 holds shape \(2,\), a pushed value has shape \(3,\)"):
        kv.push(3, mx.nd.ones((3,)))
    with pytest.raises(mx.MXNetError, match=r"KVStore.pull: key 3 holds shape \(2,\), an output has shape \(4,\)"):
        kv.pull(3, out=mx.nd.ones((4,)))
    with pytest.raises(mx.MXNetError, match="key 9 does not exist"):
        kv.push(9, mx.nd.ones((2,)))


def test_teststore_keeps_its_registered_name_and_in_process_rank():
    store = mx.kv.create("teststore")
    assert type(store).__name__ == "TestStore" and (store.rank, store.num_workers) == (0, 1)
    assert "_inprocess" not in mx.kv.KVStoreBase.kv_registry
