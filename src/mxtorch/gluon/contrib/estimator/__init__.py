"""``mx.gluon.contrib.estimator``: a fit/evaluate loop for Gluon networks driven by event
handlers (MXNet 1.9.1's Estimator API)."""
from .batch_processor import BatchProcessor  # noqa: F401
from .estimator import Estimator  # noqa: F401
from .event_handler import (BatchBegin, BatchEnd, CheckpointHandler, EarlyStoppingHandler,  # noqa: F401
                            EpochBegin, EpochEnd, GradientUpdateHandler, LoggingHandler, MetricHandler,
                            StoppingHandler, TrainBegin, TrainEnd, ValidationHandler)

__all__ = ["BatchProcessor", "Estimator", "BatchBegin", "BatchEnd", "CheckpointHandler", "EarlyStoppingHandler",
           "EpochBegin", "EpochEnd", "GradientUpdateHandler", "LoggingHandler", "MetricHandler", "StoppingHandler",
           "TrainBegin", "TrainEnd", "ValidationHandler"]
