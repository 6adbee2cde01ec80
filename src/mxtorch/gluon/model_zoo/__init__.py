"""``mx.gluon.model_zoo``: model definitions with MXNet's parameter names, and the file layout
of pre-trained parameters (``model_store``)."""
from . import model_store, vision  # noqa: F401

__all__ = ["model_store", "vision"]
