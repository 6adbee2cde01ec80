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
