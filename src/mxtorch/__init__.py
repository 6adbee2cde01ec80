"""mxtorch: MXNet 1.x's Symbol/Module API and file formats on PyTorch.

``import mxtorch as mx`` gives the names MXNet 1.9.1 had (``mx.sym``,
``mx.nd``, ``mx.mod``, ``mx.io``, ``mx.metric``, ``mx.optimizer``, ...);
``mxtorch.install_as_mxnet()`` makes an unmodified ``import mxnet`` load
mxtorch.
"""
__version__ = "1.9.1"

from . import base
from . import error
from .base import MXNetError
from . import context
from .context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus
from . import ndarray
from . import ndarray as nd
from . import random
from . import random as rnd
from . import ops
from . import name
from . import attribute
from .attribute import AttrScope
from . import symbol
from . import symbol as sym
from . import executor
from . import io
from . import recordio
from . import initializer
from . import initializer as init
from . import lr_scheduler
from . import optimizer
from . import metric
from . import callback
from . import kvstore
from . import kvstore as kv
from . import model
from . import module
from . import module as mod
from . import executor_manager  # noqa: F401  (registers mx.model.DataParallelExecutorManager)
# MXNet's mxnet.executor imported these helpers from mxnet.executor_manager, above it here
for _name in ("_check_arguments", "_load_data", "_load_label"):
    setattr(executor, _name, getattr(executor_manager, _name))
executor._split_input_slice = module.executor_group._split_input_slice
del _name
from . import monitor
from . import monitor as mon
from . import profiler
from . import engine
from . import autograd
from . import util
from .util import is_np_array, is_np_shape, np_array, np_shape, set_np_shape, use_np, use_np_array, use_np_shape
from . import runtime
from . import registry
from . import libinfo
from . import operator
from . import log
from .install import install_as_mxnet

# Loaded on first use (``mx.gluon``, ``import mxtorch.gluon``, ``from mxtorch import np``), not by
# ``import mxtorch``: attribute name -> submodule.  See docs/performance.md ("Start-up and memory").
_LAZY_SUBMODULES = {
    "gluon": "gluon", "contrib": "contrib", "test_utils": "test_utils", "rnn": "rnn",
    "visualization": "visualization", "viz": "visualization", "image": "image", "img": "image",
    "numpy": "numpy", "np": "numpy", "numpy_extension": "numpy_extension", "npx": "numpy_extension",
    "numpy_dispatch_protocol": "numpy_dispatch_protocol", "numpy_op_signature": "numpy_op_signature",
    "notebook": "notebook",
    "torch": "torch", "th": "torch",  # MXNet's Lua Torch plug-in module (mx.th); PyTorch stays `import torch`
}


def _load_numpy_dispatch_protocol():
    from . import numpy_dispatch_protocol  # noqa: F401  (fills the tables numpy.sum(x) on mx.np arrays reads)


ndarray.numpy_array._load_dispatch_tables = _load_numpy_dispatch_protocol


def __getattr__(name):
    """``mxtorch.<name>`` for a submodule loaded on first use (PEP 562); AttributeError otherwise."""
    target = _LAZY_SUBMODULES.get(name)
    if target is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib
    module = importlib.import_module(f"{__name__}.{target}")
    globals()[name] = module
    return module


def __dir__():
    return sorted(set(globals()) | set(_LAZY_SUBMODULES))


# ``from mxtorch import *`` gives what MXNet 1.9.1's ``from mxnet import *`` gave: every public
# top-level name, the lazily loaded submodules included (loading them).
__all__ = sorted(name for name in set(globals()) | set(_LAZY_SUBMODULES) if not name.startswith("_"))
