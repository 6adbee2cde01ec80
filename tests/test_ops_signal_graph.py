"""contrib.fft / ifft / count_sketch (GPU-only in MXNet 1.9.1; checked against numpy.fft and a
direct sum), the backward_* gradient nodes (against autograd of their forward operators), and
the csr graph operators getnnz / edge_id / dgl_adjacency (values printed by MXNet 1.9.1)."""
import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError

SIGNAL = np.array([[0, 1, 2, 3], [4, -5, 6, 7.5]], dtype=np.float32)


def test_fft_interleaves_real_and_imaginary_parts():
    out = mx.nd.contrib.fft(mx.nd.array(SIGNAL)).asnumpy()
    spectrum = np.fft.fft(SIGNAL.astype(np.float64), axis=-1)
    assert out.shape == (2, 8)
    np.testing.assert_allclose(out[:, 0::2], spectrum.real, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out[:, 1::2], spectrum.imag, rtol=1e-5, atol=1e-5)
    # ifft is not normalised (MXNet's cuFFT inverse): ifft(fft(x)) == d * x
    np.testing.assert_allclose(mx.nd.contrib.ifft(mx.nd.array(out)).asnumpy(), 4 * SIGNAL, rtol=1e-5, atol=1e-4)
    assert mx.sym.contrib.fft(mx.sym.var("x")).infer_shape(x=(3, 5))[1] == [(3, 10)]
    with pytest.raises(MXNetError, match="2-D or 4-D"):
        mx.nd.contrib.fft(mx.nd.ones((4,)))


def test_fft_gradient_is_unnormalised_inverse_real_part():
    x = mx.nd.array(SIGNAL)
    x.attach_grad()
    head = np.random.RandomState(0).randn(2, 8).astype(np.float32)
    with mx.autograd.record():
        y = mx.nd.contrib.fft(x)
    y.backward(mx.nd.array(head))
    complex_head = head[:, 0::2] + 1j * head[:, 1::2]
    expected = (4 * np.fft.ifft(complex_head, axis=-1)).real
    np.testing.assert_allclose(x.grad.asnumpy(), expected, rtol=1e-4, atol=1e-4)


def test_count_sketch():
    data = mx.nd.array(SIGNAL)
    out = mx.nd.contrib.count_sketch(data, mx.nd.array([[0, 1, 0, 2]]), mx.nd.array([[1, -1, 1, 1]]), out_dim=3)
    expected = np.stack([SIGNAL[:, 0] + SIGNAL[:, 2], -SIGNAL[:, 1], SIGNAL[:, 3]], axis=1)
    np.testing.assert_allclose(out.asnumpy(), expected)
    with pytest.raises(MXNetError, match="outside"):
        mx.nd.contrib.count_sketch(data, mx.nd.array([[0, 1, 0, 3]]), mx.nd.array([[1, 1, 1, 1]]), out_dim=3)


def test_backward_nodes_match_autograd_of_the_forward():
    x, head = mx.nd.array([[1.0, 2], [3, 4]]), mx.nd.array([[1.0, 1], [1, 2]])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.quadratic(x, a=1.0, b=2.0, c=3.0)
    y.backward(head)
    np.testing.assert_allclose(mx.nd.contrib.backward_quadratic(head, x, a=1.0, b=2.0).asnumpy(), x.grad.asnumpy())
    # MXNet 1.9.1: backward_gradientmultiplier(head, scalar=3) == 3 * head
    np.testing.assert_allclose(mx.nd.contrib.backward_gradientmultiplier(head, scalar=3.0).asnumpy(),
                               [[3, 3], [3, 6]])
    old, new, index = mx.nd.array([[1.0, 2], [3, 4]]), mx.nd.array([[5.0, 6]]), mx.nd.array([1])
    old.attach_grad()
    new.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.index_copy(old, index, new)
    y.backward(head)
    old_grad, index_grad, new_grad = mx.nd.contrib.backward_index_copy(head, old, index, new)
    np.testing.assert_allclose(old_grad.asnumpy(), old.grad.asnumpy())
    np.testing.assert_allclose(new_grad.asnumpy(), new.grad.asnumpy())
    assert index_grad.asnumpy().tolist() == [0]


def test_graph_operators_on_csr():
    csr = mx.nd.array([[0, 1, 0], [2, 0, 3]]).tostype("csr")
    counts = mx.nd.contrib.getnnz(csr)
    assert counts.dtype == np.int64 and counts.asnumpy().tolist() == [3]
    assert mx.nd.contrib.getnnz(csr, axis=1).asnumpy().tolist() == [1, 2]
    with pytest.raises(MXNetError, match="csr"):
        mx.nd.contrib.getnnz(mx.nd.ones((2, 2)))
    with pytest.raises(MXNetError, match="axis=0"):
        mx.nd.contrib.getnnz(csr, axis=0)
    graph = mx.nd.array([[0, 1, 2], [3, 0, 4], [0, 5, 0]]).tostype("csr")
    ids = mx.nd.contrib.edge_id(graph, mx.nd.array([0, 1, 2, 0]), mx.nd.array([1, 0, 1, 0]))
    assert ids.asnumpy().tolist() == [1, 3, 5, -1]          # MXNet 1.9.1
    adjacency = mx.nd.contrib.dgl_adjacency(graph)
    assert adjacency.stype == "csr" and adjacency.dtype == np.float32
    np.testing.assert_array_equal(adjacency.asnumpy(), [[0, 1, 1], [1, 0, 1], [0, 1, 0]])


def test_dgl_subgraph():
    graph = mx.nd.sparse.csr_matrix((np.arange(1, 11, dtype=np.int64), np.array([1, 2, 3, 4, 0, 2, 3, 4, 0, 1]),
                                     np.array([0, 2, 4, 6, 8, 10])), shape=(5, 5), dtype=np.int64)
    outputs = mx.nd.contrib.dgl_subgraph(graph, mx.nd.array([0, 1, 2], dtype=np.int64),
                                         mx.nd.array([3, 4], dtype=np.int64), return_mapping=True, num_args=3)
    # MXNet 1.9.1: the renumbered subgraphs, then the ones with the original edge ids
    assert [o.stype for o in outputs] == ["csr"] * 4
    assert [o.asnumpy().tolist() for o in outputs] == [
        [[0, 0, 1], [0, 0, 0], [2, 0, 3]], [[0, 1], [0, 0]], [[0, 1, 2], [0, 0, 0], [5, 0, 6]], [[7, 8], [0, 0]]]
    with pytest.raises(MXNetError, match="sorted"):
        mx.nd.contrib.dgl_subgraph(graph, mx.nd.array([4, 0], dtype=np.int64), return_mapping=False)
