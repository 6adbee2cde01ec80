"""``mxnet.numpy.utils``: NumPy's dtype names and constants as ``mx.np`` has them, and the
lookup of NumPy's function of a name (``_get_np_op``)."""
import numpy as onp

__all__ = ["float16", "float32", "float64", "uint8", "int8", "int32", "int64", "bool", "bool_", "pi", "inf",
           "nan", "PZERO", "NZERO", "NINF", "NAN", "NaN", "PINF", "e", "newaxis", "finfo"]

float16, float32, float64 = onp.float16, onp.float32, onp.float64
uint8, int8, int32, int64 = onp.uint8, onp.int8, onp.int32, onp.int64
bool_ = onp.bool_
bool = bool  # noqa: A001,PLW0127 -- MXNet's mx.np.bool was Python's bool
pi, e, inf, nan, newaxis, finfo = onp.pi, onp.e, onp.inf, onp.nan, None, onp.finfo
PZERO, NZERO, NINF, PINF = 0.0, -0.0, -onp.inf, onp.inf
NAN = NaN = onp.nan

_STR_2_DTYPE_ = {"float16": float16, "float32": float32, "float64": float64, "float": float64, "uint8": uint8,
                 "int8": int8, "int32": int32, "int64": int64, "int": int64, "bool": bool_, "bool_": bool_,
                 "None": None}
_ONP_OP_MODULES = [onp, onp.linalg, onp.random, onp.fft]


def _get_np_op(name):
    """NumPy's function called ``name`` (searched in numpy, numpy.linalg, numpy.random, numpy.fft)."""
    for module in _ONP_OP_MODULES:
        function = getattr(module, name, None)
        if function is not None:
            return function
    raise ValueError(f"Operator `{name}` is not supported by `mxnet.numpy`.")
