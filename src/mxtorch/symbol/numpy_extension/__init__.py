"""``mx.sym.npx``: the NumPy front end's extension operators on symbols, one function per
``_npx_*`` registered name (as ``mx.nd.npx``), building ``_Symbol`` nodes."""
from ._generated import functions as _functions
from . import image  # noqa: F401
import sys as _sys
import types as _types

from ...ndarray.numpy_extension import random as _nd_random
from ..numpy._symbol import symbolic_function as _symbolic_function

random = _types.ModuleType(__name__ + ".random", "mx.sym.npx.random: the samplers, building nodes")
random.__dict__.update({name: _symbolic_function(getattr(_nd_random, name)) for name in _nd_random.__all__})
random.__all__ = list(_nd_random.__all__)
random.current_context = _nd_random.current_context
_sys.modules[__name__ + ".random"] = random

__all__ = sorted(_functions())
globals().update(_functions())
