"""``mxnet._numpy_op_doc``: one documentation function per registered ``_np_*`` operator
(``_np_sum``, ``_np_reshape``, ...), with the signature and docstring of the operator's ``mx.np``
function.

MXNet 1.9.1 wrote these stubs by hand and gave the generated front-end functions their
signatures (``numpy_op_signature``); in mxtorch the front-end functions are written with their
signatures, so the stubs here are derived from them: the front end stays the one source.
Each stub raises MXNetError when called (it documents; ``mx.np.<name>`` computes)."""
import functools as _functools
import inspect as _inspect

from .base import MXNetError as _MXNetError
from .numpy_op_signature import _get_builtin_op
from .ops import registry as _registry

__all__ = []


def _documentation_stub(op_name, function):
    @_functools.wraps(function)
    def stub(*args, **kwargs):
        raise _MXNetError(f"{op_name} is documentation only: call {function.__module__}.{function.__name__}")
    stub.__name__ = stub.__qualname__ = op_name
    stub.__signature__ = _inspect.signature(function)
    del stub.__wrapped__
    return stub


def _build():
    stubs = {}
    for op_name in _registry.list_operators():
        if op_name.startswith("_np_"):
            try:
                function = _get_builtin_op(op_name)
            except ValueError:
                continue
            stubs[op_name] = _documentation_stub(op_name, function)
    return stubs


globals().update(_build())
