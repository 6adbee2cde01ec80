"""``mx.mod``: BaseModule, Module and the executor group (more module kinds come with later issues)."""
from .base_module import BaseModule  # noqa: F401
from .module import Module  # noqa: F401
from .executor_group import DataParallelExecutorGroup  # noqa: F401
from . import base_module, module, executor_group  # noqa: F401
from .mutable_module import MutableModule  # noqa: F401
from . import mutable_module  # noqa: F401
from .bucketing_module import BucketingModule  # noqa: F401
from . import bucketing_module  # noqa: F401
from .sequential_module import SequentialModule  # noqa: F401
from .python_module import PythonModule, PythonLossModule  # noqa: F401
from . import sequential_module, python_module  # noqa: F401
