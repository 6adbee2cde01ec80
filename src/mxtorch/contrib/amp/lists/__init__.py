"""Operator lists of ``mx.contrib.amp``: which operators run in the low-precision type, which
stay in float32, which cast their inputs to the widest (or narrowest) type present."""
from . import symbol_fp16, symbol_bf16  # noqa: F401
