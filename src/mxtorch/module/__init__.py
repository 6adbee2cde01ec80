"""``mx.mod``: BaseModule, Module, the executor group, MutableModule, BucketingModule,
SequentialModule, PythonModule; importing it registers ``mx.model.FeedForward`` (feedforward.py)."""
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
from . import feedforward  # noqa: F401  (registers mx.model.FeedForward)
