"""A bind infers the graph's shapes and dtypes once: the binder's inference is the executor's plan."""
import numpy as np

import mxtorch as mx
from mxtorch.symbol import inference


def _count_inference(monkeypatch):
    calls = {"shapes": 0, "types": 0}
    shapes, types = inference.graph_shapes, inference.graph_types

    def counted_shapes(*args, **kwargs):
        calls["shapes"] += 1
        return shapes(*args, **kwargs)

    def counted_types(*args, **kwargs):
        calls["types"] += 1
        return types(*args, **kwargs)
    monkeypatch.setattr(inference, "graph_shapes", counted_shapes)
    monkeypatch.setattr(inference, "graph_types", counted_types)
    return calls


def _net():
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=4, name="fc")
    return mx.sym.SoftmaxOutput(mx.sym.Activation(net, act_type="relu"), name="softmax")


def test_simple_bind_infers_once(monkeypatch):
    calls = _count_inference(monkeypatch)
    executor = _net().simple_bind(mx.cpu(), data=(3, 5), type_dict={"data": "float32"})
    assert calls == {"shapes": 1, "types": 1}
    # without dtypes the inference completes them (float32) itself; the executor infers nothing
    _net().simple_bind(mx.cpu(), data=(3, 5))
    assert calls == {"shapes": 2, "types": 3}
    assert executor.arg_dict["fc_weight"].shape == (4, 5) and executor.outputs[0].shape == (3, 4)


def test_module_bind_and_reshape_infer_once_per_context(monkeypatch):
    module = mx.mod.Module(_net(), context=[mx.cpu(0), mx.cpu(1)])
    calls = _count_inference(monkeypatch)
    module.bind(data_shapes=[("data", (4, 5))], label_shapes=[("softmax_label", (4,))])
    assert calls == {"shapes": 2, "types": 2}
    module.init_params()
    module.reshape(data_shapes=[("data", (6, 5))], label_shapes=[("softmax_label", (6,))])
    assert calls == {"shapes": 4, "types": 4}
    x = np.random.RandomState(0).randn(6, 5).astype(np.float32)
    module.forward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.zeros(6)]), is_train=False)
    weight = module.get_params()[0]["fc_weight"].asnumpy()
    bias = module.get_params()[0]["fc_bias"].asnumpy()
    logits = np.maximum(x @ weight.T + bias, 0)
    expected = np.exp(logits - logits.max(axis=1, keepdims=True))
    np.testing.assert_allclose(module.get_outputs()[0].asnumpy(), expected / expected.sum(axis=1, keepdims=True),
                               rtol=1e-5)


def test_equal_nodes_are_computed_once_and_the_optimized_symbol_shows_it(monkeypatch):
    # MXNet 1.9.1 (MXNET_ELIMINATE_COMMON_EXPR=1, its default): (a+b)+(a+b) runs one a+b (get_internals
    # of the optimized symbol 4 against 5); Group([a*d+b, a*d+b]) saves one node net of the _copy it
    # adds; Dropout nodes are never merged
    a, b = mx.sym.Variable("a"), mx.sym.Variable("b")

    def internals(symbol, flag, **shapes):
        monkeypatch.setenv("MXNET_ELIMINATE_COMMON_EXPR", flag)
        exe = symbol.simple_bind(mx.cpu(), **shapes)
        return exe, len(exe.get_optimized_symbol().get_internals())
    total = (a + b) + (a + b)
    exe, merged = internals(total, "1", a=(2, 3), b=(2, 3))
    assert (merged, internals(total, "0", a=(2, 3), b=(2, 3))[1]) == (4, 5)
    out = exe.forward(is_train=True, a=mx.nd.ones((2, 3)), b=mx.nd.full((2, 3), 2.0))[0]
    np.testing.assert_array_equal(out.asnumpy(), np.full((2, 3), 6.0))
    exe.backward(mx.nd.ones((2, 3)))
    np.testing.assert_array_equal(exe.grad_dict["a"].asnumpy(), np.full((2, 3), 2.0))
    d = a + 1
    group = mx.sym.Group([a * d + b, a * d + b])
    exe, merged = internals(group, "1", a=(2,), b=(2,))
    assert (merged, internals(group, "0", a=(2,), b=(2,))[1]) == (6, 7)
    first, second = exe.forward(a=mx.nd.array([1, 2]), b=mx.nd.array([0, 1]))
    second[:] = 0                                   # the repeated output has its own memory
    np.testing.assert_array_equal(first.asnumpy(), [2, 7])
    dropout = mx.sym.Dropout(a) + mx.sym.Dropout(a)
    assert internals(dropout, "1", a=(2,))[1] == internals(dropout, "0", a=(2,))[1]
