"""``mx.contrib``: the contrib operator front ends legacy code reaches through this package
(``mx.contrib.sym.DeformableConvolution``, ``mx.contrib.nd.box_nms``).  They are the same
functions as ``mx.sym.contrib`` / ``mx.nd.contrib`` (the registered ``_contrib_*`` operators)."""
from . import symbol, ndarray  # noqa: F401
from . import symbol as sym  # noqa: F401
from . import ndarray as nd  # noqa: F401
from . import tensorboard  # noqa: F401,E402  (LogMetricsCallback; tensorboard imported on use)
from . import autograd  # noqa: F401,E402
from . import text  # noqa: F401,E402
from . import io  # noqa: F401,E402
from . import quantization  # noqa: F401,E402
from . import quantization as quant  # noqa: F401,E402  (MXNet's alias: mx.contrib.quant.quantize_model)
