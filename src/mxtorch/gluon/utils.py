"""``mx.gluon.utils``: splitting batches over devices, global-norm clipping, file downloads.

Mirrors MXNet 1.9.1's ``mxnet.gluon.utils``.  ``download`` fetches with ``requests`` when that
package is installed and the network answers; on a machine without either it raises
:class:`DownloadError` naming the URL and the exact path to place the file at, so an offline
user can copy the file there by hand (a file already present is used without any network).
"""
from __future__ import annotations

import hashlib
import math
import os
import uuid
import warnings
import weakref
from collections import OrderedDict

import numpy as np

from ..base import MXNetError, MXNetValueError
from ..context import Context
from ..util import is_np_array, is_np_shape  # noqa: F401  (MXNet re-exports them here)
from .. import ndarray as nd
from .parameter import _brief_print_list  # noqa: F401  (MXNet 1.9.1 defines it here; code imports it from here)

__all__ = ["split_data", "split_and_load", "clip_global_norm", "check_sha1", "download", "replace_file",
           "shape_is_known", "HookHandle", "DownloadError", "is_np_array", "is_np_shape"]


class DownloadError(MXNetError):
    """A file could not be downloaded (no network, no ``requests``, a bad HTTP status or a
    hash mismatch).  ``url`` and ``path`` say what was fetched and where it belongs."""

    def __init__(self, message, url=None, path=None):
        super().__init__(message)
        self.url = url
        self.path = path


def split_data(data, num_slice, batch_axis=0, even_split=True):
    """Split ``data`` (an NDArray) into ``num_slice`` parts along ``batch_axis``.

    With ``even_split=False`` the first ``size % num_slice`` parts get one element more
    (MXNet 1.9.1's partition: 10 rows in 3 slices give 4, 3, 3).  Raises
    :class:`~mxtorch.base.MXNetValueError` (a ValueError, as in MXNet) when
    ``even_split=True`` and the axis size is not a multiple of ``num_slice``.
    Returns a list of NDArrays (``[data]`` itself when ``num_slice == 1``).
    """
    if not isinstance(num_slice, (int, np.integer)) or num_slice < 1:
        raise MXNetValueError(f"split_data: num_slice must be a positive integer, got {num_slice!r}")
    shape = data.shape
    if not -len(shape) <= batch_axis < len(shape):
        raise MXNetValueError(f"split_data: batch_axis={batch_axis} is out of range for data with shape {shape}")
    size = shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise MXNetValueError(
            f"split_data: data with shape {shape} cannot be evenly split into {num_slice} slices along "
            f"axis {batch_axis}; use a batch size that is a multiple of {num_slice} or set "
            f"even_split=False to allow uneven partitioning")
    if num_slice == 1:
        return [data]
    base, extra = divmod(size, num_slice)
    bounds = np.cumsum([0] + [base + 1] * extra + [base] * (num_slice - extra)).tolist()
    if batch_axis % len(shape) == 0:
        return [data[bounds[i]:bounds[i + 1]] for i in range(num_slice)]
    return [nd.slice_axis(data, axis=batch_axis, begin=bounds[i], end=bounds[i + 1])
            for i in range(num_slice)]


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """Split ``data`` along ``batch_axis`` and copy each part to one context of ``ctx_list``.

    ``data`` is an NDArray or anything ``mx.nd.array`` accepts (a numpy array is converted,
    with its dtype kept).  A single context returns ``[data]`` on that context.  Errors as for
    :func:`split_data`.
    """
    if isinstance(ctx_list, Context):
        ctx_list = [ctx_list]
    ctx_list = list(ctx_list)
    if not ctx_list:
        raise MXNetValueError("split_and_load: ctx_list is empty")
    if not isinstance(data, nd.NDArray):
        data = nd.array(data, ctx=ctx_list[0], dtype=getattr(data, "dtype", None))
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [part.as_in_context(ctx) for part, ctx in zip(slices, ctx_list)]


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Scale ``arrays`` (NDArrays, changed in place) so that their joint 2-norm is at most
    ``max_norm``; returns the norm before clipping.

    The factor is ``min(1, max_norm / (norm + 1e-8))``.  With ``check_isfinite=True`` the
    norm is returned as a Python float and a non-finite norm warns (UserWarning, as MXNet:
    results are then undefined); with ``check_isfinite=False`` the norm stays an NDArray of
    shape ``(1,)`` on the first array's context (no host synchronisation).
    """
    arrays = list(arrays)
    if not arrays:
        raise MXNetValueError("clip_global_norm: arrays is empty")
    import torch
    device = arrays[0]._tensor.device
    squares = [torch.sum(a._tensor.detach().to(device=device, dtype=torch.float32) ** 2) for a in arrays]
    total = torch.sqrt(torch.stack(squares).sum()).reshape(1)
    if check_isfinite and not math.isfinite(float(total)):
        warnings.warn(UserWarning("nan or inf is detected. Clipping results will be undefined."), stacklevel=2)
    scale = torch.clamp(max_norm / (total + 1e-8), max=1.0)
    with torch.no_grad():
        for a in arrays:
            a._tensor.mul_(scale.to(device=a._tensor.device, dtype=a._tensor.dtype))
    if check_isfinite:
        return float(total)
    return nd.NDArray(total, arrays[0].context)


def check_sha1(filename, sha1_hash):
    """Whether the SHA-1 of the file ``filename`` equals ``sha1_hash`` (hexadecimal digits).

    MXNet compares only as many leading digits as ``sha1_hash`` has when it is shorter
    than 40 characters (the model store's short hashes); so does this."""
    digest = hashlib.sha1()
    with open(filename, "rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    expected = str(sha1_hash).lower()
    return digest.hexdigest()[:len(expected)] == expected


def replace_file(src, dst):
    """Move ``src`` onto ``dst`` atomically (``os.replace``), replacing ``dst`` if it exists."""
    os.replace(src, dst)


def shape_is_known(shape):
    """Whether ``shape`` (a tuple, or None) is fully known: in MXNet 1.x's legacy shape
    semantics a 0 dimension and an empty shape mean unknown."""
    if shape is None:
        return False
    if len(shape) == 0:
        return False
    for dim in shape:
        if dim < 0:
            raise MXNetValueError(f"shape_is_known: invalid dimension {dim} in shape {tuple(shape)}")
        if dim == 0:
            return False
    return True


def _target_path(url, path):
    if path is None:
        fname = url.split("/")[-1]
        if not fname:
            raise MXNetValueError(f"download: cannot derive a file name from the URL {url!r}; pass path=")
        return fname
    path = os.path.expanduser(path)
    if os.path.isdir(path):
        return os.path.join(path, url.split("/")[-1])
    return path


def download(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
    """Download ``url`` to ``path`` (a file, or a folder to put ``url``'s last component in;
    by default that name in the current directory); returns the file's path.

    A file already there is kept unless ``overwrite`` is set or its SHA-1 differs from
    ``sha1_hash``.  The download goes to a temporary file beside the target that is then
    renamed over it, so concurrent downloads (several processes) leave one complete file.
    ``retries`` failed attempts are retried.  ``verify_ssl=False`` warns, as MXNet does.

    Raises :class:`DownloadError` (an MXNetError) naming the URL and the file path to place
    the file at by hand when ``requests`` is not installed or the network fails.
    """
    fname = _target_path(url, path)
    if retries < 0:
        raise MXNetValueError(f"download: retries must be at least 0, got {retries}")
    if not verify_ssl:
        warnings.warn("Unverified HTTPS request is being made (verify_ssl=False). "
                      "Adding certificate verification is strongly advised.")
    if not overwrite and os.path.exists(fname) and (not sha1_hash or check_sha1(fname, sha1_hash)):
        return fname
    place_hint = (f"download the file by other means and place it at {os.path.abspath(fname)}"
                  + (f" (expected SHA-1 {sha1_hash})" if sha1_hash else ""))
    try:
        import requests
    except ImportError:
        raise DownloadError(f"cannot download {url}: the 'requests' package is not installed; "
                            f"install it or {place_hint}", url, fname) from None
    folder = os.path.dirname(os.path.abspath(fname))
    os.makedirs(folder, exist_ok=True)
    attempts = retries + 1
    last_error = None
    for attempt in range(attempts):
        temporary = f"{fname}.{uuid.uuid4()}"
        try:
            print(f"Downloading {fname} from {url}...")
            response = requests.get(url, stream=True, verify=verify_ssl)
            if response.status_code != 200:
                raise DownloadError(f"HTTP status {response.status_code}", url, fname)
            with open(temporary, "wb") as stream:
                for chunk in response.iter_content(chunk_size=1 << 16):
                    if chunk:
                        stream.write(chunk)
            if sha1_hash and not check_sha1(temporary, sha1_hash):
                raise DownloadError(f"the downloaded content does not match SHA-1 {sha1_hash}", url, fname)
            if os.path.exists(fname) and not overwrite and (not sha1_hash or check_sha1(fname, sha1_hash)):
                # another process finished the same download first: keep its file
                os.remove(temporary)
            else:
                replace_file(temporary, fname)
            return fname
        except Exception as error:  # network errors, bad status, hash mismatch: retry
            last_error = error
            if os.path.exists(temporary):
                try:
                    os.remove(temporary)
                except OSError:
                    pass
            if attempt + 1 < attempts:
                print(f"download failed due to {error!r}, retrying, {attempts - attempt - 1} attempt(s) left")
    raise DownloadError(f"cannot download {url} after {attempts} attempt(s) ({last_error!r}); "
                        f"{place_hint}", url, fname) from last_error


_DEFAULT_REPO_URL = "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/"


def _get_repo_url():
    """The base URL of the Gluon dataset and model repository, ending with ``/``:
    ``$MXNET_GLUON_REPO`` when set, else Apache MXNet's S3 bucket (MXNet 1.9.1's private
    helper, which GluonNLP and GluonCV import)."""
    repo_url = os.environ.get("MXNET_GLUON_REPO", _DEFAULT_REPO_URL)
    if repo_url[-1] != "/":
        repo_url = repo_url + "/"
    return repo_url


def _get_repo_file_url(namespace, filename):
    """The URL of ``filename`` under ``namespace`` in the Gluon repository
    (``<repo url><namespace>/<filename>``)."""
    return f"{_get_repo_url()}{namespace}/{filename}"


class HookHandle:
    """A handle returned by ``Block.register_forward_hook`` / ``register_forward_pre_hook``:
    ``detach()`` (or leaving a ``with`` block) removes the hook.  Hooks live in an ordered
    dict keyed by the hook's id (as in MXNet, registering one hook twice keeps one entry);
    the handle keeps only a weak reference to that dict."""

    def __init__(self):
        self._hooks_dict_ref = None
        self._id = None

    def attach(self, hooks_dict, hook):
        """Add ``hook`` to ``hooks_dict`` (an OrderedDict); a handle attaches once."""
        if self._hooks_dict_ref is not None:
            raise MXNetError("HookHandle: the handle is already attached to a hook")
        self._id = id(hook)
        hooks_dict[self._id] = hook
        self._hooks_dict_ref = weakref.ref(hooks_dict)

    def detach(self):
        """Remove the hook (nothing happens if its block is gone or it was detached)."""
        hooks_dict = self._hooks_dict_ref() if self._hooks_dict_ref is not None else None
        if hooks_dict is not None and self._id in hooks_dict:
            del hooks_dict[self._id]

    def __getstate__(self):
        hooks_dict = self._hooks_dict_ref() if self._hooks_dict_ref is not None else None
        return (hooks_dict if hooks_dict is not None else OrderedDict(), self._id)

    def __setstate__(self, state):
        if state[0] is None:
            self._hooks_dict_ref = weakref.ref(OrderedDict())
        else:
            self._hooks_dict_ref = weakref.ref(state[0])
        self._id = state[1]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.detach()
