"""``mx.nd.npx``: the NumPy front end's extension operators, one function per ``_npx_*``
registered name (``_npx_relu`` is ``npx.relu``), each returning ``mx.np.ndarray``.

They are the classic operators (``relu``, ``softmax``, ``batch_dot``, ``SequenceMask``, ...)
under the aliases MXNet registered for the NumPy front end (``ops/numpy_arrays.py``)."""
from ...ops import registry as _registry
from .. import register as _register
from ..numpy_array import ndarray as _ndarray

PREFIX = "_npx_"


def _make(op_name):
    op_class = _registry.get_operator(op_name)

    def function(*args, **kwargs):
        return _register.invoke(op_class, args, kwargs, result_class=_ndarray)
    function.__name__ = function.__qualname__ = op_name[len(PREFIX):]
    function.__doc__ = (f"``npx.{op_name[len(PREFIX):]}``: the operator {op_class.name!r} (registered as "
                        f"{op_name!r}) on ``mx.np`` arrays, returning ``mx.np.ndarray``.\n\n"
                        + (op_class.__doc__ or "").strip())
    return function


__all__ = []
for _op_name in _registry.list_operators():
    if _op_name.startswith(PREFIX):
        globals()[_op_name[len(PREFIX):]] = _make(_op_name)
        __all__.append(_op_name[len(PREFIX):])
