"""``npx.image``: ``mx.image``'s augmenters and helpers, and the image operators on ``mx.np``
arrays (``npx.image.resize`` is ``_npx_image_resize``, the classic ``_image_resize``)."""
from ..image import *  # noqa: F401,F403
from ..image import __all__ as _image_names
from ..ndarray.numpy_extension.image import *  # noqa: F401,F403
from ..ndarray.numpy_extension.image import __all__ as _operator_names
from ..util import is_np_array  # noqa: F401
from numbers import Number  # noqa: F401
from ..base import numeric_types  # noqa: F401

__all__ = sorted(set(_image_names) | set(_operator_names))
