"""Data-set helpers of ``mx.test_utils`` that examples and tests call: ``download``,
``get_mnist``, ``get_mnist_ubyte``, ``get_mnist_pkl``, ``get_cifar10``, ``get_mnist_iterator``,
``get_zip_data``, ``get_bz2_data``.

They behave as MXNet 1.9.1's: files go under ``data/`` of the working directory (or the
directory given) and are fetched only when absent, so a program run next to prepared files
never touches the network.  ``download`` uses ``urllib`` (no extra dependency); a failure
after the retries raises MXNetError naming the URL.
"""
from __future__ import annotations

import bz2
import gzip
import logging
import os
import shutil
import struct
import time
import urllib.request
import zipfile

import numpy as np

from .base import MXNetError

__all__ = ["download", "download_model", "get_im2rec_path", "get_mnist", "get_mnist_pkl", "get_mnist_ubyte",
           "get_cifar10", "get_mnist_iterator",
           "get_zip_data", "get_bz2_data"]

_MNIST_URL = "http://data.mxnet.io/data/mnist/"
_MNIST_FILES = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                "t10k-labels-idx1-ubyte")


def download(url, fname=None, dirname=None, overwrite=False, retries=5):
    """Fetch ``url`` into ``fname`` (default: the URL's last part) inside ``dirname`` and
    return the file name; an existing file is kept unless ``overwrite``.  The file is written
    to a temporary name and renamed, so a failed download leaves nothing behind.

    Raises MXNetError when ``retries`` is negative or every attempt fails.
    """
    if retries < 0:
        raise MXNetError(f"download: retries must be at least 0, got {retries}")
    if fname is None:
        fname = url.split("/")[-1]
    if dirname is None:
        dirname = os.path.dirname(fname)
    else:
        fname = os.path.join(dirname, fname)
    if dirname:
        os.makedirs(dirname, exist_ok=True)
    if not overwrite and os.path.exists(fname):
        logging.info("%s exists, skipping download", fname)
        return fname
    last_error = None
    for attempt in range(retries + 1):
        partial = f"{fname}.part{os.getpid()}"
        try:
            with urllib.request.urlopen(url) as response, open(partial, "wb") as out:
                shutil.copyfileobj(response, out)
            os.replace(partial, fname)
            logging.info("downloaded %s into %s successfully", url, fname)
            return fname
        except Exception as error:  # network errors of every kind
            last_error = error
            if os.path.exists(partial):
                os.remove(partial)
            if attempt < retries:
                logging.info("download of %s failed (%s), retrying", url, error)
                time.sleep(min(2 ** attempt, 8) * 0.1)
    raise MXNetError(f"download: could not fetch {url} after {retries + 1} attempts: {last_error}")


def _read_idx(path):
    """An IDX file (MNIST's format; gzip-compressed when the name ends in .gz) as a numpy array."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as handle:
        magic = struct.unpack(">I", handle.read(4))[0]
        ndim = magic & 0xFF
        dims = struct.unpack(">" + "I" * ndim, handle.read(4 * ndim))
        return np.frombuffer(handle.read(), dtype=np.uint8).reshape(dims)


def get_mnist():
    """MNIST as a dict of numpy arrays: ``train_data`` / ``test_data`` float32 of shape
    ``(N, 1, 28, 28)`` scaled to [0, 1], ``train_label`` / ``test_label`` int8 of shape
    ``(N,)``.  The gzip files are looked up (and downloaded when absent) in the working
    directory, as MXNet's ``get_mnist``."""
    def read(label_name, image_name):
        labels = _read_idx(download(_MNIST_URL + label_name)).astype(np.int8)
        images = _read_idx(download(_MNIST_URL + image_name))
        images = images.reshape(images.shape[0], 1, images.shape[1], images.shape[2]).astype(np.float32) / 255
        return labels, images

    train_label, train_data = read("train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz")
    test_label, test_data = read("t10k-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz")
    return {"train_data": train_data, "train_label": train_label, "test_data": test_data,
            "test_label": test_label}


def get_mnist_pkl():
    """Make sure ``data/mnist.pkl.gz`` exists (downloaded when absent)."""
    os.makedirs("data", exist_ok=True)
    if not os.path.exists("data/mnist.pkl.gz"):
        download("http://deeplearning.net/data/mnist/mnist.pkl.gz", dirname="data")


def get_mnist_ubyte():
    """Make sure the four uncompressed MNIST IDX files exist in ``data/`` (the zip archive is
    downloaded and extracted when one is missing)."""
    os.makedirs("data", exist_ok=True)
    if not all(os.path.exists(os.path.join("data", name)) for name in _MNIST_FILES):
        archive = download("http://data.mxnet.io/mxnet/data/mnist.zip", dirname="data")
        with zipfile.ZipFile(archive) as zipped:
            zipped.extractall("data")


def get_cifar10():
    """Make sure ``data/cifar/{train,test}.{rec,lst}`` exist (downloaded when absent)."""
    os.makedirs("data", exist_ok=True)
    names = ("train.rec", "test.rec", "train.lst", "test.lst")
    if not all(os.path.exists(os.path.join("data", "cifar", name)) for name in names):
        archive = download("http://data.mxnet.io/mxnet/data/cifar10.zip", dirname="data")
        with zipfile.ZipFile(archive) as zipped:
            zipped.extractall("data")


def get_mnist_iterator(batch_size, input_shape, num_parts=1, part_index=0):
    """``(train, val)`` MNISTIter over ``data/``'s IDX files (fetched by ``get_mnist_ubyte``):
    batches of ``batch_size`` images shaped ``input_shape`` (flat when it is not 3-D), the
    training one shuffled, each reading part ``part_index`` of ``num_parts``."""
    from .io import MNISTIter
    get_mnist_ubyte()
    flat = len(input_shape) != 3
    train = MNISTIter(image="data/train-images-idx3-ubyte", label="data/train-labels-idx1-ubyte",
                      input_shape=input_shape, batch_size=batch_size, shuffle=True, flat=flat,
                      num_parts=num_parts, part_index=part_index)
    val = MNISTIter(image="data/t10k-images-idx3-ubyte", label="data/t10k-labels-idx1-ubyte",
                    input_shape=input_shape, batch_size=batch_size, flat=flat, num_parts=num_parts,
                    part_index=part_index)
    return train, val


def get_zip_data(data_dir, url, data_origin_name):
    """Download ``url`` as ``data_dir/data_origin_name`` and extract it there, unless that
    archive already exists."""
    archive = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(archive):
        download(url, dirname=data_dir, overwrite=False)
        with zipfile.ZipFile(archive) as zipped:
            zipped.extractall(path=data_dir)


def get_bz2_data(data_dir, data_name, url, data_origin_name):
    """Download ``url`` as ``data_dir/data_origin_name`` and decompress it into
    ``data_dir/data_name``, unless that file already exists (the archive is removed)."""
    target = os.path.join(data_dir, data_name)
    archive = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(target):
        download(url, dirname=data_dir, overwrite=False)
        partial = target + ".part"
        with bz2.BZ2File(archive, "rb") as source, open(partial, "wb") as out:
            shutil.copyfileobj(source, out)
        os.replace(partial, target)
        os.remove(archive)


# -- pre-trained models and tools ---------------------------------------------------------------------
_MODEL_URL = "http://data.mxnet.io/models/"
# MXNet 1.9.1's table of downloadable models: name -> (symbol path, params path) under _MODEL_URL
_MODEL_FILES = {
    "imagenet1k-inception-bn": ("imagenet/inception-bn/Inception-BN-symbol.json",
                                "imagenet/inception-bn/Inception-BN-0126.params"),
    **{f"imagenet1k-resnet-{depth}": (f"imagenet/resnet/{depth}-layers/resnet-{depth}-symbol.json",
                                      f"imagenet/resnet/{depth}-layers/resnet-{depth}-0000.params")
       for depth in (18, 34, 50, 101, 152)},
    **{f"imagenet1k-resnext-{depth}": (f"imagenet/resnext/{depth}-layers/resnext-{depth}-symbol.json",
                                       f"imagenet/resnext/{depth}-layers/resnext-{depth}-0000.params")
       for depth in (50, 101)},
    "imagenet1k-resnext-101-64x4d": ("imagenet/resnext/101-layers/resnext-101-64x4d-symbol.json",
                                     "imagenet/resnext/101-layers/resnext-101-64x4d-0000.params"),
    "imagenet11k-resnet-152": ("imagenet-11k/resnet-152/resnet-152-symbol.json",
                               "imagenet-11k/resnet-152/resnet-152-0000.params"),
    "imagenet11k-place365ch-resnet-152": ("imagenet-11k-place365-ch/resnet-152-symbol.json",
                                          "imagenet-11k-place365-ch/resnet-152-0000.params"),
    "imagenet11k-place365ch-resnet-50": ("imagenet-11k-place365-ch/resnet-50-symbol.json",
                                         "imagenet-11k-place365-ch/resnet-50-0000.params"),
}


def download_model(model_name, dst_dir="./", meta_info=None):
    """Fetch a pre-trained model's ``-symbol.json`` and ``-0000.params`` into ``dst_dir`` and
    return ``(prefix, 0)`` for ``mx.model.load_checkpoint`` (``(None, 0)`` for an unknown name).

    ``meta_info`` maps model names to ``{'symbol': url, 'params': url}``; by default MXNet
    1.9.1's table of data.mxnet.io models (ImageNet Inception-BN, ResNet, ResNeXt).  Files
    already present are used as they are, so prepared files need no network; MXNetError when a
    download fails or an entry lacks a URL."""
    if meta_info is None:
        meta_info = {name: {"symbol": _MODEL_URL + symbol, "params": _MODEL_URL + params}
                     for name, (symbol, params) in _MODEL_FILES.items()}
    meta_info = dict(meta_info)
    if model_name not in meta_info:
        return None, 0
    os.makedirs(dst_dir, exist_ok=True)
    entry = dict(meta_info[model_name])
    for key in ("symbol", "params"):
        if key not in entry:
            raise MXNetError(f"download_model: the entry of {model_name!r} has no {key!r} URL")
    prefix = os.path.join(dst_dir, model_name)
    download(entry["symbol"], prefix + "-symbol.json")
    download(entry["params"], prefix + "-0000.params")
    return prefix, 0


class _ToolNotFound(MXNetError, OSError):
    """A tool script of MXNet's source tree is not there: both an MXNetError and the IOError
    MXNet raised."""


def get_im2rec_path(home_env="MXNET_HOME"):
    """The path of MXNet's ``tools/im2rec.py``: looked for under the folder named by the
    environment variable ``home_env`` when set, else next to the package, then two levels up
    (a source checkout).  mxtorch does not ship the script; point ``MXNET_HOME`` at an MXNet
    source tree that has it.  MXNetError (also an OSError) when it is not found."""
    root = os.environ.get(home_env) or os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(root, "tools", "im2rec.py"),
                      os.path.join(root, "..", "..", "tools", "im2rec.py")):
        if os.path.isfile(candidate):
            return candidate
    raise _ToolNotFound(f"Could not find path to tools/im2rec.py under {root!r}: mxtorch does not ship "
                        f"MXNet's im2rec.py; set {home_env} to an MXNet source tree that contains it")
