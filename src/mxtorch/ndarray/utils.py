"""``mx.nd.utils``: the array constructors and file functions, as MXNet's ``mxnet.ndarray.utils``
grouped them (dense arrays only)."""
from .ndarray import array, empty, zeros  # noqa: F401
from .serialization import save, load, load_frombuffer  # noqa: F401

__all__ = ["array", "empty", "zeros", "save", "load", "load_frombuffer"]
