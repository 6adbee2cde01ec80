"""``mx.nd.sparse``: row_sparse / csr arrays held dense with their storage type, and the
Module-era uses of them (kvstore row-sparse pulls, NDArrayIter over csr data, parameters
declared sparse).  Expected values from MXNet 1.9.1 running the same calls."""
import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError

DENSE = np.array([[0, 0, 0], [1, 0, 2], [0, 0, 0], [0, 3, 0]], np.float32)


def test_row_sparse_and_csr_views_match_mxnet():
    rsp = mx.nd.array(DENSE).tostype("row_sparse")
    assert rsp.stype == "row_sparse" and isinstance(rsp, mx.nd.sparse.RowSparseNDArray)
    assert rsp.indices.asnumpy().tolist() == [1, 3]
    assert rsp.data.asnumpy().tolist() == [[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]
    csr = mx.nd.array(DENSE).tostype("csr")
    assert csr.stype == "csr"
    assert csr.indptr.asnumpy().tolist() == [0, 0, 2, 2, 3]
    assert csr.indices.asnumpy().tolist() == [0, 2, 1]
    assert csr.data.asnumpy().tolist() == [1.0, 2.0, 3.0]
    assert csr.tostype("default").stype == "default"
    np.testing.assert_array_equal(mx.nd.sparse.cast_storage(csr, "default").asnumpy(), DENSE)
    with pytest.raises(MXNetError, match="storage type"):
        csr.tostype("coo")


def test_sparse_constructors_round_trip():
    csr = mx.nd.sparse.csr_matrix((np.array([1.0, 2.0, 3.0]), np.array([0, 2, 1]), np.array([0, 0, 2, 2, 3])),
                                  shape=(4, 3))
    np.testing.assert_array_equal(csr.asnumpy(), DENSE)
    rsp = mx.nd.sparse.row_sparse_array((np.array([[1, 0, 2], [0, 3, 0]]), [1, 3]), shape=(4, 3))
    np.testing.assert_array_equal(rsp.asnumpy(), DENSE)
    assert mx.nd.zeros((2, 2), stype="csr").stype == "csr"
    assert mx.nd.sparse.zeros("row_sparse", (2, 2)).asnumpy().sum() == 0
    assert rsp.copyto(mx.cpu(1)).stype == "row_sparse"
    # as MXNet, an invalid structure is accepted at construction and reported by check_format
    bad = mx.nd.sparse.row_sparse_array((np.ones((1, 3)), [7]), shape=(4, 3))
    with pytest.raises(MXNetError, match="indices"):
        bad.check_format()


def test_retain_dot_and_row_sparse_pull_match_mxnet():
    rsp = mx.nd.array(DENSE).tostype("row_sparse")
    assert mx.nd.sparse.retain(rsp, mx.nd.array([3])).asnumpy().tolist() == \
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 3.0, 0.0]]
    csr = mx.nd.array(DENSE).tostype("csr")
    assert mx.nd.sparse.dot(csr, mx.nd.ones((3, 2))).asnumpy().tolist() == \
        [[0.0, 0.0], [3.0, 3.0], [0.0, 0.0], [3.0, 3.0]]
    kv = mx.kv.create()
    kv.init("w", mx.nd.array(np.repeat(np.arange(4.0)[:, None], 3, 1)).tostype("row_sparse"))
    out = mx.nd.sparse.zeros("row_sparse", (4, 3))
    kv.row_sparse_pull("w", out=out, row_ids=mx.nd.array([1, 3]))
    assert out.asnumpy().tolist() == [[0.0] * 3, [1.0] * 3, [0.0] * 3, [3.0] * 3]
    untouched = mx.nd.ones((4, 3)).tostype("row_sparse")
    kv.pull("w", out=untouched)      # ignore_sparse: a row_sparse output is left alone
    assert untouched.asnumpy().sum() == 12
    with pytest.raises(MXNetError, match="row_sparse"):
        kv.row_sparse_pull("w", out=mx.nd.zeros((4, 3)), row_ids=mx.nd.array([1]))


def test_ndarray_iter_csr_needs_discard_and_module_keeps_param_stype():
    csr = mx.nd.array(np.eye(6, 4, dtype=np.float32)).tostype("csr")
    with pytest.raises(NotImplementedError):
        mx.io.NDArrayIter(csr, np.zeros(6), 2)
    batches = [b.data[0].asnumpy() for b in mx.io.NDArrayIter(csr, np.zeros(6), 4, last_batch_handle="discard")]
    assert len(batches) == 1
    np.testing.assert_array_equal(batches[0], np.eye(6, 4)[:4])
    v = mx.sym.var("v", shape=(4, 1), init=mx.init.Uniform(0.1), stype="row_sparse")
    net = mx.sym.LinearRegressionOutput(mx.sym.dot(mx.sym.var("data", stype="csr"), v), mx.sym.var("label"))
    mod = mx.mod.Module(net, data_names=["data"], label_names=["label"])
    mod.bind(data_shapes=[("data", (6, 4))], label_shapes=[("label", (6, 1))])
    mod.init_params()
    assert mod._arg_params["v"].stype == "row_sparse"
    assert np.abs(mod._arg_params["v"].asnumpy()).sum() > 0


def test_square_sum_sparse_embedding_and_int_variable_shape():
    # MXNet 1.9.1: _square_sum([[1, 2], [3, 4]], axis=1, keepdims=True) == [[5], [25]]
    out = mx.nd._internal._square_sum(mx.nd.array([[1, 2], [3, 4]]), axis=1, keepdims=True)
    assert out.asnumpy().tolist() == [[5.0], [25.0]]
    embed = mx.sym.contrib.SparseEmbedding(data=mx.sym.var("data"), input_dim=5, output_dim=2, name="embed",
                                           deterministic=True)
    assert embed.list_arguments() == ["data", "embed_weight"]
    ex = embed.simple_bind(mx.cpu(), data=(3,))
    ex.arg_dict["embed_weight"][:] = np.arange(10, dtype=np.float32).reshape(5, 2)
    assert ex.forward(data=mx.nd.array([4, 0, 2]))[0].asnumpy().tolist() == [[8, 9], [0, 1], [4, 5]]
    # shape=(1) is the int 1, which MXNet read as (1,)
    assert (mx.sym.var("b", shape=(1)) * 1).infer_shape()[0] == [(1,)]


def test_sparse_parameters_train_through_the_kvstore_on_two_devices():
    # row_sparse weight on two contexts with a 'local' kvstore: the store's pulls must reach
    # the (dense-held) row_sparse parameter arrays, so both devices keep the SGD result
    w = mx.sym.var("w_weight", shape=(3, 1), stype="row_sparse")
    net = mx.sym.LinearRegressionOutput(mx.sym.dot(mx.sym.var("data"), w), mx.sym.var("label"))
    mod = mx.mod.Module(net, data_names=["data"], label_names=["label"], context=[mx.cpu(0), mx.cpu(1)])
    mod.bind(data_shapes=[("data", (4, 3))], label_shapes=[("label", (4, 1))])
    mod.init_params(initializer=mx.init.Zero())
    mod.init_optimizer(kvstore="local", optimizer="sgd", optimizer_params={"learning_rate": 1.0})
    assert [a.stype for a in mod._exec_group.param_arrays[0]] == ["row_sparse", "row_sparse"]
    x = np.eye(4, 3, dtype=np.float32)
    y = np.array([[1.0], [2.0], [3.0], [4.0]], np.float32)
    mod.forward_backward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)]))
    mod.update()
    # gradient of 0.5 * sum((x.w - y)^2) at w = 0 is -x^T y; rescale_grad = 1 / 4
    expected = (x.T @ y) / 4
    for array in mod._exec_group.param_arrays[0]:
        np.testing.assert_allclose(array.asnumpy(), expected, rtol=1e-6)
