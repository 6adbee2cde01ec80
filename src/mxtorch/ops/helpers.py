"""Helpers shared by the operator families: dtype names to torch / numpy dtypes, axis
normalisation, shape text for messages, the one-input operator base ``_Unary``, the
"outputs take data's shape" inference rule, and the input checks and compute-dtype rules
of the vision and detection operators."""
from __future__ import annotations

import numpy as np
import torch

from .. import base as base_dtypes
from .registry import merge_shape, Operator

__all__ = []


def context_of(ctx):
    """The Context named by an MXNet context string ('cpu(1)', 'gpu(0)'; empty or None: None)."""
    from ..base import MXNetError
    from ..context import Context
    text = (ctx or "").strip()
    if not text:
        return None
    kind = text.split("(")[0].strip()
    if kind not in Context.devstr2type:
        raise MXNetError(f"unknown context {ctx!r}; expected one of {sorted(Context.devstr2type)} with a device "
                         f"id, such as 'cpu(0)'")
    inside = text[text.find("(") + 1:text.find(")")] if "(" in text else "0"
    return Context(kind, int(inside or 0))


def device_of(ctx):
    """The torch device for an MXNet context string ('cpu(0)', 'gpu(1)'; empty or None: cpu)."""
    from ..context import Context
    context = context_of(ctx)
    return (context if context is not None else Context("cpu", 0)).torch_device


# -- helpers shared by the tensor, indexing, reduction and sequence operators ---------------------
def torch_dtype(name):
    """The torch dtype for an MXNet dtype name ('float32', 'int32', 'bfloat16', ...)."""
    return base_dtypes.torch_dtype(name)


def numpy_dtype(name):
    """The numpy dtype for an MXNet dtype name (MXNet's ``BFLOAT16`` stand-in for bfloat16)."""
    return base_dtypes.numpy_dtype(name)


def normalize_axis(op, axis, ndim, argument="axis", extra=0):
    """``axis`` as a non-negative index into ``ndim + extra`` dimensions.

    Raises MXNetError naming the operator, the argument, the valid range and the value.
    """
    size = ndim + extra
    if not -size <= axis < size:
        raise op.error(f"argument {argument!r} must be in [{-size}, {size - 1}] for a {ndim}-D input, got {axis}")
    return axis % size


def shape_text(shape):
    return "None" if shape is None else str(tuple(shape))


class _Unary(Operator):
    """One input ``data`` whose shape must be known to infer the output shape."""
    deterministic = True

    def infer_shape(self, in_shapes, out_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        if data is not None:
            out = merge_shape(out, self.output_shape(tuple(data)), f"Operator {self.name} output")
        return [data], [out], []

    def output_shape(self, data):
        return data


def infer_outputs_from_data(op, in_shapes, out_shapes, output_shape):
    """``infer_shape`` result of operator ``op`` with the one input ``data`` whose outputs all
    have the shape ``output_shape(data shape)`` (``moments``, ``sample_multinomial``)."""
    data = in_shapes[0]
    outs = list(out_shapes)
    if data is not None:
        outs = [merge_shape(o, output_shape(data), f"Operator {op.name} output {i}") for i, o in enumerate(outs)]
    return [data], outs, []


def infer_output_from_pair(op, in_shapes, out_shapes, output_shape):
    """``infer_shape`` result of operator ``op`` with inputs ``lhs``, ``rhs`` and one output
    whose shape is ``output_shape(lhs shape, rhs shape)`` once both are known (nothing is
    inferred backwards: ``dot``, ``reshape_like``, ``broadcast_like``)."""
    lhs, rhs = in_shapes
    out = out_shapes[0]
    if lhs is not None and rhs is not None:
        out = merge_shape(out, output_shape(lhs, rhs), f"Operator {op.name} output")
    return [lhs, rhs], [out], []


def round_half_away(values):
    """C's ``round`` (MXNet's ``round`` operator, ROI box corners): halves go away from zero."""
    return torch.sign(values) * torch.floor(values.abs() + 0.5)


def numpy_dtype_of(tensor):
    return np.dtype(str(tensor.dtype).replace("torch.", ""))


# -- shared by the vision, ROI, box and detection operators ---------------------------------------
def _where(op):
    return f"Operator {op.name}"


def _compute_dtype(tensor):
    """float32 for half-precision tensors, else the tensor's own floating dtype."""
    if tensor.dtype in (torch.float16, torch.bfloat16) or not tensor.is_floating_point():
        return torch.float32
    return tensor.dtype


def _host(tensor):
    """A numpy copy of ``tensor`` in float32 (float64 stays float64)."""
    array = tensor.detach().cpu()
    if array.dtype != torch.float64:
        array = array.to(torch.float32)
    return array.numpy()


def capturing_graph():
    """True while an operator runs inside a graph capture (``torch.export`` and the ONNX
    exporter built on it, ``torch.compile``, ``torch.jit.trace``) rather than eagerly.

    The one switch of the operator layer for checks that need tensor values on the host
    (index bounds, valid ranges): a capture has no values (fake tensors) or would freeze the
    check's outcome into the graph, so those checks are the eager (MXNet) behaviour only and
    the captured graph keeps just the computation (``host_check_failed``)."""
    return torch.compiler.is_compiling() or torch.jit.is_tracing()


def host_check_failed(bad):
    """Whether the boolean tensor ``bad`` (elements violating a value check) has a True
    element: eagerly ``bool(bad.any())``, under a graph capture False (``capturing_graph``:
    the check is not part of a captured graph; out-of-range indices are then the runtime's
    concern, onnxruntime's Gather / GatherND reject them)."""
    if capturing_graph():
        return False
    return bool(bad.any())


def _check_ndim(op, label, shape, ndim, layout):
    if shape is not None and len(shape) != ndim:
        raise op.error(f"{label} must be {ndim}-D {layout}, got shape {tuple(shape)}")


def _check_inputs(op, inputs):
    """Run ``op``'s shape inference on the actual input shapes (imperative calls skip binding)."""
    op.infer_shape([tuple(tensor.shape) for tensor in inputs], [None] * op.num_outputs())
