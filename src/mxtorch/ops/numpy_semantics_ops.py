"""NumPy front-end operators needed by the array semantics and NumPy interoperability of
``mx.np``: ``_npi_hsplit`` (its axis depends on the input's rank, so that the same ``mx.np``
function builds one node for ``mx.sym.np``, whose rank is not known when the graph is built).
(``_npi_pinv``, ``linalg.pinv`` with an array ``rcond``, is in numpy_linalg.py.)"""
from __future__ import annotations

from .registry import Attr, Int, register
from .numpy_arrays import NumpySplit


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
