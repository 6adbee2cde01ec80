"""contrib.hawkesll and backward_hawkesll: log likelihoods, final states and parameter gradients
printed by MXNet 1.9.1 for the same inputs; the state gradient against finite differences."""
import numpy as np

import mxtorch as mx

nd = mx.nd


def inputs():
    lda = nd.array([[1.5, 2.0, 3.0]] * 4)
    alpha, beta = nd.array([0.2, 0.3, 0.4]), nd.array([1.0, 2.0, 3.0])
    lags = nd.array([[6, 7, 8, 9], [1, 2, 3, 4], [3, 4, 5, 6], [8, 9, 10, 11]]) * 0.3
    marks = nd.array([[0, 1, 2, 0], [1, 1, 0, 2], [2, 0, 0, 1], [0, 0, 0, 0]]).astype("int32")
    states = nd.array(np.arange(12).reshape(4, 3) * 0.1)
    return [lda, alpha, beta, states, lags, marks, nd.array([1, 2, 3, 4]), nd.ones((4,)) * 20.0]


def test_hawkes_log_likelihood_and_gradients():
    values = inputs()
    for array in values[:4]:
        array.attach_grad()
    with mx.autograd.record():
        log_likelihood, state = nd.contrib.hawkesll(*values)
    log_likelihood.backward()
    np.testing.assert_allclose(log_likelihood.asnumpy(), [-129.90454, -129.42538, -129.478, -130.06537], rtol=1e-6)
    np.testing.assert_allclose(state.asnumpy()[3], [0.00019, 0, 0], atol=5e-6)
    np.testing.assert_allclose(values[0].grad.asnumpy()[2], [-18.69377, -20.0, -19.67368], rtol=1e-5)
    np.testing.assert_allclose(values[1].grad.asnumpy(), [-8.4336, -3.66318, -3.54737], rtol=1e-5)
    np.testing.assert_allclose(values[2].grad.asnumpy(), [-0.09227, -0.00293, -0.01193], rtol=1e-3)
    # the state gradient is the derivative (MXNet 1.9.1 returned zeros): a finite difference
    step = np.zeros((4, 3), dtype=np.float32)
    step[1, 1] = 1e-2
    shifted = values[:3] + [values[3] + nd.array(step)] + values[4:]
    difference = (nd.contrib.hawkesll(*shifted)[0] - nd.contrib.hawkesll(*values)[0]).asnumpy()[1] / 1e-2
    np.testing.assert_allclose(values[3].grad.asnumpy()[1, 1], difference, rtol=2e-2)


def test_backward_hawkesll_node():
    values = inputs()
    grads = nd.contrib.backward_hawkesll(nd.ones((4,)), nd.zeros((4, 3)), *values)
    assert len(grads) == 8
    np.testing.assert_allclose(grads[1].asnumpy(), [-8.4336, -3.66318, -3.54737], rtol=1e-5)
    assert not grads[4].asnumpy().any()
