"""The operator groups of both front ends: ``mx.nd.linalg`` / ``mx.sym.linalg``, ``contrib``,
``random``, ``image``, ``sparse`` give the operators of one name prefix by their short names
(``mx.nd.linalg.gemm2`` is ``_linalg_gemm2``), as MXNet's generated modules of those names did.

One class serves ``mx.nd`` and ``mx.sym``: a front end passes how it calls an operator and
which value is one of its arrays (an NDArray, a Symbol); the Python-level functions of a group
(``mx.nd.contrib.foreach``, ``mx.sym.random.exponential``) come from the modules the front end
lists, ahead of the operators.
"""
from __future__ import annotations

from .registry import get_operator, list_operators, namespace_operators


class OperatorGroup:
    """One group of operators under its front end (``label`` is ``'mx.nd'`` or ``'mx.sym'``).

    ``call(op_name, args, kwargs)`` runs or composes the operator; ``is_array(value)`` says
    whether a value is an array of the front end: ``random.uniform(low=array, ...)`` then takes
    the per-element ``_sample_`` form of the sampler.  ``modules``: objects with ``__all__``
    whose names the group gives first.  ``imported`` holds the other names MXNet's generated
    module of the same name had (``mx.nd.random.NDArray``, ...).  An unknown name raises
    AttributeError naming the group.  Each operator's function is made once, on first use:
    ``mx.sym.contrib.SyncBatchNorm is mx.sym.contrib.SyncBatchNorm``, as for MXNet's module
    functions (GluonCV tests ``norm_layer is SyncBatchNorm`` to give the layer its name)."""

    def __init__(self, label, name, call, is_array, modules=(), imported=None):
        self._label = label
        self._name = name
        self._call = call
        self._is_array = is_array
        self._modules = list(modules)
        self._operators = namespace_operators(name)
        self.imported = dict(imported or {})

    def __getattr__(self, short_name):
        fields = self.__dict__
        if short_name in fields.get("imported", {}):
            return fields["imported"][short_name]
        if not short_name.startswith("_"):
            for module in fields.get("_modules", ()):
                if short_name in getattr(module, "__all__", ()):
                    return getattr(module, short_name)
        operators = fields.get("_operators", {})
        if short_name not in operators:
            raise AttributeError(f"{fields.get('_label')}.{fields.get('_name')} has no operator {short_name!r}")
        op_name = operators[short_name]
        sample = f"_sample_{short_name}"
        per_element = self._name == "random" and sample in list_operators() and sample != op_name
        call, is_array = self._call, self._is_array

        def function(*args, **kwargs):
            if per_element and any(is_array(value) for value in list(args) + list(kwargs.values())):
                return call(sample, args, kwargs)
            return call(op_name, args, kwargs)
        function.__name__ = short_name
        function.__doc__ = get_operator(op_name).__doc__
        fields[short_name] = function
        return function

    def __dir__(self):
        names = set(self._operators)
        for module in self._modules:
            names |= {name for name in getattr(module, "__all__", ()) if not name.startswith("_")}
        return sorted(names)

    def __repr__(self):
        return f"<operator group {self._label}.{self._name}>"
