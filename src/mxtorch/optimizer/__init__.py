"""``mx.optimizer``: MXNet 1.9.1's optimizers, Updater and ``.states`` format on PyTorch.

Each update rule lives in its own file (``sgd.py``, ``adam.py``, ...) as a public class
registered under its lower-cased name plus a function that applies one step to torch
tensors.  ``optimizer.py`` holds the base class, the registry and the Updater;
``states_format.py`` reads and writes MXNet's pickled optimizer states.
"""
from .optimizer import Optimizer, Updater, get_updater, create, register
from .sgd import SGD, ccSGD
from .nag import NAG
from .adam import Adam
from .adagrad import AdaGrad
from .adadelta import AdaDelta
from .rmsprop import RMSProp
from .adamax import Adamax
from .nadam import Nadam
from .ftrl import Ftrl
from .ftml import FTML
from .signum import Signum
from .lamb import LAMB
from .dcasgd import DCASGD
from .sgld import SGLD
from .lars import LARS
from .lbsgd import LBSGD
from .testing import Test
from . import contrib
from .contrib import GroupAdaGrad
from ..ndarray import abs as NDabs  # noqa: F401  (MXNet's package exported its module's import of it)

__all__ = ["AdaDelta", "AdaGrad", "Adam", "Adamax", "DCASGD", "FTML", "Ftrl", "LARS", "LBSGD", "NAG",
           "Nadam", "Optimizer", "RMSProp", "SGD", "SGLD", "Signum", "LAMB", "Test", "Updater", "ccSGD",
           "create", "get_updater", "register", "GroupAdaGrad"]
