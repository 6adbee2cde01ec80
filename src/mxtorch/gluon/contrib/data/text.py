"""Language-model datasets (MXNet 1.9.1's ``mxnet.gluon.contrib.data.text``): WikiText-2 and
WikiText-103.

A sample is ``(data, label)``: two int32 NDArrays of ``seq_len`` token indices, the label being
the data shifted by one token.  The segment's tokens (``wiki.train.tokens``,
``wiki.valid.tokens`` or ``wiki.test.tokens``) are read line by line, each non-empty line's
whitespace-separated tokens followed by ``<eos>``, indexed with ``vocab`` (by default a
``mx.contrib.text.vocab.Vocabulary`` of the segment's token counts with ``<eos>`` reserved) and
cut into rows of ``seq_len`` (the remainder dropped, as MXNet 1.9.1).

Like mxtorch's other data sets these never download: the tokens file is read from ``root``
(default ``$MXNET_HOME/datasets/wikitext-2`` / ``wikitext-103``), or extracted there from the
published archive (``wikitext-2-v1.zip`` / ``wikitext-103-v1.zip``) placed in ``root``; when
neither is there, MissingDatasetError names the files and where MXNet fetched them.  A tokens
file whose SHA-1 differs from the published one is used with a warning.
"""
from __future__ import annotations

import os
import shutil
import warnings
import zipfile

import numpy as np

from ....base import data_dir
from ....base import MXNetValueError
from .... import ndarray as nd
from ...data import dataset
from ...data.vision.datasets import _REPO, _missing
from ...utils import check_sha1, download  # noqa: F401  (MXNet's module exposes them)
from . import _constants as C
from .vocab import Vocabulary, count_tokens_from_str

__all__ = ["WikiText2", "WikiText103"]


class _LanguageModelDataset(dataset.Dataset):
    """A token-index data set built from a text file, with its ``vocabulary`` and token
    ``frequencies`` (a Counter of the file, None when ``vocab`` was given)."""

    def __init__(self, root, namespace, vocabulary):
        super().__init__()
        self._vocab = vocabulary
        self._counter = None
        self._namespace = namespace
        self._root = os.path.expanduser(root)
        self._get_data()

    @property
    def vocabulary(self):
        """The Vocabulary the tokens were indexed with."""
        return self._vocab

    @property
    def frequencies(self):
        """The token counts of the file (a ``collections.Counter``)."""
        return self._counter

    def _build_vocab(self, content):
        if not self._counter:
            self._counter = count_tokens_from_str(content)
        if not self._vocab:
            self._vocab = Vocabulary(counter=self.frequencies, reserved_tokens=[C.EOS_TOKEN])


class _WikiText(_LanguageModelDataset):
    """WikiText-2 / -103: see the module docstring."""

    _archive_file = None
    _data_file = None

    def __init__(self, root, namespace, segment, vocab, seq_len):
        if segment not in self._data_file:
            raise MXNetValueError(f"{type(self).__name__}: segment must be one of {sorted(self._data_file)}, "
                                  f"got {segment!r}")
        self._segment = segment
        self._seq_len = seq_len
        super().__init__(root, namespace, vocab)

    def _read_batch(self, filename):
        with open(filename, "r", encoding="utf8") as handle:
            content = handle.read()
        self._build_vocab(content)
        tokens = []
        for line in content.splitlines():
            words = line.strip().split()
            if words:
                tokens.extend(words)
                tokens.append(C.EOS_TOKEN)
        indices = self.vocabulary.to_indices(tokens)
        return np.array(indices[:-1], dtype=np.int32), np.array(indices[1:], dtype=np.int32)

    def _find_tokens_file(self):
        archive_name, _ = self._archive_file
        data_name, data_hash = self._data_file[self._segment]
        path = os.path.join(self._root, data_name)
        archive = os.path.join(self._root, archive_name)
        if not os.path.isfile(path) and os.path.isfile(archive):
            with zipfile.ZipFile(archive, "r") as bundle:
                for member in bundle.namelist():
                    name = os.path.basename(member)
                    if name:
                        with bundle.open(member) as source, open(os.path.join(self._root, name), "wb") as target:
                            shutil.copyfileobj(source, target)
        if not os.path.isfile(path):
            raise _missing(type(self).__name__, self._root, [data_name, f"(or the archive {archive_name})"],
                           _REPO + self._namespace + "/" + archive_name)
        if not check_sha1(path, data_hash):
            warnings.warn(f"{type(self).__name__}: {path} differs from the published {data_name} (SHA-1 "
                          f"{data_hash}); using it as it is", stacklevel=4)
        return path

    def _get_data(self):
        data, label = self._read_batch(self._find_tokens_file())
        usable = len(data) // self._seq_len * self._seq_len
        self._data = nd.array(data[:usable], dtype=np.int32).reshape((-1, self._seq_len))
        self._label = nd.array(label[:usable], dtype=np.int32).reshape((-1, self._seq_len))

    def __getitem__(self, idx):
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)


class WikiText2(_WikiText):
    """WikiText-2 (Merity et al., 2016; CC BY-SA): ``segment`` 'train', 'validation' or 'test',
    ``vocab`` (default: built from the segment), ``seq_len`` (35).  See the module docstring."""

    _archive_file = ("wikitext-2-v1.zip", "3c914d17d80b1459be871a5039ac23e752a53cbe")
    _data_file = {"train": ("wiki.train.tokens", "863f29c46ef9d167fff4940ec821195882fe29d1"),
                  "validation": ("wiki.valid.tokens", "0418625c8b4da6e4b5c7a0b9e78d4ae8f7ee5422"),
                  "test": ("wiki.test.tokens", "c7b8ce0aa086fb34dab808c5c49224211eb2b172")}

    def __init__(self, root=os.path.join(data_dir(), "datasets", "wikitext-2"), segment="train", vocab=None,
                 seq_len=35):
        super().__init__(root, "wikitext-2", segment, vocab, seq_len)


class WikiText103(_WikiText):
    """WikiText-103 (Merity et al., 2016; CC BY-SA), the same interface as :class:`WikiText2`."""

    _archive_file = ("wikitext-103-v1.zip", "0aec09a7537b58d4bb65362fee27650eeaba625a")
    _data_file = {"train": ("wiki.train.tokens", "b7497e2dfe77e72cfef5e3dbc61b7b53712ac211"),
                  "validation": ("wiki.valid.tokens", "c326ac59dc587676d58c422eb8a03e119582f92b"),
                  "test": ("wiki.test.tokens", "8a5befc548865cec54ed4273cf87dbbad60d1e47")}

    def __init__(self, root=os.path.join(data_dir(), "datasets", "wikitext-103"), segment="train", vocab=None,
                 seq_len=35):
        super().__init__(root, "wikitext-103", segment, vocab, seq_len)

# MXNet's module imported the repository URL helper from mxnet.gluon.utils
from ...utils import _get_repo_file_url  # noqa: E402,F401
