"""Data-parallel Modules: several contexts, work loads, per-device shapes and the
intermediate API (issue 5).

Reference values come from independent computations: the same model on one
context with the same global batch, torch re-implementations of the forward and
backward (BatchNorm with per-device statistics), and single-context Modules run
per image.  On CPU, ``mx.cpu(0)`` and ``mx.cpu(1)`` are distinct contexts backed by
the same memory, which exercises the whole multi-device path.
"""
import logging

import numpy as np
import pytest
import torch

import mxtorch as mx
from mxtorch.base import MXNetError
from module_networks import mlp

TWO = [mx.cpu(0), mx.cpu(1)]
RNG = np.random.RandomState(7)
X_MLP = RNG.randn(64, 10).astype(np.float32)
Y_MLP = RNG.randint(0, 4, 64).astype(np.float32)
X_CONV = RNG.randn(64, 2, 6, 6).astype(np.float32)
Y_CONV = RNG.randint(0, 3, 64).astype(np.float32)


def convnet():
    data = mx.sym.Variable("data")
    net = mx.sym.Convolution(data, name="conv1", kernel=(3, 3), num_filter=4, pad=(1, 1))
    net = mx.sym.Activation(net, name="relu1", act_type="relu")
    net = mx.sym.Pooling(net, name="pool1", kernel=(2, 2), stride=(2, 2), pool_type="max")
    net = mx.sym.Flatten(net)
    net = mx.sym.FullyConnected(net, name="fc", num_hidden=3)
    return mx.sym.SoftmaxOutput(net, name="softmax")


def fully_convolutional():
    """Convolutions and global average pooling: parameters do not depend on the image size."""
    data = mx.sym.Variable("data")
    net = mx.sym.Convolution(data, name="conv1", kernel=(3, 3), num_filter=4, pad=(1, 1))
    net = mx.sym.Activation(net, name="relu1", act_type="relu")
    net = mx.sym.Convolution(net, name="score", kernel=(1, 1), num_filter=3)
    net = mx.sym.Pooling(net, name="gpool", kernel=(1, 1), global_pool=True, pool_type="avg")
    net = mx.sym.Flatten(net, name="flat")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def initial_params(symbol, data_shape, seed=3):
    """Deterministic random parameters for ``symbol`` bound at ``data_shape``."""
    arg_shapes, _, aux_shapes = symbol.infer_shape(data=data_shape)
    rng = np.random.RandomState(seed)
    args = {name: mx.nd.array(rng.uniform(-0.5, 0.5, shape).astype(np.float32))
            for name, shape in zip(symbol.list_arguments(), arg_shapes) if name not in ("data", "softmax_label")}
    aux = {name: mx.nd.array(np.zeros(shape, np.float32) if "mean" in name else np.ones(shape, np.float32))
           for name, shape in zip(symbol.list_auxiliary_states(), aux_shapes)}
    return args, aux


def numpy_params(module):
    arg_params, aux_params = module.get_params()
    return {name: value.asnumpy() for name, value in list(arg_params.items()) + list(aux_params.items())}


OPTIMIZERS = {
    "sgd_momentum": ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.001}),
    "adam": ("adam", {"learning_rate": 0.01}),
}
NETWORKS = {"mlp": (mlp, X_MLP, Y_MLP), "conv": (convnet, X_CONV, Y_CONV)}


def train_one_epoch(network, contexts, kvstore, optimizer, work_load_list=None):
    builder, x, y = NETWORKS[network]
    symbol = builder()
    args, aux = initial_params(symbol, (16,) + x.shape[1:])
    module = mx.mod.Module(symbol, context=contexts, work_load_list=work_load_list)
    name, params = OPTIMIZERS[optimizer]
    module.fit(mx.io.NDArrayIter(x, y, batch_size=16), num_epoch=1, kvstore=kvstore, optimizer=name,
               optimizer_params=params, arg_params=args, aux_params=aux)
    return module, {k: v.asnumpy() for k, v in args.items()}


@pytest.mark.parametrize("network", sorted(NETWORKS))
@pytest.mark.parametrize("optimizer", sorted(OPTIMIZERS))
@pytest.mark.parametrize("kvstore", ["local", "device", None, "device_update_on_workers"])
@pytest.mark.parametrize("work_load_list", [None, [1, 3]])
def test_two_contexts_train_like_one(network, optimizer, kvstore, work_load_list, monkeypatch):
    """One epoch on [cpu(0), cpu(1)] gives the parameters one context gives for the same
    global batch (the gradients are summed across devices before the update)."""
    update_on_workers = kvstore == "device_update_on_workers"
    if update_on_workers:
        monkeypatch.setenv("MXNET_UPDATE_ON_KVSTORE", "0")
        kvstore = "device"
    single, initial = train_one_epoch(network, mx.cpu(), kvstore, optimizer)
    multi, _ = train_one_epoch(network, TWO, kvstore, optimizer, work_load_list)
    assert multi._update_on_kvstore == (kvstore is not None and not update_on_workers)
    assert (multi._kvstore is None) == (kvstore is None)
    expected, got = numpy_params(single), numpy_params(multi)
    assert sorted(expected) == sorted(got)
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-5, atol=1e-5, err_msg=name)
    # training moved every parameter, so the comparison above is not between initial values
    for name, value in initial.items():
        assert np.abs(expected[name] - value).max() > 1e-4, name
    # every device holds the same (updated) copy
    for name, block in zip(multi._exec_group.param_names, multi._exec_group.param_arrays):
        for array in block:
            np.testing.assert_allclose(array.asnumpy(), expected[name], rtol=1e-5, atol=1e-5, err_msg=name)


def test_work_load_list_slices_the_batch():
    module = mx.mod.Module(mlp(), context=TWO, work_load_list=[1, 3])
    module.bind([("data", (16, 10))], [("softmax_label", (16,))])
    group = module._exec_group
    assert group.slices == [slice(0, 4), slice(4, 16)]
    assert [e.arg_dict["data"].shape for e in group.execs] == [(4, 10), (12, 10)]
    assert module.output_shapes == [("softmax_output", (16, 4))]
    # parameters: one list per parameter, one array per context, distinct storage per context
    assert [len(block) for block in group.param_arrays] == [2] * 4
    assert group.param_arrays[0][0] is not group.param_arrays[0][1]


# -- BatchNorm: per-device batch statistics -------------------------------------------------------
def bn_net():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, name="fc1", num_hidden=6)
    net = mx.sym.BatchNorm(net, name="bn1", fix_gamma=False, momentum=0.9, eps=1e-3)
    net = mx.sym.Activation(net, name="relu1", act_type="relu")
    net = mx.sym.FullyConnected(net, name="fc2", num_hidden=3)
    return mx.sym.SoftmaxOutput(net, name="softmax")


def torch_bn_reference(args, batches, slices, learning_rate, momentum, steps_per_batch=1):
    """MXNet's data-parallel BatchNorm, written out in torch (float64): each device
    normalises its slice with the slice's mean and biased variance and keeps its own
    moving statistics (moving = 0.9 * moving + 0.1 * batch statistic); the gradients
    (SoftmaxOutput: softmax - one_hot, summed over rows) are summed over devices, scaled by
    1 / batch size and applied by SGD with momentum."""
    weights = {k: torch.tensor(v, dtype=torch.float64) for k, v in args.items()}
    moments = {k: torch.zeros_like(v) for k, v in weights.items()}
    moving = [(torch.zeros(6, dtype=torch.float64), torch.ones(6, dtype=torch.float64)) for _ in slices]
    outputs = []
    for x, y in batches:
        x = torch.tensor(x, dtype=torch.float64)
        y = torch.tensor(y, dtype=torch.int64)
        leaves = {k: v.clone().requires_grad_(True) for k, v in weights.items()}
        total_loss = 0
        outputs = []
        for device, part in enumerate(slices):
            hidden = x[part] @ leaves["fc1_weight"].T + leaves["fc1_bias"]
            mean = hidden.mean(0)
            var = hidden.var(0, unbiased=False)
            normed = (hidden - mean) / torch.sqrt(var + 1e-3) * leaves["bn1_gamma"] + leaves["bn1_beta"]
            logits = torch.relu(normed) @ leaves["fc2_weight"].T + leaves["fc2_bias"]
            outputs.append(torch.softmax(logits, 1).detach())
            total_loss = total_loss + torch.nn.functional.cross_entropy(logits, y[part], reduction="sum")
            moving_mean, moving_var = moving[device]
            moving[device] = (0.9 * moving_mean + 0.1 * mean.detach(), 0.9 * moving_var + 0.1 * var.detach())
        grads = torch.autograd.grad(total_loss, list(leaves.values()))
        for (name, weight), grad in zip(weights.items(), grads):
            moments[name] = momentum * moments[name] - learning_rate * grad / x.shape[0]
            weights[name] = weight + moments[name]
    return weights, moving, torch.cat(outputs).numpy()


@pytest.mark.parametrize("kvstore", ["local", None])
def test_batchnorm_uses_per_device_statistics(kvstore):
    """MXNet's semantics, kept: each device normalises with its own slice's statistics and
    updates its own moving mean/var; get_params averages the moving statistics."""
    symbol = bn_net()
    rng = np.random.RandomState(11)
    args = {"fc1_weight": rng.randn(6, 5) * 0.5, "fc1_bias": rng.randn(6) * 0.1,
            "bn1_gamma": 1 + 0.1 * rng.randn(6), "bn1_beta": 0.1 * rng.randn(6),
            "fc2_weight": rng.randn(3, 6) * 0.5, "fc2_bias": np.zeros(3)}
    args = {k: v.astype(np.float32) for k, v in args.items()}
    batches = [(rng.randn(8, 5).astype(np.float32), rng.randint(0, 3, 8).astype(np.float32)) for _ in range(3)]
    module = mx.mod.Module(symbol, context=TWO, work_load_list=[1, 3])
    module.bind([("data", (8, 5))], [("softmax_label", (8,))])
    module.init_params(arg_params={k: mx.nd.array(v) for k, v in args.items()},
                       aux_params={"bn1_moving_mean": mx.nd.zeros(6), "bn1_moving_var": mx.nd.ones(6)})
    module.init_optimizer(kvstore=kvstore, optimizer="sgd", optimizer_params={"learning_rate": 0.5, "momentum": 0.9})
    for x, y in batches:
        module.forward_backward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)]))
        module.update()
    weights, moving, outputs = torch_bn_reference(args, batches, [slice(0, 2), slice(2, 8)], 0.5, 0.9)
    np.testing.assert_allclose(module.get_outputs()[0].asnumpy(), outputs, rtol=1e-4, atol=1e-5)
    arg_params, aux_params = module.get_params()
    for name, value in weights.items():
        np.testing.assert_allclose(arg_params[name].asnumpy(), value.numpy(), rtol=1e-4, atol=1e-5, err_msg=name)
    for device, executor in enumerate(module._exec_group.execs):
        np.testing.assert_allclose(executor.aux_dict["bn1_moving_mean"].asnumpy(), moving[device][0].numpy(),
                                   rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(executor.aux_dict["bn1_moving_var"].asnumpy(), moving[device][1].numpy(),
                                   rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(aux_params["bn1_moving_mean"].asnumpy(),
                               ((moving[0][0] + moving[1][0]) / 2).numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(aux_params["bn1_moving_var"].asnumpy(),
                               ((moving[0][1] + moving[1][1]) / 2).numpy(), rtol=1e-4, atol=1e-6)
    # the two devices' statistics really differ (the slices differ), so the average is a real check
    assert (moving[0][0] - moving[1][0]).abs().max().item() > 1e-2


# -- per-device shapes ----------------------------------------------------------------------------
IMAGES = [np.random.RandomState(5).randn(1, 3, 6, 8).astype(np.float32),
          np.random.RandomState(6).randn(1, 3, 5, 7).astype(np.float32)]
LABELS = [np.array([2], np.float32), np.array([0], np.float32)]


def per_device_shapes(images=IMAGES):
    data = [[("data", image.shape)] for image in images]
    label = [[("softmax_label", (1,))] for _ in images]
    return data, label


def per_device_batch(images=IMAGES, labels=LABELS):
    return mx.io.DataBatch(data=[[mx.nd.array(image)] for image in images],
                           label=[[mx.nd.array(label)] for label in labels])


def single_image_gradients(args, image, label):
    module = mx.mod.Module(fully_convolutional(), context=mx.cpu())
    module.bind([("data", image.shape)], [("softmax_label", (1,))])
    module.init_params(arg_params=args)
    module.forward_backward(mx.io.DataBatch([mx.nd.array(image)], [mx.nd.array(label)]))
    grads = {name: block[0].asnumpy().copy() for name, block in
             zip(module._exec_group.param_names, module._exec_group.grad_arrays)}
    return grads, module.get_outputs()[0].asnumpy()


@pytest.mark.parametrize("kvstore", ["local", "device", None])
def test_per_device_shapes_sum_the_per_image_gradients(kvstore):
    """Two contexts bound to different image sizes: each holds its own image's gradient and
    the update applies the sum of the per-image gradients (rescaled by 1 / 2 images)."""
    args, _ = initial_params(fully_convolutional(), (1, 3, 6, 8))
    module = mx.mod.Module(fully_convolutional(), context=TWO)
    data_shapes, label_shapes = per_device_shapes()
    module.bind(data_shapes, label_shapes)
    module.init_params(arg_params=args)
    module.init_optimizer(kvstore=kvstore, optimizer="sgd", optimizer_params={"learning_rate": 0.3})
    group = module._exec_group
    assert [e.arg_dict["data"].shape for e in group.execs] == [(1, 3, 6, 8), (1, 3, 5, 7)]
    assert group.batch_size == 2
    module.forward_backward(per_device_batch())
    separate = [single_image_gradients(args, image, label) for image, label in zip(IMAGES, LABELS)]
    for name, block in zip(group.param_names, group.grad_arrays):
        for device, array in enumerate(block):
            np.testing.assert_allclose(array.asnumpy(), separate[device][0][name], rtol=1e-5, atol=1e-6)
    outputs = module.get_outputs(merge_multi_context=False)[0]
    for device, array in enumerate(outputs):
        np.testing.assert_allclose(array.asnumpy(), separate[device][1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(module.get_outputs()[0].asnumpy(), np.concatenate([s[1] for s in separate]),
                               rtol=1e-5, atol=1e-6)
    module.update()
    arg_params, _ = module.get_params()
    for name, value in args.items():
        total = separate[0][0][name] + separate[1][0][name]
        assert np.abs(total).max() > 1e-4, name
        np.testing.assert_allclose(arg_params[name].asnumpy(), value.asnumpy() - 0.3 * total / 2,
                                   rtol=1e-5, atol=1e-6, err_msg=name)
    metric = mx.metric.Accuracy()
    module.update_metric(metric, [[mx.nd.array(label)] for label in LABELS])
    predicted = [int(np.argmax(s[1])) for s in separate]
    assert metric.get()[1] == pytest.approx(np.mean([p == int(l[0]) for p, l in zip(predicted, LABELS)]))


def test_per_device_shapes_reshape_and_automatic_reshape():
    args, _ = initial_params(fully_convolutional(), (1, 3, 6, 8))
    module = mx.mod.Module(fully_convolutional(), context=TWO)
    module.bind(*per_device_shapes())
    module.init_params(arg_params=args)
    weights = [block[0] for block in module._exec_group.param_arrays]
    new_images = [np.random.RandomState(8).randn(1, 3, 9, 4).astype(np.float32),
                  np.random.RandomState(9).randn(1, 3, 7, 7).astype(np.float32)]
    # explicit reshape with one list per context
    module.reshape(*per_device_shapes(new_images))
    assert [e.arg_dict["data"].shape for e in module._exec_group.execs] == [(1, 3, 9, 4), (1, 3, 7, 7)]
    assert all(a is b[0] for a, b in zip(weights, module._exec_group.param_arrays))
    # forward with per-device arrays of other shapes re-binds by itself
    module.reshape(*per_device_shapes())
    module.forward(per_device_batch(new_images), is_train=False)
    assert [e.arg_dict["data"].shape for e in module._exec_group.execs] == [(1, 3, 9, 4), (1, 3, 7, 7)]
    expected = np.concatenate([single_image_gradients(args, image, label)[1]
                               for image, label in zip(new_images, LABELS)])
    np.testing.assert_allclose(module.get_outputs()[0].asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_per_device_shape_errors():
    module = mx.mod.Module(fully_convolutional(), context=TWO)
    data_shapes, label_shapes = per_device_shapes()
    with pytest.raises(MXNetError, match="2 contexts"):
        module.bind(data_shapes + data_shapes[:1], label_shapes + label_shapes[:1])
    module.bind(data_shapes, label_shapes)
    module.init_params()
    with pytest.raises(MXNetError, match="contexts"):
        module.forward(mx.io.DataBatch(data=[[mx.nd.array(IMAGES[0])]] * 3, label=None))


def test_empty_slice_is_a_clear_error():
    module = mx.mod.Module(mlp(), context=TWO, work_load_list=[1, 100])
    with pytest.raises(MXNetError, match="work_load_list"):
        module.bind([("data", (8, 10))], [("softmax_label", (8,))])
    module = mx.mod.Module(mlp(), context=TWO)
    with pytest.raises(MXNetError, match="batch"):
        module.bind([("data", (1, 10))], [("softmax_label", (1,))])
    with pytest.raises(MXNetError, match="work_load_list"):
        mx.mod.Module(mlp(), context=TWO, work_load_list=[1, 2, 3])


def test_list_of_data_batches_one_per_device():
    """MXNet's pre-sliced form: a list of DataBatch, one per context."""
    args, _ = initial_params(mlp(), (8, 10))
    module = mx.mod.Module(mlp(), context=TWO)
    module.bind([("data", (8, 10))], [("softmax_label", (8,))])
    module.init_params(arg_params=args)
    batches = [mx.io.DataBatch([mx.nd.array(X_MLP[i * 4:(i + 1) * 4])], [mx.nd.array(Y_MLP[i * 4:(i + 1) * 4])])
               for i in range(2)]
    module.forward(batches, is_train=False)
    single = mx.mod.Module(mlp(), context=mx.cpu())
    single.bind([("data", (8, 10))], [("softmax_label", (8,))], for_training=False)
    single.init_params(arg_params=args)
    single.forward(mx.io.DataBatch([mx.nd.array(X_MLP[:8])], [mx.nd.array(Y_MLP[:8])]), is_train=False)
    np.testing.assert_allclose(module.get_outputs()[0].asnumpy(), single.get_outputs()[0].asnumpy(),
                               rtol=1e-5, atol=1e-6)


# -- the intermediate API on two contexts ---------------------------------------------------------
def bound_mlp(contexts=TWO, batch=8, work_load_list=None, **bind_args):
    args, _ = initial_params(mlp(), (batch, 10))
    module = mx.mod.Module(mlp(), context=contexts, work_load_list=work_load_list)
    module.bind([("data", (batch, 10))], [("softmax_label", (batch,))], **bind_args)
    module.init_params(arg_params=args)
    return module, args


def mlp_batch(start=0, batch=8):
    return mx.io.DataBatch([mx.nd.array(X_MLP[start:start + batch])], [mx.nd.array(Y_MLP[start:start + batch])])


def test_input_grads_merged_and_per_device():
    module, _ = bound_mlp(work_load_list=[1, 3], inputs_need_grad=True)
    single, _ = bound_mlp(contexts=mx.cpu(), inputs_need_grad=True)
    for m in (module, single):
        m.forward_backward(mlp_batch())
    expected = single.get_input_grads()[0].asnumpy()
    assert np.abs(expected).max() > 1e-4
    np.testing.assert_allclose(module.get_input_grads()[0].asnumpy(), expected, rtol=1e-5, atol=1e-7)
    per_device = module.get_input_grads(merge_multi_context=False)
    assert [a.shape for a in per_device[0]] == [(2, 10), (6, 10)]
    np.testing.assert_allclose(per_device[0][0].asnumpy(), expected[:2], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(per_device[0][1].asnumpy(), expected[2:], rtol=1e-5, atol=1e-7)
    plain, _ = bound_mlp()
    with pytest.raises(MXNetError, match="inputs_need_grad"):
        plain.get_input_grads()


def test_grad_req_add_accumulates_on_every_device():
    write, _ = bound_mlp(grad_req="write")
    add, _ = bound_mlp(grad_req="add")
    write.forward_backward(mlp_batch())
    for _ in range(3):
        add.forward_backward(mlp_batch())
    for name, once, thrice in zip(write._exec_group.param_names, write._exec_group.grad_arrays,
                                  add._exec_group.grad_arrays):
        for a, b in zip(once, thrice):
            assert np.abs(a.asnumpy()).max() > 1e-5, name
            np.testing.assert_allclose(b.asnumpy(), 3 * a.asnumpy(), rtol=1e-5, atol=1e-7, err_msg=name)


def test_fixed_param_names_on_two_contexts():
    args, _ = initial_params(mlp(), (8, 10))
    module = mx.mod.Module(mlp(), context=TWO, fixed_param_names=["fc1_weight"])
    module.bind([("data", (8, 10))], [("softmax_label", (8,))])
    module.init_params(arg_params=args)
    module.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.5})
    for start in (0, 8, 16):
        module.forward_backward(mlp_batch(start))
        module.update()
    index = module._exec_group.param_names.index("fc1_weight")
    assert module._exec_group.grad_arrays[index] == [None, None]
    arg_params, _ = module.get_params()
    np.testing.assert_array_equal(arg_params["fc1_weight"].asnumpy(), args["fc1_weight"].asnumpy())
    for array in module._exec_group.param_arrays[index]:
        np.testing.assert_array_equal(array.asnumpy(), args["fc1_weight"].asnumpy())
    for name in ("fc1_bias", "fc2_weight", "fc2_bias"):
        assert np.abs(arg_params[name].asnumpy() - args[name].asnumpy()).max() > 1e-4, name


def stateful_net():
    data = mx.sym.Variable("data")
    state = mx.sym.Variable("state")
    hidden = mx.sym.FullyConnected(data, name="fc", num_hidden=3)
    return mx.sym.MakeLoss(mx.sym.sum(hidden * state), name="loss")


def test_state_names_get_and_set_states():
    module = mx.mod.Module(stateful_net(), data_names=["data"], label_names=None, state_names=["state"],
                           context=TWO, work_load_list=[1, 3])
    module.bind([("data", (8, 4))], None)
    weight = np.random.RandomState(2).randn(3, 4).astype(np.float32)
    module.init_params(arg_params={"fc_weight": mx.nd.array(weight), "fc_bias": mx.nd.zeros(3)})
    assert "state" not in module._param_names
    per_device = module.get_states(merge_multi_context=False)
    assert [a.shape for a in per_device[0]] == [(2, 3), (6, 3)]
    module.set_states(value=1.5)
    np.testing.assert_array_equal(module.get_states()[0].asnumpy(), np.full((8, 3), 1.5, np.float32))
    values = np.arange(24, dtype=np.float32).reshape(8, 3)
    module.set_states(states=[[mx.nd.array(values[:2]), mx.nd.array(values[2:])]])
    np.testing.assert_array_equal(module.get_states()[0].asnumpy(), values)
    x = X_MLP[:8, :4]
    module.forward(mx.io.DataBatch([mx.nd.array(x)], None), is_train=False)
    hidden = x @ weight.T
    outputs = module.get_outputs(merge_multi_context=False)[0]
    np.testing.assert_allclose(outputs[0].asnumpy(), [np.sum(hidden[:2] * values[:2])], rtol=1e-5)
    np.testing.assert_allclose(outputs[1].asnumpy(), [np.sum(hidden[2:] * values[2:])], rtol=1e-5)
    with pytest.raises(MXNetError):
        module.set_states(states=[[mx.nd.array(values[:2]), mx.nd.array(values[2:])]], value=1.0)


def test_shared_module_shares_parameter_arrays():
    owner, args = bound_mlp(batch=8)
    owner.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.5})
    borrower = mx.mod.Module(mlp(), context=TWO)
    borrower.bind([("data", (4, 10))], [("softmax_label", (4,))], shared_module=owner)
    assert borrower.params_initialized and borrower.optimizer_initialized
    for mine, theirs in zip(borrower._exec_group.param_arrays, owner._exec_group.param_arrays):
        assert all(a is b for a, b in zip(mine, theirs))
    assert borrower._updater is owner._updater and borrower._optimizer is owner._optimizer
    assert borrower._kvstore is owner._kvstore
    owner.forward_backward(mlp_batch())
    owner.update()
    updated = numpy_params(owner)
    borrower.forward(mlp_batch(0, 4), is_train=False)
    check = mx.mod.Module(mlp(), context=mx.cpu())
    check.bind([("data", (4, 10))], [("softmax_label", (4,))], for_training=False)
    check.init_params(arg_params={k: mx.nd.array(v) for k, v in updated.items()})
    check.forward(mlp_batch(0, 4), is_train=False)
    np.testing.assert_allclose(borrower.get_outputs()[0].asnumpy(), check.get_outputs()[0].asnumpy(),
                               rtol=1e-5, atol=1e-7)
    unbound = mx.mod.Module(mlp(), context=TWO)
    with pytest.raises(MXNetError):
        mx.mod.Module(mlp(), context=TWO).bind([("data", (4, 10))], [("softmax_label", (4,))],
                                               shared_module=unbound)


def test_borrow_optimizer_continues_the_momentum():
    """Two steps split over a module and a borrower (shared parameters, borrowed optimizer)
    equal two steps of one module: the momentum state is the borrowed one."""
    reference, _ = bound_mlp()
    reference.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.2, "momentum": 0.9})
    for start in (0, 8):
        reference.forward_backward(mlp_batch(start))
        reference.update()
    owner, _ = bound_mlp()
    owner.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.2, "momentum": 0.9})
    owner.forward_backward(mlp_batch(0))
    owner.update()
    borrower = mx.mod.Module(mlp(), context=TWO)
    borrower.bind([("data", (8, 10))], [("softmax_label", (8,))], shared_module=owner)
    borrower.borrow_optimizer(owner)
    borrower.forward_backward(mlp_batch(8))
    borrower.update()
    expected = numpy_params(reference)
    got = numpy_params(owner)
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-5, atol=1e-6, err_msg=name)
    fresh = mx.mod.Module(mlp(), context=TWO)
    with pytest.raises(MXNetError, match="optimizer"):
        fresh.borrow_optimizer(mx.mod.Module(mlp(), context=TWO))


def test_install_monitor_on_two_contexts(caplog):
    module, args = bound_mlp(work_load_list=[1, 3])
    monitor = mx.mon.Monitor(1, pattern="fc1_output|fc2_weight", sort=True)
    module.install_monitor(monitor)
    assert len(monitor.exes) == 2
    monitor.tic()
    module.forward(mlp_batch(), is_train=False)
    with caplog.at_level(logging.INFO):
        monitor.toc_print()
    hidden = X_MLP[:8] @ args["fc1_weight"].asnumpy().T + args["fc1_bias"].asnumpy()
    weight = args["fc2_weight"].asnumpy()
    rms = lambda array: np.sqrt(np.sum(array.astype(np.float64) ** 2) / array.size)
    expected = [("fc1_output", rms(hidden[:2])), ("fc1_output", rms(hidden[2:])),
                ("fc2_weight", rms(weight)), ("fc2_weight", rms(weight))]
    lines = [record.getMessage() for record in caplog.records if record.getMessage().startswith("Batch:")]
    assert len(lines) == 4
    for line, (name, value) in zip(lines, expected):
        assert line.startswith("Batch:       1 " + name.ljust(30) + " ")
        assert line.endswith("\t")
        assert float(line.split()[-1]) == pytest.approx(value, rel=1e-5)


def test_force_rebind_keeps_parameters():
    module, args = bound_mlp()
    module.bind([("data", (6, 10))], [("softmax_label", (6,))])      # ignored: already bound
    assert module._exec_group.batch_size == 8
    module.bind([("data", (6, 10))], [("softmax_label", (6,))], force_rebind=True, for_training=False)
    assert module.binded and not module.for_training and module._exec_group.batch_size == 6
    assert module.data_shapes[0].shape == (6, 10)
    for name, block in zip(module._exec_group.param_names, module._exec_group.param_arrays):
        for array in block:
            np.testing.assert_array_equal(array.asnumpy(), args[name].asnumpy())
    module.forward(mlp_batch(0, 6))
    assert module.get_outputs()[0].shape == (6, 4)


def test_reshape_and_automatic_reshape_on_two_contexts():
    module, args = bound_mlp(work_load_list=[1, 3])
    weights = [block[0] for block in module._exec_group.param_arrays]
    module.reshape([("data", (12, 10))], [("softmax_label", (12,))])
    assert module._exec_group.slices == [slice(0, 3), slice(3, 12)]
    assert all(a is b[0] for a, b in zip(weights, module._exec_group.param_arrays))
    single = mx.mod.Module(mlp(), context=mx.cpu())
    single.bind([("data", (20, 10))], [("softmax_label", (20,))], for_training=False)
    single.init_params(arg_params=args)
    single.forward(mlp_batch(0, 20), is_train=False)
    expected = single.get_outputs()[0].asnumpy()
    module.forward(mlp_batch(0, 20), is_train=False)          # 20 rows: re-binds by itself
    assert module.data_shapes[0].shape == (20, 10)
    assert module._exec_group.slices == [slice(0, 5), slice(5, 20)]
    np.testing.assert_allclose(module.get_outputs()[0].asnumpy(), expected, rtol=1e-5, atol=1e-7)
    module.forward(mlp_batch(0, 8), is_train=False)
    np.testing.assert_allclose(module.get_outputs()[0].asnumpy(), expected[:8], rtol=1e-5, atol=1e-7)


def test_prepare_with_sparse_row_id_fn():
    module, _ = bound_mlp()
    module.init_optimizer(kvstore="local", optimizer="sgd")
    assert module._update_on_kvstore
    seen = []

    def row_ids(batch):
        seen.append(batch)
        return {"fc1_weight": mx.nd.array([0, 1])}

    batch = mlp_batch()
    with pytest.warns(UserWarning, match="fc1_weight.stype is not 'row_sparse'"):
        module.prepare(batch, sparse_row_id_fn=row_ids)
    assert seen == [batch]
    module.prepare(batch)                                       # nothing to do for dense parameters
    on_workers, _ = bound_mlp()
    on_workers.init_optimizer(kvstore=None, optimizer="sgd")
    with pytest.warns(UserWarning, match="not updated in the KVStore"):
        on_workers.prepare(batch, sparse_row_id_fn=row_ids)
    assert seen == [batch]
    with pytest.raises(MXNetError, match="bind"):
        mx.mod.Module(mlp(), context=TWO).prepare(batch)


@pytest.mark.parametrize("kvstore", ["local", None])
@pytest.mark.parametrize("loader", ["set_params", "load_params"])
def test_set_params_after_init_optimizer_takes_effect(kvstore, loader, tmp_path):
    """mxtorch difference from MXNet: new parameters reach every device and the kvstore's
    copy, so the next update starts from them (MXNet's kvstore kept the stale copy)."""
    module, _ = bound_mlp()
    module.init_optimizer(kvstore=kvstore, optimizer="sgd", optimizer_params={"learning_rate": 0.5})
    module.forward_backward(mlp_batch())
    module.update()
    new_args, _ = initial_params(mlp(), (8, 10), seed=99)
    if loader == "set_params":
        module.set_params(new_args, {})
    else:
        mx.model.save_checkpoint(str(tmp_path / "new"), 1, None, new_args, {})
        module.load_params(str(tmp_path / "new-0001.params"))
    for name, block in zip(module._exec_group.param_names, module._exec_group.param_arrays):
        for array in block:
            np.testing.assert_array_equal(array.asnumpy(), new_args[name].asnumpy())
    module.forward_backward(mlp_batch(8))
    module.update()
    single, _ = bound_mlp(contexts=mx.cpu())
    single.set_params(new_args, {})
    single.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.5})
    single.forward_backward(mlp_batch(8))
    single.update()
    expected, got = numpy_params(single), numpy_params(module)
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-5, atol=1e-6, err_msg=name)


def test_total_exec_bytes_counts_the_bound_arrays():
    module, _ = bound_mlp()
    group = module._exec_group
    param_bytes = sum(a.size * 4 for block in group.param_arrays for a in block)
    grad_bytes = sum(a.size * 4 for block in group.grad_arrays for a in block)
    assert module._total_exec_bytes == group._total_exec_bytes
    assert module._total_exec_bytes >= param_bytes + grad_bytes + 8 * 10 * 4
