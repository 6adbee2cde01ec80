"""``Block.summary``: a table of each layer's output shape and parameter count."""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ..base import MXNetError
from ..ndarray.ndarray import NDArray


class _HybridizedError(MXNetError, AssertionError):
    """summary() on a hybridized block (also an AssertionError, as MXNet asserted)."""


def _shapes(value):
    if isinstance(value, NDArray):
        return value.shape
    if isinstance(value, (list, tuple)):
        return [_shapes(item) for item in value]
    return value


def print_summary(block, inputs):
    """Run ``block(*inputs)`` with a forward hook on every descendant and print, per layer,
    its output shape(s) and the number of Parameters it owns directly (shared Parameters
    counted once), then the totals.  MXNetError (an AssertionError) when the block is
    hybridized: the hooks would not run inside the bound graph."""
    if getattr(block, "_active", False):
        raise _HybridizedError("Block.summary: call summary() before hybridize() (the hooks do not run inside "
                               "a hybridized graph)")
    rows = OrderedDict()
    handles = []
    seen = set()
    counts = {"total": 0, "trainable": 0, "shared": 0}

    def register(child):
        def hook(layer, args, out):
            key = f"{type(layer).__name__}-{len(rows) + 1}"
            params = 0
            for param in layer._reg_params.values():
                size = int(np.prod(param.shape)) if param.shape else 0
                params += size
                if id(param) in seen:
                    counts["shared"] += size
                    continue
                seen.add(id(param))
                counts["total"] += size
                if param.grad_req != "null":
                    counts["trainable"] += size
            rows[key] = (_shapes(out), params)
        if child is not block:
            handles.append(child.register_forward_hook(hook))
    block.apply(register)
    try:
        input_shapes = _shapes(list(inputs))
        block(*inputs)
    finally:
        for handle in handles:
            handle.detach()
    line = "-" * 80
    print(line)
    print(f"{'Layer (type)':>25}  {'Output Shape':>42} {'Param #':>15}")
    print("=" * 80)
    print(f"{'Input':>25}  {str(input_shapes if len(input_shapes) > 1 else input_shapes[0]):>42} {0:>15}")
    for key, (shape, params) in rows.items():
        print(f"{key:>25}  {str(shape):>42} {params:>15}")
    # the block's own Parameters (not those of its children)
    own = sum(int(np.prod(p.shape)) for p in block._reg_params.values() if p.shape and id(p) not in seen)
    counts["total"] += own
    print("=" * 80)
    print(f"Parameters in forward computation graph, duplicate included\n   Total params: "
          f"{counts['total'] + counts['shared']}\n   Trainable params: {counts['trainable']}\n   "
          f"Non-trainable params: {counts['total'] - counts['trainable']}")
    print(f"Shared params in forward computation graph: {counts['shared']}")
    print(f"Unique parameters in model: {counts['total']}")
    print(line)
