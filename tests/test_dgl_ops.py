"""The DGL graph operators (ops/graph.py): the neighbour samplers and ``dgl_graph_compact``,
against MXNet 1.9.1's results (tests/data/dgl/reference.json, tools/gen_dgl_reference.py) in
the cases where every neighbour is taken, and their invariants where the draw is random."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from gen_dgl_reference import EDGES, INDICES, INDPTR, PROBABILITY  # noqa: E402

REFERENCE = json.loads((Path(__file__).parent / "data/dgl/reference.json").read_text())


def _graph():
    return mx.nd.sparse.csr_matrix((np.array(EDGES, dtype=np.int64), np.array(INDICES, dtype=np.int64),
                                    np.array(INDPTR, dtype=np.int64)), shape=(6, 6))


@pytest.mark.parametrize("record", REFERENCE, ids=[str(r["case"]) for r in REFERENCE])
def test_samplers_match_mxnet_when_every_neighbour_is_taken(record):
    seeds, hops, neighbours, limit = record["case"]
    seed = mx.nd.array(seeds, dtype=np.int64)
    ids, csr, layers = mx.nd.contrib.dgl_csr_neighbor_uniform_sample(
        _graph(), seed, num_args=2, num_hops=hops, num_neighbor=neighbours, max_num_vertices=limit)
    count = record["count"]
    assert ids.shape == (limit + 1,) and csr.shape == (limit, 6) and layers.shape == (limit,)
    assert csr.stype == "csr" and ids.dtype == np.int64 and int(ids[-1].asscalar()) == count
    np.testing.assert_array_equal(ids.asnumpy()[:count], record["ids"])
    np.testing.assert_array_equal(csr.asnumpy(), record["csr"])
    np.testing.assert_array_equal(layers.asnumpy()[:count], record["layers"])
    weighted = mx.nd.contrib.dgl_csr_neighbor_non_uniform_sample(
        _graph(), mx.nd.array(PROBABILITY), seed, num_args=3, num_hops=hops, num_neighbor=neighbours,
        max_num_vertices=limit)
    assert len(weighted) == 4 and weighted[1].stype == "csr" and weighted[2].dtype == np.float32
    for got, want in zip(weighted, record["weighted"]):
        np.testing.assert_allclose(got.asnumpy()[:len(want)], want)
    if record["compact"] is not None:
        compact, mapping = mx.nd.contrib.dgl_graph_compact(csr, ids, graph_sizes=(count,), return_mapping=True)
        assert compact.shape == (count, count) and compact.stype == "csr" and compact.dtype == np.int64
        np.testing.assert_array_equal(compact.asnumpy(), record["compact"][0])
        np.testing.assert_array_equal(mapping.asnumpy(), record["compact"][3])


def test_random_draws_keep_the_samplers_invariants():
    mx.random.seed(3)
    graph = _graph()
    seed = mx.nd.array([1, 4], dtype=np.int64)
    for _ in range(5):
        ids, csr, layers = mx.nd.contrib.dgl_csr_neighbor_uniform_sample(
            graph, seed, num_args=2, num_hops=2, num_neighbor=1, max_num_vertices=6)
        count = int(ids[-1].asscalar())
        vertices = ids.asnumpy()[:count]
        assert list(vertices) == sorted(set(vertices)) and {1, 4} <= set(vertices)
        table, dense = csr.asnumpy(), graph.asnumpy()
        for row, vertex in enumerate(vertices):
            picked = np.nonzero(table[row])[0]
            assert len(picked) <= 1 and all(dense[vertex, c] == table[row, c] for c in picked)
        assert not table[count:].any() and (layers.asnumpy()[:count] <= 2).all()


def test_bad_arguments_raise():
    seed = mx.nd.array([0], dtype=np.int64)
    with pytest.raises(MXNetError, match="csr"):
        mx.nd.contrib.dgl_csr_neighbor_uniform_sample(mx.nd.ones((3, 3)), seed, num_args=2)
    with pytest.raises(MXNetError, match="square"):
        mx.nd.contrib.dgl_csr_neighbor_uniform_sample(mx.nd.ones((3, 4)).tostype("csr"), seed, num_args=2)
    with pytest.raises(MXNetError, match="graph_sizes"):
        mx.nd.contrib.dgl_graph_compact(_graph(), seed, graph_sizes=(1, 2), return_mapping=False)


STORED = json.loads((Path(__file__).parent / "data/dgl/stored_edges.json").read_text())


def _assert_csr(array, record):
    assert array.stype == "csr"
    np.testing.assert_array_equal(array.indptr.asnumpy(), record["indptr"])
    np.testing.assert_array_equal(array.indices.asnumpy(), record["indices"])
    np.testing.assert_array_equal(array.data.asnumpy(), record["data"])
    np.testing.assert_array_equal(array.asnumpy(), record["dense"])


def test_graph_operators_follow_stored_edges_like_mxnet():
    # edge id 0 is stored explicitly (a stored zero): MXNet's adjacency and subgraph keep it
    graph_record = STORED["graph"]
    graph = mx.nd.sparse.csr_matrix((np.array(graph_record["data"], dtype=np.float32),
                                     np.array(graph_record["indices"]), np.array(graph_record["indptr"])),
                                    shape=(6, 6)).astype(np.int64)
    _assert_csr(graph, graph_record)
    adjacency = mx.nd.contrib.dgl_adjacency(graph)
    assert adjacency.dtype == np.float32
    _assert_csr(adjacency, STORED["adjacency"])
    subgraph, mapping = mx.nd.contrib.dgl_subgraph(graph, mx.nd.array(STORED["vertices"], dtype=np.int64),
                                                   return_mapping=True)
    _assert_csr(subgraph, STORED["subgraph"])
    _assert_csr(mapping, STORED["mapping"])
    # every neighbour of vertex 0 taken: edge 0 is sampled and stored
    sampled = mx.nd.contrib.dgl_csr_neighbor_uniform_sample(graph, mx.nd.array([0], dtype=np.int64), num_args=2,
                                                            num_hops=1, num_neighbor=3, max_num_vertices=6)
    _assert_csr(sampled[1], STORED["sampled_from_0"])
    # a graph without explicit parts (its non-zeros are its edges) gives the same structure
    # less the zero edge
    dense_graph = mx.nd.sparse.csr_matrix(graph.asnumpy())
    assert mx.nd.contrib.dgl_adjacency(dense_graph).indices.shape == (len(graph_record["indices"]) - 1,)


def test_attributes_given_as_numpy_arrays_read_as_their_values():
    # MXNet passed str(value) for attributes: graph_sizes=out[0][-1].asnumpy() (an array of 1)
    graph = mx.nd.sparse.csr_matrix((np.array([1, 2, 3], dtype=np.int64), np.array([1, 0, 1]),
                                     np.array([0, 1, 3, 3])), shape=(3, 3))
    ids = mx.nd.array([0, 1, 2, 2], dtype=np.int64)
    compact = mx.nd.contrib.dgl_graph_compact(graph, ids, graph_sizes=np.array([2]), return_mapping=False)
    assert compact.shape == (2, 2)
    # MXNet 1.9.1: the edges numbered in row-major order, number 0 stored
    np.testing.assert_array_equal(compact.asnumpy(), [[0, 0], [1, 2]])
    np.testing.assert_array_equal(compact.data.asnumpy(), [0, 1, 2])
    np.testing.assert_array_equal(compact.indices.asnumpy(), [1, 0, 1])
    with pytest.raises(MXNetError, match="must be an NDArray"):
        mx.nd.contrib.dgl_adjacency(data=graph.asnumpy())
