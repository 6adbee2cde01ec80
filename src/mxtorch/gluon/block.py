"""``mxnet.gluon.block``: MXNet 1.9.1's module of the Gluon blocks, re-exported from the files
that hold each family:

- :mod:`.base_block`: :class:`Block` and its naming scope (how Blocks and Parameters are
  named);
- :mod:`.hybrid_block`: :class:`HybridBlock`, tracing ``hybrid_forward`` into a Symbol;
- :mod:`.cached_graph`: the traced Symbol bound once per input signature (MXNet's CachedOp);
- :mod:`.symbol_block`: :class:`SymbolBlock`, a HybridBlock made from a Symbol.
"""
from __future__ import annotations

from .base_block import Block, _BlockScope, _brief, _indent  # noqa: F401
from .hybrid_block import HybridBlock, _flatten, _regroup  # noqa: F401
from .symbol_block import SymbolBlock, _common_prefix  # noqa: F401
# names MXNet 1.9.1's mxnet.gluon.block had in its namespace
from .parameter import DeferredInitializationError, Parameter, ParameterDict  # noqa: F401
from .utils import HookHandle  # noqa: F401
from .utils import (_brief_print_list, _check_all_np_ndarrays, _check_same_symbol_type,  # noqa: F401
                    _gather_type_ctx_info, _infer_param_types)
from collections import OrderedDict, defaultdict  # noqa: F401
from ..base import MXNetError, mx_real_t  # noqa: F401
from ..ndarray.ndarray import NDArray  # noqa: F401
from ..symbol.symbol import Symbol  # noqa: F401
from ..symbol import load_json  # noqa: F401
from ..util import is_np_array, np_array, np_shape  # noqa: F401

__all__ = ["Block", "HybridBlock", "SymbolBlock"]
