"""Key-value stores (MXNet's ``mx.kvstore`` / ``mx.kv``).

- :mod:`.base`: ``KVStoreBase``, the registry of store types and ``create``.
- :mod:`.kvstore`: ``KVStore``, the in-process store ('local', 'device', ...).
- :mod:`.dist`: ``KVStoreDist``, the stores on torch.distributed ('dist_sync', ...).
- :mod:`.kvstore_server`: MXNet's server and scheduler roles, which exit at once.

The built-in types are registered here, in one place.
"""
from .base import KVStoreBase, create, register_types
from .kvstore import IN_PROCESS_TYPES, KVStore
from .dist import DIST_TYPES, KVStoreDist
from .kvstore_server import KVStoreServer

__all__ = ["KVStore", "KVStoreBase", "KVStoreServer", "create"]

register_types(IN_PROCESS_TYPES, KVStore)
register_types(DIST_TYPES, KVStoreDist)

# A process that MXNet's launcher started as a server or scheduler exits here, as MXNet's did
# once its server loop ended (mxtorch has no server loop to run).
from .kvstore_server import _init_kvstore_server_module  # noqa: E402
_init_kvstore_server_module()
