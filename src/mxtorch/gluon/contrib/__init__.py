"""``mx.gluon.contrib``: MXNet 1.9.1's contributed Gluon layers and data helpers."""
from . import nn, data  # noqa: F401
import importlib as _importlib

for _module in ("estimator", "cnn", "rnn"):
    try:
        globals()[_module] = _importlib.import_module(f".{_module}", __name__)
    except ModuleNotFoundError as _error:   # not written yet
        if _error.name != f"{__name__}.{_module}":
            raise
del _importlib
