"""Bad input raises MXNetError naming what was expected and what was given: sizes, contexts,
bind arguments, imperative calls, optimizer arguments, iterators, set_params names."""
import numpy as np
import pytest

import mxtorch as mx


@pytest.mark.parametrize("make", [
    lambda x: mx.sym.FullyConnected(x, num_hidden=0),
    lambda x: mx.sym.Convolution(x, kernel=(0, 3), num_filter=2),
    lambda x: mx.sym.Convolution(x, kernel=(3, 3), stride=(0, 1), num_filter=2),
    lambda x: mx.sym.Pooling(x, kernel=(2, 2), stride=(0, 0)),
])
def test_non_positive_sizes_are_rejected(make):
    with pytest.raises(mx.MXNetError, match="must"):
        make(mx.sym.Variable("x"))


def test_bad_contexts_and_bind_arguments_raise_mxnet_errors():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=2)
    if mx.num_gpus() == 0:
        with pytest.raises(mx.MXNetError, match="gpu\\(0\\).*no such GPU"):
            mx.nd.ones((2, 2), ctx=mx.gpu(0))
    with pytest.raises(mx.MXNetError, match="device_id"):
        mx.gpu(-1)
    with pytest.raises(mx.MXNetError, match="context must be"):
        mx.mod.Module(net, context="cpu")
    with pytest.raises(mx.MXNetError, match="symbol must be"):
        mx.mod.Module("net")
    with pytest.raises(mx.MXNetError, match="work_load_list"):
        mx.mod.Module(net, context=[mx.cpu(0), mx.cpu(1)], work_load_list=[1, -1])
    module = mx.mod.Module(net, label_names=None)
    with pytest.raises(mx.MXNetError, match="'data'.*non-negative integers.*4.5"):
        module.bind([("data", (4.5, 10))])
    with pytest.raises(mx.MXNetError, match="frequent"):
        mx.callback.Speedometer(8, 0)


@pytest.mark.parametrize("kwargs", [{"momentum": "abc"}, {"learning_rate": "abc"}, {"wd": None}])
def test_optimizer_arguments_are_checked_when_created(kwargs):
    with pytest.raises(mx.MXNetError, match="must be a number"):
        mx.optimizer.create("sgd", **kwargs)


def test_roll_over_past_the_data_raises_mxnet_error():
    iterator = mx.io.NDArrayIter(np.ones((3, 2)), np.ones(3), batch_size=8, last_batch_handle="roll_over")
    assert list(iterator) == []          # as MXNet: the first epoch yields nothing
    iterator.reset()
    with pytest.raises(mx.MXNetError, match="cannot take samples"):
        list(iterator)                   # MXNet failed here with an operator error


@pytest.mark.parametrize("call, message", [
    (lambda nd: nd.FullyConnected(nd.ones((2, 4)), nd.ones((3, 4)), nd.ones(3), num_hidden=7), "weight"),
    (lambda nd: nd.Convolution(nd.ones((1, 1, 5, 5)), nd.ones((2, 1, 2, 2)), nd.ones(2), kernel=(3, 3),
                               num_filter=2), "weight"),
    (lambda nd: nd.SoftmaxOutput(nd.ones((2, 3)), nd.ones(5)), "label"),
    (lambda nd: nd.elemwise_add(nd.ones((2, 3)), nd.ones((3,))), "shape mismatch"),
    (lambda nd: nd.batch_dot(nd.ones((2, 3)), nd.ones((3, 2))), "at least 3 axes"),
    (lambda nd: nd.concat(nd.ones((2, 2)), nd.ones((2, 2)), dim=4), "dim 4"),
    (lambda nd: nd.FullyConnected(nd.ones((2, 4)), np.ones((3, 4)), np.ones(3), num_hidden=3), "must be an NDArray"),
    (lambda nd: nd.ones(2) + nd.ones(3), "do not broadcast"),
    (lambda nd: nd.zeros((-1, 2)), "non-negative"),
    (lambda nd: nd.ones(2, ctx="cpu(0)"), "ctx must be a Context"),
])
def test_imperative_calls_check_their_inputs(call, message):
    with pytest.raises(mx.MXNetError, match=message):
        call(mx.nd)


def test_set_params_with_unknown_names_is_also_a_value_error():
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2, name="fc")
    module = mx.mod.Module(net, label_names=None)
    module.bind(data_shapes=[("data", (1, 3))])
    module.init_params()
    arg_params, aux_params = module.get_params()
    extra = dict(arg_params, other_weight=mx.nd.ones((2, 3)))
    with pytest.raises(ValueError, match="'other_weight' is not an argument"):   # MXNet raised ValueError
        module.set_params(extra, aux_params, allow_missing=True)
    assert issubclass(mx.base.MXNetValueError, mx.MXNetError)


def test_cli_rejects_values_that_train_nothing(capsys):
    from mxtorch import cli
    assert cli.main(["train", "--num-epochs", "0"]) == 1
    assert "--num-epochs must be at least 1" in capsys.readouterr().err
    assert cli.main(["train", "--lr", "nan"]) == 1
    assert "--lr must be a positive finite number" in capsys.readouterr().err


def test_clip_with_crossed_bounds_follows_mxnets_kernel_order():
    # MXNet 1.9.1 (tools/gen_input_validation_reference.py): clip([1, 5], 4, 2) == [4, 2]
    x = mx.nd.array([1, 3, 5])
    assert mx.nd.clip(x, 4, 2).asnumpy().tolist() == [4.0, 2.0, 2.0]
    assert mx.nd.clip(mx.nd.array([1, 5], dtype="int32"), 4, 2).asnumpy().tolist() == [4, 2]
    assert mx.nd.clip(x, 2, 4).asnumpy().tolist() == [2.0, 3.0, 4.0]


def test_out_of_range_arguments_raise_as_in_mxnet():
    # MXNet 1.9.1 raises for each (tools/gen_input_validation_reference.py)
    with pytest.raises(mx.MXNetError, match="gather_nd.*index 5 is out of bounds for axis 0 with size 3") as info:
        mx.nd.gather_nd(mx.nd.array([1, 2, 3]), mx.nd.array([[5]]))
    assert isinstance(info.value, IndexError)
    assert mx.nd.gather_nd(mx.nd.array([1, 2, 3]), mx.nd.array([[-3]])).asnumpy().tolist() == [1.0]
    # a sampler's parameter check is made while drawing: MXNet raises it at the next wait
    with pytest.raises(mx.MXNetError, match="'scale' must be positive.*scale=-1"):
        mx.nd.random.normal(0, -1, shape=(2,)).asnumpy()
    with pytest.raises(mx.MXNetError, match="'low' must be less than or equal to 'high'"):
        mx.nd.random.uniform(2, 1, shape=(2,)).asnumpy()
    with pytest.raises(mx.MXNetError, match="'lam' must be positive"):
        mx.nd.random.exponential(-1, shape=(2,)).asnumpy()
    data = mx.nd.ones((2, 3))
    for begin, end, message in ((5, 7, "invalid end=7"), (-5, 2, "invalid begin=-5"), (2, 1, "select no element"),
                                (1, 1, "select no element")):
        with pytest.raises(mx.MXNetError, match=f"slice_axis: .*{message}"):
            mx.nd.slice_axis(data, axis=1, begin=begin, end=end)
    assert mx.nd.slice_axis(data, axis=1, begin=-2, end=None).shape == (2, 2)


def test_executor_reshape_grows_only_with_allow_up_sizing():
    # MXNet 1.9.1: "New shape of arg: data is larger than original ... set allow_up_sizing=True"
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=3)
    executor = net.simple_bind(mx.cpu(), data=(2, 4))
    with pytest.raises(mx.MXNetError, match="'data' is larger than the bound shape \\(2, 4\\).*allow_up_sizing"):
        executor.reshape(data=(5, 4))
    assert executor.reshape(data=(5, 4), allow_up_sizing=True).arg_dict["data"].shape == (5, 4)
    smaller = executor.reshape(data=(1, 4))
    assert smaller.arg_dict["data"].shape == (1, 4)
    assert smaller.forward()[0].shape == (1, 3)


def test_inputs_of_the_wrong_front_end_are_named():
    # MXNet 1.9.1: AssertionError "Argument data must be Symbol instances" / "must have NDArray type"
    cases = ((lambda: mx.sym.FullyConnected(mx.nd.ones((2, 3)), num_hidden=2), "must be a Symbol, but got NDArray"),
             (lambda: mx.nd.FullyConnected(mx.sym.Variable("data"), num_hidden=2),
              "must be an NDArray, but got Symbol"),
             (lambda: mx.nd.relu([1, -2]), "relu: input 'data' must be an NDArray, but got list \\[1, -2\\]"))
    for action, message in cases:
        with pytest.raises(mx.MXNetError, match=message) as info:
            action()
        assert isinstance(info.value, AssertionError)
    assert mx.nd.clip(mx.nd.array([1, 5]), 2, 4).asnumpy().tolist() == [2.0, 4.0]


def _fit_module(**kwargs):
    data = mx.sym.Variable("data")
    out = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(data, num_hidden=2), name="softmax")
    it = mx.io.NDArrayIter(np.random.RandomState(0).rand(8, 3).astype("f"), np.array([0, 1] * 4, "f"),
                           batch_size=4)
    module = mx.mod.Module(out)
    module.fit(it, num_epoch=1, **kwargs)
    return module


def test_fit_rejects_an_unknown_kvstore_and_defaults_a_none_initializer():
    with pytest.raises(mx.MXNetError, match="unknown kvstore type 'foo'"):
        mx.kv.create("foo")
    with pytest.raises(mx.MXNetError, match="unknown kvstore type 'foo'"):
        _fit_module(kvstore="foo")
    # documented difference (README): None means MXNet's default Uniform(0.01); fit trains from there
    module = _fit_module(initializer=None, optimizer_params=(("learning_rate", 0.0),))
    (weight,) = [value.asnumpy() for key, value in module.get_params()[0].items() if key.endswith("_weight")]
    assert np.abs(weight).max() <= 0.01 and np.abs(weight).max() > 0
