"""``mx.nd.sparse``: MXNet's sparse storage (CSRNDArray, RowSparseNDArray) is not provided.

mxtorch arrays are dense.  The module exists so that programs importing it load; using any
of its names raises :class:`mxtorch.base.NotSupportedForSparseNDArray` (an MXNetError that is
also an AttributeError, so ``hasattr`` answers False) naming the function.
"""
from ..base import NotSupportedForSparseNDArray


class _SparseUnavailable(NotSupportedForSparseNDArray, AttributeError):
    pass


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise _SparseUnavailable(f"mx.nd.sparse.{name}: sparse storage (csr / row_sparse) is not supported by "
                             f"mxtorch; arrays are dense")
