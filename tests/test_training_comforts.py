"""mxtorch's training comforts: History from fit, EarlyStopping, ModelCheckpoint (best k),
CSVLogger, TensorBoard, mx.contrib.tensorboard.LogMetricsCallback and the progress bars."""
import csv
import logging
import os

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError
from mxtorch.module import training_extras


def _data(seed=0, n=120):
    rng = np.random.RandomState(seed)
    centers = rng.randn(3, 6) * 3
    labels = rng.randint(0, 3, size=n)
    data = (centers[labels] + rng.randn(n, 6)).astype(np.float32)
    return data, labels.astype(np.float32)


def _net():
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def _iters():
    data, labels = _data()
    return (mx.io.NDArrayIter(data[:90], labels[:90], batch_size=30),
            mx.io.NDArrayIter(data[90:], labels[90:], batch_size=30))


def _fit(num_epoch, learning_rate=0.1, **kwargs):
    train, val = _iters()
    mx.random.seed(1)
    mod = mx.mod.Module(_net(), context=mx.cpu())
    history = mod.fit(train, eval_data=val, num_epoch=num_epoch, optimizer_params={"learning_rate": learning_rate},
                      initializer=mx.init.Xavier(), progress=False, **kwargs)
    return mod, history


def test_fit_returns_history_matching_score():
    mod, history = _fit(3)
    assert history.epochs == [0, 1, 2]
    assert set(history) >= {"train-accuracy", "validation-accuracy", "learning-rate", "samples-per-sec"}
    _, val = _iters()
    assert history["validation-accuracy"][-1] == pytest.approx(dict(mod.score(val, "acc"))["accuracy"])
    assert history["learning-rate"] == [0.1, 0.1, 0.1]
    assert all(v > 0 for v in history["samples-per-sec"])


def _feed(callback, values, key="validation-accuracy"):
    callback.on_train_begin(None)
    for epoch, value in enumerate(values):
        callback.on_epoch_end(epoch, {key: value})
        if callback.stop_training:
            return epoch
    return None


def test_early_stopping_on_recorded_sequence():
    values = [0.50, 0.60, 0.65, 0.64, 0.66, 0.63, 0.70]
    # min_delta 0.01: 0.66 is not an improvement on 0.65; stops at the 2nd epoch in a row without one
    stop = mx.callback.EarlyStopping("validation-accuracy", patience=2, min_delta=0.01)
    assert _feed(stop, values) == 4 and stop.best == 0.65 and stop.best_epoch == 2
    # without min_delta 0.66 counts: epochs 5, 6 ... 0.70 improves again, never stops
    assert _feed(mx.callback.EarlyStopping(patience=2), values) is None
    # patience 0: the first epoch without improvement
    assert _feed(mx.callback.EarlyStopping(patience=0), values) == 3
    # a loss is minimised (mode auto)
    losses = [1.0, 0.8, 0.85, 0.9, 0.7]
    stop = mx.callback.EarlyStopping("validation-cross-entropy", patience=2)
    assert stop.mode == "min" and _feed(stop, losses, "validation-cross-entropy") == 3
    with pytest.raises(MXNetError, match="'validation-f1' is not among"):
        _feed(mx.callback.EarlyStopping("validation-f1"), [0.5])


def test_early_stopping_ends_fit(caplog):
    caplog.set_level(logging.INFO)
    stop = mx.callback.EarlyStopping("validation-accuracy", patience=1)
    _, history = _fit(6, learning_rate=0.0, epoch_end_callback=stop)   # nothing learns: no improvement
    assert history.epochs == [0, 1] and stop.stopped_epoch == 1
    assert "Epoch[1] Early stopping: validation-accuracy" in caplog.text
    assert "Epoch[2]" not in caplog.text


def test_model_checkpoint_keeps_exactly_best_k(tmp_path):
    prefix = str(tmp_path / "net")
    symbol = _net()
    params = {"fc_weight": mx.nd.ones((3, 6)), "fc_bias": mx.nd.zeros((3,))}
    keep = mx.callback.ModelCheckpoint(prefix, "validation-accuracy", save_top_k=2)
    values = [0.5, 0.7, 0.6, 0.8, 0.65, 0.75]
    for epoch, value in enumerate(values):
        params["fc_bias"] = mx.nd.array([epoch, 0, 0])
        keep(epoch, symbol, params, {})
        keep.on_epoch_end(epoch, {"validation-accuracy": value})
    files = sorted(f for f in os.listdir(tmp_path) if f.endswith(".params"))
    assert files == ["net-0004.params", "net-0006.params"]          # 0.8 (epoch 3) and 0.75 (epoch 5)
    assert keep.best_epochs == [(0.8, 4), (0.75, 6)]
    _, arg_params, _ = mx.model.load_checkpoint(prefix, 4)
    assert arg_params["fc_bias"].asnumpy().tolist() == [3, 0, 0]
    # save_best_only: one file, the best
    best = mx.callback.ModelCheckpoint(str(tmp_path / "best"), save_best_only=True)
    for epoch, value in enumerate(values):
        best(epoch, symbol, params, {})
        best.on_epoch_end(epoch, {"validation-accuracy": value})
    assert sorted(f for f in os.listdir(tmp_path) if f.startswith("best-0")) == ["best-0004.params"]


def test_model_checkpoint_in_fit(tmp_path):
    keep = mx.callback.ModelCheckpoint(str(tmp_path / "m"), save_top_k=1)
    _, history = _fit(4, epoch_end_callback=keep)
    values = history["validation-accuracy"]
    best_epoch = max(range(4), key=lambda e: (values[e], -e))
    assert [f for f in os.listdir(tmp_path) if f.endswith(".params")] == [f"m-{best_epoch + 1:04d}.params"]


def test_csv_logger(tmp_path):
    path = str(tmp_path / "log.csv")
    _, history = _fit(2, epoch_end_callback=mx.callback.CSVLogger(path))
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [int(r["epoch"]) for r in rows] == [0, 1]
    assert [float(r["validation-accuracy"]) for r in rows] == pytest.approx(history["validation-accuracy"])
    assert [float(r["train-accuracy"]) for r in rows] == pytest.approx(history["train-accuracy"])


def _scalars(logdir):
    event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    accumulator = event_accumulator.EventAccumulator(str(logdir))
    accumulator.Reload()
    return {tag: [(e.step, e.value) for e in accumulator.Scalars(tag)] for tag in accumulator.Tags()["scalars"]}


def test_tensorboard_scalars(tmp_path):
    pytest.importorskip("tensorboard")
    board = mx.callback.TensorBoard(str(tmp_path / "tb"))
    _, history = _fit(3, epoch_end_callback=board)
    board.close()
    scalars = _scalars(tmp_path / "tb")
    for tag in ("train-accuracy", "validation-accuracy", "learning-rate", "samples-per-sec"):
        assert [step for step, _ in scalars[tag]] == [0, 1, 2]
        assert [value for _, value in scalars[tag]] == pytest.approx(history[tag], rel=1e-6)


def test_contrib_log_metrics_callback(tmp_path):
    pytest.importorskip("tensorboard")
    callback = mx.contrib.tensorboard.LogMetricsCallback(str(tmp_path / "tb"), prefix="train")
    metric = mx.metric.Accuracy()
    metric.update([mx.nd.array([0, 1, 1, 2])], [mx.nd.array([[1, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1]])])
    callback(mx.model.BatchEndParam(epoch=4, nbatch=0, eval_metric=metric, locals=None))
    callback(mx.model.BatchEndParam(epoch=5, nbatch=0, eval_metric=None, locals=None))
    callback.summary_writer.close()
    assert _scalars(tmp_path / "tb") == {"train-accuracy": [(4, 0.75)]}


def test_progress_switches(monkeypatch):
    assert training_extras.progress_enabled(True) and not training_extras.progress_enabled(False)
    monkeypatch.setattr("sys.stderr", type("Tty", (), {"isatty": lambda self: True, "write": lambda s, x: None,
                                                       "flush": lambda s: None})())
    monkeypatch.delenv("MXTORCH_PROGRESS", raising=False)
    assert training_extras.progress_enabled(None)
    monkeypatch.setenv("MXTORCH_PROGRESS", "0")
    assert not training_extras.progress_enabled(None)


def test_progress_bar_counts_batches(capsys):
    train, val = _iters()
    mod = mx.mod.Module(_net(), context=mx.cpu())
    mod.fit(train, eval_data=val, num_epoch=1, progress=True, initializer=mx.init.Xavier())
    err = capsys.readouterr().err
    assert "Epoch[0]" in err and "0/3" in err          # 90 samples / 30 per batch (tqdm redraws by time)
    bar = training_extras.progress_bar(True, train, "x")
    assert bar.total == 3
    bar.close()
    capsys.readouterr()
    mod.predict(val, progress=True)
    assert "predict" in capsys.readouterr().err
    mod.score(val, "acc", progress=False)
    assert capsys.readouterr().err == ""
