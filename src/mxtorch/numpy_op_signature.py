"""``mxnet.numpy_op_signature``: finding the front-end function of a registered NumPy operator
by its name (``_np_sum`` is ``mx.np.sum``, ``_npx_relu`` is ``npx.relu``,
``_np_random_uniform`` is ``mx.np.random.uniform``)."""
import inspect

from . import numpy as mx_np
from . import numpy_extension as mx_npx

__all__ = []

_NP_OP_SUBMODULE_LIST = ["_random_", "_linalg_"]
_NP_EXT_OP_SUBMODULE_LIST = ["_image_", "_random_"]


def _get_op_submodule_name(op_name, op_name_prefix, submodule_name_list):
    """The submodule part (``_random_``, ...) of ``op_name`` after ``op_name_prefix``, or ''."""
    assert op_name.startswith(op_name_prefix)
    rest = op_name[len(op_name_prefix):]
    return next((name for name in submodule_name_list if rest.startswith(name)), "")


def _get_builtin_op(op_name):
    """The ``mx.np`` / ``npx`` function of the operator named ``op_name`` (None for a name that is
    neither ``_np_*`` nor ``_npx_*``), with its ``__signature__`` set; ValueError when the front
    end lacks it."""
    if op_name.startswith("_np_"):
        root, prefix, submodules = mx_np, "_np_", _NP_OP_SUBMODULE_LIST
    elif op_name.startswith("_npx_"):
        root, prefix, submodules = mx_npx, "_npx_", _NP_EXT_OP_SUBMODULE_LIST
    else:
        return None
    submodule = _get_op_submodule_name(op_name, prefix, submodules)
    module = root
    if submodule:
        module = getattr(root, submodule[1:-1], None)
        if module is None:
            raise ValueError(f"Cannot find submodule {submodule[1:-1]} in module {root.__name__}")
    function = getattr(module, op_name[len(prefix) + len(submodule):], None)
    if function is None:
        raise ValueError(f"Cannot find operator {op_name[len(prefix):]} in module {root.__name__}")
    if getattr(function, "__signature__", None) is None:
        try:        # MXNet's generated functions carried their ``__signature__``
            function.__signature__ = inspect.signature(function)
        except (TypeError, ValueError, AttributeError):
            pass
    return function


def _register_op_signatures():
    """MXNet gave the generated functions the signatures of its documentation stubs; mxtorch's
    functions are written with their signatures, so there is nothing to register."""
    return inspect
