"""MXNet's module path ``mxnet.image.image``: the image functions, the classification
augmenters and ``ImageIter`` (defined in ``functions.py``, ``augmenters.py`` and
``iterators.py`` of this package), under the names that module had."""
from __future__ import annotations

from numbers import Number  # noqa: F401  (a name of MXNet's module)

from ..base import numeric_types  # noqa: F401
from ..util import is_np_array  # noqa: F401
from .augmenters import *  # noqa: F401,F403
from .augmenters import __all__ as _augmenters_all
from .functions import *  # noqa: F401,F403
from .functions import __all__ as _functions_all
from .functions import _get_interp_method  # noqa: F401
from .iterators import *  # noqa: F401,F403
from .iterators import __all__ as _iterators_all

__all__ = _functions_all + _augmenters_all + _iterators_all
