"""``mx.gluon.contrib.nn``: Concurrent, HybridConcurrent, Identity, PixelShuffle1D/2D/3D,
SparseEmbedding, SyncBatchNorm."""
from .basic_layers import *  # noqa: F401,F403
from .basic_layers import __all__  # noqa: F401
