"""``mx.sym`` / ``mx.symbol``: the Symbol graph API and one function per registered operator."""
from .symbol import Symbol, Variable, var, Group, load, load_json, create, zeros, ones  # noqa: F401

from ..ops import registry as _registry


from .register import install as _install_operators, make_function as _make_function  # noqa: E402

_install_operators(globals())

# Python-level functions of MXNet's mx.sym (scalar / symbol dispatch, creators); they take the place
# of operator aliases of the same name (``full``, ``maximum``, ...)
from .symbol import (full, arange, linspace, eye, pow, power, maximum, minimum, hypot,  # noqa: E402,F401,A004
                     histogram, split_v2)


from . import control_flow as _control_flow  # noqa: E402
from . import contrib_functions as _contrib_functions  # noqa: E402
from . import samplers as _samplers  # noqa: E402


class _Namespace:
    """``mx.sym.linalg`` / ``contrib`` / ``random`` / ...: short names for prefixed operators.
    ``imported`` holds the other names MXNet's generated module of the same name had in its
    namespace (``mx.sym.random.Symbol``, ...)."""

    def __init__(self, name, imported=None):
        self._name = name
        self._operators = _registry.namespace_operators(name)
        self.imported = dict(imported or {})

    def __getattr__(self, short_name):
        operators = self.__dict__.get("_operators", {})
        imported = self.__dict__.get("imported", {})
        if short_name in imported:
            return imported[short_name]
        if self._name == "random" and short_name in _samplers.__all__:
            return getattr(_samplers, short_name)   # MXNet's Python samplers (exponential(scale), ...)
        if self._name == "contrib":
            # the Python-level functions: foreach, while_loop, cond, rand_zipfian, adamw_update, ...
            for module in (_control_flow, _contrib_functions):
                if short_name in module.__all__:
                    return getattr(module, short_name)
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
        if self._name == "contrib":
            return sorted(set(self._operators) | set(_control_flow.__all__) | set(_contrib_functions.__all__))
        return sorted(self._operators)


for _name in _registry.NAMESPACE_PREFIXES:
    globals()[_name] = _Namespace(_name)
# the names MXNet's generated mxnet.symbol.random had besides the samplers (imported there)
from ..base import numeric_types as _numeric_types  # noqa: E402
random.imported.update(Symbol=Symbol, numeric_types=_numeric_types)  # noqa: F821


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
