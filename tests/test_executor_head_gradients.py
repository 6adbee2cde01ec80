"""``Executor.backward`` / ``Module.backward`` given fewer head gradients than outputs, against
MXNet 1.9.1 (tests/data/head_gradients/cases.json, written by tools/gen_head_gradients.py).

MXNet matched head gradient ``i`` to output ``i``; outputs past the end of the list train when
they need no head gradient (loss heads, BlockGrad, outputs from which no gradient reaches an
argument whose grad_req is not 'null', or reaches one only through a loss head), and the call
fails when one past the end needs one.
"""
import json
import os

import numpy as np
import pytest

import mxtorch as mx

DATA = os.path.join(os.path.dirname(__file__), "data", "head_gradients", "cases.json")

with open(DATA) as _handle:
    REFERENCE = json.load(_handle)


def _bound(case):
    symbol = mx.sym.load_json(case["symbol"])
    args = {name: np.array(value, dtype=np.float32) for name, value in case["args"].items()}
    executor = symbol.simple_bind(mx.cpu(), grad_req=case["grad_req"] or "write",
                                  **{name: value.shape for name, value in args.items()})
    for name, value in args.items():
        executor.arg_dict[name][:] = value
    return executor


@pytest.mark.parametrize("case", REFERENCE["executor"], ids=[c["name"] for c in REFERENCE["executor"]])
def test_executor_backward_matches_mxnet(case):
    executor = _bound(case)
    executor.forward(is_train=True)
    heads = [mx.nd.array(np.array(h, dtype=np.float32)) for h in case["heads"]]
    if case.get("error"):
        with pytest.raises(mx.base.MXNetError, match="needs one"):
            executor.backward(out_grads=heads)
        return
    executor.backward(out_grads=heads)
    got = {name: grad.asnumpy() for name, grad in executor.grad_dict.items() if grad is not None}
    assert sorted(got) == sorted(case["gradients"])
    for name, expected in case["gradients"].items():
        np.testing.assert_allclose(got[name], np.array(expected), rtol=1e-5, atol=1e-6, err_msg=name)


def test_error_names_the_output_that_needs_one():
    case = next(c for c in REFERENCE["executor"] if c["name"] == "softmax_then_fc2")
    executor = _bound(case)
    executor.forward(is_train=True)
    with pytest.raises(mx.base.MXNetError, match=r"1 head gradients for 2 outputs, and output 1 \('fc2_output'\)"):
        executor.backward(out_grads=[mx.nd.ones((2, 3))])


def test_module_two_devices_one_head_gradient():
    """A Module on ``Group([Embedding, BlockGrad(label)])`` over two contexts: one head gradient,
    sliced along the batch, trains the embedding as in MXNet."""
    ref = REFERENCE["module"]
    module = mx.mod.Module(mx.sym.load_json(ref["symbol"]), data_names=["data"], label_names=["label"],
                           context=[mx.cpu(0), mx.cpu(1)])
    indices, labels = np.array(ref["indices"], np.float32), np.array(ref["labels"], np.float32)
    module.bind(data_shapes=[("data", indices.shape)], label_shapes=[("label", labels.shape)])
    module.init_params(arg_params={"embed_weight": mx.nd.array(np.array(ref["weight"], np.float32))})
    module.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 1.0})
    module.forward(mx.io.DataBatch([mx.nd.array(indices)], [mx.nd.array(labels)]), is_train=True)
    for got, expected in zip(module.get_outputs(), ref["outputs"]):
        np.testing.assert_allclose(got.asnumpy(), np.array(expected), rtol=1e-6)
    module.backward(out_grads=[mx.nd.array(np.array(ref["head"], np.float32))])
    module.update()
    np.testing.assert_allclose(module.get_params()[0]["embed_weight"].asnumpy(), np.array(ref["updated_weight"]),
                               rtol=1e-5, atol=1e-6)


def test_simple_bind_ignores_shapes_of_names_not_in_the_symbol():
    """MXNet 1.9.1 bound ``fc.simple_bind(data=..., label=...)`` on a symbol without ``label``
    (the label shape of a symbol whose loss head was taken off); mxtorch warns and binds."""
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    with pytest.warns(UserWarning, match=r"\['label'\] are not inputs of the symbol"):
        executor = fc.simple_bind(mx.cpu(), data=(2, 4), label=(2, 3))
    assert sorted(executor.arg_dict) == ["data", "fc_bias", "fc_weight"]
    assert executor.arg_dict["fc_weight"].shape == (3, 4)


def test_head_gradients_by_output_name():
    """A dict of head gradients is read in the order of ``list_outputs`` (MXNet 1.9.1: every
    output named, KeyError otherwise; an entry for a BlockGrad output is not looked at)."""
    case = next(c for c in REFERENCE["executor"] if c["name"] == "fc_then_blockgrad_label")
    executor = _bound(case)
    names = executor._symbol.list_outputs()
    executor.forward(is_train=True)
    executor.backward({names[1]: mx.nd.ones((9,)), names[0]: mx.nd.array(np.array(case["heads"][0], np.float32))})
    for name, expected in case["gradients"].items():
        np.testing.assert_allclose(executor.grad_dict[name].asnumpy(), np.array(expected), rtol=1e-5, atol=1e-6)
    executor.forward(is_train=True)
    with pytest.raises(KeyError):
        executor.backward({names[0]: mx.nd.ones((2, 3))})


def test_model_parallel_module_one_head_gradient():
    """``group2ctxs``: embedding and FullyConnected on two contexts, outputs ``[fc, BlockGrad(label)]``,
    one head gradient: the SGD step gives MXNet's parameters."""
    ref = REFERENCE["model_parallel"]
    module = mx.mod.Module(mx.sym.load_json(ref["symbol"]), data_names=["data"], label_names=["label"],
                           context=mx.cpu(), group2ctxs={"dev1": mx.cpu(1), "dev2": mx.cpu(2)})
    module.bind(data_shapes=[("data", (2, 4))], label_shapes=[("label", (2, 4))])
    module.init_params(arg_params={k: mx.nd.array(np.array(v, np.float32)) for k, v in ref["params"].items()})
    module.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 1.0})
    module.forward(mx.io.DataBatch([mx.nd.array(np.array(ref["indices"], np.float32))], [mx.nd.ones((2, 4))]),
                   is_train=True)
    module.backward(out_grads=[mx.nd.array(np.array(ref["head"], np.float32))])
    module.update()
    got = module.get_params()[0]
    assert sorted(got) == sorted(ref["updated"])
    for name, expected in ref["updated"].items():
        np.testing.assert_allclose(got[name].asnumpy(), np.array(expected), rtol=1e-5, atol=1e-6, err_msg=name)


def test_non_differentiable_operator_refuses_a_gradient_bind():
    # MXNet 1.9.1 registers no gradient for batch_take: a bind that needs one through it raises
    # (its test_symbol.test_zero_prop2); behind BlockGrad or with grad_req='null' it binds
    x, idx = mx.sym.Variable("x"), mx.sym.Variable("idx")
    taken = mx.sym.batch_take(x, idx)
    types = {"x": np.float32, "idx": np.int32}
    exe = mx.sym.stop_gradient(taken).simple_bind(mx.cpu(), x=(4, 3), idx=(4,), type_dict=types)
    exe.forward()
    exe.backward()
    with pytest.raises(mx.MXNetError, match="batch_take .* is non-differentiable"):
        taken.simple_bind(mx.cpu(), x=(4, 3), idx=(4,), type_dict=types)
    exe = taken.simple_bind(mx.cpu(), x=(4, 3), idx=(4,), type_dict=types, grad_req="null")
    exe.arg_dict["x"][:] = np.arange(12).reshape(4, 3)
    exe.arg_dict["idx"][:] = np.array([0, 2, 1, 5])
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), [0, 5, 7, 11])
