"""``mx.executor``: a Symbol bound to arrays."""
from .executor import Executor, normalize_grad_req  # noqa: F401
