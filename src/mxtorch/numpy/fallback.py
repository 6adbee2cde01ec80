"""``mxnet.numpy.fallback``: the NumPy functions ``mx.np`` offers by running NumPy itself on
host copies of the arrays, its arrays coming back as ``mx.np.ndarray`` (MXNet 1.9.1's list).
They are not recorded by autograd (inside ``autograd.record()`` they raise ValueError) and do
not build symbols.  Functions ``mx.np`` implements on its operators take precedence there."""
import functools

import numpy as onp

from ..ndarray.numpy_array import _numpy_fallback
from . import _financial

FALLBACK_NAMES = """allclose alltrue apply_along_axis apply_over_axes argpartition argwhere array_equal
    array_equiv choose compress corrcoef correlate count_nonzero cov digitize divmod extract flatnonzero
    float_power frexp heaviside histogram2d histogram_bin_edges histogramdd i0 in1d interp intersect1d isclose
    isin ix_ lexsort min_scalar_type mirr modf msort nanargmax nanargmin nancumprod nancumsum nanmax nanmedian
    nanmin nanpercentile nanprod nanquantile nanstd nansum nanvar ndim npv packbits partition piecewise pmt poly
    polyadd polydiv polyfit polyint polymul polysub positive ppmt promote_types ptp pv rate real result_type
    rollaxis roots searchsorted select setdiff1d setxor1d signbit size spacing take_along_axis trapz
    tril_indices_from trim_zeros triu_indices_from union1d unpackbits unwrap vander""".split()

# removed from NumPy 2 (or moved to numpy_financial): kept under MXNet's names on what remains
_RENAMED = {"alltrue": "all", "in1d": "isin", "msort": "sort", "trapz": "trapezoid", "product": "prod"}


def _numpy_function(name):
    function = getattr(onp, name, None)
    if function is None and name in _RENAMED:
        function = getattr(onp, _RENAMED[name], None)
    if function is None and name in _financial.__all__:
        # dropped from NumPy 2: NumPy 1.x's closed forms (mxtorch.numpy._financial)
        function = getattr(_financial, name)
    return function


def _fallback(name, function):
    @functools.wraps(function)
    def run(*args, **kwargs):
        return _numpy_fallback(function, args, kwargs)
    run.__module__ = __name__
    return run


__all__ = []
for _name in FALLBACK_NAMES:
    _function = _numpy_function(_name)
    if _function is not None:
        globals()[_name] = _fallback(_name, _function)
        __all__.append(_name)
