"""``mx.mon.Monitor`` against MXNet 1.9.1 (tests/data/monitor, made by
tools/gen_monitor_reference.py): the entries ``toc()`` returns (node outputs per device
in execution order, then arguments, then auxiliary states; sorted by name with
``sort=True``), their text (a (1,)-shaped statistic as a scalar, others as numpy prints
them, each followed by a tab) and the ``toc_print`` log line
``'Batch: {:7d} {:30s} {:s}'``.
"""
import json
import logging
import os
import re

import numpy as np
import pytest

import mxtorch as mx

with open(os.path.join(os.path.dirname(__file__), "data", "monitor", "monitor_reference.json")) as _handle:
    REFERENCE = json.load(_handle)

PATTERN = "fc1_output|fc2_output|relu1_output|softmax_output|fc1_weight|bn1_moving_mean|data"


def build():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, name="fc1", num_hidden=3)
    net = mx.sym.BatchNorm(net, name="bn1", fix_gamma=False)
    net = mx.sym.Activation(net, name="relu1", act_type="relu")
    net = mx.sym.FullyConnected(net, name="fc2", num_hidden=2)
    return mx.sym.SoftmaxOutput(net, name="softmax")


def inputs():
    """The generator's parameters and batches (same RandomState draws)."""
    rng = np.random.RandomState(0)
    args = {"fc1_weight": rng.randn(3, 4), "fc1_bias": rng.randn(3), "bn1_gamma": 1 + 0.1 * rng.randn(3),
            "bn1_beta": 0.1 * rng.randn(3), "fc2_weight": rng.randn(2, 3), "fc2_bias": rng.randn(2)}
    aux = {"bn1_moving_mean": 0.1 * rng.randn(3), "bn1_moving_var": 1 + 0.1 * rng.rand(3)}
    batches = [rng.randn(6, 4) for _ in range(3)]
    cast = lambda d: {k: mx.nd.array(v.astype(np.float32)) for k, v in d.items()}
    return cast(args), cast(aux), [b.astype(np.float32) for b in batches]


def bound_module():
    args, aux, batches = inputs()
    module = mx.mod.Module(build(), context=[mx.cpu(0), mx.cpu(1)], work_load_list=[1, 2])
    module.bind([("data", (6, 4))], [("softmax_label", (6,))], for_training=False)
    module.set_params(args, aux)
    return module, batches


def numbers(text):
    """The values in a monitor text: one scalar, or a numpy-printed vector."""
    assert text.endswith("\t")
    return np.array(text.strip().strip("[]").split(), dtype=np.float64)


def assert_same_entries(got, expected):
    assert [(step, name) for step, name, _ in got] == [(step, name) for step, name, _ in expected]
    for (_, name, text), (_, _, expected_text) in zip(got, expected):
        np.testing.assert_allclose(numbers(text), numbers(expected_text), rtol=1e-5, atol=1e-6, err_msg=name)
        if expected_text.startswith("["):           # numpy's print form, not a list's repr
            assert text.startswith("[") and text.endswith("]\t") and "," not in text, text
        else:
            assert not text.startswith("["), name


def run(monitor, caplog):
    module, batches = bound_module()
    module.install_monitor(monitor)
    tocs = []
    for batch in batches:
        monitor.tic()
        module.forward(mx.io.DataBatch([mx.nd.array(batch)]), is_train=False)
        tocs.append(monitor.toc())
    caplog.clear()
    monitor.tic()
    while not monitor.activated:
        monitor.toc()
        monitor.tic()
    module.forward(mx.io.DataBatch([mx.nd.array(batches[0])]), is_train=False)
    with caplog.at_level(logging.INFO):
        monitor.toc_print()
    return tocs, [record.getMessage() for record in caplog.records]


def assert_same_lines(lines, expected_lines):
    assert len(lines) == len(expected_lines)
    for line, expected in zip(lines, expected_lines):
        head = re.match(r"Batch: [ 0-9]{7} .{30} ", expected).group(0)
        assert line.startswith(head), (line, expected)
        np.testing.assert_allclose(numbers(line[len(head):]), numbers(expected[len(head):]), rtol=1e-5, atol=1e-6)


def test_default_statistic_sorted_every_second_batch(caplog):
    reference = REFERENCE["default_interval2_sorted"]
    tocs, lines = run(mx.mon.Monitor(2, pattern=PATTERN, sort=True), caplog)
    assert [len(t) for t in tocs] == [14, 0, 14]
    for got, expected in zip(tocs, reference["tocs"]):
        assert_same_entries(got, expected)
    assert_same_lines(lines, reference["lines"])


def test_vector_statistic_unsorted_every_batch(caplog):
    reference = REFERENCE["column_sums_interval1"]
    tocs, lines = run(mx.mon.Monitor(1, stat_func=lambda x: mx.nd.abs(x).sum(axis=0),
                                     pattern="fc2_output|fc1_weight"), caplog)
    for got, expected in zip(tocs, reference["tocs"]):
        assert_same_entries(got, expected)
    assert_same_lines(lines, reference["lines"])


def test_default_statistic_is_the_root_mean_square():
    module, batches = bound_module()
    monitor = mx.mon.Monitor(1, pattern="fc1_output")
    module.install_monitor(monitor)
    monitor.tic()
    module.forward(mx.io.DataBatch([mx.nd.array(batches[1])]), is_train=False)
    entries = monitor.toc()
    args, _, _ = inputs()
    hidden = batches[1] @ args["fc1_weight"].asnumpy().T + args["fc1_bias"].asnumpy()
    expected = [np.sqrt(np.mean(hidden[:2] ** 2)), np.sqrt(np.mean(hidden[2:] ** 2))]
    assert [name for _, name, _ in entries] == ["fc1_output", "fc1_output"]
    np.testing.assert_allclose([float(text) for _, _, text in entries], expected, rtol=1e-5)
    assert monitor.toc() == []                                   # collected once per tic


def test_statistic_returning_several_arrays_is_tab_joined():
    module, batches = bound_module()
    monitor = mx.mon.Monitor(1, stat_func=lambda x: [mx.nd.max(x), mx.nd.min(x)], pattern="fc1_weight")
    module.install_monitor(monitor)
    monitor.tic()
    module.forward(mx.io.DataBatch([mx.nd.array(batches[0])]), is_train=False)
    entries = monitor.toc()
    weight = inputs()[0]["fc1_weight"].asnumpy()
    assert len(entries) == 2
    for _, name, text in entries:
        maximum, minimum, rest = text.split("\t")
        assert rest == ""
        assert float(maximum) == pytest.approx(weight.max()) and float(minimum) == pytest.approx(weight.min())


def test_fit_with_monitor_logs_every_interval(caplog):
    rng = np.random.RandomState(1)
    data = mx.io.NDArrayIter(rng.randn(40, 4).astype(np.float32), rng.randint(0, 2, 40).astype(np.float32),
                             batch_size=8)
    module = mx.mod.Module(build(), context=[mx.cpu(0), mx.cpu(1)])
    monitor = mx.mon.Monitor(2, pattern="softmax_output")
    with caplog.at_level(logging.INFO):
        module.fit(data, num_epoch=1, monitor=monitor, optimizer_params={"learning_rate": 0.1})
    steps = [int(m.split()[1]) for m in (r.getMessage() for r in caplog.records) if m.startswith("Batch:")]
    assert steps == [1, 1, 3, 3, 5, 5]                         # two devices, batches 1, 3, 5 of 5
