"""NDArray basics; expected values are what MXNet 1.9.1 prints for the same calls."""
import numpy as np
import pytest

import mxtorch as mx


def test_dtypes_follow_mxnet():
    assert mx.nd.array([1, 2]).dtype == np.float32
    assert mx.nd.array(np.array([1, 2], dtype=np.int64)).dtype == np.float32  # MXNet: float32 unless dtype=
    assert mx.nd.array([1, 2], dtype="int32").dtype == np.int32
    assert mx.nd.array(mx.nd.array([1], dtype="float64")).dtype == np.float64
    assert mx.nd.arange(3).dtype == np.float32


def test_indexing_and_shapes():
    a = mx.nd.array([[1, 2], [3, 4]])
    assert a.shape == (2, 2) and a.size == 4 and a.ndim == 2 and a.context == mx.cpu(0)
    assert a[1].shape == (2,) and a[1, 1].shape == (1,)
    assert a[:, 1].asnumpy().tolist() == [2.0, 4.0]
    a[0] = 9
    assert a.asnumpy().tolist() == [[9, 9], [3, 4]]
    a[:] = np.array([[0, 1], [2, 3]])
    assert a.asnumpy().tolist() == [[0, 1], [2, 3]]


def test_reshape_codes():
    a = mx.nd.zeros((2, 2))
    assert a.reshape((0, -1)).shape == (2, 2)
    assert a.reshape((-3,)).shape == (4,)
    assert a.reshape((-4, 1, 2, -2)).shape == (1, 2, 2)
    assert mx.nd.zeros((2, 3, 4)).reshape((-1, 0), reverse=True).shape == (6, 4)
    with pytest.raises(mx.MXNetError, match="elements"):
        a.reshape((3, 2))


def test_arithmetic_and_comparison():
    a = mx.nd.array([[1, 2], [3, 4]])
    np.testing.assert_allclose((1 / a).asnumpy(), [[1.0, 0.5], [1 / 3, 0.25]], rtol=1e-6)
    assert (a % 3).asnumpy().tolist() == [[1, 2], [0, 1]]
    assert (a == 2).asnumpy().tolist() == [[0, 1], [0, 0]] and (a > 2).dtype == np.float32
    b = mx.nd.array([1, 2, 3], dtype="int32")
    assert (b / 2).asnumpy().tolist() == [0, 1, 1]           # integer arrays stay integer
    assert (b * 1.5).asnumpy().tolist() == [1, 2, 3] and (b * 1.5).dtype == np.int32
    c = a.copy()
    c += 1
    c *= 2
    assert c.asnumpy().tolist() == [[4, 6], [8, 10]] and a.asnumpy()[0, 0] == 1
    assert (a + mx.nd.array([10, 20])).asnumpy().tolist() == [[11, 22], [13, 24]]


def test_constructors_and_reductions():
    assert mx.nd.arange(0, 5, 2, repeat=2).asnumpy().tolist() == [0, 0, 2, 2, 4, 4]
    assert mx.nd.full((2,), 7).asnumpy().tolist() == [7, 7]
    assert mx.nd.ones((2, 3), dtype="float16").dtype == np.float16
    assert mx.nd.concat(mx.nd.ones((1, 2)), mx.nd.zeros((1, 2)), dim=0).shape == (2, 2)
    a = mx.nd.array([[1, 2], [3, 4]])
    assert a.sum().shape == (1,) and a.sum(axis=1).asnumpy().tolist() == [3, 7]
    value = mx.nd.array([7]).asscalar()
    assert value == 7 and isinstance(value, np.float32)
    with pytest.raises(mx.MXNetError, match="one element"):
        a.asscalar()


def test_copy_and_context():
    a = mx.nd.array([1, 2, 3])
    b = a.copyto(mx.cpu(1))
    assert b.context == mx.cpu(1) and b.asnumpy().tolist() == [1, 2, 3]
    assert a.as_in_context(mx.cpu(0)) is a
    c = mx.nd.zeros((3,))
    a.copyto(c)
    assert c.asnumpy().tolist() == [1, 2, 3]
    with pytest.raises(mx.MXNetError, match="shape"):
        a.copyto(mx.nd.zeros((4,)))
    with mx.cpu(3):
        assert mx.nd.zeros((1,)).context == mx.cpu(3)
    assert mx.cpu(1).torch_device.type == "cpu"
    if mx.num_gpus() > 1:
        assert mx.gpu(1).torch_device.index == 1
    else:
        with pytest.raises(mx.MXNetError, match="no such GPU"):
            mx.gpu(1).torch_device


def test_imperative_operator_matches_symbolic():
    x = np.random.RandomState(0).randn(3, 5).astype("float32")
    w = np.random.RandomState(1).randn(4, 5).astype("float32")
    b = np.zeros(4, dtype="float32")
    out = mx.nd.FullyConnected(mx.nd.array(x), mx.nd.array(w), mx.nd.array(b), num_hidden=4)
    np.testing.assert_allclose(out.asnumpy(), x @ w.T, rtol=1e-5)
    symbol = mx.sym.FullyConnected(mx.sym.Variable("x"), num_hidden=4, name="fc")
    executor = symbol.bind(mx.cpu(), {"x": mx.nd.array(x), "fc_weight": mx.nd.array(w), "fc_bias": mx.nd.array(b)})
    np.testing.assert_allclose(executor.forward()[0].asnumpy(), out.asnumpy(), rtol=1e-6)
    relu = mx.nd.Activation(mx.nd.array([-1, 2]), act_type="relu")
    assert relu.asnumpy().tolist() == [0, 2]


def test_creation_functions_write_into_out():
    # MXNet 1.9.1: mx.nd.ones / zeros / full(shape, out=out) fill out and return it
    out = mx.nd.zeros((2, 2))
    assert mx.nd.ones((2, 2), out=out) is out
    np.testing.assert_array_equal(out.asnumpy(), np.ones((2, 2)))
    mx.nd.zeros((2, 2), out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.zeros((2, 2)))
    mx.nd.full((2, 2), 2, out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.full((2, 2), 2.0))


def test_from_numpy_zero_copy_of_a_transposed_array_is_a_value_error():
    # MXNet 1.9.1 raises ValueError ("Only c-contiguous arrays are supported for zero-copy")
    transposed = np.array([[1, 2], [3, 4], [5, 6]]).transpose()
    with pytest.raises(ValueError, match="C-contiguous"):
        mx.nd.from_numpy(transposed)
    np.testing.assert_array_equal(mx.nd.from_numpy(transposed, zero_copy=False).asnumpy(), transposed)
