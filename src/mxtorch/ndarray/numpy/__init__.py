"""``mx.nd.np``: the imperative functions of MXNet's NumPy front end (``mx.np`` re-exports them).

The functions run the ``_npi_*`` / ``_np_*`` operators of ``ops/numpy_ops.py`` and
``ops/numpy_arrays.py`` and return ``mx.np.ndarray`` (``ndarray/numpy_array.py``), the NDArray
subclass with NumPy semantics.  ``_internal`` reaches every registered operator by name.
"""
from ._op import *  # noqa: F401,F403
from ._op import __all__ as _op_names
from . import random, linalg  # noqa: F401
from .. import register as _register
from ..numpy_array import ndarray as _ndarray_class

__all__ = list(_op_names) + ["random", "linalg"]


def _call_np(op_name, args, kwargs):
    from ...ops import registry
    return _register.invoke(registry.get_operator(op_name), args, kwargs, result_class=_ndarray_class)


class _Internal(_register.OperatorNamespace):
    """``mx.nd.np._internal``: the registered operators by name, returning ``mx.np.ndarray``."""

    def __getattr__(self, name):
        functions = self.__dict__.get("_functions")
        if functions is None or name.startswith("__"):
            raise AttributeError(name)
        if name not in functions:
            from ...ops import registry
            try:
                registry.get_operator(name)
            except Exception:
                raise AttributeError(f"{self._label} has no operator {name!r}") from None

            def function(*args, **kwargs):
                return _call_np(name, args, kwargs)
            function.__name__ = name
            functions[name] = function
        return functions[name]


_internal = _Internal("mx.nd.np._internal")
