"""mx.optimizer and mx.lr_scheduler against MXNet 1.9.1's numbers.

Reference data (tests/data/optimizer/):
* ``index.json`` + ``<case>.npz``: copied from the shared MXNet 1.9.1 optimizer fixtures (weights after
  each of 6 Updater steps, final states, ``opt.learning_rate`` after each step, scheduler curves).
* ``extra_cases.*``: more Updater runs recorded with MXNet 1.9.1 (``gen_extra_cases.py``): float16 with
  multi_precision, LARS, LBSGD, GroupAdaGrad, Test, name-based weight-decay multipliers, list indices.
* ``*_dump.states`` / ``*_dump.npz`` / ``dump_cases.json``: ``get_states(dump_optimizer=True)`` written by
  MXNet 1.9.1 and the weights after one more step (``gen_dump_states.py``).
tests/data/checkpoints/: ``.states`` files written by ``Module.save_checkpoint`` in MXNet 1.9.1 and the same
states decoded to numpy.
"""
import glob
import json
import os
import pickle
import pickletools

import numpy as np
import pytest
import torch

import mxtorch as mx
from mxtorch.base import MXNetError
from mxtorch.optimizer import states_format

DATA = os.path.join(os.path.dirname(__file__), "data", "optimizer")
CHECKPOINTS = os.path.join(os.path.dirname(__file__), "data", "checkpoints")
INDEX = json.load(open(os.path.join(DATA, "index.json")))
EXTRA = json.load(open(os.path.join(DATA, "extra_cases.json")))
ADAM_LIKE = {"adam", "adamax", "nadam", "ftml", "lamb", "rmsprop", "adadelta", "adagrad", "ftrl"}


def make_scheduler(spec):
    return getattr(mx.lr_scheduler, spec["cls"])(**spec["kwargs"])


# -- fixture trajectories -----------------------------------------------------------------------------
@pytest.mark.parametrize("case", INDEX["cases"], ids=[c["name"] for c in INDEX["cases"]])
def test_fixture_trajectory(case):
    data = np.load(os.path.join(DATA, case["file"]))
    kwargs = dict(case["kwargs"])
    if case["lr_scheduler"]:
        kwargs["lr_scheduler"] = make_scheduler(case["lr_scheduler"])
    optimizer = mx.optimizer.create(case["optimizer"], multi_precision=False, **kwargs)
    updater = mx.optimizer.get_updater(optimizer)
    weight = mx.nd.array(data["weight0"])
    learning_rates = []
    for step in range(1, case["steps"] + 1):
        updater(case["index"], mx.nd.array(data[f"grad:{step}"]), weight)
        rtol = 1e-4 if (step == case["steps"] and case["optimizer"] in ADAM_LIKE) else 1e-5
        np.testing.assert_allclose(weight.asnumpy(), data[f"weight:{step}"], rtol=rtol, atol=1e-6,
                                   err_msg=f"{case['name']} step {step}")
        learning_rates.append(optimizer.learning_rate)
    np.testing.assert_allclose(learning_rates, case["lr_after_each_step"], rtol=1e-9)
    state = updater.states[case["index"]]
    layout = case["final_state_layout"]
    if layout is None:
        assert state is None
    elif layout == "NDArray":
        assert isinstance(state, mx.nd.NDArray)
        np.testing.assert_allclose(state.asnumpy(), data["final_state"], rtol=1e-4, atol=1e-6)
    else:
        assert isinstance(state, tuple) and len(state) == len(layout)
        for position, kind in enumerate(layout):
            if kind is None:
                assert state[position] is None
            else:
                np.testing.assert_allclose(state[position].asnumpy(), data[f"final_state:{position}"],
                                           rtol=1e-4, atol=1e-6)
    assert optimizer.num_update == case["steps"]


@pytest.mark.parametrize("spec", INDEX["schedulers"], ids=[s["name"] for s in INDEX["schedulers"]])
def test_scheduler_curve(spec):
    scheduler = make_scheduler(spec)
    values = [scheduler(n) for n in spec["num_update"]]
    np.testing.assert_allclose(values, spec["lr"], rtol=1e-9, atol=0)


@pytest.mark.parametrize("case", EXTRA["cases"], ids=[c["name"] for c in EXTRA["cases"]])
def test_extra_mxnet_runs(case):
    data = np.load(os.path.join(DATA, "extra_cases.npz"))
    name, count = case["name"], len(case["shapes"])
    kwargs = dict(case["kwargs"])
    if case["names"]:
        kwargs["param_idx2name"] = dict(enumerate(case["names"]))
    if case["lr_scheduler"]:
        kwargs["lr_scheduler"] = make_scheduler(case["lr_scheduler"])
    updater = mx.optimizer.get_updater(mx.optimizer.create(case["optimizer"], **kwargs))
    weights = [mx.nd.array(data[f"{name}:weight0:{i}"], dtype=case["dtype"]) for i in range(count)]
    for step in range(1, case["steps"] + 1):
        grads = [mx.nd.array(data[f"{name}:grad:{step}:{i}"], dtype=case["dtype"]) for i in range(count)]
        updater(list(range(count)), grads, weights)
        for i in range(count):
            expected = data[f"{name}:weight:{step}:{i}"]
            assert weights[i].dtype == expected.dtype
            tolerance = dict(rtol=2e-3, atol=2e-3) if case["dtype"] == "float16" else dict(rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(weights[i].asnumpy().astype(np.float64), expected.astype(np.float64),
                                       err_msg=f"{name} step {step} parameter {i}", **tolerance)
    # the run really moved the weights
    assert not np.allclose(weights[0].asnumpy(), data[f"{name}:weight0:0"])


# -- hyper-parameters --------------------------------------------------------------------------------
def sgd_step_reference(weight, grad, lr, wd, rescale=1.0, clip=None):
    g = rescale * grad
    if clip is not None:
        g = np.clip(g, -clip, clip)
    return weight - lr * (g + wd * weight)


def one_sgd_step(optimizer, index=0, weight=None, grad=None):
    weight = np.arange(6, dtype=np.float32).reshape(2, 3) / 4 - 0.5 if weight is None else weight
    grad = np.array([[3.0, -2.0, 0.5], [-0.25, 1.5, -4.0]], np.float32) if grad is None else grad
    w = mx.nd.array(weight)
    optimizer.update(index, w, mx.nd.array(grad), optimizer.create_state(index, w))
    return weight, grad, w.asnumpy()


def test_rescale_and_clip_gradient():
    optimizer = mx.optimizer.SGD(learning_rate=0.1, rescale_grad=0.5, clip_gradient=0.6)
    weight, grad, result = one_sgd_step(optimizer)
    np.testing.assert_allclose(result, sgd_step_reference(weight, grad, 0.1, 0.0, 0.5, 0.6), rtol=1e-6)
    # the clip really acted on some entries
    assert np.any(np.abs(0.5 * grad) > 0.6)


def test_weight_decay_added_outside_clip_for_sgd_but_inside_for_adam():
    weight = np.full((2, 2), 10.0, np.float32)
    grad = np.zeros((2, 2), np.float32)
    sgd = mx.optimizer.SGD(learning_rate=0.1, wd=0.5, clip_gradient=0.1)
    _, _, result = one_sgd_step(sgd, weight=weight, grad=grad)
    np.testing.assert_allclose(result, weight - 0.1 * 0.5 * weight, rtol=1e-6)      # 9.5, not clipped
    adam = mx.optimizer.Adam(learning_rate=0.1, wd=0.5, clip_gradient=0.1)
    w = mx.nd.array(weight)
    mean, var = adam.create_state(0, w)
    adam.update(0, w, mx.nd.array(grad), (mean, var))
    # g = clip(0 + 0.5 * 10, 0.1) = 0.1 (decay inside the clip): mean = 0.1 * g, var = 0.001 * g**2
    np.testing.assert_allclose(mean.asnumpy(), 0.01, rtol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), 1e-5, rtol=1e-4)
    np.testing.assert_allclose(w.asnumpy(), 9.9, rtol=1e-5)


def test_wd_mult_defaults_from_names():
    names = {0: "fc1_weight", 1: "fc1_bias", 2: "bn_gamma", 3: "bn_beta", 4: "embed_weight_extra"}
    optimizer = mx.optimizer.SGD(learning_rate=0.1, wd=0.2, param_idx2name=names)
    assert optimizer.wd_mult == {"fc1_bias": 0.0, "bn_beta": 0.0, "embed_weight_extra": 0.0}
    assert [optimizer._get_wd(i) for i in range(5)] == [0.2, 0.0, 0.2, 0.0, 0.0]
    assert [optimizer._get_lr(i) for i in range(5)] == [0.1] * 5
    weight, grad, result = one_sgd_step(optimizer, index=1)
    np.testing.assert_allclose(result, sgd_step_reference(weight, grad, 0.1, 0.0), rtol=1e-6)
    weight, grad, result = one_sgd_step(optimizer, index=0)
    np.testing.assert_allclose(result, sgd_step_reference(weight, grad, 0.1, 0.2), rtol=1e-6)


class FakeSymbol:
    """Duck-typed symbol: only attr_dict() and list_arguments() are used."""

    def attr_dict(self):
        return {"fc_weight": {"__lr_mult__": "2.0", "__wd_mult__": "3"}, "fc_bias": {"__lr_mult__": "0.5"},
                "fc": {"num_hidden": "4"}}

    def list_arguments(self):
        return ["data", "fc_weight", "fc_bias"]


def test_lr_and_wd_mult_from_symbol_attributes_and_overrides():
    names = {0: "fc_weight", 1: "fc_bias"}
    optimizer = mx.optimizer.SGD(learning_rate=0.1, wd=0.01, param_idx2name=names, sym=FakeSymbol())
    assert optimizer.lr_mult == {"fc_weight": 2.0, "fc_bias": 0.5}
    assert optimizer.wd_mult == {"fc_weight": 3.0, "fc_bias": 0.0}
    assert optimizer._get_lr(0) == pytest.approx(0.2) and optimizer._get_lr(1) == pytest.approx(0.05)
    assert optimizer._get_wd(0) == pytest.approx(0.03) and optimizer._get_wd(1) == 0.0
    optimizer.set_lr_mult({"fc_weight": 10.0, 1: 4.0})          # by name and by index
    assert optimizer._get_lr(0) == pytest.approx(1.0) and optimizer._get_lr(1) == pytest.approx(0.4)
    optimizer.set_wd_mult({"fc_bias": 1.0})
    assert optimizer._get_wd(1) == pytest.approx(0.01) and optimizer._get_wd(0) == pytest.approx(0.03)
    weight, grad, result = one_sgd_step(optimizer, index=0)
    np.testing.assert_allclose(result, sgd_step_reference(weight, grad, 1.0, 0.03), rtol=1e-6)


def test_param_dict_multipliers_take_precedence():
    class Parameter:
        lr_mult, wd_mult = 3.0, 0.5
    optimizer = mx.optimizer.SGD(learning_rate=0.1, wd=0.1, param_dict={0: Parameter()})
    optimizer.set_lr_mult({0: 100.0})
    assert optimizer._get_lr(0) == pytest.approx(0.3) and optimizer._get_wd(0) == pytest.approx(0.05)
    assert pickle.loads(pickle.dumps(optimizer)).param_dict == {}


def test_learning_rate_property_and_setter():
    optimizer = mx.optimizer.create("sgd")
    assert optimizer.learning_rate == 0.01 and mx.optimizer.Adam().learning_rate == 0.001
    optimizer.set_learning_rate(0.3)
    assert optimizer.learning_rate == 0.3 and optimizer.lr == 0.3
    scheduled = mx.optimizer.SGD(lr_scheduler=mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=1.0))
    assert scheduled.lr is None and scheduled.learning_rate == 1.0
    with pytest.raises(MXNetError, match="lr_scheduler"):
        scheduled.set_learning_rate(0.1)
    with pytest.raises(UserWarning):    # the type MXNet 1.9.1 raised
        scheduled.set_learning_rate(0.1)
    with pytest.raises(MXNetError, match="set_lr_mult"):
        optimizer.set_lr_scale({})


def test_optimizer_overwrites_scheduler_base_lr():
    scheduler = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=1.0)
    optimizer = mx.optimizer.SGD(learning_rate=0.4, lr_scheduler=scheduler)
    assert scheduler.base_lr == 0.4
    weight = mx.nd.ones((2,))
    updater = mx.optimizer.get_updater(optimizer)
    rates = []
    for _ in range(5):
        updater(0, mx.nd.ones((2,)), weight)
        rates.append(optimizer.learning_rate)
    assert rates == pytest.approx([0.4, 0.4, 0.2, 0.2, 0.1])
    np.testing.assert_allclose(weight.asnumpy(), 1 - (0.4 + 0.4 + 0.2 + 0.2 + 0.1), rtol=1e-6)


def test_update_counts_per_index_and_begin_num_update():
    optimizer = mx.optimizer.SGD(begin_num_update=10)
    optimizer._update_count(0)
    optimizer._update_count([0, 1])
    assert optimizer._index_update_count == {0: 12, 1: 11} and optimizer.num_update == 12
    optimizer._set_current_context(1)
    optimizer._update_count(0)
    assert optimizer._index_update_count == {0: 11} and optimizer.num_update == 12
    assert optimizer._all_index_update_counts[0] == {0: 12, 1: 11}


# -- registry -----------------------------------------------------------------------------------------
def test_registry_names_and_create():
    expected = {"sgd", "ccsgd", "nag", "adam", "adagrad", "adadelta", "rmsprop", "adamax", "nadam", "ftrl", "ftml",
                "signum", "lamb", "dcasgd", "sgld", "lars", "lbsgd", "test", "groupadagrad"}
    assert expected <= set(mx.optimizer.Optimizer.opt_registry)
    assert isinstance(mx.optimizer.create("AdaM", learning_rate=0.5), mx.optimizer.Adam)
    assert mx.optimizer.Optimizer.create_optimizer("RMSProp", centered=True).centered is True
    assert mx.optimizer.create("ftrl").lr == 0.1 and mx.optimizer.create("adamax").lr == 0.002
    assert mx.optimizer.contrib.GroupAdaGrad is mx.optimizer.GroupAdaGrad


def test_unknown_optimizer_lists_registered_names():
    with pytest.raises(MXNetError) as info:
        mx.optimizer.create("no_such_optimizer")
    message = str(info.value)
    assert "no_such_optimizer" in message and "'sgd'" in message and "'adam'" in message


def test_register_custom_optimizer():
    @mx.optimizer.register
    class HalfStep(mx.optimizer.Optimizer):
        def update(self, index, weight, grad, state):
            self._update_count(index)
            weight[:] = weight - 0.5 * self._get_lr(index) * grad

    try:
        optimizer = mx.optimizer.create("halfstep", learning_rate=1.0)
        updater = mx.optimizer.get_updater(optimizer)
        weight = mx.nd.ones((3,))
        updater(7, mx.nd.array([2.0, 4.0, 6.0]), weight)
        np.testing.assert_allclose(weight.asnumpy(), [0.0, -1.0, -2.0])
        assert updater.states == {7: None} and not updater.aggregate_updates
    finally:
        del mx.optimizer.Optimizer.opt_registry["halfstep"]
    with pytest.raises(MXNetError, match="subclass of Optimizer"):
        mx.optimizer.register(object)


# -- special rules ------------------------------------------------------------------------------------
def test_dcasgd_with_momentum_runs_the_momentum_rule():
    optimizer = mx.optimizer.DCASGD(learning_rate=0.1, momentum=0.9, lamda=0.5)
    updater = mx.optimizer.get_updater(optimizer)
    rng = np.random.RandomState(0)
    weight0 = rng.randn(3, 2).astype(np.float32)
    weight, momentum, previous = weight0.astype(np.float64), np.zeros((3, 2)), weight0.astype(np.float64)
    w = mx.nd.array(weight0)
    for _ in range(3):
        grad = rng.randn(3, 2).astype(np.float32)
        updater(0, mx.nd.array(grad), w)
        momentum = 0.9 * momentum - 0.1 * (grad + 0.5 * grad * grad * (weight - previous))
        previous = weight.copy()
        weight = weight + momentum
    np.testing.assert_allclose(w.asnumpy(), weight, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(updater.states[0][1].asnumpy(), previous, rtol=1e-5, atol=1e-6)


def test_sgld_noise_statistics_and_seed():
    def run(seed):
        mx.random.seed(seed)
        optimizer = mx.optimizer.SGLD(learning_rate=0.04)
        weight = mx.nd.zeros((200, 100))
        optimizer.update(0, weight, mx.nd.ones((200, 100)), None)
        return weight.asnumpy()

    first = run(3)
    # mean shift -lr/2 * grad = -0.02, noise standard deviation sqrt(lr) = 0.2
    assert abs(first.mean() + 0.02) < 0.005
    assert abs(first.std() - 0.2) < 0.005
    np.testing.assert_array_equal(first, run(3))
    assert not np.array_equal(first, run(4))


def test_multi_precision_states_and_dtype():
    weight = mx.nd.array(np.linspace(-1, 1, 6).reshape(2, 3), dtype="float16")
    sgd = mx.optimizer.SGD(momentum=0.9, multi_precision=True)
    momentum, master = sgd.create_state_multi_precision(0, weight)
    assert momentum.dtype == np.float32 and master.dtype == np.float32
    adam = mx.optimizer.Adam(multi_precision=True)
    master, (mean, var) = adam.create_state_multi_precision(0, weight)
    assert master.dtype == np.float32 and mean.dtype == np.float32
    np.testing.assert_array_equal(master.asnumpy(), weight.asnumpy().astype(np.float32))
    with pytest.warns(UserWarning, match="float16"):
        state = mx.optimizer.Adam().create_state_multi_precision(0, weight)
    assert state[0].dtype == np.float16


def test_mismatched_shapes_raise():
    optimizer = mx.optimizer.Adam()
    weight = mx.nd.zeros((2, 3))
    with pytest.raises(MXNetError, match="shape"):
        optimizer.update(0, weight, mx.nd.zeros((3, 2)), optimizer.create_state(0, weight))
    with pytest.raises(MXNetError, match="counts must agree"):
        mx.optimizer.get_updater(optimizer)([0, 1], [mx.nd.zeros((2, 3))], [weight])


# -- Updater and the .states format ------------------------------------------------------------------
def checkpoint_prefixes():
    return sorted(os.path.basename(p)[:-len("-0002.states")] for p in glob.glob(os.path.join(CHECKPOINTS, "*.states")))


@pytest.mark.parametrize("prefix", checkpoint_prefixes())
def test_load_mxnet_states_file(prefix):
    raw = open(os.path.join(CHECKPOINTS, f"{prefix}-0002.states"), "rb").read()
    decoded = np.load(os.path.join(CHECKPOINTS, f"{prefix}-states-decoded.npz"))
    updater = mx.optimizer.get_updater(mx.optimizer.create("sgd"))
    updater.set_states(raw)
    assert updater.states_synced == dict.fromkeys(updater.states, False)
    checked = 0
    for index, state in updater.states.items():
        items = state if isinstance(state, tuple) else (state,)
        for position, array in enumerate(items):
            key = f"state:{index}:{position}" if isinstance(state, tuple) else f"state:{index}"
            assert isinstance(array, mx.nd.NDArray) and array.dtype == decoded[key].dtype
            np.testing.assert_array_equal(array.asnumpy(), decoded[key])
            checked += 1
    assert checked == len(decoded.files) > 0
    # writing the loaded states back gives MXNet's bytes exactly
    assert updater.get_states() == raw


def test_written_states_use_mxnet_globals_and_round_trip():
    updater = mx.optimizer.get_updater(mx.optimizer.Adam(learning_rate=0.1))
    weights = [mx.nd.ones((2, 3)), mx.nd.array([1.0, 2.0], dtype="float64")]
    for index, weight in enumerate(weights):
        updater(index, weight * 0.5, weight)
    data = updater.get_states()
    globals_used = [arg for op, arg, _ in pickletools.genops(data) if op.name == "SHORT_BINUNICODE"]
    assert "mxnet.ndarray.ndarray" in globals_used and "NDArray" in globals_used
    assert not any("mxtorch" in str(item) for item in globals_used)
    assert data[:2] == b"\x80\x04"
    other = mx.optimizer.get_updater(mx.optimizer.Adam())
    other.set_states(data)
    for index, (mean, var) in updater.states.items():
        loaded_mean, loaded_var = other.states[index]
        assert loaded_var.dtype == var.dtype
        np.testing.assert_array_equal(loaded_mean.asnumpy(), mean.asnumpy())
        np.testing.assert_array_equal(loaded_var.asnumpy(), var.asnumpy())
    # synced onto the weight's context on the next call, then updated from there
    other(0, weights[0] * 0.5, weights[0])
    assert other.states_synced[0] is True and other.states_synced[1] is False


@pytest.mark.parametrize("name", ["sgd_factor", "adam"])
def test_read_mxnet_dump_with_optimizer_and_continue(name):
    meta = json.load(open(os.path.join(DATA, "dump_cases.json")))[name]
    data = np.load(os.path.join(DATA, f"{name}_dump.npz"))
    updater = mx.optimizer.get_updater(mx.optimizer.create("nag"))
    updater.set_states(open(os.path.join(DATA, f"{name}_dump.states"), "rb").read())
    optimizer = updater.optimizer
    assert type(optimizer) is type(mx.optimizer.create(meta["optimizer"]))
    assert optimizer.lr_mult == meta["lr_mult"] and optimizer.wd_mult == meta["wd_mult"]
    weights = [mx.nd.array(data["weight0"]), mx.nd.array(data["weight1"])]
    updater([0, 1], [mx.nd.array(data["grad0"]), mx.nd.array(data["grad1"])], weights)
    assert optimizer.num_update == meta["num_update"]
    assert optimizer.learning_rate == pytest.approx(meta["lr"])
    np.testing.assert_allclose(weights[0].asnumpy(), data["after0"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(weights[1].asnumpy(), data["after1"], rtol=1e-5, atol=1e-6)


def test_write_dump_with_optimizer_under_mxnet_names():
    scheduler = mx.lr_scheduler.MultiFactorScheduler(step=[2, 4], factor=0.1, base_lr=0.5)
    optimizer = mx.optimizer.SGD(momentum=0.9, lr_scheduler=scheduler, param_idx2name={0: "a_weight"})
    updater = mx.optimizer.get_updater(optimizer)
    weight = mx.nd.ones((4,))
    for _ in range(3):
        updater(0, mx.nd.ones((4,)), weight)
    data = updater.get_states(dump_optimizer=True)
    strings = [arg for op, arg, _ in pickletools.genops(data) if op.name == "SHORT_BINUNICODE"]
    assert "mxnet.optimizer.optimizer" in strings and "mxnet.lr_scheduler" in strings
    other = mx.optimizer.get_updater(mx.optimizer.create("adam"))
    other.set_states(data)
    assert isinstance(other.optimizer, mx.optimizer.SGD) and other.optimizer.momentum == 0.9
    assert isinstance(other.optimizer.lr_scheduler, mx.lr_scheduler.MultiFactorScheduler)
    assert other.optimizer.num_update == 3 and other.optimizer.learning_rate == pytest.approx(0.05)
    np.testing.assert_array_equal(other.states[0].asnumpy(), updater.states[0].asnumpy())


class Exploit:
    def __reduce__(self):
        return (os.system, ("echo should-not-run",))


def test_set_states_refuses_unexpected_globals_and_garbage():
    updater = mx.optimizer.get_updater(mx.optimizer.SGD())
    with pytest.raises(MXNetError, match="refusing"):
        updater.set_states(pickle.dumps({0: Exploit()}, protocol=4))
    with pytest.raises(MXNetError, match="refusing"):
        updater.set_states(pickle.dumps({0: np.zeros(2)}, protocol=4))
    raw = open(os.path.join(CHECKPOINTS, "mlp-0002.states"), "rb").read()
    with pytest.raises(MXNetError, match="not a valid"):
        updater.set_states(raw[: len(raw) // 2])
    with pytest.raises(MXNetError, match="bytes"):
        updater.set_states("not bytes")
    with pytest.raises(MXNetError, match="expected a pickled dict"):
        updater.set_states(pickle.dumps([1, 2], protocol=4))


def test_updater_lists_bytes_indices_and_sync():
    optimizer = mx.optimizer.SGD(learning_rate=0.5, momentum=0.5)
    updater = mx.optimizer.get_updater(optimizer)
    assert updater.aggregate_updates and optimizer.aggregate_num == 4
    weights = [mx.nd.ones((2,)) for _ in range(6)]
    updater(list(range(6)), [mx.nd.ones((2,)) for _ in range(6)], weights)
    assert sorted(updater.states) == list(range(6))
    for weight in weights:
        np.testing.assert_allclose(weight.asnumpy(), [0.5, 0.5])
    updater(b"named", mx.nd.ones((2,)), weights[0])
    assert "named" in updater.states
    nested = updater.sync_state_context((mx.nd.ones((1,)), [None, mx.nd.zeros((1,))]), mx.cpu(0))
    assert isinstance(nested, tuple) and isinstance(nested[1], list) and nested[1][0] is None


# -- lr_scheduler -------------------------------------------------------------------------------------
def test_scheduler_validation():
    with pytest.raises(MXNetError, match="step"):
        mx.lr_scheduler.FactorScheduler(step=0)
    with pytest.raises(MXNetError, match="factor"):
        mx.lr_scheduler.FactorScheduler(step=2, factor=1.5)
    with pytest.raises(MXNetError, match="increasing"):
        mx.lr_scheduler.MultiFactorScheduler(step=[3, 3])
    with pytest.raises(MXNetError, match="warmup_mode"):
        mx.lr_scheduler.PolyScheduler(10, warmup_mode="cubic")
    with pytest.raises(MXNetError, match="warmup_begin_lr"):
        mx.lr_scheduler.CosineScheduler(10, base_lr=0.1, warmup_begin_lr=0.5)
    with pytest.raises(MXNetError, match="max_update"):
        mx.lr_scheduler.CosineScheduler(0)
    with pytest.raises(NotImplementedError):
        mx.lr_scheduler.LRScheduler()(1)


def test_factor_scheduler_stop_and_resume_jump():
    scheduler = mx.lr_scheduler.FactorScheduler(step=2, factor=0.1, stop_factor_lr=1e-3, base_lr=1.0)
    # a resumed run asks for update 7 directly: the rate drops three times at once (while loop)
    assert scheduler(7) == pytest.approx(1e-3)
    assert scheduler(100) == pytest.approx(1e-3)


def test_poly_and_cosine_hold_after_max_update():
    poly = mx.lr_scheduler.PolyScheduler(max_update=10, base_lr=1.0, pwr=2, final_lr=0.1)
    assert poly(10) == pytest.approx(0.1) and poly(50) == pytest.approx(0.1)
    cosine = mx.lr_scheduler.CosineScheduler(max_update=10, base_lr=1.0, final_lr=0.2)
    assert cosine(5) == pytest.approx(0.6) and cosine(10) == pytest.approx(0.2) and cosine(11) == pytest.approx(0.2)


def test_lamb_trust_ratio_bounds_from_formula():
    weight0 = np.full((2, 2), 3.0, np.float32)          # norm 6
    grad = np.array([[1.0, -1.0], [2.0, 0.5]], np.float32)
    for lower, upper, r1 in [(None, None, 6.0), (None, 2.0, 2.0), (8.0, None, 8.0)]:
        optimizer = mx.optimizer.LAMB(learning_rate=0.1, lower_bound=lower, upper_bound=upper)
        w = mx.nd.array(weight0)
        optimizer.update(0, w, mx.nd.array(grad), optimizer.create_state(0, w))
        mean, var = 0.1 * grad, 0.001 * grad * grad
        update = (mean / 0.1) / (np.sqrt(var / 0.001) + 1e-6)
        expected = weight0 - 0.1 * r1 / np.linalg.norm(update) * update
        np.testing.assert_allclose(w.asnumpy(), expected, rtol=1e-5)


def test_torch_tensors_stay_on_their_device_and_weights_are_updated_in_place():
    weight = mx.nd.ones((3,))
    tensor = weight._tensor
    optimizer = mx.optimizer.RMSProp(centered=True)
    updater = mx.optimizer.get_updater(optimizer)
    updater(0, mx.nd.ones((3,)), weight)
    assert weight._tensor is tensor and weight._tensor.requires_grad is False
    assert all(s._tensor.device == tensor.device for s in updater.states[0])
    assert torch.all(weight._tensor < 1)
