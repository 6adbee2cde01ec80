"""Environment checks of known MXNet-era packages, answered for mxtorch (package compat).

Libraries built on MXNet 1.x (GluonCV, GluonNLP) check their environment when they are
imported, with assumptions that no longer hold once mxtorch stands in for MXNet:

- GluonCV (0.10.x and its last commit) also looks for its optional PyTorch half and raises
  ``RuntimeError: Legacy torch==2.x detected ... torch>=1.4.0,<2.0.0 is required`` whenever
  a torch 2 is installed -- with mxtorch one always is (it is mxtorch's engine, not a
  PyTorch for GluonCV's ``gluoncv.torch``);
- both compare versions with ``from distutils.version import LooseVersion``, and
  ``distutils`` is gone on Python 3.12+ unless setuptools provides it;
- both were written against NumPy 1 (``np.float`` in GluonCV's R-CNN anchors, ragged
  ``np.array`` calls), which NumPy 2 refuses.

Rather than a patch per symptom, this module holds one declared table, ``KNOWN_PACKAGES``:
each :class:`PackageCompat` row names a module of a known package, why it needs help and
the *shims* to apply -- some before the module's own code runs, some right after it (before
the importing package reads its names).  An import hook (:class:`PackageCompatFinder`, on
``sys.meta_path``) applies a row when its module is imported, without touching the
package's files; the module keeps its own loader and spec.  The shims:

``numpy_1_names``
    enables :func:`mxtorch.numpy_aliases.enable_numpy_aliases` (the ``--numpy-aliases``
    switch: NumPy 1's removed names, the binary ``np.fromstring`` and object arrays for
    ragged sequences), as the package's NumPy 1 code expects.
``distutils_version``
    places a last-resort finder at the end of ``sys.meta_path`` that serves a minimal
    ``distutils.version`` (``LooseVersion`` with distutils' comparison rules) only when no
    real ``distutils`` can be found (Python 3.12+ without setuptools); a real one always wins.
``gluonnlp_fasttext_hash``
    after ``gluonnlp.vocab.subwords`` has run (without numba), its ``_fasttext_hash`` (fastText's
    FNV-1a hash of a UTF-8 n-gram, bytes taken as signed chars) is replaced by the same hash in
    plain integers: GluonNLP's spells the signed-char step ``np.int8(byte)``, which NumPy 2
    refuses for a byte >= 128, so every word with a non-ASCII letter failed.
``torch_half_absent``
    after ``gluoncv.check`` has run, GluonCV's ``_require_pytorch_version`` raises
    ``ImportError`` instead of ``RuntimeError`` for a torch outside its range, so GluonCV
    treats its PyTorch half as absent (as on a machine without torch) and loads its MXNet
    half, the one mxtorch serves.

``mxtorch.install_as_mxnet()`` (and so ``mxtorch run``) turns the hook on; set
``MXTORCH_PACKAGE_COMPAT=0`` or pass ``install_as_mxnet(package_compat=False)`` to turn it
off (the packages then fail exactly as they would next to a torch 2 and NumPy 2).
:func:`applied_shims` lists what was applied in this process.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import re
import sys
import threading

__all__ = ["PackageCompat", "KNOWN_PACKAGES", "PackageCompatFinder", "enable_package_compat",
           "disable_package_compat", "package_compat_enabled", "package_compat_requested", "applied_shims",
           "register_package_compat", "LooseVersion"]

ENV_SWITCH = "MXTORCH_PACKAGE_COMPAT"
"""Environment variable: ``0`` / ``false`` / ``no`` / ``off`` turns package compat off."""


class PackageCompat:
    """One row of the table: when ``module`` is imported, apply ``before`` shims before its code
    runs and ``after`` shims once it has run.  ``reason`` says which check of the package the
    row answers (shown by :func:`applied_shims` and in the docs)."""

    def __init__(self, module, reason, before=(), after=()):
        self.module = module
        self.reason = reason
        self.before = tuple(before)
        self.after = tuple(after)

    def __repr__(self):
        return (f"PackageCompat({self.module!r}, before={list(self.before)}, after={list(self.after)})")


# ---------------------------------------------------------------------------------------------
# the shims: name -> function(module) (module is the module being imported)

def _numpy_1_names(module):
    from .numpy_aliases import enable_numpy_aliases
    enable_numpy_aliases()


def _distutils_version(module):
    with _lock:
        if not any(isinstance(finder, _DistutilsVersionFallback) for finder in sys.meta_path):
            sys.meta_path.append(_DistutilsVersionFallback())


def _torch_half_absent(module):
    original = getattr(module, "_require_pytorch_version", None)
    if original is None or getattr(original, "__mxtorch_compat__", False):
        return

    def _require_pytorch_version(*args, **kwargs):
        try:
            return original(*args, **kwargs)
        except RuntimeError as error:
            # mxtorch's torch is not the PyTorch GluonCV's torch half supports: report it absent
            raise ImportError(f"{error} (mxtorch package compat: GluonCV's PyTorch half is treated as "
                              f"absent; its MXNet half runs on mxtorch)") from error

    _require_pytorch_version.__doc__ = original.__doc__
    _require_pytorch_version.__wrapped__ = original
    _require_pytorch_version.__mxtorch_compat__ = True
    module._require_pytorch_version = _require_pytorch_version


_FNV_OFFSET, _FNV_PRIME = 2166136261, 16777619


def _fasttext_hash(ngram):
    """fastText's hash of the UTF-8 bytes ``ngram`` (FNV-1a over 32 bits, each byte taken as a
    *signed* char and sign-extended, as fastText's C++ does): GluonNLP's ``_fasttext_hash``
    without its ``np.int8(byte)``, which NumPy 2 refuses for bytes >= 128."""
    h = _FNV_OFFSET
    for byte in ngram:
        h ^= byte if byte < 128 else (byte - 256) & 0xFFFFFFFF
        h = (h * _FNV_PRIME) & 0xFFFFFFFF
    return h


def _gluonnlp_fasttext_hash(module):
    original = getattr(module, "_fasttext_hash", None)
    if original is None or hasattr(original, "py_func") or getattr(original, "__mxtorch_compat__", False):
        return      # numba compiled it (numba's int8 wraps), or already replaced
    _fasttext_hash.__wrapped__ = original
    _fasttext_hash.__mxtorch_compat__ = True
    module._fasttext_hash = _fasttext_hash


SHIMS = {
    "numpy_1_names": _numpy_1_names,
    "distutils_version": _distutils_version,
    "torch_half_absent": _torch_half_absent,
    "gluonnlp_fasttext_hash": _gluonnlp_fasttext_hash,
}
"""Shim name -> function applied to the module being imported."""

_NUMPY_AND_DISTUTILS = ("numpy_1_names", "distutils_version")

KNOWN_PACKAGES = [
    PackageCompat("gluoncv", "GluonCV: NumPy 1 code (np.float in R-CNN anchors); distutils' LooseVersion in "
                             "its version checks", before=_NUMPY_AND_DISTUTILS),
    PackageCompat("gluoncv.check", "GluonCV raises 'Legacy torch==2.x detected ... torch>=1.4.0,<2.0.0 is "
                                   "required' when any torch 2 is installed", after=("torch_half_absent",)),
    PackageCompat("gluonnlp", "GluonNLP 0.10: NumPy 1 code; distutils' LooseVersion where it compares versions",
                  before=_NUMPY_AND_DISTUTILS),
    PackageCompat("gluonnlp.vocab.subwords", "GluonNLP 0.10's fastText n-gram hash (NGramHashes, FastText "
                                             "embeddings) calls np.int8(byte), an OverflowError on NumPy 2 for "
                                             "the bytes of non-ASCII text", after=("gluonnlp_fasttext_hash",)),
]
"""The declared table (a list: :func:`register_package_compat` adds rows)."""


def register_package_compat(row):
    """Add a :class:`PackageCompat` row (its shims must be names in ``SHIMS``); returns it."""
    unknown = [name for name in row.before + row.after if name not in SHIMS]
    if unknown:
        raise ValueError(f"register_package_compat: unknown shims {unknown}; known: {sorted(SHIMS)}")
    with _lock:
        KNOWN_PACKAGES.append(row)
    return row


# ---------------------------------------------------------------------------------------------
# distutils' LooseVersion, for the last-resort distutils.version module

class LooseVersion:
    """``distutils.version.LooseVersion``: a version string split into numbers and words
    (``'1.9.1'`` -> ``[1, 9, 1]``, ``'2.13.0+cpu'`` -> ``[2, 13, 0, '+', 'cpu']``) compared as lists."""

    component_re = re.compile(r"(\d+ | [a-z]+ | \.)", re.VERBOSE)

    def __init__(self, vstring=None):
        if vstring:
            self.parse(vstring)

    def parse(self, vstring):
        """Split ``vstring`` into ``self.version`` (ints and strings, dots dropped)."""
        self.vstring = vstring
        components = [part for part in self.component_re.split(vstring) if part and part != "."]
        for index, part in enumerate(components):
            try:
                components[index] = int(part)
            except ValueError:
                pass
        self.version = components

    def __str__(self):
        return self.vstring

    def __repr__(self):
        return f"LooseVersion ('{self}')"

    def _cmp(self, other):
        if isinstance(other, str):
            other = LooseVersion(other)
        elif not isinstance(other, LooseVersion):
            return NotImplemented
        if self.version == other.version:
            return 0
        return -1 if self.version < other.version else 1

    def __eq__(self, other):
        result = self._cmp(other)
        return result if result is NotImplemented else result == 0

    def __lt__(self, other):
        result = self._cmp(other)
        return result if result is NotImplemented else result < 0

    def __le__(self, other):
        result = self._cmp(other)
        return result if result is NotImplemented else result <= 0

    def __gt__(self, other):
        result = self._cmp(other)
        return result if result is NotImplemented else result > 0

    def __ge__(self, other):
        result = self._cmp(other)
        return result if result is NotImplemented else result >= 0

    __hash__ = None


class _FallbackLoader(importlib.abc.Loader):
    def create_module(self, spec):
        return None

    def exec_module(self, module):
        if module.__name__ == "distutils":
            module.__doc__ = "mxtorch package compat: a minimal distutils (only distutils.version)"
        else:
            module.__doc__ = "mxtorch package compat: distutils.version.LooseVersion"
            module.LooseVersion = LooseVersion


class _DistutilsVersionFallback(importlib.abc.MetaPathFinder):
    """Last finder on ``sys.meta_path``: serves ``distutils`` and ``distutils.version`` only when
    no other finder has them (Python 3.12+ without setuptools)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in ("distutils", "distutils.version"):
            return None
        return importlib.machinery.ModuleSpec(fullname, _FallbackLoader(), origin="mxtorch package compat",
                                              is_package=fullname == "distutils")


# ---------------------------------------------------------------------------------------------
# the import hook

_lock = threading.RLock()
_state = {"enabled": False}
_applied = []           # (module, shim) in the order applied
_guard = threading.local()


def _rows_for(fullname):
    return [row for row in list(KNOWN_PACKAGES) if row.module == fullname]


def _apply(row, stage, module):
    for name in getattr(row, stage):
        SHIMS[name](module)
        _applied.append((row.module, name))


class _CompatLoader(importlib.abc.Loader):
    """Wraps a module's own loader: runs the rows' ``before`` shims, the module's code (with its
    own loader back in ``__loader__`` and ``__spec__.loader``), then the ``after`` shims."""

    def __init__(self, loader, rows):
        self._loader = loader
        self._rows = rows

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        for row in self._rows:
            _apply(row, "before", module)
        module.__loader__ = self._loader
        if getattr(module, "__spec__", None) is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        for row in self._rows:
            _apply(row, "after", module)

    def __getattr__(self, name):
        if name.startswith("__") or name == "_loader":
            raise AttributeError(name)
        return getattr(self._loader, name)


class PackageCompatFinder(importlib.abc.MetaPathFinder):
    """``sys.meta_path`` finder that lets the other finders find a module named in
    ``KNOWN_PACKAGES`` and wraps its loader so that the row's shims run around its code."""

    def find_spec(self, fullname, path=None, target=None):
        rows = _rows_for(fullname)
        if not rows or getattr(_guard, "active", False):
            return None
        _guard.active = True
        try:
            spec = None
            for finder in list(sys.meta_path):
                if finder is self or isinstance(finder, PackageCompatFinder):
                    continue
                find = getattr(finder, "find_spec", None)
                if find is None:
                    continue
                spec = find(fullname, path, target)
                if spec is not None:
                    break
        finally:
            _guard.active = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _CompatLoader(spec.loader, rows)
        return spec


def package_compat_requested(package_compat=None):
    """Whether package compat should be on: ``package_compat`` when True/False, else the
    environment (on unless ``MXTORCH_PACKAGE_COMPAT`` is 0 / false / no / off)."""
    if package_compat is not None:
        return bool(package_compat)
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "false", "no", "off")


def enable_package_compat():
    """Put the import hook on ``sys.meta_path`` (idempotent).  Packages of the table that are
    already imported get their ``before`` shims at once (their checks have already run)."""
    with _lock:
        if not any(isinstance(finder, PackageCompatFinder) for finder in sys.meta_path):
            sys.meta_path.insert(0, PackageCompatFinder())
        _state["enabled"] = True
        for row in list(KNOWN_PACKAGES):
            module = sys.modules.get(row.module)
            if module is not None and row.before and (row.module, row.before[0]) not in _applied:
                _apply(row, "before", module)


def disable_package_compat():
    """Remove the import hook (shims already applied stay applied)."""
    with _lock:
        sys.meta_path[:] = [finder for finder in sys.meta_path if not isinstance(finder, PackageCompatFinder)]
        _state["enabled"] = False


def package_compat_enabled():
    """Whether the import hook is on."""
    return _state["enabled"]


def applied_shims():
    """``[(module, shim), ...]`` applied in this process, in order."""
    return list(_applied)
