"""``mxnet.numpy.arrayprint``: NumPy's print options (mx.np arrays print through NumPy)."""
from ..util import set_module

__all__ = ["set_printoptions"]


@set_module("mxnet.numpy")
def set_printoptions(precision=None, threshold=None, **kwarg):
    """NumPy's ``set_printoptions`` for ``precision`` and ``threshold`` (MXNet's two)."""
    import numpy as onp
    if kwarg:
        raise NotImplementedError(f"mxnet.numpy.set_printoptions only supports precision and threshold, got "
                                  f"{sorted(kwarg)}")
    onp.set_printoptions(precision=precision, threshold=threshold)
