"""``install_as_mxnet()``: make an unmodified ``import mxnet`` load mxtorch.

After ``mxtorch.install_as_mxnet()`` every ``mxnet`` module name resolves to the
mxtorch module of the same dotted path (``mxnet.module.base_module`` is
``mxtorch.module.base_module``), in the manner of PyMySQL's
``install_as_MySQLdb()``:

- nothing is imported under the name ``mxnet`` until the program imports it (programs
  may check ``'mxnet' not in sys.modules`` first, e.g. to set multiprocessing options);
  the modules legacy MXNet code imports (``mxnet.ndarray.ndarray`` (pickles name
  ``mxnet.ndarray.ndarray.NDArray``), ``mxnet.module.base_module``,
  ``mxnet.module.executor_group``, ``mxnet.model``, ``mxnet.kvstore``, ...) are loaded as
  mxtorch modules at once and entered in ``sys.modules`` under their ``mxnet`` names when
  ``mxnet`` itself is first imported;
- a finder placed first on ``sys.meta_path`` maps any other ``mxnet.X`` imported
  later to ``mxtorch.X``; a name mxtorch does not provide raises
  ``ModuleNotFoundError`` naming both modules (a real MXNet installed next to
  mxtorch is never mixed in).

The mxtorch modules keep their own ``__name__`` and ``__spec__``: classes
pickled afterwards name ``mxtorch.*``, and pickles written by MXNet (which name
``mxnet.*``) load.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import threading

from .base import MXNetError
from .package_compat import disable_package_compat, enable_package_compat, package_compat_requested

__all__ = ["install_as_mxnet"]

_ALIAS = "mxnet"
_PACKAGE = "mxtorch"

# Imported (and aliased) eagerly: the modules MXNet 1.x programs and pickles name directly.
LEGACY_MODULES = (
    "base", "context", "ndarray", "ndarray.ndarray", "ndarray.register", "ndarray.serialization",
    "symbol", "symbol.symbol", "executor", "executor.executor", "module", "module.base_module",
    "module.executor_group", "module.module", "model", "io", "metric", "optimizer", "optimizer.optimizer",
    "initializer", "callback", "kvstore", "lr_scheduler", "monitor", "name", "attribute", "random",
    "recordio", "operator", "test_utils", "autograd", "util",
)

_install_lock = threading.Lock()


def _target_name(alias_name):
    """``mxnet.a.b`` -> ``mxtorch.a.b``."""
    return _PACKAGE + alias_name[len(_ALIAS):]


def _is_mxtorch_module(module):
    name = getattr(module, "__name__", "") or ""
    return name == _PACKAGE or name.startswith(_PACKAGE + ".")


class _AliasLoader(importlib.abc.Loader):
    """Loads ``mxnet.X`` by importing ``mxtorch.X`` and returning that very module object."""

    def __init__(self, target):
        self.target = target
        self._original_spec = None

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        # The import system overwrites ``__spec__`` of the returned module; keep mxtorch's.
        self._original_spec = module.__spec__
        return module

    def exec_module(self, module):
        if self._original_spec is not None:
            module.__spec__ = self._original_spec
        if self.target == _PACKAGE:
            # the program has just imported ``mxnet``: now enter mxtorch's loaded modules
            # under their ``mxnet.*`` names too
            _alias_loaded_modules()


class MXNetAliasFinder(importlib.abc.MetaPathFinder):
    """``sys.meta_path`` finder that resolves ``mxnet`` and ``mxnet.*`` to mxtorch's modules."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != _ALIAS and not fullname.startswith(_ALIAS + "."):
            return None
        target_name = _target_name(fullname)
        loaded = sys.modules.get(target_name)
        if loaded is not None:
            target_spec = loaded.__spec__
        else:
            try:
                target_spec = importlib.util.find_spec(target_name)
            except ModuleNotFoundError:
                target_spec = None
        if target_spec is None:
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: mxtorch is installed as mxnet (install_as_mxnet) and has no "
                f"module {target_name!r}", name=fullname)
        is_package = target_spec.submodule_search_locations is not None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(target_name), origin=target_spec.origin,
                                              is_package=is_package)


def _find_real_mxnet():
    """Names in ``sys.modules`` under ``mxnet`` that are not mxtorch modules."""
    foreign = []
    for name, module in list(sys.modules.items()):
        if (name == _ALIAS or name.startswith(_ALIAS + ".")) and module is not None \
                and not _is_mxtorch_module(module):
            foreign.append(name)
    return sorted(foreign)


def _apply_legacy_switches(numpy_aliases, gpu_as_cpu):
    """The legacy-program switches of ``install_as_mxnet`` (None: read the environment)."""
    import os
    from . import context
    if numpy_aliases is None:
        numpy_aliases = os.environ.get("MXTORCH_NUMPY_ALIASES", "").strip().lower() in ("1", "true", "yes", "on")
    if numpy_aliases:
        from .numpy_aliases import enable_numpy_aliases
        enable_numpy_aliases()
    if gpu_as_cpu is not None and gpu_as_cpu is not False:
        context.set_gpu_as_cpu(1 if gpu_as_cpu is True else gpu_as_cpu)


def install_as_mxnet(numpy_aliases=None, gpu_as_cpu=None, package_compat=None):
    """Make ``import mxnet`` (and ``import mxnet.X``, ``from mxnet.X import Y``) load mxtorch.

    ``numpy_aliases=True`` also restores the NumPy names and behaviours that NumPy 1.24/2.0
    removed and legacy programs use (``np.float``, ``np.asscalar``, binary ``np.fromstring``;
    see ``mxtorch.numpy_aliases``); None (default) enables them when the environment has
    ``MXTORCH_NUMPY_ALIASES=1``.  ``gpu_as_cpu=True`` (or a number of GPUs) makes ``mx.gpu(i)``
    compute on the CPU (see ``mxtorch.context``); None keeps ``MXTORCH_GPU_AS_CPU``'s setting.

    Call it once, before anything imports ``mxnet``; calling it again does nothing.
    It imports nothing under the name ``mxnet``: once the program runs ``import mxnet``,
    ``sys.modules['mxnet'] is mxtorch`` and each loaded mxtorch submodule is also
    registered as ``mxnet.<same path>``, so unmodified MXNet 1.x programs, their
    ``Module`` subclasses (``from mxnet.module.base_module import _parse_data_desc``) and
    pickles that name ``mxnet.ndarray.ndarray.NDArray`` run on mxtorch.

    Returns the ``mxtorch`` package.

    Raises
    ------
    MXNetError
        if a real ``mxnet`` (not mxtorch) is already imported: its modules and mxtorch's
        cannot be mixed in one process; import mxtorch and call this first.
    ImportError
        if one of the legacy modules listed in ``LEGACY_MODULES`` fails to import.
    """
    _apply_legacy_switches(numpy_aliases, gpu_as_cpu)
    with _install_lock:
        package = importlib.import_module(_PACKAGE)
        foreign = _find_real_mxnet()
        if foreign:
            shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
            origin = getattr(sys.modules.get(foreign[0]), "__file__", None)
            raise MXNetError(f"install_as_mxnet: a real 'mxnet' is already imported ({shown}"
                             f"{'; from ' + origin if origin else ''}); call mxtorch.install_as_mxnet() "
                             f"before anything imports mxnet, or remove that import")
        if package_compat_requested(package_compat):
            enable_package_compat()
        else:
            disable_package_compat()
        for relative in LEGACY_MODULES:
            importlib.import_module(f"{_PACKAGE}.{relative}")
        if not any(isinstance(finder, MXNetAliasFinder) for finder in sys.meta_path):
            sys.meta_path.insert(0, MXNetAliasFinder())
        if _ALIAS in sys.modules:
            # installed before and already imported: keep the aliases complete
            _alias_loaded_modules()
        return package


def _alias_loaded_modules():
    """Enter every loaded ``mxtorch.X`` in ``sys.modules`` as ``mxnet.X`` (names already
    taken are left alone)."""
    for name, module in list(sys.modules.items()):
        if module is not None and name.startswith(_PACKAGE + "."):
            sys.modules.setdefault(_ALIAS + name[len(_PACKAGE):], module)
