"""``import mxtorch`` loads the core (nd, sym, Module, io, optimizer, metric, ...) and leaves Gluon,
contrib, the NumPy front end, test_utils, image and the other optional parts to their first use
(``mxtorch._LAZY_SUBMODULES``, PEP 562 ``__getattr__``; docs/performance.md, "Start-up and memory").

One fresh interpreter (the module's fixture) runs the steps in order, so what is in
``sys.modules`` at each step is what the steps before it loaded; the pickle is read back in a
second one."""
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"

# modules a plain ``import mxtorch`` must not load
NOT_AT_IMPORT = ["mxtorch.gluon", "mxtorch.contrib", "mxtorch.test_utils", "mxtorch.numpy",
                 "mxtorch.numpy_extension", "mxtorch.numpy_dispatch_protocol", "mxtorch.image",
                 "mxtorch.rnn", "mxtorch.visualization", "mxtorch.notebook", "mxtorch.torch",
                 "onnx", "onnxruntime", "cv2", "PIL", "scipy", "matplotlib", "tensorboard"]


# one fresh interpreter, the steps in this order: each checks what the earlier ones loaded
_SCRIPT = """
import json, pickle, sys
import numpy
out = {}
import mxtorch as mx
out["loaded"] = [m for m in NOT_AT_IMPORT if m in sys.modules]
out["core"] = [m in sys.modules for m in ("mxtorch.ndarray", "mxtorch.symbol", "mxtorch.module", "mxtorch.io",
                                          "mxtorch.optimizer", "mxtorch.metric")]

# a Module training step, a regression metric, mx.autograd with a head gradient, broadcasting assignment
data = mx.sym.Variable("data")
net = mx.sym.LinearRegressionOutput(mx.sym.FullyConnected(data, num_hidden=2, name="fc"), name="out")
mod = mx.mod.Module(net, label_names=["out_label"])
mod.bind(data_shapes=[("data", (2, 3))], label_shapes=[("out_label", (2, 2))])
mod.init_params(initializer=mx.init.Constant(0.5))
mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1})
batch = mx.io.DataBatch([mx.nd.array([[1, 2, 3], [0, 1, 0]])], [mx.nd.array([[1, 0], [0, 1]])])
mod.forward_backward(batch)
out["grad"] = mod._exec_group.grad_arrays[0][0].asnumpy().tolist()
mod.update()
metric = mx.metric.create("mse")
mod.update_metric(metric, batch.label)
out["mse"] = metric.get()[1]
v = mx.nd.array([1.0, 2.0, 3.0])
v.attach_grad()
with mx.autograd.record():
    w = v * v
w.backward(mx.nd.array([1.0, 0.5, 2.0]))
out["vgrad"] = v.grad.asnumpy().tolist()
z = mx.nd.zeros((2, 3))
z[:] = mx.nd.array([1, 2, 3])
out["z"] = z.asnumpy().tolist()
out["sympy"] = ["sympy" in sys.modules, "torch.fx.experimental.symbolic_shapes" in sys.modules]
# (mx.np operators infer shapes on meta tensors, whose torch kernels import torch._dynamo and
# sympy: the NumPy front end's steps come after this check)

# numpy.sum on an mx.np array made from an NDArray, mx.np never touched: runs mx.np.sum, recorded
x = mx.nd.array([1, 2, 3]).as_np_ndarray()
out["np_loaded_before_dispatch"] = "mxtorch.numpy" in sys.modules
x.attach_grad()
with mx.autograd.record():
    y = numpy.sum(x * x)
y.backward()
out["dispatch"] = [type(y).__module__ + "." + type(y).__name__, float(y), x.grad.asnumpy().tolist()]

# Gluon through the attribute
out["gluon_before"] = "mxtorch.gluon" in sys.modules
dense = mx.gluon.nn.Dense(2, in_units=3, weight_initializer=mx.init.Constant(0.5),
                          bias_initializer=mx.init.Constant(1.0))
dense.initialize()
out["dense"] = dense(mx.nd.array([[1, 2, 3], [0, -1, 4]])).asnumpy().tolist()
import mxtorch.gluon
out["gluon_same"] = mxtorch.gluon is mx.gluon and sys.modules["mxtorch.gluon"] is mx.gluon

# aliases, dir, unknown names, star import (which loads every lazy submodule)
from mxtorch import np, npx, img, viz, th
out["aliases"] = [np is mx.numpy, npx is mx.numpy_extension, img is mx.image, viz is mx.visualization,
                  th is mx.torch]
out["np_ones"] = np.ones((2,)).asnumpy().tolist()
names = dir(mx)
out["dir"] = [n in names for n in ("gluon", "np", "npx", "contrib", "test_utils", "nd", "sym")]
try:
    mx.no_such_module
    out["unknown"] = None
except AttributeError as error:
    out["unknown"] = str(error)
ns = {}
exec("from mxtorch import *", ns)
out["star"] = [n in ns for n in ("gluon", "np", "npx", "contrib", "nd", "sym", "mod")]
with open(sys.argv[1], "wb") as f:
    pickle.dump(mx.np.array([1.5, -2.0]), f)
print(json.dumps(out))
"""


def _run(code, *args):
    """Run ``code`` in a fresh interpreter with this tree's mxtorch; its last stdout line as JSON."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *map(str, args)], capture_output=True,
                          text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    path = tmp_path_factory.mktemp("lazy") / "arr.pkl"
    out = _run(f"NOT_AT_IMPORT = {NOT_AT_IMPORT!r}\n" + _SCRIPT, path)
    out["pickle"] = path
    return out


def test_import_leaves_optional_parts_unloaded_and_core_loaded(fresh):
    assert fresh["loaded"] == []
    assert fresh["core"] == [True] * 6


def test_numpy_dispatch_without_loading_mx_np_first(fresh):
    """d/dx sum(x * x) = 2x, through numpy.sum's dispatch to mx.np.sum."""
    assert fresh["np_loaded_before_dispatch"] is False
    assert fresh["dispatch"] == ["mxtorch.numpy.ndarray", 14.0, [2.0, 4.0, 6.0]]


def test_training_metrics_and_assignment_do_not_import_sympy(fresh):
    """torch.autograd.grad (head gradients given) and torch.broadcast_shapes import torch.fx's
    symbolic shapes and sympy on first use; mxtorch's backward, mx.autograd, regression metrics
    and broadcasting assignment avoid both."""
    assert fresh["sympy"] == [False, False]
    # out = x W^T + b with W = 0.5 and b = 0 (MXNet's initializers fill names ending in "bias"
    # with zeros): rows [3, 3] and [0.5, 0.5]; d = out - label; LinearRegressionOutput's gradient
    # is d * grad_scale / (outputs per sample) = d / 2; dL/dW = (d / 2)^T x
    d = np.array([[2.0, 3.0], [0.5, -0.5]])
    assert np.allclose(fresh["grad"], (d / 2).T @ np.array([[1, 2, 3], [0, 1, 0]]))
    # the metric reads the step's forward outputs (before the update), as MXNet's update_metric
    assert np.isclose(fresh["mse"], (d ** 2).mean())
    assert fresh["vgrad"] == [2.0, 2.0, 12.0]     # head gradient * 2v
    assert fresh["z"] == [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]


def test_gluon_works_through_the_attribute_after_a_plain_import(fresh):
    assert fresh["gluon_before"] is False
    # y = x @ (0.5 * ones(3, 2)) + 1
    assert fresh["dense"] == [[4.0, 4.0], [2.5, 2.5]]
    assert fresh["gluon_same"] is True


def test_aliases_dir_star_import_and_unknown_names(fresh):
    assert fresh["aliases"] == [True] * 5
    assert fresh["np_ones"] == [1.0, 1.0]
    assert fresh["dir"] == [True] * 7
    assert fresh["unknown"] == "module 'mxtorch' has no attribute 'no_such_module'"
    assert fresh["star"] == [True] * 7


def test_install_as_mxnet_submodules_and_pickles_of_lazy_classes(fresh):
    out = _run("""
        import json, pickle, sys
        import mxtorch
        mxtorch.install_as_mxnet()
        import mxnet.gluon
        from mxnet.gluon import nn
        import mxnet as mx
        with open(sys.argv[1], "rb") as f:
            arr = pickle.load(f)
        print(json.dumps({"gluon": mxnet.gluon is mxtorch.gluon and nn is mxtorch.gluon.nn,
                          "attr": mx.gluon is mxtorch.gluon,
                          "arr": [type(arr).__name__, arr.asnumpy().tolist()]}))
    """, fresh["pickle"])
    assert out["gluon"] is True and out["attr"] is True
    assert out["arr"] == ["ndarray", [1.5, -2.0]]


def test_differentiate_matches_torch_autograd_grad():
    import torch
    from mxtorch.recording import differentiate
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    unused = torch.tensor([1.0], requires_grad=True)
    y = x * w
    s = (x ** 3).sum()
    head = torch.tensor([1.0, 2.0, 3.0])
    mine = differentiate([y, s], [x, w, unused], [head, torch.tensor(2.0)], retain_graph=True)
    theirs = torch.autograd.grad([y, s], [x, w, unused], [head, torch.tensor(2.0)], allow_unused=True,
                                 retain_graph=True)
    assert mine[2] is None and theirs[2] is None
    for a, b in zip(mine[:2], theirs[:2]):
        assert torch.equal(a, b)
    # d/dx = head * w + 2 * 3x^2; d/dw = head * x
    assert mine[0].tolist() == [0.5 + 6.0, -2.0 + 24.0, 6.0 + 54.0]
    assert mine[1].tolist() == [1.0, 4.0, 9.0]
    # create_graph: a second derivative through the result
    (gx,) = differentiate([(x ** 3).sum()], [x], [torch.tensor(1.0)], create_graph=True)
    (ggx,) = differentiate([gx], [x], [torch.ones(3)])
    assert ggx.tolist() == [6.0, 12.0, 18.0]
    # a head gradient of the wrong shape takes torch.autograd.grad and its error
    z = x * 2
    try:
        differentiate([z], [x], [torch.ones(2)])
    except RuntimeError as error:
        assert "shape" in str(error)
    else:
        raise AssertionError("a mismatched head gradient was accepted")
