"""``contrib.hawkesll``: the log likelihood of univariate Hawkes processes with exponential
kernels (MXNet 1.9.1's), and its gradient node ``contrib.backward_hawkesll``."""
from __future__ import annotations

import numpy as np
import torch

from .registry import Operator, register
from ..recording import differentiate

__all__ = []

_INPUTS = ["lda", "alpha", "beta", "state", "lags", "marks", "valid_length", "max_time"]


def _hawkes_log_likelihood(lda, alpha, beta, state, lags, marks, valid_length, max_time):
    """``(log_likelihood (N,), final_state (N, K))`` on torch tensors (differentiable in the
    float parameters)."""
    samples, steps = lags.shape
    dtype = lda.dtype
    marks = marks.to(torch.int64)
    lengths = valid_length.reshape(-1).to(torch.int64)
    memory = state.to(dtype).clone()
    last = torch.zeros_like(memory)
    clock = torch.zeros(samples, dtype=dtype, device=lda.device)
    total = torch.zeros(samples, dtype=dtype, device=lda.device)
    rows = torch.arange(samples, device=lda.device)
    for step in range(steps):
        active = step < lengths
        clock = clock + torch.where(active, lags[:, step].to(dtype), torch.zeros_like(clock))
        mark = marks[:, step].clamp(0, memory.shape[1] - 1)
        elapsed = clock - last[rows, mark]
        decay = torch.exp(-beta[mark] * elapsed)
        previous = memory[rows, mark]
        intensity = lda[rows, mark] + alpha[mark] * beta[mark] * previous * decay
        compensator = lda[rows, mark] * elapsed + alpha[mark] * previous * (1 - decay)
        total = total + torch.where(active, torch.log(intensity) - compensator, torch.zeros_like(total))
        hit = torch.zeros_like(memory, dtype=torch.bool)
        hit[rows, mark] = active
        memory = torch.where(hit, (1 + previous * decay)[:, None].expand_as(memory), memory)
        last = torch.where(hit, clock[:, None].expand_as(last), last)
    elapsed = max_time.reshape(-1, 1).to(dtype) - last
    decay = torch.exp(-beta[None, :] * elapsed)
    total = total - (lda * elapsed + alpha[None, :] * memory * (1 - decay)).sum(dim=1)
    return total, memory * decay


@register("_contrib_hawkesll")
class HawkesLogLikelihood(Operator):
    """Log likelihood of ``N`` samples of ``K`` independent Hawkes processes with intensity
    ``lda[k] + alpha[k] * beta[k] * sum exp(-beta[k] * (t - t_i))`` over earlier points of
    mark ``k`` (MXNet's ``contrib.hawkesll``).  Inputs: ``lda`` ``(N, K)``, ``alpha`` and
    ``beta`` ``(K,)``, ``state`` ``(N, K)`` (the memory ``sum exp(-beta (0 - t_i))`` of earlier
    points), ``lags`` ``(N, T)`` inter-arrival times, ``marks`` ``(N, T)`` process ids,
    ``valid_length`` ``(N,)`` points used per row and ``max_time`` ``(N,)`` the end of the
    observation window.  Outputs the log likelihood ``(N,)`` and the memory at ``max_time``
    ``(N, K)``.  Gradients flow to ``lda``, ``alpha``, ``beta`` and ``state``: the derivative of
    both outputs.  (MXNet 1.9.1's backward gave ``state`` a zero gradient and ignored the head
    gradient of ``out_state``; its gradients of the log likelihood for ``lda``, ``alpha`` and
    ``beta`` are these.)"""

    def arguments(self):
        return list(_INPUTS)

    def outputs(self):
        return ["output", "out_state"]

    def infer_shape(self, in_shapes, out_shapes):
        lda, alpha, beta, state, lags, marks, valid_length, max_time = in_shapes
        samples = lda[0] if lda is not None else (lags[0] if lags is not None else 0)
        processes = lda[1] if lda is not None else (alpha[0] if alpha is not None else 0)
        steps = lags[1] if lags is not None else (marks[1] if marks is not None else 0)
        shapes = [(samples, processes), (processes,), (processes,), (samples, processes), (samples, steps),
                  (samples, steps), (samples,), (samples,)]
        return shapes, [(samples,), (samples, processes)], []

    def infer_type(self, in_types):
        # MXNet 1.9.1: one dtype (lda's) for all but ``marks``, which is int32
        dtype = in_types[0] if in_types[0] is not None else np.dtype(np.float32)
        types = [dtype] * 8
        types[_INPUTS.index("marks")] = np.dtype(np.int32)
        return types, [dtype, dtype], []

    def forward(self, is_train, inputs, aux):
        return list(_hawkes_log_likelihood(*inputs))


@register("_contrib_backward_hawkesll")
class HawkesLogLikelihoodBackward(Operator):
    """The gradient node of ``contrib.hawkesll``: from the head gradients of its two outputs
    (``out_grad`` ``(N,)``, ``out_state_grad`` ``(N, K)``) and its eight inputs, the gradients of
    the eight inputs (zeros for ``lags``, ``marks``, ``valid_length`` and ``max_time``).
    MXNet 1.9.1's imperative front end could not pass it inputs; here it computes them."""

    def arguments(self):
        return ["out_grad", "out_state_grad"] + list(_INPUTS)

    def outputs(self):
        return [f"{name}_grad" for name in _INPUTS]

    def infer_shape(self, in_shapes, out_shapes):
        return list(in_shapes), list(in_shapes[2:]), []

    def infer_type(self, in_types):
        return list(in_types), list(in_types[2:]), []

    def forward(self, is_train, inputs, aux):
        out_grad, state_grad = inputs[:2]
        values = [t.detach() for t in inputs[2:]]
        with torch.enable_grad():
            params = [t.clone().requires_grad_(True) for t in values[:4]]
            total, memory = _hawkes_log_likelihood(*params, *values[4:])
            grads = differentiate([total, memory], params, [out_grad, state_grad])
        grads = [torch.zeros_like(p) if g is None else g for g, p in zip(grads, params)]
        return grads + [torch.zeros_like(t) for t in values[4:]]
