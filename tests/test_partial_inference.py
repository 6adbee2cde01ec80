"""Partial shape inference that MXNet 1.9.1 performs (values from MXNet 1.9.1), NumPy shape
semantics in inference, and attribute keys given as operator keywords."""
import numpy as np

import mxtorch as mx


def test_slice_channel_input_follows_partly_known_outputs():
    a = mx.sym.Variable("a", shape=(0, 8, 0))
    parts = mx.sym.SliceChannel(data=a, num_outputs=4, axis=1, squeeze_axis=False)
    total = parts[2] + mx.sym.Variable("c", shape=(6, 2, 3))
    assert total.infer_shape()[0] == [(6, 8, 3), (6, 2, 3)]


def test_convolution_data_spatial_size_from_output_when_stride_is_one():
    a = mx.sym.Variable("a", shape=(0, 3, 0, 0))
    conv = mx.sym.Convolution(data=a, num_filter=4, kernel=(3, 5), pad=(0, 1), name="cv")
    total = conv + mx.sym.Variable("c", shape=(2, 4, 10, 12))
    assert total.infer_shape()[0] == [(2, 3, 12, 14), (4, 3, 3, 5), (4,), (2, 4, 10, 12)]


def test_identity_with_attr_like_rhs_constrains_shape_and_blocks_rhs_gradient():
    w, s = mx.sym.Variable("w"), mx.sym.Variable("s", shape=(1,))
    tied = mx.sym._internal._identity_with_attr_like_rhs(mx.sym.broadcast_mul(w, s), w)
    net = mx.sym.FullyConnected(data=mx.sym.Variable("data"), weight=tied, num_hidden=6, no_bias=True)
    assert net.infer_shape(data=(2, 9)) == ([(2, 9), (6, 9), (1,)], [(2, 6)], [])
    e, f = mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 4.0])
    e.attach_grad()
    f.attach_grad()
    with mx.autograd.record():
        out = mx.nd._internal._identity_with_attr_like_rhs(e * 2, f)
    out.backward()
    np.testing.assert_array_equal(out.asnumpy(), [2, 4])
    np.testing.assert_array_equal(e.grad.asnumpy(), [2, 2])
    np.testing.assert_array_equal(f.grad.asnumpy(), [0, 0])


def test_batch_dot_and_where_leave_output_unknown_like_mxnet():
    x, y, c = mx.sym.Variable("x"), mx.sym.Variable("y"), mx.sym.Variable("c")
    bd = mx.sym.batch_dot(x, y)
    assert bd.infer_shape_partial(x=(0, 0, 4), y=(0, 4, 5))[1] == [(0, 0, 5)]
    assert bd.infer_shape_partial(x=(0, 3, 0), y=(0, 4, 5))[1] == [()]
    where = mx.sym.where(c, x, y)
    assert where.infer_shape_partial(c=(0, 2), x=(0, 2), y=(0, 2))[1] == [()]
    assert where.infer_shape_partial(c=(0,), x=(2, 2), y=(2, 2))[1] == [()]
    assert where.infer_shape_partial(c=(3,), x=(3, 2), y=(3, 2))[1] == [(3, 2)]


def test_numpy_shape_semantics_spell_unknown_as_minus_one_and_none():
    x, y = mx.sym.Variable("x"), mx.sym.Variable("y")
    assert not mx.is_np_shape()
    with mx.np_shape(True):
        assert mx.is_np_shape()
        assert mx.sym.dot(x, y).infer_shape_partial(x=(-1, 3, 4), y=(4, 2)) == \
            ([(-1, 3, 4), (4, 2)], [(-1, 3, 2)], [])
        assert mx.sym.batch_dot(x, y).infer_shape_partial(x=(-1, 3, 4), y=(-1, -1, 2))[1] == [None]
    assert not mx.is_np_shape()

    @mx.use_np_shape
    def inside():
        return mx.is_np_shape()
    assert inside() is True and mx.is_np_shape() is False
    previous = mx.set_np_shape(True)
    assert previous is False and mx.set_np_shape(False) is True


def test_legacy_attribute_keywords_on_operators_and_attr_scope_keys():
    fc = mx.sym.FullyConnected(mx.sym.Variable("d"), num_hidden=3, wd_mult=0.5, ctx_group="g1", name="fc")
    assert fc.list_attr() == {"num_hidden": "3", "__ctx_group__": "g1", "ctx_group": "g1",
                              "__wd_mult__": "0.5", "wd_mult": "0.5"}
    assert fc.attr("wd_mult") == "0.5"
    assert mx.sym.load_json(fc.tojson()).attr_dict()["fc_weight"]["__wd_mult__"] == "0.5"
    with mx.AttrScope(group="4"):
        assert mx.sym.Variable("v").list_attr() == {"group": "4"}


def test_fully_connected_infers_nothing_for_its_parameters_without_data_shape():
    fc = mx.sym.FullyConnected(mx.sym.Variable("d"), num_hidden=8, name="fc")
    assert fc.infer_shape_partial() == ([(), (), ()], [()], [])
    assert fc.infer_shape_partial(d=(3, 5)) == ([(3, 5), (8, 5), (8,)], [(3, 8)], [])


def test_slice_keeps_axes_of_unknown_size_unknown():
    data = mx.sym.var("data", shape=(0, 20))
    assert mx.sym.slice(data, begin=(2, 3), end=(None, 10)).infer_shape_partial()[1] == [(0, 7)]
    with mx.np_shape():
        data = mx.sym.var("data", shape=(-1, 20))
        assert mx.sym.slice(data, begin=(None, None), end=(None, 10), step=(None, 2)).infer_shape_partial()[1] \
            == [(-1, 5)]


def test_executor_integer_argument_and_missing_gradient_array():
    x, y = mx.sym.Variable("x"), mx.sym.Variable("y")
    ex = (x * y).bind(mx.cpu(), args=[mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 4.0])],
                      args_grad={"x": mx.nd.ones(2)})      # no array for y: y gets no gradient
    ex.forward(is_train=True)
    ex.backward(mx.nd.ones(2))
    np.testing.assert_array_equal(ex.grad_dict["x"].asnumpy(), [3, 4])
    assert ex.grad_dict.get("y") is None
    assert mx.nd.zeros(np.array([2, 3])).shape == (2, 3)


def test_json_records_numpy_shape_semantics_like_mxnet():
    import json
    with mx.np_shape(True):
        text = mx.sym.var("a").tojson()
    assert json.loads(text)["attrs"] == {"is_np_shape": ["int", 1], "mxnet_version": ["int", 10901]}
    assert mx.sym.load_json(text).list_arguments() == ["a"]
    assert json.loads(mx.sym.var("a").tojson())["attrs"] == {"mxnet_version": ["int", 10901]}


def test_minus_one_in_a_creation_shape_is_left_to_inference():
    # MXNet 1.9.1: ones(shape=[-1, -1]) transposed and added to ones((2, 3)) binds as (2, 3);
    # ones(shape=[2, -1]) + transpose(ones(shape=[3, -1])) also gives (2, 3)
    total = mx.sym.ones(shape=(2, 3)) + mx.sym.transpose(mx.sym.ones(shape=(-1, -1)))
    assert total.bind(mx.cpu(), args={}).forward()[0].shape == (2, 3)
    mixed = mx.sym.ones(shape=(2, -1)) + mx.sym.transpose(mx.sym.ones(shape=(3, -1)))
    out = mixed.bind(mx.cpu(), args={}).forward()[0]
    np.testing.assert_array_equal(out.asnumpy(), np.full((2, 3), 2.0, np.float32))
    assert mx.sym.full(shape=(-1, 4), val=2).infer_shape_partial()[1] == [(0, 4)]


def test_reshape_infers_one_unknown_input_dimension_from_its_output():
    # MXNet 1.9.1: Reshape leaves output dimensions that depend on an unknown input dimension
    # unknown, and fills a single unknown input dimension from a fully known output's size.
    data = mx.sym.Variable("data", shape=(2, 0, 5))
    assert mx.sym.Reshape(data, shape=(0, -1)).infer_shape_partial() == ([(2, 0, 5)], [(2, 0)], [])
    assert mx.sym.Reshape(data, shape=(-3, 0)).infer_shape_partial() == ([(2, 0, 5)], [(0, 5)], [])
    two_unknown = mx.sym.Variable("x", shape=(0, 0, 5))
    assert mx.sym.Reshape(two_unknown, shape=(0, 0, -1)).infer_shape_partial()[1] == [(0, 0, 0)]
    for codes, reverse, out in [((0, -1), False, (2, 15)), ((-3, 0), False, (6, 5)), ((0, -1), True, (3, 10))]:
        net = mx.sym.elemwise_add(mx.sym.Reshape(data, shape=codes, reverse=reverse), mx.sym.ones(shape=out))
        assert net.infer_shape() == ([(2, 3, 5)], [out], [])


def test_reshape_reverse_reads_a_split_code_after_its_two_values():
    # MXNet 1.9.1 reverses the whole code list: (16, 4, -4) splits the last dimension.
    assert mx.nd.zeros((64,)).reshape((16, 4, -4), reverse=True).shape == (16, 4)
    assert mx.nd.zeros((2, 12)).reshape((-2, -1, 4, -4), reverse=True).shape == (2, 3, 4)
    net = mx.sym.Reshape(mx.sym.Variable("data"), shape=(-2, -1, 16, -4), reverse=True)
    assert net.infer_shape(data=(1, 2, 3, 64))[1] == [(1, 2, 3, 4, 16)]
