"""A batch is loaded into the bound arrays without silent drops, and NDArray.use_storage is the one
way an array's storage is handed over."""
import numpy as np
import pytest
import torch

import mxtorch as mx


def _module():
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(data, num_hidden=2, name="fc")
    module = mx.mod.Module(net, data_names=["data"], label_names=None)
    module.bind(data_shapes=[("data", (4, 3))], for_training=False)
    module.init_params()
    return module


def test_extra_data_arrays_in_a_batch_raise():
    module = _module()
    batch = mx.io.DataBatch([mx.nd.ones((4, 3)), mx.nd.ones((4, 3))])
    with pytest.raises(mx.MXNetError, match="2 data arrays"):
        module.forward(batch, is_train=False)
    module.forward(mx.io.DataBatch([mx.nd.ones((4, 3))]), is_train=False)
    assert module.get_outputs()[0].shape == (4, 2)


def test_use_storage_swaps_without_copy_and_converts_when_needed():
    array = mx.nd.zeros((2,))
    fresh = torch.tensor([1.0, 2.0])
    assert array.use_storage(fresh) is array
    assert array._tensor.data_ptr() == fresh.data_ptr()
    array.use_storage(torch.tensor([3, 4], dtype=torch.int64))
    assert array.dtype == np.float32
    np.testing.assert_array_equal(array.asnumpy(), [3.0, 4.0])
    # requires_grad makes the new storage a recording leaf: attach_grad goes through it
    leaf = mx.nd.array([1.0, 2.0])
    leaf.attach_grad()
    assert leaf._tensor.requires_grad and leaf._tensor.grad_fn is None
    with mx.autograd.record():
        loss = (leaf * leaf).sum()
    loss.backward()
    np.testing.assert_array_equal(leaf.grad.asnumpy(), [2.0, 4.0])


def test_unknown_grad_req_names_are_ignored_with_a_warning():
    # MXNet 1.9.1 binds (Module.bind and simple_bind) with grad_req naming a non-argument and
    # ignores the name; mxtorch does the same and says so
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(data, num_hidden=2, name="fc")
    module = mx.mod.Module(net, data_names=["data"], label_names=None)
    with pytest.warns(UserWarning, match=r"\['nonexistent'\] are not arguments of the symbol and are ignored"):
        module.bind(data_shapes=[("data", (4, 3))], grad_req={"nonexistent": "write"})
    assert module._exec_group.grad_req == {"data": "null", "fc_weight": "write", "fc_bias": "write"}


def _sum_net():
    """data + w, w's shape inferred from data's (elemwise_add takes equal shapes)."""
    return mx.sym.elemwise_add(mx.sym.var("data"), mx.sym.var("add_weight"), name="add")


def test_label_batch_must_match_the_data_batch_at_bind():
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc"),
                               name="softmax")
    module = mx.mod.Module(net)
    with pytest.raises(mx.MXNetError, match="same batch size.*softmax_label"):
        module.bind(data_shapes=[("data", (4, 2))], label_shapes=[("softmax_label", (5,))])


def test_a_parameter_that_follows_the_batch_is_not_silently_reallocated():
    # w's shape is inferred from data's (broadcast_add of equal shapes); it is a parameter, not a
    # label, so a smaller batch cannot re-bind (MXNet refused too) instead of dropping its values
    module = mx.mod.Module(_sum_net(), data_names=["data"], label_names=None)
    module.bind(data_shapes=[("data", (4, 3))], for_training=False)
    module.init_params()
    with pytest.raises(mx.MXNetError, match="parameter .add_weight. would change shape"):
        module.forward(mx.io.DataBatch([mx.nd.ones((2, 3))]), is_train=False)


def test_extra_label_arrays_raise_and_labels_of_a_label_free_module_are_ignored():
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc"),
                               name="softmax")
    module = mx.mod.Module(net)
    module.bind(data_shapes=[("data", (4, 2))], label_shapes=[("softmax_label", (4,))])
    module.init_params()
    with pytest.raises(mx.MXNetError, match="2 label arrays.*softmax_label"):
        module.forward(mx.io.DataBatch([mx.nd.ones((4, 2))], [mx.nd.ones(4), mx.nd.ones(4)]))
    free = _module()
    free.forward(mx.io.DataBatch([mx.nd.ones((4, 3))], [mx.nd.ones(4), mx.nd.ones(4)]), is_train=False)
    assert free.get_outputs()[0].shape == (4, 2)


def _time_major_module(batch, contexts):
    # data and label are time-major ('TNC' / 'TN'): the batch axis is 1, and so is the output's
    # (its __layout__ attribute, which MXNet's executor group reads to merge the outputs)
    data = mx.sym.var("data")
    label = mx.sym.var("label")
    out = mx.sym.LinearRegressionOutput(mx.sym.sum(data, axis=2), label, name="lro", attr={"__layout__": "TN"})
    module = mx.mod.Module(out, data_names=["data"], label_names=["label"], context=contexts)
    module.bind(data_shapes=[mx.io.DataDesc("data", (2, batch, 3), layout="TNC")],
                label_shapes=[mx.io.DataDesc("label", (2, batch), layout="TN")], for_training=False)
    module.init_params()
    return module


def test_whole_batches_are_cut_along_the_layout_batch_axis():
    x = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
    y = np.arange(8, dtype=np.float32).reshape(2, 4)
    module = _time_major_module(4, [mx.cpu(0), mx.cpu(1)])
    module.forward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)]), is_train=False)
    parts = module.get_outputs(merge_multi_context=False)[0]
    np.testing.assert_allclose(parts[0].asnumpy(), x[:, :2].sum(axis=2))
    np.testing.assert_allclose(parts[1].asnumpy(), x[:, 2:].sum(axis=2))
    np.testing.assert_allclose(module.get_outputs()[0].asnumpy(), x.sum(axis=2))
    # update_metric cuts the labels the same way: the MSE is over matching columns
    metric = mx.metric.MSE()
    module.update_metric(metric, [mx.nd.array(y)])
    expected = np.mean([np.mean((y[:, :2] - x[:, :2].sum(axis=2)) ** 2),
                        np.mean((y[:, 2:] - x[:, 2:].sum(axis=2)) ** 2)])
    np.testing.assert_allclose(metric.get()[1], expected, rtol=1e-6)


def test_a_smaller_batch_without_labels_resizes_the_labels_along_their_layout():
    module = _time_major_module(4, [mx.cpu(0)])
    x = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    module.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=False)
    assert module.label_shapes[0].shape == (2, 2)
    np.testing.assert_allclose(module.get_outputs()[0].asnumpy(), x.sum(axis=2))


def test_any_object_with_data_is_a_batch():
    # MXNet's Module.forward reads .data (and .label / .pad when present), so a namedtuple works
    from collections import namedtuple
    Batch = namedtuple("Batch", ["data"])
    module = mx.mod.Module(mx.sym.var("data") * 2, label_names=None)
    module.bind(data_shapes=[("data", (1, 4))])
    module.init_params()
    module.forward(Batch([mx.nd.ones((3, 5))]))
    np.testing.assert_array_equal(module.get_outputs()[0].asnumpy(), np.full((3, 5), 2.0))
