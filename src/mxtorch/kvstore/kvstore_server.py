"""MXNet's parameter-server processes, which mxtorch does not need (MXNet's
``mx.kvstore.kvstore_server``).

MXNet's ``tools/launch.py`` started three kinds of process from one script: workers
(``DMLC_ROLE=worker``), servers (``DMLC_ROLE=server``) and one scheduler
(``DMLC_ROLE=scheduler``); importing mxnet in a server or scheduler ran the server loop and
then exited.  mxtorch's distributed stores all-reduce among the workers, so a process whose
``DMLC_ROLE`` is 'server' or 'scheduler' has nothing to do: importing mxtorch there prints
one line to stderr and exits with status 0, so job files written for MXNet's launcher keep
working (their workers do the training).
"""
from __future__ import annotations

import os
import sys
# names MXNet 1.9.1's mxnet.kvstore.kvstore_server had in its namespace from its ctypes binding
from ..base import check_call  # noqa: E402,F401
# names MXNet 1.9.1's mxnet.kvstore.kvstore_server had in its namespace (imported there, not defined)
from .base import create  # noqa: E402,F401

__all__ = ["KVStoreServer"]

_IDLE_ROLES = ("server", "scheduler")


class KVStoreServer:
    """MXNet's server-side loop around a kvstore.  mxtorch has no servers: ``run`` returns
    at once (see the module docstring)."""

    def __init__(self, kvstore):
        self.kvstore = kvstore
        self.handle = getattr(kvstore, "handle", None)
        self.init_logginig = False

    def run(self):
        """Nothing to serve: mxtorch's distributed stores all-reduce among the workers."""


def _init_kvstore_server_module():
    """Exit at once (status 0, one line on stderr) in a process that MXNet's launcher started
    as a parameter server or scheduler (``DMLC_ROLE`` 'server' or 'scheduler')."""
    role = os.environ.get("DMLC_ROLE", "")
    if role in _IDLE_ROLES:
        sys.stderr.write(f"mxtorch: DMLC_ROLE={role}: no parameter {role} is needed (the workers all-reduce); "
                         f"exiting\n")
        sys.stderr.flush()
        sys.exit(0)

# the C library object MXNet's module held (``from .base import _LIB``; see base_ctypes._CLibrary)
from ..base_ctypes import _LIB  # noqa: E402,F401
