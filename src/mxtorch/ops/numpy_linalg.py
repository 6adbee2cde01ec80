"""``mx.np.linalg``'s operators (``_npi_inv``, ``_npi_det``, ``_npi_svd``, ...), declared once as
the other ``mx.np`` operators (``numpy_ops._NumpyOperator``: shapes and dtypes on the meta device)."""
from __future__ import annotations

import torch

from ..base import MXNetError
from .registry import Attr, Bool, Float, Str, optional, register
from .numpy_ops import _Axis, _NumpyOperator, _axes

__all__ = ["LINALG_UNARY"]


def _float(tensor):
    return tensor if tensor.is_floating_point() else tensor.to(torch.float32)


# name: (function of the float tensor, outputs)
LINALG_UNARY = {
    "inv": (lambda a: [torch.linalg.inv(a)], 1),
    "det": (lambda a: [torch.linalg.det(a)], 1),
    "slogdet": (lambda a: list(torch.linalg.slogdet(a)), 2),
    "cholesky": (lambda a: [torch.linalg.cholesky(a)], 1),
    "eigvals": (lambda a: [torch.linalg.eigvals(a).real], 1),
    "qr": (lambda a: list(torch.linalg.qr(a)), 2),
}


def _unary_linalg(name, function, count):
    class LinalgUnary(_NumpyOperator):
        __doc__ = f"``np.linalg.{name}`` of the last two axes (batched)."
        deterministic = True

        def arguments(self):
            return ["A"]

        def outputs(self):
            return ["output"] if count == 1 else [f"output{i}" for i in range(count)]

        def forward(self, is_train, inputs, aux):
            return function(_float(inputs[0]))
    LinalgUnary.__name__ = LinalgUnary.__qualname__ = f"NumpyLinalg_{name}"
    return LinalgUnary


for _name, (_function, _count) in LINALG_UNARY.items():
    register(f"_npi_{_name}")(_unary_linalg(_name, _function, _count))


@register("_npi_svd")
class NumpySvd(_NumpyOperator):
    """``np.linalg.svd`` as MXNet had it: ``UT``, ``L``, ``V`` with ``a = UT . diag(L) . V``."""

    def arguments(self):
        return ["A"]

    def outputs(self):
        return ["ut", "l", "v"]

    def forward(self, is_train, inputs, aux):
        u, s, vh = torch.linalg.svd(_float(inputs[0]), full_matrices=False)
        return [u, s, vh]


@register("_npi_eigh")
class NumpyEigh(_NumpyOperator):
    """``np.linalg.eigh``: eigenvalues (ascending) and eigenvectors of a symmetric matrix."""

    UPLO = Attr(Str, default="L")

    def arguments(self):
        return ["A"]

    def outputs(self):
        return ["w", "v"]

    def forward(self, is_train, inputs, aux):
        return list(torch.linalg.eigh(_float(inputs[0]), UPLO=self.UPLO))


@register("_npi_solve")
class NumpySolve(_NumpyOperator):
    """``np.linalg.solve(a, b)``: ``x`` with ``a . x = b``."""

    def arguments(self):
        return ["A", "B"]

    def forward(self, is_train, inputs, aux):
        a, b = _float(inputs[0]), _float(inputs[1])
        if b.dim() == a.dim() - 1:
            return [torch.linalg.solve(a, b.unsqueeze(-1)).squeeze(-1)]
        return [torch.linalg.solve(a, b)]


@register("_npi_pinv_scalar_rcond")
class NumpyPinv(_NumpyOperator):
    """``np.linalg.pinv`` with a scalar ``rcond``."""

    rcond = Attr(Float, default=1e-15)
    hermitian = Attr(Bool, default=False)

    def arguments(self):
        return ["A"]

    def forward(self, is_train, inputs, aux):
        return [torch.linalg.pinv(_float(inputs[0]), rtol=self.rcond, hermitian=self.hermitian)]


@register("_npi_norm")
class NumpyNorm(_NumpyOperator):
    """``np.linalg.norm``: ``ord`` (None: 2-norm of the flattened array, or Frobenius over two
    axes; 'fro', 'nuc', inf, ...), over ``axis``, ``keepdims``."""

    ord = Attr(optional(lambda value, name: value if value in ("fro", "nuc") else float(value)), default=None)
    axis = Attr(_Axis, default=None)
    keepdims = Attr(Bool, default=False)

    def forward(self, is_train, inputs, aux):
        data = _float(inputs[0])
        dims = _axes(self.axis)
        if self.ord is None:
            return [torch.linalg.vector_norm(data, 2, dim=dims, keepdim=self.keepdims)]
        # a given ord over two axes, or over a 2-D array without axis, is a matrix norm (ord=2:
        # the largest singular value), as NumPy's
        if dims is not None and len(dims) == 2 or (dims is None and data.dim() == 2):
            return [torch.linalg.matrix_norm(data, self.ord, dim=dims or (-2, -1), keepdim=self.keepdims)]
        if isinstance(self.ord, str):
            raise MXNetError(f"norm: ord={self.ord!r} needs a 2-D array or two axes")
        return [torch.linalg.vector_norm(data, self.ord, dim=dims, keepdim=self.keepdims)]
