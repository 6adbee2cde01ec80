"""``mx.nd.np``: the imperative functions of MXNet's NumPy front end (``mx.np`` re-exports them).

The functions run the ``_npi_*`` / ``_np_*`` operators of ``ops/numpy_ops.py`` and
``ops/numpy_arrays.py`` and return ``mx.np.ndarray`` (``ndarray/numpy_array.py``), the NDArray
subclass with NumPy semantics.  ``_internal`` reaches every registered operator by name, the
``_npi_*`` ones by their short names too (``_internal.hsplit``), as MXNet's module of that name.
"""
from ._op import *  # noqa: F401,F403
from ._op import __all__ as _op_names
from ._manipulation import *  # noqa: F401,F403
from ._manipulation import __all__ as _manipulation_names
from ._memory import *  # noqa: F401,F403
from ._memory import __all__ as _memory_names
from ._statistics import *  # noqa: F401,F403
from ._statistics import __all__ as _statistics_names
from . import random, linalg  # noqa: F401
from .. import register as _register
from ..numpy_array import ndarray as _ndarray_class

__all__ = list(_op_names) + list(_manipulation_names) + list(_memory_names) + list(_statistics_names) + ["random", "linalg"]


_internal = _register.OperatorNamespace("mx.nd.np._internal", result_class=_ndarray_class, prefix="_npi_")
