"""The fake metric, fake clock and batch loop shared by ``tests/test_callback.py`` and the
generator of its reference, ``tools/gen_callback_reference.py`` (run with the real
MXNet), so that both drive the callbacks identically.

Plain Python: neither mxtorch nor MXNet is imported here.
"""
import collections

# MXNet's mx.model.BatchEndParam has these fields; callbacks only read them by name.
Param = collections.namedtuple("Param", ["epoch", "nbatch", "eval_metric", "locals"])


class FakeMetric:
    """``get_name_value()`` returns the given ``(name, value)`` pairs with every value raised by
    0.001 per ``reset_local()`` / ``reset()`` call so far (counted in ``reset_local_calls``), so
    log lines show whether a callback read the metric before or after resetting it."""

    def __init__(self, name_value):
        self.name_value = [tuple(pair) for pair in name_value]
        self.reset_local_calls = 0

    def get_name_value(self):
        return [(name, value + 0.001 * self.reset_local_calls) for name, value in self.name_value]

    def reset_local(self):
        self.reset_local_calls += 1

    def reset(self):
        self.reset_local_calls += 1


def clock_at(step):
    """Seconds on the fake clock at batch ``step`` of a run (every interval differs)."""
    return 0.25 * step + 0.05 * step * step


def feed_batches(callback, scenario, metric, clock):
    """Call ``callback`` with ``Param(epoch, nbatch, metric, None)`` for ``scenario["epochs"]``
    epochs of ``scenario["batches"]`` batches, setting ``clock["now"]`` (what the patched
    ``time.time`` returns) to ``clock_at(k)`` before the k-th call."""
    step = 0
    for epoch in range(scenario["epochs"]):
        for nbatch in range(scenario["batches"]):
            clock["now"] = clock_at(step)
            callback(Param(epoch, nbatch, metric, None))
            step += 1
