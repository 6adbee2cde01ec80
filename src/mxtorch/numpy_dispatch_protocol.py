"""``mxnet.numpy_dispatch_protocol``: NumPy's own functions on ``mx.np`` arrays.

``numpy.sum(x)`` with ``x`` an ``mx.np.ndarray`` runs ``mx.np.sum`` (NEP 18,
``__array_function__``) and ``numpy.add(x, y)`` runs ``mx.np.add`` (NEP 13, ``__array_ufunc__``)
for the functions listed here, as MXNet 1.9.1 registered them; another NumPy function runs
NumPy's implementation on host copies and gives ``mx.np`` arrays back (outside autograd
recording only).  A listed name that ``mx.np`` does not provide yet is left to that fallback.
"""
import functools

import numpy as _np

from . import numpy as mx_np
from .ndarray.numpy_array import _NUMPY_ARRAY_FUNCTION_DICT, _NUMPY_ARRAY_UFUNC_DICT

__all__ = []

_NUMPY_ARRAY_FUNCTION_LIST = """all any sometrue argmin argmax around round round_ argsort sort append
    broadcast_arrays broadcast_to clip concatenate copy cumsum diag diagonal diagflat dot expand_dims fix flip
    flipud fliplr inner insert max amax mean min amin nonzero ones_like atleast_1d atleast_2d atleast_3d prod
    product ravel repeat reshape roll split array_split hsplit vsplit dsplit squeeze stack std sum swapaxes take
    tensordot tile transpose unique unravel_index diag_indices_from delete var vdot vstack column_stack hstack
    dstack zeros_like linalg.norm linalg.cholesky linalg.inv linalg.solve linalg.tensorinv linalg.tensorsolve
    linalg.pinv linalg.eigvals linalg.eig linalg.eigvalsh linalg.eigh shape trace tril meshgrid outer einsum
    polyval shares_memory may_share_memory quantile percentile diff ediff1d resize where full_like bincount
    empty_like nan_to_num isnan isfinite isposinf isneginf isinf pad""".split()

_NUMPY_ARRAY_UFUNC_LIST = """abs fabs add arctan2 copysign degrees hypot lcm subtract multiply true_divide
    negative power mod matmul absolute rint sign exp log log2 log10 expm1 sqrt square cbrt reciprocal invert
    bitwise_not remainder sin cos tan sinh cosh tanh arcsin arccos arctan arcsinh arccosh arctanh maximum minimum
    ceil trunc floor bitwise_and bitwise_xor bitwise_or logical_not equal not_equal less less_equal greater
    greater_equal""".split()


def _in_numpy(names):
    """The names of ``names`` that the installed NumPy provides.  MXNet 1.9.1 listed some that
    NumPy 2 removed (``sometrue``, ``round_``, ``product``: aliases of ``any``, ``round``,
    ``prod``); NumPy cannot dispatch those, so they are left out of the lists (mx.np keeps its
    own functions of those names)."""
    return [name for name in names if _lookup(_np, name) is not None]


def _find_duplicate(strs):
    """The first name that occurs twice in ``strs``, or None."""
    seen = set()
    for name in strs:
        if name in seen:
            return name
        seen.add(name)
    return None


def _implements(numpy_function):
    """Decorator: register an ``mx.np`` function as the implementation of ``numpy_function``."""
    def decorator(func):
        _NUMPY_ARRAY_FUNCTION_DICT[numpy_function] = func
        return func
    return decorator


def _protocol_runner(func, what):
    @functools.wraps(func)
    def run(*args, **kwargs):
        try:
            func(*args, **kwargs)
        except Exception as error:
            raise RuntimeError(f"Running function {func.__name__} with NumPy array {what} protocol failed: "
                               f"{error}") from error
    return run


def with_array_function_protocol(func):
    """Decorator for a function that needs the array function protocol (NumPy >= 1.17: always)."""
    return _protocol_runner(func, "function")


def with_array_ufunc_protocol(func):
    """Decorator for a function that needs the array ufunc protocol (NumPy >= 1.15: always)."""
    return _protocol_runner(func, "ufunc")


def _lookup(root, dotted):
    for part in dotted.split("."):
        root = getattr(root, part, None)
        if root is None:
            return None
    return root


def _register_array_function():
    """Register the listed ``mx.np`` functions for NumPy's functions of the same names."""
    duplicate = _find_duplicate(_NUMPY_ARRAY_FUNCTION_LIST)
    if duplicate is not None:
        raise ValueError(f"Duplicate operator name {duplicate} in _NUMPY_ARRAY_FUNCTION_LIST")
    for name in _NUMPY_ARRAY_FUNCTION_LIST:
        mine, theirs = _lookup(mx_np, name), _lookup(_np, name)
        if mine is not None and theirs is not None:
            _implements(theirs)(mine)


def _register_array_ufunc():
    """Register the listed ``mx.np`` functions for NumPy's ufuncs of the same names."""
    duplicate = _find_duplicate(_NUMPY_ARRAY_UFUNC_LIST)
    if duplicate is not None:
        raise ValueError(f"Duplicate operator name {duplicate} in _NUMPY_ARRAY_UFUNC_LIST")
    for name in _NUMPY_ARRAY_UFUNC_LIST:
        mine = getattr(mx_np, name, None)
        if mine is not None:
            _NUMPY_ARRAY_UFUNC_DICT[name] = mine


_NUMPY_ARRAY_FUNCTION_LIST = _in_numpy(_NUMPY_ARRAY_FUNCTION_LIST)
_NUMPY_ARRAY_UFUNC_LIST = _in_numpy(_NUMPY_ARRAY_UFUNC_LIST)
_register_array_function()
_register_array_ufunc()
