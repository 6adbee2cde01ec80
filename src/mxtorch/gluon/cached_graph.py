"""The hybridized form of a HybridBlock (MXNet's CachedOp): the traced Symbol bound once per
input signature through the Executor that ``Module`` uses; each call runs that plan on the
inputs' and Parameters' tensors under the caller's autograd mode, so the numbers and the
gradients are the imperative path's."""
from __future__ import annotations

import numpy as np
import torch

from .. import autograd
from ..base import MXNetError
from ..ndarray.ndarray import NDArray
from ..ops.registry import attach_zero_carriers
from ..ops.subgraph_op import CachedOp
from ..recording import RecordedCall, note_operator_call, recorded_entry
from ..symbol.symbol import topological_order


def _operator_names(sym):
    """``{name: operator name}`` for every output of an operator node of ``sym`` and every
    input as the monitor reports it (``<node>_<input>``)."""
    result = {}
    for node in topological_order(sym._outputs):
        if node.op is not None:
            inputs = list(node.op.arguments()) + list(node.op.auxiliary_states())
            for name in node.output_names() + [f"{node.name}_{item}" for item in inputs]:
                result[name] = node.op.name
    return result


def _stand_in(array):
    """An NDArray of ``array``'s shape, dtype and context backed by one element of memory."""
    tensor = torch.zeros((), dtype=array._tensor.dtype, device=array._tensor.device).expand(array.shape)
    return NDArray(tensor, array.context)


class _CachedGraph:
    """A traced Symbol bound once per input signature through the Executor (the hybridized
    form of a HybridBlock; MXNet's CachedOp)."""

    def __init__(self, sym, input_names, params, inline_limit=2):
        self.symbol = sym
        self._inline_limit = inline_limit       # hybridize(inline_limit=): see _note_recorded
        self._operator_nodes = [node for node in topological_order(sym._outputs) if node.op is not None]
        self._recorded_op = None                # the _CachedOp node of a recording, made once
        self._arg_names = sym.list_arguments()
        self._aux_names = sym.list_auxiliary_states()
        self._input_names = list(input_names)
        self._params = params
        self._executors = {}
        self._callback = None

    def sources(self):
        """For each argument / aux name: ('input', index) or ('param', Parameter)."""
        index = {name: i for i, name in enumerate(self._input_names)}
        result = []
        for name in self._arg_names + self._aux_names:
            if name in index:
                result.append(("input", index[name]))
            elif name in self._params:
                result.append(("param", self._params[name]))
            else:
                raise MXNetError(f"Unknown input to HybridBlock: {name}")
        return result

    def __call__(self, inputs, ctx):
        sources = self.sources()
        arrays = [inputs[item] if kind == "input" else item.data(ctx) for kind, item in sources]
        for (kind, item), array in zip(sources, arrays):
            if kind == "input" and not isinstance(array, NDArray):
                raise MXNetError(f"HybridBlock: input {self._input_names[item]!r} must be an NDArray, got "
                                 f"{type(array).__name__}")
        key = (ctx, tuple((array.shape, np.dtype(array.dtype).name) for array in arrays))
        executor = self._executors.get(key)
        count = len(self._arg_names)
        if executor is None:
            # the graph is bound once per signature and then run on each call's tensors
            # (run_tensors): the data inputs are bound as shape-and-dtype stand-ins, so the cached
            # graph keeps no reference to (and no memory of) the arrays of the first call
            bound = [_stand_in(array) if kind == "input" else array for (kind, _), array in zip(sources, arrays)]
            executor = self.symbol.bind(ctx, dict(zip(self._arg_names, bound[:count])), grad_req="null",
                                        aux_states=dict(zip(self._aux_names, bound[count:])))
            if self._callback is not None:
                callback, monitor_all = self._callback
                operator_of = _operator_names(self.symbol)
                variables = set(self._arg_names) | set(self._aux_names)

                def hook(name, array):
                    # MXNet's CachedOp hook reports operator inputs (``<node>_<input>``) and
                    # outputs only, not the graph's variables under their own names
                    if name not in variables:
                        callback(name, operator_of.get(name, ""), array)
                executor.set_monitor_callback(hook, monitor_all)
            self._executors[key] = executor
        tensors = [array._tensor for array in arrays]
        with torch.set_grad_enabled(autograd.is_recording()):
            outputs = executor.run_tensors(tensors[:count], tensors[count:], is_train=autograd.is_training())
            # an output no gradient passes through (a comparison's bool, argsort's indices) still
            # reaches the recorded inputs with zero gradients, and an integer output the graph
            # cast from float values (sum(dtype='int32')) with its gradient, as in the imperative path
            if autograd.is_recording():
                outputs = attach_zero_carriers(tensors, list(outputs), _GraphComputation(executor),
                                               autograd.is_training(), count)
                self._note_recorded(tensors, outputs)
        return [NDArray(tensor, ctx) for tensor in outputs]

    def _note_recorded(self, tensors, outputs):
        """Record the call for ``mx.autograd.get_symbol`` as MXNet recorded a CachedOp: its
        operator nodes inlined when there are at most ``inline_limit`` of them
        (``hybridize(inline_limit=2)``), else one ``_CachedOp`` node over the graph."""
        nodes = self._operator_nodes
        if len(nodes) > self._inline_limit:
            if self._recorded_op is None:
                self._recorded_op = CachedOp()
                self._recorded_op.subgraphs = [self.symbol]
            note_operator_call(self._recorded_op, tensors, outputs)
            return
        by_name = dict(zip(self._arg_names + self._aux_names, tensors))
        calls = {}

        def entry(node, index):
            return (calls[id(node)], index) if node.op is not None else recorded_entry(by_name[node.name])
        for node in nodes:
            calls[id(node)] = RecordedCall(node.op, [entry(child, index) for child, index in node.inputs])
        for tensor, (node, index) in zip(outputs, self.symbol._outputs):
            tensor._mx_recorded = entry(node, index)


class _GraphComputation:
    """The bound graph as the computation ``attach_zero_carriers`` runs again to differentiate
    an integer output (``forward(is_train, arguments, aux)``, as an Operator's)."""

    def __init__(self, executor):
        self._executor = executor

    def forward(self, is_train, inputs, aux):
        return self._executor.run_tensors(list(inputs), list(aux), is_train=is_train)
