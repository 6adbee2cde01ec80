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
from . import test_utils
from . import rnn
from . import visualization
from . import visualization as viz
from . import profiler
from . import engine
from . import image
from . import image as img
from . import autograd
from . import numpy
from . import numpy as np
from . import numpy_extension
from . import numpy_extension as npx
from . import numpy_dispatch_protocol  # noqa: F401  (numpy.sum(x) on mx.np arrays runs mx.np.sum)
from . import numpy_op_signature  # noqa: F401
from . import util
from .util import is_np_array, is_np_shape, np_array, np_shape, set_np_shape, use_np, use_np_array, use_np_shape
from . import runtime
from . import registry
from . import libinfo
from . import contrib
from . import operator
from . import gluon
from . import log
from . import notebook
from . import torch  # MXNet's Lua Torch plug-in module (mx.th); PyTorch stays `import torch`
from . import torch as th
from .install import install_as_mxnet
