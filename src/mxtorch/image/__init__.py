"""``mx.image`` (also ``mx.img``): image decoding, resizing, cropping, augmenters and image iterators.

MXNet 1.9.1's Python image module.  Images are NDArrays of shape
``(height, width, channels)`` (HWC): uint8 as decoded, float32 after
``CastAug``; colour images are in **RGB** order (``imdecode(..., to_rgb=0)``
gives OpenCV's BGR).  Decoding, resizing and border padding use OpenCV (the
``opencv-python-headless`` package), as MXNet's C++ operators did, so pixel
values match MXNet's.

Random choices use Python's ``random`` module (crops, flips, jitters,
shuffling) and ``numpy.random`` (lighting noise, ``random_rotate``) in the
same order as MXNet's code, so a program that seeds both gets the same
crops and flips as under MXNet.

Interpolation codes (``interp``, ``inter_method``): 0 nearest, 1 bilinear,
2 bicubic, 3 area, 4 Lanczos, 9 automatic (bicubic when enlarging, area
when shrinking, bilinear otherwise), 10 a random one of 0-4.

Detection (``DetAugmenter`` classes, ``CreateDetAugmenter``,
``ImageDetIter``) works on labels of shape ``(objects, width >= 5)`` whose
rows are ``[class, xmin, ymin, xmax, ymax, ...]`` in coordinates relative to
the image size (0 to 1).
"""
from __future__ import annotations

from numbers import Number  # noqa: F401  (names of MXNet's module)

from ..base import MXNetError, numeric_types  # noqa: F401
from ..util import is_np_array  # noqa: F401
from ..ndarray.ndarray import NDArray  # noqa: F401
from . import augmenters, detection, functions, iterators
from .functions import *  # noqa: F401,F403
from .functions import __all__ as _functions_all
from .functions import _cv2, _get_interp_method  # noqa: F401  (used by ops/image.py; MXNet's private name)
from .augmenters import *  # noqa: F401,F403
from .augmenters import __all__ as _augmenters_all
from .iterators import *  # noqa: F401,F403
from .iterators import __all__ as _iterators_all
from .detection import *  # noqa: F401,F403
from .detection import __all__ as _detection_all
from . import image  # noqa: E402  (MXNet's module path mxnet.image.image)

__all__ = _functions_all + _augmenters_all + _iterators_all + _detection_all
