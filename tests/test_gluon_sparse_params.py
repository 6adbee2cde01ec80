"""Gluon Parameters with sparse storage types, the Trainer's kvstore paths for them, and
custom KVStoreBase stores (MXNet 1.9.1's rules: a row_sparse weight lives on the Trainer's
kvstore and is read by rows with row_sparse_data)."""
import numpy as np
import pytest

import mxtorch as mx
from mxtorch import gluon


def test_creators_keep_their_ctx_argument():
    for array in (mx.nd.arange(0, 4, ctx=mx.cpu(1)), mx.nd.eye(2, ctx=mx.cpu(2)),
                  mx.nd.linspace(0, 1, 3, ctx=mx.cpu(1)), mx.nd.random.uniform(shape=(2,), ctx=mx.cpu(3))):
        assert array.context.device_id in (1, 2, 3)
    assert mx.nd.arange(0, 4, ctx=mx.cpu(1)).context == mx.cpu(1)
    assert mx.nd.arange(3).context == mx.current_context()


def test_attach_grad_with_a_storage_type():
    x = mx.nd.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    x.attach_grad(stype="row_sparse")
    assert x.grad.stype == "row_sparse"
    with mx.autograd.record():
        y = mx.nd.take(x, mx.nd.array([2])) * 3
    y.backward()
    # only row 2 is used: its gradient is 3, the other rows hold none
    np.testing.assert_array_equal(x.grad.indices.asnumpy(), [2])
    np.testing.assert_array_equal(x.grad.data.asnumpy(), [[3.0, 3.0]])


def test_row_sparse_parameter_value_and_gradient_types():
    p = gluon.Parameter("w", shape=(4, 2), stype="row_sparse", grad_stype="row_sparse")
    p.initialize(init=mx.init.Constant(2.0), ctx=[mx.cpu(0), mx.cpu(1)])
    assert [array.stype for array in p._data] == ["row_sparse", "row_sparse"]
    assert p.grad(mx.cpu(1)).stype == "row_sparse"
    assert p.var().attr("__storage_type__") == "1"        # MXNet's id of row_sparse
    with pytest.raises(RuntimeError):
        p.data()
    rows = mx.nd.array([1, 3], ctx=mx.cpu(1))
    with pytest.raises(RuntimeError, match="no Trainer"):
        p.row_sparse_data(rows)
    with pytest.raises(TypeError):
        p.row_sparse_data([1, 3])


def test_row_sparse_data_pulls_rows_from_the_trainer():
    p = gluon.Parameter("w", shape=(4, 2), stype="row_sparse")
    p.initialize(init=mx.init.Constant(2.0), ctx=[mx.cpu(0), mx.cpu(1)])
    gluon.Trainer([p], "sgd")
    value = p.row_sparse_data(mx.nd.array([1, 3], ctx=mx.cpu(1)))
    assert value.context == mx.cpu(1) and value.stype == "row_sparse"
    # the rows asked for hold the value, the others read zero (MXNet's row_sparse pull)
    np.testing.assert_array_equal(value.asnumpy(), [[0, 0], [2, 2], [0, 0], [2, 2]])
    copies = p.list_row_sparse_data(mx.nd.arange(0, 4))
    assert len(copies) == 2
    np.testing.assert_array_equal(copies[0].asnumpy(), np.full((4, 2), 2.0))


def test_trainer_updates_a_row_sparse_weight_on_its_kvstore():
    p = gluon.Parameter("w", shape=(3, 2), stype="row_sparse", grad_stype="row_sparse")
    p.initialize(init="zeros", ctx=[mx.cpu(0), mx.cpu(1)])
    trainer = gluon.Trainer([p], "sgd", {"learning_rate": 0.5})
    all_rows = mx.nd.arange(0, 3)
    with mx.autograd.record():
        for weight in p.list_row_sparse_data(all_rows):
            (weight * 2).sum().backward()
    trainer.step(1)
    assert trainer._update_on_kvstore is True
    # gradient 2 on each of two contexts, summed to 4: w = 0 - 0.5 * 4
    np.testing.assert_allclose(p.row_sparse_data(all_rows).asnumpy(), np.full((3, 2), -2.0))
    other = gluon.Parameter("v", shape=(2,), stype="row_sparse")
    other.initialize()
    with pytest.raises(ValueError):
        gluon.Trainer([other], "sgd", update_on_kvstore=False)._init_kvstore()


def test_row_sparse_parameter_saves_its_full_value(tmp_path):
    params = gluon.ParameterDict("net_")
    params.get("w", shape=(3, 2), stype="row_sparse", init=mx.init.Constant(1.5))
    params.initialize(ctx=mx.cpu(1))
    gluon.Trainer(params, "sgd")
    path = str(tmp_path / "w.params")
    params.save(path)
    loaded = mx.nd.load(path)
    np.testing.assert_array_equal(loaded["net_w"].asnumpy(), np.full((3, 2), 1.5))
    dense = gluon.ParameterDict("net_")
    dense.get("w", shape=(3, 2))
    dense.load(path, mx.cpu(1))
    np.testing.assert_array_equal(dense.get("w").data(mx.cpu(1)).asnumpy(), np.full((3, 2), 1.5))


def test_sparse_gradient_of_a_dense_weight_is_reduced_across_contexts():
    p = gluon.Parameter("w", shape=(4,), grad_stype="row_sparse")
    p.initialize(init="zeros", ctx=[mx.cpu(0), mx.cpu(1)])
    trainer = gluon.Trainer([p], "sgd", {"learning_rate": 1.0}, kvstore="device", update_on_kvstore=False)
    with mx.autograd.record():
        for weight, scale in zip(p.list_data(), (1.0, 3.0)):
            (weight * scale).sum().backward()
    trainer.step(1)
    # gradients 1 and 3 summed to 4 on both copies
    for weight in p.list_data():
        np.testing.assert_allclose(weight.asnumpy(), np.full((4,), -4.0))


def test_embedding_sparse_grad_is_row_sparse():
    layer = gluon.nn.Embedding(6, 2, sparse_grad=True)
    layer.initialize()
    with mx.autograd.record():
        out = layer(mx.nd.array([4, 4, 1]))
    out.backward()
    grad = layer.weight.grad()
    assert grad.stype == "row_sparse"
    np.testing.assert_array_equal(grad.indices.asnumpy(), [1, 4])
    np.testing.assert_array_equal(grad.data.asnumpy(), [[1, 1], [2, 2]])


def test_symbol_block_rejects_row_sparse_variables():
    data = mx.sym.var("data")
    out = mx.sym.dot(data, mx.sym.var("weight", stype="row_sparse"))
    with pytest.raises(AssertionError, match="row_sparse"):
        gluon.SymbolBlock(out, data)


def test_parameter_dtype_setter_casts_the_value():
    p = gluon.Parameter("w", shape=(2,), dtype="float32")
    p.initialize(init=mx.init.One())
    p.dtype = np.float16
    assert p.data().dtype == np.float16 and p.grad().dtype == np.float16


def test_trainer_with_a_store_that_runs_no_optimizer():
    x = gluon.Parameter("x", shape=(3,))
    x.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init="zeros")
    store = mx.kv.create("teststore")
    assert store.type == "teststore" and store.is_capable("optimizer") is False
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 1.0}, kvstore=store)
    with mx.autograd.record():
        for weight in x.list_data():
            (weight + 1).sum().backward()
    trainer.step(1)
    assert trainer._update_on_kvstore is False
    # gradient 1 on each copy, summed by the store to 2, applied on each worker
    for weight in x.list_data():
        np.testing.assert_allclose(weight.asnumpy(), np.full((3,), -2.0))
    with pytest.raises(ValueError):
        gluon.Trainer([x], "sgd", kvstore=store, update_on_kvstore=True)._init_kvstore()


def test_forward_on_several_contexts_before_deferred_parameters_reach_the_store():
    class Net(gluon.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.embed_weight = self.params.get("embed_weight", stype="row_sparse", shape=(4, 3),
                                                    grad_stype="row_sparse")
                self.dense = gluon.nn.Dense(2)

        def forward(self, x):
            weight = self.embed_weight.row_sparse_data(x)
            return self.dense(mx.nd.Embedding(x, weight, input_dim=4, output_dim=3, sparse_grad=True))

    contexts = [mx.cpu(1), mx.cpu(2)]
    net = Net(prefix="net_")
    net.initialize(mx.init.One(), ctx=contexts)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 1})
    outputs = []
    with mx.autograd.record():
        for x in gluon.utils.split_and_load(mx.nd.array([[0, 2], [1, 2]]), contexts):
            outputs.append(net(x))
    for out in outputs:
        out.backward()
    trainer.step(1)
    assert not trainer._params_to_init
    # each output element sums 6 ones, so every used embedding row gets gradient 2 (two outputs)
    # per use: rows 0 and 1 are used once, row 2 twice; row 3 is not used
    weight = net.embed_weight.row_sparse_data(mx.nd.arange(0, 4, ctx=mx.cpu(1))).asnumpy()
    np.testing.assert_allclose(weight, [[-1] * 3, [-1] * 3, [-3] * 3, [1] * 3])


def test_hybridized_block_input_format_with_none_arguments():
    class Add(gluon.HybridBlock):
        def hybrid_forward(self, F, a, b=None):
            return a if b is None else a + b

    block = Add()
    block.hybridize()
    one = mx.nd.ones((2,))
    np.testing.assert_array_equal(block(one, None).asnumpy(), [1, 1])
    # a trailing None left to the default reuses the graph
    np.testing.assert_array_equal(block(one).asnumpy(), [1, 1])
    with pytest.raises(ValueError, match="does not match"):
        block(one, one)


def test_split_and_load_keeps_csr_storage():
    dense = np.zeros((6, 4), dtype=np.float32)
    dense[4, 3] = 2.0
    parts = gluon.utils.split_and_load(mx.nd.sparse.csr_matrix(dense), [mx.cpu(0), mx.cpu(1)])
    assert [type(part).__name__ for part in parts] == ["CSRNDArray", "CSRNDArray"]
    assert parts[1].context == mx.cpu(1) and parts[1].shape == (3, 4)
    # row 4 of the whole is row 1 of the second half
    np.testing.assert_array_equal(parts[1].indptr.asnumpy(), [0, 0, 1, 1])
    np.testing.assert_array_equal(parts[1].indices.asnumpy(), [3])
    with pytest.raises(ValueError):
        mx.nd.sparse.csr_matrix(dense)[0:4:2]
