"""Bucketed sentence data for recurrent language models (MXNet 1.9.1's ``mx.rnn.io``)."""
from __future__ import annotations

import bisect
import logging
import random

import numpy as np

from .. import ndarray
from ..base import MXNetError
from ..io import DataBatch, DataDesc, DataIter

__all__ = ["encode_sentences", "BucketSentenceIter"]


def encode_sentences(sentences, vocab=None, invalid_label=-1, invalid_key="\n", start_label=0,
                     unknown_token=None):
    """Replace the tokens of ``sentences`` (list of lists of str) by integer ids.

    Without ``vocab`` a vocabulary is built: ``{invalid_key: invalid_label}`` and then each
    new token gets the next id counting from ``start_label`` (skipping ``invalid_label``).
    With a ``vocab`` (dict str -> int) a token not in it maps to ``unknown_token``
    (added to the vocabulary once when missing, with the first id from ``start_label`` on
    that is neither ``invalid_label`` nor already used) or, without
    ``unknown_token``, raises MXNetError.  Returns ``(encoded, vocab)``; a given ``vocab``
    is updated in place, as in MXNet.

    mxtorch differs from MXNet 1.9.1 only with ``unknown_token``: MXNet gave the unknown
    token a new id at every unknown word (and, while building a vocabulary, mapped every
    word to it), so equal words got different ids.
    """
    next_id = start_label
    if vocab is None:
        vocab = {invalid_key: invalid_label}
        building = True
    else:
        building = False
    taken = {value for value in vocab.values() if isinstance(value, (int, np.integer))}
    encoded = []
    for sentence in sentences:
        ids = []
        for word in sentence:
            if word not in vocab:
                if not building:
                    if not unknown_token:
                        raise MXNetError(f"encode_sentences: unknown token {word!r} and no unknown_token given")
                    word = unknown_token
                if word not in vocab:
                    # the next id from start_label that is neither invalid_label nor taken
                    while next_id == invalid_label or next_id in taken:
                        next_id += 1
                    vocab[word] = next_id
                    taken.add(next_id)
                    next_id += 1
            ids.append(vocab[word])
        encoded.append(ids)
    return encoded, vocab


def _transposed(array):
    """``array.T`` of a 2-D NDArray, as a new contiguous array."""
    return ndarray.NDArray(array._tensor.t().contiguous(), array.context)


class BucketSentenceIter(DataIter):
    """Batches of encoded sentences grouped by length, for ``BucketingModule``.

    ``sentences``: list of lists of int ids.  Each sentence goes to the smallest bucket
    length that holds it (``buckets``; by default every length with at least
    ``batch_size`` sentences) and is padded with ``invalid_label``; longer ones are
    discarded (logged).  The label of each position is the next token (``invalid_label``
    at the end).  Batches are ``(batch_size, bucket)`` for layout 'NT' or
    ``(bucket, batch_size)`` for 'TN', dtype ``dtype``, with ``bucket_key`` the bucket
    length; a bucket's leftover sentences (fewer than ``batch_size``) are not used.

    ``reset()`` shuffles the batch order with Python's ``random.shuffle`` and the rows of
    every bucket with ``numpy.random.shuffle`` (in that order, as MXNet), so seeding both
    generators reproduces MXNet's batches.  Attributes as in MXNet: ``buckets``,
    ``default_bucket_key`` (largest bucket), ``provide_data``/``provide_label`` (shaped for
    it), ``data`` (per-bucket numpy arrays), ``idx`` ((bucket, row) of each batch),
    ``curr_idx``, ``nddata``, ``ndlabel``, ``layout``, ``major_axis``, ``invalid_label``,
    ``data_name``, ``label_name``, ``dtype``.
    """

    def __init__(self, sentences, batch_size, buckets=None, invalid_label=-1, data_name="data",
                 label_name="softmax_label", dtype="float32", layout="NT"):
        super().__init__()
        major_axis = layout.find("N") if isinstance(layout, str) else -1
        if layout not in ("NT", "TN"):
            raise MXNetError(f"BucketSentenceIter: layout must be 'NT' (batch major) or 'TN' (time major), "
                             f"got {layout!r}")
        if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise MXNetError(f"BucketSentenceIter: batch_size must be a positive int, got {batch_size!r}")
        lengths = [len(sentence) for sentence in sentences]
        if not buckets:
            counts = np.bincount(lengths) if lengths else np.zeros(0, dtype=np.int64)
            buckets = [length for length, count in enumerate(counts) if count >= batch_size]
        if not buckets:
            raise MXNetError(f"BucketSentenceIter: no bucket: no sentence length occurs batch_size={batch_size} "
                             "times; pass buckets=[...] explicitly")
        buckets = sorted(buckets)

        discarded = 0
        per_bucket = [[] for _ in buckets]
        for sentence, length in zip(sentences, lengths):
            bucket = bisect.bisect_left(buckets, length)
            if bucket == len(buckets):
                discarded += 1
                continue
            row = np.full((buckets[bucket],), invalid_label, dtype=dtype)
            row[:length] = sentence
            per_bucket[bucket].append(row)
        if discarded:
            logging.warning("BucketSentenceIter: discarded %d sentences longer than the largest bucket.", discarded)
        # buckets that received no sentence disappear, from the keys and from the data
        self.buckets = [length for length, rows in zip(buckets, per_bucket) if rows]
        self.data = [np.asarray(rows, dtype=dtype) for rows in per_bucket if rows]
        if not self.buckets:
            raise MXNetError("BucketSentenceIter: no sentence fits any bucket")

        self.batch_size = batch_size
        self.data_name = data_name
        self.label_name = label_name
        self.dtype = dtype
        self.invalid_label = invalid_label
        self.nddata = []
        self.ndlabel = []
        self.major_axis = major_axis
        self.layout = layout
        self.default_bucket_key = max(self.buckets)
        shape = (batch_size, self.default_bucket_key) if major_axis == 0 else (self.default_bucket_key, batch_size)
        self.provide_data = [DataDesc(name=self.data_name, shape=shape, layout=self.layout)]
        self.provide_label = [DataDesc(name=self.label_name, shape=shape, layout=self.layout)]

        self.idx = []
        for bucket, rows in enumerate(self.data):
            self.idx.extend((bucket, start) for start in range(0, len(rows) - batch_size + 1, batch_size))
        self.curr_idx = 0
        self.reset()

    def reset(self):
        """Start a new epoch: shuffle the batch order and each bucket's rows, rebuild the
        data and label NDArrays."""
        self.curr_idx = 0
        random.shuffle(self.idx)
        for rows in self.data:
            np.random.shuffle(rows)
        self.nddata = []
        self.ndlabel = []
        for rows in self.data:
            label = np.empty_like(rows)
            if rows.shape[1]:
                label[:, :-1] = rows[:, 1:]
                label[:, -1] = self.invalid_label
            self.nddata.append(ndarray.array(rows, dtype=self.dtype))
            self.ndlabel.append(ndarray.array(label, dtype=self.dtype))

    def next(self):
        """The next DataBatch (``bucket_key``, ``provide_data``/``provide_label`` of its
        shape, ``pad`` 0); StopIteration at the end of the epoch."""
        if self.curr_idx == len(self.idx):
            raise StopIteration
        bucket, start = self.idx[self.curr_idx]
        self.curr_idx += 1
        data = self.nddata[bucket][start:start + self.batch_size]
        label = self.ndlabel[bucket][start:start + self.batch_size]
        if self.major_axis == 1:
            data, label = _transposed(data), _transposed(label)
        return DataBatch([data], [label], pad=0, bucket_key=self.buckets[bucket],
                         provide_data=[DataDesc(name=self.data_name, shape=data.shape, layout=self.layout)],
                         provide_label=[DataDesc(name=self.label_name, shape=label.shape, layout=self.layout)])
