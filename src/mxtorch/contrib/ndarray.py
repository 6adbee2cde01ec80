"""``mx.contrib.nd``: imperative ``_contrib_*`` operators by their short names."""


def __getattr__(name):
    from .. import ndarray
    return getattr(ndarray.contrib, name)
