"""``mx.nd.npx``: the NumPy front end's extension operators, one function per ``_npx_*``
registered name (``_npx_relu`` is ``npx.relu``), each returning ``mx.np.ndarray``.

They are the classic operators (``relu``, ``softmax``, ``batch_dot``, ``SequenceMask``, ...)
under the aliases MXNet registered for the NumPy front end (``ops/numpy_arrays.py``)."""
from ...ops import registry as _registry
from ...ops.numpy_arrays import npx_operators as _npx_operators
from .. import register as _register
from ..numpy_array import ndarray as _ndarray

def _make(name, op_name):
    function = _register._make_function(op_name, _registry.get_operator(op_name), _ndarray)
    function.__name__ = function.__qualname__ = name
    return function


__all__ = sorted(_npx_operators())
globals().update({name: _make(name, op_name) for name, op_name in _npx_operators().items()})
