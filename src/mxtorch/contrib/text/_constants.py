"""Constants of ``mx.contrib.text``: the index of the unknown token, the repository MXNet
downloaded embeddings from, and the SHA-1 digests of the known GloVe / fastText files
(``pretrained_files.json``, written from MXNet 1.9.1 by ``tools/gen_text_constants.py``)."""
import json
import os

from ...gluon.contrib.data.vocab import UNKNOWN_IDX  # noqa: F401  (the index of the unknown token)

APACHE_REPO_URL = "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/"
"""Where MXNet fetched pre-trained embeddings (``$MXNET_GLUON_REPO`` overrides it)."""

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "pretrained_files.json")) as _handle:
    _TABLES = json.load(_handle)

GLOVE_PRETRAINED_FILE_SHA1 = _TABLES["GLOVE_PRETRAINED_FILE_SHA1"]
"""GloVe archive name (``glove.6B.zip``) -> SHA-1 (MXNet's naming, kept as it was)."""
GLOVE_PRETRAINED_ARCHIVE_SHA1 = _TABLES["GLOVE_PRETRAINED_ARCHIVE_SHA1"]
"""GloVe vector file name (``glove.6B.50d.txt``) -> SHA-1."""
FAST_TEXT_ARCHIVE_SHA1 = _TABLES["FAST_TEXT_ARCHIVE_SHA1"]
"""fastText archive name (``wiki.simple.zip``) -> SHA-1."""
FAST_TEXT_FILE_SHA1 = _TABLES["FAST_TEXT_FILE_SHA1"]
"""fastText vector file name (``wiki.simple.vec``) -> SHA-1."""
del _TABLES, _handle
