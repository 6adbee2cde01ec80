"""Operators on csr matrices and graphs stored as csr adjacency matrices: ``contrib.getnnz``,
``contrib.dgl_csr_neighbor_uniform_sample`` / ``dgl_csr_neighbor_non_uniform_sample``, ``contrib.dgl_graph_compact``,
``contrib.edge_id`` and ``contrib.dgl_adjacency`` (MXNet 1.9.1's).

mxtorch holds csr arrays densely (``mx.nd.sparse``); the operators that follow a graph's edges
read its stored entries where the imperative call carries them (``Operator.uses_stored_parts``),
else its non-zero values.
"""
from __future__ import annotations

import numpy as np
import torch

from ..base import MXNetError
from ..schema import IntTuple
from .registry import Attr, Bool, Int, Operator, optional, register

__all__ = []


def _stored_csr(op, graph, position=0):
    """``(indptr, indices, values)`` tensors of the csr input at ``position``: its stored
    entries where the imperative call carries them (explicit zeros included, as MXNet's csr
    kernels read them), else the non-zero entries of the dense-held matrix (a bound graph)."""
    parts = op.input_parts[position] if op.input_parts else None
    if parts is not None:
        indptr, indices, values = parts
        return indptr.to(torch.int64), indices.to(torch.int64), values
    rows, cols = torch.nonzero(graph, as_tuple=True)
    counts = torch.bincount(rows, minlength=graph.shape[0])
    indptr = torch.cat([torch.zeros(1, dtype=torch.int64, device=graph.device), counts.cumsum(0)])
    return indptr, cols, graph[rows, cols]


def _dense_csr(shape, rows, cols, values):
    """The dense-held form of a csr matrix of ``shape`` with ``values`` at ``(rows, cols)``."""
    dense = torch.zeros(shape, dtype=values.dtype, device=values.device)
    dense[rows, cols] = values
    return dense


def _entry_rows(indptr):
    """The row of each stored entry of a csr matrix with row pointer ``indptr``."""
    return torch.repeat_interleave(torch.arange(indptr.numel() - 1, device=indptr.device), indptr.diff())


def _require_csr(op, argument="data"):
    """Imperative calls check the storage type (a bound graph holds dense arrays: not checked)."""
    stypes = op.input_storage
    if stypes is not None and stypes[0] != "csr":
        raise op.error(f"argument {argument!r} must be a csr array (mx.nd.sparse.csr_matrix), got storage type "
                       f"{stypes[0]!r}")


@register("_contrib_getnnz")
class GetNNZ(Operator):
    """The number of stored values of a csr ``data`` (2-D), int64: shape ``(1,)`` with
    ``axis=None`` or per row, shape ``(rows,)``, with ``axis=1``; ``axis=0`` raises MXNetError,
    as in MXNet 1.9.1.  A dense input raises MXNetError (MXNet has no dense form)."""

    axis = Attr(optional(Int), default=None)
    sparse_storage = "dense"

    def validate(self):
        if self.axis is not None and self.axis not in (1, -1):
            raise self.error(f"axis={self.axis} is not supported (MXNet 1.9.1 counts with axis=None or 1)")

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        if data is None:
            return list(in_shapes), list(out_shapes), []
        return [data], [(1,) if self.axis is None else (data[0],)], []

    def infer_type(self, in_types):
        return list(in_types), [np.dtype(np.int64)], []

    def forward(self, is_train, inputs, aux):
        _require_csr(self)
        stored = inputs[0] != 0
        if self.axis is None:
            return [stored.sum().reshape(1).to(torch.int64)]
        return [stored.sum(dim=1).to(torch.int64)]


@register("_contrib_edge_id")
class EdgeId(Operator):
    """For each pair ``(u[i], v[i])`` the value stored at row ``u[i]``, column ``v[i]`` of the csr
    adjacency matrix ``data`` (the id of that edge), or -1 when there is no such edge (MXNet's
    ``contrib.edge_id``).  ``u`` and ``v`` are 1-D of one length; the output has their shape
    and ``data``'s dtype."""

    sparse_storage = "dense"

    def arguments(self):
        return ["data", "u", "v"]

    def infer_shape(self, in_shapes, out_shapes):
        data, u, v = in_shapes
        pair = u if u is not None else v
        return [data, pair, pair], [pair], []

    def infer_type(self, in_types):
        return list(in_types), [in_types[0]], []

    def forward(self, is_train, inputs, aux):
        _require_csr(self)
        data, u, v = inputs
        rows, cols = u.reshape(-1).to(torch.int64), v.reshape(-1).to(torch.int64)
        if rows.numel() != cols.numel():
            raise self.error(f"'u' and 'v' must have one length, got {rows.numel()} and {cols.numel()}")
        inside = (rows >= 0) & (rows < data.shape[0]) & (cols >= 0) & (cols < data.shape[1])
        values = data[rows.clamp(0, data.shape[0] - 1), cols.clamp(0, data.shape[1] - 1)]
        found = inside & (values != 0)
        return [torch.where(found, values, torch.full_like(values, -1)).reshape(u.shape)]


@register("_contrib_dgl_adjacency")
class DGLAdjacency(Operator):
    """The adjacency matrix of a graph given as a csr matrix of edge ids: a csr float32 matrix
    with 1 at every stored entry (MXNet's ``contrib.dgl_adjacency``)."""

    sparse_storage = "preserve"
    uses_stored_parts = True

    def infer_type(self, in_types):
        return list(in_types), [np.dtype(np.float32)], []

    def forward(self, is_train, inputs, aux):
        _require_csr(self)
        indptr, indices, _ = _stored_csr(self, inputs[0])
        ones = torch.ones(indices.numel(), dtype=torch.float32, device=inputs[0].device)
        self.output_parts = [(indptr, indices, ones)]
        return [_dense_csr(tuple(inputs[0].shape), _entry_rows(indptr), indices, ones)]


@register("_contrib_dgl_subgraph")
class DGLSubgraph(Operator):
    """Induced subgraphs of a csr adjacency matrix ``graph`` (MXNet's ``contrib.dgl_subgraph``):
    for each of the ``num_args - 1`` sorted int64 vertex lists ``v``, the csr matrix
    ``graph[v][:, v]`` with its edges renumbered 0, 1, ... in row-major order, and, with
    ``return_mapping``, after all of them the same subgraphs holding the original edge ids.
    An unsorted vertex list raises MXNetError, as in MXNet.  The stored entries of ``graph``
    are its edges (an explicitly stored 0, edge id 0, included); the results store every edge of
    the subgraph, so edge number 0 is stored although its dense view reads 0, as in MXNet."""

    variadic = True
    num_args = Attr(Int, required=True)
    return_mapping = Attr(Bool, required=True)

    sparse_from_dense = True
    uses_stored_parts = True

    def sparse_storage(self, stypes):
        _require_csr(self, "graph")
        return ["csr"] * self.num_visible_outputs()

    def validate(self):
        if self.num_args < 2:
            raise self.error(f"num_args counts the graph and at least one vertex list, got {self.num_args}")

    def arguments(self):
        return ["graph"] + [f"data{i}" for i in range(self.num_args - 1)]

    def outputs(self):
        count = self.num_args - 1
        names = [f"subgraph{i}" for i in range(count)]
        return names + ([f"mapping{i}" for i in range(count)] if self.return_mapping else [])

    def infer_shape(self, in_shapes, out_shapes):
        sizes = [None if s is None else (s[0], s[0]) for s in in_shapes[1:]]
        return list(in_shapes), sizes * (2 if self.return_mapping else 1), []

    def infer_type(self, in_types):
        return list(in_types), [in_types[0]] * self.num_outputs(), []

    def forward(self, is_train, inputs, aux):
        _require_csr(self, "graph")
        graph = inputs[0]
        indptr, indices, values = _stored_csr(self, graph)
        entry_rows = _entry_rows(indptr)
        renumbered, original, renumbered_parts, original_parts = [], [], [], []
        for vertices in inputs[1:]:
            ids = vertices.reshape(-1).to(torch.int64)
            if ids.numel() > 1 and bool((ids[1:] < ids[:-1]).any()):
                raise self.error(f"the vertex list must be sorted, got {ids.tolist()}")
            # the new number of each vertex (-1: not in the subgraph); ids are sorted, so the
            # kept entries stay in row-major order
            position = torch.full((graph.shape[0],), -1, dtype=torch.int64, device=graph.device)
            position[ids] = torch.arange(ids.numel(), device=graph.device)
            keep = (position[entry_rows] >= 0) & (position[indices] >= 0)
            rows, cols, kept = position[entry_rows[keep]], position[indices[keep]], values[keep]
            sub_indptr = torch.cat([torch.zeros(1, dtype=torch.int64, device=graph.device),
                                    torch.bincount(rows, minlength=ids.numel()).cumsum(0)])
            numbers = torch.arange(kept.numel(), device=graph.device).to(graph.dtype)
            shape = (ids.numel(), ids.numel())
            renumbered.append(_dense_csr(shape, rows, cols, numbers))
            original.append(_dense_csr(shape, rows, cols, kept))
            renumbered_parts.append((sub_indptr, cols, numbers))
            original_parts.append((sub_indptr, cols, kept.clone()))
        self.output_parts = renumbered_parts + (original_parts if self.return_mapping else [])
        return renumbered + (original if self.return_mapping else [])


# -- neighbour sampling (DGL) --------------------------------------------------------------------------
def _uniform_pick(count, wanted):
    """Positions (sorted) of ``wanted`` of ``count`` neighbours drawn uniformly without
    replacement; every position when ``count <= wanted`` (MXNet's ``GetUniformSample``)."""
    if count <= wanted:
        return list(range(count))
    return sorted(torch.randperm(count)[:wanted].tolist())


def _weighted_pick(weights, wanted):
    """Positions of ``wanted`` neighbours drawn without replacement with probability
    proportional to ``weights``; every position when there are no more than ``wanted``."""
    if len(weights) <= wanted:
        return list(range(len(weights)))
    return torch.multinomial(torch.tensor(weights, dtype=torch.float64), wanted, replacement=False).tolist()


def _sample_neighbourhood(stored, columns_count, seeds, hops, neighbours, max_vertices, probability=None):
    """MXNet's ``SampleSubgraph`` on the graph of ``stored`` edges (``(indptr, indices,
    edge ids)`` lists): a breadth-first walk from ``seeds`` sampling at most ``neighbours``
    neighbours of each vertex met before hop ``hops``, stopping at ``max_vertices`` vertices.
    Returns ``(vertex ids + count, csr of the sampled edges, layer of each vertex, vertices,
    stored parts of that csr)`` as lists (the csr as a dense table ``max_vertices x columns``)."""
    indptr, indices, values = stored
    layer_of, order = {}, []
    for seed in seeds:
        if seed not in layer_of:
            layer_of[seed] = 0
            order.append(seed)
    if len(order) > max_vertices:
        raise MXNetError(f"dgl_csr_neighbor_sample: {len(seeds)} seed vertices exceed max_num_vertices="
                         f"{max_vertices}")
    sampled = {}
    position = 0
    while position < len(order) and len(layer_of) < max_vertices:
        vertex = order[position]
        position += 1
        level = layer_of[vertex]
        if level >= hops:
            continue
        begin, end = indptr[vertex], indptr[vertex + 1]
        columns, edges = indices[begin:end], values[begin:end]
        if probability is None:
            picks = _uniform_pick(end - begin, neighbours)
            chosen = [(columns[p], edges[p]) for p in picks]
        else:
            picks = _weighted_pick([probability[c] for c in columns], neighbours)
            # MXNet sorts the sampled vertices and the sampled edge ids each on their own
            chosen = list(zip(sorted(columns[p] for p in picks), sorted(edges[p] for p in picks)))
        sampled[vertex] = chosen
        for column, _ in chosen:
            if len(layer_of) >= max_vertices:
                break
            if column not in layer_of:
                layer_of[column] = level + 1
                order.append(column)
    vertices = sorted(layer_of)
    table = [[0] * columns_count for _ in range(max_vertices)]
    row_pointer, stored_columns, stored_edges = [0], [], []
    for row in range(max_vertices):
        for column, edge in (sampled.get(vertices[row], ()) if row < len(vertices) else ()):
            table[row][column] = edge
            stored_columns.append(column)
            stored_edges.append(edge)
        row_pointer.append(len(stored_columns))
    ids = vertices + [0] * (max_vertices - len(vertices)) + [len(vertices)]
    layers = [layer_of[v] for v in vertices] + [0] * (max_vertices - len(vertices))
    return ids, table, layers, vertices, (row_pointer, stored_columns, stored_edges)


class _NeighborSample(Operator):
    """Shared by the two DGL neighbour samplers: ``num_args`` inputs, ``num_hops``,
    ``num_neighbor``, ``max_num_vertices``; per seed array, outputs grouped by kind."""

    variadic = True
    num_args = Attr(Int, required=True)
    num_hops = Attr(Int, default=1)
    num_neighbor = Attr(Int, default=2)
    max_num_vertices = Attr(Int, default=100)
    sparse_from_dense = True
    uses_stored_parts = True
    leading = 1          # inputs before the seed arrays
    kinds = ()           # the storage type of each output group

    def validate(self):
        if self.num_args < self.leading + 1:
            raise self.error(f"num_args counts the graph{', the probability' if self.leading > 1 else ''} and "
                             f"at least one seed array, got {self.num_args}")

    def _count(self):
        return self.num_args - self.leading

    def sparse_storage(self, stypes):
        _require_csr(self, "csr_matrix")
        return [kind for kind in self.kinds for _ in range(self._count())]

    def outputs(self):
        return [f"output{i}" for i in range(len(self.kinds) * self._count())]

    def infer_shape(self, in_shapes, out_shapes):
        graph = in_shapes[0]
        if graph is not None and (len(graph) != 2 or graph[0] != graph[1]):
            raise self.error(f"csr_matrix must be a square 2-D matrix, got shape {tuple(graph)}")
        for shape in in_shapes[self.leading:]:
            if shape is not None and len(shape) != 1:
                raise self.error(f"seed arrays must be 1-D, got shape {tuple(shape)}")
        count, size = self._count(), self.max_num_vertices
        shapes = {"ids": (size + 1,), "csr": None if graph is None else (size, graph[1]), "vector": (size,)}
        return list(in_shapes), [shapes[kind] for kind in self.output_kinds() for _ in range(count)], []

    def infer_type(self, in_types):
        seed_type = in_types[self.leading] if len(in_types) > self.leading else None
        types = {"ids": seed_type, "csr": in_types[0], "vector": seed_type,
                 "probability": in_types[1] if self.leading > 1 else None}
        return list(in_types), [types[kind] for kind in self.type_kinds() for _ in range(self._count())], []

    def _run(self, inputs, probability):
        """The output groups; sets ``output_parts`` (the sampled edges stored, edge id 0 too)."""
        graph = inputs[0]
        stored = [part.tolist() for part in _stored_csr(self, graph)]
        ids_out, csr_out, prob_out, layer_out, parts = [], [], [], [], []
        for seeds in inputs[self.leading:]:
            ids, table, layers, vertices, csr_parts = _sample_neighbourhood(
                stored, graph.shape[1], seeds.reshape(-1).to(torch.int64).tolist(), self.num_hops,
                self.num_neighbor, self.max_num_vertices, probability)
            ids_out.append(torch.tensor(ids, dtype=seeds.dtype, device=seeds.device))
            csr_out.append(torch.tensor(table, dtype=graph.dtype, device=graph.device))
            parts.append((torch.tensor(csr_parts[0], dtype=torch.int64, device=graph.device),
                          torch.tensor(csr_parts[1], dtype=torch.int64, device=graph.device),
                          torch.tensor(csr_parts[2], dtype=graph.dtype, device=graph.device)))
            layer_out.append(torch.tensor(layers, dtype=seeds.dtype, device=seeds.device))
            if probability is not None:
                values = [probability[v] for v in vertices] + [0.0] * (self.max_num_vertices - len(vertices))
                prob_out.append(torch.tensor(values, dtype=inputs[1].dtype, device=inputs[1].device))
        # outputs are grouped by kind and the csr group comes second
        self.output_parts = [None] * len(ids_out) + parts
        return ids_out, csr_out, prob_out, layer_out


@register("_contrib_dgl_csr_neighbor_uniform_sample")
class DGLNeighborUniformSample(_NeighborSample):
    """Samples subgraphs of the csr graph ``csr_matrix`` around each int64 seed array (MXNet's
    ``contrib.dgl_csr_neighbor_uniform_sample``): breadth first from the seeds, up to
    ``num_hops`` hops, at most ``num_neighbor`` neighbours per vertex drawn uniformly, at most
    ``max_num_vertices`` vertices.  Outputs, one of each per seed array, grouped: the sorted
    vertex ids padded to ``max_num_vertices`` with the vertex count last; the csr
    ``max_num_vertices x N`` matrix of the sampled edges (row ``i`` for vertex ``ids[i]``, the
    edge ids as values); the hop at which each vertex was reached."""

    kinds = ("default", "csr", "default")

    def output_kinds(self):
        return ("ids", "csr", "vector")

    type_kinds = output_kinds

    def arguments(self):
        return ["csr_matrix"] + [f"seed_arrays{i}" for i in range(self._count())]

    def forward(self, is_train, inputs, aux):
        _require_csr(self, "csr_matrix")
        ids, csr, _, layers = self._run(inputs, None)
        return ids + csr + layers


@register("_contrib_dgl_csr_neighbor_non_uniform_sample")
class DGLNeighborNonUniformSample(_NeighborSample):
    """As ``dgl_csr_neighbor_uniform_sample`` with the neighbours drawn with the probabilities
    ``probability`` (float32, one per vertex) (MXNet's
    ``contrib.dgl_csr_neighbor_non_uniform_sample``); an extra output group, before the layers,
    gives each sampled vertex's probability.  As in MXNet, the sampled neighbours and their edge
    ids are sorted each on their own."""

    leading = 2
    kinds = ("default", "csr", "default", "default")

    def output_kinds(self):
        return ("ids", "csr", "vector", "vector")

    def type_kinds(self):
        return ("ids", "csr", "probability", "vector")

    def arguments(self):
        return ["csr_matrix", "probability"] + [f"seed_arrays{i}" for i in range(self._count())]

    def forward(self, is_train, inputs, aux):
        _require_csr(self, "csr_matrix")
        ids, csr, prob, layers = self._run(inputs, inputs[1].reshape(-1).tolist())
        return ids + csr + prob + layers


@register("_contrib_dgl_graph_compact")
class DGLGraphCompact(Operator):
    """Compacts the csr matrices made by the DGL samplers (MXNet's ``contrib.dgl_graph_compact``):
    for each graph ``i`` of the ``num_args / 2`` given (followed by their vertex-id arrays), the
    ``graph_sizes[i] x graph_sizes[i]`` csr matrix of its first rows with each column renumbered
    to the position of its vertex in the vertex-id array and the edges numbered 0, 1, ... in
    row-major order.  With ``return_mapping`` a second csr matrix of that shape follows per
    graph, which MXNet 1.9.1 allocates and never fills: it holds no entries.  Edge number 0 is
    stored, although its dense view reads 0, as in MXNet."""

    variadic = True
    num_args = Attr(Int, required=True)
    return_mapping = Attr(Bool, required=True)
    graph_sizes = Attr(IntTuple, required=True)
    sparse_from_dense = True
    uses_stored_parts = True

    def validate(self):
        if self.num_args < 2 or self.num_args % 2:
            raise self.error(f"num_args counts the graphs and their vertex arrays (an even number >= 2), "
                             f"got {self.num_args}")
        if len(self.graph_sizes) != self.num_args // 2:
            raise self.error(f"graph_sizes needs one size per graph ({self.num_args // 2}), got {self.graph_sizes}")

    def arguments(self):
        count = self.num_args // 2
        return [f"graph{i}" for i in range(count)] + [f"varray{i}" for i in range(count)]

    def outputs(self):
        count = self.num_args // 2
        return [f"output{i}" for i in range(count * (2 if self.return_mapping else 1))]

    def sparse_storage(self, stypes):
        _require_csr(self, "graph_data")
        return ["csr"] * self.num_outputs()

    def infer_shape(self, in_shapes, out_shapes):
        shapes = [(size, size) for size in self.graph_sizes]
        return list(in_shapes), shapes * (2 if self.return_mapping else 1), []

    def infer_type(self, in_types):
        return list(in_types), [np.dtype(np.int64)] * self.num_outputs(), []

    def forward(self, is_train, inputs, aux):
        _require_csr(self, "graph_data")
        count = self.num_args // 2
        compact, mapping, compact_parts, mapping_parts = [], [], [], []
        for index, (graph, vertices, size) in enumerate(zip(inputs[:count], inputs[count:], self.graph_sizes)):
            ids = vertices.reshape(-1).to(torch.int64)
            if int(ids[-1]) != size:
                raise self.error(f"graph_sizes gives {size} vertices, the vertex array's last value says {int(ids[-1])}")
            position = torch.full((max(graph.shape[1], 1),), -1, dtype=torch.int64, device=graph.device)
            position[ids[:size]] = torch.arange(size, device=graph.device)
            indptr, indices, _ = _stored_csr(self, graph, index)
            indptr = indptr[:size + 1]
            columns = position[indices[:int(indptr[-1])]]
            if bool((columns < 0).any()):
                missing = int(indices[int(torch.nonzero(columns < 0)[0])])
                raise self.error(f"column {missing} of graph {index} is not among the vertex ids")
            numbers = torch.arange(columns.numel(), dtype=torch.int64, device=graph.device)
            compact.append(_dense_csr((size, size), _entry_rows(indptr), columns, numbers))
            compact_parts.append((indptr, columns, numbers))
            mapping.append(torch.zeros_like(compact[-1]))
            empty = torch.zeros(0, dtype=torch.int64, device=graph.device)
            mapping_parts.append((torch.zeros(size + 1, dtype=torch.int64, device=graph.device), empty, empty))
        self.output_parts = compact_parts + (mapping_parts if self.return_mapping else [])
        return compact + (mapping if self.return_mapping else [])
