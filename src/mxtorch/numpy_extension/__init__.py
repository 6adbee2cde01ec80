"""``mx.npx``: the NumPy front end's extensions: the semantics switches (``set_np``,
``reset_np``, ``is_np_array``, ``use_np``), the neural-network operators on ``mx.np`` arrays
(``relu``, ``softmax``, ``batch_dot``, ``sequence_mask``, ``topk``, ...; ``mx.nd.npx``),
devices, ``save`` / ``load`` and ``waitall``."""
from ..context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus, gpu_memory_info  # noqa: F401
from ..util import (is_np_array, is_np_shape, set_np, reset_np, use_np, use_np_array, use_np_shape,  # noqa: F401
                    np_array, np_shape, get_cuda_compute_capability)
from ..ndarray.ndarray import waitall  # noqa: F401
from ..ndarray.numpy_extension import *  # noqa: F401,F403
from ..ndarray.numpy_extension import __all__ as _operators
from . import utils, random, image  # noqa: F401
from .utils import save, load  # noqa: F401

__all__ = ["Context", "cpu", "gpu", "cpu_pinned", "current_context", "num_gpus", "gpu_memory_info",
           "is_np_array", "is_np_shape", "set_np", "reset_np", "use_np", "waitall", "save", "load",
           "get_cuda_compute_capability"] + list(_operators)
from ..base import check_call  # noqa: F401,E402  (MXNet's mx.npx namespace)
from ..base_ctypes import classproperty, with_metaclass  # noqa: F401,E402
