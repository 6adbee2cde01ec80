"""``.states`` files written by MXNet 1.9.1's Module.save_optimizer_states (checkpoint
fixture: SGD momentum for mlp/resnet, Adam for lstm_lm, RMSProp for dropout_prelu_deconv)
load through Module.load(..., load_optimizer_states=True) + bind + init_optimizer, equal the
decoded arrays (``*-states-decoded.npz``), drive the next update, and are written back byte
for byte; bad files raise MXNetError naming the file."""
import json
import os

import numpy as np
import pytest

import mxtorch as mx

DATA = os.path.join(os.path.dirname(__file__), "data", "checkpoints")
with open(os.path.join(DATA, "index.json")) as handle:
    CASES = {case["name"]: case for case in json.load(handle)["cases"]}


def states_path(name):
    return os.path.join(DATA, "%s-%04d.states" % (name, CASES[name]["epoch"]))


def loaded_module(name, load_optimizer_states=True):
    """The fixture checkpoint as a bound Module with its optimizer (a load error fails)."""
    case = CASES[name]
    io = np.load(os.path.join(DATA, f"{name}-io.npz"))
    module = mx.mod.Module.load(os.path.join(DATA, name), case["epoch"],
                                load_optimizer_states=load_optimizer_states)
    module.bind(data_shapes=[("data", io["data"].shape)],
                label_shapes=[("softmax_label", io["softmax_label"].shape)])
    module.init_optimizer(optimizer=case["fit"]["optimizer"], optimizer_params=case["fit"]["optimizer_params"])
    return module, io


def expected_states(name):
    """``{index: [arrays]}`` from the decoded npz (``state:i`` or ``state:i:k`` keys)."""
    decoded = np.load(os.path.join(DATA, f"{name}-states-decoded.npz"))
    states = {}
    for key in decoded.files:
        parts = key.split(":")
        states.setdefault(int(parts[1]), []).append((int(parts[2]) if len(parts) == 3 else 0, decoded[key]))
    return {index: [array for _, array in sorted(items, key=lambda item: item[0])]
            for index, items in states.items()}


def as_arrays(state):
    if state is None:
        return []
    if isinstance(state, (tuple, list)):
        return [s.asnumpy() for s in state]
    return [state.asnumpy()]


@pytest.mark.parametrize("name", sorted(CASES))
def test_mxnet_states_load_into_the_updater(name):
    module, _ = loaded_module(name)
    layout = CASES[name]["optimizer_state_layout"]
    states = module._updater.states
    expected = expected_states(name)
    assert sorted(states) == sorted(int(k) for k in layout) == sorted(expected)
    for index, arrays in expected.items():
        got = as_arrays(states[index])
        assert len(got) == len(arrays)
        for ours, theirs in zip(got, arrays):
            assert ours.dtype == theirs.dtype
            np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("name", sorted(CASES))
def test_save_optimizer_states_writes_mxnet_bytes_and_loads_back(name, tmp_path):
    module, io = loaded_module(name)
    written = tmp_path / "again.states"
    module.save_optimizer_states(str(written))
    with open(states_path(name), "rb") as handle:
        assert written.read_bytes() == handle.read()
    other, _ = loaded_module(name, load_optimizer_states=False)
    other.load_optimizer_states(str(written))
    for index, arrays in expected_states(name).items():
        for ours, theirs in zip(as_arrays(other._updater.states[index]), arrays):
            np.testing.assert_array_equal(ours, theirs)


def _one_update(module, io):
    """Forward/backward one batch and update; returns (weights before, gradients, weights after)."""
    batch = mx.io.DataBatch([mx.nd.array(io["data"])], [mx.nd.array(io["softmax_label"])])
    names = module._exec_group.param_names
    module.forward_backward(batch)
    before = {n: a[0].asnumpy().copy() for n, a in zip(names, module._exec_group.param_arrays)}
    grads = {n: g[0].asnumpy().copy() for n, g in zip(names, module._exec_group.grad_arrays)}
    module.update()
    after = {n: a[0].asnumpy() for n, a in zip(names, module._exec_group.param_arrays)}
    return names, before, grads, after


def test_loaded_sgd_momentum_drives_the_next_update():
    """MXNet's SGD: mom = momentum * mom - lr * (rescale * grad + wd * weight); weight += mom."""
    name = "mlp"
    module, io = loaded_module(name)
    params = CASES[name]["fit"]["optimizer_params"]
    rescale = 1.0 / io["data"].shape[0]
    momentum_before = expected_states(name)
    names, before, grads, after = _one_update(module, io)
    for index, param in enumerate(names):
        mom = momentum_before[index][0]
        new_mom = params["momentum"] * mom - params["learning_rate"] * (rescale * grads[param] + params["wd"] * before[param])
        np.testing.assert_allclose(after[param], before[param] + new_mom, rtol=1e-5, atol=1e-6)


def test_loaded_adam_moments_drive_the_next_update():
    """MXNet's Adam at the first update after init_optimizer (t = 1):
    m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2, w -= lr sqrt(1 - b2) / (1 - b1) m / (sqrt(v) + eps)."""
    name = "lstm_lm"
    module, io = loaded_module(name)
    params = CASES[name]["fit"]["optimizer_params"]
    beta1, beta2, epsilon = 0.9, 0.999, 1e-8
    moments = expected_states(name)
    names, before, grads, after = _one_update(module, io)
    for index, param in enumerate(names):
        mean, var = moments[index]
        gradient = params["rescale_grad"] * grads[param]
        mean = beta1 * mean + (1 - beta1) * gradient
        var = beta2 * var + (1 - beta2) * gradient * gradient
        step = params["learning_rate"] * np.sqrt(1 - beta2) / (1 - beta1)
        np.testing.assert_allclose(after[param], before[param] - step * mean / (np.sqrt(var) + epsilon),
                                   rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("payload", [b"", b"garbage", b"\x80\x04K\x01.", None])
def test_bad_states_file_raises_naming_the_file(payload, tmp_path):
    module, _ = loaded_module("mlp", load_optimizer_states=False)
    path = tmp_path / "broken.states"
    if payload is None:
        with open(states_path("mlp"), "rb") as handle:
            payload = handle.read()[: 200]  # truncated
    path.write_bytes(payload)
    with pytest.raises(mx.MXNetError, match="broken.states"):
        module.load_optimizer_states(str(path))


def test_missing_states_file_raises_at_init_optimizer(tmp_path):
    prefix = str(tmp_path / "mlp")
    symbol, args, auxs = mx.model.load_checkpoint(os.path.join(DATA, "mlp"), 2)
    mx.model.save_checkpoint(prefix, 2, symbol, args, auxs)
    module = mx.mod.Module.load(prefix, 2, load_optimizer_states=True)
    io = np.load(os.path.join(DATA, "mlp-io.npz"))
    module.bind(data_shapes=[("data", io["data"].shape)], label_shapes=[("softmax_label", io["softmax_label"].shape)])
    with pytest.raises(mx.MXNetError, match=r"mlp-0002\.states"):
        module.init_optimizer(optimizer="sgd", optimizer_params={"momentum": 0.9})
