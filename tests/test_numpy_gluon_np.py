"""Gluon under NumPy semantics (npx.set_np / use_np): Parameters of unknown shape, the output
kinds of Blocks, built-in layers, gradients through hybridized graphs.

Expected numbers are independent NumPy computations of the same formulas.
"""
import numpy as onp
import pytest

import mxtorch as mx
from mxtorch import autograd, gluon, np, npx
from mxtorch.base import MXNetError
from mxtorch.util import use_np


def test_parameter_unknown_dimension_reads_minus_one_under_numpy_shapes():
    param = gluon.Parameter("w", shape=(0, 100), allow_deferred_init=True)
    assert param.shape == (0, 100)
    with mx.util.np_shape(True):
        assert param.shape == (-1, 100)
        assert param.var().attr("__shape__") == "(-1, 100)"


@pytest.mark.parametrize("hybridize", [False, True])
def test_deferred_parameter_shape_from_np_dot_and_gradients(numpy_semantics, hybridize):
    class Regression(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.w = self.params.get("w", shape=(0, 4), allow_deferred_init=True)

        def hybrid_forward(self, F, x, w):
            return x.dot(w)

    net = Regression()
    net.initialize(mx.init.Constant(0.5))
    if hybridize:
        net.hybridize()
    data = onp.arange(6.0, dtype=onp.float32).reshape(2, 3)
    x = np.array(data)
    with autograd.record():
        out = net(x)
        loss = (out ** 2).sum()
    loss.backward()
    assert net.w.shape == (3, 4)
    assert type(net.w.data()) is np.ndarray and type(out) is np.ndarray
    weight = onp.full((3, 4), 0.5, dtype=onp.float32)
    onp.testing.assert_allclose(out.asnumpy(), data @ weight, rtol=1e-6)
    # d/dW sum((xW)^2) = 2 x^T (x W)
    onp.testing.assert_allclose(net.w.grad().asnumpy(), 2 * data.T @ (data @ weight), rtol=1e-5)


def test_trainer_step_on_np_parameters(numpy_semantics):
    net = gluon.nn.Dense(2, in_units=3, use_bias=False)
    net.initialize(mx.init.Constant(1.0))
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    data = onp.array([[1.0, 2.0, 3.0]], dtype=onp.float32)
    with autograd.record():
        loss = net(np.array(data)).sum()
    loss.backward()
    trainer.step(1)
    # the gradient of sum(x W^T) w.r.t. each row of W is x: W <- 1 - 0.1 x
    onp.testing.assert_allclose(net.weight.data().asnumpy(), 1.0 - 0.1 * onp.repeat(data, 2, axis=0), rtol=1e-6)


@pytest.mark.parametrize("hybridize", [False, True])
def test_builtin_layers_give_np_arrays(numpy_semantics, hybridize):
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(3, in_units=2), gluon.nn.LeakyReLU(0.1))
    net.initialize(mx.init.Constant(-1.0))
    if hybridize:
        net.hybridize()
    data = onp.array([[1.0, 2.0]], dtype=onp.float32)
    out = net(np.array(data))
    assert type(out) is np.ndarray
    dense = data @ onp.full((2, 3), -1.0)       # weight -1; the bias keeps its own initializer (zeros)
    onp.testing.assert_allclose(out.asnumpy(), onp.where(dense > 0, dense, 0.1 * dense), rtol=1e-6)


def test_prelu_layer_on_one_dimensional_data(numpy_semantics):
    layer = gluon.nn.PReLU()
    layer.initialize()
    out = layer(np.array([-4.0, 2.0]))
    assert type(out) is np.ndarray
    assert out.asnumpy().tolist() == [-1.0, 2.0]                # alpha initialised to 0.25


def test_block_outputs_must_be_np_arrays_under_np_semantics():
    @use_np
    class Mixed(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x.as_nd_ndarray() + 1, F.np.multiply(x, x)

    @use_np
    class AllNumpy(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.np.add(x, x), F.np.multiply(x, x)

    class AllClassic(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x.as_nd_ndarray() * 2

    data = np.ones((2, 3))
    for hybridize in (False, True):
        mixed = Mixed()
        if hybridize:
            mixed.hybridize()
        with pytest.raises(TypeError):
            mixed(data)
        net = AllNumpy()
        if hybridize:
            net.hybridize()
        first, second = net(data)
        assert type(first) is np.ndarray and type(second) is np.ndarray
        assert first.asnumpy().tolist() == [[2.0] * 3] * 2
        classic = AllClassic()
        if hybridize:
            classic.hybridize()
        out = classic(data)                                     # outside np semantics: classic is fine
        assert type(out) is mx.nd.NDArray and out.asnumpy().tolist() == [[2.0] * 3] * 2


@pytest.mark.parametrize("hybridize", [False, True])
def test_comparison_outputs_backward_to_zero_gradients(numpy_semantics, hybridize):
    class Greater(gluon.HybridBlock):
        def hybrid_forward(self, F, x, y):
            return x > y

    net = Greater()
    if hybridize:
        net.hybridize()
    x, y = np.array([[1.0, -1.0]]), np.array([[0.0, 0.0]])
    x.attach_grad()
    y.attach_grad()
    with autograd.record():
        out = net(x, y)
    out.backward()
    assert out.dtype == onp.bool_ and out.asnumpy().tolist() == [[True, False]]
    assert x.grad.asnumpy().tolist() == [[0.0, 0.0]] and y.grad.asnumpy().tolist() == [[0.0, 0.0]]


def test_hybridized_symbol_slicing_and_split(numpy_semantics):
    class Slicer(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            parts = F.np.split(x, 2, axis=1)
            return parts[1][:, -1, ::-1] + x[0, 0]

    data = onp.arange(24.0, dtype=onp.float32).reshape(2, 4, 3)
    expected = onp.split(data, 2, axis=1)[1][:, -1, ::-1] + data[0, 0]
    for hybridize in (False, True):
        net = Slicer()
        if hybridize:
            net.hybridize()
        onp.testing.assert_array_equal(net(np.array(data)).asnumpy(), expected)


@pytest.mark.parametrize("hybridize", [False, True])
def test_constraint_check_violation_is_a_value_error(numpy_semantics, hybridize):
    class Check(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.npx.constraint_check(x, "all must hold")

    net = Check()
    if hybridize:
        net.hybridize()
    with pytest.raises(ValueError, match="all must hold") as caught:
        net(np.zeros((2, 3), dtype="bool")).asnumpy()
    assert isinstance(caught.value, mx.base.OperatorRunError)
    assert bool(net(np.ones((2, 3), dtype="bool")).asnumpy()) is True


def _constant_mlp():
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(3, activation="relu"), gluon.nn.Dense(2))
    net.initialize(mx.init.Constant(0.1))
    net.hybridize()
    return net


def _constant_mlp_expected(x):
    # every weight 0.1, biases zero (Dense's own bias initializer): hidden = relu(0.1 * sum(x)),
    # out = 0.1 * 3 * hidden
    hidden = onp.maximum(0.1 * x.sum(axis=1, keepdims=True), 0) * onp.ones((1, 3))
    return 0.1 * hidden.sum(axis=1, keepdims=True) * onp.ones((1, 2))


def test_export_imports_round_trips_under_set_np(tmp_path, numpy_semantics):
    x = onp.arange(8, dtype="float32").reshape(2, 4)
    net = _constant_mlp()
    out = net(np.array(x))
    prefix = str(tmp_path / "np_mlp")
    net.export(prefix)
    block = gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
    again = block(np.array(x))
    assert isinstance(again, np.ndarray)
    onp.testing.assert_allclose(again.asnumpy(), _constant_mlp_expected(x), rtol=1e-6)
    onp.testing.assert_allclose(out.asnumpy(), again.asnumpy(), rtol=1e-6)


def test_a_classic_checkpoint_imports_under_set_np(tmp_path):
    # MXNet 1.9.1 refuses (apache/mxnet#18918: the parameter file was saved without NumPy shape
    # semantics); mxtorch's Gluon loaders read it, mx.nd.load itself keeps MXNet's check
    x = onp.arange(8, dtype="float32").reshape(2, 4)
    net = _constant_mlp()
    net(mx.nd.array(x))
    prefix = str(tmp_path / "classic_mlp")
    net.export(prefix)
    npx.set_np()
    try:
        block = gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
        out = block(np.array(x))
        assert isinstance(out, np.ndarray)
        onp.testing.assert_allclose(out.asnumpy(), _constant_mlp_expected(x), rtol=1e-6)
        with pytest.raises(MXNetError, match="not saved under NumPy shape semantics"):
            mx.nd.load(prefix + "-0000.params")
    finally:
        npx.reset_np()


@pytest.mark.parametrize("workers", [0, 1])
def test_dataloader_gives_np_batches_under_set_np(numpy_semantics, workers):
    # MXNet 1.9.1: under npx.set_np() the default batchify makes mx.np arrays (also from
    # NumPy samples and Python numbers), classic NDArrays otherwise
    data = onp.arange(8, dtype="float32").reshape(4, 2)
    dataset = gluon.data.ArrayDataset(np.array(data), [1, 2, 3, 4])
    batches = list(gluon.data.DataLoader(dataset, batch_size=2, num_workers=workers))
    x, y = batches[1]
    assert isinstance(x, np.ndarray) and isinstance(y, np.ndarray)
    onp.testing.assert_array_equal(x.asnumpy(), data[2:])
    onp.testing.assert_array_equal(y.asnumpy(), [3, 4])
    assert y.dtype == onp.int64
    npx.reset_np()
    x, _ = next(iter(gluon.data.DataLoader(gluon.data.ArrayDataset(data, [1, 2, 3, 4]), batch_size=2)))
    assert type(x) is mx.nd.NDArray
