"""Record MXNet 1.9.1's DGL graph operators for tests/test_dgl_ops.py.

Run with the reference MXNet interpreter (not part of the test suite):

    ~/mxref/bin/python tools/gen_dgl_reference.py [OUTPUT_FOLDER]   # default tests/data/dgl

Writes reference.json: ``dgl_csr_neighbor_uniform_sample`` / ``_non_uniform_sample`` on a 6-vertex
graph in the cases where every neighbour is taken (no randomness: ``num_neighbor`` at least the
degree), each output as a dense list, and ``dgl_graph_compact`` of the sampled graphs; and
stored_edges.json: ``dgl_adjacency`` and ``dgl_subgraph`` of the same graph with edge ids from 0
(edge 0 is an explicitly stored zero, kept through ``astype``), their stored parts and dense views.
"""
import json
import sys
from pathlib import Path

import numpy as np

INDPTR = [0, 2, 5, 6, 8, 9, 10]
INDICES = [1, 3, 0, 2, 4, 5, 1, 4, 3, 2]
EDGES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
PROBABILITY = [0.5, 0.25, 0.75, 1.0, 0.125, 0.5]
CASES = [([0], 1, 3, 6), ([0], 2, 3, 6), ([0, 5], 2, 4, 5), ([1], 1, 3, 3), ([3, 3, 4], 3, 3, 6)]


def main(folder):
    import mxnet as mx
    graph = mx.nd.sparse.csr_matrix((np.array(EDGES, dtype=np.int64), np.array(INDICES, dtype=np.int64),
                                     np.array(INDPTR, dtype=np.int64)), shape=(6, 6))
    prob = mx.nd.array(PROBABILITY, dtype=np.float32)
    record = []
    for seeds, hops, neighbours, limit in CASES:
        seed = mx.nd.array(seeds, dtype=np.int64)
        uniform = mx.nd.contrib.dgl_csr_neighbor_uniform_sample(graph, seed, num_args=2, num_hops=hops,
                                                                num_neighbor=neighbours, max_num_vertices=limit)
        weighted = mx.nd.contrib.dgl_csr_neighbor_non_uniform_sample(graph, prob, seed, num_args=3, num_hops=hops,
                                                                     num_neighbor=neighbours, max_num_vertices=limit)
        count = int(uniform[0][-1].asscalar())
        ids = uniform[0].asnumpy()[:count]
        # compacting needs every sampled edge to end at a sampled vertex (MXNet aborts otherwise)
        closed = set(uniform[1].indices.asnumpy().tolist()) <= set(ids.tolist())
        compact = mx.nd.contrib.dgl_graph_compact(uniform[1], uniform[0], graph_sizes=(count,),
                                                  return_mapping=True) if closed else None
        record.append({
            "case": [seeds, hops, neighbours, limit], "count": count,
            # the padding past the vertex count is memory MXNet leaves as it was: not recorded
            "ids": uniform[0].asnumpy()[:count].tolist(), "csr": uniform[1].asnumpy().tolist(),
            "layers": uniform[2].asnumpy()[:count].tolist(),
            "weighted": [weighted[0].asnumpy()[:count].tolist(), weighted[1].asnumpy().tolist(),
                         weighted[2].asnumpy()[:count].tolist(), weighted[3].asnumpy()[:count].tolist()],
            "compact": None if compact is None else [
                compact[0].asnumpy().tolist(), compact[0].indices.asnumpy().tolist(),
                compact[0].indptr.asnumpy().tolist(), compact[1].asnumpy().tolist()],
        })
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "reference.json").write_text(json.dumps(record, indent=1) + "\n")
    (folder / "stored_edges.json").write_text(json.dumps(stored_edges(mx), indent=1) + "\n")


def _csr_record(array):
    return {"indptr": array.indptr.asnumpy().tolist(), "indices": array.indices.asnumpy().tolist(),
            "data": array.data.asnumpy().tolist(), "dense": array.asnumpy().tolist(), "dtype": str(array.dtype)}


def stored_edges(mx):
    edges = np.arange(len(INDICES), dtype=np.float32)        # edge 0 is stored with the value 0
    graph = mx.nd.sparse.csr_matrix((edges, np.array(INDICES, dtype=np.int64), np.array(INDPTR, dtype=np.int64)),
                                    shape=(6, 6)).astype(np.int64)
    vertices = mx.nd.array([0, 1, 3, 4], dtype=np.int64)
    subgraph, mapping = mx.nd.contrib.dgl_subgraph(graph, vertices, return_mapping=True)
    sampled = mx.nd.contrib.dgl_csr_neighbor_uniform_sample(graph, mx.nd.array([0], dtype=np.int64), num_args=2,
                                                            num_hops=1, num_neighbor=3, max_num_vertices=6)
    return {"graph": _csr_record(graph), "adjacency": _csr_record(mx.nd.contrib.dgl_adjacency(graph)),
            "sampled_from_0": _csr_record(sampled[1]),
            "vertices": vertices.asnumpy().tolist(), "subgraph": _csr_record(subgraph),
            "mapping": _csr_record(mapping)}


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "tests/data/dgl")
