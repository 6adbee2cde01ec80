"""Image datasets (MXNet 1.9.1's ``mxnet.gluon.data.vision.datasets``).

MNIST, FashionMNIST, CIFAR10 and CIFAR100 read the original files from ``root`` (default
``$MXNET_HOME/datasets/<name>``, MXNet's layout) and never download: a missing file raises
:class:`MissingDatasetError` naming the folder, the files to put there and where MXNet fetched
them from.  MNIST files may be gzip-compressed (``.gz``, as distributed) or not; CIFAR binaries
may sit in ``root`` or in the archive's own folder (``cifar-10-batches-bin``,
``cifar-100-binary``), or the ``.tar.gz`` archive itself may be placed in ``root`` (it is
extracted there).

Samples are ``(image, label)``: an NDArray ``(height, width, channels)`` of uint8 and an
int32 label (a numpy scalar), passed through ``transform(image, label)`` when given.
"""
from __future__ import annotations

import gzip
import os
import struct
import tarfile
import warnings

import numpy as np

from ....base import MXNetError, data_dir
from ....util import is_np_array  # noqa: F401  (MXNet's module exposes it)
from .... import ndarray as nd
from .... import image, recordio
from ...utils import check_sha1, download  # noqa: F401  (MXNet's module exposes them)
from .. import dataset

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "ImageRecordDataset", "ImageFolderDataset",
           "ImageListDataset", "MissingDatasetError"]

_REPO = "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/gluon/dataset/"


class MissingDatasetError(MXNetError):
    """A data set's files are not in its ``root`` folder (mxtorch does not download them)."""


def _missing(name, root, files, source):
    return MissingDatasetError(
        f"{name}: file(s) {', '.join(files)} not found in {os.path.abspath(root)}; mxtorch does not download "
        f"data sets: place the file(s) in that folder (MXNet fetched them from {source}) or pass root= "
        f"the folder that holds them")


# the in-memory base of MNIST, CIFAR10, ... (MXNet's mxnet.gluon.data.dataset._DownloadedDataset)
_DownloadedDataset = dataset._DownloadedDataset


def _open_maybe_gzip(root, name):
    """The file ``name`` (ending ``.gz``) in ``root``, or its uncompressed twin; None if neither."""
    path = os.path.join(root, name)
    if os.path.isfile(path):
        return gzip.open(path, "rb")
    plain = path[:-3] if path.endswith(".gz") else path
    if os.path.isfile(plain):
        return open(plain, "rb")
    return None


class MNIST(_DownloadedDataset):
    """The MNIST handwritten digits: 60000 training / 10000 test images ``(28, 28, 1)`` uint8
    with int32 labels 0-9, read from the IDX files ``train-images-idx3-ubyte.gz``,
    ``train-labels-idx1-ubyte.gz``, ``t10k-images-idx3-ubyte.gz``, ``t10k-labels-idx1-ubyte.gz``
    in ``root``.  Raises MissingDatasetError naming them when absent, MXNetError for a
    malformed file."""

    _namespace = "mnist"
    _files = {True: ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
              False: ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}

    def __init__(self, root=os.path.join(data_dir(), "datasets", "mnist"), train=True, transform=None):
        self._train = train
        super().__init__(root, transform)

    def _get_data(self):
        data_name, label_name = self._files[bool(self._train)]
        streams = [_open_maybe_gzip(self._root, name) for name in (data_name, label_name)]
        absent = [name for name, stream in zip((data_name, label_name), streams) if stream is None]
        if absent:
            for stream in streams:
                if stream is not None:
                    stream.close()
            raise _missing(type(self).__name__, self._root, absent, _REPO + self._namespace + "/")
        with streams[1] as fin:
            magic, count = struct.unpack(">II", fin.read(8))
            label = np.frombuffer(fin.read(), dtype=np.uint8).astype(np.int32)
        with streams[0] as fin:
            magic, images, rows, cols = struct.unpack(">IIII", fin.read(16))
            data = np.frombuffer(fin.read(), dtype=np.uint8)
        if magic != 2051 or images != len(label) or data.size != images * rows * cols:
            raise MXNetError(f"{type(self).__name__}: {data_name} in {self._root} is not an IDX image file "
                             f"matching {label_name} ({images} images of {rows}x{cols}, {len(label)} labels)")
        self._data = nd.array(data.reshape(images, rows, cols, 1), dtype=np.uint8)
        self._label = label


class FashionMNIST(MNIST):
    """Fashion-MNIST (Zalando's clothing images), the same file names and layout as
    :class:`MNIST`; default root ``$MXNET_HOME/datasets/fashion-mnist``."""

    _namespace = "fashion-mnist"

    def __init__(self, root=os.path.join(data_dir(), "datasets", "fashion-mnist"), train=True, transform=None):
        super().__init__(root, train, transform)


class CIFAR10(_DownloadedDataset):
    """CIFAR-10: 50000 training / 10000 test images ``(32, 32, 3)`` uint8 with int32 labels
    0-9, read from the binary version's ``data_batch_1.bin`` ... ``data_batch_5.bin`` and
    ``test_batch.bin`` (or the archive ``cifar-10-binary.tar.gz``) in ``root``."""

    _namespace = "cifar10"
    _archive = "cifar-10-binary.tar.gz"
    _subfolder = "cifar-10-batches-bin"
    _train_files = [f"data_batch_{i}.bin" for i in range(1, 6)]
    _test_files = ["test_batch.bin"]
    _label_bytes = 1

    def __init__(self, root=os.path.join(data_dir(), "datasets", "cifar10"), train=True, transform=None):
        self._train = train
        super().__init__(root, transform)

    def _label_column(self):
        return 0

    def _find(self, name):
        for folder in (self._root, os.path.join(self._root, self._subfolder)):
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                return path
        return None

    def _read_batch(self, path):
        with open(path, "rb") as fin:
            raw = np.frombuffer(fin.read(), dtype=np.uint8)
        width = 3072 + self._label_bytes
        if raw.size % width:
            raise MXNetError(f"{type(self).__name__}: {path} is not a CIFAR binary file ({raw.size} bytes is not "
                             f"a multiple of the {width}-byte record)")
        raw = raw.reshape(-1, width)
        images = raw[:, self._label_bytes:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
        return images, raw[:, self._label_column()].astype(np.int32)

    def _get_data(self):
        names = self._train_files if self._train else self._test_files
        if any(self._find(name) is None for name in names):
            archive = os.path.join(self._root, self._archive)
            if os.path.isfile(archive):
                with tarfile.open(archive) as tar:
                    try:
                        tar.extractall(self._root, filter="data")
                    except TypeError:       # Python without extraction filters
                        tar.extractall(self._root)
            absent = [name for name in names if self._find(name) is None]
            if absent:
                raise _missing(type(self).__name__, self._root, absent + [f"(or the archive {self._archive})"],
                               _REPO + self._namespace + "/" + self._archive)
        parts = [self._read_batch(self._find(name)) for name in names]
        self._data = nd.array(np.concatenate([p[0] for p in parts]), dtype=np.uint8)
        self._label = np.concatenate([p[1] for p in parts])


class CIFAR100(CIFAR10):
    """CIFAR-100: ``train.bin`` / ``test.bin`` of the binary version (or
    ``cifar-100-binary.tar.gz``) in ``root``; labels are the 20 coarse classes, or the 100 fine
    ones with ``fine_label=True``."""

    _namespace = "cifar100"
    _archive = "cifar-100-binary.tar.gz"
    _subfolder = "cifar-100-binary"
    _train_files = ["train.bin"]
    _test_files = ["test.bin"]
    _label_bytes = 2

    def __init__(self, root=os.path.join(data_dir(), "datasets", "cifar100"), fine_label=False, train=True,
                 transform=None):
        self._fine_label = bool(fine_label)
        super().__init__(root, train, transform)

    def _label_column(self):
        return int(self._fine_label)


class ImageRecordDataset(dataset.RecordFileDataset):
    """Images in a RecordIO file (with its ``.idx``): sample ``i`` is the decoded image
    ``(height, width, 3)`` uint8 (``flag=0``: one grey channel) and the record header's label
    (a float, or a float32 numpy array for multi-value labels)."""

    def __init__(self, filename, flag=1, transform=None):
        super().__init__(filename)
        self._flag = flag
        self._transform = transform

    def __getitem__(self, idx):
        header, encoded = recordio.unpack(super().__getitem__(idx))
        img = image.imdecode(encoded, self._flag)
        if self._transform is not None:
            return self._transform(img, header.label)
        return img, header.label


class ImageFolderDataset(dataset.Dataset):
    """Images in one sub-folder per class (``root/car/0001.jpg``, ``root/bus/023.png``).

    ``synsets`` lists the class folder names in sorted order (label ``i`` is
    ``synsets[i]``), ``items`` the ``(path, label)`` pairs.  Files other than ``.jpg``,
    ``.jpeg`` and ``.png`` and non-folders in ``root`` are skipped with a warning, as in MXNet.
    Sample ``i``: ``(image NDArray (height, width, channels) uint8, label int)``.
    """

    def __init__(self, root, flag=1, transform=None):
        self._root = os.path.expanduser(root)
        self._flag = flag
        self._transform = transform
        self._exts = [".jpg", ".jpeg", ".png"]
        if not os.path.isdir(self._root):
            raise MXNetError(f"ImageFolderDataset: root {self._root!r} is not a folder")
        self._list_images(self._root)

    def _list_images(self, root):
        self.synsets = []
        self.items = []
        for folder in sorted(os.listdir(root)):
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                warnings.warn(f"Ignoring {path}, which is not a directory.", stacklevel=3)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for filename in sorted(os.listdir(path)):
                filename = os.path.join(path, filename)
                ext = os.path.splitext(filename)[1]
                if ext.lower() not in self._exts:
                    warnings.warn(f"Ignoring {filename} of type {ext}. Only support {', '.join(self._exts)}")
                    continue
                self.items.append((filename, label))

    def __getitem__(self, idx):
        img = image.imread(self.items[idx][0], self._flag)
        label = self.items[idx][1]
        if self._transform is not None:
            return self._transform(img, label)
        return img, label

    def __len__(self):
        return len(self.items)


class ImageListDataset(dataset.Dataset):
    """Images listed with their labels (MXNet 1.x's later ``ImageListDataset``).

    ``imglist`` is a ``.lst`` file (``index<TAB>label(s)<TAB>path`` per line, im2rec's format)
    or a list of ``[label(s)..., path]`` entries; paths are relative to ``root``.  Sample
    ``i``: ``(image NDArray uint8, label)``, the label a float or a float32 array.
    """

    def __init__(self, root=".", imglist=None, flag=1):
        self._root = os.path.expanduser(root)
        self._flag = flag
        self._items = []
        if isinstance(imglist, str):
            with open(imglist) as fin:
                for number, line in enumerate(fin, 1):
                    fields = line.strip().split("\t")
                    if not fields or fields == [""]:
                        continue
                    if len(fields) < 3:
                        raise MXNetError(f"ImageListDataset: line {number} of {imglist} needs "
                                         f"'index<TAB>label<TAB>path', got {line.strip()!r}")
                    labels = np.array([float(v) for v in fields[1:-1]], dtype=np.float32)
                    self._items.append((fields[-1], labels[0] if labels.size == 1 else labels))
        elif imglist is not None:
            for entry in imglist:
                entry = list(entry)
                labels = np.array(entry[:-1], dtype=np.float32)
                self._items.append((entry[-1], labels[0] if labels.size == 1 else labels))
        else:
            raise MXNetError("ImageListDataset: imglist (a .lst file or a list of [label, path]) is required")

    def __getitem__(self, idx):
        path, label = self._items[idx]
        return image.imread(os.path.join(self._root, path), self._flag), label

    def __len__(self):
        return len(self._items)

# MXNet's module imported the repository URL helper from mxnet.gluon.utils
from ...utils import _get_repo_file_url  # noqa: E402,F401
