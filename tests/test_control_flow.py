"""Control flow (mx.sym.contrib / mx.nd.contrib foreach, while_loop, cond): graphs, JSON, values
and gradients compared with MXNet 1.9.1 (tools/gen_control_flow.py -> tests/data/control_flow/)."""
import json
import os

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError

DATA = os.path.join(os.path.dirname(__file__), "data", "control_flow")


def _load(name):
    with open(os.path.join(DATA, name + ".json")) as fh:
        return json.load(fh)


def _graphs():
    # fresh name counters, the graphs built in the generator's order, so the names match MXNet's
    from collections import defaultdict
    mx.attribute.AttrScope._subgraph_names = defaultdict(int)
    with mx.name.NameManager():
        return _build_graphs()


def _build_graphs():
    x, s, w = mx.sym.var("x"), mx.sym.var("s"), mx.sym.var("w")
    out, states = mx.sym.contrib.foreach(lambda d, st: (d * w + st[0], [st[0] + d]), x, [s])
    i, acc = mx.sym.var("i"), mx.sym.var("acc")
    outs, finals = mx.sym.contrib.while_loop(
        cond=lambda i, acc: i < 3, func=lambda i, acc: (acc * w, [i + 1, acc + w]),
        loop_vars=[i, acc], max_iterations=5)
    a, b = mx.sym.var("a"), mx.sym.var("b")
    chosen = mx.sym.contrib.cond(a.sum() < 1, lambda: a * b, lambda: a - b)
    return {"foreach": mx.sym.Group([out] + states), "while_loop": mx.sym.Group([outs[0]] + finals),
            "cond": chosen}


def _run(symbol, ref):
    args = {n: mx.nd.array(v) for n, v in ref["inputs"].items()}
    grads = {n: mx.nd.zeros(v.shape) for n, v in args.items() if n != "i"}
    exe = symbol.bind(mx.cpu(), args, args_grad=grads)
    outputs = [o.asnumpy() for o in exe.forward(is_train=True)]
    exe.backward([mx.nd.array(h) for h in ref["head_grads"]])
    return outputs, {n: g.asnumpy() for n, g in grads.items()}


def _check(outputs, grads, ref, rows=None):
    for position, (value, expected) in enumerate(zip(outputs, ref["outputs"])):
        expected = np.array(expected, np.float32)
        if position == 0 and rows is not None:   # while_loop: rows past the last step are padding
            value, expected = value[:rows], expected[:rows]
        np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-6)
    for name, expected in ref["grads"].items():
        np.testing.assert_allclose(grads[name], np.array(expected), rtol=1e-5, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("name", ["foreach", "while_loop", "cond"])
def test_graph_json_is_mxnets_and_values_match(name):
    ref = _load(name)
    symbol = _graphs()[name]
    assert json.loads(symbol.tojson()) == json.loads(ref["json"])
    outputs, grads = _run(symbol, ref)
    _check(outputs, grads, ref, rows=3 if name == "while_loop" else None)


@pytest.mark.parametrize("name", ["foreach", "while_loop", "cond"])
def test_graph_read_from_mxnet_json_runs(name):
    ref = _load(name)
    symbol = mx.sym.load_json(ref["json"])
    assert symbol.tojson() == mx.sym.load_json(symbol.tojson()).tojson()
    outputs, grads = _run(symbol, ref)
    _check(outputs, grads, ref, rows=3 if name == "while_loop" else None)
    if name == "while_loop":
        np.testing.assert_array_equal(outputs[0][3:], 0)   # the padding rows are zeros


def test_foreach_infers_shapes_through_the_body():
    x, s, w = mx.sym.var("x"), mx.sym.var("s"), mx.sym.var("w")
    out, states = mx.sym.contrib.foreach(lambda d, st: (mx.sym.FullyConnected(d, w, num_hidden=5, no_bias=True)
                                                        + st, st * 2), x, s)
    group = mx.sym.Group([out, states])
    arg_shapes, out_shapes, _ = group.infer_shape(x=(7, 2, 3), s=(2, 5))
    # the weight's shape comes from the body (num_hidden x input width)
    assert dict(zip(group.list_arguments(), arg_shapes)) == {"x": (7, 2, 3), "w": (5, 3), "s": (2, 5)}
    assert out_shapes == [(7, 2, 5), (2, 5)]


def test_imperative_forms_record_every_step():
    ref = _load("imperative")
    inputs = _load("foreach")["inputs"]
    x, s, w = (mx.nd.array(inputs[n]) for n in ("x", "s", "w"))
    for v in (x, s, w):
        v.attach_grad()
    with mx.autograd.record():
        out, states = mx.nd.contrib.foreach(lambda d, st: (d * w + st[0], [st[0] + d]), x, [s])
        loss = (out * out).sum() + (states[0] * 3).sum()
    loss.backward()
    np.testing.assert_allclose(out.asnumpy(), ref["foreach"]["out"], rtol=1e-5)
    for name, array in (("x", x), ("s", s), ("w", w)):
        np.testing.assert_allclose(array.grad.asnumpy(), ref["foreach"]["grads"][name], rtol=1e-5, atol=1e-6)

    inputs = _load("while_loop")["inputs"]
    acc, w2 = mx.nd.array(inputs["acc"]), mx.nd.array(inputs["w"])
    acc.attach_grad()
    w2.attach_grad()
    with mx.autograd.record():
        outs, (i, final) = mx.nd.contrib.while_loop(
            cond=lambda i, acc: i < 3, func=lambda i, acc: (acc * w2, [i + 1, acc + w2]),
            loop_vars=[mx.nd.array([0]), acc], max_iterations=5)
        loss = (outs[:3] * 2).sum() + (final * final).sum()
    loss.backward()
    assert outs.shape == (5, 2) and i.asscalar() == 3
    np.testing.assert_array_equal(outs[3:].asnumpy(), 0)
    np.testing.assert_allclose(outs[:3].asnumpy(), ref["while_loop"]["outs"], rtol=1e-5)
    np.testing.assert_allclose(acc.grad.asnumpy(), ref["while_loop"]["grads"]["acc"], rtol=1e-5)
    np.testing.assert_allclose(w2.grad.asnumpy(), ref["while_loop"]["grads"]["w"], rtol=1e-5)

    a = mx.nd.array([1.0])
    assert mx.nd.contrib.cond(a * 2 < 5, lambda: a + 5, lambda: a - 5).asscalar() == 6


def test_bad_uses_raise_mxnet_errors():
    x, s = mx.sym.var("x"), mx.sym.var("s")
    with pytest.raises(AssertionError, match="state input 's-0' is not used"):
        mx.sym.contrib.foreach(lambda d, st: (d * 2, mx.sym.var("other")), x, s)
    with pytest.raises(MXNetError, match="max_iterations should be specified"):
        mx.sym.contrib.while_loop(lambda i: i < 3, lambda i: (None, i + 1), [x])
    with pytest.raises(MXNetError, match="cond must return a Symbol"):
        mx.sym.contrib.while_loop(lambda i: True, lambda i: (None, i + 1), [x], max_iterations=3)
    with pytest.raises(MXNetError, match="must be a Symbol or a"):
        mx.sym.contrib.foreach(lambda d, st: (d, st), [x, 3], s)
    with pytest.raises(MXNetError, match="max_iterations should be specified"):
        mx.nd.contrib.while_loop(lambda i: i < 3, lambda i: (None, i + 1), [mx.nd.ones(1)])


def test_foreach_over_one_dimensional_data_steps_through_shape_1_slices():
    # MXNet 1.9.1 (printed by ~/mxref): a 1-D data input gives steps of shape (1,), so the
    # stacked output is (3, 1); values and gradients
    def step(data, states):
        return [data[0] * states[0]], [states[0] * 2]
    out, states = mx.sym.contrib.foreach(step, [mx.sym.var("v3")], [mx.sym.var("v4")])
    group = mx.sym.Group(out + states)
    assert group.infer_shape(v3=(3,), v4=(1,)) == ([(3,), (1,)], [(3, 1), (1,)], [])
    executor = group.bind(mx.cpu(), {"v3": mx.nd.array([1.0, 2, 3]), "v4": mx.nd.array([0.5])},
                          args_grad={"v3": mx.nd.zeros(3), "v4": mx.nd.zeros(1)})
    outputs = executor.forward(is_train=True)
    np.testing.assert_allclose(outputs[0].asnumpy(), [[0.5], [2.0], [6.0]])
    np.testing.assert_allclose(outputs[1].asnumpy(), [4.0])
    executor.backward([mx.nd.ones((3, 1)), mx.nd.ones(1)])
    np.testing.assert_allclose(executor.grad_arrays[0].asnumpy(), [0.5, 1.0, 2.0])
    np.testing.assert_allclose(executor.grad_arrays[1].asnumpy(), [25.0])
