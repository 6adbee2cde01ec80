"""``install_as_mxnet()``: make ``import mxnet`` load mxtorch (completed by the data-parallel issue)."""
from __future__ import annotations

import sys

from .base import MXNetError

__all__ = ["install_as_mxnet"]


def install_as_mxnet():
    """Register mxtorch and its submodules under the ``mxnet`` names.

    Raises MXNetError if a real ``mxnet`` package is already imported.
    """
    import mxtorch
    existing = sys.modules.get("mxnet")
    if existing is not None and existing is not mxtorch:
        raise MXNetError("install_as_mxnet: a real 'mxnet' module is already imported; "
                         "call install_as_mxnet() before anything imports mxnet")
    prefix = "mxtorch"
    for name, module in list(sys.modules.items()):
        if name == prefix or name.startswith(prefix + "."):
            sys.modules["mxnet" + name[len(prefix):]] = module
