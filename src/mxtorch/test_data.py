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

__all__ = ["download", "get_mnist", "get_mnist_pkl", "get_mnist_ubyte", "get_cifar10", "get_mnist_iterator",
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
