"""``mx.contrib.text`` (MXNet 1.9.1): token counting (``utils``), vocabularies (``vocab``) and
token embeddings (``embedding``: GloVe, fastText, files of your own, compositions)."""
from . import utils  # noqa: F401
from . import vocab  # noqa: F401
from . import embedding  # noqa: F401
