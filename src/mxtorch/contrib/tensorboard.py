"""``mx.contrib.tensorboard``: MXNet 1.9.1's ``LogMetricsCallback``, on ``torch.utils.tensorboard``.

MXNet's version wrote through the ``mxboard`` / ``tensorboard`` packages; this one uses
PyTorch's ``SummaryWriter`` (the optional ``tensorboard`` package must be installed).
"""
from __future__ import annotations

__all__ = ["LogMetricsCallback"]


class LogMetricsCallback:
    """Batch-end or eval-end callback writing ``param.eval_metric``'s values as TensorBoard
    scalars in ``logging_dir``: tag ``<prefix>-<name>`` (``<name>`` without a prefix), step
    ``param.epoch``, as MXNet's callback did.  Nothing is written when ``eval_metric`` is None.

    Raises ImportError naming the package when tensorboard is not installed."""

    def __init__(self, logging_dir, prefix=None):
        try:
            from torch.utils.tensorboard import SummaryWriter
        except ImportError:
            raise ImportError("mx.contrib.tensorboard.LogMetricsCallback needs the optional dependency "
                              "tensorboard: pip install 'mxtorch[tensorboard]'") from None
        self.prefix = prefix
        self.summary_writer = SummaryWriter(log_dir=logging_dir)

    def __call__(self, param):
        if param.eval_metric is None:
            return
        for name, value in param.eval_metric.get_name_value():
            if self.prefix is not None:
                name = f"{self.prefix}-{name}"
            self.summary_writer.add_scalar(name, value, global_step=param.epoch)
        self.summary_writer.flush()
