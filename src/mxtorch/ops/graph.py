"""Operators on csr matrices and graphs stored as csr adjacency matrices: ``contrib.getnnz``,
``contrib.edge_id`` and ``contrib.dgl_adjacency`` (MXNet 1.9.1's).

mxtorch holds csr arrays densely (``mx.nd.sparse``): a stored entry is a non-zero value.
"""
from __future__ import annotations

import numpy as np
import torch

from .registry import Attr, Bool, Int, Operator, optional, register

__all__ = []


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

    def infer_type(self, in_types):
        return list(in_types), [np.dtype(np.float32)], []

    def forward(self, is_train, inputs, aux):
        _require_csr(self)
        return [(inputs[0] != 0).to(torch.float32)]


@register("_contrib_dgl_subgraph")
class DGLSubgraph(Operator):
    """Induced subgraphs of a csr adjacency matrix ``graph`` (MXNet's ``contrib.dgl_subgraph``):
    for each of the ``num_args - 1`` sorted int64 vertex lists ``v``, the csr matrix
    ``graph[v][:, v]`` with its edges renumbered 0, 1, ... in row-major order, and, with
    ``return_mapping``, after all of them the same subgraphs holding the original edge ids.
    An unsorted vertex list raises MXNetError, as in MXNet.  (mxtorch holds csr arrays densely,
    so the edge numbered 0 reads as 0 in the dense view, as MXNet's ``asnumpy`` showed it, and
    is not listed among the stored values.)"""

    variadic = True
    num_args = Attr(Int, required=True)
    return_mapping = Attr(Bool, required=True)

    sparse_from_dense = True

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
        renumbered, original = [], []
        for vertices in inputs[1:]:
            ids = vertices.reshape(-1).to(torch.int64)
            if ids.numel() > 1 and bool((ids[1:] < ids[:-1]).any()):
                raise self.error(f"the vertex list must be sorted, got {ids.tolist()}")
            sub = graph.index_select(0, ids).index_select(1, ids)
            stored = sub != 0
            numbers = (torch.cumsum(stored.reshape(-1), 0) - 1).reshape(sub.shape)
            renumbered.append(torch.where(stored, numbers.to(sub.dtype), torch.zeros_like(sub)))
            original.append(sub.clone())
        return renumbered + (original if self.return_mapping else [])
