"""mx.contrib.text: token counting, Vocabulary and token embeddings.

Expected values were produced with MXNet 1.9.1 (``/root/mxref``) running the same calls on the same
files.  Pre-trained GloVe / fastText files are never downloaded: a missing one raises MXNetError
naming where to place it.
"""
from collections import Counter

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError

text = mx.contrib.text
EMBEDDING_FILE = "a 0.1 0.2\nb 0.3 0.4\n<unk> 9 9\nc 1 2\n"


@pytest.fixture
def embedding_file(tmp_path):
    path = tmp_path / "vectors.txt"
    path.write_text(EMBEDDING_FILE)
    return str(path)


def test_count_tokens_and_vocabulary_order_match_mxnet():
    counter = text.utils.count_tokens_from_str(" Life is great ! \n life is good . \n", " ", "\n", True)
    assert counter == Counter({"life": 2, "is": 2, "great": 1, "!": 1, "good": 1, ".": 1})
    vocab = text.vocab.Vocabulary(counter, most_freq_count=3, reserved_tokens=["<pad>"])
    assert vocab.idx_to_token == ["<unk>", "<pad>", "is", "life", "!"]
    assert vocab.to_indices(["is", "zzz"]) == [2, 0] and vocab.to_indices("life") == 3
    assert vocab.to_tokens([1, 2]) == ["<pad>", "is"] and len(vocab) == 5
    assert text.vocab.Vocabulary(counter, min_freq=2).idx_to_token == ["<unk>", "is", "life"]
    with pytest.raises(ValueError, match="Token index 9"):
        vocab.to_tokens(9)
    with pytest.raises(AssertionError):
        text.vocab.Vocabulary(counter, reserved_tokens=["<unk>"])
    with pytest.raises(AssertionError):
        text.vocab.Vocabulary({"a": 1})
    updated = text.utils.count_tokens_from_str("*a*b*\n*a*", "\\*", "\n", counter_to_update=Counter({"a": 1}))
    assert updated == Counter({"a": 3, "b": 1})


def test_custom_and_composite_embeddings_match_mxnet(embedding_file):
    embedding = text.embedding.CustomEmbedding(embedding_file)
    assert embedding.idx_to_token == ["<unk>", "a", "b", "c"] and embedding.vec_len == 2
    np.testing.assert_allclose(embedding.idx_to_vec.asnumpy(), [[9, 9], [0.1, 0.2], [0.3, 0.4], [1, 2]], rtol=1e-6)
    np.testing.assert_allclose(embedding.get_vecs_by_tokens(["b", "zz", "A"], lower_case_backup=True).asnumpy(),
                               [[0.3, 0.4], [9, 9], [0.1, 0.2]], rtol=1e-6)
    assert embedding.get_vecs_by_tokens("c").shape == (2,)
    vocab = text.vocab.Vocabulary(Counter(["c", "c", "a", "q"]), reserved_tokens=["<pad>"])
    composite = text.embedding.CompositeEmbedding(vocab, [embedding, embedding])
    assert composite.idx_to_token == ["<unk>", "<pad>", "c", "a", "q"]
    np.testing.assert_allclose(composite.idx_to_vec.asnumpy(),
                               [[9, 9, 9, 9], [9, 9, 9, 9], [1, 2, 1, 2], [0.1, 0.2, 0.1, 0.2], [9, 9, 9, 9]],
                               rtol=1e-6)
    reindexed = text.embedding.CustomEmbedding(embedding_file, vocabulary=vocab)
    np.testing.assert_allclose(reindexed.idx_to_vec.asnumpy(), [[9, 9], [9, 9], [1, 2], [0.1, 0.2], [9, 9]],
                               rtol=1e-6)
    embedding.update_token_vectors(["a", "c"], mx.nd.array([[5, 6], [7, 8]]))
    np.testing.assert_allclose(embedding.idx_to_vec.asnumpy(), [[9, 9], [5, 6], [0.3, 0.4], [7, 8]], rtol=1e-6)
    with pytest.raises(ValueError, match="Token zz is unknown"):
        embedding.update_token_vectors("zz", mx.nd.array([1, 2]))
    with pytest.raises(AssertionError):
        embedding.update_token_vectors(["a", "b"], mx.nd.array([1, 2]))


def test_embedding_file_errors_and_header_lines(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("a 1 2\nb 1 2 3\n")
    with pytest.raises(AssertionError, match="dimension of token b is 3"):
        text.embedding.CustomEmbedding(str(path))
    path.write_text("3 2\na 1 2\na 5 5\n")
    with pytest.warns(UserWarning):
        embedding = text.embedding.CustomEmbedding(str(path))
    assert embedding.idx_to_token == ["<unk>", "a"]
    np.testing.assert_array_equal(embedding.idx_to_vec.asnumpy(), [[0, 0], [1, 2]])
    with pytest.raises(ValueError, match="valid path"):
        text.embedding.CustomEmbedding(str(tmp_path / "missing.txt"))


def test_pretrained_embeddings_registry_and_offline_placement(tmp_path):
    names = text.embedding.get_pretrained_file_names()
    assert sorted(names) == ["fasttext", "glove"] and len(text._constants.FAST_TEXT_FILE_SHA1) == 327
    assert text.embedding.get_pretrained_file_names("glove")[:3] == \
        ["glove.42B.300d.txt", "glove.6B.50d.txt", "glove.6B.100d.txt"]
    assert text.embedding.GloVe._get_download_file_name("glove.6B.50d.txt") == "glove.6B.zip"
    assert text.embedding.FastText._get_download_file_name("wiki.simple.vec") == "wiki.simple.zip"
    with pytest.raises(MXNetError, match="Cannot find pretrained file nope.txt"):
        text.embedding.GloVe("nope.txt")
    with pytest.raises(MXNetError, match=r"not at .*glove.glove\.6B\.50d\.txt.*gluon/embeddings/glove/glove\.6B\.zip"):
        text.embedding.create("glove", pretrained_file_name="glove.6B.50d.txt", embedding_root=str(tmp_path))
    (tmp_path / "glove").mkdir()
    (tmp_path / "glove" / "glove.6B.50d.txt").write_text("the 1 2\nof 3 4\n")
    with pytest.warns(UserWarning, match="SHA-1"):
        glove = text.embedding.create("glove", pretrained_file_name="glove.6B.50d.txt",
                                      embedding_root=str(tmp_path))
    assert glove.idx_to_token == ["<unk>", "the", "of"] and glove.vec_len == 2
    with pytest.raises(KeyError):
        text.embedding.get_pretrained_file_names("word2vec")
