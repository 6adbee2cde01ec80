"""``mx.nd``: NDArray, its constructors, file format, and one function per registered operator."""
from .ndarray import (NDArray, array, zeros, ones, empty, full, arange, concat, waitall,
                      moveaxis, onehot_encode, from_torch)
from .serialization import save, load, load_frombuffer
from . import register as _register

_register.install(globals())
