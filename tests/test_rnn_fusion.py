"""Unrolled LSTMCell runs fused into torch's LSTM (executor/fusion.py) compute what the plain
node-by-node plan computes.

The reference is the same symbol bound under ``MXTORCH_FUSE_RNN=0`` (the fusion is decided
when the executor is bound), run with the same arrays: outputs, final states and every
gradient must agree to float32 rounding, in training and inference, after ``set_params``,
after ``reshape``, and when switching ``is_train``.
"""
import numpy as np
import pytest

import mxtorch as mx

HIDDEN = 6


def _fused_steps(executor):
    return [step for step in executor._run_steps if step.op.name == "_fused_lstm"]


def _bind(monkeypatch, symbol, fuse, grad_req="write", **shapes):
    monkeypatch.setenv("MXTORCH_FUSE_RNN", "1" if fuse else "0")
    return symbol.simple_bind(mx.cpu(), grad_req=grad_req, **shapes)


def _fill(executors, seed):
    rng = np.random.RandomState(seed)
    for name, array in executors[0].arg_dict.items():
        value = rng.normal(0, 0.5, array.shape).astype(np.float32)
        for executor in executors:
            executor.arg_dict[name][:] = value


def _run(executor, is_train=True, backward=True):
    outputs = [o.asnumpy().copy() for o in executor.forward(is_train=is_train)]
    grads = {}
    if backward:
        executor.backward([mx.nd.ones(o.shape) for o in executor.outputs])
        grads = {name: grad.asnumpy().copy() for name, grad in executor.grad_dict.items()}
    return outputs, grads


def _assert_same(fused, plain):
    (fused_out, fused_grads), (plain_out, plain_grads) = fused, plain
    assert len(fused_out) == len(plain_out)
    for a, b in zip(fused_out, plain_out):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert fused_grads.keys() == plain_grads.keys()
    for name in plain_grads:
        np.testing.assert_allclose(fused_grads[name], plain_grads[name], rtol=1e-4, atol=1e-5, err_msg=name)


def _single_layer(length=5, merge=True):
    cell = mx.rnn.LSTMCell(num_hidden=HIDDEN, prefix="lstm_")
    outputs, states = cell.unroll(length, inputs=mx.sym.Variable("data"), layout="NTC", merge_outputs=merge)
    outputs = outputs if merge else mx.sym.Concat(*outputs, dim=1)
    return mx.sym.Group([outputs] + list(states))


def test_unrolled_lstm_cell_runs_as_one_fused_step_with_the_plain_numbers(monkeypatch):
    symbol = _single_layer()
    fused = _bind(monkeypatch, symbol, True, data=(3, 5, 4))
    plain = _bind(monkeypatch, symbol, False, data=(3, 5, 4))
    assert len(_fused_steps(fused)) == 1 and not _fused_steps(plain)
    assert not any(step.op.name == "SliceChannel" and len(step.outputs) == 4 for step in fused._run_steps)
    _fill([fused, plain], 0)
    _assert_same(_run(fused), _run(plain))
    # and again after the parameters change (the plan reads the bound arrays every forward)
    _fill([fused, plain], 1)
    _assert_same(_run(fused), _run(plain))


def test_fused_lstm_matches_a_numpy_recurrence(monkeypatch):
    """Independent reference: MXNet's LSTMCell equations written out in numpy."""
    symbol = _single_layer(length=4)
    executor = _bind(monkeypatch, symbol, True, grad_req="null", data=(2, 4, 3))
    assert _fused_steps(executor)
    _fill([executor], 2)
    args = {name: array.asnumpy() for name, array in executor.arg_dict.items()}
    outputs = [o.asnumpy() for o in executor.forward(is_train=False)]

    def sigmoid(x):
        return 1 / (1 + np.exp(-x))
    h = np.zeros((2, HIDDEN), np.float32)
    c = np.zeros((2, HIDDEN), np.float32)
    hs = []
    for t in range(4):
        gates = (args["data"][:, t] @ args["lstm_i2h_weight"].T + args["lstm_i2h_bias"]
                 + h @ args["lstm_h2h_weight"].T + args["lstm_h2h_bias"])
        i, f, g, o = np.split(gates, 4, axis=1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        hs.append(h)
    np.testing.assert_allclose(outputs[0], np.stack(hs, axis=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outputs[1], h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outputs[2], c, rtol=1e-5, atol=1e-6)


def test_stacked_cells_fuse_layer_by_layer(monkeypatch):
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(num_hidden=HIDDEN, prefix="l0_"))
    stack.add(mx.rnn.LSTMCell(num_hidden=HIDDEN, prefix="l1_"))
    outputs, states = stack.unroll(4, inputs=mx.sym.Variable("data"), layout="NTC", merge_outputs=False)
    symbol = mx.sym.Group([mx.sym.sum(mx.sym.Concat(*outputs, dim=1))] + list(states))
    fused = _bind(monkeypatch, symbol, True, data=(2, 4, 3))
    plain = _bind(monkeypatch, symbol, False, data=(2, 4, 3))
    assert len(_fused_steps(fused)) == 2
    _fill([fused, plain], 3)
    _assert_same(_run(fused), _run(plain))


def test_cells_whose_inside_is_read_elsewhere_are_left_unfused(monkeypatch):
    """A gate output of step 1 is also a graph output: the run is cut there (steps 2.. still
    fuse), and the numbers are the plain ones."""
    cell = mx.rnn.LSTMCell(num_hidden=HIDDEN, prefix="lstm_")
    outputs, states = cell.unroll(5, inputs=mx.sym.Variable("data"), layout="NTC", merge_outputs=True)
    gate = symbol_by_name(outputs, "lstm_t1_f_output")
    symbol = mx.sym.Group([outputs, gate])
    fused = _bind(monkeypatch, symbol, True, data=(2, 5, 3))
    plain = _bind(monkeypatch, symbol, False, data=(2, 5, 3))
    assert [step.op.length for step in _fused_steps(fused)] == [3]
    _fill([fused, plain], 4)
    _assert_same(_run(fused), _run(plain))


def symbol_by_name(symbol, name):
    internals = symbol.get_internals()
    return internals[internals.list_outputs().index(name)]


def test_a_decoder_feeding_its_output_back_is_left_unfused(monkeypatch):
    """x_t = FullyConnected(h_{t-1}): the run's inputs depend on its outputs, so no fusion."""
    cell = mx.rnn.LSTMCell(num_hidden=HIDDEN, prefix="dec_")
    states = cell.begin_state()
    x = mx.sym.Variable("data")
    outputs = []
    for t in range(3):
        h, states = cell(x, states)
        outputs.append(h)
        x = mx.sym.FullyConnected(h, num_hidden=4, weight=mx.sym.Variable("fb_weight"),
                                  bias=mx.sym.Variable("fb_bias"), name=f"fb{t}")
    symbol = mx.sym.Group(outputs)
    fused = _bind(monkeypatch, symbol, True, data=(2, 4))
    plain = _bind(monkeypatch, symbol, False, data=(2, 4))
    assert not _fused_steps(fused)
    _fill([fused, plain], 5)
    _assert_same(_run(fused), _run(plain))


def _language_model():
    data = mx.sym.Variable("data")
    embedded = mx.sym.Embedding(data, input_dim=11, output_dim=5, name="embed")
    cell = mx.rnn.LSTMCell(num_hidden=HIDDEN, prefix="lstm_")
    outputs, _ = cell.unroll(4, inputs=embedded, layout="NTC", merge_outputs=True)
    scores = mx.sym.FullyConnected(mx.sym.Reshape(outputs, shape=(-1, HIDDEN)), num_hidden=11, name="decoder")
    return mx.sym.SoftmaxOutput(scores, mx.sym.Reshape(mx.sym.Variable("softmax_label"), shape=(-1,)),
                                name="softmax")


def _module(monkeypatch, fuse, batch=3):
    monkeypatch.setenv("MXTORCH_FUSE_RNN", "1" if fuse else "0")
    module = mx.mod.Module(_language_model(), context=mx.cpu())
    module.bind(data_shapes=[("data", (batch, 4))], label_shapes=[("softmax_label", (batch, 4))])
    mx.random.seed(7)
    module.init_params(initializer=mx.init.Xavier())
    module.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.5, "momentum": 0.9})
    return module


def _batch(rng, batch=3):
    return mx.io.DataBatch(data=[mx.nd.array(rng.randint(0, 11, (batch, 4)))],
                           label=[mx.nd.array(rng.randint(0, 11, (batch, 4)))])


def test_training_module_fused_and_plain_agree_through_updates_set_params_and_reshape(monkeypatch):
    fused, plain = _module(monkeypatch, True), _module(monkeypatch, False)
    assert _fused_steps(fused._exec_group.execs[0]) and not _fused_steps(plain._exec_group.execs[0])
    plain.set_params(*fused.get_params())
    rng = np.random.RandomState(8)

    def compare(batch, is_train=True, step=True):
        outs = []
        for module in (fused, plain):
            module.forward(batch, is_train=is_train)
            outs.append(module.get_outputs()[0].asnumpy())
            if step:
                module.backward()
                module.update()
        np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-6)
        for (name, a), b in zip(sorted(fused.get_params()[0].items()), [v for _, v in sorted(
                plain.get_params()[0].items())]):
            np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-4, atol=1e-5, err_msg=name)

    for _ in range(3):
        compare(_batch(rng))
    compare(_batch(rng), is_train=False, step=False)
    compare(_batch(rng))
    # new parameters from outside
    args, aux = fused.get_params()
    args = {name: mx.nd.array(np.random.RandomState(9).normal(0, 0.3, value.shape)) for name, value in args.items()}
    for module in (fused, plain):
        module.set_params(args, aux)
    compare(_batch(rng))
    # another batch size: the rebound executors fuse again
    for module, fuse in ((fused, "1"), (plain, "0")):
        monkeypatch.setenv("MXTORCH_FUSE_RNN", fuse)     # read when the executor is (re)bound
        module.reshape(data_shapes=[("data", (5, 4))], label_shapes=[("softmax_label", (5, 4))])
    assert _fused_steps(fused._exec_group.execs[0])
    compare(_batch(rng, 5))
    compare(_batch(rng, 5), is_train=False, step=False)


def test_a_monitor_sees_every_node_of_a_fused_graph(monkeypatch):
    symbol = _single_layer(length=3)
    executor = _bind(monkeypatch, symbol, True, data=(2, 3, 4))
    _fill([executor], 6)
    expected = [o.asnumpy().copy() for o in executor.forward(is_train=True)]
    seen = {}
    executor.set_monitor_callback(lambda name, array: seen.setdefault(name, array.asnumpy()))
    outputs = executor.forward(is_train=True)
    assert "lstm_t1_slice_output2" in seen and "lstm_t2_out_output" in seen
    for a, b in zip(outputs, expected):
        np.testing.assert_allclose(a.asnumpy(), b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("no_bias", [False, True])
def test_cells_without_biases_fuse_with_the_plain_numbers(monkeypatch, no_bias):
    """A hand-written cell in the LSTMCell pattern, with no_bias on both FullyConnected."""
    data = mx.sym.Variable("data")
    steps = mx.sym.SliceChannel(data, num_outputs=3, axis=1, squeeze_axis=True)
    h, c = mx.sym.Variable("h0"), mx.sym.Variable("c0")
    weights = {"wi": mx.sym.Variable("wi"), "wh": mx.sym.Variable("wh")}
    extra = {} if no_bias else {"bi": mx.sym.Variable("bi"), "bh": mx.sym.Variable("bh")}
    hs = []
    for t in range(3):
        i2h = mx.sym.FullyConnected(steps[t], weight=weights["wi"], bias=extra.get("bi"), no_bias=no_bias,
                                    num_hidden=4 * HIDDEN, name=f"i2h{t}")
        h2h = mx.sym.FullyConnected(h, weight=weights["wh"], bias=extra.get("bh"), no_bias=no_bias,
                                    num_hidden=4 * HIDDEN, name=f"h2h{t}")
        gates = mx.sym.SliceChannel(h2h + i2h, num_outputs=4)
        c = (c * mx.sym.Activation(gates[1], act_type="sigmoid")
             + mx.sym.Activation(gates[2], act_type="tanh") * mx.sym.Activation(gates[0], act_type="sigmoid"))
        h = mx.sym.Activation(c, act_type="tanh") * mx.sym.Activation(gates[3], act_type="sigmoid")
        hs.append(h)
    symbol = mx.sym.Group(hs + [c])
    shapes = dict(data=(2, 3, 5), h0=(2, HIDDEN), c0=(2, HIDDEN))
    fused = _bind(monkeypatch, symbol, True, **shapes)
    plain = _bind(monkeypatch, symbol, False, **shapes)
    assert [step.op.length for step in _fused_steps(fused)] == [3]
    _fill([fused, plain], 10)
    _assert_same(_run(fused), _run(plain))


def _gru_layer(length=4):
    cell = mx.rnn.GRUCell(num_hidden=HIDDEN, prefix="gru_")
    outputs, states = cell.unroll(length, inputs=mx.sym.Variable("data"), layout="NTC", merge_outputs=True)
    return mx.sym.Group([outputs] + list(states))


def test_unrolled_gru_cell_runs_fused_with_the_plain_numbers(monkeypatch):
    symbol = _gru_layer()
    fused = _bind(monkeypatch, symbol, True, data=(3, 4, 5))
    plain = _bind(monkeypatch, symbol, False, data=(3, 4, 5))
    assert [step.op.name for step in fused._run_steps if step.op.name.startswith("_fused")] == ["_fused_gru"]
    _fill([fused, plain], 11)
    _assert_same(_run(fused), _run(plain))
    _assert_same(_run(fused, is_train=False), _run(plain, is_train=False))


def test_fused_gru_matches_a_numpy_recurrence(monkeypatch):
    """MXNet's GRUCell: r, z, n slices; n = tanh(i2h_n + r * h2h_n); h = (1 - z) * n + z * h."""
    executor = _bind(monkeypatch, _gru_layer(3), True, grad_req="null", data=(2, 3, 4))
    assert any(step.op.name == "_fused_gru" for step in executor._run_steps)
    _fill([executor], 12)
    args = {name: array.asnumpy() for name, array in executor.arg_dict.items()}
    outputs = [o.asnumpy() for o in executor.forward(is_train=False)]

    def sigmoid(x):
        return 1 / (1 + np.exp(-x))
    h = np.zeros((2, HIDDEN), np.float32)
    hs = []
    for t in range(3):
        xr, xz, xn = np.split(args["data"][:, t] @ args["gru_i2h_weight"].T + args["gru_i2h_bias"], 3, axis=1)
        hr, hz, hn = np.split(h @ args["gru_h2h_weight"].T + args["gru_h2h_bias"], 3, axis=1)
        r, z = sigmoid(xr + hr), sigmoid(xz + hz)
        n = np.tanh(xn + r * hn)
        h = (1 - z) * n + z * h
        hs.append(h)
    np.testing.assert_allclose(outputs[0], np.stack(hs, axis=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outputs[1], h, rtol=1e-5, atol=1e-6)


def _hand_written_lstm(length):
    """An LSTM recurrence written with split / sigmoid / tanh / * / + instead of mx.rnn.LSTMCell:
    the fusion recognises nodes by what their operators declare, not by their names."""
    steps = mx.sym.split(mx.sym.Variable("data"), num_outputs=length, axis=1, squeeze_axis=True)
    weights = [mx.sym.Variable(name) for name in ("wi", "bi", "wh", "bh")]
    h, c = mx.sym.Variable("h0"), mx.sym.Variable("c0")
    outputs = []
    for t in range(length):
        gates = mx.sym.FullyConnected(steps[t], weight=weights[0], bias=weights[1], num_hidden=4 * HIDDEN) + \
            mx.sym.FullyConnected(h, weight=weights[2], bias=weights[3], num_hidden=4 * HIDDEN)
        i, f, g, o = mx.sym.split(gates, num_outputs=4, axis=1)
        c = mx.sym.sigmoid(f) * c + mx.sym.sigmoid(i) * mx.sym.tanh(g)
        h = mx.sym.sigmoid(o) * mx.sym.tanh(c)
        outputs.append(h)
    return mx.sym.Group(outputs + [c])


def test_a_hand_written_lstm_of_unary_operators_fuses_with_the_plain_numbers(monkeypatch):
    symbol = _hand_written_lstm(3)
    shapes = {"data": (2, 3, 4), "h0": (2, HIDDEN), "c0": (2, HIDDEN)}
    fused = _bind(monkeypatch, symbol, True, **shapes)
    plain = _bind(monkeypatch, symbol, False, **shapes)
    assert [step.op.length for step in _fused_steps(fused)] == [3] and not _fused_steps(plain)
    _fill([fused, plain], 41)
    _assert_same(_run(fused), _run(plain))
