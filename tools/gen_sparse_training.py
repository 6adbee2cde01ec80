"""Reference values for tests/test_sparse_training.py: sparse storage end to end in MXNet 1.9.1.

* ``module/<case>``: a Module (Embedding(sparse_grad=True) -> FullyConnected ->
  SoftmaxOutput) trained 3 steps with SGD (momentum, wd) or Adam, lazy_update True / False,
  on one context or two (kvstore 'local' or 'device', the update on the kvstore),
  on batches whose indices never touch rows 3, 4, 6 and 7 of the embedding: the weights after
  every step and the storage type of each gradient array.
* ``bind/<case>``: the storage types simple_bind gives the argument and gradient arrays
  (stype_dict, a variable's stype, Embedding / SparseEmbedding / dot / take) and the gradient
  values of one backward.
* ``linear/<case>``: a Module of dot(csr data, row_sparse weight) -> LinearRegressionOutput
  trained 3 steps on one or two contexts.
* ``gluon/<case>``: gluon ``nn.Embedding(sparse_grad=True)`` + Dense trained 3 steps with a
  Trainer (SGD momentum wd, Adam), hybridized or not, on one context or two (kvstore 'device'
  or 'local').

Run with ~/mxref/bin/python tools/gen_sparse_training.py; writes
tests/data/sparse_training/reference.json.
"""
import json
import os
import re

import numpy as np
import mxnet as mx

BATCHES = [
    ([[0, 1], [2, 5], [1, 1], [5, 0]], [0, 1, 1, 0]),
    ([[2, 2], [0, 5], [1, 2], [0, 0]], [1, 0, 1, 1]),
    ([[5, 1], [1, 0], [2, 0], [5, 5]], [0, 0, 1, 1]),
]
INPUT_DIM, OUTPUT_DIM = 8, 3

OPTIMIZERS = {
    "sgd_momentum_wd": ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.5}),
    "sgd_wd": ("sgd", {"learning_rate": 0.1, "wd": 0.5}),
    "adam_wd": ("adam", {"learning_rate": 0.05, "wd": 0.1}),
}


def initial_params():
    rng = np.random.RandomState(7)
    return {"emb_weight": rng.uniform(-1, 1, (INPUT_DIM, OUTPUT_DIM)).astype(np.float32),
            "fc_weight": rng.uniform(-1, 1, (2, 2 * OUTPUT_DIM)).astype(np.float32),
            "fc_bias": rng.uniform(-1, 1, (2,)).astype(np.float32)}


def network(sparse_grad=True):
    data = mx.sym.var("data")
    emb = mx.sym.Embedding(data, input_dim=INPUT_DIM, output_dim=OUTPUT_DIM, sparse_grad=sparse_grad, name="emb")
    fc = mx.sym.FullyConnected(mx.sym.flatten(emb), num_hidden=2, name="fc")
    return mx.sym.SoftmaxOutput(fc, name="softmax")


def module_case(optimizer, kwargs, lazy, contexts=1, kvstore="local"):
    params = initial_params()
    mod = mx.mod.Module(network(), data_names=["data"], label_names=["softmax_label"],
                        context=[mx.cpu(i) for i in range(contexts)])
    mod.bind(data_shapes=[("data", (4, 2))], label_shapes=[("softmax_label", (4,))])
    mod.init_params(arg_params={k: mx.nd.array(v) for k, v in params.items()})
    mod.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=dict(kwargs, lazy_update=lazy))
    steps = []
    for data, label in BATCHES:
        batch = mx.io.DataBatch([mx.nd.array(data)], [mx.nd.array(label)])
        mod.forward_backward(batch)
        mod.update()
        arg, _ = mod.get_params()
        steps.append({k: v.asnumpy().tolist() for k, v in arg.items()})
    grads = mod._exec_group.execs[0].grad_dict
    return {"optimizer": optimizer, "kwargs": dict(kwargs, lazy_update=lazy), "steps": steps,
            "contexts": contexts, "kvstore": kvstore, "update_on_kvstore": bool(mod._update_on_kvstore),
            "grad_stypes": {k: v.stype for k, v in grads.items() if v is not None},
            "arg_stypes": {k: v.stype for k, v in mod._exec_group.execs[0].arg_dict.items()}}


def linear_inputs():
    """Three csr batches (4 x 8, every value in columns 0, 1, 2 or 5), labels and the weight."""
    rng = np.random.RandomState(5)
    batches = []
    for _ in range(3):
        dense = np.zeros((4, 8), np.float32)
        for row in range(4):
            dense[row, rng.choice([0, 1, 2, 5], 2, replace=False)] = rng.uniform(0.5, 1.5, 2)
        batches.append(dense)
    labels = [rng.uniform(-1, 1, (4, 1)).astype(np.float32) for _ in range(3)]
    return batches, labels, rng.uniform(-1, 1, (8, 1)).astype(np.float32)


def linear_case(contexts, kvstore, optimizer, kwargs):
    """A linear regression on csr data with a row_sparse weight (MXNet's sparse linear model):
    dot(csr, w) gives w a row_sparse gradient; with a kvstore the weight's rows are pulled by
    ``prepare(sparse_row_id_fn)``."""
    batches, labels, w0 = linear_inputs()
    data = mx.sym.var("data", stype="csr")
    weight = mx.sym.var("w", stype="row_sparse", shape=(8, 1))
    out = mx.sym.LinearRegressionOutput(mx.sym.dot(data, weight), name="lro")
    mod = mx.mod.Module(out, data_names=["data"], label_names=["lro_label"],
                        context=[mx.cpu(i) for i in range(contexts)])
    mod.bind(data_shapes=[("data", (4, 8))], label_shapes=[("lro_label", (4, 1))])
    mod.init_params(arg_params={"w": mx.nd.array(w0).tostype("row_sparse")})
    mod.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=kwargs)
    steps = []
    for dense, label in zip(batches, labels):
        batch = mx.io.DataBatch([mx.nd.array(dense).tostype("csr")], [mx.nd.array(label)])
        if mod._update_on_kvstore:
            mod.prepare(batch, sparse_row_id_fn=lambda b: {"w": mx.nd.arange(0, 8)})
        mod.forward_backward(batch)
        mod.update()
        arg, _ = mod.get_params()
        steps.append(arg["w"].asnumpy().tolist())
    executor = mod._exec_group.execs[0]
    return {"contexts": contexts, "kvstore": kvstore, "optimizer": optimizer, "kwargs": kwargs,
            "update_on_kvstore": bool(mod._update_on_kvstore), "steps": steps,
            "param_stypes": {k: v.stype for k, v in mod.get_params()[0].items()},
            "arg_stypes": {k: v.stype for k, v in executor.arg_dict.items()},
            "grad_stypes": {k: v.stype for k, v in executor.grad_dict.items() if v is not None}}


def bind_case(symbol, shapes, stype_dict=None, values=None, head=None):
    requests = {name: "null" if name == "data" else "write" for name in symbol.list_arguments()}
    try:
        exe = symbol.simple_bind(mx.cpu(), grad_req=requests, stype_dict=stype_dict, **shapes)
    except Exception as error:      # noqa: BLE001 - the reference records MXNet's refusal
        # the message without the log's timestamps, so that the reference is reproducible
        return {"error": re.sub(r"\[\d\d:\d\d:\d\d\] ", "", str(error))}
    out = {"arg_stypes": {k: v.stype for k, v in exe.arg_dict.items()},
           "grad_stypes": {k: v.stype for k, v in exe.grad_dict.items() if v is not None}}
    if values is not None:
        for name, value in values.items():
            exe.arg_dict[name][:] = mx.nd.array(value).tostype(exe.arg_dict[name].stype) \
                if exe.arg_dict[name].stype != "default" else mx.nd.array(value)
        exe.forward(is_train=True)
        exe.backward([mx.nd.array(head)] if head is not None else None)
        out["outputs"] = [o.asnumpy().tolist() for o in exe.outputs]
        out["grads"] = {k: v.asnumpy().tolist() for k, v in exe.grad_dict.items() if v is not None}
        out["grad_indices"] = {k: v.indices.asnumpy().tolist() for k, v in exe.grad_dict.items()
                               if v is not None and v.stype == "row_sparse"}
    return out


def bind_cases():
    rng = np.random.RandomState(11)
    w = rng.uniform(-1, 1, (6, 3)).astype(np.float32)
    idx = [[0, 4], [4, 2]]
    head = rng.uniform(-1, 1, (2, 2, 3)).astype(np.float32)
    csr = np.array([[0, 1.5, 0, 0, 0, 2.0], [0, 0, 0, 0, 0, -1.0]], np.float32)
    dot_head = rng.uniform(-1, 1, (2, 3)).astype(np.float32)
    data, weight = mx.sym.var("data"), mx.sym.var("w")
    cases = {
        "embedding_sparse_grad": bind_case(
            mx.sym.Embedding(data, weight, input_dim=6, output_dim=3, sparse_grad=True), {"data": (2, 2)},
            values={"data": idx, "w": w}, head=head),
        "embedding_dense_grad": bind_case(
            mx.sym.Embedding(data, weight, input_dim=6, output_dim=3), {"data": (2, 2)},
            values={"data": idx, "w": w}, head=head),
        "sparse_embedding": bind_case(
            mx.sym.contrib.SparseEmbedding(data, weight, input_dim=6, output_dim=3), {"data": (2, 2)},
            values={"data": idx, "w": w}, head=head),
        "embedding_twice": bind_case(
            mx.sym.Embedding(data, weight, input_dim=6, output_dim=3, sparse_grad=True)
            + mx.sym.Embedding(data + 1, weight, input_dim=6, output_dim=3, sparse_grad=True),
            {"data": (2, 2)}, values={"data": idx, "w": w}, head=head),
        "embedding_and_dense_use": bind_case(
            mx.sym.broadcast_add(mx.sym.Embedding(data, weight, input_dim=6, output_dim=3, sparse_grad=True),
                                 mx.sym.sum(weight)),
            {"data": (2, 2)}, values={"data": idx, "w": w}, head=head),
        "dot_csr_stype_dict": bind_case(
            mx.sym.dot(data, weight), {"data": (2, 6), "w": (6, 3)}, stype_dict={"data": "csr", "w": "default"},
            values={"data": csr, "w": w}, head=dot_head),
        "dot_csr_stype_dict_partial": bind_case(
            mx.sym.dot(data, weight), {"data": (2, 6), "w": (6, 3)}, stype_dict={"data": "csr"}),
        "dot_csr_variable": bind_case(
            mx.sym.dot(mx.sym.var("data", stype="csr"), weight), {"data": (2, 6), "w": (6, 3)},
            values={"data": csr, "w": w}, head=dot_head),
        "dot_csr_transpose_a": bind_case(
            mx.sym.dot(data, weight, transpose_a=True), {"data": (2, 6), "w": (2, 3)},
            stype_dict={"data": "csr", "w": "default"}),
        "dot_dense": bind_case(
            mx.sym.dot(data, weight), {"data": (2, 6), "w": (6, 3)},
            values={"data": csr, "w": w}, head=dot_head),
        "take": bind_case(
            mx.sym.take(weight, data), {"data": (2, 2), "w": (6, 3)}, values={"data": idx, "w": w}, head=head),
        "row_sparse_weight_variable": bind_case(
            mx.sym.Embedding(data, mx.sym.var("w", stype="row_sparse"), input_dim=6, output_dim=3,
                             sparse_grad=True), {"data": (2, 2)}),
        "stype_dict_row_sparse_weight": bind_case(
            mx.sym.Embedding(data, weight, input_dim=6, output_dim=3, sparse_grad=True), {"data": (2, 2)},
            stype_dict={"w": "row_sparse"}),
    }
    return cases, {"w": w.tolist(), "idx": idx, "head": head.tolist(), "csr": csr.tolist(),
                   "dot_head": dot_head.tolist()}


def gluon_case(optimizer, kwargs, hybridize, contexts=1, kvstore="device"):
    params = initial_params()
    ctx = [mx.cpu(i) for i in range(contexts)]
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Embedding(INPUT_DIM, OUTPUT_DIM, sparse_grad=True), mx.gluon.nn.Flatten(),
            mx.gluon.nn.Dense(2, in_units=2 * OUTPUT_DIM))
    net.initialize(ctx=ctx)
    emb, dense = net[0], net[2]
    emb.weight.set_data(mx.nd.array(params["emb_weight"]))
    dense.weight.set_data(mx.nd.array(params["fc_weight"]))
    dense.bias.set_data(mx.nd.array(params["fc_bias"]))
    if hybridize:
        net.hybridize()
    trainer = mx.gluon.Trainer(net.collect_params(), optimizer, dict(kwargs), kvstore=kvstore)
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    steps = []
    for data, label in BATCHES:
        parts = mx.gluon.utils.split_and_load(mx.nd.array(data), ctx)
        labels = mx.gluon.utils.split_and_load(mx.nd.array(label), ctx)
        with mx.autograd.record():
            losses = [loss_fn(net(x), y) for x, y in zip(parts, labels)]
        mx.autograd.backward(losses)
        trainer.step(4)
        steps.append({"emb_weight": emb.weight.data().asnumpy().tolist(),
                      "fc_weight": dense.weight.data().asnumpy().tolist()})
    return {"optimizer": optimizer, "kwargs": kwargs, "hybridize": hybridize, "steps": steps,
            "contexts": contexts, "kvstore": kvstore, "update_on_kvstore": bool(trainer._update_on_kvstore),
            "grad_stype": emb.weight.grad().stype}


def main():
    out = {"batches": BATCHES, "initial": {k: v.tolist() for k, v in initial_params().items()},
           "module": {}, "gluon": {}}
    for key, (name, kwargs) in OPTIMIZERS.items():
        for lazy in (True, False):
            out["module"][f"{key}/{'lazy' if lazy else 'std'}"] = module_case(name, kwargs, lazy)
            for kvstore in ("local", "device"):
                out["module"][f"{key}/{'lazy' if lazy else 'std'}/2cpu/{kvstore}"] = \
                    module_case(name, kwargs, lazy, contexts=2, kvstore=kvstore)
        for hybridize in (False, True):
            out["gluon"][f"{key}/{'hybrid' if hybridize else 'imperative'}"] = gluon_case(name, kwargs, hybridize)
            for kvstore in ("device", "local"):
                out["gluon"][f"{key}/{'hybrid' if hybridize else 'imperative'}/2cpu/{kvstore}"] = \
                    gluon_case(name, kwargs, hybridize, contexts=2, kvstore=kvstore)
    out["bind"], out["bind_inputs"] = bind_cases()
    batches, labels, w0 = linear_inputs()
    out["linear_inputs"] = {"batches": [b.tolist() for b in batches], "labels": [l.tolist() for l in labels],
                            "w": w0.tolist()}
    out["linear"] = {f"{key}/{contexts}cpu/{kvstore}": linear_case(contexts, kvstore, name, kwargs)
                     for key, (name, kwargs) in OPTIMIZERS.items() for contexts, kvstore in
                     ((1, "local"), (2, "local"), (2, "device"))}
    here = os.path.dirname(os.path.abspath(__file__))
    folder = os.path.join(here, "..", "tests", "data", "sparse_training")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "reference.json"), "w") as fh:
        json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
