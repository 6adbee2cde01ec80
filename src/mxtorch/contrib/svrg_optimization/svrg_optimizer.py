"""The optimizers ``SVRGModule`` installs (MXNet's ``svrg_optimizer``).

``_SVRGOptimizer`` routes each update by parameter name: keys whose name contains ``full``
(the ``<param>_full`` keys that hold the full-data gradients in the KVStore) go to
``_AssignmentOptimizer``, which stores the pushed value as is; every other key goes to the
wrapped ``default_opt`` (the optimizer the user asked for).
"""
from __future__ import annotations

from ...base import MXNetError
from ...optimizer.optimizer import Optimizer, create, register

__all__ = ["_AssignmentOptimizer", "_SVRGOptimizer"]

# the constructor arguments of the Optimizer base class
_BASE_PARAMS = ("rescale_grad", "param_idx2name", "wd", "clip_gradient", "learning_rate", "lr_scheduler", "sym",
                "begin_num_update", "multi_precision", "param_dict")


@register
class _AssignmentOptimizer(Optimizer):
    """``weight[:] = grad``: lets a KVStore accumulate full gradients by push / pull."""

    def update(self, index, weight, grad, state):
        weight[:] = grad


@register
class _SVRGOptimizer(Optimizer):
    """Wraps ``default_optimizer`` (name or Optimizer) and an ``_AssignmentOptimizer``.

    Keyword arguments go to the wrapped optimizer when it is created by name; those the
    Optimizer base class knows (``learning_rate``, ``param_idx2name``, ...) also configure this
    wrapper.  ``default_opt`` and ``aux_opt`` are the two optimizers, as in MXNet.
    """

    def __init__(self, default_optimizer, **kwargs):
        super().__init__(**{k: v for k, v in kwargs.items() if k in _BASE_PARAMS})
        if isinstance(default_optimizer, str):
            self.default_opt = create(default_optimizer, **kwargs)
        elif isinstance(default_optimizer, Optimizer):
            self.default_opt = default_optimizer
        else:
            raise MXNetError(f"_SVRGOptimizer: default_optimizer must be an optimizer name or an Optimizer, "
                             f"got {default_optimizer!r}")
        self.aux_opt = create(_AssignmentOptimizer.__name__)

    def _check_index(self, index):
        """The parameter name of ``index`` (an int key of ``idx2name``, or a name itself)."""
        if isinstance(index, str) or index in self.idx2name.values():
            return index
        try:
            return self.idx2name[index]
        except KeyError:
            raise MXNetError(f"_SVRGOptimizer: index {index!r} is not in param_idx2name "
                             f"({sorted(self.idx2name)})") from None

    def _target(self, index):
        return self.aux_opt if "full" in self._check_index(index) else self.default_opt

    def create_state(self, index, weight):
        return self._target(index).create_state(index, weight)

    def create_state_multi_precision(self, index, weight):
        return self._target(index).create_state_multi_precision(index, weight)

    def update(self, index, weight, grad, state):
        self._target(index).update(index, weight, grad, state)

    def update_multi_precision(self, index, weight, grad, state):
        self._target(index).update_multi_precision(index, weight, grad, state)
