"""``mxnet.numpy.multiarray``: the module of MXNet that defined ``mx.np.ndarray`` and the
functions; here the class lives in ``mxtorch.ndarray.numpy_array`` (below the operators'
front ends) and the functions in ``mxtorch.ndarray.numpy``, re-exported under MXNet's path,
with the NumPy-run functions of ``fallback`` and the helper names MXNet's module imported."""
from array import array as native_array  # noqa: F401  (MXNet's module imported these names)
from builtins import slice as py_slice  # noqa: F401

from ..autograd import is_recording  # noqa: F401
from ..base import (NDArrayHandle, c_array, c_array_buf, check_call, integer_types, mx_real_t,  # noqa: F401
                    mx_uint, numeric_types)
from ..context import Context, current_context  # noqa: F401
from ..ndarray import NDArray  # noqa: F401
from ..ndarray.ndarray import (from_numpy, get_indexing_dispatch_code, get_oshape_of_gather_nd_op,  # noqa: F401
                               indexing_key_expand_implicit_axes)
from ..ndarray.numpy import *  # noqa: F401,F403
from ..ndarray.numpy import __all__ as _functions
from ..ndarray.numpy_array import ndarray  # noqa: F401
from ..util import set_module, wrap_np_binary_func, wrap_np_unary_func  # noqa: F401
from . import fallback

# the functions MXNet ran through NumPy (``from .fallback import *`` in MXNet's module); the
# operators' functions take precedence
for _name in fallback.__all__:
    globals().setdefault(_name, getattr(fallback, _name))

__all__ = ["ndarray"] + [name for name in _functions if name != "random"] + \
    [name for name in fallback.__all__ if name not in _functions]
