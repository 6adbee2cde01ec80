"""Nothing lost: a save killed at any moment leaves the previous or (after recovery) the new
complete checkpoint; only rank 0 writes in distributed runs; fit(begin_epoch=k) from a
checkpoint continues bit-identically to an uninterrupted run."""
import os
import sys

import numpy as np
import pytest
import torch

import mxtorch as mx
from mxtorch import model, util

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
import checkpoint_kill_loop  # noqa: E402


def test_kill_loop_finds_no_broken_checkpoint(tmp_path):
    counts = checkpoint_kill_loop.run(40, str(tmp_path), seed=1, log=lambda message: None)
    assert counts["kills"] == 40 and counts["broken"] == 0, counts
    assert counts["advanced"] > 0            # saves completed between kills: the kills hit real saves
    assert counts["leftover_files"] == []


class Killed(BaseException):
    """Stands for SIGKILL: nothing after it runs in the writer."""


def test_a_save_killed_between_renames_is_completed_by_the_next_load(tmp_path, monkeypatch):
    prefix = str(tmp_path / "ck")
    old = checkpoint_kill_loop.generation_files(1)
    new = checkpoint_kill_loop.generation_files(2)
    model.save_checkpoint(prefix, 1, old[0], old[1], {}, states=old[2])
    renames = []
    real_replace = os.replace

    def replace_then_die(source, target):
        if ".journal." not in source:
            if renames:
                raise Killed()               # the first checkpoint file was renamed, the others not
            renames.append(target)
        real_replace(source, target)

    monkeypatch.setattr(util.os, "replace", replace_then_die)
    with pytest.raises(Killed):
        model.save_checkpoint(prefix, 1, new[0], new[1], {}, states=new[2])
    monkeypatch.undo()
    assert os.path.exists(model.checkpoint_journal(prefix))
    # on disk now: a mix (new symbol, old parameters) until recovered
    with open(f"{prefix}-symbol.json") as handle:
        assert '"__generation__": "2"' in handle.read()
    assert mx.nd.load(f"{prefix}-0001.params")["arg:fc_bias"].asnumpy()[0] == 1.0
    assert checkpoint_kill_loop.read_generation(prefix) == 2   # load_checkpoint completed the save
    assert not os.path.exists(model.checkpoint_journal(prefix))
    assert sorted(os.listdir(tmp_path)) == ["ck-0001.params", "ck-0001.states", "ck-symbol.json"]


def test_a_save_killed_before_its_journal_keeps_the_previous_set(tmp_path, monkeypatch):
    prefix = str(tmp_path / "ck")
    old = checkpoint_kill_loop.generation_files(1)
    new = checkpoint_kill_loop.generation_files(2)
    model.save_checkpoint(prefix, 1, old[0], old[1], {}, states=old[2])
    real_stage = util._stage
    staged = []

    def stage_then_die(path, payload):
        if path.endswith(".states"):
            raise Killed()
        staged.append(real_stage(path, payload))
        return staged[-1]

    monkeypatch.setattr(util, "_stage", stage_then_die)
    with pytest.raises(Killed):
        model.save_checkpoint(prefix, 1, new[0], new[1], {}, states=new[2])
    monkeypatch.undo()
    assert checkpoint_kill_loop.read_generation(prefix) == 1


def test_only_rank_0_writes_checkpoints(tmp_path, monkeypatch):
    symbol, params, states = checkpoint_kill_loop.generation_files(3)
    monkeypatch.setattr(model, "_distributed_rank", lambda: 1)
    monkeypatch.delenv("MXTORCH_CHECKPOINT_ALL_RANKS", raising=False)
    model.save_checkpoint(str(tmp_path / "rank1"), 1, symbol, params, {}, states=states)
    assert os.listdir(tmp_path) == []
    monkeypatch.setenv("MXTORCH_CHECKPOINT_ALL_RANKS", "1")
    model.save_checkpoint(str(tmp_path / "rank1"), 1, symbol, params, {}, states=states)
    assert checkpoint_kill_loop.read_generation(str(tmp_path / "rank1")) == 3
    monkeypatch.setattr(model, "_distributed_rank", lambda: 0)
    monkeypatch.delenv("MXTORCH_CHECKPOINT_ALL_RANKS")
    model.save_checkpoint(str(tmp_path / "rank0"), 1, symbol, params, {}, states=states)
    assert checkpoint_kill_loop.read_generation(str(tmp_path / "rank0")) == 3


def _network():
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=12, name="fc1")
    net = mx.sym.BatchNorm(net, name="bn1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    net = mx.sym.FullyConnected(net, num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def _fit(begin_epoch, num_epoch, prefix, resume_from=None):
    rng = np.random.RandomState(5)
    data, label = rng.randn(48, 7).astype(np.float32), rng.randint(0, 3, 48).astype(np.float32)
    iterator = mx.io.NDArrayIter(data, label, batch_size=8, shuffle=False)
    mx.random.seed(11)
    if resume_from is None:
        module = mx.mod.Module(_network())
    else:
        module = mx.mod.Module.load(prefix, resume_from, load_optimizer_states=True)

    def checkpoint(epoch, symbol, arg_params, aux_params):
        module.save_checkpoint(prefix, epoch + 1, save_optimizer_states=True)

    module.fit(iterator, begin_epoch=begin_epoch, num_epoch=num_epoch, optimizer="sgd",
               optimizer_params={"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-3},
               initializer=mx.init.Xavier(), epoch_end_callback=checkpoint)
    arg_params, aux_params = module.get_params()
    return {name: value.asnumpy() for name, value in {**arg_params, **aux_params}.items()}


def test_fit_resumed_with_begin_epoch_is_bit_identical(tmp_path):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        uninterrupted = _fit(0, 4, str(tmp_path / "full"))
        _fit(0, 2, str(tmp_path / "part"))                       # killed after epoch 2's checkpoint
        resumed = _fit(2, 4, str(tmp_path / "part"), resume_from=2)
    finally:
        torch.set_num_threads(threads)
    assert sorted(resumed) == sorted(uninterrupted)
    first = _fit(0, 2, str(tmp_path / "again"))
    assert any(not np.array_equal(first[name], uninterrupted[name]) for name in first)   # epochs 3-4 moved them
    for name, value in uninterrupted.items():
        np.testing.assert_array_equal(resumed[name], value, err_msg=name)


def _bucketing_module(value):
    def sym_gen(key):
        data = mx.sym.var("data")
        net = mx.sym.FullyConnected(data, num_hidden=2, name="fc")
        return mx.sym.LinearRegressionOutput(net, name="out"), ("data",), ("out_label",)
    module = mx.mod.BucketingModule(sym_gen, default_bucket_key=3)
    module.bind(data_shapes=[("data", (2, 3))], label_shapes=[("out_label", (2, 2))])
    module.init_params(arg_params={"fc_weight": mx.nd.full((2, 3), value), "fc_bias": mx.nd.full((2,), value)})
    return module


def test_a_bucketing_save_killed_between_renames_is_completed_by_the_next_load(tmp_path, monkeypatch):
    prefix = str(tmp_path / "bk")
    _bucketing_module(1.0).save_checkpoint(prefix, 1)
    renames = []
    real_replace = os.replace

    def replace_then_die(source, target):
        if ".journal." not in source:
            if renames:
                raise Killed()
            renames.append(target)
        real_replace(source, target)

    monkeypatch.setattr(util.os, "replace", replace_then_die)
    with pytest.raises(Killed):
        _bucketing_module(2.0).save_checkpoint(prefix, 1)
    monkeypatch.undo()
    assert os.path.exists(model.checkpoint_journal(prefix))
    loaded = mx.mod.BucketingModule.load(prefix, 1, data_names=("data",), label_names=("out_label",))
    assert not os.path.exists(model.checkpoint_journal(prefix))
    assert float(loaded._arg_params["fc_bias"].asnumpy()[0]) == 2.0   # the killed save, completed
