"""Rules MXNet 1.9.1 applies to attributes, creation shapes and binding arguments (checked
against what MXNet 1.9.1 raises or accepts): Pooling's 'same' convention and padding, diag's
diagonal range, tile's reps, broadcast_like's axes, zeros / ones / full with unknown (0 or
empty) shapes, simple_bind's non-shape keywords, grad_req entries for other names, and the
executor group's shared_data_arrays."""
import warnings

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError
from mxtorch.module.executor_group import DataParallelExecutorGroup


def test_pooling_same_convention():
    data = mx.nd.array(np.random.rand(1, 1, 10))
    # MXNet accepts an all-zero pad of any length with 'same' and outputs ceil(10 / 2) columns
    out = mx.nd.Pooling(data, kernel=2, stride=2, pad=(0, 0, 0), pool_type="max", pooling_convention="same")
    assert out.shape == (1, 1, 5)
    with pytest.raises(MXNetError, match="Pooling.*'same' does not take padding"):
        mx.nd.Pooling(data, kernel=2, stride=2, pad=2, pool_type="max", pooling_convention="same")


def test_diag_range():
    a = mx.nd.ones((3, 4))
    assert mx.nd.diag(a, k=4).shape == (0,)      # MXNet: the empty diagonal just outside exists
    assert mx.nd.diag(a, k=-3).shape == (0,)
    for k in (5, -4):
        with pytest.raises(MXNetError, match="diag.*does not exist"):
            mx.nd.diag(a, k=k)


def test_tile_and_broadcast_like_arguments():
    for reps in ((1, 0, 3), (1, 2, -3)):
        with pytest.raises(MXNetError, match="tile.*'reps' must have positive entries"):
            mx.nd.tile(mx.nd.ones((4, 4)), reps)
    with pytest.raises(MXNetError, match="broadcast_like.*'lhs_axes' must not be an empty tuple"):
        mx.nd.broadcast_like(mx.nd.ones((2, 1)), mx.nd.ones((2, 3)), lhs_axes=(), rhs_axes=())
    assert mx.nd.broadcast_like(mx.nd.ones((2, 1)), mx.nd.ones((2, 3)), lhs_axes=(1,), rhs_axes=(1,)).shape == (2, 3)


def test_creation_with_unknown_shapes():
    for function in (mx.nd.zeros, mx.nd.ones):
        for shape in ((), (0, 1, 3, 0)):
            with pytest.raises(MXNetError, match="unknown dimensions"):
                function(shape=shape)
    with pytest.raises(MXNetError, match="full: shape"):
        mx.nd.full((), 1.0)
    # MXNet 1.9.1's full fills an empty array: a 0 dimension is a zero-size array, as in empty
    assert mx.nd.full((2, 0), 1.0).shape == (2, 0)
    assert mx.nd.empty((2, 0)).shape == (2, 0)
    with mx.np_shape(True):
        assert mx.nd.ones(()).shape == ()
        assert mx.nd.zeros((0, 1, 0, 4)).shape == (0, 1, 0, 4)


def test_simple_bind_ignores_non_shape_keywords_with_warning():
    a, indices = mx.sym.var("a"), mx.sym.var("indices")
    symbol = mx.sym.take(a, indices, axis=0)
    with pytest.warns(UserWarning, match=r"\['axis', 'mode'\] are not shapes"):
        executor = symbol.simple_bind(mx.cpu(), a=(4, 3), indices=(2,), axis=0, mode="clip")
    assert executor.outputs[0].shape == (2, 3)


def test_grad_req_entries_for_other_names_are_ignored():
    x, w = mx.sym.var("x"), mx.sym.var("w")
    conv = mx.sym.Convolution(x, w, num_filter=2, kernel=(1,), no_bias=True)
    args = {"x": mx.nd.ones((1, 1, 3)), "w": mx.nd.ones((2, 1, 1))}
    grads = {"x": mx.nd.zeros((1, 1, 3)), "w": mx.nd.zeros((2, 1, 1))}
    with pytest.warns(UserWarning, match=r"\['b'\] are not arguments"):
        executor = conv.bind(mx.cpu(), args, args_grad=grads, grad_req={"x": "null", "w": "write", "b": "add"})
    executor.forward(is_train=True)
    executor.backward(mx.nd.ones((1, 2, 3)))
    np.testing.assert_array_equal(grads["w"].asnumpy().ravel(), [3, 3])
    assert not grads["x"].asnumpy().any()


def _group(symbol, param_names, shared_group=None):
    return DataParallelExecutorGroup(symbol, [mx.cpu(0), mx.cpu(1)], [1, 1], [("data", (4, 3))],
                                     [("label", (4,))], param_names, for_training=True, inputs_need_grad=False,
                                     shared_group=shared_group)


def test_shared_data_arrays_hold_inputs_and_are_shared():
    data, label = mx.sym.var("data"), mx.sym.var("label")
    small = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(data, num_hidden=2, name="fc1"), label, name="out")
    params = ["fc1_weight", "fc1_bias"]
    first = _group(small, params)
    assert [sorted(d) for d in first.shared_data_arrays] == [["data", "label"]] * 2
    hidden = mx.sym.FullyConnected(mx.sym.FullyConnected(data, num_hidden=2, name="fc1"), num_hidden=2, name="fc2")
    second = _group(mx.sym.SoftmaxOutput(hidden, label, name="out"), params, shared_group=first)
    assert second.shared_data_arrays is first.shared_data_arrays
    for i, executor in enumerate(second.execs):
        shared = second.shared_data_arrays[i]
        assert sorted(shared) == ["data", "fc2_bias", "fc2_weight", "label"]
        assert executor.arg_dict["data"] is first.execs[i].arg_dict["data"] is shared["data"]
        assert executor.arg_dict["fc1_weight"] is first.execs[i].arg_dict["fc1_weight"]


def test_cast_infers_partial_shapes_backwards():
    data = mx.sym.Variable("data", shape=(1, 0, 0, 0))
    weight = mx.sym.Variable("weight")
    conv = mx.sym.Convolution(data=mx.sym.cast(data, dtype="float16"), weight=mx.sym.cast(weight, dtype="float16"),
                              pad=(3, 3), num_filter=64, stride=(2, 2), no_bias=True, kernel=(7, 7))
    arg_shapes = dict(zip(conv.list_arguments(), conv.infer_shape_partial()[0]))
    # MXNet 1.9.1: the weight behind the cast gets (num_filter, 0, kernel) from the convolution
    assert arg_shapes == {"data": (1, 0, 0, 0), "weight": (64, 0, 7, 7)}
