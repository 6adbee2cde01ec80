"""``mx.np.linalg``: NumPy's linear algebra (``mxtorch.ndarray.numpy.linalg``)."""
from ..ndarray.numpy.linalg import *  # noqa: F401,F403
from ..ndarray.numpy.linalg import __all__  # noqa: F401
