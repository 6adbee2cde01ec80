"""Arguments of the wrong kind given to Symbol composition, mx.sym operator calls, infer_shape,
and operators that need uniform dtypes or an in-range channel axis.  Each case was checked
against MXNet 1.9.1 first; the comments record what MXNet did."""
import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError


def fc_symbol():
    return mx.sym.FullyConnected(num_hidden=2, name="fc")


# -- composing a symbol: sym(...) ------------------------------------------------------------------
@pytest.mark.parametrize("call", [lambda fc: fc(data=5), lambda fc: fc(fc_data=5), lambda fc: fc(5),
                                  lambda fc: fc(fc_data=None), lambda fc: fc(attr={"a": "b"})])
def test_compose_with_a_non_symbol_is_a_type_error(call):
    # MXNet 1.9.1: TypeError "Compose expect `Symbol` as arguments"
    with pytest.raises(TypeError) as info:
        call(fc_symbol())
    assert isinstance(info.value, MXNetError)
    assert "compose expects Symbols as arguments" in str(info.value)


def test_compose_names_the_offending_argument_and_its_type():
    with pytest.raises(TypeError, match=r"argument 'data' is int 5"):
        fc_symbol()(data=5)


def test_compose_with_an_unknown_keyword_is_refused():
    # MXNet 1.9.1: MXNetError "Keyword argument name nosuch not found. Candidate arguments:
    # [0]fc_data [1]fc_weight [2]fc_bias"
    with pytest.raises(MXNetError) as info:
        fc_symbol()(nosuch=mx.sym.Variable("v"))
    message = str(info.value)
    assert "'nosuch'" in message and "fc_data" in message and "fc_bias" in message


def test_compose_keyword_is_the_variable_name_not_the_argument_name():
    # MXNet 1.9.1: fc(data=v) raises "Keyword argument name data not found" (the variable is fc_data)
    with pytest.raises(MXNetError, match="'data' names no input"):
        fc_symbol()(data=mx.sym.Variable("x"))
    # MXNet 1.9.1: fc(fc_data=x).list_arguments() == ['x', 'fc_weight', 'fc_bias']
    assert fc_symbol()(fc_data=mx.sym.Variable("x")).list_arguments() == ["x", "fc_weight", "fc_bias"]


def test_compose_positional_and_keyword_together_is_a_type_error():
    # MXNet 1.9.1: TypeError "compose only accept input Symbols either as positional or keyword
    # arguments, not both"
    with pytest.raises(TypeError, match="either by position or by keyword"):
        fc_symbol()(mx.sym.Variable("a"), fc_data=mx.sym.Variable("b"))


def test_compose_a_composed_graph_positionally_is_refused():
    # MXNet 1.9.1: MXNetError "General composition only support kwargs for now"
    with pytest.raises(MXNetError, match="takes its inputs by keyword"):
        fc_symbol()(mx.sym.Variable("x"))


def test_compose_an_atomic_symbol():
    # MXNet 1.9.1: atom(x, name='f2').list_arguments() == ['x', 'f2_weight', 'f2_bias'], and the
    # same for atom(data=x, name='f3'); atom(nosuch=x) raises MXNetError
    atom = fc_symbol()._gen_atomic_symbol()
    assert atom(mx.sym.Variable("x"), name="f2").list_arguments() == ["x", "f2_weight", "f2_bias"]
    assert atom(data=mx.sym.Variable("x"), name="f3").list_arguments() == ["x", "f3_weight", "f3_bias"]
    composed = atom(data=mx.sym.Variable("x"), name="f4")
    assert composed.infer_shape(x=(4, 3))[1] == [(4, 2)]
    with pytest.raises(MXNetError, match="nosuch"):
        atom(nosuch=mx.sym.Variable("x"))
    with pytest.raises(TypeError, match="compose expects Symbols"):
        atom(data=5)


# -- mx.sym.<op>(input=non-Symbol) -------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, name, shown", [
    ({"data": 5}, "data", "int 5"),
    ({"data": "x"}, "data", "str 'x'"),
    ({"weight": 5, "data": None}, "weight", "int 5"),
])
def test_operator_input_given_a_non_symbol(kwargs, name, shown):
    # MXNet 1.9.1: AssertionError "Argument data must be Symbol instances, but got 5"
    with pytest.raises(AssertionError) as info:
        mx.sym.FullyConnected(num_hidden=2, **kwargs)
    assert isinstance(info.value, MXNetError)
    message = str(info.value)
    assert f"argument {name!r} must be a Symbol" in message and shown in message
    assert "unknown attribute" not in message


def test_operator_input_given_an_ndarray_or_a_positional_number():
    # MXNet 1.9.1: AssertionError "Argument data must be Symbol instances, but got <NDArray 2x3>"
    with pytest.raises(AssertionError, match="argument 'data' must be a Symbol, but got NDArray"):
        mx.sym.FullyConnected(data=mx.nd.zeros((2, 3)), num_hidden=2)
    # MXNet 1.9.1: FullyConnected(5, num_hidden=2) -> AssertionError "Argument data must be Symbol ..."
    with pytest.raises(AssertionError, match="argument 'data' must be a Symbol, but got int 5"):
        mx.sym.FullyConnected(5, num_hidden=2)


def test_operator_input_given_none_is_not_given():
    # MXNet 1.9.1: FullyConnected(data=None, num_hidden=2).list_arguments() ==
    # ['fullyconnected0_data', 'fullyconnected0_weight', 'fullyconnected0_bias']
    with mx.name.NameManager():
        symbol = mx.sym.FullyConnected(data=None, num_hidden=2)
    assert symbol.list_arguments() == ["fullyconnected0_data", "fullyconnected0_weight", "fullyconnected0_bias"]


def test_unknown_attribute_still_says_so():
    # MXNet 1.9.1: MXNetError "Cannot find argument 'nosuch', Possible Arguments: ..."
    with pytest.raises(MXNetError, match="unknown attribute 'nosuch'"):
        mx.sym.FullyConnected(mx.sym.Variable("x"), num_hidden=2, nosuch=3)


# -- infer_shape arguments ----------------------------------------------------------------------------
def fc_graph():
    return mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2, name="fc")


@pytest.mark.parametrize("call, fragment", [
    (lambda s: s.infer_shape(data="abc"), "'data' is str"),          # MXNet: ... but 'data' is <class 'str'>.
    (lambda s: s.infer_shape(data=5), "'data' is int"),              # MXNet: ... but 'data' is <class 'int'>.
    (lambda s: s.infer_shape("abc"), "argument 0 is str"),           # MXNet: ... but argument 0 is <class 'str'>.
    (lambda s: s.infer_shape(data=[2, 3]), "'data' is list"),        # MXNet: ... but 'data' is <class 'list'>.
    (lambda s: s.infer_shape(data=None), "'data' is NoneType"),      # MXNet: ... but 'data' is <class 'NoneType'>.
    (lambda s: s.infer_shape_partial(data="abc"), "'data' is str"),  # MXNet: the same for infer_shape_partial
])
def test_infer_shape_needs_tuples(call, fragment):
    # MXNet 1.9.1: TypeError "Arguments need to be shapes (tuple), but ..."
    with pytest.raises(TypeError) as info:
        call(fc_graph())
    assert isinstance(info.value, MXNetError)
    assert "need to be shapes (tuple)" in str(info.value) and fragment in str(info.value)


@pytest.mark.parametrize("shape", [(2, "a"), (2.5, 3), (2, None), (np.float32(2), 3)])
def test_infer_shape_needs_integer_dimensions(shape):
    # MXNet 1.9.1: TypeError ("'>' not supported between instances of 'str' and 'int'",
    # "'float' object cannot be interpreted as an integer", ...)
    with pytest.raises(TypeError, match="must hold integers"):
        fc_graph().infer_shape(data=shape)


def test_infer_shape_dimension_below_minus_one():
    # MXNet 1.9.1: MXNetError "shape dim size must be >= -1, while received -2"
    with pytest.raises(MXNetError, match="dimension -2"):
        mx.sym.relu(mx.sym.Variable("data")).infer_shape(data=(2, -2))


def test_infer_shape_accepts_numpy_integers_and_positional_none():
    # MXNet 1.9.1: ([(2, 3), (2, 3), (2,)], [(2, 2)], [])
    assert fc_graph().infer_shape(data=(np.int64(2), np.int64(3))) == ([(2, 3), (2, 3), (2,)], [(2, 2)], [])
    # MXNet 1.9.1: relu(data).infer_shape_partial(data=(2, -1)) == ([(2, 0)], [(2, 0)], [])
    assert mx.sym.relu(mx.sym.Variable("data")).infer_shape_partial(data=(2, -1)) == ([(2, 0)], [(2, 0)], [])


def test_infer_type_with_a_bad_dtype_is_a_type_error():
    # MXNet 1.9.1: TypeError "data type 'abc' not understood" / "Cannot interpret '5' as a data type"
    for bad in ("abc", 5, (2, 3)):
        with pytest.raises(TypeError, match="unknown dtype"):
            fc_graph().infer_type(data=bad)


# -- slice: one shape rule, zero-size results -----------------------------------------------------------
@pytest.mark.parametrize("begin, end, expected", [
    ((0, 5), (1, 2), (1, 0)),     # MXNet 1.9.1: sym and nd both (1, 0)
    ((0, 1), (1, 0), (1, 0)),     # MXNet 1.9.1: (1, 0)
    ((1, 2), (0, 1), (0, 0)),     # MXNet 1.9.1: (0, 0)
    ((0, -1), (2, -3), (2, 0)),   # MXNet 1.9.1: (2, 0)
    ((0, None), (2, None), (2, 3)),  # MXNet 1.9.1: (2, 3)
])
def test_empty_slice_has_the_same_shape_both_ways(begin, end, expected):
    symbol = mx.sym.slice(mx.sym.Variable("data"), begin=begin, end=end)
    assert symbol.infer_shape(data=(2, 3)) == ([(2, 3)], [expected], [])
    assert mx.nd.slice(mx.nd.zeros((2, 3)), begin=begin, end=end).shape == expected
    bound = symbol.simple_bind(mx.cpu(), data=(2, 3))
    assert bound.forward()[0].shape == expected


def test_empty_slice_flows_into_later_operators():
    empty = mx.sym.slice(mx.sym.Variable("data"), begin=(0, 5), end=(1, 2))
    # MXNet 1.9.1: ([(2, 3)], [(1, 0)], [])
    assert mx.sym.relu(empty).infer_shape(data=(2, 3)) == ([(2, 3)], [(1, 0)], [])
    # MXNet 1.9.1: ([(2, 3), (1, 0)], [(1, 0)], [])
    assert (empty + mx.sym.Variable("o")).infer_shape(data=(2, 3)) == ([(2, 3), (1, 0)], [(1, 0)], [])
    # MXNet 1.9.1: ([(2, 3), (2, 0), (2,)], [(1, 2)], [])
    fc = mx.sym.FullyConnected(empty, num_hidden=2, name="fc")
    assert fc.infer_shape(data=(2, 3)) == ([(2, 3), (2, 0), (2,)], [(1, 2)], [])
    with mx.np_shape(True):
        # MXNet 1.9.1 under np_shape: ([(2, 3)], [(1, 0)], [])
        assert empty.infer_shape(data=(2, 3)) == ([(2, 3)], [(1, 0)], [])


def test_unknown_dimensions_still_leave_infer_shape_incomplete():
    empty = mx.sym.slice(mx.sym.Variable("data"), begin=(0, 5), end=(1, 2))
    # MXNet 1.9.1: (None, None, None), and partially ([(2, 0)], [(1, 0)], [])
    assert empty.infer_shape(data=(2, 0)) == (None, None, None)
    assert empty.infer_shape_partial(data=(2, 0)) == ([(2, 0)], [(1, 0)], [])
    # MXNet 1.9.1: dot(x, w).infer_shape(x=(2, 3)) == (None, None, None)
    dot = mx.sym.dot(mx.sym.Variable("x"), mx.sym.Variable("w"))
    assert dot.infer_shape(x=(2, 3)) == (None, None, None)
    # MXNet 1.9.1: boolean_mask's output is not inferred: (None, None, None)
    mask = mx.sym.contrib.boolean_mask(mx.sym.Variable("d"), mx.sym.Variable("i"))
    assert mask.infer_shape(d=(3, 2), i=(3,)) == (None, None, None)


# -- BatchNorm's channel axis ---------------------------------------------------------------------------
def bn_params(channels):
    return [mx.nd.ones(channels), mx.nd.zeros(channels), mx.nd.zeros(channels), mx.nd.ones(channels)]


def test_batchnorm_on_1d_data_refuses_the_default_axis():
    # MXNet 1.9.1: MXNetError "Check failed: channelAxis < dshape.ndim() (1 vs. 1) : Channel axis out
    # of range: 1"
    with pytest.raises(MXNetError) as info:
        mx.nd.BatchNorm(mx.nd.array([1, 2, 3]), *bn_params(3))
    message = str(info.value)
    assert "BatchNorm" in message and "channel axis 1" in message and "(3,)" in message


def test_gluon_batchnorm_on_1d_data():
    # MXNet 1.9.1: ValueError "Deferred initialization failed because shape cannot be inferred.
    # MXNetError: ... Channel axis out of range: 1"
    for hybridize in (False, True):
        layer = mx.gluon.nn.BatchNorm()
        layer.initialize()
        if hybridize:
            layer.hybridize()
        with pytest.raises(MXNetError) as info:
            layer(mx.nd.array([1, 2, 3]))
        assert isinstance(info.value, ValueError)
        message = str(info.value)
        assert "BatchNorm" in message and "channel axis 1" in message and "(3,)" in message


@pytest.mark.parametrize("axis", [2, -3])
def test_batchnorm_axis_out_of_range_symbolically(axis):
    # MXNet 1.9.1: MXNetError "Channel axis out of range: 2" / "... : -3" for data (3, 4)
    symbol = mx.sym.BatchNorm(mx.sym.Variable("data"), axis=axis)
    with pytest.raises(MXNetError, match=rf"channel axis {axis} is out of range for 'data' of shape \(3, 4\)"):
        symbol.infer_shape(data=(3, 4))


def test_batchnorm_axes_that_mxnet_accepts():
    # MXNet 1.9.1: axis=-1 on (3, 4) gives ([(3, 4), (4,), (4,)], [(3, 4)], [(4,), (4,)])
    symbol = mx.sym.BatchNorm(mx.sym.Variable("data"), axis=-1)
    assert symbol.infer_shape(data=(3, 4)) == ([(3, 4), (4,), (4,)], [(3, 4)], [(4,), (4,)])
    x = mx.nd.array([1, 2, 3])
    # MXNet 1.9.1: BatchNorm(x, axis=0) on 1-D data, inference: [0.9995004 1.9990008 2.9985013]
    out = mx.nd.BatchNorm(x, *bn_params(3), axis=0)
    np.testing.assert_allclose(out.asnumpy(), [0.9995004, 1.9990008, 2.9985013], rtol=1e-6)
    # MXNet 1.9.1: the same under autograd.record() (training: one value per channel) gives [0. 0. 0.]
    with mx.autograd.record():
        out = mx.nd.BatchNorm(x, *bn_params(3), axis=0)
    np.testing.assert_allclose(out.asnumpy(), [0.0, 0.0, 0.0], atol=1e-6)


# -- operators that need one dtype for all their inputs ---------------------------------------------------
@pytest.mark.parametrize("lhs, rhs", [("int32", "float32"), ("float32", "int32"), ("float16", "float32")])
def test_dot_of_mixed_dtypes(lhs, rhs):
    # MXNet 1.9.1: MXNetError "Incompatible attr in node at 1-th input: expected int32, got float32"
    with pytest.raises(MXNetError) as info:
        mx.nd.dot(mx.nd.ones((2, 2), dtype=lhs), mx.nd.ones((2, 2), dtype=rhs))
    message = str(info.value)
    assert "Operator dot" in message and f"'lhs' is {lhs}" in message and f"'rhs' is {rhs}" in message
    assert "c10::" not in message and "m1 and m2" not in message


def test_batch_dot_of_mixed_dtypes():
    # MXNet 1.9.1: MXNetError "Incompatible attr ...: expected int32, got float32"
    with pytest.raises(MXNetError, match="Operator batch_dot: .*'lhs' is int32, 'rhs' is float32"):
        mx.nd.batch_dot(mx.nd.ones((1, 2, 2), dtype="int32"), mx.nd.ones((1, 2, 2)))


def test_dot_infer_type_of_mixed_dtypes():
    # MXNet 1.9.1: MXNetError "Error in operator dot0: ... expected int32, got float32"
    symbol = mx.sym.dot(mx.sym.Variable("a"), mx.sym.Variable("b"))
    with pytest.raises(MXNetError, match="'lhs' is int32, 'rhs' is float32"):
        symbol.infer_type(a="int32", b="float32")
    # MXNet 1.9.1: one dtype is fine: ([float16, float16], [float16], [])
    assert symbol.infer_type(a="float16") == ([np.float16, np.float16], [np.float16], [])


@pytest.mark.parametrize("data, weight, bias, first, second", [
    ("float16", "float32", "float32", "'data' is float16", "'weight' is float32"),
    ("float32", "float16", "float16", "'data' is float32", "'weight' is float16"),
    ("float16", "float16", "float32", "'data' is float16", "'bias' is float32"),
])
def test_fully_connected_of_mixed_dtypes(data, weight, bias, first, second):
    # MXNet 1.9.1: MXNetError "Incompatible attr in node at 1-th input: expected float16, got float32"
    # (the 2-th input for the bias)
    with pytest.raises(MXNetError) as info:
        mx.nd.FullyConnected(mx.nd.ones((2, 3), dtype=data), mx.nd.ones((4, 3), dtype=weight),
                             mx.nd.ones(4, dtype=bias), num_hidden=4)
    message = str(info.value)
    assert "Operator FullyConnected" in message and first in message and second in message
    assert "mat1 and mat2" not in message


def test_fully_connected_infer_type_of_mixed_dtypes():
    # MXNet 1.9.1: MXNetError "Error in operator fullyconnected0: ... expected float16, got float32"
    symbol = mx.sym.FullyConnected(mx.sym.Variable("data"), mx.sym.Variable("w"), mx.sym.Variable("b"),
                                   num_hidden=4, name="fc")
    with pytest.raises(MXNetError, match="fc .*'data' is float16, 'weight' is float32"):
        symbol.infer_type(data="float16", w="float32")
    # MXNet 1.9.1: infer_type(data='float16') -> all float16
    assert symbol.infer_type(data="float16") == ([np.float16] * 3, [np.float16], [])


def test_ndarray_operator_input_given_a_non_array():
    # MXNet 1.9.1: mx.nd.FullyConnected(data=5, num_hidden=2) and mx.nd.FullyConnected(5, num_hidden=2)
    # both raise AssertionError "Argument data must have NDArray type, but got 5"
    for call in (lambda: mx.nd.FullyConnected(data=5, num_hidden=2), lambda: mx.nd.FullyConnected(5, num_hidden=2)):
        with pytest.raises(AssertionError) as info:
            call()
        assert isinstance(info.value, MXNetError)
        assert "Operator FullyConnected: argument 'data' must be an NDArray, but got int 5" in str(info.value)


def test_variable_init_must_be_an_initializer():
    # MXNet 1.9.1: AttributeError: 'int' object has no attribute 'dumps'
    with pytest.raises(TypeError, match=r"Variable 'v': init must be an Initializer.*got int 5"):
        mx.sym.Variable("v", init=5)
    assert mx.sym.Variable("v", init=mx.init.Constant(5)).attr("__init__") == '["constant", {"value": 5}]'


@pytest.mark.parametrize("deconvolution", [False, True])
def test_convolution_with_mixed_dtypes_names_both(deconvolution):
    # MXNet 1.9.1: "This layer requires uniform type. Expected 'float16' v.s. given 'float32' at 'weight'"
    x = mx.nd.ones((1, 2, 5, 5), dtype="float16")
    if deconvolution:
        call = lambda: mx.nd.Deconvolution(x, mx.nd.ones((2, 3, 3, 3)), kernel=(3, 3), num_filter=3, no_bias=True)
    else:
        call = lambda: mx.nd.Convolution(x, mx.nd.ones((3, 2, 3, 3)), mx.nd.zeros(3), kernel=(3, 3), num_filter=3)
    with pytest.raises(MXNetError, match=r"'data' is float16, 'weight' is float32"):
        call()
    conv = mx.sym.Convolution(mx.sym.Variable("d"), kernel=(3, 3), num_filter=3, name="c")
    with pytest.raises(MXNetError, match=r"'data' is float16, 'weight' is float32"):
        conv.infer_type(d="float16", c_weight="float32")
    assert conv.infer_type(d="float16")[0] == [np.float16] * 3


@pytest.mark.parametrize("hybridize", [False, True])
def test_dense_on_an_input_of_another_feature_count_names_the_input(hybridize):
    # MXNet 1.9.1 blamed the weight ("Shape inconsistent ... weight"); the input is what changed
    net = mx.gluon.nn.Dense(4)
    net.initialize()
    net(mx.nd.ones((2, 5)))
    if hybridize:
        net.hybridize()
    with pytest.raises(MXNetError, match=r"data of shape \(2, 6\) has 6 features.*takes 5 input features"):
        net(mx.nd.ones((2, 6)))
