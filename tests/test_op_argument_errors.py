"""Bad arguments to the random and array-creation operators raise MXNetError naming the
operator and the argument (what was expected, what was given), in mx.nd and mx.sym alike;
what MXNet 1.9.1 accepted stays accepted, with MXNet's values.  Each case was checked
against MXNet 1.9.1."""
import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError, MXNetTypeError


# -- shape sizes below -1 ---------------------------------------------------------------------
@pytest.mark.parametrize("draw, operator", [
    (lambda: mx.nd.random.uniform(shape=(-2,)), "_random_uniform"),
    (lambda: mx.nd.random.normal(shape=(2, -2)), "_random_normal"),
    (lambda: mx.nd.random.randint(0, 5, shape=(-2,)), "_random_randint"),
    (lambda: mx.nd.random.exponential(shape=(-3, 2)), "_random_exponential"),
    (lambda: mx.random.uniform(shape=(-2,)), "_random_uniform"),
    (lambda: mx.nd.random.randn(-2), "_random_normal"),
    (lambda: mx.nd.random.multinomial(mx.nd.array([0.5, 0.5]), shape=-2), "_sample_multinomial"),
    (lambda: mx.nd._internal._random_uniform(shape=(-2,)), "_random_uniform"),
    (lambda: mx.nd._internal._zeros(shape=(-2,)), "_zeros"),
    (lambda: mx.nd._internal._full(shape=(-2,), value=1), "_full"),
    (lambda: mx.sym.random.uniform(shape=(-2,)), "_random_uniform"),
    (lambda: mx.sym.random.randint(0, 5, shape=(-2,)), "_random_randint"),
    (lambda: mx.sym.zeros((-2,)), "_zeros"),
])
def test_shape_sizes_below_minus_one_are_refused(draw, operator):
    # MXNet 1.9.1: "shape dim size must be >= -1, while received -2"
    with pytest.raises(MXNetError, match=rf"Operator {operator}: attribute 'shape': expected dimension sizes "
                                         rf"of at least -1.*got the size -[23]"):
        draw()


@pytest.mark.parametrize("function", [mx.nd.zeros, mx.nd.ones, lambda shape: mx.nd.full(shape, 3)])
def test_front_end_creators_name_themselves_for_a_negative_shape(function):
    with pytest.raises(MXNetError, match=r"(zeros|ones|full): argument 'shape' must be a tuple of non-negative "
                                         r"integers, got \(-2,\)"):
        function((-2,))


def test_an_unknown_size_cannot_be_sampled_outside_a_graph():
    # MXNet 1.9.1: "Operator _random_uniform inferring shapes failed" for shape (-1,)
    for draw in (lambda: mx.nd.random.uniform(shape=(-1,)), lambda: mx.nd.random.randint(0, 5, shape=(2, -1)),
                 lambda: mx.nd._internal._random_uniform(shape=(-1,))):
        with pytest.raises(MXNetError, match=r"_random_(uniform|randint): argument 'shape' .*unknown \(-1\) size"):
            draw()


def test_zero_sizes_and_scalar_samples_need_numpy_shape_semantics():
    # MXNet 1.9.1 reads 0 and () as unknown outside np_shape and refuses them there
    for shape in ((0,), (2, 0), ()):
        with pytest.raises(MXNetError, match=r"_random_uniform: argument 'shape' .*unknown dimensions"):
            mx.nd.random.uniform(shape=shape)
    with mx.np_shape(True):
        assert mx.nd.random.uniform(shape=(2, 0)).shape == (2, 0)
        assert mx.nd.random.randint(0, 5, shape=(0,)).shape == (0,)
        scalar = mx.nd.random.uniform(shape=())
        assert scalar.shape == () and 0 <= float(scalar.asnumpy()) < 1


def test_an_unknown_size_in_a_graph_is_left_to_inference():
    # MXNet 1.9.1 infers ([], [(0, 3)], []) for shape (-1, 3)
    assert mx.sym.random.uniform(shape=(-1, 3)).infer_shape_partial() == ([], [(0, 3)], [])
    _, outs, _ = (mx.sym.random.uniform(shape=(-1, 3)) + mx.sym.var("x")).infer_shape(x=(4, 3))
    assert outs == [(4, 3)]


# -- floats and bools in shape attributes --------------------------------------------------------
@pytest.mark.parametrize("call, operator, attribute", [
    (lambda: mx.nd.random.uniform(shape=(2.5,)), "_random_uniform", "shape"),
    (lambda: mx.nd.random.uniform(shape=(2.0,)), "_random_uniform", "shape"),
    (lambda: mx.nd.random.uniform(shape="(2.5,)"), "_random_uniform", "shape"),
    (lambda: mx.nd.random.uniform(shape=[2.5]), "_random_uniform", "shape"),
    (lambda: mx.nd.random.uniform(shape=(True, 2)), "_random_uniform", "shape"),
    (lambda: mx.nd.random.normal(shape=(2, "3")), "_random_normal", "shape"),
    (lambda: mx.nd.random.randint(0, 5, shape=(2.5,)), "_random_randint", "shape"),
    (lambda: mx.nd.random.randn(2.5), "_random_normal", "shape"),
    (lambda: mx.nd.random.multinomial(mx.nd.array([0.5, 0.5]), shape=2.5), "_sample_multinomial", "shape"),
    (lambda: mx.nd.random.multinomial(mx.nd.array([0.5, 0.5]), shape=(2.0,)), "_sample_multinomial", "shape"),
    (lambda: mx.nd.random.uniform(mx.nd.array([0.]), mx.nd.array([1.]), shape=(2.0,)), "_sample_uniform",
     "shape"),
    (lambda: mx.nd._internal._zeros(shape=(2.5,)), "_zeros", "shape"),
    (lambda: mx.nd.reshape(mx.nd.ones((2,)), shape=(2.0,)), "Reshape", "shape"),
    (lambda: mx.nd.reshape(mx.nd.ones((2,)), shape=(np.float64(2),)), "Reshape", "shape"),
    (lambda: mx.nd.tile(mx.nd.ones((2,)), reps=(2.0,)), "tile", "reps"),
    (lambda: mx.nd.transpose(mx.nd.ones((2, 3)), axes=(1.0, 0)), "transpose", "axes"),
    (lambda: mx.nd.sum(mx.nd.ones((2, 3)), axis=(0.0,)), "sum", "axis"),
    (lambda: mx.nd.slice(mx.nd.ones((4,)), begin=(0.0,), end=(2,)), "slice", "begin"),
    (lambda: mx.sym.random.uniform(shape=(2.0,)), "_random_uniform", "shape"),
    (lambda: mx.sym.zeros((2.5,)), "_zeros", "shape"),
])
def test_floats_and_bools_in_integer_tuples_are_refused(call, operator, attribute):
    # MXNet 1.9.1: "Invalid Parameter format for shape expect Shape(tuple) but value='(2.0,)'"
    with pytest.raises(MXNetError, match=rf"Operator {operator}: attribute '{attribute}': expected integers, "
                                         rf"got the entry .* \(given "):
        call()


def test_the_shape_forms_mxnet_accepts_stay_accepted():
    for shape, expected in (("(2, 3)", (2, 3)), ([2, 3], (2, 3)), ((np.int64(2), np.int32(3)), (2, 3)),
                            (3, (3,)), (np.int64(3), (3,)), ("3", (3,)), (np.array([2, 3]), (2, 3))):
        sample = mx.nd.random.uniform(shape=shape)
        assert sample.shape == expected
        assert ((sample.asnumpy() >= 0) & (sample.asnumpy() < 1)).all()
    assert mx.nd.random.uniform(shape=None).shape == (1,)
    assert mx.nd.random.uniform(mx.nd.array([0.]), mx.nd.array([1.]), shape="(2,)").shape == (1, 2)
    assert mx.sym.random.uniform(shape="(2, 3)").infer_shape() == ([], [(2, 3)], [])
    data = mx.nd.ones((2, 3))
    assert mx.nd.reshape(data, shape=(0, -1)).shape == (2, 3)
    assert mx.nd.reshape(data, shape=(-1,)).shape == (6,)
    assert mx.nd.reshape(data, shape=(-2,)).shape == (2, 3)
    assert mx.nd.reshape(data, shape="(3, 2)").shape == (3, 2)
    assert mx.nd.reshape(data, shape=(np.int64(6),)).shape == (6,)
    assert mx.nd.slice(mx.nd.arange(4), begin=(None,), end=(2,)).asnumpy().tolist() == [0.0, 1.0]


# -- multinomial ----------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [-1, (-1,), (2, -1)])
def test_multinomial_refuses_an_unknown_number_of_draws(shape):
    # MXNet 1.9.1: "Shape dim size cannot be a negative value -1" (mxtorch gave (1,) samples)
    with pytest.raises(MXNetError, match=r"Operator _sample_multinomial: argument 'shape' must have sizes of 0 or "
                                         r"more .*got \((2, )?-1,?\)"):
        mx.nd.random.multinomial(mx.nd.array([0.5, 0.5]), shape=shape)
    with pytest.raises(MXNetError, match=r"_sample_multinomial: argument 'shape'"):
        mx.sym.random.multinomial(mx.sym.var("p"), shape=shape)


def test_multinomial_with_no_draws_is_empty():
    # MXNet 1.9.1: shape=0 gives an empty int32 array (0,), for 2-D data (2, 0)
    empty = mx.nd.random.multinomial(mx.nd.array([0.5, 0.5]), shape=0)
    assert empty.shape == (0,) and empty.dtype == np.int32
    assert mx.nd.random.multinomial(mx.nd.array([[0.5, 0.5], [0.2, 0.8]]), shape=(0,)).shape == (2, 0)
    assert mx.nd.random.multinomial(mx.nd.array([0.5, 0.5]), shape=(2, 0)).shape == (2, 0)
    draws, log_probability = mx.nd.random.multinomial(mx.nd.array([0.5, 0.5]), shape=0, get_prob=True)
    assert draws.shape == (0,) and log_probability.shape == (0,)


def test_per_element_samplers_need_positive_sample_sizes():
    # MXNet 1.9.1: "shape parameter must be non-zero within each dimension"
    low, high = mx.nd.array([0.]), mx.nd.array([1.])
    for shape in ((0,), (-1,), (2, -2)):
        with pytest.raises(MXNetError, match=r"Operator _sample_uniform: argument 'shape' must have positive sizes"):
            mx.nd.random.uniform(low, high, shape=shape)
    with pytest.raises(MXNetError, match=r"Operator _sample_normal: argument 'shape' must have positive sizes"):
        mx.sym.random.normal(mx.sym.var("mu"), mx.sym.var("sigma"), shape=(0,))


# -- one_hot, arange, eye, linspace ---------------------------------------------------------------
def test_one_hot_depth():
    # MXNet 1.9.1: "Dimension size, depth, must be a non-negative integer"
    for depth in (-1, -5):
        with pytest.raises(MXNetError, match=rf"Operator one_hot: argument 'depth' .*must be 0 or more, got {depth}"):
            mx.nd.one_hot(mx.nd.array([1]), depth=depth)
    with pytest.raises(MXNetError, match=r"Operator one_hot: argument 'depth'"):
        mx.sym.one_hot(mx.sym.var("i"), depth=-1)
    with pytest.raises(MXNetError, match=r"Operator one_hot: attribute 'depth': expected an integer"):
        mx.nd.one_hot(mx.nd.array([1]), depth=2.5)
    assert mx.nd.one_hot(mx.nd.array([1]), depth=0).shape == (1, 0)
    assert mx.nd.one_hot(mx.nd.array([[1, 2]]), depth=0).shape == (1, 2, 0)


@pytest.mark.parametrize("args, range_text, direction", [
    ((5, 0, 1), r"\(5, 0, 1\)", "positive"),
    ((5, 5, 1), r"\(5, 5, 1\)", "positive"),
    ((0,), r"\(0, 0, 1\)", "positive"),
    ((-1,), r"\(0, -1, 1\)", "positive"),
    ((0, 5, -1), r"\(0, 5, -1\)", "negative"),
])
def test_arange_refuses_a_range_without_values(args, range_text, direction):
    # MXNet 1.9.1: "Invalid range (start, stop, step) = (5,0,1)"
    with pytest.raises(MXNetError, match=rf"Operator _arange: invalid range \(start, stop, step\) = {range_text}: "
                                         rf"with a {direction} 'step'"):
        mx.nd.arange(*args)
    with pytest.raises(MXNetError, match=r"Operator _arange: invalid range"):
        mx.sym.arange(*args)


def test_arange_ranges_mxnet_accepts():
    assert mx.nd.arange(0, 0.5, 1).asnumpy().tolist() == [0.0]
    assert mx.nd.arange(0, -0.5, -1).asnumpy().tolist() == [0.0]
    assert mx.nd.arange(5, 0, -1).asnumpy().tolist() == [5.0, 4.0, 3.0, 2.0, 1.0]
    assert mx.nd.arange(0, 5, 2, repeat=2).asnumpy().tolist() == [0.0, 0.0, 2.0, 2.0, 4.0, 4.0]
    # a range left to shape inference is not checked
    assert mx.sym.arange(0, infer_range=True).list_outputs()


def test_eye_rows():
    # MXNet 1.9.1: "Shape dim size cannot be a negative value -1" / "must be >= -1"
    for args in ((-1,), (-2,), (-1, 3)):
        with pytest.raises(MXNetError, match=rf"Operator _eye: argument 'N' .*must be 0 or more, got {args[0]}"):
            mx.nd.eye(*args)
        with pytest.raises(MXNetError, match=r"Operator _eye: argument 'N'"):
            mx.sym.eye(*args)
    with pytest.raises(MXNetError, match=r"Operator _eye: attribute 'N': expected an integer"):
        mx.nd.eye(2.5)


def test_eye_shapes_mxnet_accepts():
    # MXNet 1.9.1: eye(0) is (0, 0), eye(0, 3) is (0, 3); M <= 0 means M = N
    assert mx.nd.eye(0).shape == (0, 0)
    assert mx.nd.eye(0, 3).shape == (0, 3)
    assert mx.nd.eye(0, -1).shape == (0, 0)
    assert mx.nd.eye(2, -1).asnumpy().tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert mx.nd.eye(2, -3).asnumpy().tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert mx.nd.eye(2, k=5).asnumpy().tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert mx.sym.eye(2, -1).infer_shape() == ([], [(2, 2)], [])
    assert mx.sym.eye(2, -1).eval(ctx=mx.cpu())[0].asnumpy().tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_linspace_count():
    # MXNet 1.9.1: "Number of sequence should be non-negative, received -2"
    with pytest.raises(MXNetError, match=r"Operator _linspace: argument 'num' .*must be 0 or more, got -2"):
        mx.nd.linspace(0, 1, -2)
    with pytest.raises(MXNetError, match=r"Operator _linspace: argument 'num'"):
        mx.sym.linspace(0, 1, -1)
    with pytest.raises(MXNetError, match=r"Operator _linspace: attribute 'num': expected an integer"):
        mx.nd.linspace(0, 1, 2.5)
    assert mx.nd.linspace(0, 1, 0).shape == (0,)
    assert mx.nd.linspace(0, 1, 1).asnumpy().tolist() == [0.0]


# -- full -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("val, dtype", [("x", None), ("3.5", "int32"), (None, "int32"), (object(), None), ({}, None),
                                        (1j, None)])
def test_full_refuses_values_that_are_not_numbers(val, dtype):
    # MXNet 1.9.1: TypeError "does not support assignment with non-array-like object x of type <class 'str'>"
    with pytest.raises(MXNetTypeError, match=r"full: argument 'val' must be a number.*got .* of type"):
        mx.nd.full((2,), val, dtype=dtype)
    with pytest.raises(TypeError):
        mx.nd.full((2,), val, dtype=dtype)


def test_full_values_mxnet_accepts():
    assert mx.nd.full((2,), "3.5").asnumpy().tolist() == [3.5, 3.5]
    assert mx.nd.full((2,), b"3").asnumpy().tolist() == [3.0, 3.0]
    assert np.isinf(mx.nd.full((2,), "inf").asnumpy()).all()
    assert np.isnan(mx.nd.full((2,), None).asnumpy()).all()
    assert mx.nd.full((2,), True).asnumpy().tolist() == [1.0, 1.0]
    assert mx.nd.full((2,), [1, 2]).asnumpy().tolist() == [1.0, 2.0]
    assert mx.nd.full((2,), np.array([1.0, 2.0])).asnumpy().tolist() == [1.0, 2.0]
    assert mx.nd.full((2, 2), mx.nd.array([1.0, 2.0])).asnumpy().tolist() == [[1.0, 2.0], [1.0, 2.0]]
    assert mx.nd.full((2,), mx.nd.array([7.0])).asnumpy().tolist() == [7.0, 7.0]
    as_int = mx.nd.full((2,), "3", dtype="int32")
    assert as_int.dtype == np.int32 and as_int.asnumpy().tolist() == [3, 3]
    assert mx.nd.full((2,), 2.7, dtype="int32").asnumpy().tolist() == [2, 2]
    assert mx.nd.full((2,), 2 ** 40, dtype="int64").asnumpy().tolist() == [2 ** 40, 2 ** 40]
    assert mx.nd.full(5, 1).shape == (5,)
    with pytest.raises(MXNetError, match=r"__setitem__: cannot assign a value of shape \(3,\)"):
        mx.nd.full((2,), [1, 2, 3])


def test_full_operator_value_is_a_number():
    with pytest.raises(MXNetError, match=r"Operator _full: attribute 'value': expected a number, got 'x'"):
        mx.nd._internal._full(shape=(2,), value="x")
    assert mx.nd._internal._full(shape=(2,), value="2.5").asnumpy().tolist() == [2.5, 2.5]
