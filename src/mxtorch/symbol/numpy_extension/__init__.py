"""``mx.sym.npx``: the NumPy front end's extension operators on symbols, one function per
``_npx_*`` registered name (as ``mx.nd.npx``), building ``_Symbol`` nodes."""
from ._generated import functions as _functions
from . import image  # noqa: F401

__all__ = sorted(_functions())
globals().update(_functions())
