"""Token indexing for ``mx.contrib.text`` (MXNet 1.9.1's ``mxnet.contrib.text.vocab``); the
class lives with the token counting in :mod:`mxtorch.gluon.contrib.data.vocab`."""
import collections  # noqa: F401  (MXNet's module namespace)

from ...gluon.contrib.data.vocab import Vocabulary
from . import _constants as C  # noqa: F401

__all__ = ["Vocabulary"]
