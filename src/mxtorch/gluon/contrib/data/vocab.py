"""Token counting and vocabularies: ``count_tokens_from_str`` and ``Vocabulary``, which the
language-model data sets (:mod:`.text`) index with.  MXNet 1.9.1 named them
``mxnet.contrib.text.utils.count_tokens_from_str`` and ``mxnet.contrib.text.vocab.Vocabulary``;
those modules re-export them from here, the lowest layer that uses them."""
import collections
import re

from ....base import MXNetAssertionError, MXNetValueError

__all__ = ["UNKNOWN_IDX", "count_tokens_from_str", "Vocabulary"]

UNKNOWN_IDX = 0
"""Index of the unknown token in every vocabulary and embedding."""



def count_tokens_from_str(source_str, token_delim=" ", seq_delim="\n", to_lower=False, counter_to_update=None):
    """Count the tokens of ``source_str``, split at the regular expressions ``token_delim`` and
    ``seq_delim`` (empty pieces dropped), lower-cased first with ``to_lower``.

    Returns a new ``collections.Counter``, or ``counter_to_update`` updated in place and
    returned.  Example: ``count_tokens_from_str(' Life is great ! \\n life is good . \\n', ' ',
    '\\n', True)`` counts ``is`` and ``life`` twice."""
    tokens = [token for token in re.split(token_delim + "|" + seq_delim, source_str) if token]
    if to_lower:
        tokens = [token.lower() for token in tokens]
    if counter_to_update is None:
        return collections.Counter(tokens)
    counter_to_update.update(tokens)
    return counter_to_update



class Vocabulary:
    """Indices for the unknown token, the reserved tokens and the keys of a token counter.

    Index 0 is ``unknown_token`` (default ``'<unk>'``), then ``reserved_tokens`` in their order,
    then the keys of ``counter`` (a ``collections.Counter``) by decreasing frequency, ties in
    ascending key order, skipping keys counted fewer than ``min_freq`` times and the unknown /
    reserved tokens, at most ``most_freq_count`` of them (None: no limit).  Tokens are any
    hashable values of one type (str, int, tuple).

    Errors (MXNetError that is also an AssertionError, as MXNet asserted): ``min_freq`` < 1,
    ``reserved_tokens`` holding ``unknown_token`` or a duplicate, ``counter`` not a Counter.
    """

    def __init__(self, counter=None, most_freq_count=None, min_freq=1, unknown_token="<unk>",
                 reserved_tokens=None):
        if not min_freq > 0:
            raise MXNetAssertionError(f"Vocabulary: `min_freq` must be set to a positive value, got {min_freq}")
        if reserved_tokens is not None:
            if unknown_token in set(reserved_tokens):
                raise MXNetAssertionError("Vocabulary: `reserved_token` cannot contain `unknown_token` "
                                          f"{unknown_token!r}")
            if len(set(reserved_tokens)) != len(reserved_tokens):
                raise MXNetAssertionError("Vocabulary: `reserved_tokens` cannot contain duplicate reserved "
                                          f"tokens, got {reserved_tokens!r}")
        self._unknown_token = unknown_token
        self._reserved_tokens = None if reserved_tokens is None else list(reserved_tokens)
        self._idx_to_token = [unknown_token] + (self._reserved_tokens or [])
        self._token_to_idx = {token: index for index, token in enumerate(self._idx_to_token)}
        if counter is not None:
            self._index_counter_keys(counter, most_freq_count, min_freq)

    def _index_counter_keys(self, counter, most_freq_count, min_freq):
        if not isinstance(counter, collections.Counter):
            raise MXNetAssertionError(f"Vocabulary: `counter` must be an instance of collections.Counter, "
                                      f"got {type(counter).__name__}")
        special = set(self._reserved_tokens or ()) | {self._unknown_token}
        by_frequency = sorted(sorted(counter.items(), key=lambda item: item[0]),
                              key=lambda item: item[1], reverse=True)
        capacity = len(special) + (len(counter) if most_freq_count is None else most_freq_count)
        for token, frequency in by_frequency:
            if frequency < min_freq or len(self._idx_to_token) == capacity:
                break
            if token not in special:
                self._idx_to_token.append(token)
                self._token_to_idx[token] = len(self._idx_to_token) - 1

    def __len__(self):
        return len(self._idx_to_token)

    @property
    def token_to_idx(self):
        """dict: token -> index."""
        return self._token_to_idx

    @property
    def idx_to_token(self):
        """list: the indexed tokens, position = index."""
        return self._idx_to_token

    @property
    def unknown_token(self):
        """The token every unknown token maps to (index 0)."""
        return self._unknown_token

    @property
    def reserved_tokens(self):
        """The reserved tokens (a list) or None."""
        return self._reserved_tokens

    def to_indices(self, tokens):
        """The index of a token, or the list of indices of a list of tokens; unknown tokens give
        0 (``UNKNOWN_IDX``)."""
        if not isinstance(tokens, list):
            return self._token_to_idx.get(tokens, UNKNOWN_IDX)
        return [self._token_to_idx.get(token, UNKNOWN_IDX) for token in tokens]

    def to_tokens(self, indices):
        """The token of an index, or the list of tokens of a list of indices.  An index that is
        not an int or is past the last token raises an MXNetError that is also a ValueError."""
        single = not isinstance(indices, list)
        tokens = []
        for index in [indices] if single else indices:
            if not isinstance(index, int) or index > len(self._idx_to_token) - 1:
                raise MXNetValueError(f"Token index {index} in the provided `indices` is invalid "
                                      f"(the vocabulary has {len(self._idx_to_token)} tokens).")
            tokens.append(self._idx_to_token[index])
        return tokens[0] if single else tokens
