"""``mxnet.numpy.function_base``: ``meshgrid`` and ``broadcast_arrays``."""
from ..ndarray.numpy._manipulation import broadcast_arrays, meshgrid  # noqa: F401

__all__ = ["meshgrid", "broadcast_arrays"]
