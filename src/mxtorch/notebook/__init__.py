"""``mx.notebook``: training callbacks for Jupyter notebooks (``mx.notebook.callback``)."""
from . import callback  # noqa: F401
