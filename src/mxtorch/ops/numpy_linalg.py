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
        # NumPy: two axes, or no axis on a 2-D array with an ``ord``, mean the matrix norm
        if dims is not None and len(dims) == 2 or (dims is None and data.dim() == 2):
            return [torch.linalg.matrix_norm(data, self.ord, dim=dims or (-2, -1), keepdim=self.keepdims)]
        if isinstance(self.ord, str):
            raise MXNetError(f"norm: ord={self.ord!r} needs a 2-D array or two axes")
        return [torch.linalg.vector_norm(data, self.ord, dim=dims, keepdim=self.keepdims)]


@register("_npi_eig")
class NumpyEig(_NumpyOperator):
    """``np.linalg.eig`` of real square matrices with real eigenvalues (MXNet 1.9.1's domain):
    the eigenvalues and the eigenvectors (columns) as real arrays of the float dtype (float32
    for integer input), batched over leading axes."""

    def arguments(self):
        return ["A"]

    def outputs(self):
        return ["w", "v"]

    def forward(self, is_train, inputs, aux):
        a = _float(inputs[0])
        if a.dim() < 2 or a.shape[-1] != a.shape[-2]:
            raise MXNetError(f"Operator {self.name}: the input must be square matrices (..., n, n), got "
                             f"shape {tuple(a.shape)}")
        if a.numel() == 0 or a.device.type == "meta":
            return [a.new_empty(a.shape[:-1]), a.new_empty(a.shape)]
        w, v = torch.linalg.eig(a.to(torch.float64))
        return [w.real.to(a.dtype), v.real.to(a.dtype)]


@register("_npi_eigvalsh")
class NumpyEigvalsh(_NumpyOperator):
    """``np.linalg.eigvalsh``: the ascending eigenvalues of the symmetric matrices whose
    ``UPLO`` ('L' or 'U') triangle is given."""

    UPLO = Attr(Str, default="L")

    def arguments(self):
        return ["A"]

    def forward(self, is_train, inputs, aux):
        a = _float(inputs[0])
        if self.UPLO not in ("L", "U"):
            raise MXNetError(f"Operator {self.name}: UPLO must be 'L' or 'U', got {self.UPLO!r}")
        if a.numel() == 0:
            return [a.new_empty(a.shape[:-1])]
        return [torch.linalg.eigvalsh(a, UPLO=self.UPLO)]


def _product(shape):
    result = 1
    for d in shape:
        result *= int(d)
    return result


@register("_npi_tensorinv")
class NumpyTensorinv(_NumpyOperator):
    """``np.linalg.tensorinv``: the inverse of ``a`` seen as a matrix of its first ``ind`` axes
    by the rest (their sizes' products equal), shape ``a.shape[ind:] + a.shape[:ind]``."""

    ind = Attr(optional(lambda value, name: int(value)), default=2)

    def arguments(self):
        return ["a"]

    def forward(self, is_train, inputs, aux):
        a = _float(inputs[0])
        ind = self.ind
        if ind <= 0:
            raise MXNetError(f"Operator {self.name}: ind must be > 0, got {ind}")
        rows, cols = a.shape[:ind], a.shape[ind:]
        if _product(rows) != _product(cols):
            raise MXNetError(f"Operator {self.name}: the products of a.shape[:ind] {tuple(rows)} and a.shape[ind:] "
                             f"{tuple(cols)} differ")
        matrix = a.reshape(_product(rows), _product(cols))
        return [torch.linalg.inv(matrix).reshape(tuple(cols) + tuple(rows))]


@register("_npi_tensorsolve")
class NumpyTensorsolve(_NumpyOperator):
    """``np.linalg.tensorsolve``: ``x`` with ``tensordot(a, x, x.ndim) = b``; ``a_axes`` (None:
    none) are moved to the end of ``a`` first.  ``x`` has the shape of ``a``'s last
    ``a.ndim - b.ndim`` axes (MXNet 1.9.1's slice: all of them for equal ranks, none when ``b``
    has more); prod(x.shape) ** 2 must be ``a.size`` and prod(x.shape) ``b.size``."""

    a_axes = Attr(optional(lambda value, name: tuple(int(v) for v in (
        eval(value, {"__builtins__": {}}) if isinstance(value, str) else  # noqa: S307 (MXNet's tuple text)
        ((value,) if isinstance(value, int) else value)))), default=None)

    def arguments(self):
        return ["a", "b"]

    def forward(self, is_train, inputs, aux):
        a, b = _float(inputs[0]), _float(inputs[1])
        dtype = torch.promote_types(a.dtype, b.dtype)
        a, b = a.to(dtype), b.to(dtype)
        if self.a_axes:
            axes = [axis % a.dim() for axis in self.a_axes]
            a = torch.movedim(a, axes, list(range(a.dim() - len(axes), a.dim())))
        # MXNet 1.9.1's rule, Python's slice included: x takes the last a.ndim - b.ndim axes of
        # a (all of them when the ranks are equal, none when b has more axes than a)
        solution_shape = tuple(list(a.shape)[-(a.dim() - b.dim()):])
        size = _product(solution_shape)
        if size * size != a.numel() or size != b.numel():
            raise MXNetError(f"Operator {self.name}: a of shape {tuple(inputs[0].shape)} is not square over b's "
                             f"shape {tuple(b.shape)}: prod(x.shape) ** 2 must be a.size and prod(x.shape) b.size")
        solution = torch.linalg.solve(a.reshape(size, size), b.reshape(size, 1))
        return [solution.reshape(solution_shape)]


@register("_npi_pinv")
class NumpyPinvArrayRcond(_NumpyOperator):
    """``np.linalg.pinv`` with an array ``rcond`` (the second input, broadcast over the batch
    axes): singular values below ``rcond`` times the largest are taken as zero."""

    hermitian = Attr(Bool, default=False)

    def arguments(self):
        return ["A", "rcond"]

    def forward(self, is_train, inputs, aux):
        a = _float(inputs[0])
        rcond = inputs[1].to(a.dtype)
        return [torch.linalg.pinv(a, rtol=rcond, hermitian=self.hermitian)]
