"""Package compat (mxtorch.package_compat): the import-time checks of MXNet-era packages answered
by an import hook, checked on a stand-in GluonCV written under tmp_path (the real one, when
installed, at the end); the NumPy 1 object arrays of the numpy aliases; gluon.utils' private
names that GluonNLP imports."""
import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

from mxtorch import package_compat
from mxtorch.gluon import utils as gluon_utils

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")

# GluonCV's own check (gluoncv/check.py and the start of gluoncv/__init__.py), re-told
_FAKE_CHECK = '''
def _require_mxnet_version(mx_version, max_mx_version="2.0.0"):
    try:
        import mxnet as mx
        from distutils.version import LooseVersion
        if LooseVersion(mx.__version__) < LooseVersion(mx_version) or \\
                LooseVersion(mx.__version__) >= LooseVersion(max_mx_version):
            raise RuntimeError("Legacy mxnet==%s detected" % mx.__version__)
    except ImportError as ex:
        raise ImportError("Unable to import dependency mxnet.") from ex

def _require_pytorch_version(torch_version, max_torch_version="2.0.0"):
    try:
        import torch
        from distutils.version import LooseVersion
        if LooseVersion(torch.__version__) < LooseVersion(torch_version) or \\
                LooseVersion(torch.__version__) >= LooseVersion(max_torch_version):
            raise RuntimeError("Legacy torch==%s detected, some modules may not work properly. "
                               "torch>=%s,<%s is required." % (torch.__version__, torch_version, max_torch_version))
    except ImportError as ex:
        raise ImportError("Unable to import dependency pytorch.") from ex
'''
_FAKE_INIT = '''
from .check import _require_mxnet_version, _require_pytorch_version
_found_mxnet = _found_pytorch = False
try:
    _require_mxnet_version("1.4.0", "2.0.0")
    from . import anchors
    _found_mxnet = True
except ImportError:
    pass
try:
    _require_pytorch_version("1.4.0", "2.0.0")
    _found_pytorch = True
except ImportError:
    pass
if not any((_found_mxnet, _found_pytorch)):
    raise ImportError("Unable to import modules due to missing `mxnet` & `torch`.")
'''
_FAKE_ANCHORS = '''
import numpy as np
import mxnet as mx
def base_anchor(size):
    return np.array([1, 1, size, size], dtype=np.float) - 1      # GluonCV's R-CNN anchor code
'''


@pytest.fixture
def fake_gluoncv(tmp_path):
    package = tmp_path / "gluoncv"
    package.mkdir()
    (package / "__init__.py").write_text(_FAKE_INIT)
    (package / "check.py").write_text(_FAKE_CHECK)
    (package / "anchors.py").write_text(_FAKE_ANCHORS)
    return tmp_path


def _python(code, path, env_extra=None, args=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MXTORCH_")}
    env["PYTHONPATH"] = os.pathsep.join([str(path), SRC])
    env.update(env_extra or {})
    command = [sys.executable, *(args or ["-c", textwrap.dedent(code)])]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, cwd=str(path))


_IMPORT_FAKE = """
import mxtorch
mxtorch.install_as_mxnet({arguments})
import gluoncv
from mxtorch import package_compat
print("found", gluoncv._found_mxnet, gluoncv._found_pytorch)
print("anchor", gluoncv.anchors.base_anchor(16).tolist())
print("loader", type(gluoncv.check.__loader__).__name__, type(gluoncv.check.__spec__.loader).__name__)
print("applied", package_compat.applied_shims())
"""


def test_fake_gluoncv_imports_under_package_compat(fake_gluoncv):
    result = _python(_IMPORT_FAKE.format(arguments=""), fake_gluoncv)
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    assert "found True False" in out                     # the MXNet half on mxtorch, the torch half absent
    assert "anchor [0.0, 0.0, 15.0, 15.0]" in out        # np.float through the numpy aliases
    assert "loader SourceFileLoader SourceFileLoader" in out     # the module keeps its own loader
    assert ("applied [('gluoncv', 'numpy_1_names'), ('gluoncv', 'distutils_version'), "
            "('gluoncv.check', 'torch_half_absent')]") in out
    assert "Both" not in result.stderr


@pytest.mark.parametrize("how", ["environment", "argument"])
def test_package_compat_switched_off_leaves_the_check(fake_gluoncv, how):
    env = {"MXTORCH_PACKAGE_COMPAT": "0"} if how == "environment" else None
    arguments = "package_compat=False" if how == "argument" else ""
    result = _python(_IMPORT_FAKE.format(arguments=arguments), fake_gluoncv, env_extra=env)
    assert result.returncode == 1
    assert "RuntimeError: Legacy torch==" in result.stderr
    assert "torch>=1.4.0,<2.0.0 is required" in result.stderr


def test_mxtorch_run_imports_fake_gluoncv_with_numpy_aliases(fake_gluoncv):
    script = fake_gluoncv / "program.py"
    script.write_text("import numpy as np\nimport gluoncv\n"
                      "print('anchor', gluoncv.anchors.base_anchor(4).tolist())\n"
                      "print('ragged', np.array([[1, 2], [3]]).dtype, np.float is float)\n")
    result = _python(None, fake_gluoncv, args=["-m", "mxtorch", "run", str(script)])
    assert result.returncode == 0, result.stderr[-3000:]
    assert "anchor [0.0, 0.0, 3.0, 3.0]" in result.stdout
    assert "ragged object True" in result.stdout
    off = _python(None, fake_gluoncv, args=["-m", "mxtorch", "run", "--no-package-compat", str(script)])
    assert off.returncode == 1 and "RuntimeError: Legacy torch==" in off.stderr


def test_distutils_version_fallback_when_python_has_none(fake_gluoncv):
    # Python 3.12+ without setuptools: no finder has distutils; the fallback serves distutils.version
    code = """
    import importlib.machinery, sys
    class NoDistutils(importlib.machinery.PathFinder):
        @classmethod
        def find_spec(cls, name, path=None, target=None):
            if name.split(".")[0] == "distutils":
                return None
            return importlib.machinery.PathFinder.find_spec(name, path, target)
    sys.meta_path[:] = [NoDistutils if f is importlib.machinery.PathFinder else f for f in sys.meta_path
                        if type(f).__name__ != "DistutilsMetaFinder"]
    sys.modules.pop("distutils", None)
    try:
        import distutils.version
        print("real distutils present")
    except ImportError:
        print("no distutils")
    import mxtorch
    mxtorch.install_as_mxnet()
    import gluoncv
    import distutils.version
    print("found", gluoncv._found_mxnet, gluoncv._found_pytorch, distutils.version.__doc__)
    """
    result = _python(code, fake_gluoncv)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "no distutils" in result.stdout
    assert "found True False mxtorch package compat" in result.stdout


def test_fallback_finder_yields_to_a_real_distutils():
    finder = package_compat._DistutilsVersionFallback()
    assert finder.find_spec("distutils.core") is None and finder.find_spec("numpy") is None
    spec = finder.find_spec("distutils.version")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.LooseVersion is package_compat.LooseVersion


@pytest.mark.parametrize("low, high", [("1.9.1", "2.0.0"), ("1.4.0", "1.9.1"), ("1.9", "1.10"),
                                       ("2.0.0", "2.13.0+cpu"), ("1.2a", "1.2b"), ("0.10.0", "0.10.1")])
def test_loose_version_orders_as_distutils(low, high):
    LooseVersion = package_compat.LooseVersion
    assert LooseVersion(low) < LooseVersion(high) and LooseVersion(high) >= low
    assert not LooseVersion(low) >= LooseVersion(high)
    assert LooseVersion(high) == high and LooseVersion(high) != low
    assert LooseVersion("2.13.0+cpu").version == [2, 13, 0, "+", "cpu"]   # as distutils splits it


def test_register_rejects_unknown_shims():
    with pytest.raises(ValueError, match="unknown shims"):
        package_compat.register_package_compat(package_compat.PackageCompat("somepkg", "test", before=("nope",)))


def test_registered_row_runs_around_the_module(tmp_path):
    (tmp_path / "mxera_pkg_demo.py").write_text("VALUE = 1\n")
    code = """
    from mxtorch import package_compat as pc, numpy_aliases
    pc.register_package_compat(pc.PackageCompat("mxera_pkg_demo", "demo", before=("numpy_1_names",)))
    print("before", numpy_aliases.numpy_aliases_enabled())
    pc.enable_package_compat()
    import mxera_pkg_demo
    print("after", numpy_aliases.numpy_aliases_enabled(), pc.applied_shims())
    """
    result = _python(code, tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "before False" in result.stdout
    assert "after True [('mxera_pkg_demo', 'numpy_1_names')]" in result.stdout


_RAGGED = """
import io, warnings
import numpy as np
from mxtorch.numpy_aliases import enable_numpy_aliases
try:
    np.array([[1, 2], [3]])
except ValueError as error:
    print("numpy2", "inhomogeneous" in str(error))
enable_numpy_aliases()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    a = np.array([[1, 2], [3]])
    b = np.asarray([np.zeros(2), np.zeros(3)])
    c = np.asanyarray([[1], [2, 3], []])
print("array", a.dtype, a.shape, a[0], a[1])
print("asarray", b.dtype, b.shape, b[1].shape)
print("asanyarray", c.dtype, c.shape, c[2])
print("warnings", len(caught), caught[0].filename.endswith("<string>") if caught else None)
buf = io.BytesIO()
np.save(buf, [[1, 2, 3], [4]])
buf.seek(0)
loaded = np.load(buf, allow_pickle=True)
print("save", loaded.dtype, loaded.tolist())
try:
    np.array([[1, 2], [3]], dtype=float)
except ValueError:
    print("explicit dtype keeps the error")
print("regular", np.array([[1, 2], [3, 4]]).dtype, np.asarray([1.5]).dtype)
"""


def test_numpy_aliases_restore_object_arrays_for_ragged_sequences(tmp_path):
    result = _python(_RAGGED, tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    assert "numpy2 True" in out
    assert "array object (2,) [1, 2] [3]" in out
    assert "asarray object (2,) (3,)" in out
    assert "asanyarray object (3,) []" in out
    assert "warnings 1 True" in out
    assert "save object [[1, 2, 3], [4]]" in out
    assert "explicit dtype keeps the error" in out
    assert "regular int64 float64" in out


_FULL = """
import warnings
import numpy as np
from mxtorch.numpy_aliases import enable_numpy_aliases
try:
    np.full(3, -1, dtype=np.uint8)
except OverflowError:
    print("numpy2 overflow")
enable_numpy_aliases()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print("uint8", np.full(3, -1, dtype=np.uint8).tolist(), np.full(2, 300, dtype="uint8").tolist())
print("warnings", len(caught))
print("int8", np.full(2, -129, dtype=np.int8).tolist(), "int32", np.full(2, 2 ** 40 + 5, dtype=np.int32).tolist())
print("uint64", np.full(1, -1, dtype=np.uint64).tolist(), np.full((2, 2), 7, dtype=np.uint8).dtype)
try:
    np.full(2, 2 ** 70, dtype=np.int64)
except OverflowError:
    print("beyond 64 bits raises")
"""


def test_numpy_aliases_full_casts_out_of_range_integer_fill_as_numpy_1(tmp_path):
    """NumPy 1.23.5 (the reference interpreter's) gives np.full(3, -1, dtype=uint8) -> [255, 255, 255],
    np.full(2, 300, uint8) -> [44, 44], np.full(2, -129, int8) -> [127, 127], np.full(2, 2**40 + 5,
    int32) -> [5, 5], np.full(1, -1, uint64) -> [2**64 - 1]; GluonNLP's batchify.Pad(pad_val=-1) on
    uint8 data relies on it."""
    result = _python(_FULL, tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    assert "numpy2 overflow" in out
    assert "uint8 [255, 255, 255] [44, 44]" in out
    assert "warnings 1" in out
    assert "int8 [127, 127] int32 [5, 5]" in out
    assert f"uint64 [{2 ** 64 - 1}] uint8" in out
    assert "beyond 64 bits raises" in out


@pytest.mark.parametrize("ngram,expected", [("<te", 1669484008), ("τεσ", 3667576793), ("café", 1970454601),
                                             ("中文", 1907909189)])
def test_fasttext_hash_matches_gluonnlp_under_numpy_1(ngram, expected):
    """The ``gluonnlp_fasttext_hash`` shim's hash against GluonNLP 0.10.0's own
    ``_fasttext_hash`` under NumPy 1.23.5 (values taken from the reference interpreter); the
    non-ASCII n-grams are the ones NumPy 2 made GluonNLP's version refuse."""
    assert package_compat._fasttext_hash(memoryview(ngram.encode("utf-8"))) == expected


def test_fasttext_hash_shim_replaces_only_the_python_function():
    class Module:
        pass

    plain, compiled = Module(), Module()
    plain._fasttext_hash = lambda ngram: 0
    compiled._fasttext_hash = type("Dispatcher", (), {"py_func": None})()
    package_compat.SHIMS["gluonnlp_fasttext_hash"](plain)
    package_compat.SHIMS["gluonnlp_fasttext_hash"](compiled)
    assert plain._fasttext_hash is package_compat._fasttext_hash
    assert not hasattr(compiled._fasttext_hash, "__mxtorch_compat__")


def test_gluon_utils_repo_urls(monkeypatch):
    monkeypatch.delenv("MXNET_GLUON_REPO", raising=False)
    assert gluon_utils._get_repo_url() == "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/"
    assert gluon_utils._get_repo_file_url("gluon/dataset/imdb", "train.json") == \
        "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/gluon/dataset/imdb/train.json"
    monkeypatch.setenv("MXNET_GLUON_REPO", "http://mirror.local/repo")
    assert gluon_utils._get_repo_url() == "http://mirror.local/repo/"
    assert gluon_utils._get_repo_file_url("ns", "f.zip") == "http://mirror.local/repo/ns/f.zip"


def test_gluon_utils_brief_print_list():
    assert gluon_utils._brief_print_list(["a", "b"]) == "'a', 'b'"
    assert gluon_utils._brief_print_list(range(10)) == "'0', '1', '2', ..., '6', '7', '8', '9'"
    assert gluon_utils._brief_print_list([1, 2, 3], limit=2) == "'1', ..., '3'"


@pytest.mark.parametrize("package", ["gluoncv", "gluonnlp"])
def test_real_package_imports_under_install_as_mxnet(package, tmp_path):
    spec = importlib.util.find_spec(package)
    if spec is None:
        pytest.skip(f"{package} is not installed")
    location = os.path.dirname(os.path.dirname(spec.origin))       # the folder holding the package
    code = f"""
    import mxtorch
    mxtorch.install_as_mxnet()
    import {package}
    print("version", {package}.__version__)
    """
    result = _python(code, location)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "version 0.1" in result.stdout


def test_base_null_placeholder_as_mxnet_has_it(tmp_path):
    code = """
    import mxtorch
    mxtorch.install_as_mxnet()
    from mxnet.base import _Null, _NullType
    import mxtorch.base
    print("null", repr(_Null), isinstance(_Null, _NullType), _Null is mxtorch.base._Null)
    """
    result = _python(code, tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "null _Null True True" in result.stdout
