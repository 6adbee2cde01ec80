"""Imperative autograd through integer arrays: integer variables, integer / index outputs.

Expected values are MXNet 1.9.1's (printed by ~/mxref for the same programs)."""
import numpy as np
import pytest

import mxtorch as mx


def _int_variable(values):
    array = mx.nd.array(values, dtype="int32")
    array.attach_grad()
    return array


def test_integer_variable_through_reshape_and_scalar_multiply():
    a = _int_variable([3, 1, 2])
    with mx.autograd.record():
        b = a.reshape((3, 1)) * 3
    b.backward()
    assert a.grad.dtype == np.int32
    np.testing.assert_array_equal(a.grad.asnumpy(), [3, 3, 3])


def test_integer_variable_gradient_is_truncated():
    # MXNet 1.9.1: int32 * 2.7 gives [6, 2, 4] and the gradient 2
    a = _int_variable([3, 1, 2])
    with mx.autograd.record():
        b = a * 2.7
    b.backward(mx.nd.array([1, 1, 1], dtype="int32"))
    np.testing.assert_array_equal(b.asnumpy(), [6, 2, 4])
    np.testing.assert_array_equal(a.grad.asnumpy(), [2, 2, 2])


@pytest.mark.parametrize("key, expected", [
    ("advanced", [2, 0, 1]),
    ("basic", [[0, 0, 0], [1, 1, 1]]),
])
def test_integer_variable_through_indexing(key, expected):
    if key == "advanced":
        a = _int_variable([3, 1, 2])
        with mx.autograd.record():
            b = a[mx.nd.array([0, 0, 2], dtype="int32")]
    else:
        a = _int_variable([[3, 1, 2], [4, 5, 6]])
        with mx.autograd.record():
            b = a[1]
    b.backward()
    np.testing.assert_array_equal(a.grad.asnumpy(), expected)


def test_integer_variable_through_topk_values_and_boolean_mask():
    a = _int_variable([3, 1, 2, 7])
    with mx.autograd.record():
        b = mx.nd.topk(a, k=2, ret_typ="value")
    b.backward(mx.nd.array([5, 6], dtype="int32"))
    np.testing.assert_array_equal(b.asnumpy(), [7, 3])
    np.testing.assert_array_equal(a.grad.asnumpy(), [6, 0, 0, 5])

    a = _int_variable([3, 1, 2, 7])
    with mx.autograd.record():
        b = mx.nd.contrib.boolean_mask(a, mx.nd.array([1, 0, 1, 0]))
    b.backward()
    np.testing.assert_array_equal(a.grad.asnumpy(), [1, 0, 1, 0])


def test_grad_of_integer_variable_has_its_dtype():
    a = _int_variable([3, 1, 2, 7])
    with mx.autograd.record():
        b = a.reshape((2, 2)).reshape((4,)) * 2 + a
    (g,) = mx.autograd.grad(b, [a])
    assert g.dtype == np.int32
    np.testing.assert_array_equal(g.asnumpy(), [3, 3, 3, 3])


def test_backward_from_index_outputs_gives_zero_gradients():
    x = mx.nd.array([3.0, 1, 2])
    x.attach_grad()
    x.grad[:] = 7
    with mx.autograd.record():
        i = mx.nd.argsort(x)            # float32 indices, as in MXNet
    i.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [0, 0, 0])

    with mx.autograd.record():
        value, index = mx.nd.topk(x, k=2, ret_typ="both")
    mx.autograd.backward([value, index])
    np.testing.assert_array_equal(x.grad.asnumpy(), [1, 0, 1])


def test_integer_indices_then_take_reaches_the_data():
    x = mx.nd.array([3.0, 1, 2])
    x.attach_grad()
    with mx.autograd.record():
        i = mx.nd.topk(x, k=2, ret_typ="indices", dtype="int32")
        y = mx.nd.take(x, i) * 2
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [2, 0, 2])


def test_writing_into_recorded_integer_variable_is_refused():
    a = _int_variable([3, 1, 2])
    with mx.autograd.record():
        with pytest.raises(mx.MXNetError, match="already in a computational graph"):
            a[0] = 5


# -- integer result dtypes (values checked with MXNet 1.9.1 under npx.set_np) ---------------------
@pytest.fixture
def np_shape():
    mx.npx.set_np()
    yield
    mx.npx.reset_np()


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("dtype", ["int8", "int32"])
def test_float_mean_to_integer_dtype_passes_gradient(np_shape, hybridize, dtype):
    class Mean(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, a):
            return a.mean(axis=0, dtype=dtype)
    block = Mean()
    if hybridize:
        block.hybridize()
    x = mx.np.array(np.array([[0.5, -0.25, 3.5], [1.5, 2.0, -1.0]], dtype="float32"))
    x.attach_grad()
    with mx.autograd.record():
        y = block(x)
    assert y.dtype == np.dtype(dtype) and y.asnumpy().tolist() == [1, 0, 1]
    y.backward()
    # MXNet's cast passes the gradient through: 1 / N
    np.testing.assert_array_equal(x.grad.asnumpy(), np.full((2, 3), 0.5, dtype="float32"))


@pytest.mark.parametrize("axis", [0, (), None])
def test_integer_sum_to_integer_dtype_gradient_is_one(np_shape, axis):
    x = mx.np.array(np.array([[3, -7, 100], [90, 60, -128]], dtype="int8"))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.np.sum(x, axis=axis, dtype="int32")
    y.backward()
    assert x.grad.dtype == np.int8
    np.testing.assert_array_equal(x.grad.asnumpy(), np.ones((2, 3), dtype="int8"))


def test_integer_mean_accumulates_in_its_dtype(np_shape):
    # NumPy (and MXNet) sum an int8 mean with dtype='int8' in int8, wrapping: 30 wraps to 30 - 256
    values = np.array([[100, 100, 100], [100, 90, 50]], dtype="int8")
    expected = np.mean(values, dtype="int8")
    got = mx.np.mean(mx.np.array(values), dtype="int8")
    assert got.dtype == np.int8 and int(got) == int(expected)
    assert int(mx.np.mean(mx.np.array(values), dtype="int32")) == int(np.mean(values, dtype="int32"))


@pytest.mark.parametrize("func", ["mod", "remainder", "lcm", "bitwise_and"])
def test_integer_mod_lcm_bitwise_gradients_are_zero(np_shape, func):
    a = mx.np.array(np.array([[7, 9], [4, 5]], dtype="int32"))
    b = mx.np.array(np.array([[2, 4], [3, 3]], dtype="int32"))
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        y = getattr(mx.np, func)(a, b)
    y.backward()
    np.testing.assert_array_equal(a.grad.asnumpy(), np.zeros((2, 2), dtype="int32"))
    np.testing.assert_array_equal(b.grad.asnumpy(), np.zeros((2, 2), dtype="int32"))
