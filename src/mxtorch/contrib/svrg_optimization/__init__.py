"""``mx.contrib.svrg_optimization``: stochastic variance-reduced gradient training
(Johnson & Zhang, 2013) for Module code: ``SVRGModule`` and its optimizers."""
from . import svrg_module, svrg_optimizer  # noqa: F401
from .svrg_module import SVRGModule  # noqa: F401
