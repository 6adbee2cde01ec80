"""Write tests/data/head_gradients/cases.json with MXNet 1.9.1: which ``Executor.backward`` calls
with fewer head gradients than outputs train and which raise, and the gradients of those that
train; a two-device Module on ``Group([Embedding, BlockGrad(label)])`` given one head
gradient, and a model-parallel one (``group2ctxs``).

Each case holds the symbol's JSON, the argument values, grad_req, the head gradients given
(matched by MXNet to the outputs by position) and either the gradients or ``"error": true``.

Run with the reference interpreter: /root/mxref/bin/python tools/gen_head_gradients.py
"""
import json
import os

import mxnet as mx
import numpy as np

SHAPES = {"data": (2, 4), "label": (2, 3), "softmax_label": (2,)}


def _graphs():
    """``[(name, symbol, grad_req or None, head gradient shapes)]``."""
    data, label, weight = mx.sym.var("data"), mx.sym.var("label"), mx.sym.var("w")
    fc = mx.sym.FullyConnected(data, weight=weight, no_bias=True, num_hidden=3, name="fc")
    fc2 = mx.sym.FullyConnected(data, num_hidden=3, name="fc2")
    softmax = mx.sym.SoftmaxOutput(fc, name="softmax")
    make_loss = mx.sym.MakeLoss(mx.sym.sum(fc * fc), name="make_loss")
    no_label_grad = {"data": "write", "w": "write", "label": "null"}
    only_w = {"data": "null", "w": "write", "fc2_weight": "null", "fc2_bias": "null"}
    return [
        ("fc_then_blockgrad_label", mx.sym.Group([fc, mx.sym.BlockGrad(label)]), None, [(2, 3)]),
        ("fc_then_blockgrad_fc", mx.sym.Group([fc, mx.sym.BlockGrad(fc)]), None, [(2, 3)]),
        ("fc_then_stop_gradient", mx.sym.Group([fc, mx.sym.stop_gradient(fc2)]), None, [(2, 3)]),
        ("blockgrad_label_then_fc_one", mx.sym.Group([mx.sym.BlockGrad(label), fc]), None, [(2, 3)]),
        ("blockgrad_label_then_fc_two", mx.sym.Group([mx.sym.BlockGrad(label), fc]), None, [(2, 3), (2, 3)]),
        ("blockgrad_wrong_shape_ignored", mx.sym.Group([mx.sym.BlockGrad(label), fc]), None, [(7,), (2, 3)]),
        ("fc_then_label_reaching", mx.sym.Group([fc, label * 2]), None, [(2, 3)]),
        ("fc_then_label_null", mx.sym.Group([fc, label * 2]), no_label_grad, [(2, 3)]),
        ("label_null_then_fc", mx.sym.Group([label * 2, fc]), no_label_grad, [(2, 3)]),
        ("fc_then_fc2_null_params", mx.sym.Group([fc, fc2]), only_w, [(2, 3)]),
        ("fc2_null_params_then_fc", mx.sym.Group([fc2, fc]), only_w, [(2, 3)]),
        ("fc_then_fc2", mx.sym.Group([fc, fc2]), None, [(2, 3)]),
        ("fc2_then_softmax", mx.sym.Group([fc2, softmax]), None, [(2, 3)]),
        ("softmax_then_fc2", mx.sym.Group([softmax, fc2]), None, [(2, 3)]),
        ("fc2_then_scaled_softmax", mx.sym.Group([fc2, softmax * 2]), None, [(2, 3)]),
        ("fc2_then_make_loss", mx.sym.Group([fc2, make_loss]), None, [(2, 3)]),
        ("make_loss_then_fc2", mx.sym.Group([make_loss, fc2]), None, [(2, 3)]),
        ("fc_empty_list", fc, None, []),
    ]


def _executor_cases():
    rng = np.random.RandomState(0)
    cases = []
    for name, symbol, grad_req, head_shapes in _graphs():
        arg_shapes, _, _ = symbol.infer_shape(**{k: v for k, v in SHAPES.items() if k in symbol.list_arguments()})
        args = {n: rng.uniform(-1, 1, s).astype(np.float32) for n, s in zip(symbol.list_arguments(), arg_shapes)}
        if "softmax_label" in args:
            args["softmax_label"] = np.array([0, 2], dtype=np.float32)
        heads = [rng.uniform(-1, 1, s).astype(np.float32) for s in head_shapes]
        executor = symbol.simple_bind(mx.cpu(), grad_req=grad_req or "write",
                                      **{n: a.shape for n, a in args.items()})
        for n, a in args.items():
            executor.arg_dict[n][:] = a
        executor.forward(is_train=True)
        case = {"name": name, "symbol": symbol.tojson(), "grad_req": grad_req,
                "args": {n: a.tolist() for n, a in args.items()}, "heads": [h.tolist() for h in heads]}
        try:
            executor.backward(out_grads=[mx.nd.array(h) for h in heads])
            case["gradients"] = {n: g.asnumpy().tolist() for n, g in executor.grad_dict.items() if g is not None}
        except mx.base.MXNetError:
            case["error"] = True
        cases.append(case)
    return cases


def _module_case():
    """Two CPU contexts; the Module's outputs are the embedding and the (blocked) label; one head
    gradient; SGD (learning rate 1) so the updated weight shows the summed gradient."""
    data, label = mx.sym.var("data"), mx.sym.var("label")
    embedding = mx.sym.Embedding(data, input_dim=5, output_dim=3, name="embed")
    symbol = mx.sym.Group([embedding, mx.sym.BlockGrad(label)])
    rng = np.random.RandomState(1)
    weight = rng.uniform(-1, 1, (5, 3)).astype(np.float32)
    indices = np.array([[0, 1], [4, 4], [2, 0], [3, 1]], dtype=np.float32)
    labels = rng.uniform(-1, 1, (4, 2)).astype(np.float32)
    head = rng.uniform(-1, 1, (4, 2, 3)).astype(np.float32)
    module = mx.mod.Module(symbol, data_names=["data"], label_names=["label"], context=[mx.cpu(0), mx.cpu(1)])
    module.bind(data_shapes=[("data", indices.shape)], label_shapes=[("label", labels.shape)])
    module.init_params(arg_params={"embed_weight": mx.nd.array(weight)})
    module.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 1.0})
    module.forward(mx.io.DataBatch([mx.nd.array(indices)], [mx.nd.array(labels)]), is_train=True)
    outputs = [o.asnumpy() for o in module.get_outputs()]
    module.backward(out_grads=[mx.nd.array(head)])
    module.update()
    updated = module.get_params()[0]["embed_weight"].asnumpy()
    return {"symbol": symbol.tojson(), "weight": weight.tolist(), "indices": indices.tolist(),
            "labels": labels.tolist(), "head": head.tolist(), "outputs": [o.tolist() for o in outputs],
            "updated_weight": updated.tolist()}


def _model_parallel_case():
    """``group2ctxs``: the embedding on one context, a FullyConnected on another, the blocked
    label as the second output; one head gradient; SGD (learning rate 1)."""
    with mx.AttrScope(ctx_group="dev1"):
        embedding = mx.sym.Embedding(mx.sym.var("data"), input_dim=5, output_dim=3, name="embed")
    with mx.AttrScope(ctx_group="dev2"):
        fc = mx.sym.FullyConnected(embedding, num_hidden=2, flatten=False, name="fc")
    symbol = mx.sym.Group([fc, mx.sym.BlockGrad(mx.sym.var("label"))])
    rng = np.random.RandomState(2)
    module = mx.mod.Module(symbol, data_names=["data"], label_names=["label"], context=mx.cpu(),
                           group2ctxs={"dev1": mx.cpu(1), "dev2": mx.cpu(2)})
    module.bind(data_shapes=[("data", (2, 4))], label_shapes=[("label", (2, 4))])
    shapes = dict(zip(symbol.list_arguments(), symbol.infer_shape(data=(2, 4), label=(2, 4))[0]))
    params = {name: rng.uniform(-1, 1, shapes[name]).astype(np.float32)
              for name in ("embed_weight", "fc_weight", "fc_bias")}
    indices = np.array([[0, 1, 2, 3], [4, 4, 1, 0]], dtype=np.float32)
    head = rng.uniform(-1, 1, (2, 4, 2)).astype(np.float32)
    module.init_params(arg_params={k: mx.nd.array(v) for k, v in params.items()})
    module.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 1.0})
    module.forward(mx.io.DataBatch([mx.nd.array(indices)], [mx.nd.ones((2, 4))]), is_train=True)
    module.backward(out_grads=[mx.nd.array(head)])
    module.update()
    return {"symbol": symbol.tojson(), "params": {k: v.tolist() for k, v in params.items()},
            "indices": indices.tolist(), "head": head.tolist(),
            "updated": {k: v.asnumpy().tolist() for k, v in module.get_params()[0].items()}}


def main():
    result = {"mxnet": mx.__version__, "executor": _executor_cases(), "module": _module_case(),
              "model_parallel": _model_parallel_case()}
    target = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "head_gradients", "cases.json")
    with open(target, "w") as handle:
        json.dump(result, handle)
    print(target, [(c["name"], "error" if c.get("error") else "ok") for c in result["executor"]])


if __name__ == "__main__":
    main()
