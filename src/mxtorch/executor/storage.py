"""Storage types of a bound graph's arrays (MXNet's storage-type inference at bind time).

``simple_bind`` (and a Module's binding) gives every argument the storage type MXNet gave it:
the one in ``stype_dict``, else the variable's declared ``stype`` (its ``__storage_type__``
attribute), else 'default'.  The gradient arrays get the storage type of the gradient MXNet's
backward pass produces (its backward FInferStorageType): ``row_sparse`` where every use of
the argument is an operator whose backward gives that argument a row_sparse gradient
(``Embedding(sparse_grad=True)``, ``SparseEmbedding``, ``dot(csr, weight)``), 'default'
otherwise (a row_sparse and a dense contribution add up densely, as MXNet's ``add_n`` fell
back to dense).  An operator declares its rule with ``gradient_storage_types(input_stypes)``,
the storage type of each argument's gradient; operators without one give dense gradients.

mxtorch holds sparse arrays densely (``ndarray/sparse.py``); the storage type is what the
optimizers read (a row_sparse gradient gets MXNet's lazy update).
"""
from __future__ import annotations

import torch

from ..base import MXNetError
from ..ndarray.ndarray import NDArray, to_torch_dtype
from ..ndarray.sparse import STORAGE_TYPES, _with_storage
from ..ops.registry import output_storage_types
from ..symbol.symbol import STORAGE_TYPE_IDS

__all__ = ["argument_storage_types", "gradient_storage_types", "graph_output_storage_types", "declared_storage_type",
           "zeros_of_storage"]

_STORAGE_NAMES = {str(value): key for key, value in STORAGE_TYPE_IDS.items()}


def declared_storage_type(node):
    """The storage type a variable node declares (``mx.sym.var(..., stype=...)``), or None."""
    return _STORAGE_NAMES.get(node.attrs.get("__storage_type__"))


def argument_storage_types(symbol, stype_dict=None):
    """``{name: stype}`` of every argument and auxiliary state of ``symbol``.

    Without ``stype_dict`` a variable has its declared stype, else 'default'.  With one (as
    MXNet's simple_bind) the given names take the given types, the others their declared
    stype; a variable with neither raises MXNetError (MXNet's InferStorageType could not
    decide them).  Names of ``stype_dict`` that are not variables are ignored, and so are
    unknown storage type names (MXNet skipped them too)."""
    names = symbol.list_arguments() + symbol.list_auxiliary_states()
    declared = {node.name: declared_storage_type(node) for node in symbol._nodes() if node.op is None}
    given = {k: v for k, v in (stype_dict or {}).items() if v in STORAGE_TYPES}
    result, undecided = {}, []
    for name in names:
        stype = given.get(name) or declared.get(name)
        if stype is None and stype_dict is not None:
            undecided.append(name)
        result[name] = stype or "default"
    if undecided:
        raise MXNetError("InferStorageType pass cannot decide storage type for the following arguments "
                         f"(-1 means unknown stype): {undecided}; give them in stype_dict")
    return result


def _node_storage(symbol, variable_stypes):
    """``({id(node): [input stype, ...]}, {id(node): [output stype, ...]})`` for every node, the
    storage types flowing forward from the variables through each operator's forward rule
    (``registry.output_storage_types``)."""
    outputs, inputs = {}, {}
    for node in symbol._nodes():
        if node.op is None:
            outputs[id(node)] = [variable_stypes.get(node.name, "default")]
            continue
        stypes = [outputs[id(child)][index] if index < len(outputs[id(child)]) else "default"
                  for child, index in node.inputs]
        inputs[id(node)] = stypes
        try:
            visible = output_storage_types(node.op, stypes)
        except MXNetError:
            visible = []
        outputs[id(node)] = list(visible) + ["default"] * (node.op.num_outputs() - len(visible))
    return inputs, outputs


def graph_output_storage_types(symbol, variable_stypes):
    """The storage type of each output of ``symbol`` when its variables have the storage types
    ``variable_stypes`` (``{name: stype}``; missing names are 'default'): MXNet's forward
    storage-type inference, which gives a bound executor's ``outputs`` their types."""
    if all(stype == "default" for stype in variable_stypes.values()):
        return ["default"] * len(symbol._outputs)
    _, outputs = _node_storage(symbol, variable_stypes)
    return [outputs[id(node)][index] if index < len(outputs[id(node)]) else "default"
            for node, index in symbol._outputs]


def gradient_storage_types(symbol, variable_stypes):
    """``{argument name: stype}``: the storage type of each argument's gradient, MXNet's
    backward storage rules (see the module docstring)."""
    node_inputs, _ = _node_storage(symbol, variable_stypes)
    contributions = {}
    for node in symbol._nodes():
        if node.op is None or node.op.stops_gradient:
            continue
        grads = node.op.gradient_storage_types(node_inputs[id(node)])
        for position, (child, _) in enumerate(node.inputs):
            if child.op is None:
                stype = grads[position] if grads is not None and position < len(grads) else "default"
                contributions.setdefault(child.name, []).append(stype)
    result = {}
    for name in symbol.list_arguments():
        found = contributions.get(name, [])
        result[name] = found[0] if found and all(s == found[0] for s in found) else "default"
    return result


def zeros_of_storage(shape, dtype, context, stype="default"):
    """An all-zero array of ``shape``, ``dtype`` on ``context``, of storage type ``stype``."""
    tensor = torch.zeros(tuple(shape), dtype=to_torch_dtype(dtype), device=context.torch_device)
    return NDArray(tensor, context) if stype == "default" else _with_storage(tensor, context, stype)
