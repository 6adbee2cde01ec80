"""``mx.nd.npx``: the NumPy front end's extension operators, one function per ``_npx_*``
registered name (``_npx_relu`` is ``npx.relu``), each returning ``mx.np.ndarray``.

They are the classic operators (``relu``, ``softmax``, ``batch_dot``, ``SequenceMask``, ...)
under the aliases MXNet registered for the NumPy front end (``ops/numpy_arrays.py``)."""
from ._generated import functions as _functions
from . import image, random  # noqa: F401

__all__ = sorted(_functions())
globals().update(_functions())
