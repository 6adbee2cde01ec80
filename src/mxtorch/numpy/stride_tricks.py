"""``mxnet.numpy.stride_tricks``: ``broadcast_arrays`` and the common broadcast shape."""
import numpy as _onp

from ..ndarray.numpy._manipulation import broadcast_arrays  # noqa: F401

__all__ = ["broadcast_arrays"]


def _broadcast_shape(*args):
    """The shape the arrays ``args`` broadcast to."""
    return _get_broadcast_shape(*[a.shape for a in args])


def _get_broadcast_shape(*shapes):
    """The shape the ``shapes`` broadcast to (ValueError when they do not)."""
    return tuple(_onp.broadcast_shapes(*shapes))
