"""``mx.np``: MXNet's NumPy-compatible front end is not provided by mxtorch.

The module exists so that programs importing it (``import mxnet.numpy as np``) load; using
any of its names raises MXNetError (also an AttributeError, so ``hasattr`` answers False)
naming it.  Use ``mx.nd`` (or NumPy itself).
"""
from ..base import MXNetError


class _NumpyFrontEndUnavailable(MXNetError, AttributeError):
    pass


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise _NumpyFrontEndUnavailable(f"mx.np.{name}: MXNet's NumPy front end (mx.np / mx.npx) is not provided by "
                                    f"mxtorch; use mx.nd")
