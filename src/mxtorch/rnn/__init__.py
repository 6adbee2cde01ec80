"""``mx.rnn``: symbolic recurrent cells, bucketed sentence data and RNN checkpoint helpers
(MXNet 1.9.1's ``mxnet.rnn``)."""
from . import rnn_cell
from .rnn_cell import *  # noqa: F401,F403
from . import rnn
from .rnn import *  # noqa: F401,F403
from . import io
from .io import *  # noqa: F401,F403
# names MXNet's mx.rnn also exposed through its own imports
from ..io import DataBatch, DataDesc, DataIter  # noqa: F401
from ..model import save_checkpoint, load_checkpoint  # noqa: F401
# names MXNet 1.9.1's mxnet.rnn had in its namespace from its ctypes binding
from ..base import (numeric_types, string_types)  # noqa: E402,F401
