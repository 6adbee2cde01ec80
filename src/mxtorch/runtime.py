"""``mx.runtime``: which build features this installation has (MXNet's ``mxnet.runtime``).

MXNet reported the options its shared library was compiled with.  mxtorch
reports the same feature names, answered from the PyTorch build underneath
(``torch.backends``) and the optional libraries that are importable: ``CUDA``
is whether torch was built with CUDA, ``MKLDNN`` whether oneDNN is available,
``INT64_TENSOR_SIZE`` is on because torch indexes tensors with 64-bit sizes,
and so on.  ``Features()`` is a singleton ordered mapping ``name -> Feature``.
"""
from __future__ import annotations

import collections
import importlib.util
# names MXNet 1.9.1's mxnet.runtime had in its namespace from its ctypes binding
from .base import check_call  # noqa: E402,F401

__all__ = ["Feature", "Features", "feature_list"]

# MXNet 1.9.1's feature names, in its order.
_FEATURE_NAMES = (
    "CUDA", "CUDNN", "NCCL", "CUDA_RTC", "TENSORRT", "CPU_SSE", "CPU_SSE2", "CPU_SSE3", "CPU_SSE4_1",
    "CPU_SSE4_2", "CPU_SSE4A", "CPU_AVX", "CPU_AVX2", "OPENMP", "SSE", "F16C", "JEMALLOC", "BLAS_OPEN",
    "BLAS_ATLAS", "BLAS_MKL", "BLAS_APPLE", "LAPACK", "MKLDNN", "OPENCV", "CAFFE", "PROFILER",
    "DIST_KVSTORE", "CXX14", "INT64_TENSOR_SIZE", "SIGNAL_HANDLER", "DEBUG", "TVM_OP",
)

def _detect():
    """Map each MXNet feature name to whether this installation provides it."""
    import torch

    try:
        capability = torch.backends.cpu.get_cpu_capability()
    except (AttributeError, RuntimeError):
        capability = "DEFAULT"
    x86_vector = capability in ("AVX2", "AVX512")
    avx2 = capability in ("AVX2", "AVX512")
    cuda_built = bool(torch.backends.cuda.is_built())
    found = {
        "CUDA": cuda_built,
        "CUDNN": cuda_built and bool(torch.backends.cudnn.is_available()),
        "NCCL": cuda_built and _nccl_available(),
        "CUDA_RTC": False,           # run-time CUDA compilation (mx.rtc) is not provided
        "TENSORRT": False,
        "CPU_SSE": x86_vector, "CPU_SSE2": x86_vector, "CPU_SSE3": x86_vector,
        "CPU_SSE4_1": x86_vector, "CPU_SSE4_2": x86_vector, "CPU_SSE4A": False,
        "CPU_AVX": x86_vector, "CPU_AVX2": avx2,
        "OPENMP": bool(torch.backends.openmp.is_available()),
        "SSE": x86_vector, "F16C": avx2,
        "JEMALLOC": False,
        "BLAS_OPEN": not torch.backends.mkl.is_available(),
        "BLAS_ATLAS": False,
        "BLAS_MKL": bool(torch.backends.mkl.is_available()),
        "BLAS_APPLE": False,
        "LAPACK": bool(getattr(torch._C, "has_lapack", True)),
        "MKLDNN": bool(torch.backends.mkldnn.is_available()),
        "OPENCV": importlib.util.find_spec("cv2") is not None,
        "CAFFE": False,
        "PROFILER": True,            # mx.profiler is backed by torch.profiler
        "DIST_KVSTORE": bool(torch.distributed.is_available()),
        "CXX14": True,
        "INT64_TENSOR_SIZE": True,   # torch sizes and indexes tensors with int64
        "SIGNAL_HANDLER": False,
        "DEBUG": False,
        "TVM_OP": False,
    }
    return found


def _nccl_available():
    try:
        import torch.distributed as dist
        return bool(dist.is_available() and dist.is_nccl_available())
    except (ImportError, AttributeError, RuntimeError):
        return False


class Feature:
    """One build feature: ``name`` (str) and ``enabled`` (bool); printed as ``✔ NAME`` / ``✖ NAME``."""

    __slots__ = ("name", "enabled")

    def __init__(self, name, enabled):
        self.name = name
        self.enabled = bool(enabled)

    def __repr__(self):
        return ("✔ " if self.enabled else "✖ ") + self.name


def feature_list():
    """All features as a list of :class:`Feature`, in MXNet's order."""
    found = _detect()
    return [Feature(name, found[name]) for name in _FEATURE_NAMES]


class Features(collections.OrderedDict):
    """The singleton mapping ``feature name -> Feature`` (MXNet's ``mx.runtime.Features``)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            instance = super().__new__(cls)
            super(Features, instance).__init__((f.name, f) for f in feature_list())
            cls._instance = instance
        return cls._instance

    def __init__(self):  # filled once in __new__; a second Features() returns the same mapping
        pass

    def __repr__(self):
        return repr(list(self.values()))

    def is_enabled(self, feature_name):
        """Whether ``feature_name`` (case-insensitive) is enabled.

        Raises RuntimeError naming the known features when the name is unknown, as MXNet did.
        """
        key = str(feature_name).upper()
        if key not in self:
            raise RuntimeError(f"Feature '{key}' is unknown, known features are: {list(self.keys())}")
        return self[key].enabled

# the C library object MXNet's module held (``from .base import _LIB``; see base_ctypes._CLibrary)
from .base_ctypes import _LIB  # noqa: E402,F401
