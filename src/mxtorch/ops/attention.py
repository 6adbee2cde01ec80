"""Multi-head attention products of MXNet's ``contrib`` namespace (``transformer.cc``):
``interleaved_matmul_selfatt_qk`` / ``_valatt`` and ``interleaved_matmul_encdec_qk`` / ``_valatt``.

Sequences are time-major, ``(seq_length, batch, features)``.  The projections are interleaved
per head: self-attention's ``queries_keys_values`` last axis is ``heads x (q, k, v) x head_dim``,
encoder-decoder's ``keys_values`` is ``heads x (k, v) x head_dim``.  Attention scores are
``(batch * heads, query_length, key_length)`` with batch-major rows (row ``b * heads + h``),
and the query-key products are scaled by ``1 / sqrt(head_dim)``.  Gradients are autograd's
(the products are linear in each input).
"""
from __future__ import annotations

import math

import torch

from .registry import Attr, Int, Operator, register

__all__ = []


def _heads_view(op, tensor, parts):
    """``(seq, batch, heads * parts * head_dim)`` as ``(batch * heads, parts, seq, head_dim)``.

    A last axis that is not a multiple of ``heads * parts`` is read as MXNet 1.9.1 reads it:
    ``head_dim = features // (heads * parts)`` and the buffer's first ``seq * batch * heads *
    parts * head_dim`` values laid out with those strides (its kernels compute the strides from
    ``head_dim``, not from the axis)."""
    seq, batch, features = tensor.shape
    head_dim = features // (op.heads * parts)
    if head_dim == 0:
        raise op.error(f"the last axis ({features}) must be at least heads * {parts} = {op.heads * parts}")
    if features % (op.heads * parts):
        tensor = tensor.reshape(-1)[:seq * batch * op.heads * parts * head_dim]
    split = tensor.reshape(seq, batch * op.heads, parts, head_dim)
    return split.permute(1, 2, 0, 3), head_dim


def _merge_heads(op, values, seq, batch):
    """``(batch * heads, seq, head_dim)`` as ``(seq, batch, heads * head_dim)``."""
    head_dim = values.shape[-1]
    return values.permute(1, 0, 2).reshape(seq, batch, op.heads * head_dim)


class _Interleaved(Operator):
    heads = Attr(Int, required=True)

    def validate(self):
        if self.heads < 1:
            raise self.error(f"heads must be positive, got {self.heads}")

    def _check_3d(self, names, shapes):
        for name, shape in zip(names, shapes):
            if shape is not None and len(shape) != 3:
                raise self.error(f"{name} must be 3-D (seq_length, batch, features), got shape {tuple(shape)}")


@register("_contrib_interleaved_matmul_selfatt_qk")
class InterleavedSelfAttQK(_Interleaved):
    """Self-attention scores: ``queries_keys_values`` ``(seq, batch, heads * 3 * head_dim)`` to
    ``(batch * heads, seq, seq)`` = ``q @ k.T / sqrt(head_dim)`` per batch and head."""

    def arguments(self):
        return ["queries_keys_values"]

    def infer_shape(self, in_shapes, out_shapes):
        qkv, = in_shapes
        self._check_3d(["queries_keys_values"], [qkv])
        out = out_shapes[0]
        if qkv is not None:
            out = (qkv[1] * self.heads, qkv[0], qkv[0])
        return [qkv], [out], []

    def forward(self, is_train, inputs, aux):
        parts, head_dim = _heads_view(self, inputs[0], 3)
        queries, keys = parts[:, 0], parts[:, 1]
        return [torch.bmm(queries / math.sqrt(head_dim), keys.transpose(1, 2))]


@register("_contrib_interleaved_matmul_selfatt_valatt")
class InterleavedSelfAttValAtt(_Interleaved):
    """Attention-weighted values: ``attention`` ``(batch * heads, seq, seq)`` times the values of
    ``queries_keys_values`` ``(seq, batch, heads * 3 * head_dim)``, giving
    ``(seq, batch, heads * head_dim)``."""

    def arguments(self):
        return ["queries_keys_values", "attention"]

    def infer_shape(self, in_shapes, out_shapes):
        qkv, att = in_shapes
        self._check_3d(["queries_keys_values", "attention"], [qkv, att])
        out = out_shapes[0]
        if qkv is not None:
            if qkv[2] % 3:
                raise self.error(f"queries_keys_values.shape[2] must be a multiple of 3, got {qkv[2]}")
            if att is not None and (att[1] != qkv[0] or att[2] != qkv[0]):
                raise self.error(f"attention {tuple(att)} must be (batch * heads, {qkv[0]}, {qkv[0]}) for "
                                 f"queries_keys_values {tuple(qkv)}")
            out = (qkv[0], qkv[1], qkv[2] // 3)
        return [qkv, att], [out], []

    def forward(self, is_train, inputs, aux):
        qkv, attention = inputs
        parts, _ = _heads_view(self, qkv, 3)
        values = torch.bmm(attention.to(qkv.dtype), parts[:, 2])
        return [_merge_heads(self, values, qkv.shape[0], qkv.shape[1])]


@register("_contrib_interleaved_matmul_encdec_qk")
class InterleavedEncDecQK(_Interleaved):
    """Encoder-decoder attention scores: ``queries`` ``(q_len, batch, heads * head_dim)`` and
    ``keys_values`` ``(kv_len, batch, heads * 2 * head_dim)`` to ``(batch * heads, q_len, kv_len)``
    = ``q @ k.T / sqrt(head_dim)``."""

    def arguments(self):
        return ["queries", "keys_values"]

    def infer_shape(self, in_shapes, out_shapes):
        queries, kv = in_shapes
        self._check_3d(["queries", "keys_values"], [queries, kv])
        out = out_shapes[0]
        if queries is not None and kv is not None:
            if queries[2] * 2 != kv[2] or queries[1] != kv[1]:
                raise self.error(f"keys_values {tuple(kv)} must be (kv_len, {queries[1]}, {queries[2] * 2}) for "
                                 f"queries {tuple(queries)}")
            out = (queries[1] * self.heads, queries[0], kv[0])
        return [queries, kv], [out], []

    def forward(self, is_train, inputs, aux):
        queries, kv = inputs
        parts, head_dim = _heads_view(self, queries, 1)
        kv_parts, _ = _heads_view(self, kv, 2)
        return [torch.bmm(parts[:, 0] / math.sqrt(head_dim), kv_parts[:, 0].transpose(1, 2))]


@register("_contrib_interleaved_matmul_encdec_valatt")
class InterleavedEncDecValAtt(_Interleaved):
    """Attention-weighted values: ``attention`` ``(batch * heads, q_len, kv_len)`` times the values
    of ``keys_values`` ``(kv_len, batch, heads * 2 * head_dim)``, giving
    ``(q_len, batch, heads * head_dim)``."""

    def arguments(self):
        return ["keys_values", "attention"]

    def infer_shape(self, in_shapes, out_shapes):
        kv, att = in_shapes
        self._check_3d(["keys_values", "attention"], [kv, att])
        out = out_shapes[0]
        if kv is not None and att is not None:
            if att[2] != kv[0] or att[0] != kv[1] * self.heads:
                raise self.error(f"attention {tuple(att)} must be ({kv[1] * self.heads}, q_len, {kv[0]}) for "
                                 f"keys_values {tuple(kv)} and heads={self.heads}")
            out = (att[1], kv[1], kv[2] // 2)
        return [kv, att], [out], []

    def forward(self, is_train, inputs, aux):
        kv, attention = inputs
        kv_parts, _ = _heads_view(self, kv, 2)
        values = torch.bmm(attention.to(kv.dtype), kv_parts[:, 1])
        return [_merge_heads(self, values, attention.shape[1], kv.shape[1])]
