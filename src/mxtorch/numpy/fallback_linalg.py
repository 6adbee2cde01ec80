"""``mxnet.numpy.fallback_linalg``: the ``np.linalg`` functions MXNet 1.9.1 ran through NumPy
on host copies of the arrays (results back as ``mx.np.ndarray``; not recorded by autograd, as
``fallback``'s).  ``mx.np.linalg`` takes those it has no operator for."""
import numpy as onp

from .fallback import _fallback

__all__ = ["cond", "lstsq", "matrix_power", "matrix_rank", "multi_dot", "qr"]

for _name in __all__:
    globals()[_name] = _fallback(_name, getattr(onp.linalg, _name))
