"""mx.nd.sparse / mx.sym.sparse operator functions: the storage type of each result and its
numbers, against MXNet 1.9.1 (values and storage types printed by ~/mxref for the same calls)."""
import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError

DENSE = np.array([[0, 1.5, 0], [0, 0, 0], [-2, 0, 3]], dtype=np.float32)


def arrays():
    dense = mx.nd.array(DENSE)
    return {"csr": dense.tostype("csr"), "row_sparse": dense.tostype("row_sparse"), "default": dense}


# MXNet 1.9.1: f(0) == 0 keeps the storage type, the others fall back to a dense result
@pytest.mark.parametrize("name,keeps", [
    ("abs", True), ("sqrt", True), ("square", True), ("relu", True), ("sign", True), ("tanh", True),
    ("round", True), ("expm1", True), ("log1p", True), ("zeros_like", True), ("stop_gradient", True),
    ("make_loss", True), ("_contrib_round_ste", True),
    ("exp", False), ("cos", False), ("sigmoid", False), ("rsqrt", False), ("log", False)])
def test_unary_storage_types(name, keeps):
    function = getattr(mx.nd.sparse, name)
    for stype, array in arrays().items():
        result = function(array)
        assert result.stype == (stype if keeps else "default")
    np.testing.assert_allclose(mx.nd.sparse.square(arrays()["csr"]).asnumpy(), DENSE ** 2)


def test_binary_storage_types():
    order = ("csr", "row_sparse", "default")
    got = {}
    for name in ("elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div", "broadcast_add",
                 "broadcast_mul", "add_n"):
        got[name] = [getattr(mx.nd.sparse, name)(arrays()[a], arrays()[b]).stype[:3] for a in order for b in order]
    # printed by MXNet 1.9.1 for the pairs (csr, csr), (csr, rsp), (csr, dns), (rsp, csr), ...
    assert got["elemwise_add"] == ["csr", "def", "def", "def", "row", "def", "def", "def", "def"]
    assert got["elemwise_sub"] == got["elemwise_add"]
    assert got["elemwise_mul"] == ["csr", "def", "csr", "def", "row", "row", "csr", "row", "def"]
    assert got["elemwise_div"] == ["def"] * 9
    assert got["broadcast_add"] == ["def"] * 9
    assert got["broadcast_mul"] == ["def", "def", "csr", "def", "def", "def", "def", "def", "def"]
    assert got["add_n"] == ["def", "def", "def", "def", "row", "def", "def", "def", "def"]


def test_broadcast_div_of_csr_keeps_unstored_zeros():
    # MXNet 1.9.1 divides only the stored values: 0 / 0 is never computed
    result = mx.nd.sparse.broadcast_div(arrays()["csr"], mx.nd.array([[0.0, 1, 2]]))
    assert result.stype == "csr"
    np.testing.assert_array_equal(result.asnumpy(), [[0, 1.5, 0], [0, 0, 0], [-np.inf, 0, 1.5]])


@pytest.mark.parametrize("transpose_a,lhs,rhs,stype", [
    (False, "default", "csr", "csr"), (False, "csr", "default", "default"), (True, "csr", "default", "row_sparse"),
    (True, "csr", "row_sparse", "row_sparse"), (True, "csr", "csr", "default"), (False, "row_sparse", "default",
                                                                               "default")])
def test_dot_storage_types(transpose_a, lhs, rhs, stype):
    result = mx.nd.sparse.dot(arrays()[lhs], arrays()[rhs], transpose_a=transpose_a)
    assert result.stype == stype
    expected = (DENSE.T if transpose_a else DENSE) @ DENSE
    np.testing.assert_allclose(result.asnumpy(), expected)
    assert mx.nd.sparse.dot(arrays()["csr"], arrays()["default"], forward_stype="csr").stype == "csr"


def test_clip_concat_slice_where_sum():
    csr, rsp = arrays()["csr"], arrays()["row_sparse"]
    assert mx.nd.sparse.clip(csr, a_min=-1, a_max=2).stype == "csr"
    np.testing.assert_array_equal(mx.nd.sparse.clip(rsp, a_min=-1, a_max=2).asnumpy(), np.clip(DENSE, -1, 2))
    with pytest.raises(MXNetError, match="a_min <= 0 <= a_max"):
        mx.nd.sparse.clip(csr, a_min=1, a_max=2)
    assert mx.nd.sparse.concat(csr, csr, dim=0).stype == "csr"
    assert mx.nd.sparse.concat(csr, csr, dim=1).stype == "default"
    assert mx.nd.sparse.concat(rsp, rsp, dim=0).stype == "default"
    assert mx.nd.sparse.slice(csr, begin=(0, 1), end=(3, 3)).stype == "csr"
    assert mx.nd.sparse.slice(csr, begin=(0,), end=(3,), step=(2,)).stype == "default"
    assert mx.nd.sparse.slice(rsp, begin=(1,), end=(3,)).stype == "default"
    assert mx.nd.sparse.where(csr, csr, csr).stype == "default"
    total = mx.nd.sparse.sum(csr, axis=0)
    assert total.stype == "default" and total.asnumpy().tolist() == [-2, 1.5, 3]
    assert mx.nd.sparse.norm(rsp).stype == "default"


def test_retain_and_cast_storage():
    rsp = arrays()["row_sparse"]
    kept = mx.nd.sparse.retain(rsp, mx.nd.array([0]))
    assert kept.stype == "row_sparse"
    np.testing.assert_array_equal(kept.asnumpy(), [[0, 1.5, 0], [0, 0, 0], [0, 0, 0]])
    assert rsp.retain(mx.nd.array([2])).indices.asnumpy().tolist() == [2]
    assert mx.nd.sparse.gs_retain(rsp, mx.nd.array([2])).stype == "row_sparse"
    with pytest.raises(MXNetError, match="row_sparse"):
        mx.nd.sparse.retain(arrays()["csr"], mx.nd.array([0]))
    assert mx.nd.sparse.cast_storage(arrays()["default"], stype="csr").stype == "csr"


def test_arithmetic_of_sparse_arrays():
    csr, rsp = arrays()["csr"], arrays()["row_sparse"]
    # MXNet 1.9.1: (csr + csr, csr * 2, csr + 1, rsp + rsp, rsp * dense) -> csr, csr, default, rsp, rsp
    assert [(csr + csr).stype, (csr * 2).stype, (csr + 1).stype, (rsp + rsp).stype,
            (rsp * arrays()["default"]).stype] == ["csr", "csr", "default", "row_sparse", "row_sparse"]
    np.testing.assert_array_equal((csr - csr).asnumpy(), np.zeros((3, 3)))


GRAD = np.array([[0, 0, 0], [1, 1, 1], [0, 0, 0]], dtype=np.float32)


@pytest.mark.parametrize("lazy,expected", [(True, [1.0, 0.85, 1.0]), (False, [0.95, 0.85, 0.95])])
def test_sgd_update_with_row_sparse_gradient(lazy, expected):
    # MXNet 1.9.1, weight ones, lr 0.1, wd 0.5: a lazy update leaves the rows the gradient lacks
    for stype in ("default", "row_sparse"):
        weight = mx.nd.ones((3, 3)).tostype(stype)
        mx.nd.sparse.sgd_update(weight, mx.nd.array(GRAD).tostype("row_sparse"), lr=0.1, wd=0.5,
                                lazy_update=lazy, out=weight)
        assert weight.stype == stype
        np.testing.assert_allclose(weight.asnumpy()[:, 0], expected, rtol=1e-6)


def test_momentum_adam_adagrad_ftrl_lazy_rows():
    grad = mx.nd.array(GRAD).tostype("row_sparse")
    weight, mom = mx.nd.ones((3, 3)), mx.nd.zeros((3, 3))
    mx.nd.sparse.sgd_mom_update(weight, grad, mom, lr=0.1, wd=0.5, momentum=0.9, out=weight)
    np.testing.assert_allclose(weight.asnumpy()[:, 0], [1, 0.85, 1], rtol=1e-6)
    np.testing.assert_allclose(mom.asnumpy()[:, 0], [0, -0.15, 0], rtol=1e-6)
    weight, mean, var = mx.nd.ones((3, 3)), mx.nd.ones((3, 3)), mx.nd.ones((3, 3))
    mx.nd.sparse.adam_update(weight, grad, mean, var, lr=0.1, wd=0.5, out=weight)
    np.testing.assert_allclose(weight.asnumpy()[:, 0], [1, 0.8950655, 1], rtol=1e-6)
    np.testing.assert_allclose(var.asnumpy()[:, 0], [1, 1.00125, 1], rtol=1e-6)
    weight, history = mx.nd.ones((3, 3)), mx.nd.ones((3, 3))
    mx.nd.sparse.adagrad_update(weight, grad, history, lr=0.1, out=weight)
    np.testing.assert_allclose(weight.asnumpy()[:, 0], [1, 0.9292893, 1], rtol=1e-6)
    with pytest.raises(MXNetError, match="row_sparse"):
        mx.nd.sparse.adagrad_update(weight, mx.nd.array(GRAD), history, lr=0.1)
    with pytest.raises(MXNetError, match="wd must be 0"):
        mx.nd.sparse.adagrad_update(weight, grad, history, lr=0.1, wd=0.1)
    # ftrl: lazy only when the weight is row_sparse too
    for stype, first_row in (("default", -0.04829268), ("row_sparse", 1.0)):
        weight, z, n = mx.nd.ones((3, 3)).tostype(stype), mx.nd.ones((3, 3)), mx.nd.ones((3, 3))
        mx.nd.sparse.ftrl_update(weight, grad, z, n, lr=0.1, wd=0.5, out=weight)
        np.testing.assert_allclose(weight.asnumpy()[:, 0], [first_row, 0.08652396, first_row], rtol=1e-5)


def test_layers_and_symbol_namespace():
    weight = mx.nd.array(DENSE)
    assert mx.nd.sparse.FullyConnected(arrays()["csr"], weight, num_hidden=3, no_bias=True).stype == "default"
    assert mx.nd.sparse.Embedding(mx.nd.array([0, 2]), weight, input_dim=3, output_dim=3).stype == "default"
    names = ["abs", "sgd_update", "retain", "dot", "Embedding", "ElementWiseSum", "broadcast_minus", "where"]
    assert all(hasattr(mx.sym.sparse, name) for name in names)
    # a sparse symbol is the operator itself, written to JSON under its name (MXNet's graph)
    assert '"op": "abs"' in mx.sym.sparse.abs(mx.sym.var("x")).tojson()
    assert not hasattr(mx.nd.sparse, "Convolution")


def test_scalar_forms_keep_storage_when_zero_stays_zero():
    # MXNet 1.9.1 on a row_sparse / csr array of ones
    expressions = ["y == 1", "y == 0", "y != 0", "y > -1", "y >= 1", "y < 0", "y <= 0", "y + 0", "y * 0",
                   "y / 3", "y ** 2", "3 - y"]
    kept = [True, False, True, False, True, True, False, True, True, True, False, False]
    for stype in ("csr", "row_sparse"):
        y = mx.nd.ones((2, 2)).tostype(stype)
        assert [eval(e, {}, {"y": y}).stype for e in expressions] == [stype if k else "default" for k in kept]
    y = mx.nd.ones((2, 2)).tostype("csr")
    assert mx.nd.contrib.quadratic(y, a=1, b=1, c=0).stype == "csr"
    assert mx.nd.contrib.quadratic(y, a=1, b=1, c=1).stype == "default"
    assert mx.nd.contrib.quadratic(y.tostype("row_sparse"), a=1, b=1, c=0).stype == "default"
