"""``mx.sym.npx.image``: the image operators as ``_Symbol`` nodes (``_npx_image_*``)."""
from ._generated import functions as _functions

__all__ = sorted(_functions("image"))
globals().update(_functions("image"))
