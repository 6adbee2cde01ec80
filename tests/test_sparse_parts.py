"""Sparse arrays keep the parts they are given (MXNet 1.9.1's storage), checked against a file
MXNet wrote (tools/gen_sparse_parts.py) and behaviour observed with MXNet 1.9.1."""
import pathlib
import pickle

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError
from mxtorch.test_utils import rand_sparse_ndarray

DATA = pathlib.Path(__file__).parent / "data" / "sparse" / "explicit_parts.params"


def build():
    csr = mx.nd.sparse.csr_matrix(([1.0, 0.0, 3.0], [0, 2, 1], [0, 2, 2, 3]), shape=(3, 4))
    rsp = mx.nd.sparse.row_sparse_array(([[0.0, 0.0], [1.0, 2.0]], [1, 3]), shape=(5, 2))
    return csr, rsp


def test_explicit_zeros_are_kept_as_stored():
    csr, rsp = build()
    assert csr.data.asnumpy().tolist() == [1.0, 0.0, 3.0]          # MXNet keeps the explicit 0
    assert csr.indices.asnumpy().tolist() == [0, 2, 1]
    assert csr.indptr.asnumpy().tolist() == [0, 2, 2, 3]
    assert rsp.indices.asnumpy().tolist() == [1, 3]                  # the all-zero row 1 stays stored
    assert csr._num_aux == 2 and rsp._num_aux == 1
    assert csr._aux_types == [np.int64, np.int64]
    assert csr._aux_data(0).asnumpy().tolist() == [0, 2, 2, 3]
    with pytest.raises(MXNetError):
        csr._aux_data(2)


def test_writing_values_rederives_the_parts():
    csr, rsp = build()
    rsp[:] = mx.nd.array([[0, 0], [0, 0], [0, 0], [5, 6], [0, 0]])
    assert rsp.indices.asnumpy().tolist() == [3]
    assert rsp.data.asnumpy().tolist() == [[5.0, 6.0]]


def test_save_is_byte_identical_to_mxnet_and_load_keeps_storage(tmp_path):
    csr, rsp = build()
    target = tmp_path / "parts.params"
    mx.nd.save(str(target), {"csr": csr, "rsp": rsp})
    assert target.read_bytes() == DATA.read_bytes()
    loaded = mx.nd.load(str(DATA))
    assert loaded["csr"].stype == "csr" and loaded["rsp"].stype == "row_sparse"
    assert loaded["csr"].data.asnumpy().tolist() == [1.0, 0.0, 3.0]
    assert loaded["rsp"].indices.asnumpy().tolist() == [1, 3]


def test_pickle_and_copies_keep_class_and_parts():
    csr, rsp = build()
    for array in (csr, rsp):
        for copy in (pickle.loads(pickle.dumps(array)), array.copy(), array.copyto(mx.cpu(1)),
                     array.astype("float64"), mx.nd.array(array)):
            assert type(copy) is type(array)
            assert copy.indices.asnumpy().tolist() == array.indices.asnumpy().tolist()
    assert csr.astype("float64").data.dtype == np.float64


def test_check_format_reports_what_mxnet_reports():
    csr, rsp = build()
    csr.check_format()
    rsp.check_format()
    bad = [
        mx.nd.sparse.csr_matrix(([7, 8, 9], [0, 2, 1], [0, 5, 2, 3]), shape=(3, 4)),      # indptr past nnz
        mx.nd.sparse.csr_matrix(([7, 8, 9], [2, 1, 1], [0, 2, 2, 3]), shape=(3, 4)),      # unsorted row
        mx.nd.sparse.csr_matrix(([7, 8, 9], [0, 2, 1], [0, -2, 2, 3]), shape=(3, 4)),     # negative
        mx.nd.sparse.row_sparse_array(([[1, 2], [3, 4]], [1, 4]), shape=(3, 2)),         # out of range
        mx.nd.sparse.row_sparse_array(([[1, 2], [3, 4]], [1, 0]), shape=(3, 2)),         # descending
    ]
    for array in bad:
        with pytest.raises(MXNetError, match="check_format"):
            array.check_format()


def test_constructor_dtype_and_shape_rules():
    assert mx.nd.sparse.csr_matrix(np.ones((2, 2))).dtype == np.float64
    assert mx.nd.sparse.csr_matrix(np.ones((2, 2)).tolist()).dtype == np.float32
    assert mx.nd.sparse.csr_matrix((mx.nd.ones(2, dtype="float16"), [0, 1], [0, 1, 2])).dtype == np.float16
    assert mx.nd.sparse.row_sparse_array((11, 41)).shape == (11, 41)
    with pytest.raises(ValueError, match="Shape mismatch"):
        mx.nd.sparse.row_sparse_array((11, 41), (12, 41))
    with pytest.raises(ValueError, match="Shape mismatch"):
        mx.nd.sparse.csr_matrix(mx.nd.ones((2, 2)), shape=(3, 2))
    with pytest.raises(ValueError):
        mx.nd.sparse.csr_matrix((mx.nd.array([]), mx.nd.array([], dtype="int64"), mx.nd.array([0, 0, 0])))
    with pytest.raises(ValueError):
        mx.nd.array([1, 2, 3]).tostype("csr")
    with pytest.raises(ValueError):
        mx.nd.sparse.zeros("invalid_stype", (2, 2))


def test_take_of_csr_rows_is_csr_and_fc_takes_a_column_bias():
    csr, _ = build()
    rows = mx.nd.take(csr, mx.nd.array([2, 0]))
    assert rows.stype == "csr"
    np.testing.assert_array_equal(rows.asnumpy(), csr.asnumpy()[[2, 0]])
    out = mx.nd.FullyConnected(mx.nd.ones((2, 3)), mx.nd.ones((4, 3)), mx.nd.arange(4).reshape((4, 1)), num_hidden=4)
    assert out.asnumpy().tolist() == [[3.0, 4.0, 5.0, 6.0]] * 2      # MXNet 1.9.1's numbers


def test_rand_sparse_ndarray_distributions():
    uniform, _ = rand_sparse_ndarray((4, 6), "csr", density=0.5)
    assert len(uniform.data) == 12                                   # exact count, as scipy.sparse.rand
    power, _ = rand_sparse_ndarray((5, 5), "csr", density=0.5, distribution="powerlaw")
    # MXNet 1.9.1's layout: rows hold 2, 4, 4, 1, 1 non-zeros from column 0
    assert (power.asnumpy() != 0).sum(axis=1).tolist() == [2, 4, 4, 1, 1]
    big, _ = rand_sparse_ndarray((32, 10000), "csr", density=0.01, distribution="powerlaw")
    assert len(big.data) == 3200
    with pytest.raises(ValueError):
        rand_sparse_ndarray((2, 10), "csr", density=1.0, distribution="powerlaw")


def test_lazy_update_touches_every_stored_row():
    """MXNet 1.9.1: SGD(wd=0.5, lazy_update) on a row_sparse gradient that stores an all-zero
    row 1 decays row 1 too (the stored rows, not the non-zero ones)."""
    weight = mx.nd.ones((4, 2))
    grad = mx.nd.sparse.row_sparse_array(([[0.0, 0.0], [1.0, 1.0]], [1, 2]), shape=(4, 2))
    sgd = mx.optimizer.SGD(learning_rate=0.1, wd=0.5, lazy_update=True)
    sgd.update(0, weight, grad, sgd.create_state(0, weight))
    np.testing.assert_allclose(weight.asnumpy(), [[1, 1], [0.95, 0.95], [0.85, 0.85], [1, 1]], rtol=1e-6)
