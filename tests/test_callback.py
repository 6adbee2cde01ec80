"""mx.callback against the log lines MXNet 1.9.1 wrote (tests/data/callback/reference.json).

The reference was recorded by tools/gen_callback_reference.py with the
real MXNet under the same fake clock and fake metric used here.
"""
import json
import logging
from pathlib import Path

import pytest

import mxtorch as mx
import mxtorch.callback as callback_module
import mxtorch.model
from callback_fakes import FakeMetric, Param, feed_batches

REFERENCE = json.loads((Path(__file__).parent / "data" / "callback" / "reference.json").read_text())
SCENARIOS = {scenario["name"]: scenario for scenario in REFERENCE["scenarios"]}

def replay(scenario, monkeypatch, caplog):
    clock = {"now": 0.0}
    monkeypatch.setattr(callback_module.time, "time", lambda: clock["now"])
    kind, arguments = scenario["callback"]
    callback = getattr(mx.callback, kind)(*arguments)
    metric = FakeMetric(scenario["metric"]) if scenario["metric"] is not None else None
    caplog.clear()
    with caplog.at_level(logging.INFO):
        feed_batches(callback, scenario, metric, clock)
    return [record.getMessage() for record in caplog.records], metric


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_log_lines_match_mxnet(name, monkeypatch, caplog):
    scenario = SCENARIOS[name]
    messages, metric = replay(scenario, monkeypatch, caplog)
    assert messages == scenario["messages"]
    assert (metric.reset_local_calls if metric else 0) == scenario["reset_local_calls"]


def test_speedometer_line_format_and_speed(monkeypatch, caplog):
    # Independent of the reference: batches 0..10 at 0.5 s each, frequent 5, batch 32:
    # speed = 5 * 32 / 2.5 s = 64 samples/sec, the metric is reset after each line.
    clock = {"now": 0.0}
    monkeypatch.setattr(callback_module.time, "time", lambda: clock["now"])
    metric = FakeMetric([("accuracy", 0.5)])
    speedometer = mx.callback.Speedometer(32, frequent=5)
    with caplog.at_level(logging.INFO):
        for nbatch in range(11):
            clock["now"] = 0.5 * nbatch
            speedometer(Param(3, nbatch, metric, None))
    assert [record.getMessage() for record in caplog.records] == [
        "Epoch[3] Batch [0-5]\tSpeed: 64.00 samples/sec\taccuracy=0.500000",
        "Epoch[3] Batch [5-10]\tSpeed: 64.00 samples/sec\taccuracy=0.501000",
    ]
    assert all(record.levelno == logging.INFO for record in caplog.records)
    assert metric.reset_local_calls == 2


def test_progress_bar_ends_with_carriage_return(caplog):
    bar = mx.callback.ProgressBar(total=4, length=8)
    with caplog.at_level(logging.INFO):
        bar(Param(0, 2, None, None))
    assert caplog.records[0].getMessage() == "[====----] 50%\r"


def test_validation_callback_ignores_missing_metric(caplog):
    with caplog.at_level(logging.INFO):
        mx.callback.LogValidationMetricsCallback()(Param(0, 0, None, None))
    assert caplog.records == []


@pytest.mark.parametrize("period, expected_epochs", [(1, [1, 2, 3, 4, 5, 6]), (2, [2, 4, 6]),
                                                     (4, [4]), (0, [1, 2, 3, 4, 5, 6])])
def test_do_checkpoint_period(period, expected_epochs, monkeypatch):
    saved = []
    monkeypatch.setattr(mxtorch.model, "save_checkpoint",
                        lambda prefix, epoch, symbol, arg, aux: saved.append((prefix, epoch, symbol, arg, aux)),
                        raising=False)
    callback = mx.callback.do_checkpoint("runs/net", period)
    for epoch in range(6):
        callback(epoch, "sym", {"w": epoch}, {"a": epoch})
    assert [entry[1] for entry in saved] == expected_epochs
    assert all(entry[0] == "runs/net" and entry[2] == "sym" for entry in saved)
    # the parameters passed are those of the epoch just finished (epoch number - 1)
    assert all(entry[3] == {"w": entry[1] - 1} and entry[4] == {"a": entry[1] - 1} for entry in saved)


def test_module_checkpoint_period():
    class FakeModule:
        def __init__(self):
            self.calls = []

        def save_checkpoint(self, prefix, epoch, save_optimizer_states=False):
            self.calls.append((prefix, epoch, save_optimizer_states))

    module = FakeModule()
    callback = mx.callback.module_checkpoint(module, "ck", period=3, save_optimizer_states=True)
    for epoch in range(7):
        callback(epoch)
    assert module.calls == [("ck", 3, True), ("ck", 6, True)]


def test_save_checkpoint_is_model_save_checkpoint():
    assert mx.callback.save_checkpoint is mx.model.save_checkpoint


def test_checkpoint_callbacks_warn_at_once_about_a_missing_folder(tmp_path):
    # MXNet learns that the prefix's folder is missing when the first save fails, after an epoch;
    # mxtorch warns when the callback is made, and stays quiet for a folder that exists
    import warnings
    import pytest
    import mxtorch as mx
    missing = tmp_path / "not-yet" / "model"
    for make in (lambda p: mx.callback.do_checkpoint(p), lambda p: mx.callback.module_checkpoint(None, p),
                 lambda p: mx.callback.ModelCheckpoint(p)):
        with pytest.warns(UserWarning, match="not-yet.*does not exist"):
            make(str(missing))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            make(str(tmp_path / "model"))
            make("model")        # the current folder
    callback = mx.callback.do_checkpoint(str(tmp_path / "model"))
    symbol = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    callback(0, symbol, {"fc_weight": mx.nd.ones((2, 3)), "fc_bias": mx.nd.zeros((2,))}, {})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model-0001.params", "model-symbol.json"]
