"""Record MXNet 1.9.1's callback log lines for tests/test_callback.py.

Run with the reference MXNet interpreter (not part of the test suite):

    ~/mxref/bin/python tools/gen_callback_reference.py [OUTPUT_FOLDER]   # default tests/data/callback

Each scenario feeds a callback a fixed sequence of batch-end parameters
(epoch, nbatch) with a fake metric, under a fake clock where batch k of the
run happens at time 0.25 * k + 0.05 * k * k seconds (so every interval
differs), and records every log message and the number of ``reset_local``
calls.  The fake metric's values grow by 0.001 with every reset, so the
lines show whether a callback read the metric before or after resetting.  Writes reference.json.
The fake metric, the fake clock and the batch loop come from tests/callback_fakes.py, which the
test uses too.
"""
import json
import logging
import sys
from pathlib import Path

import mxnet as mx
import mxnet.callback as callback_module

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))   # for the shared fakes
from callback_fakes import FakeMetric, feed_batches  # noqa: E402


class Recorder(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


SCENARIOS = [
    {"name": "speedometer_auto_reset", "callback": ["Speedometer", [10, 5, True]],
     "metric": [["accuracy", 0.5], ["cross-entropy", 1.25]], "epochs": 2, "batches": 12},
    {"name": "speedometer_accumulate", "callback": ["Speedometer", [16, 4, False]],
     "metric": [["accuracy", 0.875]], "epochs": 2, "batches": 9},
    {"name": "speedometer_no_metric", "callback": ["Speedometer", [8, 3, True]],
     "metric": None, "epochs": 1, "batches": 7},
    {"name": "log_train_metric", "callback": ["log_train_metric", [3, False]],
     "metric": [["accuracy", 0.25], ["f1", 0.75]], "epochs": 2, "batches": 5},
    {"name": "log_train_metric_reset", "callback": ["log_train_metric", [2, True]],
     "metric": [["mse", 0.125]], "epochs": 1, "batches": 5},
    {"name": "progress_bar", "callback": ["ProgressBar", [7, 20]],
     "metric": [["accuracy", 0.5]], "epochs": 1, "batches": 7},
    {"name": "validation_metrics", "callback": ["LogValidationMetricsCallback", []],
     "metric": [["accuracy", 0.96875], ["top_k_accuracy_5", 1.0]], "epochs": 3, "batches": 1},
]


def run(scenario, make_callback):
    clock = {"now": 0.0}
    real_time = callback_module.time.time
    callback_module.time.time = lambda: clock["now"]
    recorder = Recorder()
    root = logging.getLogger()
    root.addHandler(recorder)
    root.setLevel(logging.INFO)
    try:
        metric = FakeMetric(scenario["metric"]) if scenario["metric"] is not None else None
        callback = make_callback()
        feed_batches(callback, scenario, metric, clock)
    finally:
        root.removeHandler(recorder)
        callback_module.time.time = real_time
    return recorder.messages, (metric.reset_local_calls if metric is not None else 0)


def main():
    results = []
    for scenario in SCENARIOS:
        kind, arguments = scenario["callback"]
        messages, resets = run(scenario, lambda: getattr(mx.callback, kind)(*arguments))
        results.append(dict(scenario, messages=messages, reset_local_calls=resets))
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "tests" / "data" / "callback"
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / "reference.json"
    out.write_text(json.dumps({"mxnet_version": mx.__version__, "scenarios": results}, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
