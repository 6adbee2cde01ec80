"""The `mxtorch` command line's one-line errors: a missing optional dependency (onnx for
`convert --to onnx`, matplotlib for `plot-log`), a non-positive --data-shapes dimension, and
no command or an unknown option before the command."""
import os
import subprocess
import sys

import pytest

import mxtorch as mx
from mxtorch import cli
from mxtorch.base import MXNetError
from mxtorch.exceptions import MissingDependencyError

HERE = os.path.dirname(os.path.abspath(__file__))
MXNET_LOG = os.path.join(HERE, "data", "logs", "mxnet-1.9.1-fit.log")


def _checkpoint(tmp_path):
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    prefix = str(tmp_path / "tiny")
    arg_params = {"fc_weight": mx.nd.ones((3, 4)), "fc_bias": mx.nd.zeros((3,))}
    mx.model.save_checkpoint(prefix, 1, net, arg_params, {})
    return prefix


def _one_line_error(capsys, status, expected_prefix):
    assert status == 1
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    assert lines[0].startswith(expected_prefix), lines[0]
    return lines[0]


def test_convert_to_onnx_without_onnx_is_one_line(tmp_path, monkeypatch, capsys):
    prefix = _checkpoint(tmp_path)
    monkeypatch.setitem(sys.modules, "onnx", None)      # `import onnx` raises ImportError
    status = cli.main(["convert", prefix, "1", "--to", "onnx", "-o", str(tmp_path / "m.onnx"),
                       "--data-shapes", "data:2x4"])
    line = _one_line_error(capsys, status, "python -m mxtorch convert: error: ")
    assert "optional dependency onnx" in line and "pip install 'mxtorch[onnx]'" in line
    assert not (tmp_path / "m.onnx").exists()


def test_to_onnx_without_onnx_is_still_an_import_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)
    from mxtorch.export import to_onnx
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=3, name="fc")
    params = {"fc_weight": mx.nd.ones((3, 4)), "fc_bias": mx.nd.zeros((3,))}
    with pytest.raises(ImportError, match=r"mxtorch\[onnx\]") as info:
        to_onnx(net, params, {}, [("data", (2, 4))], str(tmp_path / "m.onnx"))
    assert isinstance(info.value, MXNetError) and isinstance(info.value, MissingDependencyError)
    assert info.value.name == "onnx" and info.value.extra == "onnx"


def test_plot_log_without_matplotlib_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    status = cli.main(["plot-log", MXNET_LOG, "-o", str(tmp_path / "curves.png")])
    line = _one_line_error(capsys, status, "python -m mxtorch plot-log: error: ")
    assert "optional dependency matplotlib" in line and "pip install 'mxtorch[plot]'" in line
    assert not (tmp_path / "curves.png").exists()


def test_missing_dependency_in_a_subprocess_has_no_traceback(tmp_path):
    """The console path end to end: a fresh interpreter where `import matplotlib` fails."""
    code = ("import sys; sys.modules['matplotlib'] = None; sys.argv[0] = 'mxtorch'; "
            "from mxtorch.cli import main; sys.exit(main())")
    result = subprocess.run([sys.executable, "-c", code, "plot-log", MXNET_LOG, "-o", str(tmp_path / "c.png")],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.strip() == ("mxtorch plot-log: error: plot-log needs the optional dependency matplotlib, "
                                     "which is not installed: pip install 'mxtorch[plot]'")


@pytest.mark.parametrize("shapes, expected", [
    ("data:0x1x8x8", "every dimension must be a positive integer, got 0 for dimension 0 of 'data' in "
                     "'data:0x1x8x8'"),
    ("data:1x-3", "got -3 for dimension 1 of 'data'"),
    ("data:1xax8", "expected NAME:DxDx... entries (positive integer dimensions joined by 'x')"),
    ("1x3x8x8", "got '1x3x8x8'"),
])
def test_data_shapes_say_what_was_expected(tmp_path, capsys, shapes, expected):
    prefix = _checkpoint(tmp_path)
    status = cli.main(["convert", prefix, "1", "--to", "torch", "-o", str(tmp_path / "m.pt"),
                       "--data-shapes", shapes])
    line = _one_line_error(capsys, status, "python -m mxtorch convert: error: --data-shapes: ")
    assert expected in line


@pytest.mark.parametrize("argv, given", [(["--bogus"], "got '--bogus'"), ([], "got none")])
def test_no_command_lists_the_commands(capsys, argv, given):
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: python -m mxtorch ")
    message = err.strip().splitlines()[-1]
    assert message.startswith("python -m mxtorch: error: expected a command, one of launch, train, score, run, "
                              "convert, plot-log, ")
    assert given in message and "--help" in message


def test_unknown_option_with_a_command_is_named(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["--bogus", "score", "--model-prefix", "x", "--load-epoch", "1"])
    assert info.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == "python -m mxtorch: error: unrecognized arguments: --bogus"
