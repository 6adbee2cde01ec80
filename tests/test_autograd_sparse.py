"""Gradients held in sparse storage: attach_grad(stype=...), sparse.dot's row_sparse gradient,
check_numeric_gradient(grad_stype_dict=...).  Values are the dense gradients (MXNet 1.9.1
gives the same numbers in sparse storage)."""
import numpy as np
import pytest

import mxtorch as mx
from mxtorch.test_utils import check_numeric_gradient


@pytest.mark.parametrize("array_stype", ["default", "csr", "row_sparse"])
@pytest.mark.parametrize("grad_stype", [None, "default", "csr", "row_sparse"])
def test_attach_grad_storage_type(array_stype, grad_stype):
    x = mx.nd.zeros((2, 3), stype=array_stype)
    x.attach_grad(stype=grad_stype)
    # MXNet 1.9.1: without stype the gradient takes the array's storage type
    assert x.grad.stype == (grad_stype or array_stype)
    assert x.detach().stype == array_stype


@pytest.mark.parametrize("weight_stype, grad_stype", [("row_sparse", None), ("default", "row_sparse")])
def test_sparse_dot_gradient_is_row_sparse(weight_stype, grad_stype):
    lhs_np = np.array([[0, 2, 0, 1], [0, 0, 3, 0]], dtype=np.float32)
    lhs = mx.nd.array(lhs_np).tostype("csr")
    weight = mx.nd.ones((4, 3)).tostype(weight_stype)
    weight.attach_grad(stype=grad_stype)
    with mx.autograd.record():
        y = mx.nd.dot(lhs, weight)
    y.backward()
    assert weight.grad.stype == "row_sparse"
    np.testing.assert_allclose(weight.grad.asnumpy(), lhs_np.T @ np.ones((2, 3)))
    np.testing.assert_array_equal(weight.grad.indices.asnumpy(), [1, 2, 3])


def test_check_numeric_gradient_with_sparse_gradient_storage():
    data = mx.sym.Variable("data")
    weight = mx.sym.Variable("weight")
    out = mx.sym.dot(data, weight)
    location = {"data": np.random.rand(2, 3).astype(np.float32), "weight": np.random.rand(3, 2).astype(np.float32)}
    check_numeric_gradient(out, location, grad_stype_dict={"weight": "row_sparse"}, numeric_eps=1e-2)

    executor = out.bind(mx.cpu(), args={k: mx.nd.array(v) for k, v in location.items()},
                        args_grad={"data": mx.nd.zeros((2, 3)), "weight": mx.nd.zeros((3, 2)).tostype("row_sparse")})
    executor.forward(is_train=True)
    executor.backward(mx.nd.ones((2, 2)))
    assert executor.grad_dict["weight"].stype == "row_sparse"
    np.testing.assert_allclose(executor.grad_dict["weight"].asnumpy(), location["data"].T @ np.ones((2, 2)),
                               rtol=1e-6)


def test_check_numeric_gradient_rejects_unknown_storage_type():
    out = mx.sym.Variable("data") * 2
    with pytest.raises(mx.MXNetError, match="grad_stype_dict\\['data'\\] must be"):
        check_numeric_gradient(out, {"data": np.ones((2, 2))}, grad_stype_dict={"data": "dense"})
