"""Devices: MXNet's ``Context`` mapped onto ``torch.device``.

``mx.cpu(i)`` is always the host CPU whatever ``i`` is (MXNet let several
"CPU devices" share the host, which data-parallel tests use); ``mx.gpu(i)``
is ``cuda:i``.  A ``with ctx:`` block sets the default context.

Two switches change where contexts compute, both off by default (``mxtorch run``
sets them from its ``--gpu-as-cpu`` and ``--device`` options):

- gpu-as-cpu (``set_gpu_as_cpu(n)`` or ``MXTORCH_GPU_AS_CPU=n`` in the
  environment, ``n`` >= 1; ``1``/``true`` mean one GPU): ``mx.gpu(i)`` stays a
  ``gpu(i)`` context (``device_type`` 'gpu', ``device_id`` i) but its arrays are
  stored and computed on the CPU, and ``num_gpus()`` reports ``n``, for scripts
  that hard-code GPUs.  The first GPU context used warns once.  Off, ``mx.gpu(i)``
  on a machine without that CUDA device raises MXNetError when used, as MXNet did.
- device override (``set_device('cuda:1')`` / ``MXTORCH_DEVICE``): every context,
  ``mx.cpu()`` and ``mx.gpu()`` alike, computes on that torch device
  (``cpu``, ``cuda``, ``cuda:N``, ``mps``).
"""
from __future__ import annotations

import numbers
import os
import threading
import warnings

import torch

from .base import MXNetError
# names MXNet 1.9.1's mxnet.context had in its namespace from its ctypes binding
from .base import (check_call, classproperty, with_metaclass)  # noqa: E402,F401

__all__ = ["Context", "cpu", "gpu", "cpu_pinned", "current_context", "num_gpus", "gpu_memory_info"]

_TRUE_WORDS = ("1", "true", "yes", "on")
_FALSE_WORDS = ("", "0", "false", "no", "off")


def _gpu_count_from_text(text, source):
    """``MXTORCH_GPU_AS_CPU``'s value: 0 (off) or the number of GPUs to pretend."""
    text = (text or "").strip().lower()
    if text in _FALSE_WORDS:
        return 0
    if text in _TRUE_WORDS[1:]:
        return 1
    try:
        count = int(text)
    except ValueError:
        count = -1
    if count < 0:
        raise MXNetError(f"{source}: expected 0/1 or a number of GPUs to pretend, got {text!r}")
    return count


class _Switches:
    """Process-wide device switches (see the module docstring)."""
    gpu_as_cpu = 0          # number of pretended GPUs, 0 = off
    device = None           # torch.device overriding every context, or None
    warned = False


def set_gpu_as_cpu(count=1):
    """Make ``mx.gpu(i)`` compute on the CPU and ``num_gpus()`` report ``count``; 0 or False turns
    it off.  ``MXTORCH_GPU_AS_CPU`` in the environment sets it when mxtorch is imported.

    Raises MXNetError for a negative count."""
    count = int(count)
    if count < 0:
        raise MXNetError(f"set_gpu_as_cpu: count must be >= 0, got {count}")
    _Switches.gpu_as_cpu = count
    _Switches.warned = False


def set_device(device):
    """Map every context (``mx.cpu()`` and ``mx.gpu()``) to the torch ``device``
    ('cpu', 'cuda', 'cuda:1', 'mps'); None restores the normal mapping.

    Raises MXNetError for a string torch does not accept as a device, or a device
    this machine does not have."""
    if device is None or device == "":
        _Switches.device = None
        return
    try:
        parsed = torch.device(device)
    except (RuntimeError, TypeError) as error:
        raise MXNetError(f"--device: expected a torch device such as 'cpu', 'cuda:1' or 'mps', "
                         f"got {device!r} ({error})") from None
    if parsed.type == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if (parsed.index or 0) >= count:
            raise MXNetError(f"--device {device}: this machine has {count} CUDA device(s) visible to torch")
    elif parsed.type == "mps":
        backend = getattr(torch.backends, "mps", None)
        if backend is None or not backend.is_available():
            raise MXNetError(f"--device {device}: MPS is not available on this machine")
    _Switches.device = parsed


def _read_environment():
    _Switches.gpu_as_cpu = _gpu_count_from_text(os.environ.get("MXTORCH_GPU_AS_CPU"), "MXTORCH_GPU_AS_CPU")
    if os.environ.get("MXTORCH_DEVICE"):
        set_device(os.environ["MXTORCH_DEVICE"])


class _DefaultContext:
    """``Context.default_ctx`` read or assigned on an instance: the calling thread's default
    context, shared by every Context (MXNet's class property)."""

    def __get__(self, instance, owner=None):
        return current_context()

    def __set__(self, instance, value):
        _set_default_context(value)


class _ContextType(type):
    """Metaclass giving ``Context.default_ctx`` on the class itself, readable and assignable."""

    @property
    def default_ctx(cls):
        """The calling thread's default context (``cpu(0)`` unless set or inside ``with ctx:``)."""
        return current_context()

    @default_ctx.setter
    def default_ctx(cls, value):
        _set_default_context(value)


def _set_default_context(value):
    if not isinstance(value, Context):
        raise MXNetError(f"Context.default_ctx: expected a Context such as mx.cpu(0), got {value!r}")
    Context._default.value = value


class Context(metaclass=_ContextType):
    """A device: ``device_type`` ('cpu', 'gpu', 'cpu_pinned', 'cpu_shared') and ``device_id``.

    Equal contexts compare and hash equal.  ``torch_device`` gives the torch
    device tensors of this context live on.  ``Context.default_ctx`` (on the class or
    any instance) reads or sets the calling thread's default context, the one
    ``current_context()`` returns outside ``with ctx:`` blocks.
    """

    default_ctx = _DefaultContext()

    devtype2str = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
    devstr2type = {"cpu": 1, "gpu": 2, "cpu_pinned": 3, "cpu_shared": 5}
    _default = threading.local()

    def __init__(self, device_type, device_id=0):
        if isinstance(device_type, Context):
            self.device_typeid = device_type.device_typeid
            self.device_id = device_type.device_id
        else:
            if isinstance(device_type, int):
                if device_type not in self.devtype2str:
                    raise MXNetError(f"Context: unknown device type id {device_type}")
                self.device_typeid = device_type
            else:
                if device_type not in self.devstr2type:
                    raise MXNetError(
                        f"Context: device_type must be one of {sorted(self.devstr2type)}, got {device_type!r}")
                self.device_typeid = self.devstr2type[device_type]
            if not isinstance(device_id, numbers.Integral) or device_id < 0:
                raise MXNetError(f"Context: device_id must be a non-negative integer, got {device_id!r}")
            self.device_id = int(device_id)
        self._old_ctx = None

    @property
    def device_type(self):
        return self.devtype2str[self.device_typeid]

    @property
    def torch_device(self):
        """The ``torch.device`` that arrays of this context are stored on (see the module
        docstring for the gpu-as-cpu and device switches)."""
        if _Switches.device is not None:
            return _Switches.device
        if self.device_typeid == 2 and _Switches.gpu_as_cpu:
            if not _Switches.warned:
                _Switches.warned = True
                warnings.warn(f"mxtorch gpu-as-cpu: {self} and every other GPU context compute on the CPU "
                              f"(MXTORCH_GPU_AS_CPU / mxtorch run --gpu-as-cpu)", RuntimeWarning, stacklevel=2)
            return torch.device("cpu")
        if self.device_typeid == 2:
            count = torch.cuda.device_count() if torch.cuda.is_available() else 0
            if self.device_id >= count:
                raise MXNetError(f"Context {self}: no such GPU; this machine has {count} CUDA device(s) "
                                 f"visible to torch" + ("" if count else " (use mx.cpu(), or run a script that "
                                                            "hard-codes mx.gpu() with mxtorch run --gpu-as-cpu / "
                                                            "MXTORCH_GPU_AS_CPU=1)"))
            return torch.device("cuda", self.device_id)
        return torch.device("cpu")

    def __hash__(self):
        return hash((self.device_typeid, self.device_id))

    def __eq__(self, other):
        return isinstance(other, Context) and \
            (self.device_typeid, self.device_id) == (other.device_typeid, other.device_id)

    def __ne__(self, other):
        return not self == other

    def __repr__(self):
        return f"{self.device_type}({self.device_id})"

    __str__ = __repr__

    def __enter__(self):
        self._old_ctx = getattr(Context._default, "value", None)
        Context._default.value = self
        return self

    def __exit__(self, *exc):
        Context._default.value = self._old_ctx

    def empty_cache(self):
        """Release cached device memory (``torch.cuda.empty_cache`` on GPUs)."""
        if self.device_typeid == 2 and torch.cuda.is_available():
            torch.cuda.empty_cache()


def cpu(device_id=0):
    """The host CPU; ``device_id`` only distinguishes logical devices (MXNet's ``mx.cpu(i)``)."""
    return Context("cpu", device_id)


def cpu_pinned(device_id=0):
    """Page-locked host memory context (stored on the CPU)."""
    return Context("cpu_pinned", device_id)


def gpu(device_id=0):
    """CUDA device ``device_id`` (MXNet's ``mx.gpu(i)``)."""
    return Context("gpu", device_id)


def current_context():
    """The default context: the innermost ``with ctx:`` block, else ``cpu(0)``."""
    value = getattr(Context._default, "value", None)
    return value if value is not None else Context("cpu", 0)


def num_gpus():
    """Number of CUDA devices torch can see; under gpu-as-cpu, the number of GPUs pretended."""
    if _Switches.gpu_as_cpu:
        return _Switches.gpu_as_cpu
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def gpu_memory_info(device_id=0):
    """``(free, total)`` bytes of GPU ``device_id``; raises MXNetError without CUDA."""
    if not torch.cuda.is_available():
        raise MXNetError("gpu_memory_info: no CUDA device is available")
    return torch.cuda.mem_get_info(device_id)


_read_environment()


def context_from_torch(device):
    """The Context for a ``torch.device``."""
    if device.type == "cuda":
        return Context("gpu", device.index or 0)
    return Context("cpu", 0)

# the C library object MXNet's module held (``from .base import _LIB``; see base_ctypes._CLibrary)
from .base_ctypes import _LIB  # noqa: E402,F401

# MXNet's module imported the class-property metaclass from mxnet.base
from .base import _MXClassPropertyMetaClass  # noqa: E402,F401
