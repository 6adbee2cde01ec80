"""The `mxtorch` command line beyond train/score: its name in --help, flag validation, the
image-size diagnosis at `score`, the subcommand registry and tools/check_api_surface.py."""
import os
import subprocess
import sys

import pytest

from mxtorch import cli
from mxtorch.base import MXNetError

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _main(*argv):
    return subprocess.run([sys.executable, "-m", "mxtorch", *argv], capture_output=True, text=True, timeout=300)


def test_console_script_shows_its_name(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["/usr/local/bin/mxtorch", "--help"])
    with pytest.raises(SystemExit):
        cli.main()
    out = capsys.readouterr().out
    assert out.startswith("usage: mxtorch ")
    for command in ("train", "score", "run", "convert", "plot-log"):
        assert command in out
    monkeypatch.setattr(sys, "argv", ["/x/mxtorch/__main__.py", "--help"])
    with pytest.raises(SystemExit):
        cli.main()
    assert capsys.readouterr().out.startswith("usage: python -m mxtorch ")


@pytest.mark.parametrize("flag, value, expected", [
    ("--mom", "1.5", "--mom must be a number in [0, 1), got 1.5"),
    ("--mom", "nan", "--mom must be a number in [0, 1), got nan"),
    ("--wd", "-0.1", "--wd must be a non-negative finite number, got -0.1"),
    ("--kv-store", "carrier_pigeon", "--kv-store must be a key-value store type ("),
])
def test_train_validates_flags(flag, value, expected, capsys):
    assert cli.main(["train", "--num-epochs", "1", flag, value]) == 1
    error = capsys.readouterr().err
    assert error.startswith("python -m mxtorch train: error: " + expected), error
    if flag == "--kv-store":
        assert "local" in error and "'carrier_pigeon'" in error


def test_score_names_the_image_size_of_the_checkpoint(tmp_path):
    prefix = str(tmp_path / "mlp")
    trained = _main("train", "--network", "mlp", "--num-epochs", "1", "--model-prefix", prefix)
    assert trained.returncode == 0, trained.stderr
    result = _main("score", "--model-prefix", prefix, "--load-epoch", "1", "--image-size", "28")
    assert result.returncode == 1
    assert ("the checkpoint " + prefix + "-0001.params was trained with another image size, --image-size 8"
            in result.stderr), result.stderr
    assert _main("score", "--model-prefix", prefix, "--load-epoch", "1").returncode == 0


def test_register_command_extends_the_parser(monkeypatch, capsys):
    seen = []
    monkeypatch.setattr(cli, "_COMMANDS", dict(cli._COMMANDS))
    cli.register_command("hello", "say hello", lambda p: p.add_argument("--who", default="world"),
                         lambda args: seen.append(args.who) or 7)
    assert cli.main(["hello", "--who", "mxnet"]) == 7 and seen == ["mxnet"]
    cli.register_command("fails", "raise", lambda p: None, lambda args: (_ for _ in ()).throw(MXNetError("bad")))
    assert cli.main(["fails"]) == 1
    assert capsys.readouterr().err.strip().endswith("fails: error: bad")


def test_check_api_surface_runs_outside_the_repository(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "check_api_surface.py"), "--markdown"],
                            capture_output=True, text=True, cwd=str(tmp_path), env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    total = [line for line in result.stdout.splitlines() if line.startswith("| all |")]
    assert total, result.stdout[-500:]
    names, have, missing = (int(x) for x in total[0].strip("|").split("|")[1:4])
    assert names == have + missing and have > 0.8 * names
