"""``mx.sym.npx``: the NumPy front end's extension operators on symbols, one function per
``_npx_*`` registered name (as ``mx.nd.npx``), building ``_Symbol`` nodes."""
from ...ops import registry as _registry
from ..numpy._symbol import _build

PREFIX = "_npx_"


def _make(op_name):
    op_class = _registry.get_operator(op_name)

    def function(*args, **kwargs):
        return _build(op_name, args, kwargs)
    function.__name__ = function.__qualname__ = op_name[len(PREFIX):]
    function.__doc__ = (f"``mx.sym.npx.{op_name[len(PREFIX):]}``: a node of {op_class.name!r} (registered as "
                        f"{op_name!r}).\n\n" + (op_class.__doc__ or "").strip())
    return function


__all__ = []
for _op_name in _registry.list_operators():
    if _op_name.startswith(PREFIX):
        globals()[_op_name[len(PREFIX):]] = _make(_op_name)
        __all__.append(_op_name[len(PREFIX):])
