"""SGD with momentum and weight decay (MXNet's ``sgd``, ``ccsgd``), on torch tensors.

Per step, with ``g = clip(rescale_grad * grad, clip_gradient)`` (weight decay is added
outside the clip, as in MXNet's ``sgd_update`` / ``sgd_mom_update`` kernels)::

    momentum == 0:  weight = weight - lr * (g + wd * weight)
    momentum > 0:   mom = momentum * mom - lr * wd * weight - lr * g;  weight = weight + mom

The momentum buffer is the state (None without momentum).  With ``multi_precision`` and a
float16 weight the state is ``(momentum buffer or None, float32 master weight)``.
"""
from __future__ import annotations

import warnings

import numpy as np
import torch

from ..ops.optimizer_kernels import sgd_step, sgd_step_foreach  # noqa: F401
from ..ndarray.ndarray import zeros
from .optimizer import (register, _FusedUpdateOptimizer, _check_arrays, _kernel_clip, _as_list,
                        _check_number, _lazy_rows, _step_rows)

__all__ = ["SGD", "ccSGD", "sgd_step", "sgd_step_foreach"]


def _foreach_groups(weights, grads, states, lrs, wds, multi_precision, clip_gradient):
    """``{(lr, wd): (weights, grads, buffers or None)}`` of torch tensors when the step can run
    on multi-tensor kernels (several parameters, one dtype and device, no clipping, no master
    copies, all or no momentum buffers), else None."""
    if len(weights) < 2 or multi_precision or (clip_gradient and clip_gradient >= 0):
        return None
    tensors = [w._tensor for w in weights]
    gradients = [g._tensor for g in grads]
    first = tensors[0]
    if any(t.dtype != first.dtype or t.device != first.device for t in tensors + gradients):
        return None
    with_buffer = [s is not None for s in states]
    if any(with_buffer) and not all(with_buffer):
        return None
    groups = {}
    for position, (t, g, lr, wd) in enumerate(zip(tensors, gradients, lrs, wds)):
        group = groups.setdefault((lr, wd), ([], [], [] if with_buffer[0] else None))
        group[0].append(t)
        group[1].append(g)
        if group[2] is not None:
            group[2].append(states[position]._tensor)
    return groups


def _step_weight_or_master(step, weight, grad, state, multi_precision, rows=None, **hyper_parameters):
    """Run ``step(weight, grad, momentum_buffer, **hyper_parameters)`` (``sgd_step``,
    ``nag_step``) on the torch tensors of one parameter's NDArrays.

    ``state`` is the momentum buffer (or None); with ``multi_precision`` it is ``(buffer or
    None, float32 master weight)``: the step then updates the master copy from a float32
    gradient and the result is copied back into ``weight``.  ``rows`` (from ``_lazy_rows``)
    limits the step to those rows (a lazy update); None updates everything.
    """
    if multi_precision:
        buffer, master = state
        _step_rows(step, rows, master._tensor, grad._tensor.float(), None if buffer is None else buffer._tensor,
                   **hyper_parameters)
        weight._tensor.copy_(master._tensor)
    else:
        _step_rows(step, rows, weight._tensor, grad._tensor, None if state is None else state._tensor,
                   **hyper_parameters)


class _MomentumBufferOptimizer(_FusedUpdateOptimizer):
    """Base of SGD, NAG and LARS: the state is a momentum buffer of the weight's shape (None when
    ``momentum`` is 0); with ``multi_precision`` and a float16 weight it is ``(buffer or None,
    float32 master weight)``.  A subclass names itself in ``_display_name`` (for the warning
    about float16 weights without ``multi_precision``)."""

    def create_state(self, index, weight):
        if self.momentum != 0.0:
            return zeros(weight.shape, weight.context, dtype=weight.dtype)
        return None

    def create_state_multi_precision(self, index, weight):
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            return (self.create_state(index, master), master)
        if weight.dtype == np.float16 and not self.multi_precision:
            warnings.warn(f"Accumulating with float16 in the {self._display_name} optimizer can lead to poor "
                          f"accuracy or slow convergence; consider multi_precision=True")
        return self.create_state(index, weight)


@register
class SGD(_MomentumBufferOptimizer):
    """Stochastic gradient descent with optional momentum (MXNet's ``SGD``).

    Parameters
    ----------
    momentum : float, default 0.0
        Momentum decay; 0 keeps no state.
    lazy_update : bool, default True
        With a ``row_sparse`` gradient, update only the rows it stores (weight decay and
        momentum skip the others), as MXNet's lazy update; False updates every row.
    **kwargs
        The base :class:`Optimizer` arguments (``learning_rate`` defaults to 0.01).

    ``aggregate_num`` is 4 as in MXNet, so an :class:`Updater` hands this optimizer up to
    four parameters per call; ``update`` accepts one index or lists.
    """

    _display_name = "SGD"

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        _check_number(type(self).__name__, "momentum", momentum)
        self.momentum = momentum
        self.lazy_update = lazy_update
        self.aggregate_num = 4

    def _update_impl(self, index, weight, grad, state, multi_precision=False):
        indices, weights, grads, states = _as_list(index, weight, grad, state)
        for w, g in zip(weights, grads):
            _check_arrays(type(self).__name__, w, g)
        self._update_count(indices)
        lrs = self._get_lrs(indices)
        wds = self._get_wds(indices)
        momentum = self.momentum if self.momentum > 0 else 0.0
        lazy = [_lazy_rows(g, self.lazy_update) for g in grads]
        groups = None if any(rows is not None for rows in lazy) else \
            _foreach_groups(weights, grads, states, lrs, wds, multi_precision, self.clip_gradient)
        with torch.no_grad():
            if groups is not None:
                for (lr, wd), (ws, gs, buffers) in groups.items():
                    sgd_step_foreach(ws, gs, buffers, lr=lr, wd=wd, momentum=momentum,
                                     rescale_grad=self.rescale_grad)
                return
            for w, g, s, lr, wd, rows in zip(weights, grads, states, lrs, wds, lazy):
                _step_weight_or_master(sgd_step, w, g, s, multi_precision, rows, lr=lr, wd=wd, momentum=momentum,
                                       rescale_grad=self.rescale_grad, clip_gradient=self.clip_gradient)


@register
class ccSGD(SGD):
    """Deprecated alias of :class:`SGD` kept by MXNet for old scripts."""
