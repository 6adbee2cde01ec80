"""``mx.contrib.nd``: imperative ``_contrib_*`` operators by their short names."""
from .. import ndarray as _ndarray


def __getattr__(name):
    return getattr(_ndarray.contrib, name)
