"""``mxnet.numpy.io``: ``genfromtxt`` (NumPy's, read into an ``mx.np`` array)."""
from ..context import current_context  # noqa: F401
from ..ndarray.numpy import array

__all__ = ["genfromtxt"]


def genfromtxt(*args, **kwargs):
    """NumPy's ``genfromtxt``, its result as an ``mx.np`` array (NumPy's dtype kept)."""
    import numpy as onp
    return array(onp.genfromtxt(*args, **kwargs))
