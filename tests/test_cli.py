"""``python -m mxtorch train|score`` end to end on the bundled digits."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import mxtorch as mx
from mxtorch import cli, cli_networks

ACCURACY_LINE = re.compile(r"^Validation-accuracy=([0-9.]+)$", re.MULTILINE)


def _accuracy(text):
    matches = ACCURACY_LINE.findall(text)
    assert len(matches) == 1, text
    return float(matches[0])


def _run_module(*arguments):
    environment = dict(os.environ)
    source = str(Path(mx.__file__).resolve().parent.parent)
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [source, environment.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "mxtorch", *arguments], capture_output=True, text=True,
                          env=environment, timeout=300)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """Two epochs of the MLP, checkpointed every epoch, through ``python -m mxtorch train``."""
    prefix = tmp_path_factory.mktemp("runs") / "mlp"
    result = _run_module("train", "--network", "mlp", "--num-epochs", "2", "--batch-size", "32",
                         "--disp-batches", "20", "--model-prefix", str(prefix))
    assert result.returncode == 0, result.stderr
    return prefix, result


def test_train_writes_checkpoints_and_reports_accuracy(trained):
    prefix, result = trained
    assert sorted(path.name for path in prefix.parent.iterdir()) == [
        "mlp-0001.params", "mlp-0002.params", "mlp-symbol.json"]
    graph = json.loads(Path(f"{prefix}-symbol.json").read_text())
    assert [node["name"] for node in graph["nodes"] if node["op"] == "FullyConnected"] == ["fc1", "fc2", "fc3"]
    assert _accuracy(result.stdout) > 0.5
    # Speedometer lines every 20 batches of 44 (1,408 samples / 32), MXNet's format
    speed_lines = re.findall(r"Epoch\[(\d)\] Batch \[(\d+)-(\d+)\]\tSpeed: [0-9.]+ samples/sec\taccuracy=[0-9.]+",
                             result.stderr)
    assert speed_lines == [("0", "0", "20"), ("0", "20", "40"), ("1", "0", "20"), ("1", "20", "40")]


def test_score_reproduces_the_training_accuracy(trained, capsys):
    # Training scored with batches of 32, score uses 64: the padded last batch differs
    # (389 = 12 * 32 + 5 = 6 * 64 + 5), and mxtorch counts only the 389 real samples
    # (MXNet 1.9.1 counted the padding rows too, so its two numbers differed).
    prefix, result = trained
    assert cli.main(["score", "--model-prefix", str(prefix), "--load-epoch", "2"]) == 0
    accuracy = _accuracy(capsys.readouterr().out)
    assert accuracy == pytest.approx(_accuracy(result.stdout), abs=1e-6)
    correct = accuracy * 389
    assert abs(correct - round(correct)) < 389 * 1e-6


def test_resume_from_checkpoint(trained, capsys, tmp_path):
    prefix, _ = trained
    resumed = tmp_path / "mlp"
    for suffix in ("-symbol.json", "-0001.params"):
        Path(f"{resumed}{suffix}").write_bytes(Path(f"{prefix}{suffix}").read_bytes())
    assert cli.main(["train", "--network", "mlp", "--num-epochs", "2", "--batch-size", "32",
                     "--model-prefix", str(resumed), "--load-epoch", "1"]) == 0
    assert _accuracy(capsys.readouterr().out) > 0.5
    # only the second epoch ran: it wrote epoch 2 and nothing else
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "mlp-0001.params", "mlp-0002.params", "mlp-symbol.json"]


def test_score_of_missing_checkpoint_fails_with_message(tmp_path, capsys):
    assert cli.main(["score", "--model-prefix", str(tmp_path / "absent"), "--load-epoch", "3"]) == 1
    error = capsys.readouterr().err
    assert error.startswith("python -m mxtorch score: error:") and "absent" in error


@pytest.mark.parametrize("load_epoch, expected_rate, expected_steps", [
    (None, 0.1, [22 * 3, 22 * 6]),   # steps at epochs 3 and 6, 22 updates per epoch
    (4, 0.01, [22 * 2]),             # one step already passed; 6 is 2 epochs after the resume
    (6, 0.001, None),                # both passed: constant rate, no scheduler
])
def test_learning_rate_schedule_follows_fit_py(load_epoch, expected_rate, expected_steps):
    args = SimpleNamespace(lr=0.1, lr_factor=0.1, lr_step_epochs="3,6", load_epoch=load_epoch)
    rate, scheduler = cli._learning_rate_schedule(args, batches_per_epoch=22)
    assert rate == pytest.approx(expected_rate)
    if expected_steps is None:
        assert scheduler is None
    else:
        assert list(scheduler.step) == expected_steps and scheduler.factor == 0.1


@pytest.mark.parametrize("name, image_size, parameters", [
    # parameter counts: weights + biases (+ BatchNorm gamma/beta), by hand
    ("mlp", 8, 64 * 128 + 128 + 128 * 64 + 64 + 64 * 10 + 10),
    ("lenet", 8, 25 * 20 + 20 + 25 * 20 * 50 + 50 + 50 * 2 * 2 * 500 + 500 + 500 * 10 + 10),
    ("lenet", 28, 25 * 20 + 20 + 25 * 20 * 50 + 50 + 50 * 4 * 4 * 500 + 500 + 500 * 10 + 10),
])
def test_network_shapes(name, image_size, parameters):
    symbol = cli_networks.get_network(mx, name, image_size=image_size)
    argument_shapes, output_shapes, _ = symbol.infer_shape(data=(5, 1, image_size, image_size))
    assert output_shapes == [(5, 10)]
    shapes = dict(zip(symbol.list_arguments(), argument_shapes))
    assert shapes["softmax_label"] == (5,)
    assert sum(int(np.prod(shape)) for argument, shape in shapes.items()
               if argument not in ("data", "softmax_label")) == parameters


def test_resnet20_layout():
    symbol = cli_networks.get_network(mx, "resnet", num_layers=20)
    convolutions = [name for name in symbol.list_arguments() if name.endswith("_weight") and "conv" in name]
    # the stem plus two 3x3 convolutions in each of 9 units = 19, the fully connected layer makes 20
    assert len(convolutions) == 19
    _, output_shapes, aux_shapes = symbol.infer_shape(data=(2, 3, 32, 32))
    assert output_shapes == [(2, 10)]
    assert len(aux_shapes) == 2 * (1 + 2 * 9 + 1)   # moving mean and variance of every BatchNorm
    with pytest.raises(mx.base.MXNetError, match="num_layers"):
        cli_networks.get_network(mx, "resnet", num_layers=21)


def test_missing_gpu_is_reported(capsys):
    assert cli.main(["train", "--gpus", "0,99", "--num-epochs", "1"]) == 1
    assert "no GPU numbered" in capsys.readouterr().err
