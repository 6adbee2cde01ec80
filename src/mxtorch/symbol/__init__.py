"""``mx.sym`` / ``mx.symbol``: the Symbol graph API and one function per registered operator."""
from .symbol import Symbol, Variable, var, Group, load, load_json, create, zeros, ones  # noqa: F401

from ..ops import registry as _registry


def _make_function(op_name):
    op_class = _registry.get_operator(op_name)

    def function(*args, **kwargs):
        return create(op_name, *args, **kwargs)
    function.__name__ = op_name
    function.__doc__ = (op_class.__doc__ or f"The {op_name} operator.") + \
        "\n\nSymbolic form: input Symbols positionally or by argument name, attributes as keywords, " \
        "``name=`` and ``attr=``."
    return function


def _install(namespace):
    for op_name in _registry.list_operators():
        if op_name in namespace and op_name in ("zeros", "ones"):
            continue
        namespace[op_name] = _make_function(op_name)


_install(globals())

# Python-level functions of MXNet's mx.sym (scalar / symbol dispatch, creators); they take the place
# of operator aliases of the same name (``full``, ``maximum``, ...)
from .symbol import (full, arange, linspace, eye, pow, power, maximum, minimum, hypot,  # noqa: E402,F401,A004
                     histogram, split_v2)


from . import control_flow as _control_flow  # noqa: E402
from . import samplers as _samplers  # noqa: E402


class _Namespace:
    """``mx.sym.linalg`` / ``contrib`` / ``random`` / ...: short names for prefixed operators."""

    def __init__(self, name):
        self._name = name
        self._operators = _registry.namespace_operators(name)

    def __getattr__(self, short_name):
        operators = self.__dict__.get("_operators", {})
        if self._name == "random" and short_name in _samplers.__all__:
            return getattr(_samplers, short_name)   # MXNet's Python samplers (exponential(scale), ...)
        if self._name == "contrib" and short_name in _control_flow.__all__:
            return getattr(_control_flow, short_name)   # foreach, while_loop, cond
        if short_name not in operators:
            raise AttributeError(f"mx.sym.{self._name} has no operator {short_name!r}")
        sample = f"_sample_{short_name}"
        default = operators[short_name]

        def function(*args, **kwargs):
            # random.uniform(low=Symbol, ...) samples per element: the _sample_ form
            if self._name == "random" and sample in _registry.list_operators() and \
                    any(isinstance(v, Symbol) for v in list(args) + list(kwargs.values())):
                return create(sample, *args, **kwargs)
            return create(default, *args, **kwargs)
        function.__name__ = short_name
        return function

    def __dir__(self):
        return sorted(self._operators)


for _name in _registry.NAMESPACE_PREFIXES:
    globals()[_name] = _Namespace(_name)


class _Internal:
    """``mx.sym._internal`` / ``mx.sym.op``: every registered operator by name, public or
    underscore (``_Plus``, ``_plus_scalar``, ``FullyConnected``)."""

    def __getattr__(self, name):
        try:
            return _make_function(name)
        except Exception:
            raise AttributeError(name) from None


_internal = _Internal()
op = _Internal()


# MXNet's submodules of the generated front end (``from mxnet.ndarray.contrib import ...``)
_registry.expose_namespaces(__name__, {name: globals()[name] for name in
                                       list(_registry.NAMESPACE_PREFIXES) + ["op", "_internal"]})
