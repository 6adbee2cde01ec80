"""Imperative front end: one ``mx.nd.<Name>`` function per registered operator."""
from __future__ import annotations

import torch

from ..base import MXNetError
from ..ops import registry
from .ndarray import NDArray

__all__ = ["invoke", "install"]


def invoke(op_class, args, kwargs):
    """Run operator ``op_class`` on NDArrays now: positional and keyword arrays fill its
    arguments then aux states in declaration order; other keywords are attributes.
    ``out=`` receives the result in place.  Returns an NDArray or a list of them.
    """
    out = kwargs.pop("out", None)
    kwargs.pop("name", None)
    kwargs.pop("attr", None)
    arrays = {key: value for key, value in kwargs.items() if isinstance(value, NDArray)}
    attrs = {key: value for key, value in kwargs.items() if not isinstance(value, NDArray)}
    if len(args) == 1 and isinstance(args[0], (list, tuple)) and op_class.variadic:
        args = tuple(args[0])
    if op_class.variadic and "num_args" in op_class.schema and "num_args" not in attrs:
        attrs["num_args"] = len(args) + len(arrays)
    op = op_class(attrs)
    names = op.arguments() + op.auxiliary_states()
    values = dict(zip(names, args))
    if len(args) > len(names):
        raise MXNetError(f"Operator {op.name}: takes {len(names)} inputs {names}, got {len(args)} positional")
    for key, value in arrays.items():
        if key not in names:
            raise MXNetError(f"Operator {op.name}: unknown input {key!r}; inputs are {names}")
        values[key] = value
    missing = [n for n in names if n not in values]
    if missing:
        raise MXNetError(f"Operator {op.name}: missing input(s) {missing}")
    for key, value in values.items():
        if not isinstance(value, NDArray):
            raise MXNetError(f"Operator {op.name}: input {key!r} must be an NDArray, got {type(value).__name__}")
    first = values[names[0]] if names else None
    ctx = first.context if first is not None else None
    n_args = len(op.arguments())
    tensors = [values[n]._tensor for n in names]
    from .. import autograd
    is_train = autograd.is_training()
    recording = autograd.is_recording()
    with torch.set_grad_enabled(recording):
        outputs = op.forward(is_train, tensors[:n_args], tensors[n_args:])
    outputs = list(outputs)[:op.num_visible_outputs()]
    results = [NDArray(t, ctx if ctx is not None else None) for t in outputs]
    if out is not None:
        targets = out if isinstance(out, (list, tuple)) else [out]
        for target, result in zip(targets, results):
            target[:] = result
        return out
    return results[0] if len(results) == 1 else results


def _make_function(op_name, op_class):
    def function(*args, **kwargs):
        return invoke(op_class, args, kwargs)
    function.__name__ = op_name
    function.__doc__ = (op_class.__doc__ or f"The {op_name} operator.") + \
        "\n\nImperative form: arrays as positional or keyword arguments, attributes as keywords."
    return function


def install(namespace):
    """Add a function for each registered operator name to ``namespace`` (a module dict)."""
    for op_name in registry.list_operators():
        if op_name.startswith("_") and op_name.lower() != op_name and False:
            continue
        if op_name in namespace and not getattr(namespace[op_name], "_generated", False) \
                and not op_name.startswith("_"):
            continue
        function = _make_function(op_name, registry.get_operator(op_name))
        function._generated = True
        namespace[op_name] = function
