"""``mx.nd.np.linalg`` / ``mx.np.linalg``: NumPy's linear algebra on the ``_npi_*`` operators
of ``ops/numpy_linalg.py`` (batched over leading axes; float32 for integer input)."""
from __future__ import annotations

import numpy as _onp

from ..ndarray import NDArray
from ..numpy_array import call, is_symbol
from ._op import _integer, _np, dot

__all__ = ["norm", "inv", "det", "slogdet", "cholesky", "eigvals", "eigh", "qr", "svd", "solve", "pinv",
           "multi_dot", "matrix_power", "eig", "eigvalsh", "tensorinv", "tensorsolve"]


def _numpy_result(kind, values):
    """``values`` as the named tuple NumPy 2 returns (``numpy.linalg``'s ``EighResult``,
    ``SlogdetResult``, ``QRResult``: fields ``eigenvalues, eigenvectors`` etc.), a plain tuple
    with NumPy 1 (which returned tuples, as MXNet 1.9.1 did)."""
    result_type = getattr(getattr(_onp.linalg, "_linalg", None), kind, None)
    return result_type(*values) if result_type is not None else tuple(values)


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 -- NumPy's argument name
    """The vector or matrix norm of ``x`` (see NumPy's ``linalg.norm``)."""
    return call("_npi_norm", _np(x), ord=ord, axis=axis, keepdims=keepdims)


def inv(a):
    """The inverse of the square matrices ``a``."""
    return call("_npi_inv", _np(a))


def det(a):
    """The determinant of the square matrices ``a``."""
    return call("_npi_det", _np(a))


def slogdet(a):
    """(sign, log|det|) of the square matrices ``a``."""
    return _numpy_result("SlogdetResult", call("_npi_slogdet", _np(a)))


def cholesky(a):
    """The lower Cholesky factor of ``a``."""
    return call("_npi_cholesky", _np(a))


def eigvals(a):
    """The eigenvalues of ``a`` (real parts)."""
    return call("_npi_eigvals", _np(a))


def eigh(a, UPLO="L"):  # noqa: N803 -- NumPy's argument name
    """(eigenvalues, eigenvectors) of the symmetric ``a``."""
    return _numpy_result("EighResult", call("_npi_eigh", _np(a), UPLO=UPLO))


def qr(a, mode="reduced"):
    """The QR factorisation of ``a`` (``mode='reduced'``)."""
    if mode != "reduced":
        raise NotImplementedError("qr: only mode='reduced' is supported")
    return _numpy_result("QRResult", call("_npi_qr", _np(a)))


def svd(a):
    """MXNet's ``svd``: (UT, L, V) with ``a = UT . diag(L) . V``."""
    return tuple(call("_npi_svd", _np(a)))


def solve(a, b):
    """``x`` with ``a . x = b``."""
    return call("_npi_solve", _np(a), _np(b))


def pinv(a, rcond=1e-15, hermitian=False):
    """The pseudo-inverse of ``a`` ``(..., M, N)``, shape ``(..., N, M)``; ``rcond`` (the
    relative cutoff of small singular values) is a number or an array broadcast over the
    leading axes of ``a``."""
    if isinstance(rcond, NDArray) or is_symbol(rcond):
        return call("_npi_pinv", _np(a), _np(rcond), hermitian=hermitian)
    return call("_npi_pinv_scalar_rcond", _np(a), rcond=float(rcond), hermitian=hermitian)


def multi_dot(arrays):
    """The chained ``dot`` of ``arrays``, left to right."""
    result = arrays[0]
    for array in arrays[1:]:
        result = dot(result, array)
    return result


def matrix_power(a, n):
    """``a`` to the integer power ``n`` (negative: of the inverse)."""
    a = _np(a)
    base = inv(a) if n < 0 else a
    result = None
    for _ in range(abs(n)):
        result = base if result is None else dot(result, base)
    if result is None:
        from ._op import eye
        return eye(a.shape[-1], dtype=a.dtype)
    return result


def eig(a):
    """(eigenvalues, eigenvectors as columns) of the real square matrices ``a`` with real
    eigenvalues; float32 for integer input."""
    return _numpy_result("EigResult", call("_npi_eig", _np(a)))


def eigvalsh(a, UPLO="L"):  # noqa: N803 -- NumPy's argument name
    """The ascending eigenvalues of the symmetric ``a`` (its ``UPLO`` triangle read)."""
    return call("_npi_eigvalsh", _np(a), UPLO=UPLO)


def tensorinv(a, ind=2):
    """The inverse of ``a`` over its first ``ind`` axes against the rest: shape
    ``a.shape[ind:] + a.shape[:ind]``."""
    return call("_npi_tensorinv", _np(a), ind=_integer(ind, "linalg.tensorinv", "ind"))


def tensorsolve(a, b, axes=None):
    """``x`` with ``tensordot(a, x, x.ndim) == b`` (``axes`` of ``a`` moved to its end first)."""
    axes = None if axes is None else ((int(axes),) if isinstance(axes, int) else tuple(int(v) for v in axes))
    return call("_npi_tensorsolve", _np(a), _np(b), a_axes=axes)
