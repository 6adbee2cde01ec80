"""``mx.nd.npx.image``: the image operators on ``mx.np`` arrays (``_npx_image_*``)."""
from ._generated import functions as _functions

__all__ = sorted(_functions("image"))
globals().update(_functions("image"))
