"""Structured error classes (MXNet 1.9.1's ``mxnet.error``).

``register`` (also ``register_error``) adds a class to the registry ``check_call`` consults, so a
recorded message ``"MyError: detail"`` raises ``MyError("detail")``; ``InternalError`` is the
error for a fault inside the library rather than in the caller's input.  Python's
``ValueError``, ``TypeError``, ``AttributeError``, ``IndexError`` and ``NotImplementedError``
are registered under their own names (by ``mxtorch.base``).
"""
from .base import MXNetError, register_error

__all__ = ["MXNetError", "register"]

register = register_error


@register_error
class InternalError(MXNetError):
    """A fault inside the library rather than in its input.  The message gets a hint line
    asking to report it, unless it already carries one (``"MXNet hint:"``), as MXNet's."""

    def __init__(self, msg):
        if "MXNet hint:" not in msg:
            msg += ("\nMXNet hint: You hit an internal error. Please open an issue in "
                    "https://github.com/apache/incubator-mxnet/issues/new/choose to report it.")
        super().__init__(msg)
