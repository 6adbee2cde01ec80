"""``mxnet.numpy_op_fallback``: the ``mx.np`` functions MXNet 1.9.1 computed with NumPy itself,
as custom operators (``mx.operator.CustomOp``), callable as ``mx.nd.np._internal.<name>`` and
``mx.sym.np._internal.<name>`` (``resize_fallback``, ``unravel_index_fallback``,
``empty_like_fallback``, ``mvn_fallback``).

mxtorch's ``mx.np.resize`` / ``unravel_index`` / ``empty_like`` / ``random.multivariate_normal``
have operators of their own; these classes are kept for code that names the fallbacks (or
subclasses them).  As in MXNet none of them has a gradient: backward raises
NotImplementedError.  Attributes arrive as strings (custom-operator keyword arguments), read
with ``ast.literal_eval``."""
import ast
import functools

import numpy as np

from . import operator
from . import numpy as _mx_np
from .numpy.utils import _STR_2_DTYPE_
from .ndarray.numpy import _internal as _nd_npi
from .symbol.numpy import _internal as _sym_npi
from .util import np_array, use_np

try:    # MXNet imported distutils' StrictVersion here; distutils is gone from Python 3.12
    from distutils.version import StrictVersion
except ImportError:
    from .package_compat import LooseVersion as StrictVersion

__all__ = []


def register(op_name, imperative=True, symbolic=True):
    """Class decorator: register a ``CustomOpProp`` as the custom operator ``op_name`` and give
    ``mx.nd.np._internal`` (``imperative``) and ``mx.sym.np._internal`` (``symbolic``) a
    function of that name calling ``Custom(..., op_type=op_name)``.  ValueError when a
    namespace already has that name."""
    def save(namespace):
        if op_name in vars(namespace):
            raise ValueError(f"Duplicate name {op_name} found in module {namespace!r}")
        setattr(namespace, op_name, functools.partial(namespace.Custom, op_type=op_name))

    def decorate(prop_class):
        with np_array():
            prop_class = operator.register(op_name)(prop_class)
        if imperative:
            save(_nd_npi)
        if symbolic:
            save(_sym_npi)
        return prop_class
    return decorate


def _no_gradient(name):
    raise NotImplementedError(f"Operator {name} does not support gradient computation")


@use_np
class EmptyLike(operator.CustomOp):
    """``numpy.empty_like`` of the input (dtype, order, subok as NumPy's)."""

    def __init__(self, dtype, order, subok, shape):
        super().__init__()
        self._dtype, self._order, self._subok, self._shape = dtype, order, subok, shape

    def forward(self, is_train, req, in_data, out_data, aux):
        value = np.empty_like(in_data[0].asnumpy(), dtype=self._dtype, order=self._order, subok=self._subok)
        self.assign(out_data[0], req[0], _mx_np.array(value, ctx=in_data[0].ctx))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _no_gradient("empty_like")


@register("empty_like_fallback")
class EmptyLikeProp(operator.CustomOpProp):
    """Properties of ``empty_like_fallback``: one argument ``prototype``; the output has its
    shape and the ``dtype`` attribute's dtype ('None': the prototype's)."""

    def __init__(self, dtype, order, subok, shape):
        super().__init__(need_top_grad=True)
        self._dtype = None if dtype == "None" else dtype
        self._order = order
        self._subok = ast.literal_eval(subok)
        self._shape = ast.literal_eval(shape)

    def list_arguments(self):
        return ["prototype"]

    def infer_shape(self, in_shape):
        return (in_shape[0],), (in_shape[0],), ()

    def infer_type(self, in_type):
        out = in_type[0] if self._dtype is None else _STR_2_DTYPE_[self._dtype]
        return (in_type[0],), (out,), ()

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return EmptyLike(self._dtype, self._order, self._subok, self._shape)


@use_np
class Resize(operator.CustomOp):
    """``numpy.resize`` of the input to ``new_shape`` (repeating its elements)."""

    def __init__(self, new_shape):
        super().__init__()
        self._new_shape = new_shape

    def forward(self, is_train, req, in_data, out_data, aux):
        value = np.resize(in_data[0].asnumpy(), self._new_shape)
        self.assign(out_data[0], req[0], _mx_np.array(value, dtype=value.dtype, ctx=out_data[0].ctx))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _no_gradient("resize")


@register("resize_fallback")
class ResizeProp(operator.CustomOpProp):
    """Properties of ``resize_fallback``: argument ``a``, attribute ``new_shape`` (an int or a
    tuple)."""

    def __init__(self, new_shape):
        super().__init__(need_top_grad=True)
        self._new_shape = ast.literal_eval(new_shape)

    def list_arguments(self):
        return ["a"]

    def infer_shape(self, in_shape):
        shape = (self._new_shape,) if np.isscalar(self._new_shape) else tuple(self._new_shape)
        return (in_shape[0],), (shape,), ()

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return Resize(self._new_shape)


@use_np
class Unravel_index(operator.CustomOp):  # noqa: N801 -- MXNet's name
    """``numpy.unravel_index`` of flat indices into ``shape``: one row per dimension."""

    def __init__(self, shape):
        super().__init__()
        self._shape = shape

    def forward(self, is_train, req, in_data, out_data, aux):
        rows = np.unravel_index(in_data[0].asnumpy().astype(np.int64), self._shape)
        value = np.stack(rows)
        self.assign(out_data[0], req[0], _mx_np.array(value, dtype=out_data[0].dtype, ctx=out_data[0].ctx))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _no_gradient("unravel_index")


@register("unravel_index_fallback")
class Unravel_indexProp(operator.CustomOpProp):  # noqa: N801 -- MXNet's name
    """Properties of ``unravel_index_fallback``: argument ``indices``, attribute ``shape``; the
    output is ``(len(shape),) + indices.shape``."""

    def __init__(self, shape):
        super().__init__(need_top_grad=True)
        self._shape = ast.literal_eval(shape)

    def list_arguments(self):
        return ["indices"]

    def infer_shape(self, in_shape):
        rows = 1 if np.isscalar(self._shape) else len(self._shape)
        return (in_shape[0],), ((rows,) + tuple(in_shape[0]),), ()

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return Unravel_index(self._shape)


@use_np
class MultivariateNormal(operator.CustomOp):
    """Samples of a multivariate normal: ``mean + L @ z`` with ``L`` the Cholesky factor of
    ``cov`` (computed in float32 for float16) and ``z`` standard normal noise."""

    def __init__(self, size=None):
        super().__init__()
        self._size = size

    def forward(self, is_train, req, in_data, out_data, aux):
        mean, cov = in_data[0], in_data[1]
        factor = (_mx_np.linalg.cholesky(cov.astype(np.float32)).astype(np.float16) if cov.dtype == np.float16
                  else _mx_np.linalg.cholesky(cov))
        noise = _mx_np.random.normal(size=out_data[0].shape, dtype=mean.dtype, ctx=mean.ctx)
        self.assign(out_data[0], req[0], mean + _mx_np.einsum("...jk,...j->...k", factor, noise))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _no_gradient("random.multivariate_normal")


@register("mvn_fallback")
class MultivariateNormalProp(operator.CustomOpProp):
    """Properties of ``mvn_fallback``: arguments ``mean`` (..., k) and ``cov`` (..., k, k),
    attribute ``size``; output ``size + broadcast batch shape + (k,)``.  ValueError for
    shapes NumPy's multivariate_normal refuses."""

    def __init__(self, size=None):
        super().__init__(need_top_grad=True)
        self._size = ast.literal_eval(size) if size is not None else None

    def list_arguments(self):
        return ["mean", "cov"]

    def infer_shape(self, in_shape):
        mean_shape, cov_shape = tuple(in_shape[0]), tuple(in_shape[1])
        if len(mean_shape) < 1:
            raise ValueError("mean must be at least 1 dimensional")
        if len(cov_shape) < 2:
            raise ValueError("cov must be at least 2 dimensional")
        if cov_shape[-1] != cov_shape[-2]:
            raise ValueError(f"the last two dimensions of cov must be equal, got cov of shape {cov_shape}")
        if cov_shape[-1] != mean_shape[-1]:
            raise ValueError(f"mean {mean_shape} and cov {cov_shape} must agree on the last dimension")
        batch = np.broadcast_shapes(mean_shape[:-1], cov_shape[:-2])
        size = () if self._size is None else ((self._size,) if np.isscalar(self._size) else tuple(self._size))
        return (mean_shape, cov_shape), (size + tuple(batch) + mean_shape[-1:],), ()

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return MultivariateNormal(self._size)
