"""``mx.nd``: NDArray, its constructors, file format, and one function per registered operator."""
from .creation import array, zeros, ones, empty, full, arange, linspace, eye
from .ndarray import NDArray, waitall, from_torch, to_dlpack_for_read, to_dlpack_for_write
from .arithmetic import (add, subtract, multiply, divide, true_divide, modulo, power, maximum, minimum, equal,
                         not_equal, greater, greater_equal, lesser, lesser_equal, logical_and, logical_or,
                         logical_xor)
from .array_functions import concat, concatenate, moveaxis, onehot_encode, split_v2, histogram
from .interop import from_numpy, from_dlpack
from .cached_op import CachedOp
from . import gradients as _gradients  # noqa: F401  (provides NDArray.attach_grad / backward)
from .serialization import save, load, load_frombuffer
from .legacy import imdecode  # noqa: F401  (MXNet's deprecated mx.nd.imdecode)
from .index_keys import (get_indexing_dispatch_code, get_oshape_of_gather_nd_op,  # noqa: F401
                         indexing_key_expand_implicit_axes)
from . import register as _register
from . import utils
from . import control_flow as _control_flow
from . import contrib_functions as _contrib_functions
from .. import random as _random_module
from ..ops import registry as _registry
from ..ops.namespaces import OperatorGroup as _OperatorGroup

_register.install(globals())
_GROUP_MODULES = {"random": [_random_module], "contrib": [_control_flow, _contrib_functions]}
for _group in _registry.NAMESPACE_PREFIXES:
    globals()[_group] = _OperatorGroup(
        "mx.nd", _group, lambda op_name, args, kwargs: _register.invoke(_registry.get_operator(op_name), args, kwargs),
        lambda value: isinstance(value, NDArray), _GROUP_MODULES.get(_group, ()))

# MXNet's mxnet.ndarray.ndarray held the names of the files above it too (it was one module)
from . import ndarray as _ndarray_module  # noqa: E402
from . import legacy as _legacy, index_keys as _index_keys  # noqa: E402
for _name in ("array", "zeros", "ones", "empty", "full", "arange", "linspace", "eye", "add", "subtract", "multiply",
              "divide", "true_divide", "modulo", "power", "maximum", "minimum", "equal", "not_equal", "greater",
              "greater_equal", "lesser", "lesser_equal", "logical_and", "logical_or", "logical_xor", "concat", "concatenate", "moveaxis", "onehot_encode", "split_v2", "histogram", "from_numpy",
              "from_dlpack", "CachedOp"):
    setattr(_ndarray_module, _name, globals()[_name])
# MXNet's mxnet.ndarray.register imported the contrib AdamW updates
_register.adamw_update = _contrib_functions.adamw_update
_register.mp_adamw_update = _contrib_functions.mp_adamw_update
for _module in (_legacy, _index_keys):
    for _name in _module.__all__:
        setattr(_ndarray_module, _name, getattr(_module, _name))

# ``mx.nd.sparse`` is the sparse-array module; the registered ``_sparse_*`` operators stay
# reachable through it (``mx.nd.sparse.cast_storage``, ...)
_sparse_operators = globals().get("sparse")
from . import sparse  # noqa: E402
from .sparse import RowSparseNDArray, CSRNDArray, BaseSparseNDArray  # noqa: E402,F401
sparse._operators = _sparse_operators

# the private helpers MXNet's mxnet.ndarray.ndarray / .sparse defined (handles, DLPack, dispatch)
from . import handles as _handles, interop as _interop, arithmetic as _arithmetic  # noqa: E402
for _name in ("_c_dlpack_deleter", "_c_str_dltensor", "_c_str_used_dltensor", "_dlpack_deleter"):
    setattr(_ndarray_module, _name, getattr(_interop, _name))
_ndarray_module._new_alloc_handle = _handles.new_alloc_handle
sparse._new_alloc_handle = _handles.new_sparse_alloc_handle
sparse._ndarray_cls = _handles.ndarray_cls
sparse._set_ndarray_class = _handles.set_ndarray_class
utils._sparse_array, utils._empty_sparse_ndarray, utils._zeros_sparse_ndarray = sparse.array, sparse.empty, sparse.zeros
utils._ndarray_cls = _handles.ndarray_cls
for _target in (_ndarray_module, sparse):
    _target._new_empty_handle = _handles.new_empty_handle
    _target._storage_type = _handles.storage_type
    _target._ufunc_helper = _arithmetic._ufunc_helper
# and the names mxnet.ndarray itself had from them
from .ndarray import _DTYPE_MX_TO_NP, _DTYPE_NP_TO_MX, _GRAD_REQ_MAP  # noqa: E402,F401
from .handles import ndarray_cls as _ndarray_cls, new_empty_handle as _new_empty_handle  # noqa: E402,F401
_register.install_fluent_methods(NDArray, _register.invoke_method, "mx.nd")

op = _register.OperatorNamespace("mx.nd.op", imported={"CachedOp": CachedOp})
# the names MXNet's generated mxnet.ndarray.random had besides the samplers (imported there)
from ..base import numeric_types as _numeric_types  # noqa: E402
from ..context import current_context as _current_context  # noqa: E402
random.imported.update(NDArray=NDArray, current_context=_current_context, numeric_types=_numeric_types)  # noqa: F821
# and the private names of MXNet's mxnet.ndarray.random and mxnet.ndarray.contrib
from ..base import _Null, _as_list as _base_as_list  # noqa: E402
random.imported.update(_Null=_Null, _random_helper=_random_module._random_helper)  # noqa: F821
contrib.imported.update(_as_list=_base_as_list, _flatten=_control_flow._flatten, _regroup=_control_flow._regroup,  # noqa: F821
                        _flatten_list=_control_flow._flatten_list,
                        _get_rescale_grad=_contrib_functions._get_rescale_grad)
_internal = _register.OperatorNamespace("mx.nd._internal")
# MXNet's mxnet.ndarray.register imported the internal AdamW operators from its _internal module
_register._adamw_update = _internal._adamw_update
_register._mp_adamw_update = _internal._mp_adamw_update


# MXNet's submodules of the generated front end (``from mxnet.ndarray.contrib import ...``)
_registry.expose_namespaces(__name__, {name: globals()[name] for name in
                              list(_registry.NAMESPACE_PREFIXES) + ["op", "_internal"]})

# MXNet's NumPy front end on the same arrays: ``mx.nd.np`` (the functions) and the array class
# ``mx.np.ndarray`` (numpy_array.py provides NDArray.as_np_ndarray)
from . import numpy_array as _numpy_array  # noqa: E402,F401
from . import numpy  # noqa: E402
np = numpy
from . import numpy_extension  # noqa: E402
npx = numpy_extension
