"""MXNet's submodule paths of the generated front ends import (``mxnet.ndarray.contrib``,
``mxnet.symbol.op``, ...), as legacy code writes them, and give the same operators."""
import importlib

import numpy as np

import mxtorch as mx


def test_generated_namespaces_import_as_submodules():
    for package, names in (("mxtorch.ndarray", ["contrib", "linalg", "random", "image", "op", "_internal"]),
                           ("mxtorch.symbol", ["contrib", "linalg", "random", "image", "sparse", "op", "_internal"])):
        for name in names:
            module = importlib.import_module(f"{package}.{name}")
            assert module is getattr(importlib.import_module(package), name), (package, name)
    from mxtorch.ndarray.op import broadcast_add
    from mxtorch.ndarray.linalg import gemm2
    a = mx.nd.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(broadcast_add(a, a).asnumpy(), [[2, 4], [6, 8]])
    np.testing.assert_allclose(gemm2(a, a).asnumpy(), [[7, 10], [15, 22]])
    from mxtorch.symbol.op import FullyConnected
    assert FullyConnected(mx.sym.var("x"), num_hidden=3, name="fc").list_arguments() == ["x", "fc_weight", "fc_bias"]
    # a real module of that name wins over the namespace
    import mxtorch.ndarray.sparse as sparse
    assert sparse.__name__ == "mxtorch.ndarray.sparse" and hasattr(sparse, "CSRNDArray")


def test_optimizer_module_path_of_mxnet():
    from mxtorch.optimizer import optimizer as old_path
    assert old_path.SGD is mx.optimizer.SGD and old_path.Adam is mx.optimizer.Adam
    weight, grad = mx.nd.array([1.0, 2.0]), mx.nd.array([0.5, 0.5])
    old_path.sgd_update(weight, grad, lr=0.1, wd=0.0, out=weight)
    np.testing.assert_allclose(weight.asnumpy(), [0.95, 1.95], rtol=1e-6)
    import pytest
    with pytest.raises(AttributeError):
        old_path.no_such_optimizer


def test_submodule_paths_under_install_as_mxnet():
    # the namespaces count as mxtorch modules: installing again after importing them is fine
    import subprocess
    import sys
    program = ("import mxtorch; mxtorch.install_as_mxnet()\n"
               "from mxnet.ndarray.contrib import box_nms\nimport mxnet.symbol.op as op\n"
               "assert mxtorch.install_as_mxnet() is mxtorch\nprint(op.__name__)\n")
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["mxtorch.symbol.op"], out.stderr
