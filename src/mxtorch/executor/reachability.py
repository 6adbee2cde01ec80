"""Which variables of a bound graph the outputs reach, through the inputs a rule follows.

One walk serves the executor (the arguments a gradient can reach: every input except through
operators that stop gradients) and the exporter (the variables inference reads: every input
except the labels of loss heads).
"""
from __future__ import annotations

__all__ = ["reached_variables", "gradient_inputs", "head_gradient_inputs", "inference_inputs",
           "non_differentiable_nodes"]


def reached_variables(symbol, followed_inputs, outputs=None):
    """Names of the variables reached from ``symbol``'s outputs (the positions in ``outputs``,
    default all), walking from each operator node only into the ``(child, index)`` entries
    ``followed_inputs(node)`` returns."""
    reached, seen = set(), set()
    entries = symbol._outputs if outputs is None else [symbol._outputs[i] for i in outputs]
    stack = [node for node, _ in entries]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.op is None:
            reached.add(node.name)
        else:
            stack.extend(child for child, _ in followed_inputs(node))
    return reached


def gradient_inputs(node):
    """The inputs a gradient flows back into: all of them, none through ``BlockGrad``
    (``Operator.stops_gradient``)."""
    return () if node.op.stops_gradient else node.inputs


def head_gradient_inputs(node):
    """The inputs an output's head gradient flows back into: those of ``gradient_inputs``, none
    through a loss head (its gradient ignores the head gradient)."""
    return () if node.op.is_loss else gradient_inputs(node)


def inference_inputs(node):
    """The inputs inference reads: all of them, the data only of a loss head (its labels,
    after the data, are read by the training gradient alone)."""
    return node.inputs[:1] if node.op.is_loss else node.inputs


def non_differentiable_nodes(symbol, variables):
    """The nodes of ``symbol`` without a gradient (``Operator.has_gradient`` False) that a
    gradient for one of ``variables`` (names) would have to pass: reached from the outputs
    through ``gradient_inputs`` and reaching one of ``variables`` the same way."""
    found, seen, variables = [], set(), set(variables)
    stack = [node for node, _ in symbol._outputs]
    while stack:
        node = stack.pop()
        if id(node) in seen or node.op is None:
            continue
        seen.add(id(node))
        inputs = gradient_inputs(node)
        if not node.op.has_gradient:
            below = reached_variables(_Entries(inputs), gradient_inputs)
            if below & variables:
                found.append(node)
        stack.extend(child for child, _ in inputs)
    return found


class _Entries:
    """A stand-in graph whose outputs are the given ``(node, index)`` entries."""

    def __init__(self, entries):
        self._outputs = list(entries)
