"""The ``mx.nd.npx`` functions, one per ``_npx_*`` registered name, returning ``mx.np.ndarray``."""
from ...ops import registry as _registry
from ...ops.numpy_arrays import npx_operators
from .. import register as _register
from ..numpy_array import ndarray as _ndarray


def _make(name, op_name):
    function = _register._make_function(op_name, _registry.get_operator(op_name), _ndarray)
    function.__name__ = function.__qualname__ = name
    return function


def functions(submodule=""):
    """``{name: function}`` of ``mx.nd.npx`` (``submodule='image'``: of ``mx.nd.npx.image``)."""
    return {name: _make(name, op_name) for name, op_name in npx_operators(submodule).items()}
