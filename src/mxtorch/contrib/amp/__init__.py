"""``mx.contrib.amp``: automatic mixed precision (see ``amp.py``)."""
from . import amp, lists  # noqa: F401
from .amp import *  # noqa: F401,F403
from .amp import __all__  # noqa: F401
from .loss_scaler import LossScaler  # noqa: F401
