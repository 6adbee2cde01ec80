"""NumPy front-end operators needed by the array semantics and NumPy interoperability of
``mx.np``: ``_npi_hsplit`` (its axis depends on the input's rank, so that the same ``mx.np``
function builds one node for ``mx.sym.np``, whose rank is not known when the graph is built)
and ``_npi_pinv`` (``linalg.pinv`` with an array ``rcond``)."""
from __future__ import annotations

import torch

from .registry import Attr, Bool, Int, register
from .numpy_arrays import NumpySplit
from .numpy_linalg import _float
from .numpy_ops import _NumpyOperator


@register("_npi_hsplit")
class NumpyHorizontalSplit(NumpySplit):
    """NumPy's ``hsplit``: ``split`` along axis 1, or along axis 0 for 1-D data (MXNet 1.9.1's
    ``_npi_hsplit``; the ``axis`` attribute is ignored, the rank decides).  Raises MXNetError
    for 0-d data, as NumPy raises for it."""

    axis = Attr(Int, default=1)

    def _split_axis(self, data):
        if data.dim() == 0:
            raise self.error("hsplit only works on arrays of 1 or more dimensions")
        return 0 if data.dim() == 1 else 1


@register("_npi_pinv")
class NumpyPinvArrayRcond(_NumpyOperator):
    """``np.linalg.pinv(a, rcond)`` with ``rcond`` an array (MXNet 1.9.1's ``_npi_pinv``): the
    relative cutoff for small singular values, broadcast over the leading (batch) axes of
    ``a``, ``(..., M, N)``; the result is ``(..., N, M)``."""

    hermitian = Attr(Bool, default=False)

    def arguments(self):
        return ["A", "rcond"]

    def forward(self, is_train, inputs, aux):
        data = _float(inputs[0])
        rcond = inputs[1].to(data.dtype)
        return [torch.linalg.pinv(data, rtol=rcond, hermitian=self.hermitian)]
