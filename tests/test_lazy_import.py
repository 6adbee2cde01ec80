"""``import mxtorch`` loads the core (nd, sym, Module, io, optimizer, metric, ...) and leaves Gluon,
contrib, the NumPy front end, test_utils, image and the other optional parts to their first use
(``mxtorch._LAZY_SUBMODULES``, PEP 562 ``__getattr__``; docs/performance.md, "Start-up").

Each case runs in a fresh interpreter, so what is in ``sys.modules`` is what the import loaded."""
import json
import os
import pathlib
import subprocess
import sys
import textwrap

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"

# modules a plain ``import mxtorch`` must not load
NOT_AT_IMPORT = ["mxtorch.gluon", "mxtorch.contrib", "mxtorch.test_utils", "mxtorch.numpy",
                 "mxtorch.numpy_extension", "mxtorch.numpy_dispatch_protocol", "mxtorch.image",
                 "mxtorch.rnn", "mxtorch.visualization", "mxtorch.notebook", "mxtorch.torch",
                 "onnx", "onnxruntime", "cv2", "PIL", "scipy", "matplotlib", "tensorboard"]


def _run(code):
    """Run ``code`` in a fresh interpreter with this tree's mxtorch; its last stdout line as JSON."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_leaves_optional_parts_unloaded_and_core_loaded():
    out = _run(f"""
        import json, sys
        import mxtorch as mx
        print(json.dumps({{"loaded": [m for m in {NOT_AT_IMPORT!r} if m in sys.modules],
                          "core": [m in sys.modules for m in ("mxtorch.ndarray", "mxtorch.symbol",
                                   "mxtorch.module", "mxtorch.io", "mxtorch.optimizer", "mxtorch.metric")]}}))
    """)
    assert out["loaded"] == []
    assert out["core"] == [True] * 6


def test_gluon_works_through_the_attribute_after_a_plain_import():
    out = _run("""
        import json, sys
        import mxtorch as mx
        before = "mxtorch.gluon" in sys.modules
        dense = mx.gluon.nn.Dense(2, in_units=3, weight_initializer=mx.init.Constant(0.5),
                                  bias_initializer=mx.init.Constant(1.0))
        dense.initialize()
        y = dense(mx.nd.array([[1, 2, 3], [0, -1, 4]]))
        import mxtorch.gluon
        print(json.dumps({"before": before, "y": y.asnumpy().tolist(),
                          "same": mxtorch.gluon is mx.gluon and sys.modules["mxtorch.gluon"] is mx.gluon}))
    """)
    assert out["before"] is False
    # y = x @ (0.5 * ones(3, 2)) + 1
    assert out["y"] == [[4.0, 4.0], [2.5, 2.5]]
    assert out["same"] is True


def test_aliases_dir_star_import_and_unknown_names():
    out = _run("""
        import json
        import mxtorch as mx
        names = dir(mx)
        ns = {}
        exec("from mxtorch import *", ns)
        from mxtorch import np, npx, img, viz, th
        try:
            mx.no_such_module
            unknown = None
        except AttributeError as error:
            unknown = str(error)
        print(json.dumps({
            "dir": [n in names for n in ("gluon", "np", "npx", "contrib", "test_utils", "nd", "sym")],
            "star": [n in ns for n in ("gluon", "np", "npx", "contrib", "nd", "sym", "mod")],
            "aliases": [np is mx.numpy, npx is mx.numpy_extension, img is mx.image, viz is mx.visualization,
                        th is mx.torch],
            "np_ones": np.ones((2,)).asnumpy().tolist(),
            "unknown": unknown}))
    """)
    assert out["dir"] == [True] * 7
    assert out["star"] == [True] * 7
    assert out["aliases"] == [True] * 5
    assert out["np_ones"] == [1.0, 1.0]
    assert out["unknown"] == "module 'mxtorch' has no attribute 'no_such_module'"


def test_numpy_dispatch_without_loading_mx_np_first():
    """``numpy.sum`` on an mx.np array made from an NDArray (mx.np never touched) runs mx.np.sum,
    recorded by autograd: d/dx sum(x * x) = 2x."""
    out = _run("""
        import json, sys
        import numpy
        import mxtorch as mx
        x = mx.nd.array([1, 2, 3]).as_np_ndarray()
        x.attach_grad()
        with mx.autograd.record():
            y = numpy.sum(x * x)
        y.backward()
        print(json.dumps({"type": type(y).__module__ + "." + type(y).__name__, "y": float(y),
                          "grad": x.grad.asnumpy().tolist()}))
    """)
    assert out["type"] == "mxtorch.numpy.ndarray"
    assert out["y"] == 14.0
    assert out["grad"] == [2.0, 4.0, 6.0]


def test_install_as_mxnet_submodules_and_pickles_of_lazy_classes(tmp_path):
    path = tmp_path / "arr.pkl"
    _run(f"""
        import json, pickle
        import mxtorch as mx
        with open({str(path)!r}, "wb") as f:
            pickle.dump(mx.np.array([1.5, -2.0]), f)
        print(json.dumps({{}}))
    """)
    out = _run(f"""
        import json, pickle, sys
        import mxtorch
        mxtorch.install_as_mxnet()
        import mxnet.gluon
        from mxnet.gluon import nn
        import mxnet as mx
        with open({str(path)!r}, "rb") as f:
            arr = pickle.load(f)
        print(json.dumps({{"gluon": mxnet.gluon is mxtorch.gluon and nn is mxtorch.gluon.nn,
                          "attr": mx.gluon is mxtorch.gluon,
                          "arr": [type(arr).__name__, arr.asnumpy().tolist()]}}))
    """)
    assert out["gluon"] is True and out["attr"] is True
    assert out["arr"] == ["ndarray", [1.5, -2.0]]
