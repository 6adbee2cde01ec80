"""``mx.contrib.sym``: symbolic ``_contrib_*`` operators by their short names."""


def __getattr__(name):
    from .. import symbol
    return getattr(symbol.contrib, name)
