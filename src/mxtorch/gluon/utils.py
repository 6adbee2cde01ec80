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
from .parameter import _brief_print_list, _indent  # noqa: F401  (MXNet 1.9.1 defines them here; code imports them from here)

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


# -- MXNet 1.9.1's checks of the kinds of a block's arrays and symbols (mxnet.gluon.utils) -------------
def _is_np_symbol(value):
    from ..symbol.numpy import _Symbol as np_symbol
    return isinstance(value, np_symbol)


def _check_same_symbol_type(symbols):
    """The class shared by all ``symbols``: ``mx.sym.np._Symbol`` when the first is a NumPy
    symbol, else ``mx.sym.Symbol``; TypeError when classic and NumPy symbols are mixed."""
    from ..symbol import Symbol as nd_symbol
    from ..symbol.numpy import _Symbol as np_symbol
    is_np_sym = _is_np_symbol(symbols[0])
    for other in symbols[1:]:
        if is_np_sym != _is_np_symbol(other):
            raise TypeError("Found both classic symbol (mx.sym.Symbol) and numpy symbol (mx.sym.np._Symbol) in "
                            "outputs. This will prevent you from building a computation graph by grouping them "
                            "since different types of symbols are not allowed to be grouped in Gluon to form a "
                            "computation graph. You will need to convert them to the same type of symbols, either "
                            "classic or numpy: call `as_np_ndarray()` on the classic symbols for numpy ndarray "
                            "output(s), or `as_nd_ndarray()` on the numpy symbols for classic ndarray output(s).")
    return np_symbol if is_np_sym else nd_symbol


def _check_all_np_ndarrays(out):
    """TypeError unless every array or symbol in ``out`` (nested lists and tuples walked) is an
    ``mx.np.ndarray`` or ``mx.sym.np._Symbol``; other values are not checked."""
    from ..ndarray.numpy_array import ndarray as np_ndarray
    from ..symbol import Symbol as nd_symbol
    if isinstance(out, (nd.NDArray, nd_symbol)) and not (isinstance(out, np_ndarray) or _is_np_symbol(out)):
        raise TypeError(f"Block's output ndarrays/symbols must be of type `mxnet.numpy.ndarray` or "
                        f"`mxnet.symbol.numpy._Symbol`, while got output type {type(out)}")
    if isinstance(out, (list, tuple)):
        for item in out:
            _check_all_np_ndarrays(item)


def _gather_type_ctx_info(args):
    """``(has_symbol, has_ndarray, ctx_set, first_ctx)`` of ``args`` (an NDArray, a Symbol or a
    nested list of them): whether it holds Symbols, NDArrays, the set of the arrays' contexts
    and the context of the first array (None without arrays).  The walk of a list stops once
    both kinds were seen."""
    from ..symbol import Symbol
    if isinstance(args, nd.NDArray):
        return False, True, {args.ctx}, args.ctx
    if isinstance(args, Symbol):
        return True, False, set(), None
    if not isinstance(args, (list, tuple)):
        return False, False, set(), None
    has_symbol = has_ndarray = False
    ctx_set, first_ctx = set(), None
    for item in args:
        item_symbol, item_ndarray, item_ctxs, item_first = _gather_type_ctx_info(item)
        has_symbol, has_ndarray = has_symbol or item_symbol, has_ndarray or item_ndarray
        if first_ctx is None:
            first_ctx = item_first
        ctx_set |= item_ctxs
        if has_symbol and has_ndarray:
            break
    return has_symbol, has_ndarray, ctx_set, first_ctx


def _infer_param_types(in_params, out_params, arg_params, aux_params, default_dtype=np.float32):
    """``(arg_types, aux_types)``: the dtypes of the graph ``out_params``'s arguments and
    auxiliary states (in the order of ``arg_params`` / ``aux_params``) inferred from the dtypes
    of the input variables ``in_params``; ``default_dtype`` for every one of a list when the
    inputs' dtypes are unknown or inference fails or gives another count."""
    arg_types = aux_types = None
    input_types = []
    for in_param in in_params:
        inferred = in_param.infer_type()[0]
        if not inferred:
            input_types = None
            break
        input_types.append(inferred[0])
    if input_types is not None:
        try:
            arg_types, _, aux_types = out_params.infer_type(
                **{param.name: dtype for param, dtype in zip(in_params, input_types)})
        except MXNetError:
            arg_types = aux_types = None
    if arg_types is None or len(arg_types) != len(arg_params):
        arg_types = [default_dtype for _ in arg_params]
    if aux_types is None or len(aux_types) != len(aux_params):
        aux_types = [default_dtype for _ in aux_params]
    return arg_types, aux_types
