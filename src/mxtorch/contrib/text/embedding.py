"""Token embeddings for ``mx.contrib.text`` (MXNet 1.9.1's ``mxnet.contrib.text.embedding``).

An embedding is a ``Vocabulary`` whose every index has a vector: ``idx_to_vec`` is an NDArray
of shape ``(len(embedding), vec_len)``; row 0 is the unknown token's vector (from the file when
the file has the unknown token, else ``init_unknown_vec(shape=vec_len)``, zeros by default).

- ``CustomEmbedding(path, elem_delim=' ')`` reads a text file of lines ``token v1 v2 ...``.
- ``GloVe(pretrained_file_name)`` / ``FastText(pretrained_file_name)`` read the published
  files.  MXNet downloaded them; mxtorch works offline: place the file at
  ``<embedding_root>/<glove|fasttext>/<pretrained_file_name>`` (``embedding_root`` defaults to
  ``$MXNET_HOME/embeddings``, i.e. ``~/.mxnet/embeddings``); a missing file raises MXNetError
  naming that path and the URL MXNet fetched it from, and a file whose SHA-1 differs from the
  published one is used with a warning.
- ``CompositeEmbedding(vocabulary, embeddings)`` indexes a vocabulary's tokens with the
  concatenated vectors of one or more embeddings.
- Passing ``vocabulary=`` to the others re-indexes the loaded vectors to that vocabulary.

``register`` / ``create`` / ``get_pretrained_file_names`` manage the named embeddings (``glove``,
``fasttext``) through ``mx.registry`` as MXNet did.
"""
import hashlib
import logging
import os
import warnings

from ... import ndarray as nd
from ... import registry
from ...base import MXNetAssertionError, MXNetError, MXNetValueError, data_dir
from ...util import is_np_array  # noqa: F401 (in MXNet's namespace)
from . import _constants as C
from . import vocab

__all__ = ["register", "create", "get_pretrained_file_names", "GloVe", "FastText", "CustomEmbedding",
           "CompositeEmbedding"]


class _TokenEmbedding(vocab.Vocabulary):
    """Base class of the token embeddings (see the module docstring)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._vec_len = None
        self._idx_to_vec = None

    # -- the published files ----------------------------------------------------------------------
    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        return pretrained_file_name

    @classmethod
    def _get_pretrained_file_url(cls, pretrained_file_name):
        repository = os.environ.get("MXNET_GLUON_REPO", C.APACHE_REPO_URL)
        return (f"{repository}gluon/embeddings/{cls.__name__.lower()}/"
                f"{cls._get_download_file_name(pretrained_file_name)}")

    @classmethod
    def _check_pretrained_file_names(cls, pretrained_file_name):
        if pretrained_file_name not in cls.pretrained_file_name_sha1:
            name = cls.__name__.lower()
            raise MXNetError(f"Cannot find pretrained file {pretrained_file_name} for token embedding {name}. "
                             f"Valid pretrained files for embedding {name}: "
                             f"{', '.join(cls.pretrained_file_name_sha1)}")

    @classmethod
    def _get_pretrained_file(cls, embedding_root, pretrained_file_name):
        folder = os.path.join(os.path.expanduser(embedding_root), cls.__name__.lower())
        path = os.path.join(folder, pretrained_file_name)
        if not os.path.isfile(path):
            raise MXNetError(
                f"{cls.__name__}: the pre-trained file {pretrained_file_name} is not at {path}. mxtorch does "
                f"not download; fetch {cls._get_pretrained_file_url(pretrained_file_name)} (unpack it if it "
                f"is an archive) and place {pretrained_file_name} there, or pass embedding_root=")
        digest = hashlib.sha1()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        expected = cls.pretrained_file_name_sha1[pretrained_file_name]
        if digest.hexdigest() != expected:
            warnings.warn(f"{cls.__name__}: {path} has SHA-1 {digest.hexdigest()}, the published file has "
                          f"{expected}; using it as it is", stacklevel=3)
        return path

    def _load_pretrained(self, pretrained_file_name, embedding_root, init_unknown_vec, vocabulary):
        """GloVe / FastText: check the name, find the placed file, load it (space-delimited) and
        re-index it to ``vocabulary`` when one is given."""
        type(self)._check_pretrained_file_names(pretrained_file_name)
        self._load_embedding(type(self)._get_pretrained_file(embedding_root, pretrained_file_name), " ",
                             init_unknown_vec)
        self._build_embedding_for_vocabulary(vocabulary)

    # -- loading ----------------------------------------------------------------------------------
    def _load_embedding(self, pretrained_file_path, elem_delim, init_unknown_vec, encoding="utf8"):
        """Index the tokens of a ``token v1 v2 ...`` file and load their vectors.  The first
        vector of a token wins (later ones warn); a line with a one-number vector is taken for a
        header and skipped with a warning; vectors of different lengths raise."""
        path = os.path.expanduser(pretrained_file_path)
        if not os.path.isfile(path):
            raise MXNetValueError(f"`pretrained_file_path` must be a valid path to the pre-trained token "
                                  f"embedding file, got {pretrained_file_path!r}")
        logging.info("Loading pre-trained token embedding vectors from %s", path)
        vec_len, rows, seen, unknown_vector = None, [], set(), None
        with open(path, "r", encoding=encoding) as handle:
            for line_number, line in enumerate(handle, 1):
                parts = line.rstrip().split(elem_delim)
                if len(parts) <= 1:
                    raise MXNetAssertionError(f"At line {line_number} of the pre-trained text embedding file: "
                                              f"the data format of the pre-trained token embedding file "
                                              f"{path} is unexpected.")
                token, values = parts[0], [float(value) for value in parts[1:]]
                if token == self.unknown_token and unknown_vector is None:
                    unknown_vector = values
                    seen.add(token)
                elif token in seen:
                    warnings.warn(f"At line {line_number} of the pre-trained token embedding file: the embedding "
                                  f"vector for token {token} has been loaded and a duplicate embedding for the "
                                  f"same token is seen and skipped.")
                elif len(values) == 1:
                    warnings.warn(f"At line {line_number} of the pre-trained text embedding file: token {token} "
                                  f"with 1-dimensional vector {values} is likely a header and is skipped.")
                else:
                    if vec_len is None:
                        vec_len = len(values)
                    elif len(values) != vec_len:
                        raise MXNetAssertionError(
                            f"At line {line_number} of the pre-trained token embedding file: the dimension of "
                            f"token {token} is {len(values)} but the dimension of previous tokens is {vec_len}. "
                            f"Dimensions of all the tokens must be the same.")
                    rows.append(values)
                    self._idx_to_token.append(token)
                    self._token_to_idx[token] = len(self._idx_to_token) - 1
                    seen.add(token)
        if vec_len is None:
            raise MXNetError(f"{path} holds no token vectors")
        self._vec_len = vec_len
        table = nd.zeros((len(self._idx_to_token), vec_len))
        if rows:
            table[len(self._idx_to_token) - len(rows):] = nd.array(rows)
        table[C.UNKNOWN_IDX] = nd.array(unknown_vector) if unknown_vector is not None \
            else init_unknown_vec(shape=vec_len)
        self._idx_to_vec = table

    def _index_tokens_from_vocabulary(self, vocabulary):
        self._token_to_idx = dict(vocabulary.token_to_idx)
        self._idx_to_token = list(vocabulary.idx_to_token)
        self._unknown_token = vocabulary.unknown_token
        self._reserved_tokens = None if vocabulary.reserved_tokens is None else list(vocabulary.reserved_tokens)

    def _set_idx_to_vec_by_embeddings(self, token_embeddings, vocab_len, vocab_idx_to_token):
        """``idx_to_vec`` for a vocabulary: per token the concatenated vectors of the embeddings
        (row 0: their unknown vectors)."""
        width = sum(embedding.vec_len for embedding in token_embeddings)
        table = nd.zeros((vocab_len, width))
        start = 0
        for embedding in token_embeddings:
            end = start + embedding.vec_len
            table[0, start:end] = embedding.idx_to_vec[0]
            if vocab_len > 1:
                table[1:, start:end] = embedding.get_vecs_by_tokens(list(vocab_idx_to_token[1:]))
            start = end
        self._vec_len = width
        self._idx_to_vec = table

    def _build_embedding_for_vocabulary(self, vocabulary):
        if vocabulary is None:
            return
        if not isinstance(vocabulary, vocab.Vocabulary):
            raise MXNetAssertionError("The argument `vocabulary` must be an instance of "
                                      f"mxnet.contrib.text.vocab.Vocabulary, got {type(vocabulary).__name__}")
        self._set_idx_to_vec_by_embeddings([self], len(vocabulary), vocabulary.idx_to_token)
        self._index_tokens_from_vocabulary(vocabulary)

    # -- use ----------------------------------------------------------------------------------------
    @property
    def vec_len(self):
        """The length of each vector."""
        return self._vec_len

    @property
    def idx_to_vec(self):
        """NDArray ``(len(self), vec_len)``: the vector of each index."""
        return self._idx_to_vec

    def get_vecs_by_tokens(self, tokens, lower_case_backup=False):
        """The vector of a token (shape ``(vec_len,)``) or the vectors of a list of tokens (shape
        ``(len(tokens), vec_len)``); unknown tokens get row 0.  With ``lower_case_backup`` a
        token not found as given is looked up in lower case."""
        single = not isinstance(tokens, list)
        tokens = [tokens] if single else tokens
        if lower_case_backup:
            indices = [self._token_to_idx[token] if token in self._token_to_idx
                       else self._token_to_idx.get(token.lower(), C.UNKNOWN_IDX) for token in tokens]
        else:
            indices = [self._token_to_idx.get(token, C.UNKNOWN_IDX) for token in tokens]
        vectors = nd.Embedding(nd.array(indices), self._idx_to_vec, input_dim=self._idx_to_vec.shape[0],
                               output_dim=self._idx_to_vec.shape[1])
        return vectors[0] if single else vectors

    def update_token_vectors(self, tokens, new_vectors):
        """Overwrite the vectors of known ``tokens`` (a token, or a list) with ``new_vectors``,
        an NDArray of shape ``(len(tokens), vec_len)`` (1-d allowed for one token).  An unknown
        token raises an MXNetError that is also a ValueError (name the unknown token itself to
        change row 0); a wrong shape one that is also an AssertionError."""
        if self._idx_to_vec is None:
            raise MXNetAssertionError("The property `idx_to_vec` has not been properly set.")
        if not isinstance(new_vectors, nd.NDArray):
            raise MXNetAssertionError(f"`new_vectors` must be an NDArray, got {type(new_vectors).__name__}")
        tokens = tokens if isinstance(tokens, list) else [tokens]
        if len(tokens) == 1 and new_vectors.ndim == 1:
            new_vectors = new_vectors.expand_dims(axis=0)
        if tuple(new_vectors.shape) != (len(tokens), self._vec_len):
            raise MXNetAssertionError(f"The length of new_vectors must be equal to the number of tokens and the "
                                      f"width of new_vectors must be equal to the dimension of embeddings of the "
                                      f"glossary: expected {(len(tokens), self._vec_len)}, got "
                                      f"{tuple(new_vectors.shape)}")
        for row, token in enumerate(tokens):
            if token not in self._token_to_idx:
                raise MXNetValueError(f"Token {token} is unknown. To update the embedding vector for an unknown "
                                      f"token, please specify it explicitly as the `unknown_token` "
                                      f"{self._idx_to_token[C.UNKNOWN_IDX]} in `tokens`. This is to avoid "
                                      f"unintended updates.")
            self._idx_to_vec[self._token_to_idx[token]] = new_vectors[row]


_register = registry.get_register_func(_TokenEmbedding, "token embedding")
_create = registry.get_create_func(_TokenEmbedding, "token embedding")


def register(embedding_cls):
    """Register a ``_TokenEmbedding`` subclass under its lower-cased class name for ``create``."""
    return _register(embedding_cls)


def create(embedding_name, **kwargs):
    """An instance of the registered embedding ``embedding_name`` (case-insensitive), built with
    ``kwargs`` (``create('glove', pretrained_file_name='glove.6B.50d.txt')``)."""
    return _create(embedding_name, **kwargs)


def get_pretrained_file_names(embedding_name=None):
    """The valid ``pretrained_file_name`` values of ``embedding_name`` (a list), or for every
    registered embedding a dict name -> list.  KeyError (also an MXNetError) for an unknown name."""
    table = registry.get_registry(_TokenEmbedding)
    if embedding_name is None:
        return {name: list(cls.pretrained_file_name_sha1) for name, cls in table.items()}
    if embedding_name not in table:
        class _UnknownEmbedding(MXNetError, KeyError):
            pass
        raise _UnknownEmbedding(f"Cannot find `embedding_name` {embedding_name}. Use "
                                f"`get_pretrained_file_names(embedding_name=None).keys()` to get all the valid "
                                f"embedding names.")
    return list(table[embedding_name].pretrained_file_name_sha1)


_DEFAULT_ROOT = os.path.join(data_dir(), "embeddings")


def _pretrained_init(default_file):
    """The ``__init__`` of a pre-trained embedding (GloVe, FastText): MXNet's signature, with
    ``pretrained_file_name`` defaulting to ``default_file``; loads the vectors offline."""
    def __init__(self, pretrained_file_name=default_file, embedding_root=_DEFAULT_ROOT,
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        _TokenEmbedding.__init__(self, **kwargs)
        self._load_pretrained(pretrained_file_name, embedding_root, init_unknown_vec, vocabulary)
    return __init__


@register
class GloVe(_TokenEmbedding):
    """The GloVe word vectors (Pennington, Socher and Manning, 2014) of ``pretrained_file_name``
    (``get_pretrained_file_names('glove')`` lists them); offline, see the module docstring."""

    pretrained_archive_name_sha1 = C.GLOVE_PRETRAINED_FILE_SHA1
    pretrained_file_name_sha1 = C.GLOVE_PRETRAINED_ARCHIVE_SHA1

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        archives = {archive.split(".")[1]: archive for archive in cls.pretrained_archive_name_sha1}
        return archives[pretrained_file_name.split(".")[1]]

    __init__ = _pretrained_init("glove.840B.300d.txt")


@register
class FastText(_TokenEmbedding):
    """The fastText word vectors (Bojanowski et al., 2016) of ``pretrained_file_name``
    (``get_pretrained_file_names('fasttext')`` lists them); offline, see the module docstring."""

    pretrained_archive_name_sha1 = C.FAST_TEXT_ARCHIVE_SHA1
    pretrained_file_name_sha1 = C.FAST_TEXT_FILE_SHA1

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        return ".".join(pretrained_file_name.split(".")[:-1]) + ".zip"

    __init__ = _pretrained_init("wiki.simple.vec")


class CustomEmbedding(_TokenEmbedding):
    """Vectors read from a file of your own: one ``token<elem_delim>v1<elem_delim>v2...`` line
    per token, in ``encoding``; ``vocabulary=`` re-indexes them to a vocabulary."""

    def __init__(self, pretrained_file_path, elem_delim=" ", encoding="utf8", init_unknown_vec=nd.zeros,
                 vocabulary=None, **kwargs):
        super().__init__(**kwargs)
        self._load_embedding(pretrained_file_path, elem_delim, init_unknown_vec, encoding)
        self._build_embedding_for_vocabulary(vocabulary)


class CompositeEmbedding(_TokenEmbedding):
    """The tokens of ``vocabulary`` with the concatenated vectors of ``token_embeddings`` (one
    embedding or a list), in list order."""

    def __init__(self, vocabulary, token_embeddings):
        if not isinstance(vocabulary, vocab.Vocabulary):
            raise MXNetAssertionError("The argument `vocabulary` must be an instance of "
                                      f"mxnet.contrib.text.vocab.Vocabulary, got {type(vocabulary).__name__}")
        if not isinstance(token_embeddings, list):
            token_embeddings = [token_embeddings]
        for embedding in token_embeddings:
            if not isinstance(embedding, _TokenEmbedding):
                raise MXNetAssertionError("The argument `token_embeddings` must be an instance or a list of "
                                          "instances of the token embeddings, got "
                                          f"{type(embedding).__name__}")
        super().__init__()
        self._index_tokens_from_vocabulary(vocabulary)
        self._set_idx_to_vec_by_embeddings(token_embeddings, len(self), self.idx_to_token)
