"""mx.autograd's functional interface and mx.contrib.autograd; expected values from MXNet 1.9.1."""
import numpy as np
import pytest

import mxtorch as mx
from mxtorch import autograd as ag
from mxtorch.base import MXNetError


def test_mark_variables_and_backward_with_head_gradients():
    x = mx.nd.array([1.0, 2.0, 3.0])
    dx = mx.nd.zeros(3)
    ag.mark_variables([x], [dx])
    assert x._fresh_grad is False
    with ag.record():
        y = x * x
    ag.backward([y], [mx.nd.array([1, 10, 100])])
    # d(x^2)/dx * head = 2x * head
    np.testing.assert_allclose(dx.asnumpy(), [2.0, 40.0, 600.0])
    assert x.grad is dx and x._fresh_grad


def test_backward_several_heads_none_means_ones():
    x = mx.nd.ones((3, 2))
    dx = mx.nd.zeros_like(x)
    ag.mark_variables(x, dx)
    with ag.record():
        a, b, c = mx.nd.split(x, axis=0, num_outputs=3, squeeze_axis=True)
        ag.backward([a, b, c], [None, mx.nd.array([2, 3]), mx.nd.array([4, 5])])
    np.testing.assert_array_equal(dx.asnumpy(), [[1, 1], [2, 3], [4, 5]])


def test_grad_req_add_accumulates_and_second_backward_needs_retain_graph():
    x = mx.nd.ones((2,))
    dx = mx.nd.zeros((2,))
    ag.mark_variables([x], [dx], grad_reqs="add")
    with ag.record():
        y = x * 3
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_array_equal(dx.asnumpy(), [6, 6])
    with ag.record():
        y = x * 3
    y.backward()
    with pytest.raises(MXNetError):
        y.backward()


def test_grad_returns_arrays_and_supports_second_order():
    x = mx.nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    with ag.record():
        z = mx.nd.elemwise_add(mx.nd.exp(x), x)
    g, = ag.grad(z, [x], create_graph=True)
    np.testing.assert_allclose(g.asnumpy(), [3.7182817, 8.389056, 21.085537], rtol=1e-6)
    g.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [2.7182817, 7.389056, 20.085537], rtol=1e-6)


def test_detached_branch_gets_no_gradient():
    x = mx.nd.ones((2,))
    y = mx.nd.ones((2,))
    dx, dy = mx.nd.zeros((2,)), mx.nd.zeros((2,))
    ag.mark_variables([x, y], [dx, dy])
    with ag.record():
        (((x + 2).detach()) + y).backward()
    assert not x._fresh_grad and y._fresh_grad
    np.testing.assert_array_equal(dx.asnumpy(), [0, 0])
    np.testing.assert_array_equal(dy.asnumpy(), [1, 1])


def test_function_with_custom_backward():
    class MulAdd(ag.Function):
        def forward(self, a, b):
            self.save_for_backward(a, b)
            return a * b, a + b

        def backward(self, dm, dn):   # deliberately not the true gradient of a + b
            a, b = self.saved_tensors
            return dm * b + dn * 10, dm * a + dn * 100

    a, b = mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 4.0])
    a.attach_grad()
    b.attach_grad()
    with ag.record():
        m, n = MulAdd()(a, b)
    np.testing.assert_array_equal(m.asnumpy(), [3, 8])
    ag.backward([m, n])
    np.testing.assert_array_equal(a.grad.asnumpy(), [13, 14])
    np.testing.assert_array_equal(b.grad.asnumpy(), [101, 102])


def test_mark_variables_rejects_mismatch():
    with pytest.raises(MXNetError, match="shape"):
        ag.mark_variables([mx.nd.ones((2,))], [mx.nd.ones((3,))])
    with pytest.raises(MXNetError, match="grad_req"):
        ag.mark_variables([mx.nd.ones((2,))], [mx.nd.ones((2,))], grad_reqs="sometimes")


def test_contrib_autograd_grad_and_loss_and_sections():
    from mxtorch.contrib import autograd as cag
    grads, out = cag.grad_and_loss(lambda p, q: p * q + p)(mx.nd.array([2.0]), mx.nd.array([5.0]))
    assert [g.asscalar() for g in grads] == [6.0, 2.0]
    assert out.asscalar() == 12.0
    with cag.train_section():
        assert ag.is_recording() and ag.is_training()
        with cag.test_section():
            assert not ag.is_recording() and not ag.is_training()
    assert not ag.is_recording()


def test_runtime_features():
    import torch
    features = mx.runtime.Features()
    assert features is mx.runtime.Features()
    assert len(features) == 32 and list(features)[0] == "CUDA"
    assert features.is_enabled("cuda") == torch.backends.cuda.is_built()
    assert features.is_enabled("INT64_TENSOR_SIZE")
    assert repr(features["TVM_OP"]) == "✖ TVM_OP"
    with pytest.raises(RuntimeError, match="unknown"):
        features.is_enabled("no such feature")


def test_autograd_star_import_gives_ndarray_and_symbol():
    namespace = {}
    exec("from mxtorch.autograd import *", namespace)
    assert namespace["NDArray"] is mx.nd.NDArray and namespace["Symbol"] is mx.sym.Symbol
    assert namespace["mark_variables"] is ag.mark_variables


def test_operation_without_saved_buffers_still_refuses_a_second_backward():
    x = mx.nd.ones((2,))
    x.attach_grad()
    with ag.record():
        y = x + 1                      # torch saves nothing for an addition
    y.backward()
    with pytest.raises(MXNetError, match="retain_graph"):
        y.backward()


def test_executor_backward_after_inference_forward():
    # MXNet computes gradients after forward(is_train=False) too (in inference mode)
    lhs, rhs = mx.sym.Variable("lhs"), mx.sym.Variable("rhs")
    a, b = mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 5.0])
    ga, gb = mx.nd.zeros(2), mx.nd.zeros(2)
    executor = (lhs * rhs).bind(mx.cpu(), args=[a, b], args_grad=[ga, gb])
    executor.forward()
    executor.backward([mx.nd.array([1.0, 10.0])])
    np.testing.assert_array_equal(ga.asnumpy(), [3, 50])
    np.testing.assert_array_equal(gb.asnumpy(), [1, 20])


def test_backward_reads_a_larger_head_gradient_from_its_start():
    # MXNet 1.9.1 did not check the head gradient's shape imperatively: a (4, 2) head gradient
    # of a (3, 2) head gives x.grad = 2 * arange(6) (printed by ~/mxref); a smaller one is refused
    x = mx.nd.ones((3, 2))
    x.attach_grad()
    with mx.autograd.record():
        y = x * 2
    with pytest.warns(UserWarning, match="first 6 elements"):
        y.backward(mx.nd.arange(8).reshape((4, 2)), retain_graph=True)
    np.testing.assert_allclose(x.grad.asnumpy(), [[0, 2], [4, 6], [8, 10]])
    with pytest.raises(mx.MXNetError, match=r"head gradient \(out_grad\) 0 has shape \(2, 2\)"):
        y.backward(mx.nd.ones((2, 2)))


@pytest.mark.parametrize("front", ["nd", "np"])
def test_null_variable_gradient_dropped_after_backward(front):
    # MXNet 1.9.1 (checked with mxnet 1.9.1): a grad_req='null' variable keeps its zero gradient
    # array until a backward that does not retain the graph reaches it; then its grad is None.
    # retain_graph=True keeps it; attach_grad gives a new one; autograd.grad drops it too.
    lib = getattr(mx, front)
    c = lib.ones((2,))
    c.attach_grad(grad_req="null")
    d = lib.ones((2,))
    d.attach_grad()
    assert c.grad is not None and c.grad.asnumpy().tolist() == [0.0, 0.0]
    with mx.autograd.record():
        y = (c * d * 3).sum()
    y.backward(retain_graph=True)
    assert c.grad is not None
    assert d.grad.asnumpy().tolist() == [3.0, 3.0]
    y.backward()
    assert c.grad is None
    c.attach_grad(grad_req="null")
    with mx.autograd.record():
        y = (c * d).sum()
    mx.autograd.grad(y, [d])
    assert c.grad is None


def test_only_null_variables_is_an_error():
    c = mx.nd.ones((2,))
    c.attach_grad(grad_req="null")
    with mx.autograd.record():
        y = (c * 2).sum()
    with pytest.raises(mx.MXNetError, match="grad_req 'write' or 'add'"):
        y.backward()
