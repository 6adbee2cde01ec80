"""`mxtorch run`, the gpu-as-cpu / device switches and the NumPy aliases for legacy programs."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import mxtorch as mx
from mxtorch import context
from mxtorch.base import MXNetError

HERE = os.path.dirname(os.path.abspath(__file__))
LEGACY_SCRIPT = os.path.join(HERE, "data", "legacy", "train_on_gpu.py")


def _run(args, env_extra=None, cwd=None):
    env = {k: v for k, v in os.environ.items()
           if k not in ("MXTORCH_GPU_AS_CPU", "MXTORCH_NUMPY_ALIASES", "MXTORCH_DEVICE")}
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "mxtorch", "run", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=300)


def _accuracy(stdout):
    lines = [line for line in stdout.splitlines() if line.startswith("final accuracy=")]
    assert lines, stdout
    return float(lines[-1].split("=", 1)[1])


def test_legacy_script_trains_with_both_switches():
    result = _run(["--gpu-as-cpu", "--numpy-aliases", LEGACY_SCRIPT, "--epochs", "6", "--min-acc", "0.9"])
    assert result.returncode == 0, result.stderr[-3000:]
    assert _accuracy(result.stdout) >= 0.9
    # the program saw its own argv and ran as __main__
    assert "script argv=['--epochs', '6', '--min-acc', '0.9'] name=__main__" in result.stdout
    # one warning per switch
    assert result.stderr.count("numpy-aliases:") == 1
    assert result.stderr.count("gpu-as-cpu:") == 1
    assert "Validation-accuracy=" in result.stderr          # MXNet's log lines, logging configured by the script


def test_legacy_script_fails_without_switches_as_under_numpy2():
    result = _run([LEGACY_SCRIPT, "--epochs", "1"])
    assert result.returncode == 1
    # Python's own traceback of the program, ending with NumPy 2's error
    assert "Traceback (most recent call last)" in result.stderr
    assert "train_on_gpu.py\", line 25" in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("ValueError: The binary mode of fromstring")
    assert "runpy" not in result.stderr


@pytest.mark.skipif(torch.cuda.is_available(), reason="mx.gpu(0) works on this machine: nothing to refuse")
def test_gpu_context_without_cuda_keeps_mxnet_error():
    result = _run(["--numpy-aliases", LEGACY_SCRIPT, "--epochs", "1"])
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1].startswith("mxtorch.base.MXNetError: Context gpu(0): no such GPU")


def test_environment_switches_do_the_same():
    result = _run([LEGACY_SCRIPT, "--epochs", "6", "--min-acc", "0.9"],
                  env_extra={"MXTORCH_GPU_AS_CPU": "1", "MXTORCH_NUMPY_ALIASES": "1"})
    assert result.returncode == 0, result.stderr[-3000:]
    assert _accuracy(result.stdout) >= 0.9


def test_module_form_and_exit_status(tmp_path):
    (tmp_path / "legacy_pkg").mkdir()
    (tmp_path / "legacy_pkg" / "__init__.py").write_text("")
    (tmp_path / "legacy_pkg" / "job.py").write_text(
        "import sys\nimport mxnet as mx\nimport mxtorch\n"
        "assert mx is mxtorch\n"
        "print('argv', sys.argv[1:], __name__, mx.context.num_gpus())\n"
        "sys.exit(int(sys.argv[1]))\n")
    result = _run(["--gpu-as-cpu=3", "-m", "legacy_pkg.job", "5", "--flag"], cwd=str(tmp_path))
    assert result.returncode == 5, result.stderr
    assert "argv ['5', '--flag'] __main__ 3" in result.stdout


def test_run_reports_missing_script_in_one_line(tmp_path):
    result = _run([str(tmp_path / "absent.py")])
    assert result.returncode == 1
    assert result.stderr.strip() == f"python -m mxtorch run: error: run: no such file {str(tmp_path / 'absent.py')!r}"


def test_run_rejects_unknown_option_before_script():
    result = _run(["--no-such-option", LEGACY_SCRIPT])
    assert result.returncode == 2
    assert "unknown option '--no-such-option'" in result.stderr


_ALIAS_PROGRAM = r"""
import warnings, numpy as np
warnings.simplefilter("always")
import mxtorch
assert not hasattr(np, "float")
mxtorch.install_as_mxnet(numpy_aliases=True)
import mxnet
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert np.float is float and np.int is int and np.object is object and np.str is str
    assert np.unicode is str and np.complex is complex
    assert np.asscalar(np.array([3.5])) == 3.5 and type(np.asscalar(np.array([2], dtype=np.int32))) is int
    assert np.float_ is np.float64 and np.NaN != np.NaN and np.Inf == float("inf")
    assert np.product([2, 3, 4]) == 24
    read = np.fromstring(b"\x01\x00\x02\x00", dtype="<u2")
    assert read.tolist() == [1, 2] and read.flags.writeable
    read[0] = 7
    assert np.fromstring("1 2 3", dtype=int, sep=" ").tolist() == [1, 2, 3]
messages = [str(w.message) for w in caught if "numpy-aliases" in str(w.message)]
assert len(messages) == 1 and "np.float" in messages[0], messages
assert caught[0].filename == "<string>", caught[0].filename
try:
    np.no_such_name
except AttributeError as error:
    assert "no_such_name" in str(error)
else:
    raise AssertionError("np.no_such_name resolved")
print("ok")
"""


def test_numpy_aliases_values_and_single_warning():
    env = {k: v for k, v in os.environ.items() if k != "MXTORCH_NUMPY_ALIASES"}
    result = subprocess.run([sys.executable, "-c", _ALIAS_PROGRAM], capture_output=True, text=True, env=env,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_numpy_aliases_not_enabled_by_default():
    env = {k: v for k, v in os.environ.items() if k != "MXTORCH_NUMPY_ALIASES"}
    program = "import numpy as np, mxtorch; mxtorch.install_as_mxnet(); print(hasattr(np, 'float'))"
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=120)
    assert result.stdout.strip() == "False", result.stderr


@pytest.fixture
def gpu_switch():
    yield
    context.set_gpu_as_cpu(0)
    context.set_device(None)


def test_gpu_as_cpu_keeps_device_id(gpu_switch):
    context.set_gpu_as_cpu(2)
    assert mx.context.num_gpus() == 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = mx.nd.ones((2, 3), ctx=mx.gpu(1))
        b = mx.nd.ones((2, 3), ctx=mx.gpu(0)) * 2
    assert a.context == mx.gpu(1) and a.context.device_type == "gpu" and a.context.device_id == 1
    assert a._tensor.device.type == "cpu"
    assert (a + b.as_in_context(mx.gpu(1))).asnumpy().tolist() == [[3.0] * 3] * 2
    assert sum("gpu-as-cpu" in str(w.message) for w in caught) == 1


def test_set_device_maps_every_context(gpu_switch):
    context.set_device("cpu")
    assert mx.gpu(3).torch_device == torch.device("cpu")
    with pytest.raises(MXNetError, match="cuda:7"):
        context.set_device("cuda:7") if torch.cuda.device_count() < 8 else (_ for _ in ()).throw(MXNetError("cuda:7"))
    with pytest.raises(MXNetError, match="expected a torch device"):
        context.set_device("tpu-ish")


def test_gpu_count_from_environment_text():
    assert context._gpu_count_from_text("", "X") == 0
    assert context._gpu_count_from_text("true", "X") == 1
    assert context._gpu_count_from_text("4", "X") == 4
    with pytest.raises(MXNetError, match="MXTORCH_GPU_AS_CPU"):
        context._gpu_count_from_text("many", "MXTORCH_GPU_AS_CPU")


def test_gpu_counts_agree_under_gpu_as_cpu(gpu_switch):
    context.set_gpu_as_cpu(3)
    assert mx.util.get_gpu_count() == 3 and mx.test_utils.list_gpus() == [0, 1, 2]
    context.set_gpu_as_cpu(0)
    expected = torch.cuda.device_count() if torch.cuda.is_available() else 0
    assert mx.util.get_gpu_count() == expected and mx.test_utils.list_gpus() == list(range(expected))
