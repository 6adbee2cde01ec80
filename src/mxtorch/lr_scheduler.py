"""``mx.lr_scheduler``: learning-rate schedules as functions of the update count (MXNet 1.9.1).

A scheduler is called with ``num_update`` (the largest number of updates applied to any
parameter so far; the first step calls it with 1) and returns the learning rate as a Python
float.  Like MXNet's, the schedulers keep state between calls: ``FactorScheduler`` and
``MultiFactorScheduler`` lower ``base_lr`` as the count passes their steps (so call them with
non-decreasing counts), and ``PolyScheduler`` / ``CosineScheduler`` keep the last rate once
``num_update`` passes ``max_update``.

All schedulers support a warm-up over the first ``warmup_steps`` updates: ``'linear'`` from
``warmup_begin_lr`` up to the ``base_lr`` given at construction, or ``'constant'`` at
``warmup_begin_lr``.  An optimizer given both ``learning_rate`` and a scheduler overwrites the
scheduler's ``base_lr`` attribute (not the warm-up target, nor the start value that
``PolyScheduler`` / ``CosineScheduler`` decay from), exactly as MXNet does.
"""
from __future__ import annotations

import logging
import math
import numbers

from .base import MXNetAssertionError, MXNetError, MXNetValueError
# names MXNet 1.9.1's mxnet.lr_scheduler had in its namespace (imported there, not defined)
from math import cos, pi  # noqa: E402,F401

__all__ = ["LRScheduler", "FactorScheduler", "MultiFactorScheduler", "PolyScheduler", "CosineScheduler"]


class LRScheduler:
    """Base class of the schedulers (MXNet's ``LRScheduler``).

    Parameters
    ----------
    base_lr : float, default 0.01
        The learning rate after warm-up.
    warmup_steps : int, default 0
        Number of updates of warm-up.
    warmup_begin_lr : float, default 0
        Rate at the start of warm-up; must not exceed ``base_lr``.
    warmup_mode : {'linear', 'constant'}, default 'linear'

    Raises MXNetError for a negative or non-integer ``warmup_steps``, an unknown
    ``warmup_mode`` or ``warmup_begin_lr > base_lr``.
    """

    def __init__(self, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode="linear"):
        self.base_lr = base_lr
        if not isinstance(warmup_steps, numbers.Integral) or isinstance(warmup_steps, bool):
            raise MXNetAssertionError(f"{type(self).__name__}: warmup_steps must be an int, got {warmup_steps!r}")
        if warmup_steps < 0:
            raise MXNetValueError(f"{type(self).__name__}: warmup_steps must be >= 0, got {warmup_steps}")
        if warmup_begin_lr > base_lr:
            raise MXNetValueError(f"{type(self).__name__}: warmup_begin_lr ({warmup_begin_lr}) must not exceed "
                             f"base_lr ({base_lr})")
        if warmup_mode not in ("linear", "constant"):
            raise MXNetValueError(f"{type(self).__name__}: warmup_mode must be 'linear' or 'constant', "
                             f"got {warmup_mode!r}")
        self.warmup_steps = warmup_steps
        self.warmup_final_lr = base_lr
        self.warmup_begin_lr = warmup_begin_lr
        self.warmup_mode = warmup_mode

    def get_warmup_lr(self, num_update):
        """The warm-up learning rate for ``num_update < warmup_steps``."""
        if num_update >= self.warmup_steps:
            raise MXNetAssertionError(f"get_warmup_lr: num_update {num_update} is not inside the "
                             f"{self.warmup_steps} warm-up steps")
        if self.warmup_mode == "linear":
            increase = (self.warmup_final_lr - self.warmup_begin_lr) * float(num_update) / float(self.warmup_steps)
            return self.warmup_begin_lr + increase
        if self.warmup_mode == "constant":
            return self.warmup_begin_lr
        raise MXNetValueError(f"get_warmup_lr: unknown warmup_mode {self.warmup_mode!r}")

    def __call__(self, num_update):
        """The learning rate (float) for update number ``num_update``."""
        raise NotImplementedError(f"{type(self).__name__} must implement __call__")


class FactorScheduler(LRScheduler):
    """Multiply the rate by ``factor`` every ``step`` updates, never below ``stop_factor_lr``.

    After warm-up, ``lr = base_lr * factor ** floor((num_update - 1) / step)`` (the step count
    starts from update 0 and includes the warm-up).  Parameters: ``step`` (int >= 1),
    ``factor`` (<= 1), ``stop_factor_lr`` (default 1e-8) and the :class:`LRScheduler` ones.
    """

    def __init__(self, step, factor=1, stop_factor_lr=1e-8, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if step < 1:
            raise MXNetValueError(f"FactorScheduler: step must be >= 1, got {step}")
        if factor > 1.0:
            raise MXNetValueError(f"FactorScheduler: factor must be <= 1 so that the rate decreases, got {factor}")
        self.step = step
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while num_update > self.count + self.step:
            self.count += self.step
            self.base_lr *= self.factor
            if self.base_lr < self.stop_factor_lr:
                self.base_lr = self.stop_factor_lr
                logging.info("Update[%d]: now learning rate arrived at %0.5e, will not change in the future",
                             num_update, self.base_lr)
            else:
                logging.info("Update[%d]: Change learning rate to %0.5e", num_update, self.base_lr)
        return self.base_lr


class MultiFactorScheduler(LRScheduler):
    """Multiply the rate by ``factor`` each time ``num_update`` passes one of ``step``.

    ``step`` is a strictly increasing list of ints >= 1; after warm-up the rate is
    ``base_lr * factor ** k`` with ``k`` the number of steps strictly below ``num_update``.
    """

    def __init__(self, step, factor=1, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(step, list) or len(step) < 1:
            raise MXNetAssertionError(f"MultiFactorScheduler: step must be a non-empty list of ints, got {step!r}")
        for position, value in enumerate(step):
            if position != 0 and step[position] <= step[position - 1]:
                raise MXNetValueError(f"MultiFactorScheduler: step must be strictly increasing, got {step}")
            if value < 1:
                raise MXNetValueError(f"MultiFactorScheduler: every step must be >= 1, got {step}")
        if factor > 1.0:
            raise MXNetValueError(f"MultiFactorScheduler: factor must be <= 1 so that the rate decreases, got {factor}")
        self.step = step
        self.cur_step_ind = 0
        self.factor = factor
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while self.cur_step_ind <= len(self.step) - 1:
            if num_update > self.step[self.cur_step_ind]:
                self.count = self.step[self.cur_step_ind]
                self.cur_step_ind += 1
                self.base_lr *= self.factor
                logging.info("Update[%d]: Change learning rate to %0.5e", num_update, self.base_lr)
            else:
                return self.base_lr
        return self.base_lr


class _DecayToFinalScheduler(LRScheduler):
    """Base of the schedules that decay from the ``base_lr`` given at construction to
    ``final_lr`` over the updates from ``warmup_steps`` to ``max_update`` and keep the last
    rate after that; a subclass gives the decayed rate in ``_decayed_lr(num_update)``."""

    def _set_decay_range(self, max_update, final_lr):
        """Check ``max_update`` and set MXNet's attributes ``base_lr_orig``, ``max_update``,
        ``final_lr`` and ``max_steps``."""
        if not isinstance(max_update, numbers.Integral):
            raise MXNetAssertionError(f"{self._schedule_name}: max_update must be an int >= 1, got {max_update!r}")
        if max_update < 1:
            raise MXNetValueError(f"{self._schedule_name}: max_update must be an int >= 1, got {max_update!r}")
        self.base_lr_orig = self.base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.max_steps = self.max_update - self.warmup_steps

    def _decayed_lr(self, num_update):
        raise NotImplementedError(f"{type(self).__name__} must implement _decayed_lr")

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            self.base_lr = self._decayed_lr(num_update)
        return self.base_lr


class PolyScheduler(_DecayToFinalScheduler):
    """Polynomial decay to ``final_lr`` at ``max_update``.

    After warm-up: ``final_lr + (start - final_lr) * (1 - (n - warmup_steps) / (max_update -
    warmup_steps)) ** pwr`` where ``start`` is the ``base_lr`` given here; past ``max_update``
    the last rate is kept.
    """

    _schedule_name = "PolyScheduler"

    def __init__(self, max_update, base_lr=0.01, pwr=2, final_lr=0, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        self.power = pwr
        self._set_decay_range(max_update, final_lr)

    def _decayed_lr(self, num_update):
        return self.final_lr + (self.base_lr_orig - self.final_lr) * \
            pow(1 - float(num_update - self.warmup_steps) / float(self.max_steps), self.power)


class CosineScheduler(_DecayToFinalScheduler):
    """Cosine decay to ``final_lr`` at ``max_update``.

    After warm-up: ``final_lr + (start - final_lr) * (1 + cos(pi * (n - warmup_steps) /
    (max_update - warmup_steps))) / 2`` where ``start`` is the ``base_lr`` given here; past
    ``max_update`` the last rate is kept.
    """

    _schedule_name = "CosineScheduler"

    def __init__(self, max_update, base_lr=0.01, final_lr=0, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        self._set_decay_range(max_update, final_lr)

    def _decayed_lr(self, num_update):
        return self.final_lr + (self.base_lr_orig - self.final_lr) * \
            (1 + math.cos(math.pi * (num_update - self.warmup_steps) / self.max_steps)) / 2
