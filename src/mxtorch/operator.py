"""``mx.operator``: operators written in Python (MXNet's custom-op API).

Subclass :class:`CustomOpProp` to describe a layer and :class:`CustomOp` to compute
it, register the prop with :func:`register`, and use it as
``mx.sym.Custom(*inputs, op_type=name, **kwargs)`` or ``mx.nd.Custom(...)``::

    class Scale(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] * 2)
        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            self.assign(in_grad[0], req[0], out_grad[0] * 2)

    @mx.operator.register("scale")
    class ScaleProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, shapes, dtypes):
            return Scale()

The legacy ``PythonOp`` / ``NumpyOp`` / ``NDArrayOp`` classes (deprecated in MXNet)
run on the same machinery.
"""
from __future__ import annotations

import collections
import itertools

import numpy as np

from .base import MXNetError
from .ops import registry as _registry
from .ndarray.ndarray import NDArray
from .ops.custom import register_custom_prop, use_array_class
from .ops.c_api import describe_attribute
# names MXNet 1.9.1's mxnet.operator had in its namespace from its ctypes binding
from ctypes import (CFUNCTYPE, POINTER, Structure, c_bool, c_char, c_char_p, c_int,  # noqa: E402,F401
                    c_void_p, cast, pointer)
from .base import (  # noqa: E402,F401
    MXCallbackList, NDArrayHandle, OpHandle, c_array, c_array_buf, c_str, check_call, ctypes2numpy_shared,
    mx_float, mx_int, mx_uint, py_str,
)
# names MXNet 1.9.1's mxnet.operator had in its namespace (imported there, not defined)
from array import array  # noqa: E402,F401
from threading import Lock  # noqa: E402,F401
from .util import is_np_array, star_exports  # noqa: E402,F401
import ctypes  # noqa: E402,F401
import traceback  # noqa: E402,F401
import warnings  # noqa: E402,F401
c_int_p = POINTER(c_int)

_OWN_NAMES = ["CustomOp", "CustomOpProp", "register", "get_all_registered_operators", "get_operator_arguments",
           "OperatorArguments", "PythonOp", "NumpyOp", "NDArrayOp"]


class CustomOp:
    """Base class of the computation of a custom operator.

    Override :meth:`forward` and :meth:`backward`; write results with :meth:`assign`.
    """

    def __init__(self):
        pass

    def forward(self, is_train, req, in_data, out_data, aux):
        """Compute ``out_data`` (NDArrays, preallocated with the inferred shapes) from
        ``in_data``; ``req[i]`` is the write request of output i; ``aux`` are the auxiliary
        state NDArrays (update them in place)."""
        raise NotImplementedError(f"{type(self).__name__}.forward is not implemented")

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        """Compute ``in_grad`` (NDArrays shaped like the inputs) from the head gradients
        ``out_grad``; ``req[i]`` is 'write' or 'null' (skip) for input i."""
        raise NotImplementedError(f"{type(self).__name__}.backward is not implemented")

    def assign(self, dst, req, src):
        """Write ``src`` into ``dst`` according to ``req``: 'null' does nothing, 'write' and
        'inplace' copy, 'add' accumulates."""
        if req == "null":
            return
        if req in ("write", "inplace"):
            dst[:] = src
        elif req == "add":
            dst[:] = dst + src
        else:
            raise MXNetError(f"CustomOp.assign: req must be 'null', 'write', 'inplace' or 'add', got {req!r}")


class CustomOpProp:
    """Base class of the description of a custom operator.

    ``need_top_grad=False`` declares a loss layer whose backward ignores head gradients.
    The defaults describe one input 'data' and one output 'output' of the same shape
    and dtype.
    """

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape):
        """``(input_shapes, output_shapes[, aux_shapes])`` from the input shapes (lists of
        ints; an unknown input is an empty list)."""
        return in_shape, (in_shape[0],) * len(self.list_outputs()), ()

    def infer_storage_type(self, in_stype):
        """Storage types: mxtorch only has dense ('default') arrays."""
        return (["default"] * len(in_stype), ["default"] * len(self.list_outputs()),
                ["default"] * len(self.list_auxiliary_states()))

    def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype, aux_stype):
        """Backward storage types: all dense ('default')."""
        return (["default"] * len(ograd_stype), ["default"] * len(in_stype), ["default"] * len(out_stype),
                ["default"] * len(igrad_stype), ["default"] * len(aux_stype))

    def infer_type(self, in_type):
        """``(input_types, output_types[, aux_types])``; default: everything has the first
        input's dtype."""
        return (in_type, [in_type[0]] * len(self.list_outputs()),
                [in_type[0]] * len(self.list_auxiliary_states()))

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def list_auxiliary_states(self):
        return []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        """Which arrays backward uses (MXNet's memory planning hint; mxtorch keeps them all)."""
        dependencies = []
        if self.need_top_grad_:
            dependencies.extend(out_grad)
        dependencies.extend(in_data)
        dependencies.extend(out_data)
        return dependencies

    def create_operator(self, ctx, in_shapes, in_dtypes):
        """The CustomOp computing this layer on Context ``ctx`` for input shapes (lists of
        ints) and MXNet dtype codes (0 float32, 1 float64, 2 float16, ...)."""
        return CustomOp()


def register(reg_name):
    """Class decorator registering a CustomOpProp subclass as ``op_type`` ``reg_name``."""
    def do_register(prop_cls):
        if not (isinstance(prop_cls, type) and issubclass(prop_cls, CustomOpProp)):
            raise MXNetError(f"mx.operator.register({reg_name!r}): expected a CustomOpProp subclass, got {prop_cls!r}")
        register_custom_prop(reg_name, prop_cls)
        return prop_cls
    return do_register


register("custom_op")(CustomOpProp)


def get_all_registered_operators():
    """Names of every operator mxtorch implements (aliases included)."""
    return _registry.list_operators()


OperatorArguments = collections.namedtuple("OperatorArguments", ["narg", "names", "types"])


def get_operator_arguments(op_name):
    """``OperatorArguments(narg, names, types)`` of operator ``op_name``: its inputs (for the
    default attributes, when those need no required value) then its attributes."""
    op_class = _registry.get_operator(op_name)
    inputs = []
    try:
        op = op_class({})
        inputs = op.arguments() + op.auxiliary_states()
    except MXNetError:
        inputs = ["data"]
    names = list(inputs) + list(op_class.schema)
    types = ["NDArray-or-Symbol"] * len(inputs) + [describe_attribute(a) for a in op_class.schema.values()]
    return OperatorArguments(len(names), names, types)


# -- legacy Python operators (deprecated in MXNet) --------------------------------------------------
_legacy_ids = itertools.count()


class PythonOp:
    """Base of MXNet's deprecated Python operators; ``get_symbol`` makes a ``Custom`` node
    (valid in this process only: such graphs cannot be reloaded elsewhere, as in MXNet)."""

    _uses_numpy = True

    def __init__(self, need_top_grad=True):
        self.info_ = None
        self._need_top_grad = need_top_grad

    def __call__(self, *args, **kwargs):
        return self.get_symbol(*args, **kwargs)

    def get_symbol(self, *args, **kwargs):
        from . import symbol
        name = f"_python_op_{next(_legacy_ids)}"
        register_custom_prop(name, lambda **_: _LegacyProp(self))
        return symbol.Custom(*args, op_type=name, **kwargs)

    def forward(self, in_data, out_data):
        out_data[0][:] = in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        in_grad[0][:] = 1.0

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]]

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def need_top_grad(self):
        return self._need_top_grad


class NumpyOp(PythonOp):
    """Deprecated: a Python operator computing on numpy arrays (write outputs in place)."""


class NDArrayOp(PythonOp):
    """Deprecated: a Python operator computing on NDArrays (write outputs in place);
    ``declare_backward_dependency`` is accepted for compatibility."""

    _uses_numpy = False

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        dependencies = []
        if self.need_top_grad():
            dependencies.extend(out_grad)
        dependencies.extend(in_data)
        dependencies.extend(out_data)
        return dependencies


class _LegacyProp(CustomOpProp):
    def __init__(self, legacy):
        super().__init__(need_top_grad=legacy.need_top_grad())
        self.legacy = legacy

    def list_arguments(self):
        return self.legacy.list_arguments()

    def list_outputs(self):
        return self.legacy.list_outputs()

    def infer_shape(self, in_shape):
        inputs, outputs = self.legacy.infer_shape(in_shape)[:2]
        return inputs, outputs, []

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _LegacyOp(self.legacy)


class _LegacyOp(CustomOp):
    def __init__(self, legacy):
        super().__init__()
        self.legacy = legacy

    def _convert(self, arrays):
        if self.legacy._uses_numpy:
            return [np.array(a.asnumpy()) for a in arrays]
        return [a.copy() for a in arrays]

    def forward(self, is_train, req, in_data, out_data, aux):
        outputs = self._convert(out_data)
        self.legacy.forward(in_data=self._convert(in_data), out_data=outputs)
        for target, request, value in zip(out_data, req, outputs):
            self.assign(target, request, value)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        grads = self._convert(in_grad)
        self.legacy.backward(out_grad=self._convert(out_grad), in_data=self._convert(in_data),
                             out_data=self._convert(out_data), in_grad=grads)
        for target, request, value in zip(in_grad, req, grads):
            self.assign(target, request, value)


from . import context, symbol  # noqa: E402,F401  (MXNet's module imported them)

# what ``from mxnet.operator import *`` gave (MXNet had no __all__ here: every public global)
__all__ = star_exports(__name__, globals(), _OWN_NAMES)

use_array_class(NDArray)      # CustomOp.forward / backward receive NDArrays

# the C library object MXNet's module held (``from .base import _LIB``; see base_ctypes._CLibrary)
from .base_ctypes import _LIB  # noqa: E402,F401

# MXNet's private names of mxnet.operator: the dtype / storage tables, the array wrappers of
# handles, and the registry of custom operator properties
from .ndarray.ndarray import (_DTYPE_MX_TO_NP, _DTYPE_NP_TO_MX, _STORAGE_TYPE_CSR,  # noqa: E402,F401
                              _STORAGE_TYPE_DEFAULT, _STORAGE_TYPE_ID_TO_STR, _STORAGE_TYPE_ROW_SPARSE,
                              _STORAGE_TYPE_STR_TO_ID, _STORAGE_TYPE_UNDEFINED)
from .ndarray.handles import ndarray_cls as _ndarray_cls  # noqa: E402,F401
from .ndarray.handles import storage_type as _storage_type  # noqa: E402


def _np_ndarray_cls(handle, writable=True, stype=0):
    """The array of ``handle`` as an ``mx.np.ndarray`` (MXNet's ``mxnet.numpy._np_ndarray_cls``);
    ValueError for a storage type other than default (-1: read from the handle)."""
    from .ndarray.numpy_array import ndarray as np_ndarray
    if stype == -1:
        stype = _storage_type(handle)
    if stype != 0:
        raise ValueError(f"_np_ndarray_cls currently only supports default storage type, while received "
                         f"stype = {stype}")
    return np_ndarray(handle, writable=writable)


class _Registry:
    """The registry MXNet's custom operators kept their Python objects in: ``ref_holder``
    (index -> object kept alive while the C side holds it), ``counter``, ``result_deps`` and a
    ``lock``; ``inc()`` hands out the next index, thread-safely."""

    def __init__(self):
        self.ref_holder = {}
        self.counter = 0
        self.result_deps = set()
        self.lock = Lock()

    def inc(self):
        """The index for a new entry (0, 1, 2, ...)."""
        with self.lock:
            current = self.counter
            self.counter += 1
        return current
