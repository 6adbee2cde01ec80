"""Writes tests/data/monitor/monitor_reference.json with the real MXNet 1.9.1
(run with ~/mxref/bin/python; the test re-creates the same module in mxtorch).

A Module on [cpu(0), cpu(1)] (MLP with BatchNorm, fixed parameters) runs three
inference batches under ``mx.mon.Monitor`` twice: the default statistic with
``interval=2, sort=True``, and a per-column statistic with ``interval=1``.  Each
``toc()`` result ``(step, name, text)`` and the ``toc_print`` log lines of the next
collecting batch are recorded.  MKLDNN subgraph fusion is switched off
(MXNET_SUBGRAPH_BACKEND=NONE): fused nodes hide their outputs from the monitor.
"""
import json
import logging
import os
import sys

os.environ["MXNET_SUBGRAPH_BACKEND"] = "NONE"

import numpy as np  # noqa: E402
import mxnet as mx  # noqa: E402


def build():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, name="fc1", num_hidden=3)
    net = mx.sym.BatchNorm(net, name="bn1", fix_gamma=False)
    net = mx.sym.Activation(net, name="relu1", act_type="relu")
    net = mx.sym.FullyConnected(net, name="fc2", num_hidden=2)
    return mx.sym.SoftmaxOutput(net, name="softmax")


def inputs():
    rng = np.random.RandomState(0)
    args = {"fc1_weight": rng.randn(3, 4), "fc1_bias": rng.randn(3), "bn1_gamma": 1 + 0.1 * rng.randn(3),
            "bn1_beta": 0.1 * rng.randn(3), "fc2_weight": rng.randn(2, 3), "fc2_bias": rng.randn(2)}
    aux = {"bn1_moving_mean": 0.1 * rng.randn(3), "bn1_moving_var": 1 + 0.1 * rng.rand(3)}
    batches = [rng.randn(6, 4) for _ in range(3)]
    cast = lambda d: {k: v.astype(np.float32) for k, v in d.items()}
    return cast(args), cast(aux), [b.astype(np.float32) for b in batches]


PATTERN = "fc1_output|fc2_output|relu1_output|softmax_output|fc1_weight|bn1_moving_mean|data"

if __name__ == "__main__":
    class Lines(logging.Handler):
        def __init__(self):
            super().__init__()
            self.lines = []

        def emit(self, record):
            self.lines.append(record.getMessage())

    handler = Lines()
    logging.getLogger().addHandler(handler)
    logging.getLogger().setLevel(logging.INFO)
    args, aux, batches = inputs()
    module = mx.mod.Module(build(), context=[mx.cpu(0), mx.cpu(1)], work_load_list=[1, 2])
    module.bind([("data", (6, 4))], for_training=False)
    module.set_params({k: mx.nd.array(v) for k, v in args.items()}, {k: mx.nd.array(v) for k, v in aux.items()})
    result = {}
    runs = {"default_interval2_sorted": mx.mon.Monitor(2, pattern=PATTERN, sort=True),
            "column_sums_interval1": mx.mon.Monitor(1, stat_func=lambda x: mx.nd.abs(x).sum(axis=0),
                                                    pattern="fc2_output|fc1_weight")}
    for name, monitor in runs.items():
        module.install_monitor(monitor)
        tocs = []
        for batch in batches:
            monitor.tic()
            module.forward(mx.io.DataBatch([mx.nd.array(batch)]), is_train=False)
            tocs.append([list(entry) for entry in monitor.toc()])
        handler.lines.clear()
        monitor.tic()
        while not monitor.activated:
            monitor.toc()
            monitor.tic()
        module.forward(mx.io.DataBatch([mx.nd.array(batches[0])]), is_train=False)
        monitor.toc_print()
        result[name] = {"tocs": tocs, "lines": list(handler.lines)}
        # a later install adds to the executors' callbacks; start the next run from a fresh binding
        module = mx.mod.Module(build(), context=[mx.cpu(0), mx.cpu(1)], work_load_list=[1, 2])
        module.bind([("data", (6, 4))], for_training=False)
        module.set_params({k: mx.nd.array(v) for k, v in args.items()},
                          {k: mx.nd.array(v) for k, v in aux.items()})
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "data",
                                                               "monitor", "monitor_reference.json")
    with open(out, "w") as handle:
        json.dump(result, handle, indent=1)
