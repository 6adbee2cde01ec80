"""MXNet 1.9.1's ``.states`` file: a pickle of optimizer states, read and written without MXNet.

The file is a pickle (protocol 4) of ``{index: state}`` (or of ``(states, optimizer)``),
where each state is None, an NDArray or a tuple of NDArrays.  MXNet pickles an NDArray as
a call of the global ``mxnet.ndarray.ndarray.NDArray`` with ``(None,)`` followed by a
BUILD with ``{'handle': bytearray(raw)}``, ``raw`` being one array in the NDArray binary
format (the ``MXNDArraySaveRawBytes`` layout, also used per record in ``.params`` files).

Reading uses an unpickler that only resolves an allow-list of globals (MXNet's and
mxtorch's NDArray, optimizer and lr-scheduler classes, ``bytearray`` and the copyreg
helpers pickle uses for plain objects), so a crafted file cannot run code; any other
global raises MXNetError.  Writing emits the same opcodes MXNet does, so MXNet 1.9.1
loads the result.
"""
from __future__ import annotations

import collections
import copyreg
import io
import pickle

import numpy as np

from .. import lr_scheduler
from ..base import MXNetError
from ..ndarray.ndarray import NDArray
from ..ndarray.serialization import load_raw_bytes, save_raw_bytes

__all__ = ["dumps_states", "loads_states"]

_PROTOCOL = 4


# -- one array <-> bytes: MXNet's per-array layout, the codec of ndarray.serialization -----------------
def _save_raw_bytes(array):
    return bytes(save_raw_bytes(array))


def _load_raw_bytes(data):
    return load_raw_bytes(bytes(data))


# -- reading ---------------------------------------------------------------------------------------
class _PickledNDArray:
    """What MXNet's pickled NDArray unpickles to before it is turned into an mxtorch NDArray."""

    def __init__(self, handle=None):
        self.handle = handle

    def __setstate__(self, state):
        if not isinstance(state, dict) or "handle" not in state:
            raise MXNetError("states file: a pickled NDArray has no 'handle' entry")
        self.handle = state["handle"]


def _optimizer_class(name, optimizer_classes):
    klass = optimizer_classes.get(name.lower())
    if klass is None:
        raise MXNetError(f"states file: the pickled optimizer class {name!r} has no mxtorch "
                         f"counterpart; known optimizers are {sorted(optimizer_classes)}")
    return klass


def _scheduler_class(name):
    klass = getattr(lr_scheduler, name, None)
    if not (isinstance(klass, type) and issubclass(klass, lr_scheduler.LRScheduler)):
        raise MXNetError(f"states file: the pickled learning-rate scheduler class {name!r} has no "
                         f"mxtorch counterpart")
    return klass


_SAFE_GLOBALS = {
    ("builtins", "bytearray"): bytearray,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "complex"): complex,
    ("builtins", "slice"): slice,
    ("builtins", "object"): object,
    ("copyreg", "_reconstructor"): copyreg._reconstructor,
    ("copyreg", "__newobj__"): copyreg.__newobj__,
    ("collections", "OrderedDict"): collections.OrderedDict,
}


class _StatesUnpickler(pickle.Unpickler):
    def __init__(self, file, optimizer_classes):
        super().__init__(file)
        self.optimizer_classes = optimizer_classes

    def find_class(self, module, name):
        if (module, name) in (("mxnet.ndarray.ndarray", "NDArray"), ("mxnet.ndarray", "NDArray")):
            return _PickledNDArray
        if (module, name) in _SAFE_GLOBALS:
            return _SAFE_GLOBALS[(module, name)]
        if module in ("numpy", "numpy.core.multiarray", "numpy._core.multiarray") \
                and name in ("dtype", "scalar"):
            return _numpy_global(module, name)
        if module in ("mxnet.optimizer.optimizer", "mxnet.optimizer", "mxnet.optimizer.contrib") \
                or module.startswith("mxtorch.optimizer"):
            return _optimizer_class(name, self.optimizer_classes)
        if module in ("mxnet.lr_scheduler", "mxtorch.lr_scheduler"):
            return _scheduler_class(name)
        raise MXNetError(f"states file: refusing to load the global {module}.{name}; a .states file "
                         f"only holds NDArrays, containers and optimizer objects")


def _numpy_global(module, name):
    if name == "dtype":
        return np.dtype
    try:
        from numpy.core.multiarray import scalar
    except ImportError:
        from numpy._core.multiarray import scalar
    return scalar


def _to_ndarrays(value, seen=None):
    """Replace every pickled MXNet NDArray inside ``value`` by an mxtorch NDArray."""
    if isinstance(value, _PickledNDArray):
        if value.handle is None:
            return None
        return _load_raw_bytes(value.handle)
    if isinstance(value, tuple):
        return tuple(_to_ndarrays(item) for item in value)
    if isinstance(value, list):
        return [_to_ndarrays(item) for item in value]
    if isinstance(value, dict):
        return {key: _to_ndarrays(item) for key, item in value.items()}
    if hasattr(value, "__dict__") and not isinstance(value, type):
        for key, item in list(vars(value).items()):
            if isinstance(item, (_PickledNDArray, tuple, list, dict)):
                setattr(value, key, _to_ndarrays(item))
    return value


def loads_states(data, optimizer_classes):
    """Unpickle a ``.states`` payload (bytes) into mxtorch objects; MXNetError on bad input.

    ``optimizer_classes`` maps lower-case optimizer names to the classes a pickled optimizer
    may be (``Optimizer.opt_registry``, which the caller above this module passes)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise MXNetError(f"set_states: expected the bytes of a .states file, got {type(data).__name__}")
    try:
        loaded = _StatesUnpickler(io.BytesIO(bytes(data)), optimizer_classes).load()
    except MXNetError:
        raise
    except Exception as error:  # truncated or corrupt pickles raise many error types
        raise MXNetError(f"set_states: the data is not a valid optimizer states pickle "
                         f"({type(error).__name__}: {error})") from None
    return _to_ndarrays(loaded)


# -- writing ---------------------------------------------------------------------------------------
class _MXNetNDArrayGlobal:
    """Stands for the global ``mxnet.ndarray.ndarray.NDArray`` in a pickle being written."""


class _StatesPickler(pickle._Pickler):
    """Pickler writing NDArrays as MXNet 1.9.1 does.

    The pure-Python pickler is used because it lets ``save_global`` emit the name of a class
    (``mxnet.ndarray.ndarray.NDArray``) that is not importable here.
    """

    def reducer_override(self, obj):
        if isinstance(obj, NDArray):
            return _MXNetNDArrayGlobal, (None,), {"handle": bytearray(_save_raw_bytes(obj))}
        return NotImplemented

    def save_global(self, obj, name=None):
        mxnet_name = _mxnet_global_name(obj)
        if mxnet_name is not None:
            self.save(mxnet_name[0])
            self.save(mxnet_name[1])
            self.write(pickle.STACK_GLOBAL)
            self.memoize(obj)
            return
        super().save_global(obj, name)


def _mxnet_global_name(obj):
    """``(module, name)`` under which MXNet 1.9.1 knows ``obj``, or None.

    mxtorch's own optimizer and scheduler classes are written under MXNet's names (their
    attributes have MXNet's names too), so MXNet loads a ``dump_optimizer=True`` pickle and
    mxtorch maps the names back when reading.
    """
    if obj is _MXNetNDArrayGlobal:
        return ("mxnet.ndarray.ndarray", "NDArray")
    if not isinstance(obj, type):
        return None
    module = getattr(obj, "__module__", "")
    if module == "mxtorch.optimizer.contrib":
        return ("mxnet.optimizer.contrib", obj.__name__)
    if module.startswith("mxtorch.optimizer."):
        return ("mxnet.optimizer.optimizer", obj.__name__)
    if module == "mxtorch.lr_scheduler":
        return ("mxnet.lr_scheduler", obj.__name__)
    return None


def dumps_states(value):
    """Pickle ``value`` (states dict or ``(states, optimizer)``) in MXNet's ``.states`` format."""
    out = io.BytesIO()
    _StatesPickler(out, protocol=_PROTOCOL).dump(value)
    return out.getvalue()
