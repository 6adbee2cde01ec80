"""``mx.gluon``: MXNet's imperative/hybrid front end on mxtorch's operator registry,
NDArray, autograd and executor."""
import importlib as _importlib

from .parameter import Parameter, Constant, ParameterDict, DeferredInitializationError, tensor_types  # noqa: F401
from .block import Block, HybridBlock, SymbolBlock  # noqa: F401
from . import nn  # noqa: F401

for _module in ("loss", "trainer", "rnn"):
    try:
        globals()[_module] = _importlib.import_module(f".{_module}", __name__)
    except ModuleNotFoundError as _error:   # the module is not written yet
        if _error.name != f"{__name__}.{_module}":
            raise
if "trainer" in globals():
    from .trainer import Trainer  # noqa: F401

# data, utils, model_zoo and contrib come from another part of the work; import them when present
for _module in ("utils", "data", "model_zoo", "contrib"):
    try:
        globals()[_module] = _importlib.import_module(f".{_module}", __name__)
    except ModuleNotFoundError as _error:
        if _error.name != f"{__name__}.{_module}":
            raise
del _module
