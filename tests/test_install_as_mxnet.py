"""``mxtorch.install_as_mxnet()``: unmodified ``import mxnet`` programs run on mxtorch.

Every check that installs the alias runs in a subprocess, so this test process's
``sys.modules`` never gets ``mxnet`` entries.
"""
import os
import subprocess
import sys
import textwrap
import types

import pytest

import mxtorch
from mxtorch.base import MXNetError

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(mxtorch.__file__)))
DATA = os.path.join(os.path.dirname(__file__), "data", "install")

LEGACY_NAMES = [
    "mxnet", "mxnet.ndarray", "mxnet.ndarray.ndarray", "mxnet.ndarray.register", "mxnet.symbol",
    "mxnet.symbol.symbol", "mxnet.module", "mxnet.module.base_module", "mxnet.module.executor_group",
    "mxnet.module.module", "mxnet.model", "mxnet.base", "mxnet.context", "mxnet.io", "mxnet.metric",
    "mxnet.optimizer", "mxnet.initializer", "mxnet.callback", "mxnet.kvstore", "mxnet.executor",
    "mxnet.lr_scheduler", "mxnet.monitor", "mxnet.name", "mxnet.attribute", "mxnet.random", "mxnet.recordio",
    "mxnet.operator", "mxnet.test_utils", "mxnet.autograd",
]


def run_python(code, install=True):
    """Run ``code`` in a fresh interpreter (after ``install_as_mxnet()`` unless told not to);
    returns its stdout.  ImportWarnings are errors, so a module whose ``__spec__`` and
    ``__package__`` disagree fails the run."""
    prelude = "import mxtorch\nmxtorch.install_as_mxnet()\n" if install else ""
    env = dict(os.environ, PYTHONPATH=SOURCE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run([sys.executable, "-W", "error::ImportWarning", "-c", prelude + textwrap.dedent(code)],
                            capture_output=True, text=True, env=env, cwd=os.path.dirname(SOURCE), timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_unmodified_mxnet_script_trains():
    """A training script written for MXNet 1.x, untouched: module helpers from their MXNet
    homes, a Module subclass, two contexts, callbacks, a checkpoint and its reload."""
    out = run_python("""
        import logging
        import os
        import tempfile

        import numpy as np
        import mxnet as mx
        from mxnet import nd, sym
        from mxnet.base import MXNetError
        from mxnet.module.base_module import _parse_data_desc, _check_input_names, _as_list
        from mxnet.module.executor_group import DataParallelExecutorGroup
        from mxnet.model import BatchEndParam, _create_kvstore, _initialize_kvstore, _update_params
        from mxnet.ndarray.ndarray import NDArray
        from mxnet.io import DataBatch, DataDesc

        class CountingModule(mx.mod.Module):
            def bind(self, data_shapes, label_shapes=None, **kwargs):
                data, labels = _parse_data_desc(self.data_names, self.label_names, data_shapes, label_shapes)
                self.bound_shapes = [d.shape for d in data]
                return super(CountingModule, self).bind(data_shapes, label_shapes, **kwargs)

        rng = np.random.RandomState(0)
        x = rng.randn(256, 2).astype("float32")
        y = (x[:, 0] + x[:, 1] > 0).astype("float32")
        train = mx.io.NDArrayIter(x, y, batch_size=32, shuffle=True)
        data = sym.Variable("data")
        net = sym.FullyConnected(data, num_hidden=8, name="fc1")
        net = sym.Activation(net, act_type="tanh")
        net = sym.FullyConnected(net, num_hidden=2, name="fc2")
        net = sym.SoftmaxOutput(net, name="softmax")
        module = CountingModule(net, context=[mx.cpu(0), mx.cpu(1)])
        prefix = os.path.join(tempfile.mkdtemp(), "tiny")
        batches = []
        module.fit(train, num_epoch=8, optimizer="sgd",
                   optimizer_params={"learning_rate": 0.5, "momentum": 0.9},
                   initializer=mx.init.Xavier(), eval_metric="acc",
                   batch_end_callback=lambda p: batches.append(isinstance(p, BatchEndParam)),
                   epoch_end_callback=mx.callback.do_checkpoint(prefix))
        assert module.bound_shapes == [(32, 2)]
        assert all(batches) and len(batches) == 64
        assert isinstance(module._exec_group, DataParallelExecutorGroup)
        accuracy = dict(module.score(mx.io.NDArrayIter(x, y, batch_size=32), "acc"))["accuracy"]
        symbol, arg_params, aux_params = mx.model.load_checkpoint(prefix, 8)
        assert isinstance(arg_params["fc1_weight"], NDArray)
        loaded = mx.mod.Module(symbol, context=mx.cpu())
        loaded.bind([("data", (32, 2))], for_training=False)
        loaded.set_params(arg_params, aux_params)
        predicted = loaded.predict(mx.io.NDArrayIter(x, batch_size=32)).asnumpy().argmax(axis=1)
        print("accuracy", accuracy, (predicted == y).mean())
        print("version", mx.__version__, mx.__name__)
    """)
    words = out.split()
    accuracy, reloaded = float(words[1]), float(words[2])
    assert accuracy > 0.95
    assert reloaded == pytest.approx(accuracy)
    assert "version 1.9.1 mxtorch" in out


def test_names_finder_and_pickled_class_names():
    """One interpreter: each legacy name is the mxtorch module (with mxtorch's own spec);
    a submodule not imported yet resolves through the finder; a missing one raises
    ModuleNotFoundError naming both; pickles' ``mxnet.ndarray.ndarray.NDArray`` is
    mxtorch's class; a second install changes nothing."""
    out = run_python(f"""
        import importlib
        import io
        import pickle
        import sys
        assert "mxtorch.datasets" not in sys.modules and "mxnet.datasets" not in sys.modules
        names = {LEGACY_NAMES!r}
        for name in names:
            module = importlib.import_module(name)
            target = "mxtorch" + name[len("mxnet"):]
            assert module is sys.modules[target], name
            assert sys.modules[name] is module, name
            assert module.__spec__.name == target, (name, module.__spec__.name)
        print("checked", len(names))
        from mxnet.datasets import load_digits
        import mxtorch.datasets
        assert sys.modules["mxnet.datasets"] is mxtorch.datasets
        assert load_digits is mxtorch.datasets.load_digits
        assert mxtorch.datasets.__spec__.name == "mxtorch.datasets"
        import mxnet.module.mutable_module as mutable
        assert mutable is sys.modules["mxtorch.module.mutable_module"]
        import mxnet.gluon
        assert mxnet.gluon is sys.modules["mxtorch.gluon"]
        try:
            import mxnet.gluon.no_such_module
        except ImportError as error:
            print(type(error).__name__, error.name, "mxtorch.gluon.no_such_module" in str(error))
        with open({os.path.join(DATA, "mxnet_ndarray.pkl")!r}, "rb") as handle:
            unpickler = pickle.Unpickler(io.BytesIO(handle.read()))
        print("pickle", unpickler.find_class("mxnet.ndarray.ndarray", "NDArray") is mxtorch.nd.NDArray)
        from mxtorch.install import MXNetAliasFinder
        import mxnet
        assert mxtorch.install_as_mxnet() is mxtorch
        print("finders", sum(isinstance(f, MXNetAliasFinder) for f in sys.meta_path), mxnet is mxtorch)
    """)
    assert out.splitlines() == [f"checked {len(LEGACY_NAMES)}", "ModuleNotFoundError mxnet.gluon.no_such_module True",
                                "pickle True", "finders 1 True"]


def test_refuses_when_a_real_mxnet_is_imported(monkeypatch):
    dummy = types.ModuleType("mxnet")
    dummy.__file__ = "/opt/real/mxnet/__init__.py"
    monkeypatch.setitem(sys.modules, "mxnet", dummy)
    finders = list(sys.meta_path)
    with pytest.raises(MXNetError, match=r"real 'mxnet' is already imported \(mxnet; from /opt/real"):
        mxtorch.install_as_mxnet()
    assert sys.meta_path == finders and sys.modules["mxnet"] is dummy
    assert "mxnet.module" not in sys.modules


def test_refuses_when_a_real_mxnet_submodule_is_imported():
    """Without install, ``import mxnet`` is not mxtorch; a foreign ``mxnet.*`` module in
    ``sys.modules`` makes install refuse, naming it."""
    out = run_python("""
        import sys
        import types
        import mxtorch
        try:
            import mxnet
            print("other", mxnet is mxtorch)
        except ImportError:
            print("absent")
        sys.modules.pop("mxnet", None)
        sys.modules["mxnet.ndarray"] = types.ModuleType("mxnet.ndarray")
        try:
            mxtorch.install_as_mxnet()
        except mxtorch.MXNetError as error:
            print("refused", "mxnet.ndarray" in str(error))
    """, install=False)
    lines = out.splitlines()
    assert lines[0] in ("absent", "other False")
    assert lines[1] == "refused True"


def test_unpickles_an_ndarray_pickled_by_mxnet():
    out = run_python(f"""
        import pickle
        with open({os.path.join(DATA, "mxnet_ndarray.pkl")!r}, "rb") as handle:
            loaded = pickle.load(handle)
        print(loaded["epoch"], loaded["weight"].asnumpy().tolist())
    """)
    assert out.strip() == "3 [[1.0, 2.0], [3.0, 4.0]]"


def test_the_fixture_pickle_names_mxnet():
    with open(os.path.join(DATA, "mxnet_ndarray.pkl"), "rb") as handle:
        assert b"mxnet.ndarray.ndarray" in handle.read()


def test_mxtorch_pickles_in_mxnet_form():
    import pickle
    import mxtorch as mx
    array = mx.nd.array([[1, 2], [3, 4]])
    state = array.__getstate__()
    assert set(state) == {"handle"} and isinstance(state["handle"], bytearray)
    again = pickle.loads(pickle.dumps({"w": array}))["w"]
    assert again.asnumpy().tolist() == [[1, 2], [3, 4]] and again.dtype == array.dtype
