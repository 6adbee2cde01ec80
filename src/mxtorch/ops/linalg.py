"""Matrix products and linear algebra: dot, batch_dot, khatri_rao and the ``linalg_*``
operators (JSON names ``_linalg_gemm``, ``_linalg_gemm2``, ``_linalg_potrf``, ...).

The ``linalg`` operators work on the last two axes (``axis`` moves the row axis
for gemm/gemm2) and broadcast over the leading ones.  Triangular operands
(``trsm``, ``trmm``, ``potri``, ``sumlogdiag``) only read the triangle named by
``lower``; scalar results (``det``, ``sumlogdiag`` of one matrix) have shape
``(1,)`` as in MXNet 1.x.  Singular or non-positive-definite inputs raise
MXNetError naming the operator.
"""
from __future__ import annotations

import torch

from ..base import MXNetError
from .registry import Attr, Operator, register, Int, Float, Bool, Choice, optional, merge_shape, product, uniform_dtype
from .helpers import infer_output_from_pair, normalize_axis, shape_text

__all__ = []


def _scalar_shape(shape):
    return tuple(shape) if shape else (1,)


def _dot_parts(lhs, rhs, transpose_a, transpose_b):
    """(contracted lhs size, contracted rhs size, output shape) of MXNet's N-D dot."""
    if transpose_a:
        lhs_k, lhs_rest = lhs[0], tuple(lhs[1:])
    else:
        lhs_k, lhs_rest = lhs[-1], tuple(lhs[:-1])
    if transpose_b:
        rhs_k, rhs_rest = rhs[-1], tuple(rhs[:-1])
    else:
        rhs_k, rhs_rest = rhs[0], tuple(rhs[1:])
    return lhs_k, rhs_k, _scalar_shape(lhs_rest + rhs_rest)


class _Product(Operator):
    """A product of ``lhs`` and ``rhs``, either one transposed first (``transpose_a`` /
    ``transpose_b``)."""

    traceable = True

    transpose_a = Attr(Bool, default=False)
    transpose_b = Attr(Bool, default=False)
    forward_stype = Attr(optional(Choice("csr", "default", "row_sparse")), default=None)

    def arguments(self):
        return ["lhs", "rhs"]

    def check_dtypes(self, inputs):
        uniform_dtype(self, self.arguments(), [tensor.dtype for tensor in inputs])


@register("dot", "_sparse_dot")
class Dot(_Product):
    """MXNet's dot: the last axis of ``lhs`` (the first with ``transpose_a``) is contracted
    with the first axis of ``rhs`` (the last with ``transpose_b``); output shape
    ``lhs.shape[:-1] + rhs.shape[1:]`` (1-D . 1-D gives ``(1,)``).  MXNetError naming both
    shapes when the contracted sizes differ.  The result's storage type is ``forward_stype``
    when given, else MXNet's: ``dot(dense, csr)`` is csr, ``dot(csr.T, dense or row_sparse)``
    (``transpose_a``) is row_sparse, everything else dense."""

    @property
    def sparse_from_dense(self):
        return self.forward_stype is not None

    def sparse_storage(self, stypes):
        if self.forward_stype is not None:
            return [self.forward_stype]
        lhs, rhs = stypes
        if lhs == "default" and rhs == "csr" and not self.transpose_a and not self.transpose_b:
            return ["csr"]
        if lhs == "csr" and rhs in ("default", "row_sparse") and self.transpose_a and not self.transpose_b:
            return ["row_sparse"]
        return ["default"]

    def gradient_storage_types(self, input_stypes):
        """MXNet's ``_backward_dot`` storage rule (DotBackwardInferStorageType): ``dot(csr,
        rhs)`` without transposes gives ``rhs`` a row_sparse gradient (``dot(csr.T, head)``);
        every other gradient is dense."""
        lhs, rhs = input_stypes
        if lhs == "csr" and not self.transpose_a and not self.transpose_b:
            return ["default", "row_sparse"]
        return ["default", "default"]

    def _check(self, lhs, rhs):
        if not lhs or not rhs:
            raise self.error(f"arguments 'lhs' {tuple(lhs)} and 'rhs' {tuple(rhs)} need at least one axis")
        lhs_k, rhs_k, out = _dot_parts(lhs, rhs, self.transpose_a, self.transpose_b)
        if lhs_k and rhs_k and lhs_k != rhs_k:
            raise self.error(f"contracted axes differ: 'lhs' {tuple(lhs)} gives {lhs_k}, 'rhs' {tuple(rhs)} "
                             f"gives {rhs_k} (transpose_a={self.transpose_a}, transpose_b={self.transpose_b})")
        return out

    def infer_shape(self, in_shapes, out_shapes):
        return infer_output_from_pair(self, in_shapes, out_shapes, self._check)

    def forward(self, is_train, inputs, aux):
        lhs, rhs = inputs
        out = self._check(tuple(lhs.shape), tuple(rhs.shape))
        self.check_dtypes(inputs)
        if self.transpose_a:
            left = lhs.reshape(lhs.shape[0], -1).t()
        else:
            left = lhs.reshape(-1, lhs.shape[-1])
        if self.transpose_b:
            right = rhs.reshape(-1, rhs.shape[-1]).t()
        else:
            right = rhs.reshape(rhs.shape[0], -1)
        return [torch.matmul(left, right).reshape(out)]


def _matrix_shape(op, shape, transpose, argument):
    if len(shape) < 2:
        raise op.error(f"argument {argument!r} must have at least 2 axes, got {tuple(shape)}")
    rows, cols = shape[-2], shape[-1]
    return (cols, rows) if transpose else (rows, cols)


@register("batch_dot")
class BatchDot(_Product):
    """Batched matrix product of ``lhs`` ``(..., M, K)`` and ``rhs`` ``(..., K, N)`` (either
    transposed on its last two axes with ``transpose_a`` / ``transpose_b``); the leading
    axes must agree.  Output ``(..., M, N)``."""


    def _out(self, lhs, rhs):
        if len(lhs) < 3 or len(rhs) < 3:
            raise self.error(f"inputs must have at least 3 axes (a batch of matrices), got 'lhs' {tuple(lhs)} "
                             f"and 'rhs' {tuple(rhs)}; use dot for plain matrices")
        m, k1 = _matrix_shape(self, lhs, self.transpose_a, "lhs")
        k2, n = _matrix_shape(self, rhs, self.transpose_b, "rhs")
        if len(lhs) != len(rhs):
            raise self.error(f"arguments 'lhs' {tuple(lhs)} and 'rhs' {tuple(rhs)} must have the same "
                             f"number of axes")
        batch = []
        for a, b in zip(lhs[:-2], rhs[:-2]):
            if a and b and a != b:
                raise self.error(f"batch axes differ: 'lhs' {tuple(lhs)} vs 'rhs' {tuple(rhs)}")
            batch.append(a or b)
        if k1 and k2 and k1 != k2:
            raise self.error(f"contracted axes differ: 'lhs' {tuple(lhs)} gives {k1}, 'rhs' {tuple(rhs)} "
                             f"gives {k2} (transpose_a={self.transpose_a}, transpose_b={self.transpose_b})")
        return tuple(batch) + (m, n)

    def infer_shape(self, in_shapes, out_shapes):
        lhs, rhs = in_shapes
        out = out_shapes[0]
        if lhs is not None and rhs is not None:
            shape = self._out(lhs, rhs)
            contracted = (lhs[-2] if self.transpose_a else lhs[-1], rhs[-1] if self.transpose_b else rhs[-2])
            # as in MXNet, nothing is inferred for the output while a contracted axis is unknown
            if all(contracted):
                out = merge_shape(out, shape, f"Operator {self.name} output")
        return [lhs, rhs], [out], []

    def forward(self, is_train, inputs, aux):
        lhs, rhs = inputs
        self._out(tuple(lhs.shape), tuple(rhs.shape))
        self.check_dtypes(inputs)
        left = lhs.transpose(-1, -2) if self.transpose_a else lhs
        right = rhs.transpose(-1, -2) if self.transpose_b else rhs
        return [torch.matmul(left, right)]


@register("khatri_rao")
class KhatriRao(Operator):
    """Column-wise Kronecker product of ``num_args`` matrices ``(n_i, k)``: output
    ``(prod n_i, k)``, the first matrix varying slowest."""

    variadic = True
    num_args = Attr(Int, required=True)

    def infer_shape(self, in_shapes, out_shapes):
        out = out_shapes[0]
        if all(s is not None for s in in_shapes):
            for index, shape in enumerate(in_shapes):
                if len(shape) != 2:
                    raise self.error(f"input {index} must be a matrix, got {tuple(shape)}")
            columns = {s[1] for s in in_shapes if s[1]}
            if len(columns) > 1:
                raise self.error(f"all inputs must have the same number of columns, got "
                                 f"{[tuple(s) for s in in_shapes]}")
            rows = product(s[0] for s in in_shapes) if all(s[0] for s in in_shapes) else 0
            out = merge_shape(out, (rows, columns.pop() if columns else 0), f"Operator {self.name} output")
        return list(in_shapes), [out], []

    def forward(self, is_train, inputs, aux):
        result = inputs[0]
        for matrix in inputs[1:]:
            result = (result.unsqueeze(1) * matrix.unsqueeze(0)).reshape(-1, matrix.shape[1])
        return [result]


class _Linalg(Operator):
    """Base of the linalg operators: the arguments are named ``A``, ``B``, ``C``."""

    def arguments(self):
        return ["A"]

    def square(self, shape, argument="A"):
        if len(shape) < 2:
            raise self.error(f"argument {argument!r} must have at least 2 axes, got {tuple(shape)}")
        if shape[-1] and shape[-2] and shape[-1] != shape[-2]:
            raise self.error(f"argument {argument!r} must hold square matrices, got {tuple(shape)}")


def _move_rows(tensor, axis):
    """Put the matrix row axis ``axis`` at position -2 (columns stay last)."""
    return tensor if axis in (-2, tensor.dim() - 2) else tensor.movedim(axis, -2)


class _Gemm(_Linalg):
    transpose_a = Attr(Bool, default=False)
    transpose_b = Attr(Bool, default=False)
    alpha = Attr(Float, default=1.0)
    axis = Attr(Int, default=-2)

    def _rows_last(self, shape, argument):
        """The shape with the row axis moved next to the column axis."""
        if len(shape) < 2:
            raise self.error(f"argument {argument!r} must have at least 2 axes, got {tuple(shape)}")
        axis = normalize_axis(self, self.axis, len(shape))
        if axis == len(shape) - 1:
            raise self.error(f"argument 'axis'={self.axis} must not be the last (column) axis")
        rest = [d for i, d in enumerate(shape[:-1]) if i != axis]
        return tuple(rest) + (shape[axis], shape[-1])

    def _product_shape(self, a, b):
        a2 = self._rows_last(a, "A")
        b2 = self._rows_last(b, "B")
        m, k1 = (a2[-1], a2[-2]) if self.transpose_a else (a2[-2], a2[-1])
        k2, n = (b2[-1], b2[-2]) if self.transpose_b else (b2[-2], b2[-1])
        if len(a) != len(b) or any(x and y and x != y for x, y in zip(a2[:-2], b2[:-2])):
            raise self.error(f"arguments 'A' {tuple(a)} and 'B' {tuple(b)} must agree on all axes except "
                             f"the row and column axes")
        if k1 and k2 and k1 != k2:
            raise self.error(f"contracted sizes differ: 'A' {tuple(a)} gives {k1}, 'B' {tuple(b)} gives {k2} "
                             f"(transpose_a={self.transpose_a}, transpose_b={self.transpose_b})")
        batch = tuple(x or y for x, y in zip(a2[:-2], b2[:-2]))
        axis = normalize_axis(self, self.axis, len(a))
        shape = list(batch) + [n]
        shape.insert(axis, m)
        return tuple(shape)

    def _product(self, a, b):
        a = _move_rows(a, self.axis)
        b = _move_rows(b, self.axis)
        if self.transpose_a:
            a = a.transpose(-1, -2)
        if self.transpose_b:
            b = b.transpose(-1, -2)
        result = torch.matmul(a, b)
        if self.alpha != 1.0:
            result = result * self.alpha
        return result

    def _restore(self, result):
        return result if self.axis in (-2, result.dim() - 2) else result.movedim(-2, self.axis)


@register("_linalg_gemm", "linalg_gemm")
class LinalgGemm(_Gemm):
    """``alpha * op(A) @ op(B) + beta * C`` on the last two axes (rows on ``axis``, default
    -2); ``op`` transposes when ``transpose_a`` / ``transpose_b``."""

    beta = Attr(Float, default=1.0)

    def arguments(self):
        return ["A", "B", "C"]

    def infer_shape(self, in_shapes, out_shapes):
        a, b, c = in_shapes
        out = merge_shape(c, out_shapes[0], f"Operator {self.name} argument 'C'")
        if a is not None and b is not None:
            product_shape = self._product_shape(a, b)
            try:
                out = merge_shape(out, product_shape, "")
            except MXNetError:
                raise self.error(f"argument 'C' {shape_text(c)} does not match the shape of op(A) @ op(B) "
                                 f"{product_shape} ('A' {tuple(a)}, 'B' {tuple(b)})") from None
        return [a, b, out], [out], []

    def forward(self, is_train, inputs, aux):
        a, b, c = inputs
        self._product_shape(tuple(a.shape), tuple(b.shape))
        result = self._restore(self._product(a, b))
        return [result + self.beta * c if self.beta != 1.0 else result + c]


@register("_linalg_gemm2", "linalg_gemm2")
class LinalgGemm2(_Gemm):
    """``alpha * op(A) @ op(B)`` on the last two axes (rows on ``axis``, default -2)."""

    def arguments(self):
        return ["A", "B"]

    def infer_shape(self, in_shapes, out_shapes):
        a, b = in_shapes
        out = out_shapes[0]
        if a is not None and b is not None:
            out = merge_shape(out, self._product_shape(a, b), f"Operator {self.name} output")
        return [a, b], [out], []

    def forward(self, is_train, inputs, aux):
        a, b = inputs
        self._product_shape(tuple(a.shape), tuple(b.shape))
        return [self._restore(self._product(a, b))]


def _triangle(matrix, lower):
    return torch.tril(matrix) if lower else torch.triu(matrix)


def _symmetric_from_lower(matrix):
    return torch.tril(matrix) + torch.tril(matrix, -1).transpose(-1, -2)


@register("_linalg_potrf", "linalg_potrf")
class LinalgPotrf(_Linalg):
    """Cholesky factor ``L`` (lower triangular) of symmetric positive-definite ``A``
    (``A = L @ L.T``).  The symmetric part ``(A + A.T) / 2`` is factorised, so the gradient
    is symmetric as in MXNet (for a symmetric ``A`` this is MXNet's result).  MXNetError if
    ``A`` is not positive definite.  ``lower=False`` gives the upper factor ``U = L.T``
    (``A = U.T @ U``), as MXNet 1.9.1."""

    lower = Attr(Bool, default=True)

    def infer_shape(self, in_shapes, out_shapes):
        a = merge_shape(in_shapes[0], out_shapes[0], f"Operator {self.name} argument 'A'")
        if a is not None:
            self.square(a)
        return [a], [a], []

    def forward(self, is_train, inputs, aux):
        a = inputs[0]
        factor, info = torch.linalg.cholesky_ex(0.5 * (a + a.transpose(-1, -2)))
        if bool((info != 0).any()):
            raise self.error("argument 'A' is not symmetric positive definite (Cholesky factorisation failed)")
        return [factor if self.lower else factor.transpose(-1, -2)]


@register("_linalg_potri", "linalg_potri")
class LinalgPotri(_Linalg):
    """``inverse(L @ L.T)`` from a Cholesky factor ``A = L`` (lower triangle read); with
    ``lower=False`` ``A = U`` is an upper factor and the result ``inverse(U.T @ U)`` (upper
    triangle read), as MXNet 1.9.1."""

    lower = Attr(Bool, default=True)
    infer_shape = LinalgPotrf.infer_shape

    def forward(self, is_train, inputs, aux):
        if self.lower:
            return [torch.cholesky_inverse(torch.tril(inputs[0]))]
        return [torch.cholesky_inverse(torch.triu(inputs[0]), upper=True)]


class _Triangular(_Linalg):
    transpose = Attr(Bool, default=False)
    rightside = Attr(Bool, default=False)
    lower = Attr(Bool, default=True)
    alpha = Attr(Float, default=1.0)

    def arguments(self):
        return ["A", "B"]

    def infer_shape(self, in_shapes, out_shapes):
        a, b = in_shapes
        out = merge_shape(b, out_shapes[0], f"Operator {self.name} argument 'B'")
        if a is not None:
            self.square(a)
        if a is not None and out is not None:
            if len(a) != len(out):
                raise self.error(f"arguments 'A' {tuple(a)} and 'B' {tuple(out)} must have the same number "
                                 f"of axes")
            side = out[-1] if self.rightside else out[-2]
            if a[-1] and side and a[-1] != side:
                raise self.error(f"argument 'A' {tuple(a)} does not fit 'B' {tuple(out)} "
                                 f"(rightside={self.rightside})")
        return [a, out], [out], []

    def _operand(self, a):
        triangle = _triangle(a, self.lower)
        return triangle.transpose(-1, -2) if self.transpose else triangle


@register("_linalg_trsm", "linalg_trsm")
class LinalgTrsm(_Triangular):
    """Solve ``op(A) @ X = alpha * B`` (``X @ op(A) = alpha * B`` with ``rightside``) for X, with
    ``A`` triangular (lower unless ``lower=False``; only that triangle is read)."""

    def forward(self, is_train, inputs, aux):
        a, b = inputs
        operand = self._operand(a)
        upper = self.lower == self.transpose
        solution = torch.linalg.solve_triangular(operand, b * self.alpha if self.alpha != 1.0 else b,
                                                 upper=upper, left=not self.rightside)
        return [solution]


@register("_linalg_trmm", "linalg_trmm")
class LinalgTrmm(_Triangular):
    """``alpha * op(A) @ B`` (``alpha * B @ op(A)`` with ``rightside``), ``A`` triangular
    (only the triangle named by ``lower`` is read)."""

    def forward(self, is_train, inputs, aux):
        a, b = inputs
        operand = self._operand(a)
        result = torch.matmul(b, operand) if self.rightside else torch.matmul(operand, b)
        return [result * self.alpha if self.alpha != 1.0 else result]


@register("_linalg_syrk", "linalg_syrk")
class LinalgSyrk(_Linalg):
    """``alpha * A @ A.T`` (``alpha * A.T @ A`` with ``transpose``)."""

    transpose = Attr(Bool, default=False)
    alpha = Attr(Float, default=1.0)

    def infer_shape(self, in_shapes, out_shapes):
        a = in_shapes[0]
        out = out_shapes[0]
        if a is not None:
            if len(a) < 2:
                raise self.error(f"argument 'A' must have at least 2 axes, got {tuple(a)}")
            size = a[-1] if self.transpose else a[-2]
            out = merge_shape(out, tuple(a[:-2]) + (size, size), f"Operator {self.name} output")
        return [a], [out], []

    def forward(self, is_train, inputs, aux):
        a = inputs[0]
        result = torch.matmul(a.transpose(-1, -2), a) if self.transpose else torch.matmul(a, a.transpose(-1, -2))
        return [result * self.alpha if self.alpha != 1.0 else result]


class _MatrixToScalar(_Linalg):
    def infer_shape(self, in_shapes, out_shapes):
        a = in_shapes[0]
        out = out_shapes[0]
        if a is not None:
            self.square(a)
            out = merge_shape(out, _scalar_shape(tuple(a[:-2])), f"Operator {self.name} output")
        return [a], [out] * self.num_outputs(), []

    def reshape(self, value, a):
        return value.reshape(_scalar_shape(tuple(a.shape[:-2])))


@register("_linalg_sumlogdiag", "linalg_sumlogdiag")
class LinalgSumlogdiag(_MatrixToScalar):
    """Sum of the natural logarithms of the diagonal of square ``A`` (per matrix)."""

    def forward(self, is_train, inputs, aux):
        a = inputs[0]
        return [self.reshape(torch.log(torch.diagonal(a, dim1=-2, dim2=-1)).sum(-1), a)]


@register("_linalg_det", "linalg_det")
class LinalgDet(_MatrixToScalar):
    """Determinant of square ``A`` (per matrix)."""

    def forward(self, is_train, inputs, aux):
        a = inputs[0]
        return [self.reshape(torch.linalg.det(a), a)]


@register("_linalg_slogdet", "linalg_slogdet")
class LinalgSlogdet(_MatrixToScalar):
    """Sign and natural logarithm of the absolute determinant of square ``A``: outputs
    ``output0`` (sign) and ``output1`` (log |det|)."""

    def outputs(self):
        return ["output0", "output1"]

    def forward(self, is_train, inputs, aux):
        a = inputs[0]
        sign, logabsdet = torch.linalg.slogdet(a)
        return [self.reshape(sign.detach(), a), self.reshape(logabsdet, a)]


@register("_linalg_inverse", "linalg_inverse")
class LinalgInverse(_Linalg):
    """Inverse of square ``A``; MXNetError if a matrix is singular."""

    infer_shape = LinalgPotrf.infer_shape

    def forward(self, is_train, inputs, aux):
        inverse, info = torch.linalg.inv_ex(inputs[0])
        if bool((info != 0).any()):
            raise self.error("argument 'A' is singular and cannot be inverted")
        return [inverse]


class _DiagonalOperator(_Linalg):
    """The diagonal operators: ``offset`` (positive: above the main diagonal) and an output
    shape that follows from the input's (``diagonal_shape``: None while it is unknown)."""

    offset = Attr(Int, default=0)

    def infer_shape(self, in_shapes, out_shapes):
        a, out = in_shapes[0], out_shapes[0]
        shape = None if a is None else self.diagonal_shape(a)
        if shape is not None:
            out = merge_shape(out, shape, f"Operator {self.name} output")
        return [a], [out], []


@register("_linalg_extractdiag", "linalg_extractdiag")
class LinalgExtractdiag(_DiagonalOperator):
    """Diagonal ``offset`` (positive: above the main one) of each matrix in ``A``."""

    def diagonal_shape(self, a):
        if len(a) < 2 or not a[-1] or not a[-2]:
            return None
        rows, cols = a[-2], a[-1]
        size = min(rows, cols - self.offset) if self.offset >= 0 else min(rows + self.offset, cols)
        if size <= 0:
            raise self.error(f"argument 'offset'={self.offset} is outside matrices of shape {tuple(a)}")
        return tuple(a[:-2]) + (size,)

    def forward(self, is_train, inputs, aux):
        return [torch.diagonal(inputs[0], offset=self.offset, dim1=-2, dim2=-1)]


@register("_linalg_makediag", "linalg_makediag")
class LinalgMakediag(_DiagonalOperator):
    """Square matrices with the last axis of ``A`` on diagonal ``offset``, zeros elsewhere."""

    def diagonal_shape(self, a):
        if not a[-1]:
            return None
        size = a[-1] + abs(self.offset)
        return tuple(a[:-1]) + (size, size)

    def forward(self, is_train, inputs, aux):
        return [torch.diag_embed(inputs[0], offset=self.offset, dim1=-2, dim2=-1)]


def _triangle_positions(size, offset, lower, device):
    """(rows, columns) of the packed triangle in MXNet's order: row-major for the lower
    triangle; the upper triangle is packed as the lower triangle of the transpose."""
    if offset < 0 or (offset == 0 and lower):
        rows, cols = torch.tril_indices(size, size, offset, device=device)
        return rows, cols
    cols, rows = torch.tril_indices(size, size, -offset, device=device)
    return rows, cols


@register("_linalg_extracttrian", "linalg_extracttrian")
class LinalgExtracttrian(_Linalg):
    """The triangle of square ``A`` (lower, or upper with ``lower=False``; a non-zero
    ``offset`` picks the side by its sign) packed into the last axis."""

    offset = Attr(Int, default=0)
    lower = Attr(Bool, default=True)

    def infer_shape(self, in_shapes, out_shapes):
        a = in_shapes[0]
        out = out_shapes[0]
        if a is not None and a[-1]:
            self.square(a)
            n = a[-1] - abs(self.offset)
            if n <= 0:
                raise self.error(f"argument 'offset'={self.offset} is outside matrices of shape {tuple(a)}")
            out = merge_shape(out, tuple(a[:-2]) + (n * (n + 1) // 2,), f"Operator {self.name} output")
        return [a], [out], []

    def forward(self, is_train, inputs, aux):
        a = inputs[0]
        rows, cols = _triangle_positions(a.shape[-1], self.offset, self.lower, a.device)
        return [a[..., rows, cols]]


@register("_linalg_maketrian", "linalg_maketrian")
class LinalgMaketrian(_Linalg):
    """The inverse of extracttrian: square matrices whose triangle holds the last axis of
    ``A`` (length ``n (n + 1) / 2``), zeros elsewhere."""

    offset = Attr(Int, default=0)
    lower = Attr(Bool, default=True)

    def _size(self, packed):
        n = int(round(((8 * packed + 1) ** 0.5 - 1) / 2))
        if n * (n + 1) // 2 != packed:
            raise self.error(f"the last axis of argument 'A' ({packed}) is not a triangular number")
        return n + abs(self.offset)

    def infer_shape(self, in_shapes, out_shapes):
        a = in_shapes[0]
        out = out_shapes[0]
        if a is not None and a[-1]:
            size = self._size(a[-1])
            out = merge_shape(out, tuple(a[:-1]) + (size, size), f"Operator {self.name} output")
        return [a], [out], []

    def forward(self, is_train, inputs, aux):
        a = inputs[0]
        size = self._size(a.shape[-1])
        rows, cols = _triangle_positions(size, self.offset, self.lower, a.device)
        out = a.new_zeros(tuple(a.shape[:-1]) + (size, size))
        out[..., rows, cols] = a
        return [out]


@register("_linalg_gelqf", "linalg_gelqf")
class LinalgGelqf(_Linalg):
    """LQ factorisation ``A = L @ Q`` of ``A`` ``(..., m, n)`` with ``m <= n``: outputs ``Q``
    ``(..., m, n)`` with orthonormal rows and lower-triangular ``L`` ``(..., m, m)``."""

    def outputs(self):
        return ["output0", "output1"]

    def infer_shape(self, in_shapes, out_shapes):
        a = in_shapes[0]
        outs = list(out_shapes)
        if a is not None and a[-1] and a[-2]:
            if a[-2] > a[-1]:
                raise self.error(f"argument 'A' {tuple(a)} must have no more rows than columns")
            outs = [merge_shape(outs[0], tuple(a), f"Operator {self.name} output 0"),
                    merge_shape(outs[1], tuple(a[:-1]) + (a[-2],), f"Operator {self.name} output 1")]
        return [a], outs, []

    def forward(self, is_train, inputs, aux):
        q, r = torch.linalg.qr(inputs[0].transpose(-1, -2))
        return [q.transpose(-1, -2), r.transpose(-1, -2)]


@register("_linalg_syevd", "linalg_syevd")
class LinalgSyevd(_Linalg):
    """Eigen-decomposition of symmetric ``A`` (lower triangle read): outputs ``U``
    (eigenvectors as rows, ``A = U.T @ diag(lambda) @ U``; each row's largest-magnitude entry
    is made positive, as MXNet does) and ``lambda`` (ascending)."""

    def outputs(self):
        return ["output0", "output1"]

    def infer_shape(self, in_shapes, out_shapes):
        a = in_shapes[0]
        outs = list(out_shapes)
        if a is not None and a[-1]:
            self.square(a)
            outs = [merge_shape(outs[0], tuple(a), f"Operator {self.name} output 0"),
                    merge_shape(outs[1], tuple(a[:-1]), f"Operator {self.name} output 1")]
        return [a], outs, []

    def forward(self, is_train, inputs, aux):
        values, vectors = torch.linalg.eigh(_symmetric_from_lower(inputs[0]))
        rows = vectors.transpose(-1, -2)
        largest = rows.abs().argmax(dim=-1, keepdim=True)
        sign = torch.sign(rows.gather(-1, largest))
        sign = torch.where(sign == 0, torch.ones_like(sign), sign)
        return [rows * sign, values]

    def backward(self, out_grads, inputs, outputs, aux):
        """MXNet 1.9.1's gradient, a symmetric matrix (the derivative of the lower-triangle
        read is not): ``dA = U.T @ Y @ U`` with ``X = dU @ U.T``, ``Y`` diagonal ``dlambda``
        and ``Y[i, j] = Y[j, i] = (X[i, j] - X[j, i]) / (2 (lambda[i] - lambda[j]))`` for
        ``i > j``, the difference raised to at least 1e-30 (float32) or 1e-100 (float64)."""
        grad_rows, grad_values = out_grads
        rows, values = outputs
        mixed = grad_rows @ rows.transpose(-1, -2)
        eps = 1e-100 if values.dtype == torch.float64 else 1e-30
        gap = (values.unsqueeze(-1) - values.unsqueeze(-2)).clamp_min(eps) * 2
        lower = torch.tril((mixed - mixed.transpose(-1, -2)) / gap, -1)
        middle = lower + lower.transpose(-1, -2) + torch.diag_embed(grad_values)
        return [rows.transpose(-1, -2) @ middle @ rows]
