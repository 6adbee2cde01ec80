"""Resuming from a checkpoint with optimizer states continues training exactly.

On CPU with fixed seeds: train k steps, ``save_checkpoint(..., save_optimizer_states=True)``,
train m more steps (the uninterrupted run).  Separately ``Module.load(prefix, k,
load_optimizer_states=True)``, bind, init_optimizer with the same optimizer and run the same
m steps: the final parameters (and BatchNorm statistics) must equal the uninterrupted run's.
MXNet's ``.states`` file holds the per-parameter states only, not the optimizer's update
counts, so Adam's bias correction is resumed with ``begin_num_update=k`` (as in MXNet).  A
resume without the optimizer states must differ, which shows the states are what matters.
"""
import os

import numpy as np
import pytest

import mxtorch as mx

BATCH = 8
STEPS_BEFORE = 3
STEPS_AFTER = 4
OPTIMIZERS = {
    "sgd_momentum": ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-4}),
    "adam": ("adam", {"learning_rate": 0.01, "wd": 1e-4}),
}


def mlp():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=16, name="fc1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    net = mx.sym.FullyConnected(net, num_hidden=4, name="fc2")
    return mx.sym.SoftmaxOutput(net, name="softmax"), (BATCH, 10)


def conv_batchnorm():
    data = mx.sym.Variable("data")
    net = mx.sym.Convolution(data, kernel=(3, 3), pad=(1, 1), num_filter=4, name="conv1")
    net = mx.sym.BatchNorm(net, fix_gamma=False, name="bn1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    net = mx.sym.Pooling(net, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
    net = mx.sym.FullyConnected(mx.sym.Flatten(net), num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(net, name="softmax"), (BATCH, 2, 6, 6)


NETWORKS = {"mlp": mlp, "conv_batchnorm": conv_batchnorm}


def batches(data_shape, classes, count):
    rng = np.random.RandomState(7)
    return [mx.io.DataBatch([mx.nd.array(rng.normal(size=data_shape).astype(np.float32))],
                            [mx.nd.array(rng.randint(0, classes, size=(data_shape[0],)).astype(np.float32))])
            for _ in range(count)]


def bind(module, data_shape):
    module.bind(data_shapes=[("data", data_shape)], label_shapes=[("softmax_label", (data_shape[0],))])


def train(module, batch_list):
    for batch in batch_list:
        module.forward_backward(batch)
        module.update()


def snapshot(module):
    arg_params, aux_params = module.get_params()
    return {**{f"arg:{k}": v.asnumpy() for k, v in arg_params.items()},
            **{f"aux:{k}": v.asnumpy() for k, v in aux_params.items()}}


def resumed(prefix, data_shape, optimizer, optimizer_params, batch_list, load_optimizer_states):
    module = mx.mod.Module.load(prefix, STEPS_BEFORE, load_optimizer_states=load_optimizer_states)
    bind(module, data_shape)
    module.init_optimizer(optimizer=optimizer,
                          optimizer_params={**optimizer_params, "begin_num_update": STEPS_BEFORE})
    train(module, batch_list)
    return snapshot(module)


@pytest.mark.parametrize("optimizer_name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("network", sorted(NETWORKS))
def test_resume_from_checkpoint_matches_uninterrupted_training(network, optimizer_name, tmp_path):
    symbol, data_shape = NETWORKS[network]()
    optimizer, optimizer_params = OPTIMIZERS[optimizer_name]
    batch_list = batches(data_shape, 4 if network == "mlp" else 3, STEPS_BEFORE + STEPS_AFTER)
    prefix = str(tmp_path / network)

    mx.random.seed(42)
    module = mx.mod.Module(symbol)
    bind(module, data_shape)
    module.init_params(mx.init.Xavier(rnd_type="gaussian", factor_type="in", magnitude=2))
    module.init_optimizer(optimizer=optimizer, optimizer_params=optimizer_params)
    train(module, batch_list[:STEPS_BEFORE])
    module.save_checkpoint(prefix, STEPS_BEFORE, save_optimizer_states=True)
    at_checkpoint = snapshot(module)
    train(module, batch_list[STEPS_BEFORE:])
    uninterrupted = snapshot(module)

    resumed_params = resumed(prefix, data_shape, optimizer, optimizer_params, batch_list[STEPS_BEFORE:], True)
    assert sorted(resumed_params) == sorted(uninterrupted)
    for key, value in uninterrupted.items():
        np.testing.assert_allclose(resumed_params[key], value, rtol=0, atol=1e-6, err_msg=key)
    # the m steps after the checkpoint did change every parameter
    assert all(not np.array_equal(value, at_checkpoint[key]) for key, value in uninterrupted.items())

    # without the optimizer states the continuation is different
    fresh = resumed(prefix, data_shape, optimizer, optimizer_params, batch_list[STEPS_BEFORE:], False)
    differences = [np.abs(fresh[key] - value).max() for key, value in uninterrupted.items() if key.startswith("arg:")]
    assert max(differences) > 1e-4


# -- atomic saving ---------------------------------------------------------------------------------
class _DiskFullStream:
    """A file stream whose first write stores half of the data, then fails (disk full)."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, data):
        self.stream.write(bytes(data)[: max(1, len(data) // 2)])
        self.stream.flush()
        raise OSError(28, "No space left on device")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stream.close()

    def __getattr__(self, name):
        return getattr(self.stream, name)


def _trained_module(tmp_path):
    symbol, data_shape = conv_batchnorm()
    module = mx.mod.Module(symbol)
    bind(module, data_shape)
    module.init_params(mx.init.Xavier())
    module.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    batch_list = batches(data_shape, 3, 2)
    train(module, batch_list[:1])
    return module, batch_list, str(tmp_path / "net")


def _files(folder):
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


@pytest.mark.parametrize("save", ["module.save_checkpoint", "model.save_checkpoint", "symbol.save",
                                  "nd.save", "module.save_optimizer_states", "module.save_params"])
def test_failed_save_leaves_previous_files_intact(save, tmp_path, monkeypatch):
    module, batch_list, prefix = _trained_module(tmp_path)
    module.save_checkpoint(prefix, 1, save_optimizer_states=True)
    before = _files(tmp_path)
    assert sorted(before) == ["net-0001.params", "net-0001.states", "net-symbol.json"]
    train(module, batch_list[1:])  # parameters and momenta change, so a complete save would differ
    arg_params, aux_params = module.get_params()
    real_fdopen = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda *args, **kwargs: _DiskFullStream(real_fdopen(*args, **kwargs)))
    actions = {
        "module.save_checkpoint": lambda: module.save_checkpoint(prefix, 1, save_optimizer_states=True),
        "model.save_checkpoint": lambda: mx.model.save_checkpoint(prefix, 1, module.symbol, arg_params, aux_params),
        "symbol.save": lambda: module.symbol.save(prefix + "-symbol.json"),
        "nd.save": lambda: mx.nd.save(prefix + "-0001.params", {"arg:x": mx.nd.ones((3,))}),
        "module.save_optimizer_states": lambda: module.save_optimizer_states(prefix + "-0001.states"),
        "module.save_params": lambda: module.save_params(prefix + "-0001.params"),
    }
    with pytest.raises(mx.MXNetError, match="No space left|cannot write"):
        actions[save]()
    monkeypatch.undo()
    assert _files(tmp_path) == before  # same files, same bytes, no temporary file left behind
    loaded = mx.mod.Module.load(prefix, 1, load_optimizer_states=True)
    assert loaded.symbol.tojson() == module.symbol.tojson()


def test_killed_process_during_save_leaves_previous_checkpoint_loadable(tmp_path):
    """A process that dies in the middle of writing (no cleanup runs) leaves the previous
    -symbol.json / .params / .states as they were."""
    import subprocess
    import sys
    module, batch_list, prefix = _trained_module(tmp_path)
    module.save_checkpoint(prefix, 1, save_optimizer_states=True)
    before = _files(tmp_path)
    script = f"""
import os, sys
import numpy as np
import mxtorch as mx
symbol = mx.sym.load({prefix + '-symbol.json'!r})
arg_params, aux_params = mx.model.load_params({prefix!r}, 1)
arg_params = {{k: v + 1 for k, v in arg_params.items()}}
real_fdopen = os.fdopen
class Dying:
    def __init__(self, stream): self.stream = stream
    def write(self, data):
        self.stream.write(bytes(data)[: max(1, len(data) // 2)]); self.stream.flush(); os._exit(3)
    def __enter__(self): return self
    def __exit__(self, *exc): self.stream.close()
    def __getattr__(self, name): return getattr(self.stream, name)
os.fdopen = lambda *a, **k: Dying(real_fdopen(*a, **k))
mx.model.save_checkpoint({prefix!r}, 1, symbol, arg_params, aux_params)
"""
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(mx.__file__)))
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [package_root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
    result = subprocess.run([sys.executable, "-c", script], env=environment, cwd=str(tmp_path),
                            capture_output=True, timeout=120)
    assert result.returncode == 3, result.stderr.decode()[-2000:]
    after = _files(tmp_path)
    for name, payload in before.items():
        assert after[name] == payload
    # only a partial temporary file may remain beside them
    assert all(name.startswith(".") for name in set(after) - set(before))
    symbol, arg_params, aux_params = mx.model.load_checkpoint(prefix, 1)
    np.testing.assert_array_equal(arg_params["fc_weight"].asnumpy(), module.get_params()[0]["fc_weight"].asnumpy())
