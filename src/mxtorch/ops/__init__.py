"""The operator registry and every operator declaration (see DESIGN.md, "One operator, declared once")."""
from .registry import Operator, Attr, register, get_operator, list_operators  # noqa: F401
# registration side effects: each module declares its operators
from . import nn, elementwise, loss, shape, creation, slicing, cast  # noqa: F401
from . import attention, quantization  # noqa: F401
from . import normalization, convolution, recurrent, vision, custom  # noqa: F401
from . import indexing, reduction, linalg, sequence, random_ops  # noqa: F401
from . import roi, boxes, detection, image  # noqa: F401
from . import optimizer_updates, misc, control_flow, signal, graph  # noqa: F401
from . import optimizer_multi, quantized, quantized_mkldnn, point_process  # noqa: F401
from . import c_api  # noqa: F401  (base._LIB: MXListAllOpNames, NNGetOpHandle, MXSymbolGetAtomicSymbolInfo)
from . import numpy_ops, numpy_arrays, numpy_linalg, numpy_selection  # noqa: F401  (mx.np's _npi_* / _np_* operators)
from . import numpy_semantics_ops  # noqa: F401  (rank-dependent mx.np operators: _npi_hsplit)
from . import numpy_random_ops, numpy_manipulation  # noqa: F401  (mx.np.random's and npx.random's samplers)
numpy_arrays.install_npx_aliases()
