"""The compatibility contract with legacy Module code (issue 5).

Detection pipelines (Deformable-ConvNets, mx-rcnn and their descendants) subclass
``Module`` and override ``bind`` to parse one list of shapes per device and build the
``DataParallelExecutorGroup`` themselves, or replace ``Module.bind`` outright with a
function that manipulates the module's private state.  Both are written here in our
own words, against the names and meanings MXNet 1.9.1's Module keeps.
"""
import logging

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.module.base_module import _parse_data_desc
from mxtorch.module.executor_group import DataParallelExecutorGroup

TWO = [mx.cpu(0), mx.cpu(1)]


def detector_like_net():
    """An image of any size plus ``im_info`` (height, width, scale) in, two classes out."""
    data = mx.sym.Variable("data")
    im_info = mx.sym.Variable("im_info")
    net = mx.sym.Convolution(data, name="conv1", kernel=(3, 3), num_filter=4, pad=(1, 1))
    net = mx.sym.Activation(net, name="relu1", act_type="relu")
    net = mx.sym.Pooling(net, name="gpool", kernel=(1, 1), global_pool=True, pool_type="avg")
    net = mx.sym.Flatten(net, name="flat")
    net = mx.sym.Concat(net, im_info * 0.01, dim=1, name="with_info")
    net = mx.sym.FullyConnected(net, name="cls_score", num_hidden=2)
    return mx.sym.SoftmaxOutput(net, name="cls_prob")


class ImagePerDeviceIter(mx.io.DataIter):
    """Yields batches holding one image per device, each device's image of its own size:
    ``data = [[image, im_info], ...]`` and ``provide_data`` one shape list per device."""

    SIZES = [[(6, 8), (5, 7)], [(7, 5), (6, 6)], [(6, 8), (5, 7)], [(8, 6), (4, 9)]]

    def __init__(self, num_batches=8, seed=0):
        super().__init__(batch_size=2)
        rng = np.random.RandomState(seed)
        self.batches = []
        for index in range(num_batches):
            images, infos, labels = [], [], []
            for height, width in self.SIZES[index % len(self.SIZES)]:
                label = rng.randint(0, 2)
                image = rng.randn(1, 3, height, width).astype(np.float32) * 0.5 + (1.0 if label else -1.0)
                images.append(image)
                infos.append(np.array([[height, width, 1.0]], np.float32))
                labels.append(np.array([label], np.float32))
            self.batches.append((images, infos, labels))
        self.cursor = 0

    def shapes(self, index):
        images, infos, labels = self.batches[index]
        data = [[("data", image.shape), ("im_info", info.shape)] for image, info in zip(images, infos)]
        label = [[("cls_prob_label", lab.shape)] for lab in labels]
        return data, label

    @property
    def provide_data(self):
        return self.shapes(min(self.cursor, len(self.batches) - 1))[0]

    @property
    def provide_label(self):
        return self.shapes(min(self.cursor, len(self.batches) - 1))[1]

    def reset(self):
        self.cursor = 0

    def next(self):
        if self.cursor >= len(self.batches):
            raise StopIteration
        images, infos, labels = self.batches[self.cursor]
        data_shapes, label_shapes = self.shapes(self.cursor)
        self.cursor += 1
        return mx.io.DataBatch(data=[[mx.nd.array(image), mx.nd.array(info)] for image, info in zip(images, infos)],
                               label=[[mx.nd.array(lab)] for lab in labels], pad=0,
                               provide_data=data_shapes, provide_label=label_shapes)


class PerDeviceModule(mx.mod.Module):
    """A Module subclass the way detection code writes one: the constructor freezes
    parameters by name prefix; ``bind`` parses each device's shapes with ``_parse_data_desc``
    and builds the executor group itself from the module's private state."""

    def __init__(self, symbol, data_names, label_names, logger=logging, context=mx.cpu(), work_load_list=None,
                 fixed_param_prefix=None):
        frozen = []
        for name in symbol.list_arguments():
            if any(name.startswith(prefix) for prefix in (fixed_param_prefix or [])):
                frozen.append(name)
        super(PerDeviceModule, self).__init__(symbol, data_names=data_names, label_names=label_names,
                                              logger=logger, context=context, work_load_list=work_load_list,
                                              fixed_param_names=frozen)
        self.bind_calls = 0

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        self.bind_calls += 1
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        assert not (inputs_need_grad and not for_training)
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        if label_shapes is None:
            label_shapes = [None] * len(data_shapes)
        parsed = [_parse_data_desc(self.data_names, self.label_names, device_data, device_label)
                  for device_data, device_label in zip(data_shapes, label_shapes)]
        self._data_shapes = tuple(device[0] for device in parsed)
        self._label_shapes = tuple(device[1] for device in parsed)
        if all(device is None for device in self._label_shapes):
            self._label_shapes = None
        shared_group = None
        if shared_module is not None:
            assert shared_module.binded and shared_module.params_initialized
            shared_group = shared_module._exec_group
        self._exec_group = DataParallelExecutorGroup(
            self._symbol, self._context, self._work_load_list, self._data_shapes, self._label_shapes,
            self._param_names, for_training, inputs_need_grad, shared_group, logger=self.logger,
            fixed_param_names=self._fixed_param_names, grad_req=grad_req, state_names=self._state_names)
        if shared_module is not None:
            self.params_initialized = True
            self._arg_params, self._aux_params = shared_module._arg_params, shared_module._aux_params
        elif self.params_initialized:
            self._exec_group.set_params(self._arg_params, self._aux_params)
        else:
            assert self._arg_params is None and self._aux_params is None
            self._arg_params = {name: mx.nd.zeros(block[0].shape, dtype=block[0].dtype)
                                for name, block in zip(self._param_names, self._exec_group.param_arrays)}
            self._aux_params = {name: mx.nd.zeros(block[0].shape, dtype=block[0].dtype)
                                for name, block in zip(self._aux_names, self._exec_group.aux_arrays)}
        if shared_module is not None and shared_module.optimizer_initialized:
            self.borrow_optimizer(shared_module)
        self.binded = True


def initial_params():
    rng = np.random.RandomState(4)
    return {"conv1_weight": mx.nd.array(rng.uniform(-0.3, 0.3, (4, 3, 3, 3))), "conv1_bias": mx.nd.zeros(4),
            "cls_score_weight": mx.nd.array(rng.uniform(-0.3, 0.3, (2, 7))), "cls_score_bias": mx.nd.zeros(2)}


def fit_detector(module, num_epoch=6):
    metric = mx.metric.Accuracy()
    accuracies = []
    module.fit(ImagePerDeviceIter(), eval_metric=metric, num_epoch=num_epoch, optimizer="sgd",
               optimizer_params={"learning_rate": 0.1, "momentum": 0.9}, arg_params=initial_params(),
               epoch_end_callback=lambda *args: accuracies.append(metric.get()[1]))
    return accuracies


def test_detection_style_subclass_trains_on_per_device_shapes():
    module = PerDeviceModule(detector_like_net(), data_names=["data", "im_info"], label_names=["cls_prob_label"],
                             context=TWO, fixed_param_prefix=["conv1"])
    accuracies = fit_detector(module)
    assert module.bind_calls == 1
    assert [[desc.name for desc in device] for device in module._data_shapes] == [["data", "im_info"]] * 2
    assert module._exec_group.per_device and module._exec_group.batch_size == 2
    # the last batch re-bound each device to its own image size
    assert [e.arg_dict["data"].shape for e in module._exec_group.execs] == [(1, 3, 8, 6), (1, 3, 4, 9)]
    assert accuracies[-1] == 1.0 and accuracies[0] < 1.0
    arg_params, _ = module.get_params()
    start = initial_params()
    for name in ("conv1_weight", "conv1_bias"):
        np.testing.assert_array_equal(arg_params[name].asnumpy(), start[name].asnumpy())
    assert np.abs(arg_params["cls_score_weight"].asnumpy() - start["cls_score_weight"].asnumpy()).max() > 1e-2
    # mxtorch's own Module binds per-device shape lists natively: the same training, the same numbers
    native = mx.mod.Module(detector_like_net(), data_names=["data", "im_info"], label_names=["cls_prob_label"],
                           context=TWO, fixed_param_names=["conv1_weight", "conv1_bias"])
    assert fit_detector(native) == accuracies
    native_params, _ = native.get_params()
    for name, value in native_params.items():
        np.testing.assert_allclose(arg_params[name].asnumpy(), value.asnumpy(), rtol=1e-6, atol=1e-7, err_msg=name)


def test_detection_style_subclass_predicts_after_rebinding_for_inference():
    module = PerDeviceModule(detector_like_net(), data_names=["data", "im_info"], label_names=["cls_prob_label"],
                             context=TWO)
    fit_detector(module, num_epoch=2)
    data_iter = ImagePerDeviceIter(num_batches=2, seed=1)
    with pytest.warns(UserWarning, match="label_shapes"):     # MXNet's warning: no label shapes given
        module.bind(data_iter.provide_data, None, for_training=False, force_rebind=True)
    assert not module.for_training and module._label_shapes is None
    batch = data_iter.next()
    module.forward(batch, is_train=False)
    per_device = module.get_outputs(merge_multi_context=False)[0]
    arg_params, aux_params = module.get_params()
    for device, output in enumerate(per_device):
        single = mx.mod.Module(detector_like_net(), data_names=["data", "im_info"],
                               label_names=["cls_prob_label"], context=mx.cpu())
        with pytest.warns(UserWarning, match="label_shapes"):
            single.bind([("data", batch.data[device][0].shape), ("im_info", (1, 3))], for_training=False)
        single.set_params(arg_params, aux_params)
        single.forward(mx.io.DataBatch(batch.data[device]), is_train=False)
        np.testing.assert_allclose(output.asnumpy(), single.get_outputs()[0].asnumpy(), rtol=1e-5, atol=1e-7)


# -- replacing Module.bind --------------------------------------------------------------------------
MXNET_FRESH_STATE = {
    # the values MXNet 1.9.1's Module holds right after construction (checked with MXNet)
    "_grad_req": None, "_data_shapes": None, "_label_shapes": None, "_arg_params": None, "_aux_params": None,
    "_exec_group": None, "_total_exec_bytes": 0, "_optimizer": None, "_kvstore": None,
    "_update_on_kvstore": None, "_updater": None, "_preload_opt_states": None, "binded": False,
    "for_training": False, "inputs_need_grad": False, "params_initialized": False,
    "optimizer_initialized": False,
}


def make_patched_bind(log):
    """A replacement for ``Module.bind`` (module as first argument) that rebuilds MXNet's
    binding from the private state and logs what it allocated, as memory-profiling and
    detection forks of MXNet did."""

    def patched_bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
                     force_rebind=False, shared_module=None, grad_req="write"):
        log.append(("state", {name: getattr(self, name) for name in ("_optimizer", "_kvstore",
                                                                     "_update_on_kvstore", "_updater",
                                                                     "_preload_opt_states")}))
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        self.for_training, self.inputs_need_grad, self._grad_req = for_training, inputs_need_grad, grad_req
        self._data_shapes, self._label_shapes = _parse_data_desc(self.data_names, self.label_names, data_shapes,
                                                                 label_shapes)
        expected_params = [n for n in self._symbol.list_arguments()
                           if n not in self.data_names + self.label_names + self._state_names]
        assert self._param_names == expected_params
        assert self._aux_names == self._symbol.list_auxiliary_states()
        assert set(self._fixed_param_names) <= set(self._param_names)
        self._exec_group = DataParallelExecutorGroup(
            self._symbol, self._context, self._work_load_list, self._data_shapes, self._label_shapes,
            self._param_names, for_training, inputs_need_grad, None, logger=self.logger,
            fixed_param_names=self._fixed_param_names, grad_req=grad_req, state_names=self._state_names)
        self._total_exec_bytes = self._exec_group._total_exec_bytes
        self.logger.info("bound %d executors holding %d bytes", len(self._context), self._total_exec_bytes)
        if self.params_initialized:
            self._exec_group.set_params(self._arg_params, self._aux_params)
        else:
            self._arg_params = {name: mx.nd.zeros(block[0].shape) for name, block in
                                zip(self._param_names, self._exec_group.param_arrays)}
            self._aux_params = {name: mx.nd.zeros(block[0].shape) for name, block in
                                zip(self._aux_names, self._exec_group.aux_arrays)}
        self.binded = True
        log.append(("bound", self._total_exec_bytes))

    return patched_bind


def bn_mlp():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, name="fc1", num_hidden=8)
    net = mx.sym.BatchNorm(net, name="bn1")
    net = mx.sym.Activation(net, name="relu1", act_type="relu")
    net = mx.sym.FullyConnected(net, name="fc2", num_hidden=2)
    return mx.sym.SoftmaxOutput(net, name="softmax")


def separable_data():
    rng = np.random.RandomState(3)
    x = rng.randn(96, 4).astype(np.float32)
    return x, (x[:, 0] - x[:, 2] > 0).astype(np.float32)


def test_fresh_module_private_state_has_mxnet_values():
    module = mx.mod.Module(bn_mlp(), context=TWO, fixed_param_names=["fc1_bias"])
    for name, value in MXNET_FRESH_STATE.items():
        assert getattr(module, name) == value, name
    assert module._context == TWO and module._work_load_list == [1, 1]
    assert module._param_names == ["fc1_weight", "fc1_bias", "bn1_gamma", "bn1_beta", "fc2_weight", "fc2_bias"]
    assert module._fixed_param_names == ["fc1_bias"] and module._state_names == []
    assert module._aux_names == ["bn1_moving_mean", "bn1_moving_var"]
    assert module._symbol is module.symbol and module.logger is logging


def test_monkeypatched_bind_runs_fit_and_resume(monkeypatch, tmp_path, caplog):
    log = []
    monkeypatch.setattr(mx.mod.Module, "bind", make_patched_bind(log))
    x, y = separable_data()
    module = mx.mod.Module(bn_mlp(), context=TWO, fixed_param_names=["fc1_bias"])
    with caplog.at_level(logging.INFO):
        module.fit(mx.io.NDArrayIter(x, y, batch_size=16), num_epoch=5, optimizer="sgd",
                   optimizer_params={"learning_rate": 0.2, "momentum": 0.9}, initializer=mx.init.Xavier(),
                   eval_metric="acc")
    assert [entry[0] for entry in log] == ["state", "bound"]
    assert all(value is None for value in log[0][1].values())
    assert log[1][1] == module._total_exec_bytes > 0
    assert any("bound 2 executors holding" in record.getMessage() for record in caplog.records)
    assert module._update_on_kvstore is True and module._kvstore.type == "local" and module._updater is None
    accuracy = dict(module.score(mx.io.NDArrayIter(x, y, batch_size=16), "acc"))["accuracy"]
    assert accuracy > 0.9
    arg_params, aux_params = module.get_params()
    np.testing.assert_array_equal(arg_params["fc1_bias"].asnumpy(), np.zeros(8, np.float32))
    assert np.abs(aux_params["bn1_moving_mean"].asnumpy()).max() > 1e-3
    # resume from a checkpoint with optimizer states: the patched bind sees the pending states file
    prefix = str(tmp_path / "patched")
    module.save_checkpoint(prefix, 5, save_optimizer_states=True)
    resumed = mx.mod.Module.load(prefix, 5, load_optimizer_states=True, context=TWO,
                                 fixed_param_names=["fc1_bias"])
    log.clear()
    with pytest.warns(UserWarning, match="already initialized"):     # MXNet's: parameters came with load
        resumed.fit(mx.io.NDArrayIter(x, y, batch_size=16), begin_epoch=5, num_epoch=6, optimizer="sgd",
                    optimizer_params={"learning_rate": 0.2, "momentum": 0.9})
    assert log[0][1]["_preload_opt_states"] == prefix + "-0005.states"
    assert resumed._preload_opt_states is None and resumed.optimizer_initialized
    with pytest.warns(UserWarning, match="already initialized"):
        module.fit(mx.io.NDArrayIter(x, y, batch_size=16), begin_epoch=5, num_epoch=6, optimizer="sgd",
                   optimizer_params={"learning_rate": 0.2, "momentum": 0.9})
    for name, value in module.get_params()[0].items():
        np.testing.assert_allclose(resumed.get_params()[0][name].asnumpy(), value.asnumpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=name)


def test_monkeypatched_bind_with_force_rebind_and_shared_state(monkeypatch):
    log = []
    monkeypatch.setattr(mx.mod.Module, "bind", make_patched_bind(log))
    x, y = separable_data()
    module = mx.mod.Module(bn_mlp(), context=TWO)
    module.bind([("data", (16, 4))], [("softmax_label", (16,))])
    module.init_params(mx.init.Xavier())
    first_group = module._exec_group
    weights = module.get_params()[0]["fc1_weight"].asnumpy().copy()
    module.bind([("data", (8, 4))], [("softmax_label", (8,))], force_rebind=True, for_training=False)
    assert module._exec_group is not first_group and module._exec_group.batch_size == 8
    assert module._data_shapes[0].shape == (8, 4)
    np.testing.assert_array_equal(module._exec_group.param_arrays[0][1].asnumpy(), weights)
    module.forward(mx.io.DataBatch([mx.nd.array(x[:8])]), is_train=False)
    assert module.get_outputs()[0].shape == (8, 2)
