"""The registry of subgraph backends: MXNet's ``Symbol.optimize_for(backend)`` /
``Symbol.get_backend_symbol(backend)`` / ``HybridBlock.hybridize(backend=...)`` name a backend,
and a backend rewrites a Symbol into another Symbol (it groups nodes into subgraph nodes or
replaces them by fused operators such as ``_sg_mkldnn_conv``).

This module only holds the table, so it sits in the symbol layer; the backends register
themselves from the layers that implement them (``mxtorch.subgraph``).  A backend is an object
with ``partition(symbol, args, aux, options) -> Symbol`` where ``args`` / ``aux`` are the
name -> NDArray dicts given to ``optimize_for`` (None from ``get_backend_symbol``) and may be
updated in place, as MXNet's partitioners did, and ``options`` the extra keyword arguments.
"""
from __future__ import annotations

from ..base import MXNetError

__all__ = ["register_backend", "get_backend", "list_backends"]

_BACKENDS: dict = {}


def register_backend(name, backend):
    """Register ``backend`` (an object with ``partition``) under ``name``; a later registration
    of the same name replaces the earlier one.  Returns ``backend``."""
    if not isinstance(name, str) or not name:
        raise MXNetError(f"register_backend: name must be a non-empty string, got {name!r}")
    if not callable(getattr(backend, "partition", None)):
        raise MXNetError(f"register_backend({name!r}): the backend needs a partition(symbol, args, aux, options) method")
    _BACKENDS[name] = backend
    return backend


def get_backend(name, where):
    """The backend registered as ``name``; MXNetError naming ``where`` (the calling API) and the
    registered names otherwise."""
    if not isinstance(name, str):
        raise MXNetError(f"{where}: backend must be a string, got {type(name).__name__}")
    try:
        return _BACKENDS[name]
    except KeyError:
        raise MXNetError(f"{where}: subgraph backend {name!r} is not registered; registered backends: "
                         f"{sorted(_BACKENDS)}") from None


def list_backends():
    """The registered backend names, sorted."""
    return sorted(_BACKENDS)
