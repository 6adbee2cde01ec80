"""``mxnet.numpy.multiarray``: the module of MXNet that defined ``mx.np.ndarray`` and the
functions; here the class lives in ``mxtorch.ndarray.numpy_array`` (below the operators'
front ends) and the functions in ``mxtorch.ndarray.numpy``, re-exported under MXNet's path."""
from ..ndarray.numpy import *  # noqa: F401,F403
from ..ndarray.numpy import __all__ as _functions
from ..ndarray.numpy_array import ndarray  # noqa: F401

__all__ = ["ndarray"] + [name for name in _functions if name != "random"]
