"""Token counting for ``mx.contrib.text`` (MXNet 1.9.1's ``mxnet.contrib.text.utils``); the
function lives with the vocabulary in :mod:`mxtorch.gluon.contrib.data.vocab`."""
import collections  # noqa: F401  (MXNet's module namespace)
import re  # noqa: F401

from ...gluon.contrib.data.vocab import count_tokens_from_str

__all__ = ["count_tokens_from_str"]
