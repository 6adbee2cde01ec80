"""gluon.contrib.estimator: fit/evaluate, handler order, stopping, checkpoints and resuming,
early stopping, logging lines (MXNet 1.9.1's behaviour, computed expectations)."""
import io
import logging
import os
import re

import numpy as np
import pytest

import mxtorch as mx
from mxtorch import gluon
from mxtorch.gluon import nn
from mxtorch.gluon.contrib.estimator import (Estimator, CheckpointHandler, EarlyStoppingHandler, LoggingHandler,
                                             GradientUpdateHandler, MetricHandler, BatchEnd)


def _data(samples=32, batch_size=8, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.normal(size=(samples, 4)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.float32)          # a linearly separable label
    return gluon.data.DataLoader(gluon.data.ArrayDataset(mx.nd.array(x), mx.nd.array(y)), batch_size=batch_size)


def _estimator(**kwargs):
    mx.random.seed(1)
    net = nn.HybridSequential()
    net.add(nn.Dense(8, activation="relu"), nn.Dense(2))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5})
    return Estimator(net, loss=gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer, **kwargs)


def test_fit_learns_and_default_metrics_are_named():
    est = _estimator()
    assert [m.name for m in est.train_metrics] == ["training accuracy", "training softmaxcrossentropyloss"]
    assert [m.name for m in est.val_metrics] == ["validation accuracy", "validation softmaxcrossentropyloss"]
    data = _data(samples=64)
    est.fit(data, val_data=data, epochs=15)
    assert est.train_metrics[0].get()[1] >= 0.9
    assert est.val_metrics[0].get()[1] >= 0.9          # the ValidationHandler ran evaluate
    with pytest.raises(ValueError, match="exactly one"):
        est.fit(data, epochs=1, batches=2)
    with pytest.raises(ValueError, match="DataLoader"):
        est.fit([mx.nd.ones((2, 4))], epochs=1)


def test_handler_order_and_batch_limit():
    est = _estimator()

    class Counter(BatchEnd):
        def __init__(self):
            self.calls = 0

        def batch_end(self, estimator, *args, **kwargs):
            self.calls += 1

    counter = Counter()
    handlers = est._prepare_default_handlers(None, [counter])
    assert isinstance(handlers[0], GradientUpdateHandler) and isinstance(handlers[1], MetricHandler)
    assert isinstance(handlers[-1], LoggingHandler)
    est.fit(_data(), event_handlers=[counter], batches=6)      # 4 batches per epoch
    assert counter.calls == 6
    with pytest.raises(ValueError, match="neither"):
        est.fit(_data(), event_handlers=[LoggingHandler(metrics=[mx.metric.Accuracy()])], epochs=1)


def test_checkpoints_rotate_and_resume(tmp_path):
    est = _estimator()
    handler = CheckpointHandler(str(tmp_path), model_prefix="m", batch_period=3, epoch_period=None, max_checkpoints=2)
    est.fit(_data(), event_handlers=[handler], batches=10)
    names = sorted(os.listdir(tmp_path))
    # saves after batches 3, 6, 9 (named by the 0-based batch index and the epoch), keeps the last 2
    assert names == ["m-epoch1batch5.params", "m-epoch1batch5.states", "m-epoch2batch8.params",
                     "m-epoch2batch8.states", "m-symbol.json"]
    est = _estimator()
    keep = CheckpointHandler(str(tmp_path), model_prefix="r", max_checkpoints=1)
    est.fit(_data(), event_handlers=[keep], epochs=2)
    saved = est.net.collect_params()
    weights = [v.data().asnumpy() for v in saved.values()]
    est2 = _estimator()
    resume = CheckpointHandler(str(tmp_path), model_prefix="r", max_checkpoints=1, resume_from_checkpoint=True)
    resume.train_begin(est2)
    est2.max_epoch = 5
    resume._resume_from_checkpoint(est2)
    assert est2.max_epoch == 3
    restored = [v.data().asnumpy() for v in est2.net.collect_params().values()]
    assert len(restored) == len(weights) == 4
    for value, expected in zip(restored, weights):
        np.testing.assert_array_equal(value, expected)


def test_early_stopping_and_logging_lines():
    est = _estimator()
    acc = est.train_metrics[0]
    stopper = EarlyStoppingHandler(monitor=acc, patience=0, mode="min")
    est.fit(_data(), event_handlers=[stopper], epochs=10)
    # accuracy rises from the first epoch on, so 'min' mode sees no improvement after epoch 0
    assert stopper.stopped_epoch == 1 and stopper.current_epoch == 2
    est = _estimator()
    stream = io.StringIO()
    est.logger.handlers = [logging.StreamHandler(stream)]
    est.fit(_data(samples=40), event_handlers=[LoggingHandler(log_interval=2, metrics=est.train_metrics)], epochs=1)
    lines = [line for line in stream.getvalue().splitlines()
             if re.match(r"\[Epoch 0\]\[Batch \d+\]\[Samples \d+\] time/interval: \d+\.\d+s training accuracy: "
                         r"\d\.\d{4}", line)]
    assert [re.match(r"\[Epoch 0\]\[Batch (\d+)\]", line).group(1) for line in lines] == ["0", "2", "4"]
    assert "[Samples 40]" in lines[-1]
