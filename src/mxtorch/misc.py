"""MXNet's oldest learning-rate schedulers (MXNet 1.9.1's ``mxnet.misc``), kept for code written
before ``mxnet.lr_scheduler``.  A scheduler is called with the iteration count and returns the
learning rate; ``base_lr`` (0.01 unless set) is the rate at iteration 0.
"""
import logging
import math

__all__ = ["LearningRateScheduler", "FactorScheduler"]


class LearningRateScheduler:
    """Base class: ``scheduler(iteration) -> learning rate``; subclasses implement ``__call__``."""

    def __init__(self):
        self.base_lr = 0.01

    def __call__(self, iteration):
        raise NotImplementedError("must override this")


class FactorScheduler(LearningRateScheduler):
    """``base_lr * factor ** (iteration // step)``: the rate drops by ``factor`` every ``step``
    iterations, logged at INFO when it changes.  ValueError when ``step < 1`` or ``factor >= 1``
    (as MXNet)."""

    def __init__(self, step, factor=0.1):
        super().__init__()
        if step < 1:
            raise ValueError("Schedule step must be greater or equal than 1 round")
        if factor >= 1.0:
            raise ValueError("Factor must be less than 1 to make lr reduce")
        self.step = step
        self.factor = factor
        self.old_lr = self.base_lr
        self.init = False

    def __call__(self, iteration):
        if not self.init:
            self.init = True
            self.old_lr = self.base_lr
        lr = self.base_lr * math.pow(self.factor, int(iteration / self.step))
        if lr != self.old_lr:
            self.old_lr = lr
            logging.info("At Iteration [%d]: Swith to new learning rate %.5f", iteration, lr)
        return lr
