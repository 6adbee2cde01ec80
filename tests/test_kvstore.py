"""The in-process KVStore ('local', 'device') against MXNet 1.9.1's semantics.

Checked with the real MXNet: a push without updater replaces the stored value by the
sum of the pushed values; pull copies into every output; the updater is called as
``updater(key, summed, stored)`` with int keys as ints and str keys as bytes; a key can
be initialised once; one store holds int keys or str keys, not both; the SGD states
file written by MXNet's store (tests/data/kvstore, tools/gen_kvstore_states.py) loads.
"""
import os

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError

DATA = os.path.join(os.path.dirname(__file__), "data", "kvstore")
SHAPE = (2, 3)


def ones(scale=1.0):
    return mx.nd.ones(SHAPE) * scale


@pytest.mark.parametrize("kind", ["local", "device"])
def test_create_type_rank_workers(kind):
    kv = mx.kv.create(kind)
    assert isinstance(kv, mx.kv.KVStore)
    assert (kv.type, kv.rank, kv.num_workers) == (kind, 0, 1)
    assert kv.is_capable("optimizer") and kv.is_capable("OPTIMIZER")
    with pytest.raises(ValueError, match="capability"):
        kv.is_capable("sparse")
    assert mx.kv.create("LOCAL").type == "local"
    assert mx.kvstore.create is mx.kv.create


def test_create_rejects_bad_names():
    with pytest.raises(TypeError, match="str"):
        mx.kv.create(3)
    with pytest.raises(MXNetError, match="unknown kvstore type 'lcoal'"):
        mx.kv.create("lcoal")
    with pytest.raises(MXNetError, match="dist_sync"):
        mx.kv.create("dist_sync")


@pytest.mark.parametrize("key", [3, "3", "weight"])
def test_push_without_updater_stores_the_sum_and_pull_fills_every_output(key):
    kv = mx.kv.create("local")
    kv.init(key, ones())
    outputs = [mx.nd.zeros(SHAPE), mx.nd.zeros(SHAPE)]
    kv.pull(key, out=outputs)
    for out in outputs:
        np.testing.assert_array_equal(out.asnumpy(), np.ones(SHAPE))
    kv.push(key, [ones(2), ones(3)])
    kv.pull(key, out=outputs)
    for out in outputs:
        np.testing.assert_array_equal(out.asnumpy(), np.full(SHAPE, 5.0))
    kv.push(key, ones(7))                       # one value: stored as is, not added to the old one
    single = mx.nd.zeros(SHAPE)
    kv.pull(key, out=single)
    np.testing.assert_array_equal(single.asnumpy(), np.full(SHAPE, 7.0))


def test_init_copies_the_value():
    kv = mx.kv.create("local")
    source = ones()
    kv.init(0, source)
    source[:] = 5
    out = mx.nd.zeros(SHAPE)
    kv.pull(0, out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.ones(SHAPE))


def test_lists_of_keys():
    kv = mx.kv.create("device")
    kv.init(["a", "b"], [ones(), mx.nd.zeros(SHAPE)])
    first, second = mx.nd.zeros(SHAPE), mx.nd.zeros(SHAPE)
    kv.pull(["a", "b"], out=[first, second])
    np.testing.assert_array_equal(first.asnumpy(), np.ones(SHAPE))
    np.testing.assert_array_equal(second.asnumpy(), np.zeros(SHAPE))
    kv.push(["a", "b"], [[ones(), ones()], [ones(5), ones()]])
    outs = [[mx.nd.zeros(SHAPE), mx.nd.zeros(SHAPE)], [mx.nd.zeros(SHAPE), mx.nd.zeros(SHAPE)]]
    kv.pull(["a", "b"], out=outs)
    for out in outs[0]:
        np.testing.assert_array_equal(out.asnumpy(), np.full(SHAPE, 2.0))
    for out in outs[1]:
        np.testing.assert_array_equal(out.asnumpy(), np.full(SHAPE, 6.0))


def test_pushpull_and_broadcast():
    kv = mx.kv.create("device")
    kv.init(1, mx.nd.zeros(SHAPE))
    values = [ones(), ones(4)]
    kv.pushpull(1, values)                      # out=None: the sum comes back into the values
    for value in values:
        np.testing.assert_array_equal(value.asnumpy(), np.full(SHAPE, 5.0))
    out = mx.nd.zeros(SHAPE)
    kv.pushpull(1, ones(), out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.ones(SHAPE))
    outs = [mx.nd.zeros(SHAPE), mx.nd.zeros(SHAPE)]
    kv.broadcast(2, ones(2), out=outs)
    for value in outs:
        np.testing.assert_array_equal(value.asnumpy(), np.full(SHAPE, 2.0))
    with pytest.raises(MXNetError, match="duplicate init"):
        kv.broadcast(2, ones(3), out=outs)


def test_updater_gets_key_sum_and_stored_value():
    calls = []

    def updater(key, grad, weight):
        calls.append((key, grad.asnumpy().copy(), weight.asnumpy().copy()))
        weight[:] = weight - 0.1 * grad

    kv = mx.kv.create("local")
    kv._set_updater(updater)
    kv.init(9, ones())
    kv.push(9, [ones(), ones(2)])
    out = mx.nd.zeros(SHAPE)
    kv.pull(9, out=out)
    assert [c[0] for c in calls] == [9]
    np.testing.assert_array_equal(calls[0][1], np.full(SHAPE, 3.0))
    np.testing.assert_array_equal(calls[0][2], np.ones(SHAPE))
    np.testing.assert_allclose(out.asnumpy(), np.full(SHAPE, 0.7), rtol=1e-6)
    # pushpull with an updater: the updated weight comes back
    kv.pushpull(9, ones(), out=out)
    np.testing.assert_allclose(out.asnumpy(), np.full(SHAPE, 0.6), rtol=1e-6)
    # str keys reach the updater as UTF-8 bytes (MXNet passed the C string)
    calls.clear()
    named = mx.kv.create("local")
    named._set_updater(updater)
    named.init("s", ones())
    named.push("s", ones())
    assert calls[0][0] == b"s"
    with pytest.raises(MXNetError, match="callable"):
        named._set_updater(3)


def test_set_optimizer_runs_sgd_momentum_in_the_store():
    kv = mx.kv.create("local")
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    weight = ones()
    kv.init(0, weight)
    expected_weight, momentum = 1.0, 0.0
    for _ in range(3):
        kv.push(0, [ones(), ones(2)])
        kv.pull(0, out=weight)
        momentum = 0.9 * momentum - 0.1 * 3.0
        expected_weight += momentum
        np.testing.assert_allclose(weight.asnumpy(), np.full(SHAPE, expected_weight), rtol=1e-6)
    with pytest.raises(MXNetError, match="Optimizer"):
        kv.set_optimizer("sgd")


@pytest.mark.parametrize("key,fname", [(3, "sgd_momentum_int_key.states"), ("w", "sgd_momentum_str_key.states")])
def test_optimizer_states_round_trip_and_load_mxnet_file(key, fname, tmp_path):
    def store():
        kv = mx.kv.create("local")
        kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
        kv.init(key, ones())
        return kv

    # MXNet's store pushed [ones, 2 * ones] twice: momentum -0.57, weight 0.13
    kv = store()
    for _ in range(2):
        kv.push(key, [ones(), ones(2)])
    path = str(tmp_path / "kv.states")
    kv.save_optimizer_states(path)
    with open(path, "rb") as handle:
        with open(os.path.join(DATA, fname), "rb") as reference:
            ours = mx.optimizer.Updater(mx.optimizer.SGD())
            ours.set_states(handle.read())
            theirs = mx.optimizer.Updater(mx.optimizer.SGD())
            theirs.set_states(reference.read())
    assert list(ours.states) == list(theirs.states) == [key]
    np.testing.assert_allclose(ours.states[key].asnumpy(), theirs.states[key].asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(theirs.states[key].asnumpy(), np.full(SHAPE, -0.57), rtol=1e-6)
    # a fresh store that loads MXNet's states continues exactly like the one that saved them
    resumed = store()
    resumed.load_optimizer_states(os.path.join(DATA, fname))
    kv.push(key, ones())
    resumed.push(key, ones())
    after, resumed_after = mx.nd.zeros(SHAPE), mx.nd.zeros(SHAPE)
    kv.pull(key, out=after)
    resumed.pull(key, out=resumed_after)
    momentum = 0.9 * -0.57 - 0.1
    np.testing.assert_allclose(after.asnumpy(), np.full(SHAPE, 0.13 + momentum), rtol=1e-5)
    np.testing.assert_allclose(resumed_after.asnumpy(), np.full(SHAPE, 1.0 + momentum), rtol=1e-5)
    kv.save_optimizer_states(path, dump_optimizer=True)
    with open(path, "rb") as handle:
        loaded = mx.optimizer.Updater(mx.optimizer.SGD())
        loaded.set_states(handle.read())
    assert isinstance(loaded.optimizer, mx.optimizer.SGD) and loaded.optimizer.momentum == 0.9


def test_optimizer_states_need_an_optimizer(tmp_path):
    kv = mx.kv.create("local")
    with pytest.raises(MXNetError, match="set_optimizer"):
        kv.save_optimizer_states(str(tmp_path / "x.states"))
    with pytest.raises(MXNetError, match="set_optimizer"):
        kv.load_optimizer_states(str(tmp_path / "x.states"))
    kv.set_optimizer(mx.optimizer.SGD())
    with pytest.raises(MXNetError, match="cannot read"):
        kv.load_optimizer_states(str(tmp_path / "missing.states"))


def test_errors_name_the_key_and_the_problem():
    kv = mx.kv.create("local")
    kv.init(3, ones())
    with pytest.raises(MXNetError, match="duplicate init of key 3"):
        kv.init(3, ones())
    with pytest.raises(MXNetError, match="one NDArray per key"):
        kv.init(4, [ones(), ones()])
    with pytest.raises(MXNetError, match="mixed key types"):
        kv.init("w", ones())
    with pytest.raises(MXNetError, match="key 5 does not exist"):
        kv.push(5, ones())
    with pytest.raises(MXNetError, match="key 5 does not exist"):
        kv.pull(5, out=ones())
    with pytest.raises(MXNetError, match=r"shape \(2, 3\).*shape \(3,\)"):
        kv.push(3, mx.nd.ones((3,)))
    with pytest.raises(MXNetError, match=r"shape \(2, 3\).*shape \(3,\)"):
        kv.pull(3, out=mx.nd.ones((3,)))
    with pytest.raises(MXNetError, match="out is required"):
        kv.pull(3)
    with pytest.raises(MXNetError, match="int or a str"):
        kv.init(3.5, ones())
    with pytest.raises(MXNetError, match="NDArray"):
        kv.push(3, np.ones(SHAPE))
    with pytest.raises(MXNetError, match="2 keys need a list of 2"):
        kv.push([3, 4], [ones()])
    # a failed push leaves the stored value alone
    out = mx.nd.zeros(SHAPE)
    kv.pull(3, out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.ones(SHAPE))


def test_pull_casts_to_the_output_dtype():
    kv = mx.kv.create("local")
    kv.init(0, ones(1.5))
    out = mx.nd.zeros(SHAPE, dtype="float64")
    kv.pull(0, out=out)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out.asnumpy(), np.full(SHAPE, 1.5))


def test_gradient_compression_only_for_device_stores():
    with pytest.raises(MXNetError, match="'local'"):
        mx.kv.create("local").set_gradient_compression({"type": "2bit", "threshold": 0.5})
    mx.kv.create("device").set_gradient_compression({"type": "2bit", "threshold": 0.5})
    with pytest.raises(MXNetError, match="'type'"):
        mx.kv.create("device").set_gradient_compression({"threshold": 0.5})
    with pytest.raises(MXNetError, match="unknown type for gradient compression '1bit'"):   # as MXNet 1.9.1
        mx.kv.create("device").set_gradient_compression({"type": "1bit"})
    with pytest.raises(MXNetError, match="threshold must be greater than 0"):
        mx.kv.create("device").set_gradient_compression({"type": "2bit", "threshold": 0})


def two_bit_reference(pushes, threshold):
    """MXNet's 2-bit rule written out in numpy: per source, residual += gradient; send +t where
    residual >= t, -t where residual <= -t, else 0; the residual keeps what was not sent."""
    residuals = np.zeros_like(pushes[0], dtype=np.float32)
    t = np.float32(threshold)
    sums = []
    for step in pushes:
        residuals = residuals + step
        sent = np.where(residuals >= t, t, np.where(residuals <= -t, -t, np.float32(0)))
        residuals = residuals - sent
        sums.append(sent.sum(axis=0))
    return np.array(sums)


def test_two_bit_compression_gives_mxnets_values():
    # MXNet 1.9.1's 'device' store (tools/gen_kvstore_states.py): two devices, four pushes
    with np.load(os.path.join(DATA, "compression_2bit.npz")) as reference:
        grads, pulled, threshold = reference["grads"], reference["pulled"], float(reference["threshold"])
    kv = mx.kv.create("device")
    kv.set_gradient_compression({"type": "2bit", "threshold": threshold})
    assert kv._compression_params == {"type": "2bit", "threshold": threshold}
    kv.init(7, mx.nd.zeros(grads.shape[2:]))
    got = []
    for step in grads:
        kv.push(7, [mx.nd.array(g, ctx=mx.cpu(i)) for i, g in enumerate(step)])
        out = mx.nd.zeros(grads.shape[2:])
        kv.pull(7, out=out)
        got.append(out.asnumpy())
    np.testing.assert_array_equal(np.array(got), pulled)
    np.testing.assert_array_equal(pulled, two_bit_reference(grads, threshold))
    # the error feedback matters: a small constant gradient is sent once it has accumulated
    # (0.375 steps against a threshold of 1: residuals 0.375, 0.75, 1.125 -> sent, 0.5, 0.875, 1.25 -> sent)
    kv = mx.kv.create("device")
    kv.set_gradient_compression({"type": "2bit", "threshold": 1.0})
    kv.init(8, mx.nd.zeros((2,)))
    sent = []
    for _ in range(6):
        kv.push(8, [mx.nd.array([0.375, -0.375])])
        out = mx.nd.zeros((2,))
        kv.pull(8, out=out)
        sent.append(out.asnumpy().tolist())
    assert sent == [[0, 0], [0, 0], [1, -1], [0, 0], [0, 0], [1, -1]]


def test_two_bit_compression_feeds_the_optimizer():
    kv = mx.kv.create("device")
    kv.set_gradient_compression({"type": "2bit", "threshold": 1.0})
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.5, rescale_grad=1.0))
    kv.init(0, mx.nd.ones((3,)))
    kv.push(0, [mx.nd.array([1.5, 0.4, -2.0])])
    out = mx.nd.zeros((3,))
    kv.pull(0, out=out)
    np.testing.assert_allclose(out.asnumpy(), [1 - 0.5 * 1.0, 1.0, 1 + 0.5 * 1.0])


def test_registered_store_class_is_created_by_name():
    builtin = mx.kv.KVStoreBase.kv_registry["teststore"]

    @mx.kv.KVStoreBase.register
    class TestStore(mx.kv.KVStoreBase):
        @property
        def type(self):
            return "teststore"

    try:
        assert isinstance(mx.kv.create("teststore"), TestStore)
    finally:
        mx.kv.KVStoreBase.kv_registry["teststore"] = builtin   # MXNet's own TestStore again


def test_model_helpers_aggregate_through_the_store():
    """``mx.model._initialize_kvstore`` / ``_update_params_on_kvstore`` / ``_update_params``
    as legacy training loops call them."""
    weights = [[mx.nd.ones(SHAPE), mx.nd.ones(SHAPE)]]
    grads = [[ones(1), ones(3)]]
    kv = mx.kv.create("local")
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1))
    mx.model._initialize_kvstore(kv, weights, {"w": ones(2)}, ["w"], update_on_kvstore=True)
    for weight in weights[0]:
        np.testing.assert_array_equal(weight.asnumpy(), np.full(SHAPE, 2.0))
    mx.model._update_params_on_kvstore(weights, grads, kv, ["w"])
    for weight in weights[0]:
        np.testing.assert_allclose(weight.asnumpy(), np.full(SHAPE, 2.0 - 0.1 * 4), rtol=1e-6)
    plain = mx.kv.create("local")
    mx.model._initialize_kvstore(plain, weights, {"w": ones(2)}, ["w"], update_on_kvstore=False)
    updater = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.1))
    mx.model._update_params(weights, grads, updater, num_device=2, kvstore=plain, param_names=["w"])
    for grad in grads[0]:
        np.testing.assert_array_equal(grad.asnumpy(), np.full(SHAPE, 4.0))
    for weight in weights[0]:
        np.testing.assert_allclose(weight.asnumpy(), np.full(SHAPE, 1.6 - 0.4), rtol=1e-6)
    assert sorted(updater.states) == [0, 1]       # MXNet's index * num_device + device keys

