"""`mxtorch plot-log` on a log written by the real MXNet 1.9.1 (tools/make_mxnet_training_log.py)
and on one written by mxtorch's fit."""
import logging
import os
import subprocess
import sys

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError
from mxtorch.plot_log import parse_log, plot_log

HERE = os.path.dirname(os.path.abspath(__file__))
MXNET_LOG = os.path.join(HERE, "data", "logs", "mxnet-1.9.1-fit.log")


def test_parse_real_mxnet_log():
    parsed = parse_log(open(MXNET_LOG).read())
    assert sorted(parsed["train"]) == ["accuracy", "cross-entropy"]
    assert sorted(parsed["validation"]) == ["accuracy", "cross-entropy"]
    assert sorted(parsed["validation"]["accuracy"]) == list(range(8))
    # the values of the lines, as MXNet wrote them
    assert parsed["validation"]["accuracy"][0] == 0.665 and parsed["validation"]["accuracy"][7] == 0.735
    lines = [line for line in open(MXNET_LOG) if "Epoch[3] Train-cross-entropy=" in line]
    assert parsed["train"]["cross-entropy"][3] == float(lines[-1].rsplit("=", 1)[1])
    speed_lines = [line for line in open(MXNET_LOG) if "Speed:" in line]
    assert len(parsed["speed"]) == len(speed_lines) == len(parsed["batches"]["accuracy"])
    assert parsed["speed"][0][:2] == (0, 5)


def _decode(path):
    image = pytest.importorskip("matplotlib.image").imread(path)
    return (image[..., :3] * 255).astype(int)


def _has_color(pixels, rgb, tolerance=30):
    return bool((np.abs(pixels - np.array(rgb)).max(axis=-1) < tolerance).sum() > 50)


def test_plot_real_mxnet_log_cli(tmp_path):
    pytest.importorskip("matplotlib")
    out = str(tmp_path / "curves.png")
    result = subprocess.run([sys.executable, "-m", "mxtorch", "plot-log", MXNET_LOG, "-o", out, "--size", "900x420"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "8 epochs, metrics accuracy, cross-entropy" in result.stdout
    pixels = _decode(out)
    assert pixels.shape[:2] == (420, 900)
    assert _has_color(pixels, (31, 119, 180))       # train curve (matplotlib tab:blue)
    assert _has_color(pixels, (255, 127, 14))       # validation curve (tab:orange)


def test_plot_mxtorch_log(tmp_path):
    pytest.importorskip("matplotlib")
    log = str(tmp_path / "train.log")
    handler = logging.FileHandler(log)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        rng = np.random.RandomState(0)
        data = rng.randn(60, 4).astype(np.float32)
        labels = (data[:, 0] > 0).astype(np.float32)
        train = mx.io.NDArrayIter(data, labels, batch_size=10)
        mod = mx.mod.Module(mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2),
                                                 name="softmax"))
        history = mod.fit(train, eval_data=train, num_epoch=3, progress=False,
                          batch_end_callback=mx.callback.Speedometer(10, 2))
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        handler.close()
    out = str(tmp_path / "c.png")
    parsed = plot_log(log, out, 640, 480)
    assert [parsed["validation"]["accuracy"][e] for e in range(3)] == pytest.approx(
        history["validation-accuracy"], abs=1e-6)
    assert _decode(out).shape[:2] == (480, 640)


def test_plot_log_rejects_file_without_metrics(tmp_path):
    path = tmp_path / "empty.log"
    path.write_text("nothing to see\n")
    with pytest.raises(MXNetError, match="has no 'Epoch\\[N\\] Train-<metric>="):
        plot_log(str(path), str(tmp_path / "x.png"))
    assert not (tmp_path / "x.png").exists()
