"""``mx.sym.np``: the NumPy front end's symbolic functions (``mx.nd.np``'s, building nodes of the
same registered operators; see ``_symbol.py``)."""
import types as _types

from ...ndarray import numpy as _nd_np
from ._symbol import _Symbol, _build, symbolic_function as _symbolic_function


def _namespace(module, names, label):
    result = {}
    for name in names:
        value = getattr(module, name)
        if isinstance(value, _types.ModuleType):
            continue
        result[name] = _symbolic_function(value) if callable(value) else value
    return result


globals().update(_namespace(_nd_np, _nd_np.__all__, "mx.sym.np"))
random = _types.ModuleType(__name__ + ".random", "mx.sym.np.random: the samplers, building nodes")
random.__dict__.update(_namespace(_nd_np.random, _nd_np.random.__all__, "mx.sym.np.random"))
from ...context import current_context as _current_context  # noqa: E402
random.current_context = _current_context  # as MXNet's module, which imported it
linalg = _types.ModuleType(__name__ + ".linalg", "mx.sym.np.linalg: linear algebra, building nodes")
linalg.__dict__.update(_namespace(_nd_np.linalg, _nd_np.linalg.__all__, "mx.sym.np.linalg"))



class _Internal:
    """``mx.sym.np._internal``: ``mx.nd.np._internal``'s operators (``_npi_*`` by their short
    names too), building nodes."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        op_name = getattr(_nd_np._internal, name).__name__     # the registered name it resolves to

        def function(*args, **kwargs):
            return _build(op_name, args, kwargs)
        function.__name__ = name
        self.__dict__[name] = function      # made once: the same object on every access
        return function

    def __dir__(self):
        return dir(_nd_np._internal)


_internal = _Internal()

import sys as _sys
_sys.modules[__name__ + ".random"] = random     # ``from mxnet.symbol.numpy import random`` and its path
_sys.modules[__name__ + ".linalg"] = linalg

__all__ = [name for name in _nd_np.__all__] + ["_Symbol"]
