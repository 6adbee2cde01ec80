"""Token counting for ``mx.contrib.text`` (MXNet 1.9.1's ``mxnet.contrib.text.utils``)."""
import collections
import re

__all__ = ["count_tokens_from_str"]


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
