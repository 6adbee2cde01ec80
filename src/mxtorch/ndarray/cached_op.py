"""``mx.nd.CachedOp``: a Symbol bound once per input signature and called on NDArrays."""
from __future__ import annotations

import numpy as np
import torch

from .. import recording as _recording
from ..base import MXNetError
from ..context import current_context
from .ndarray import NDArray

class CachedOp:
    """A Symbol prepared for repeated imperative calls (MXNet's ``mx.nd.CachedOp``):
    ``CachedOp(sym)(*arrays)`` binds ``sym`` to the arrays, given in ``sym.list_inputs()``
    order, and returns its outputs (one NDArray, or a list for several outputs).  Bindings are
    kept per input shapes and dtypes.  ``flags`` (MXNet's static_alloc / static_shape options) are
    accepted and have no effect.  The computation is not recorded for ``mx.autograd``."""

    def __init__(self, sym, flags=()):
        self._symbol = sym
        self._flags = tuple(flags)
        self._executors = {}

    def __call__(self, *args, **kwargs):
        out = kwargs.pop("out", None)
        default_ctx = kwargs.pop("default_ctx", None)
        if kwargs:
            raise MXNetError(f"CachedOp: unknown keyword arguments {sorted(kwargs)}")
        inputs = self._symbol.list_inputs()
        if len(args) != len(inputs) or not all(isinstance(item, NDArray) for item in args):
            raise MXNetError(f"CachedOp: expected {len(inputs)} NDArrays for the inputs {inputs}, got {len(args)}")
        given = dict(zip(inputs, args))
        arg_names = self._symbol.list_arguments()
        aux_names = self._symbol.list_auxiliary_states()
        key = tuple((item.shape, np.dtype(item.dtype).name) for item in args)
        executor = self._executors.get(key)
        ctx = args[0].context if args else (default_ctx or current_context())
        if executor is None:
            executor = self._symbol.bind(ctx, {name: given[name].copy() for name in arg_names}, grad_req="null",
                                         aux_states={name: given[name].copy() for name in aux_names})
            self._executors[key] = executor
        if _recording.is_recording():
            # inside mx.autograd.record(): run the plan on the given arrays' tensors, so the
            # gradient flows back to them (attach_grad / mark_variables), as MXNet's CachedOp
            with torch.enable_grad():
                tensors = executor.run_tensors([given[name]._tensor for name in arg_names],
                                               [given[name]._tensor for name in aux_names],
                                               is_train=_recording.is_training())
            outputs = [NDArray(tensor, ctx) for tensor in tensors]
        else:
            for name in arg_names:
                executor.arg_dict[name][:] = given[name]
            for name in aux_names:
                executor.aux_dict[name][:] = given[name]
            outputs = [item.copy() for item in executor.forward(is_train=_recording.is_training())]
            for name in aux_names:
                given[name][:] = executor.aux_dict[name]
        if out is not None:
            targets = out if isinstance(out, (list, tuple)) else [out]
            for target, value in zip(targets, outputs):
                target[:] = value
            return out
        return outputs[0] if len(outputs) == 1 else outputs
