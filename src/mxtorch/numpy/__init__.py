"""``mx.np``: MXNet's NumPy-compatible front end, on the same arrays, operators and autograd.

``mx.np.ndarray`` is the NDArray subclass with NumPy semantics (``mxtorch.ndarray.numpy_array``)
and the functions are those of ``mx.nd.np`` (``mxtorch.ndarray.numpy``), with NumPy's names for
dtypes and constants.  See docs/numpy.md.
"""
import numpy as _onp

from ..ndarray.numpy import *  # noqa: F401,F403
from ..ndarray.numpy import __all__ as _functions
from ..ndarray.numpy_array import ndarray
from ..util import is_np_array, set_np, reset_np, use_np, np_array, np_shape, set_np_shape  # noqa: F401
from . import multiarray, random, linalg, utils, arrayprint, function_base, stride_tricks, io  # noqa: F401
import importlib as _importlib
# mx.np.linalg is this package's module (nd.np's functions and the NumPy-run ones), not the
# ``linalg`` the star import above brought from mx.nd.np
linalg = _importlib.import_module(__name__ + ".linalg")  # noqa: F811
from .arrayprint import set_printoptions  # noqa: F401
from .io import genfromtxt  # noqa: F401

# the functions MXNet ran through NumPy itself, where mx.np has no operator of its own
from . import fallback  # noqa: E402
for _name in fallback.__all__:
    globals().setdefault(_name, getattr(fallback, _name))

# NumPy's dtypes and constants under their NumPy names (MXNet's mx.np re-exported them)
bool_ = _onp.bool_
bool = _onp.bool_  # noqa: A001
int8, uint8, int32, int64 = _onp.int8, _onp.uint8, _onp.int32, _onp.int64
float16, float32, float64 = _onp.float16, _onp.float32, _onp.float64
pi, e, inf, nan, newaxis = _onp.pi, _onp.e, _onp.inf, _onp.nan, None
NAN = NaN = _onp.nan
PINF, NINF = _onp.inf, -_onp.inf
PZERO, NZERO = 0.0, -0.0
finfo, iinfo, dtype = _onp.finfo, _onp.iinfo, _onp.dtype


def promote_types(type1, type2):
    """The dtype two arrays of ``type1`` and ``type2`` give in a binary ``mx.np`` operator."""
    from ..base import numpy_type, torch_dtype
    from ..ops.numpy_ops import promote_types as _promote
    return _onp.dtype(numpy_type(_promote(torch_dtype(_onp.dtype(type1).name), torch_dtype(_onp.dtype(type2).name))))


__all__ = list(_functions) + ["ndarray", "promote_types", "set_printoptions", "genfromtxt", "bool_", "int8", "uint8", "int32", "int64",
                              "float16", "float32", "float64", "pi", "e", "inf", "nan", "newaxis"]
