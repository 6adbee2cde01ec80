"""Sparse storage end to end, against MXNet 1.9.1 (tools/gen_sparse_training.py ->
tests/data/sparse_training/reference.json): the storage types simple_bind gives argument and
gradient arrays (stype_dict, a variable's stype, the backward rules of Embedding / dot / take),
and training with a row_sparse Embedding gradient through Module and Gluon, where the lazy
update leaves the rows not in any batch untouched."""
import json
import os

import numpy as np
import pytest

import mxtorch as mx

with open(os.path.join(os.path.dirname(__file__), "data", "sparse_training", "reference.json")) as _fh:
    REF = json.load(_fh)

INPUT_DIM, OUTPUT_DIM = 8, 3
UNTOUCHED_ROWS = [3, 4, 6, 7]        # no batch holds these indices


def _network():
    data = mx.sym.var("data")
    emb = mx.sym.Embedding(data, input_dim=INPUT_DIM, output_dim=OUTPUT_DIM, sparse_grad=True, name="emb")
    fc = mx.sym.FullyConnected(mx.sym.flatten(emb), num_hidden=2, name="fc")
    return mx.sym.SoftmaxOutput(fc, name="softmax")


@pytest.mark.parametrize("case", sorted(REF["module"]))
def test_module_trains_a_sparse_embedding_as_mxnet(case):
    entry = REF["module"][case]
    mod = mx.mod.Module(_network(), data_names=["data"], label_names=["softmax_label"],
                        context=[mx.cpu(i) for i in range(entry["contexts"])])
    mod.bind(data_shapes=[("data", (4, 2))], label_shapes=[("softmax_label", (4,))])
    mod.init_params(arg_params={k: mx.nd.array(v) for k, v in REF["initial"].items()})
    mod.init_optimizer(kvstore=entry["kvstore"], optimizer=entry["optimizer"], optimizer_params=entry["kwargs"])
    assert bool(mod._update_on_kvstore) == entry["update_on_kvstore"]
    for executor in mod._exec_group.execs:
        assert {k: v.stype for k, v in executor.grad_dict.items()} == entry["grad_stypes"]
        assert {k: v.stype for k, v in executor.arg_dict.items()} == entry["arg_stypes"]
    initial = np.array(REF["initial"]["emb_weight"], np.float32)
    for (data, label), expected in zip(REF["batches"], entry["steps"]):
        mod.forward_backward(mx.io.DataBatch([mx.nd.array(data)], [mx.nd.array(label)]))
        mod.update()
        arg, _ = mod.get_params()
        for name, value in expected.items():
            np.testing.assert_allclose(arg[name].asnumpy(), np.array(value), rtol=1e-5, atol=1e-6, err_msg=name)
        emb = arg["emb_weight"].asnumpy()
        if entry["kwargs"]["lazy_update"]:
            # the lazy update: rows no batch looked up keep their initial values exactly
            np.testing.assert_array_equal(emb[UNTOUCHED_ROWS], initial[UNTOUCHED_ROWS])
        else:
            assert np.all(emb[UNTOUCHED_ROWS] != initial[UNTOUCHED_ROWS])


def _gluon_net(hybridize, ctx):
    init = REF["initial"]
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Embedding(INPUT_DIM, OUTPUT_DIM, sparse_grad=True), mx.gluon.nn.Flatten(),
            mx.gluon.nn.Dense(2, in_units=2 * OUTPUT_DIM))
    net.initialize(ctx=ctx)
    net[0].weight.set_data(mx.nd.array(init["emb_weight"]))
    net[2].weight.set_data(mx.nd.array(init["fc_weight"]))
    net[2].bias.set_data(mx.nd.array(init["fc_bias"]))
    if hybridize:
        net.hybridize()
    return net


@pytest.mark.parametrize("case", sorted(REF["gluon"]))
def test_gluon_sparse_embedding_with_a_trainer_as_mxnet(case):
    entry = REF["gluon"][case]
    ctx = [mx.cpu(i) for i in range(entry["contexts"])]
    net = _gluon_net(entry["hybridize"], ctx)
    trainer = mx.gluon.Trainer(net.collect_params(), entry["optimizer"], dict(entry["kwargs"]),
                               kvstore=entry["kvstore"])
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    initial = np.array(REF["initial"]["emb_weight"], np.float32)
    for (data, label), expected in zip(REF["batches"], entry["steps"]):
        parts = mx.gluon.utils.split_and_load(mx.nd.array(data), ctx)
        labels = mx.gluon.utils.split_and_load(mx.nd.array(label), ctx)
        with mx.autograd.record():
            losses = [loss_fn(net(x), y) for x, y in zip(parts, labels)]
        mx.autograd.backward(losses)
        assert [net[0].weight.grad(c).stype for c in ctx] == [entry["grad_stype"]] * len(ctx)
        trainer.step(4)
        assert bool(trainer._update_on_kvstore) == entry["update_on_kvstore"]
        for c in ctx:
            emb = net[0].weight.data(c).asnumpy()
            np.testing.assert_allclose(emb, np.array(expected["emb_weight"]), rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(net[2].weight.data(c).asnumpy(), np.array(expected["fc_weight"]),
                                       rtol=1e-5, atol=1e-6)
            np.testing.assert_array_equal(emb[UNTOUCHED_ROWS], initial[UNTOUCHED_ROWS])


def _bind_symbols():
    data, weight = mx.sym.var("data"), mx.sym.var("w")

    def embedding(d=data, w=weight, **kwargs):
        return mx.sym.Embedding(d, w, input_dim=6, output_dim=3, **kwargs)

    return {
        "embedding_sparse_grad": (embedding(sparse_grad=True), {"data": (2, 2)}, None),
        "embedding_dense_grad": (embedding(), {"data": (2, 2)}, None),
        "sparse_embedding": (mx.sym.contrib.SparseEmbedding(data, weight, input_dim=6, output_dim=3),
                             {"data": (2, 2)}, None),
        "embedding_twice": (embedding(sparse_grad=True) + embedding(d=data + 1, sparse_grad=True),
                            {"data": (2, 2)}, None),
        "embedding_and_dense_use": (mx.sym.broadcast_add(embedding(sparse_grad=True), mx.sym.sum(weight)),
                                    {"data": (2, 2)}, None),
        "dot_csr_stype_dict": (mx.sym.dot(data, weight), {"data": (2, 6), "w": (6, 3)},
                               {"data": "csr", "w": "default"}),
        "dot_csr_stype_dict_partial": (mx.sym.dot(data, weight), {"data": (2, 6), "w": (6, 3)}, {"data": "csr"}),
        "dot_csr_variable": (mx.sym.dot(mx.sym.var("data", stype="csr"), weight), {"data": (2, 6), "w": (6, 3)},
                             None),
        "dot_csr_transpose_a": (mx.sym.dot(data, weight, transpose_a=True), {"data": (2, 6), "w": (2, 3)},
                                {"data": "csr", "w": "default"}),
        "dot_dense": (mx.sym.dot(data, weight), {"data": (2, 6), "w": (6, 3)}, None),
        "take": (mx.sym.take(weight, data), {"data": (2, 2), "w": (6, 3)}, None),
        "row_sparse_weight_variable": (embedding(w=mx.sym.var("w", stype="row_sparse"), sparse_grad=True),
                                       {"data": (2, 2)}, None),
        "stype_dict_row_sparse_weight": (embedding(sparse_grad=True), {"data": (2, 2)}, {"w": "row_sparse"}),
    }


@pytest.mark.parametrize("case", sorted(REF["bind"]))
def test_simple_bind_storage_types_and_gradients_as_mxnet(case):
    entry = REF["bind"][case]
    inputs = REF["bind_inputs"]
    symbol, shapes, stype_dict = _bind_symbols()[case]
    requests = {name: "null" if name == "data" else "write" for name in symbol.list_arguments()}
    if "error" in entry:
        with pytest.raises(mx.base.MXNetError):
            symbol.simple_bind(mx.cpu(), grad_req=requests, stype_dict=stype_dict, **shapes)
        return
    exe = symbol.simple_bind(mx.cpu(), grad_req=requests, stype_dict=stype_dict, **shapes)
    assert {k: v.stype for k, v in exe.arg_dict.items()} == entry["arg_stypes"]
    assert {k: v.stype for k, v in exe.grad_dict.items() if v is not None} == entry["grad_stypes"]
    if "grads" not in entry:
        return
    dot = case.startswith("dot")
    exe.arg_dict["data"][:] = mx.nd.array(inputs["csr"] if dot else inputs["idx"])
    exe.arg_dict["w"][:] = mx.nd.array(inputs["w"])
    exe.forward(is_train=True)
    exe.backward([mx.nd.array(inputs["dot_head"] if dot else inputs["head"])])
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), np.array(entry["outputs"][0]), rtol=1e-5, atol=1e-6)
    grad = exe.grad_dict["w"]
    np.testing.assert_allclose(grad.asnumpy(), np.array(entry["grads"]["w"]), rtol=1e-5, atol=1e-6)
    assert grad.stype == entry["grad_stypes"]["w"]
    if grad.stype == "row_sparse":
        np.testing.assert_array_equal(grad.indices.asnumpy(), entry["grad_indices"]["w"])


def test_a_variable_with_an_unknown_storage_type_is_a_key_error():
    # MXNet looked the name up in its table of storage type ids
    with pytest.raises(KeyError):
        mx.sym.var("w", stype="sparse")
    assert mx.sym.var("w", stype="csr").attr("__storage_type__") == "2"


def test_reshaped_executors_keep_the_storage_types():
    data = mx.sym.var("data", stype="csr")
    symbol = mx.sym.dot(data, mx.sym.var("w"))
    exe = symbol.simple_bind(mx.cpu(), grad_req={"data": "null", "w": "write"}, data=(4, 6), w=(6, 3))
    for shape in ((2, 6), (8, 6)):
        reshaped = exe.reshape(allow_up_sizing=True, data=shape, w=(6, 3))
        assert reshaped.arg_dict["data"].stype == "csr"
        assert reshaped.grad_dict["w"].stype == "row_sparse"
        csr = np.zeros(shape, np.float32)
        csr[0, 2] = 2.0
        reshaped.arg_dict["data"][:] = mx.nd.array(csr)
        reshaped.arg_dict["w"][:] = mx.nd.ones((6, 3))
        reshaped.forward(is_train=True)
        reshaped.backward(mx.nd.ones((shape[0], 3)))
        # dot(csr.T, head): only column 2 of the data holds a value, so only row 2 is stored
        np.testing.assert_array_equal(reshaped.grad_dict["w"].indices.asnumpy(), [2])


def test_the_kvstore_hands_its_updater_a_row_sparse_sum_of_row_sparse_pushes():
    kv = mx.kv.create("local")
    seen = []
    kv.init(0, mx.nd.zeros((4, 2)))
    kv._set_updater(lambda key, grad, weight: seen.append((grad.stype, grad.asnumpy())))
    first = mx.nd.array([[1, 1], [0, 0], [0, 0], [0, 0]]).tostype("row_sparse")
    second = mx.nd.array([[0, 0], [0, 0], [2, 2], [0, 0]]).tostype("row_sparse")
    kv.push(0, [first, second])
    kv.push(0, [first, second.tostype("default")])
    assert [stype for stype, _ in seen] == ["row_sparse", "default"]
    np.testing.assert_array_equal(seen[0][1], [[1, 1], [0, 0], [2, 2], [0, 0]])


@pytest.mark.parametrize("case", sorted(REF["linear"]))
def test_module_trains_a_linear_model_on_csr_data_with_a_row_sparse_weight(case):
    entry = REF["linear"][case]
    inputs = REF["linear_inputs"]
    data = mx.sym.var("data", stype="csr")
    weight = mx.sym.var("w", stype="row_sparse", shape=(8, 1))
    out = mx.sym.LinearRegressionOutput(mx.sym.dot(data, weight), name="lro")
    mod = mx.mod.Module(out, data_names=["data"], label_names=["lro_label"],
                        context=[mx.cpu(i) for i in range(entry["contexts"])])
    mod.bind(data_shapes=[("data", (4, 8))], label_shapes=[("lro_label", (4, 1))])
    mod.init_params(arg_params={"w": mx.nd.array(inputs["w"]).tostype("row_sparse")})
    mod.init_optimizer(kvstore=entry["kvstore"], optimizer=entry["optimizer"], optimizer_params=entry["kwargs"])
    assert bool(mod._update_on_kvstore) == entry["update_on_kvstore"]
    for executor in mod._exec_group.execs:
        assert {k: v.stype for k, v in executor.arg_dict.items()} == entry["arg_stypes"]
        assert {k: v.stype for k, v in executor.grad_dict.items() if v is not None} == entry["grad_stypes"]
    initial = np.array(inputs["w"], np.float32)
    for dense, label, expected in zip(inputs["batches"], inputs["labels"], entry["steps"]):
        batch = mx.io.DataBatch([mx.nd.array(dense).tostype("csr")], [mx.nd.array(label)])
        if entry["update_on_kvstore"]:
            mod.prepare(batch, sparse_row_id_fn=lambda b: {"w": mx.nd.arange(0, 8)})
        mod.forward_backward(batch)
        mod.update()
        value = mod.get_params()[0]["w"].asnumpy()
        np.testing.assert_allclose(value, np.array(expected), rtol=1e-5, atol=1e-6)
        assert {k: v.stype for k, v in mod.get_params()[0].items()} == entry["param_stypes"]
        # columns 3, 4, 6 and 7 of the data never hold a value: those rows of w stay as they were
        np.testing.assert_array_equal(value[UNTOUCHED_ROWS], initial[UNTOUCHED_ROWS])
