"""The neural-network layer operators, one family a file: ``FullyConnected``
(``fully_connected.py``), ``Pooling`` (``pooling.py``), ``Activation`` / ``LeakyReLU`` /
``SoftmaxActivation`` (``activation.py``), ``BatchNorm`` (``batch_norm.py``), ``Dropout``
(``dropout.py``), ``Embedding`` (``embedding.py``).  The convolutions are ``ops/convolution.py``.

Importing the package registers them (``ops/__init__.py`` imports it).
"""
# registration side effects: each module declares its operators
from . import fully_connected, pooling, activation, batch_norm, dropout, embedding  # noqa: F401
# the names the other operator modules import from here (quantized.py, normalization.py, misc.py)
from .fully_connected import FullyConnected  # noqa: F401
from .pooling import Pooling  # noqa: F401
from .batch_norm import BatchNorm  # noqa: F401
from ..convolution import Convolution  # noqa: F401
from ..geometry import _check_geometry, _conv_output_size, _expand_conv_geometry  # noqa: F401
