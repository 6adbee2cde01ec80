"""``mx.contrib.amp``: automatic mixed precision (see ``amp.py``)."""
from . import amp, lists  # noqa: F401
from .amp import *  # noqa: F401,F403
from .amp import __all__ as _OWN_NAMES
from .loss_scaler import LossScaler  # noqa: F401
from . import loss_scaler  # noqa: F401,E402
from ...util import star_exports  # noqa: E402

# what ``from mxnet.contrib.amp import *`` gave: amp.py's names and the modules amp, lists, loss_scaler
__all__ = star_exports(__name__, globals(), _OWN_NAMES)
