"""The neural-network layer operators, one family a file: ``FullyConnected``
(``fully_connected.py``), ``Pooling`` (``pooling.py``), ``Activation`` / ``LeakyReLU`` /
``SoftmaxActivation`` (``activation.py``), ``BatchNorm`` (``batch_norm.py``), ``Dropout``
(``dropout.py``), ``Embedding`` (``embedding.py``).  The convolutions are ``ops/convolution.py``.

Importing the package registers them (``ops/__init__.py`` imports it).
"""
# registration side effects: each module declares its operators
from . import fully_connected, pooling, activation, batch_norm, dropout, embedding  # noqa: F401
