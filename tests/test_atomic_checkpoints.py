"""A checkpoint's files are replaced together or not at all; links are written through;
new files get the umask's permissions."""
import os
import stat

import numpy as np
import pytest

import mxtorch as mx
from mxtorch import util


def make_module(hidden):
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=hidden, name="fc"),
                               name="softmax")
    module = mx.mod.Module(net)
    module.bind(data_shapes=[("data", (2, 3))], label_shapes=[("softmax_label", (2,))])
    module.init_params(mx.init.Xavier())
    module.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    return module


def test_failed_params_write_keeps_the_previous_matching_set(tmp_path, monkeypatch):
    prefix = str(tmp_path / "ck")
    make_module(4).save_checkpoint(prefix, 1, save_optimizer_states=True)
    before = {name: open(tmp_path / name, "rb").read() for name in os.listdir(tmp_path)}
    original = util._stage

    def failing(path, payload):
        if path.endswith(".params"):
            raise OSError(28, "No space left on device")
        return original(path, payload)

    monkeypatch.setattr(util, "_stage", failing)
    with pytest.raises(mx.MXNetError, match="ck-0001.params.*No space"):
        make_module(9).save_checkpoint(prefix, 1, save_optimizer_states=True)
    monkeypatch.undo()
    after = {name: open(tmp_path / name, "rb").read() for name in os.listdir(tmp_path)}
    assert after == before                        # no temporary file left, nothing replaced
    loaded = mx.mod.Module.load(prefix, 1, load_optimizer_states=True)
    loaded.bind(data_shapes=[("data", (2, 3))], label_shapes=[("softmax_label", (2,))])
    assert loaded.get_params()[0]["fc_weight"].shape == (4, 3)


def test_writes_follow_links_and_use_the_umask(tmp_path):
    target = tmp_path / "real-symbol.json"
    target.write_text("old")
    link = tmp_path / "net-symbol.json"
    os.symlink(target, link)
    previous = os.umask(0o022)
    try:
        mx.sym.Variable("x").save(str(link))
        mx.nd.save(str(tmp_path / "a.params"), [mx.nd.ones((1,))])
    finally:
        os.umask(previous)
    assert os.path.islink(link) and "nodes" in target.read_text()
    for name in ("real-symbol.json", "a.params"):
        assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == 0o644


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_device_targets_are_written_directly_and_report_errors():
    with pytest.raises(mx.MXNetError, match="/dev/full"):
        mx.nd.save("/dev/full", [mx.nd.ones((1000,))])
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
