"""The compiled training step (executor/compiled.py) computes what the eager plan computes.

Every test trains the same module twice from the same parameters and random seed, once
with ``MXTORCH_COMPILE=0`` (the node-by-node plan under autograd) and once with
``MXTORCH_COMPILE=1`` (forward + backward traced into one graph from the first batch), and
compares outputs, gradients, parameters and aux states.
"""
import logging

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.executor import compiled

TOL = dict(rtol=1e-5, atol=1e-6)


def _mlp():
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=8, name="fc1")
    net = mx.sym.Activation(net, act_type="relu")
    net = mx.sym.FullyConnected(net, num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def _bn_dropout():
    """Convolution -> BatchNorm -> relu -> Dropout -> FullyConnected -> SoftmaxOutput."""
    net = mx.sym.Convolution(mx.sym.Variable("data"), num_filter=4, kernel=(3, 3), pad=(1, 1), name="c1")
    net = mx.sym.BatchNorm(net, fix_gamma=False, name="bn1")
    net = mx.sym.Activation(net, act_type="relu")
    net = mx.sym.Dropout(net, p=0.3)
    net = mx.sym.FullyConnected(mx.sym.Flatten(net), num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def _params(symbol, data_shape, seed=0):
    rng = np.random.RandomState(seed)
    arg_shapes, _, aux_shapes = symbol.infer_shape(data=data_shape)
    args = {n: mx.nd.array(rng.normal(0, 0.5, s)) for n, s in zip(symbol.list_arguments(), arg_shapes)
            if n not in ("data", "softmax_label")}
    aux = {n: mx.nd.array(rng.uniform(0.5, 1.5, s)) for n, s in zip(symbol.list_auxiliary_states(), aux_shapes)}
    return args, aux


def _batches(data_shape, count, seed=1):
    rng = np.random.RandomState(seed)
    return [mx.io.DataBatch(data=[mx.nd.array(rng.normal(size=data_shape))],
                            label=[mx.nd.array(rng.randint(0, 3, data_shape[0]))]) for _ in range(count)]


def _module(monkeypatch, mode, symbol, data_shape, grad_req="write"):
    monkeypatch.setenv("MXTORCH_COMPILE", mode)
    mod = mx.mod.Module(symbol)
    mod.bind(data_shapes=[("data", data_shape)], label_shapes=[("softmax_label", (data_shape[0],))],
             grad_req=grad_req)
    args, aux = _params(symbol, data_shape)
    mod.init_params(arg_params=args, aux_params=aux)
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    return mod


def _train(mod, batches, seed=7, between=None):
    """Per batch: outputs and gradients; at the end the parameters and aux states."""
    mx.random.seed(seed)
    record = []
    for position, batch in enumerate(batches):
        mod.forward(batch, is_train=True)
        mod.backward()
        outputs = [o.asnumpy() for o in mod.get_outputs()]
        grads = {n: g.asnumpy() for n, g in mod._exec_group.execs[0].grad_dict.items()}
        mod.update()
        record.append((outputs, grads))
        if between is not None:
            between(mod, position)
    args, aux = mod.get_params()
    return record, {n: v.asnumpy() for n, v in args.items()}, {n: v.asnumpy() for n, v in aux.items()}


def _assert_same(eager, traced):
    (steps_e, args_e, aux_e), (steps_t, args_t, aux_t) = eager, traced
    for (outs_e, grads_e), (outs_t, grads_t) in zip(steps_e, steps_t):
        for a, b in zip(outs_e, outs_t):
            np.testing.assert_allclose(b, a, **TOL)
        assert sorted(grads_e) == sorted(grads_t)
        for name in grads_e:
            np.testing.assert_allclose(grads_t[name], grads_e[name], **TOL, err_msg=name)
    for name in args_e:
        np.testing.assert_allclose(args_t[name], args_e[name], **TOL, err_msg=name)
    for name in aux_e:
        np.testing.assert_allclose(aux_t[name], aux_e[name], **TOL, err_msg=name)


def _uses_graph(mod):
    step = mod._exec_group.execs[0]._training_step
    return step.active and bool(step._graphs)


@pytest.mark.parametrize("grad_req", ["write", "add"])
def test_mlp_training_matches_eager(monkeypatch, grad_req):
    shape = (4, 5)
    batches = _batches(shape, 4)
    eager = _train(_module(monkeypatch, "0", _mlp(), shape, grad_req), batches)
    mod = _module(monkeypatch, "1", _mlp(), shape, grad_req)
    traced = _train(mod, batches)
    assert _uses_graph(mod)
    _assert_same(eager, traced)


def test_batchnorm_and_dropout_match_eager(monkeypatch):
    """BatchNorm's moving statistics are updated by the graph as by the eager operator;
    Dropout draws the same masks from the same seed (the random operators are in the graph)."""
    shape = (3, 2, 4, 4)
    batches = _batches(shape, 3)
    eager = _train(_module(monkeypatch, "0", _bn_dropout(), shape), batches)
    mod = _module(monkeypatch, "1", _bn_dropout(), shape)
    traced = _train(mod, batches)
    assert _uses_graph(mod)
    _assert_same(eager, traced)
    # the moving statistics did move
    assert not np.allclose(traced[2]["bn1_moving_mean"], _params(_bn_dropout(), shape)[1]["bn1_moving_mean"].asnumpy())


def test_dropout_draws_fresh_masks_each_batch(monkeypatch):
    shape = (3, 2, 4, 4)
    mod = _module(monkeypatch, "1", _bn_dropout(), shape)
    batch = _batches(shape, 1)[0]
    mod.forward(batch, is_train=True)
    first = mod.get_outputs()[0].asnumpy()
    mod.forward(batch, is_train=True)
    assert _uses_graph(mod)
    assert not np.allclose(mod.get_outputs()[0].asnumpy(), first)


def test_set_params_and_inference_forwards_between_steps(monkeypatch):
    """``set_params`` between steps, and ``forward(is_train=False)`` (eager, moving statistics)
    between training steps, give the eager numbers."""
    shape = (3, 2, 4, 4)
    batches = _batches(shape, 3)
    new_args, new_aux = _params(_bn_dropout(), shape, seed=5)
    seen = {}

    def between(mod, position):
        if position == 0:
            mod.set_params(new_args, new_aux)
        mod.forward(batches[0], is_train=False)
        seen.setdefault(id(mod), []).append(mod.get_outputs()[0].asnumpy())

    eager_mod = _module(monkeypatch, "0", _bn_dropout(), shape)
    eager = _train(eager_mod, batches, between=between)
    mod = _module(monkeypatch, "1", _bn_dropout(), shape)
    traced = _train(mod, batches, between=between)
    assert _uses_graph(mod)
    _assert_same(eager, traced)
    for a, b in zip(seen[id(eager_mod)], seen[id(mod)]):
        np.testing.assert_allclose(b, a, **TOL)


def test_reshape_traces_the_new_shapes(monkeypatch):
    """A batch of another size re-binds (Module.reshape); the new executor gets its own graph."""
    batches = _batches((4, 5), 2) + _batches((2, 5), 2, seed=3) + _batches((4, 5), 1, seed=4)
    eager = _train(_module(monkeypatch, "0", _mlp(), (4, 5)), batches)
    mod = _module(monkeypatch, "1", _mlp(), (4, 5))
    traced = _train(mod, batches)
    assert _uses_graph(mod)
    _assert_same(eager, traced)


def test_auto_traces_small_bindings_after_some_batches(monkeypatch):
    monkeypatch.setattr(compiled, "AUTO_AFTER_BATCHES", 3)
    mod = _module(monkeypatch, "auto", _mlp(), (4, 5))
    batch = _batches((4, 5), 1)[0]
    for _ in range(2):
        mod.forward_backward(batch)
    assert not _uses_graph(mod)
    mod.forward_backward(batch)
    assert _uses_graph(mod)
    monkeypatch.setattr(compiled, "AUTO_MAX_ELEMENTS", 10)
    large = _module(monkeypatch, "auto", _mlp(), (4, 5))
    for _ in range(4):
        large.forward_backward(batch)
    assert not _uses_graph(large)


def test_first_compiled_batch_logs_once(monkeypatch, caplog):
    monkeypatch.setattr(compiled, "_LOGGED", set())
    with caplog.at_level(logging.INFO, logger="mxtorch"):
        for _ in range(2):
            mod = _module(monkeypatch, "1", _mlp(), (4, 5))
            for batch in _batches((4, 5), 2):
                mod.forward_backward(batch)
    assert sum("compiling the training step" in r.getMessage() for r in caplog.records) == 1


def test_non_loss_output_with_gradient_runs_eagerly(monkeypatch, caplog):
    """An output that is not a loss head needs its head gradient from backward(out_grads):
    the executor runs eagerly, says so once, and uses the given head gradient."""
    monkeypatch.setattr(compiled, "_LOGGED", set())
    monkeypatch.setenv("MXTORCH_COMPILE", "1")
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2, name="fc")
    executor = net.simple_bind(mx.cpu(), data=(3, 4))
    weight = np.arange(8, dtype=np.float32).reshape(2, 4) / 10
    executor.arg_dict["fc_weight"][:] = weight
    data = np.ones((3, 4), dtype=np.float32)
    head = np.array([[1, 2], [3, 4], [5, 6]], dtype=np.float32)
    with caplog.at_level(logging.INFO, logger="mxtorch"):
        executor.forward(is_train=True, data=data)
        executor.backward(mx.nd.array(head))
    assert not executor._training_step.active
    assert any("not loss heads" in r.getMessage() for r in caplog.records)
    np.testing.assert_allclose(executor.grad_dict["fc_weight"].asnumpy(), head.T @ data, rtol=1e-6)
    np.testing.assert_allclose(executor.outputs[0].asnumpy(), data @ weight.T, rtol=1e-6)


class _Scale(mx.operator.CustomOp):
    """2 * x computed in numpy (a host computation the tracer cannot record)."""

    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], mx.nd.array(in_data[0].asnumpy() * 2))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], mx.nd.array(out_grad[0].asnumpy() * 2))


@mx.operator.register("perf17_scale")
class _ScaleProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def list_arguments(self):
        return ["data"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return _Scale()


def test_python_custom_operator_falls_back_to_eager(monkeypatch, caplog):
    monkeypatch.setattr(compiled, "_LOGGED", set())
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=3, name="fc1")
    net = mx.sym.Custom(net, op_type="perf17_scale")
    symbol = mx.sym.SoftmaxOutput(net, name="softmax")
    batches = _batches((4, 5), 3)
    eager = _train(_module(monkeypatch, "0", symbol, (4, 5)), batches)
    with caplog.at_level(logging.INFO, logger="mxtorch"):
        mod = _module(monkeypatch, "1", symbol, (4, 5))
        traced = _train(mod, batches)
    assert not mod._exec_group.execs[0]._training_step.active
    assert sum("tracing failed" in r.getMessage() for r in caplog.records) == 1
    _assert_same(eager, traced)


def test_auto_fallback_is_not_a_warning(monkeypatch, caplog):
    """Under MXTORCH_COMPILE=auto the trace is mxtorch's own bet: a graph that cannot be traced
    (a Python CustomOp reads values on the host) falls back with an INFO line, not a warning;
    under MXTORCH_COMPILE=1 (asked for) the same fallback is a warning.  Numbers stay eager."""
    monkeypatch.setattr(compiled, "AUTO_AFTER_BATCHES", 2)
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=3, name="fc1")
    symbol = mx.sym.SoftmaxOutput(mx.sym.Custom(net, op_type="perf17_scale"), name="softmax")
    batches = _batches((4, 5), 3)
    eager = _train(_module(monkeypatch, "0", symbol, (4, 5)), batches)
    for mode, level in (("auto", logging.INFO), ("1", logging.WARNING)):
        monkeypatch.setattr(compiled, "_LOGGED", set())
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="mxtorch"):
            mod = _module(monkeypatch, mode, symbol, (4, 5))
            got = _train(mod, batches)
        records = [r for r in caplog.records if "tracing failed" in r.getMessage()]
        assert [r.levelno for r in records] == [level]
        assert not mod._exec_group.execs[0]._training_step.active
        _assert_same(eager, got)


def test_head_gradient_shape_still_checked(monkeypatch):
    """A head gradient of the wrong shape given to a compiled step is reported as by the eager
    backward."""
    mod = _module(monkeypatch, "1", _mlp(), (4, 5))
    executor = mod._exec_group.execs[0]
    batch = _batches((4, 5), 1)[0]
    mod.forward(batch, is_train=True)
    assert _uses_graph(mod)
    with pytest.raises(mx.base.MXNetError, match="head gradient 0 has shape"):
        executor.backward([mx.nd.ones((2, 2))])


def test_fused_lstm_that_does_not_trace_runs_eagerly(monkeypatch, caplog):
    """The fused recurrent step (executor/fusion.py) records a oneDNN RNN kernel whose traced
    backward does not run: the graph is tried on copies when it is built, the executor runs
    eagerly (one log line) and the numbers are the eager ones."""
    monkeypatch.setattr(compiled, "_LOGGED", set())

    def lstm():
        cell = mx.rnn.LSTMCell(6, prefix="l_")
        steps = mx.sym.SliceChannel(mx.sym.Variable("data"), num_outputs=3, axis=1, squeeze_axis=True)
        outputs, _ = cell.unroll(3, inputs=[steps[i] for i in range(3)], merge_outputs=False)
        return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(outputs[-1], num_hidden=3, name="fc"), name="softmax")

    shape = (2, 3, 4)
    batches = _batches(shape, 2)
    eager = _train(_module(monkeypatch, "0", lstm(), shape), batches)
    with caplog.at_level(logging.INFO, logger="mxtorch"):
        mod = _module(monkeypatch, "1", lstm(), shape)
        traced = _train(mod, batches)
    if not _uses_graph(mod):
        assert any("compiled training step is not used" in r.getMessage() for r in caplog.records)
    _assert_same(eager, traced)


def _executor_run(monkeypatch, mode, symbol, shapes, steps=2):
    """simple_bind with every argument's gradient ('write'), fixed values; per step the outputs
    and the gradients (the executor is run as Module.fit would, without an optimizer)."""
    monkeypatch.setenv("MXTORCH_COMPILE", mode)
    executor = symbol.simple_bind(mx.cpu(), **shapes)
    rng = np.random.RandomState(3)
    for name, array in executor.arg_dict.items():
        array[:] = rng.uniform(0, 2, array.shape) if "label" in name else rng.normal(0, 1, array.shape)
    record = []
    for _ in range(steps):
        executor.forward(is_train=True)
        executor.backward()
        record.append(([o.asnumpy() for o in executor.outputs],
                       {n: g.asnumpy() for n, g in executor.grad_dict.items()}))
    return executor, record


@pytest.mark.parametrize("head", ["regression", "makeloss", "blockgrad_output"])
def test_other_loss_heads_and_data_gradients(monkeypatch, head):
    """LinearRegressionOutput and MakeLoss heads, with gradients of the data and label arguments
    too, are traced; a second output behind BlockGrad (which declares a zero gradient, so it is
    an output carrying a gradient that is not a loss head) makes the executor run eagerly."""
    data = mx.sym.Variable("data")
    hidden = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    if head == "regression":
        symbol = mx.sym.LinearRegressionOutput(hidden, name="lro")
        shapes = {"data": (4, 5), "lro_label": (4, 3)}
    elif head == "makeloss":
        symbol = mx.sym.MakeLoss(mx.sym.sum(mx.sym.square(hidden)), normalization="batch")
        shapes = {"data": (4, 5)}
    else:
        symbol = mx.sym.Group([mx.sym.SoftmaxOutput(hidden, name="softmax"), mx.sym.BlockGrad(hidden * 2)])
        shapes = {"data": (4, 5), "softmax_label": (4,)}
    _, eager = _executor_run(monkeypatch, "0", symbol, shapes)
    executor, traced = _executor_run(monkeypatch, "1", symbol, shapes)
    assert executor._training_step.active == (head != "blockgrad_output")
    for (outs_e, grads_e), (outs_t, grads_t) in zip(eager, traced):
        for a, b in zip(outs_e, outs_t):
            np.testing.assert_allclose(b, a, **TOL)
        assert sorted(grads_e) == sorted(grads_t)
        for name in grads_e:
            np.testing.assert_allclose(grads_t[name], grads_e[name], **TOL, err_msg=name)
