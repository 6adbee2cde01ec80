"""The plan of a bound graph: its operator nodes in topological order as steps reading and
writing numbered value slots, with the facts the executor reads every forward.

``build_plan`` infers shapes and dtypes (or reuses the binder's inference), numbers the
variables and node outputs, merges equal deterministic nodes (MXNet's common-subexpression
elimination, ``MXNET_ELIMINATE_COMMON_EXPR``), fuses unrolled recurrent cells (``fusion.py``)
and records after which step each value can be dropped.
"""
from __future__ import annotations

import os

import numpy as np
import torch

from ..base import MXNetError
from ..ops.registry import keep_carrier
from ..symbol.symbol import _aux_variable_ids
from .fusion import fuse_recurrent_chains, fusion_enabled

__all__ = ["Plan", "Step", "build_plan", "created_shape", "dense_views"]


class Step:
    """One operator node of the plan: its operator, the slots of its inputs, aux states and
    outputs; ``constant_shape`` for a node that creates a tensor from nothing (``_zeros``)."""

    __slots__ = ("node", "op", "inputs", "aux", "outputs", "constant_shape", "context")

    def __init__(self, node, op, inputs, aux, outputs, constant_shape=None, context=None):
        self.node = node
        self.op = op
        self.inputs = inputs
        self.aux = aux
        self.outputs = outputs
        self.constant_shape = constant_shape
        # with group2ctx: the Context this node runs on (inputs are moved to its device)
        self.context = context


def dense_views(results, inputs):
    """The outputs of one step, with each strided view of an input (slice, transpose, ...)
    copied into dense row-major memory: the layout the imperative call gives the same result
    (``mx.nd`` results own their memory), so the operators after it compute on identically
    laid-out data and a hybridized block reproduces its imperative values bit for bit.
    Contiguous views (reshape, flatten) are kept as they are."""
    dense = []
    for tensor in results:
        if tensor.is_contiguous() or not tensor.numel():
            dense.append(tensor)
            continue
        # storage identity without reading data pointers (the compiled step traces with fake tensors)
        shared = any(t.numel() and torch._C._is_alias_of(tensor, t) for t in inputs)
        dense.append(keep_carrier(tensor, tensor.contiguous()) if shared else tensor)
    return dense


class Plan:
    """What ``build_plan`` gives: ``steps`` (node for node), ``run_steps`` (what forward runs:
    recurrent cells fused), ``num_slots``, ``variable_slots`` ``[(slot, 'arg'|'aux', index)]``,
    ``output_slots`` and the outputs' ``output_shapes`` / ``output_types`` / ``output_is_loss``,
    ``duplicate_outputs`` (outputs repeating an earlier output's value), ``slot_shapes`` /
    ``slot_itemsize`` / ``slot_types`` (dtype names) per slot, ``release`` (per run step, the slots no later step reads) and
    ``merged_nodes`` (``id(node)`` -> the equal node computed in its place)."""
    __slots__ = ("steps", "run_steps", "num_slots", "variable_slots", "output_slots", "duplicate_outputs",
                 "output_shapes", "output_types", "output_is_loss", "slot_shapes", "slot_itemsize", "slot_types",
                 "release", "merged_nodes")


def build_plan(symbol, arg_names, aux_names, arg_arrays, aux_arrays, placement=None, inferred=None):
    """The :class:`Plan` of ``symbol`` bound to these arrays.  ``placement``: ``{id(node):
    Context}`` under ``group2ctx`` (placement.node_contexts), else None.  ``inferred``: the
    binder's GraphInference (symbol/inference.py), used when the bound arrays have its shapes
    and dtypes, so a bind infers the graph once; otherwise shapes and dtypes are inferred from
    the arrays."""
    from ..symbol.inference import graph_shapes, graph_types
    arrays = list(arg_arrays) + list(aux_arrays)
    if inferred is not None and inferred.matches([a.shape for a in arg_arrays],
                                                 [a.shape for a in aux_arrays]):
        nodes, shapes = inferred.nodes, inferred.shapes
    else:
        given = {name: array.shape for name, array in zip(arg_names, arg_arrays)}
        given.update({name: array.shape for name, array in zip(aux_names, aux_arrays)})
        nodes, shapes, inferred = *graph_shapes(symbol, given), None
    dtypes = [np.dtype(array.dtype) for array in arrays]
    if inferred is not None and all(t is not None and np.dtype(t) == d for t, d in
                                    zip(inferred.arg_types + inferred.aux_types, dtypes)):
        types = inferred.types
    else:
        _, types = graph_types(symbol, dict(zip(list(arg_names) + list(aux_names), dtypes)))
    aux_ids = _aux_variable_ids(nodes)
    slot = {}
    plan = Plan()
    plan.variable_slots = variable_slots = []   # (slot, 'arg'|'aux', index)
    arg_index = {name: i for i, name in enumerate(arg_names)}
    aux_index = {name: i for i, name in enumerate(aux_names)}
    steps = []
    count = 0
    # common-subexpression elimination (MXNet's MXNET_ELIMINATE_COMMON_EXPR, on by default): a
    # deterministic node with the operator, attributes and inputs of an earlier one reuses its
    # outputs instead of computing them again
    eliminate = eliminate_common_expressions()
    computed = {}
    plan.merged_nodes = merged_nodes = {}       # id(node) -> the equal node computed in its place
    for node in nodes:
        if node.op is None:
            slot[(id(node), 0)] = count
            kind = "aux" if id(node) in aux_ids else "arg"
            variable_slots.append((count, kind, aux_index[node.name] if kind == "aux" else arg_index[node.name]))
            count += 1
            continue
        inputs = [slot[(id(child), index)] for child, index in node.inputs]
        if eliminate and node.op.deterministic and not node.op.auxiliary_states():
            key = (node.op.json_name, tuple(sorted(node.op.attrs.items())), tuple(inputs))
            if key in computed:
                earlier = computed[key]
                merged_nodes[id(node)] = earlier
                for i in range(node.op.num_outputs()):
                    slot[(id(node), i)] = slot[(id(earlier), i)]
                continue
            computed[key] = node
        n_args = len(node.op.arguments())
        outputs = []
        for i in range(node.op.num_outputs()):
            slot[(id(node), i)] = count
            outputs.append(count)
            count += 1
        constant_shape = created_shape(node, shapes, lambda shape: f"bind: cannot infer the shape of {node.name!r} "
                                                                   f"({node.op.name}); inferred {shape}")
        context = None if placement is None else placement[id(node)]
        steps.append(Step(node, node.op, inputs[:n_args], inputs[n_args:], outputs, constant_shape, context))
    plan.steps = steps
    plan.num_slots = count
    plan.output_slots = output_slots = [slot[(id(node), index)] for node, index in symbol._outputs]
    # outputs holding the same value as an earlier output (merged nodes): handed out as copies
    plan.duplicate_outputs = [i for i, s in enumerate(output_slots) if s in output_slots[:i]]
    plan.output_shapes = [shapes.get((id(node), index)) or () for node, index in symbol._outputs]
    plan.output_types = [types.get((id(node), index)) or np.dtype(np.float32) for node, index in symbol._outputs]
    plan.output_is_loss = [node.op is not None and node.op.is_loss for node, index in symbol._outputs]
    # the plan forward runs: unrolled LSTMCell / GRUCell runs fused (fusion.py); ``steps`` stays the
    # node-for-node plan, run instead when a monitor reports every node
    plan.run_steps = steps
    # {slot: inferred shape}, read by the inference plan
    plan.slot_shapes = slot_shapes = {index: shapes.get(key) for key, index in slot.items()}
    plan.slot_itemsize = {index: np.dtype(types[key]).itemsize for key, index in slot.items()
                          if types.get(key) is not None}
    plan.slot_types = slot_types = {index: np.dtype(types[key]).name for key, index in slot.items()
                                    if types.get(key) is not None}
    if placement is None and fusion_enabled():
        plan.run_steps = fuse_recurrent_chains(
            steps, output_slots, slot_shapes, slot_types,
            lambda node, op, inputs, outputs: Step(node, op, inputs, [], outputs))
    plan.release = last_uses(plan.run_steps, output_slots)
    return plan


def created_shape(node, shapes, message):
    """The inferred output shape of a node whose operator creates a tensor from nothing
    (``create``: ``_zeros`` begin states), None for other nodes; MXNetError
    ``message(inferred shape)`` when it is not complete."""
    if not hasattr(node.op, "create"):
        return None
    shape = shapes.get((id(node), 0))
    if shape is None or not all(d > 0 for d in shape):
        raise MXNetError(message(shape))
    return shape


def eliminate_common_expressions():
    """Whether bind merges equal nodes: ``MXNET_ELIMINATE_COMMON_EXPR`` (default 1), as MXNet."""
    return os.environ.get("MXNET_ELIMINATE_COMMON_EXPR", "1").strip() not in ("0", "false", "False")



def last_uses(steps, output_slots):
    """For each step, the slots no later step reads (nor the graph outputs): the values the
    plan can drop once that step has run."""
    keep = set(output_slots)
    last = {}
    for position, step in enumerate(steps):
        for slot in list(step.inputs) + list(step.aux) + list(step.outputs):
            last[slot] = position
    release = [[] for _ in steps]
    for slot, position in last.items():
        if slot not in keep:
            release[position].append(slot)
    return [tuple(slots) for slots in release]
