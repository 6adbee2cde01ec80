"""The ``Custom`` operator: layers written in Python with ``mx.operator.CustomOp``.

A ``CustomOpProp`` subclass registered with ``mx.operator.register(name)``
describes the layer (argument, output and aux-state names, shape and dtype
inference) and creates the ``CustomOp`` that computes it.  ``Custom`` nodes
(``mx.sym.Custom(*inputs, op_type=name, **kwargs)``) carry ``op_type`` plus any
other attributes, which reach the prop's constructor as strings (``str(value)``),
exactly as in MXNet; they are written to and read from symbol JSON unchanged.

The user's ``forward`` / ``backward`` receive NDArrays.  ``Custom.backward`` is the
operator's declared gradient (``Operator.backward``, run by the registry's recording in
``Operator.apply``): it calls the user's ``backward`` with the head gradients, on the
``CustomOp`` instance that ran the forward.  While the user's code runs, ``mx.autograd``
recording is paused and the training flag is the layer's.
"""
from __future__ import annotations

import numpy as np
import torch

from .. import recording
from ..base import MXNetError, numpy_dtype, torch_dtype
from ..context import context_from_torch, current_context
from .registry import Attr, Operator, register, Str, OperatorSchemaError, known, merge_shape

__all__ = ["register_custom_prop", "get_custom_prop", "registered_custom_ops", "MXNET_TYPE_CODES"]

_PROPS = {}

# MXNet's integer dtype codes, as given to CustomOpProp.create_operator
MXNET_TYPE_CODES = {np.dtype(np.float32): 0, np.dtype(np.float64): 1, np.dtype(np.float16): 2,
                    np.dtype(np.uint8): 3, np.dtype(np.int32): 4, np.dtype(np.int8): 5, np.dtype(np.int64): 6,
                    np.dtype(np.bool_): 7, np.dtype(np.int16): 8}


def register_custom_prop(name, factory):
    """Register ``factory`` (a CustomOpProp subclass, or any callable taking the string
    attributes as keywords and returning a prop) under ``op_type`` ``name``."""
    if not isinstance(name, str) or not name:
        raise MXNetError(f"mx.operator.register: the name must be a non-empty string, got {name!r}")
    _PROPS[name] = factory


def get_custom_prop(name):
    try:
        return _PROPS[name]
    except KeyError:
        known_names = ", ".join(sorted(_PROPS)) or "none"
        raise MXNetError(f"Custom operator op_type={name!r} is not registered; register its CustomOpProp with "
                         f"@mx.operator.register({name!r}) first (registered: {known_names})") from None


def registered_custom_ops():
    return sorted(_PROPS)


def _shape_list(shape):
    return [] if shape is None else [int(d) for d in shape]


def _as_shape(value, label, op):
    if value is None:
        return None
    try:
        shape = tuple(int(d) for d in value)
    except (TypeError, ValueError):
        raise op.error(f"infer_shape returned {value!r} for {label}; expected a tuple of integers") from None
    return shape if shape else None


def _as_dtype(value, label, op):
    if value is None:
        return None
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        codes = {code: dtype for dtype, code in MXNET_TYPE_CODES.items()}
        if int(value) in codes:
            return codes[int(value)]
        if int(value) < 0:
            return None
        raise op.error(f"unknown dtype code {value} for {label}")
    try:
        return np.dtype(value)
    except TypeError:
        raise op.error(f"infer_type returned {value!r} for {label}; expected a numpy dtype") from None


def _split(result, kind, op, counts):
    if not isinstance(result, (list, tuple)) or len(result) not in (2, 3):
        raise op.error(f"{kind} must return 2 or 3 lists (inputs, outputs[, auxiliary states]), got {result!r}")
    parts = list(result) + ([[]] if len(result) == 2 else [])
    for part, count, label in zip(parts, counts, ("input", "output", "auxiliary state")):
        if len(part) != count:
            raise op.error(f"{kind} returned {len(part)} {label} entries, expected {count}")
    return parts


@register("Custom")
class Custom(Operator):
    """A layer implemented in Python by the ``CustomOpProp`` registered as ``op_type``.

    Inputs are the prop's ``list_arguments()`` then ``list_auxiliary_states()``; outputs
    its ``list_outputs()``.  Every attribute other than ``op_type`` is passed to the prop's
    constructor as a string.  A prop created with ``need_top_grad=False`` is a loss layer:
    its backward does not need head gradients.  Raises MXNetError when ``op_type`` is not
    registered or when the prop's inference returns malformed or conflicting shapes.
    """

    def plot_label(self, op_name, node_name):
        return self.attrs["op_type"], "other"

    exportable = False
    export_note = "its forward is Python code (a CustomOp running on NumPy) that tracing cannot record"

    op_type = Attr(Str, required=True)

    def __init__(self, attrs=None, **kwargs):
        given = dict(attrs or {})
        given.update(kwargs)
        self.attrs = {}
        options = {}
        for key, value in given.items():
            if key.startswith("__") and key.endswith("__"):
                continue
            text = value if isinstance(value, str) else str(value)
            self.attrs[key] = text
            if key != "op_type":
                options[key] = text
        if "op_type" not in self.attrs:
            raise OperatorSchemaError("Operator Custom: required attribute 'op_type' is missing")
        self.op_type = self.attrs["op_type"]
        factory = get_custom_prop(self.op_type)
        try:
            self.prop = factory(**options)
        except TypeError as error:
            raise MXNetError(f"Operator Custom (op_type={self.op_type!r}): its CustomOpProp does not accept the "
                             f"attributes {sorted(options)}: {error}") from None
        self.is_loss = not getattr(self.prop, "need_top_grad_", True)
        self._operators = {}
        self._arguments = [str(n) for n in self.prop.list_arguments()]
        self._outputs = [str(n) for n in self.prop.list_outputs()]
        self._auxiliary = [str(n) for n in self.prop.list_auxiliary_states()]

    def error(self, message):
        return MXNetError(f"Operator Custom (op_type={self.op_type!r}): {message}")

    def arguments(self):
        return list(self._arguments)

    def auxiliary_states(self):
        return list(self._auxiliary)

    def outputs(self):
        return list(self._outputs)

    def _counts(self):
        return len(self._arguments), len(self._outputs), len(self._auxiliary)

    def infer_shape(self, in_shapes, out_shapes):
        counts = self._counts()
        complete = all(known(s) for s in in_shapes)
        try:
            result = self.prop.infer_shape([_shape_list(s) for s in in_shapes])
        except Exception as error:  # the user's code may not handle unknown shapes yet
            if complete:
                raise self.error(f"infer_shape failed for input shapes {[tuple(s) for s in in_shapes]}: "
                                 f"{type(error).__name__}: {error}") from None
            return list(in_shapes), list(out_shapes), [None] * counts[2]
        inputs, outputs, auxiliary = _split(result, "infer_shape", self, counts)
        merged_in = []
        for name, given, value in zip(self._arguments, in_shapes, inputs):
            merged_in.append(merge_shape(given, _as_shape(value, f"argument {name!r}", self),
                                         f"Operator Custom (op_type={self.op_type!r}) argument {name!r}"))
        merged_out = []
        for name, given, value in zip(self._outputs, out_shapes, outputs):
            merged_out.append(merge_shape(given, _as_shape(value, f"output {name!r}", self),
                                          f"Operator Custom (op_type={self.op_type!r}) output {name!r}"))
        merged_aux = [_as_shape(value, f"auxiliary state {name!r}", self)
                      for name, value in zip(self._auxiliary, auxiliary)]
        return merged_in, merged_out, merged_aux

    def infer_type(self, in_types):
        counts = self._counts()
        given = [None if t is None else np.dtype(t).type for t in in_types]
        try:
            result = self.prop.infer_type(given)
        except Exception as error:
            if all(t is not None for t in in_types):
                raise self.error(f"infer_type failed for input types {given}: {type(error).__name__}: {error}") \
                    from None
            return list(in_types), [None] * counts[1], [None] * counts[2]
        inputs, outputs, auxiliary = _split(result, "infer_type", self, counts)
        return ([_as_dtype(t, f"argument {n!r}", self) for n, t in zip(self._arguments, inputs)],
                [_as_dtype(t, f"output {n!r}", self) for n, t in zip(self._outputs, outputs)],
                [_as_dtype(t, f"auxiliary state {n!r}", self) for n, t in zip(self._auxiliary, auxiliary)])

    # -- running ------------------------------------------------------------------------------
    def _operator(self, context, shapes, dtypes):
        key = (str(context), tuple(shapes), tuple(dtypes))
        operator = self._operators.get(key)
        if operator is None:
            codes = [MXNET_TYPE_CODES.get(np.dtype(d), -1) for d in dtypes]
            operator = self.prop.create_operator(context, [list(s) for s in shapes], codes)
            if operator is None:
                raise self.error("create_operator returned None; it must return a CustomOp")
            self._operators[key] = operator
        return operator

    def _runner(self, inputs, aux, is_train, out_shapes=None, out_types=None):
        """The :class:`_Runner` of one call on ``inputs`` (the CustomOp is created once per
        context, input shapes and dtypes, so forward and backward share it)."""
        tensors = list(inputs) + list(aux)
        context = context_from_torch(tensors[0].device) if tensors else current_context()
        in_shapes = [tuple(t.shape) for t in inputs]
        in_types = [numpy_dtype(t.dtype) for t in inputs]
        return _Runner(self, self._operator(context, in_shapes, in_types), context, bool(is_train),
                       out_shapes, out_types, list(aux))

    def forward(self, is_train, inputs, aux):
        in_shapes = [tuple(t.shape) for t in inputs]
        in_types = [numpy_dtype(t.dtype) for t in inputs]
        _, out_shapes, _ = self.infer_shape(in_shapes, [None] * len(self._outputs))
        for name, shape in zip(self._outputs, out_shapes):
            if shape is None or not all(d >= 0 for d in shape):
                raise self.error(f"infer_shape gave no complete shape for output {name!r} from input shapes "
                                 f"{in_shapes}; got {shape}")
        _, out_types, _ = self.infer_type(in_types)
        out_types = [t if t is not None else (in_types[0] if in_types else np.dtype(np.float32)) for t in out_types]
        return self._runner(inputs, aux, is_train, out_shapes, out_types).forward(inputs)

    def backward(self, out_grads, inputs, outputs, aux, is_train=True):
        """The user's ``backward``: ``req`` is 'write' for the inputs a gradient is recorded for
        and 'null' for the others; ``is_train`` is the training flag its code sees (MXNet's
        backward default)."""
        needs = [t.requires_grad for t in inputs]
        grads = self._runner(inputs, aux, is_train).backward(out_grads, inputs, outputs, needs)
        return [None if g is None else g.to(t.dtype) for g, t in zip(grads, inputs)]


# The array class a user's CustomOp receives (NDArray): given by mxtorch.operator, the layer of
# MXNet's custom-op API, when it is imported (the arrays live above the operators)
_ARRAY_CLASS = []


def use_array_class(array_class):
    """Make the arrays handed to CustomOp.forward / backward instances of ``array_class``
    (called with ``NDArray`` by ``mxtorch.operator``)."""
    _ARRAY_CLASS[:] = [array_class]


def _array(tensor, context):
    if not _ARRAY_CLASS:
        raise MXNetError("Custom: no array class is registered for CustomOp arguments (import mxtorch first)")
    return _ARRAY_CLASS[0](tensor, context)


class _Runner:
    """One call of a user CustomOp: wraps tensors as NDArrays and calls forward / backward."""

    def __init__(self, node, operator, context, is_train, out_shapes, out_types, aux):
        self.node = node
        self.operator = operator
        self.context = context
        self.is_train = is_train
        self.out_shapes = out_shapes
        self.out_types = out_types
        self.aux = aux

    def _wrap(self, tensors):
        return [_array(t.detach(), self.context) for t in tensors]

    def _call(self, method, **arguments):
        with recording.pause(train_mode=self.is_train), self.context:
            try:
                method(**arguments)
            except MXNetError:
                raise
            except Exception as error:
                raise self.node.error(f"{type(self.operator).__name__}.{method.__name__} raised "
                                      f"{type(error).__name__}: {error}") from error

    def forward(self, inputs):
        device = self.context.torch_device
        in_data = self._wrap(inputs)
        out_data = [_array(torch.zeros(shape, dtype=torch_dtype(dtype), device=device), self.context)
                    for shape, dtype in zip(self.out_shapes, self.out_types)]
        aux = [_array(t, self.context) for t in self.aux]
        self._call(self.operator.forward, is_train=self.is_train, req=["write"] * len(out_data),
                   in_data=in_data, out_data=out_data, aux=aux)
        return [array._tensor for array in out_data]

    def backward(self, out_grads, inputs, outputs, needs):
        in_data = self._wrap(inputs)
        out_data = self._wrap(outputs)
        out_grad = [_array(g.detach() if g is not None else torch.zeros_like(o), self.context)
                    for g, o in zip(out_grads, outputs)]
        in_grad = [_array(torch.zeros_like(t), self.context) for t in inputs]
        aux = [_array(t, self.context) for t in self.aux]
        req = ["write" if need else "null" for need in needs]
        self._call(self.operator.backward, req=req, out_grad=out_grad, in_data=in_data, out_data=out_data,
                   in_grad=in_grad, aux=aux)
        return [array._tensor if need else None for array, need in zip(in_grad, needs)]
