"""``mx.nd``: NDArray, its constructors, file format, and one function per registered operator."""
from .ndarray import (NDArray, array, zeros, ones, empty, full, arange, linspace, eye, concat, concatenate,
                      waitall, moveaxis, onehot_encode, from_torch, add, subtract, multiply, divide,
                      true_divide, modulo, power, maximum, minimum, equal, not_equal, greater, greater_equal,
                      lesser, lesser_equal, logical_and, logical_or, logical_xor, split_v2, histogram, from_numpy,
                      from_dlpack, to_dlpack_for_read, to_dlpack_for_write, CachedOp)
from .serialization import save, load, load_frombuffer
from .legacy import imdecode  # noqa: F401  (MXNet's deprecated mx.nd.imdecode)
from .indexing import (get_indexing_dispatch_code, get_oshape_of_gather_nd_op,  # noqa: F401
                       indexing_key_expand_implicit_axes)
from . import register as _register
from . import utils

_register.install(globals())

# ``mx.nd.sparse`` is the sparse-array module; the registered ``_sparse_*`` operators stay
# reachable through it (``mx.nd.sparse.cast_storage``, ...)
_sparse_operators = globals().get("sparse")
from . import sparse  # noqa: E402
from .sparse import RowSparseNDArray, CSRNDArray, BaseSparseNDArray  # noqa: E402,F401
sparse._operators = _sparse_operators
_register.install_fluent_methods(NDArray, _register.invoke_method, "mx.nd")

op = _register.OperatorNamespace("mx.nd.op", imported={"CachedOp": CachedOp})
# the names MXNet's generated mxnet.ndarray.random had besides the samplers (imported there)
from ..base import numeric_types as _numeric_types  # noqa: E402
from ..context import current_context as _current_context  # noqa: E402
random.imported.update(NDArray=NDArray, current_context=_current_context, numeric_types=_numeric_types)
_internal = _register.OperatorNamespace("mx.nd._internal")


# MXNet's submodules of the generated front end (``from mxnet.ndarray.contrib import ...``)
_register.registry.expose_namespaces(__name__, {name: globals()[name] for name in
                                       list(_register.registry.NAMESPACE_PREFIXES) + ["op", "_internal"]})
