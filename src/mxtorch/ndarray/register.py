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
    count = 0
    while count < len(args) and (isinstance(args[count], NDArray) or args[count] is None):
        count += 1
    if count < len(args) and not op_class.variadic:
        for key, value in registry.positional_attributes(op_class, args[count:]).items():
            if key in attrs:
                raise MXNetError(f"Operator {op_class.name}: attribute {key!r} given twice")
            attrs[key] = value
        args = args[:count]
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


class _Namespace:
    """``mx.nd.linalg`` / ``contrib`` / ``random`` / ...: short names for prefixed operators."""

    def __init__(self, name):
        self._name = name
        self._operators = registry.namespace_operators(name)

    def __getattr__(self, short_name):
        operators = self.__dict__.get("_operators", {})
        if short_name not in operators:
            raise AttributeError(f"mx.nd.{self._name} has no operator {short_name!r}")
        sample = f"_sample_{short_name}"
        op_class = registry.get_operator(operators[short_name])

        def function(*args, **kwargs):
            # mx.nd.random.uniform(low=NDArray, ...) samples per element: the _sample_ form
            if self._name == "random" and sample in registry.list_operators() and \
                    any(isinstance(v, NDArray) for v in list(args) + list(kwargs.values())):
                return invoke(registry.get_operator(sample), args, kwargs)
            return invoke(op_class, args, kwargs)
        function.__name__ = short_name
        function.__doc__ = op_class.__doc__
        return function

    def __dir__(self):
        return sorted(self._operators)


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
    for name in registry.NAMESPACE_PREFIXES:
        if name == "random" and "random" in namespace:
            continue
        namespace[name] = _Namespace(name)
