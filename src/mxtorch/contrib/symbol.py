"""``mx.contrib.sym``: symbolic ``_contrib_*`` operators by their short names."""
from .. import symbol as _symbol


def __getattr__(name):
    return getattr(_symbol.contrib, name)
