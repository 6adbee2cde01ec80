"""FTRL-Proximal (MXNet's ``ftrl``), on torch tensors.

Per step, with ``g = clip(rescale_grad * grad, clip_gradient)``::

    z += g - (sqrt(n + g**2) - sqrt(n)) * weight / lr
    n += g**2
    weight = (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd)   where |z| > lamda1, else 0

The state is the tuple ``(z, n)``.  A ``row_sparse`` gradient on a ``row_sparse`` weight
updates only the rows the gradient stores (MXNet's sparse ``ftrl_update`` kernel); on a dense
weight MXNet falls back to the dense kernel, which updates every row.
"""
from __future__ import annotations

import torch

from ..ops.optimizer_kernels import ftrl_step  # noqa: F401
from ..ndarray.ndarray import zeros
from .optimizer import Optimizer, register, _kernel_clip, _lazy_rows, _step_rows

__all__ = ["Ftrl", "ftrl_step"]


@register
class Ftrl(Optimizer):
    """FTRL-Proximal (MXNet's ``Ftrl``).

    Parameters
    ----------
    lamda1 : float, default 0.01
        L1 regularisation strength.
    learning_rate : float, default 0.1
    beta : float, default 1
        Per-coordinate learning-rate offset.
    **kwargs
        The base :class:`Optimizer` arguments.
    """

    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, **kwargs):
        super().__init__(**kwargs)
        self.lamda1 = lamda1
        self.beta = beta
        self.lr = learning_rate

    def create_state(self, index, weight):
        return (zeros(weight.shape, weight.context), zeros(weight.shape, weight.context))

    def update(self, index, weight, grad, state):
        lr, wd = self._begin_step("Ftrl", index, weight, grad)
        z, n = state
        with torch.no_grad():
            rows = _lazy_rows(grad, weight.stype == "row_sparse")
            _step_rows(ftrl_step, rows, weight._tensor, grad._tensor, z._tensor, n._tensor,
                       lr=lr, wd=wd, lamda1=self.lamda1, beta=self.beta, rescale_grad=self.rescale_grad,
                       clip_gradient=self.clip_gradient)
