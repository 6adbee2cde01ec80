"""``mx.sym`` / ``mx.symbol``: the Symbol graph API and one function per registered operator."""
from .symbol import Symbol, Variable, var, Group, load, load_json, create  # noqa: F401
from .functions import zeros, ones  # noqa: F401

from ..ops import registry as _registry
from ..ops.namespaces import OperatorGroup as _OperatorGroup


from .register import install as _install_operators, make_function as _make_function  # noqa: E402

_install_operators(globals())

# Python-level functions of MXNet's mx.sym (scalar / symbol dispatch, creators); they take the place
# of operator aliases of the same name (``full``, ``maximum``, ...)
from .functions import (full, arange, linspace, eye, pow, power, maximum, minimum, hypot,  # noqa: E402,F401,A004
                        histogram)
from .symbol import split_v2  # noqa: E402,F401


from . import control_flow as _control_flow  # noqa: E402
from . import contrib_functions as _contrib_functions  # noqa: E402
from . import samplers as _samplers  # noqa: E402
from . import register as _register  # noqa: E402

# MXNet's mxnet.symbol.register imported the contrib AdamW updates
_register.adamw_update = _contrib_functions.adamw_update
_register.mp_adamw_update = _contrib_functions.mp_adamw_update


_GROUP_MODULES = {"random": [_samplers], "contrib": [_control_flow, _contrib_functions]}
for _name in _registry.NAMESPACE_PREFIXES:
    globals()[_name] = _OperatorGroup("mx.sym", _name, lambda op_name, args, kwargs: create(op_name, *args, **kwargs),
                                      lambda value: isinstance(value, Symbol), _GROUP_MODULES.get(_name, ()))
# the names MXNet's generated mxnet.symbol.random had besides the samplers (imported there)
from ..base import numeric_types as _numeric_types  # noqa: E402
random.imported.update(Symbol=Symbol, numeric_types=_numeric_types)  # noqa: F821
# and the private names of MXNet's mxnet.symbol.random and mxnet.symbol.contrib
from ..base import _Null, _LIB  # noqa: E402
random.imported.update(_Null=_Null, _random_helper=_samplers._random_helper)  # noqa: F821
contrib.imported.update(_control_flow.MXNET_PRIVATE_NAMES, _LIB=_LIB)  # noqa: F821


class _Internal:
    """``mx.sym._internal`` / ``mx.sym.op``: every registered operator by name, public or
    underscore (``_Plus``, ``_plus_scalar``, ``FullyConnected``)."""

    def __getattr__(self, name):
        try:
            function = _make_function(name)
        except Exception:
            raise AttributeError(name) from None
        self.__dict__[name] = function      # made once: the same object on every access
        return function


_internal = _Internal()
op = _Internal()
# MXNet's mxnet.symbol.register imported the internal AdamW operators from its _internal module
_register._adamw_update = _internal._adamw_update
_register._mp_adamw_update = _internal._mp_adamw_update


# MXNet's submodules of the generated front end (``from mxnet.ndarray.contrib import ...``)
_registry.expose_namespaces(__name__, {name: globals()[name] for name in
                                       list(_registry.NAMESPACE_PREFIXES) + ["op", "_internal"]})

# MXNet's mxnet.symbol.symbol held the functions of symbol/functions.py too (it was one module)
from . import symbol as _symbol_module  # noqa: E402
from . import functions as _functions  # noqa: E402
for _name in ("zeros", "ones", "full", "arange", "linspace", "eye", "pow", "power", "maximum", "minimum", "hypot",
              "histogram"):
    setattr(_symbol_module, _name, getattr(_functions, _name))
# and the private names it had from the ndarray modules and its C binding
from ..ndarray import ndarray as _nd_module, handles as _nd_handles  # noqa: E402
for _name in ("_DTYPE_MX_TO_NP", "_DTYPE_NP_TO_MX", "_GRAD_REQ_MAP", "_SIGNED_INT32_UPPER_LIMIT",
              "_STORAGE_TYPE_STR_TO_ID", "_int64_enabled", "_LIB"):
    setattr(_symbol_module, _name, getattr(_nd_module, _name))
_symbol_module._ndarray_cls = _nd_handles.ndarray_cls
_symbol_module._set_symbol_class = _register._set_symbol_class

# MXNet's NumPy front end, symbolic: mx.sym.np (the mx.nd.np functions building nodes)
from . import numpy  # noqa: E402
np = numpy
from . import numpy_extension  # noqa: E402
npx = numpy_extension
