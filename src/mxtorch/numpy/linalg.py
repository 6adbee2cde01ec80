"""``mx.np.linalg``: NumPy's linear algebra (``mxtorch.ndarray.numpy.linalg``), and through
NumPy (``fallback_linalg``) the functions it has no operator for (``cond``, ``lstsq``,
``matrix_rank``)."""
from ..ndarray.numpy.linalg import *  # noqa: F401,F403
from ..ndarray.numpy.linalg import __all__ as _functions
from . import fallback_linalg

for _name in fallback_linalg.__all__:
    globals().setdefault(_name, getattr(fallback_linalg, _name))

__all__ = list(_functions) + [name for name in fallback_linalg.__all__ if name not in _functions]
