"""mx.np array semantics: use_np scopes, indexing keys, out= on 0-d arrays, NumPy interoperability
(__array_function__ / __array_ufunc__ and the NumPy fallback), symbolic basic indexing.

Expected values come from NumPy itself (the same key or call on a NumPy array) or from MXNet
1.9.1 where noted (printed by its CPU build).
"""
import numpy as onp
import pytest

import mxtorch as mx
from mxtorch import np, npx
from mxtorch.base import MXNetError
from mxtorch.util import is_np_array, is_np_shape, use_np


# -- use_np ----------------------------------------------------------------------------------------
def test_use_np_scopes_inherited_methods_and_keeps_static_and_class_methods():
    class Base:
        def semantics(self):
            return is_np_array(), is_np_shape()

        @staticmethod
        def plain(value):
            return value + 1, is_np_array()

        @classmethod
        def named(cls):
            return cls.__name__, is_np_array()

        @property
        def prop(self):
            return is_np_array()

    @use_np
    class Child(Base):
        pass

    child = Child()
    assert child.semantics() == (True, True)           # inherited, scoped as MXNet's getmembers walk did
    assert Child.plain(1) == (2, True) and child.plain(1) == (2, True)
    assert Child.named() == ("Child", True)
    assert child.prop is True
    assert Base().semantics() == (False, False)         # the base class itself is untouched
    assert not is_np_array()


# -- indexing --------------------------------------------------------------------------------------
def test_empty_tuple_key_is_the_array_itself():
    array = np.array([1.0, 2.0])
    assert array[()] is array
    scalar = np.array(3.5)
    assert scalar[()] is scalar and scalar[()].shape == ()
    assert "{:0.3g}".format(scalar[()]) == "{:0.3g}".format(onp.array(3.5)[()]) == "3.5"


_MASK = onp.array([[False, True, True], [False, True, False]])


@pytest.mark.parametrize("key", [(0, True, True, _MASK), (False, 1), (True,), (False,), (True, 0),
                                 (slice(None), _MASK), (Ellipsis, True), (None, True, 1)],
                         ids=["int-bools-mask", "false-int", "true", "false", "true-int", "slice-mask",
                              "ellipsis-true", "none-true-int"])
def test_zero_dim_boolean_keys_match_numpy(numpy_semantics, key):
    data = onp.arange(18.0).reshape(3, 2, 3)
    mx_key = tuple(np.array(k, dtype=onp.bool_) if isinstance(k, onp.ndarray) else k for k in key)
    got = np.array(data)[mx_key].asnumpy()
    assert got.shape == data[key].shape
    onp.testing.assert_array_equal(got, data[key])
    written, expected = np.array(data), data.copy()
    written[mx_key] = -1
    expected[key] = -1
    onp.testing.assert_array_equal(written.asnumpy(), expected)


def test_zero_dim_integer_index_arrays_index_as_integers(numpy_semantics):
    data = onp.arange(120).reshape(2, 3, 4, 5)
    key = (-2, onp.array(-3, dtype=onp.int32), -2, -1)
    got = np.array(data, dtype=onp.int64)[(key[0], np.array(key[1], dtype=onp.int32), key[2], key[3])]
    assert got.shape == () and int(got) == int(data[key])
    got = np.array(data, dtype=onp.int64)[np.array(1, dtype=onp.int64), 0]
    onp.testing.assert_array_equal(got.asnumpy(), data[1, 0])


def test_range_key_is_an_index_array(numpy_semantics):
    data = onp.arange(24.0).reshape(4, 6)
    onp.testing.assert_array_equal(np.array(data)[range(1, 3)].asnumpy(), data[range(1, 3)])
    onp.testing.assert_array_equal(np.array(data)[:, range(0, 6, 2)].asnumpy(), data[:, range(0, 6, 2)])


def test_out_argument_fills_a_zero_dim_array(numpy_semantics):
    out = np.array(0.0)
    result = np.std(np.arange(10), out=out)
    assert result is out and out.shape == ()
    assert abs(float(out) - onp.std(onp.arange(10))) < 1e-6


# -- creation, clip, split -------------------------------------------------------------------------
def test_array_wraps_out_of_range_python_integers_as_mxnet_did():
    # MXNet 1.9.1 (NumPy 1.23) printed [85 7]: 1621 mod 256, as a C cast to uint8 gives
    got = np.array([1621, 7], dtype=onp.uint8)
    assert got.dtype == onp.uint8 and got.asnumpy().tolist() == [85, 7]


def test_clip_of_unsigned_integers_with_a_bound_below_the_dtype_range():
    values = onp.array([0, 5, 93, 200, 255], dtype=onp.uint8)
    got = np.clip(np.array(values, dtype=onp.uint8), -120, 100)
    assert got.dtype == onp.uint8
    # MXNet 1.9.1 printed [0 5 93 100 100]; NumPy on the values as int64 agrees
    assert got.asnumpy().tolist() == onp.clip(values.astype(onp.int64), -120, 100).tolist() == [0, 5, 93, 100, 100]


def test_split_errors_are_value_errors(numpy_semantics):
    with pytest.raises(ValueError, match="equal division"):
        np.split(np.arange(10), 3)
    with pytest.raises(ValueError, match="vsplit only works on arrays of 2"):
        np.vsplit(np.array([1, 2, 3, 4]), 2)
    with pytest.raises(ValueError, match="dsplit only works on arrays of 3"):
        np.dsplit(np.ones((2, 4)), 2)
    with pytest.raises(MXNetError):
        np.split(np.arange(10), 3)
    parts = np.hsplit(np.arange(6.0), 3)                     # 1-D: along axis 0
    assert [p.asnumpy().tolist() for p in parts] == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    parts = np.hsplit(np.ones((2, 4)), [1])                  # 2-D: along axis 1
    assert [p.shape for p in parts] == [(2, 1), (2, 3)]


# -- NumPy's functions on mx.np arrays -------------------------------------------------------------
def test_shares_memory_follows_numpy_on_views(numpy_semantics):
    data_mx = np.zeros((13, 21, 23, 22))
    data_np = onp.zeros((13, 21, 23, 22), dtype=onp.float32)
    for function in (onp.shares_memory, onp.may_share_memory):
        assert function(data_mx[0, :, :, :], data_mx[1, :, :, :]) is False
        assert function(data_mx[0, 0, 0, 2:5], data_mx[0, 0, 0, 4:7]) is True
        assert function(data_mx[0, 0, 0, 2:5], data_mx[0, 0, 0, 4:7]) == \
            function(data_np[0, 0, 0, 2:5], data_np[0, 0, 0, 4:7])
        assert function(data_mx, np.ones((5, 0))) is False
        assert function(data_mx, data_mx.copy()) is False
    assert np.shares_memory(data_mx, data_mx[3]) is True
    with pytest.raises(MXNetError, match="_npi_share_memory.*must be an NDArray"):
        np.shares_memory(data_mx, onp.zeros(3))


def test_dispatch_lists_hold_only_names_numpy_has():
    from mxtorch.numpy_dispatch_protocol import _NUMPY_ARRAY_FUNCTION_LIST, _NUMPY_ARRAY_UFUNC_LIST
    for name in _NUMPY_ARRAY_FUNCTION_LIST + _NUMPY_ARRAY_UFUNC_LIST:
        root = onp
        for part in name.split("."):
            root = getattr(root, part)
    assert "sum" in _NUMPY_ARRAY_FUNCTION_LIST and "add" in _NUMPY_ARRAY_UFUNC_LIST


def test_numpy_fallback_gives_arrays_for_numpy_scalars(numpy_semantics):
    a = np.array(195225786 * 2, dtype=onp.int32)
    b = np.array(195225786 * 5, dtype=onp.int32)
    got = onp.lcm(a, b)                                       # no mx.np.lcm: NumPy's on host copies
    assert type(got) is np.ndarray and got.shape == ()
    assert int(got) == int(onp.lcm(onp.int32(195225786 * 2), onp.int32(195225786 * 5)))


def test_numpy_fallback_keeps_named_tuples(numpy_semantics):
    matrix = onp.array([[2.0, 0.0], [0.0, 3.0]], dtype=onp.float32)
    got = onp.linalg.eig(np.array(matrix))
    expected = onp.linalg.eig(matrix)
    assert type(got) is type(expected)
    onp.testing.assert_allclose(onp.sort(got.eigenvalues.asnumpy()), onp.sort(expected.eigenvalues))


def test_linalg_results_are_numpys_named_tuples(numpy_semantics):
    matrix = onp.array([[2.0, 1.0], [1.0, 3.0]], dtype=onp.float32)
    got, expected = np.linalg.eigh(np.array(matrix)), onp.linalg.eigh(matrix)
    assert type(got) is type(expected)
    onp.testing.assert_allclose(got.eigenvalues.asnumpy(), expected.eigenvalues, rtol=1e-5)
    sign, logdet = np.linalg.slogdet(np.array(matrix))
    assert type(np.linalg.slogdet(np.array(matrix))) is type(onp.linalg.slogdet(matrix))
    assert float(sign) == 1.0 and abs(float(logdet) - onp.log(5.0)) < 1e-5


def test_broadcast_arrays_meshgrid_atleast_give_tuples_as_numpy(numpy_semantics):
    x, y = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0])
    for ours, theirs in [(onp.broadcast_arrays(x.reshape(3, 1), y), onp.broadcast_arrays(onp.ones((3, 1)), onp.ones(2))),
                         (onp.meshgrid(x, y), onp.meshgrid(onp.ones(3), onp.ones(2))),
                         (onp.atleast_2d(x, y), onp.atleast_2d(onp.ones(3), onp.ones(2)))]:
        assert type(ours) is type(theirs) is tuple
        assert [o.shape for o in ours] == [t.shape for t in theirs]
    grid = onp.meshgrid(x, y)
    onp.testing.assert_array_equal(grid[0].asnumpy(), onp.meshgrid([1.0, 2.0, 3.0], [4.0, 5.0])[0])


def test_invert_of_bool_arrays(numpy_semantics):
    mask = onp.array([True, False, True])
    assert onp.invert(np.array(mask, dtype=onp.bool_)).asnumpy().tolist() == onp.invert(mask).tolist()
    with pytest.raises(MXNetError, match="only support integer types"):
        np.invert(np.ones(2))


# -- operators the NumPy front end relies on -------------------------------------------------------
def test_prelu_on_one_dimensional_data():
    data = mx.nd.array([-2.0, 1.0, -4.0])
    # MXNet 1.9.1 printed [-1. 1. -2.] and [-1. 1. -1.]
    got = mx.nd.LeakyReLU(data, mx.nd.array([0.5]), act_type="prelu")
    assert got.asnumpy().tolist() == [-1.0, 1.0, -2.0]
    got = mx.nd.LeakyReLU(data, mx.nd.array([0.5, 0.1, 0.25]), act_type="prelu")
    assert got.asnumpy().tolist() == [-1.0, 1.0, -1.0]
    with pytest.raises(MXNetError, match="gamma"):
        mx.sym.LeakyReLU(mx.sym.var("d"), act_type="prelu").infer_shape(d=(3,))


def test_slice_with_an_empty_negative_step_range():
    data = onp.arange(12.0).reshape(6, 2)
    got = mx.nd.slice(mx.nd.array(data), begin=(0,), end=(-1,), step=(-1,))
    assert got.shape == data[0:-1:-1].shape == (0, 2)


def test_numpy_dot_infers_the_unknown_contracted_axis():
    a, w = mx.sym.var("a").as_np_ndarray(), mx.sym.var("w", shape=(0, 100)).as_np_ndarray()
    args, outs, _ = np.dot(a, w).as_nd_ndarray().infer_shape_partial(a=(64, 1000))
    assert args == [(64, 1000), (1000, 100)] and outs == [(64, 100)]
    v = mx.sym.var("v", shape=(0,)).as_np_ndarray()
    args, outs, _ = np.dot(a, v).as_nd_ndarray().infer_shape_partial(a=(4, 3, 5))
    assert args == [(4, 3, 5), (5,)] and outs == [(4, 3)]


@pytest.mark.parametrize("key", [1, -1, slice(1, None), (slice(None), -1, slice(None)), (1, slice(None, None, -1)),
                                 (slice(3, 0, -2), 0, 1), ()],
                         ids=["int", "minus-one", "slice", "tuple-int", "int-reverse", "steps", "empty"])
def test_symbol_basic_indexing_matches_numpy(key):
    data = onp.arange(60.0).reshape(4, 5, 3)
    x = mx.sym.var("x").as_np_ndarray()
    out = x[key]
    assert type(out).__name__ == "_Symbol"
    executor = out.as_nd_ndarray().bind(mx.cpu(), {"x": mx.nd.array(data)})
    got = executor.forward()[0].asnumpy()
    onp.testing.assert_array_equal(got, data[key])


def test_symbol_indexing_rejects_other_keys():
    x = mx.sym.var("x").as_np_ndarray()
    with pytest.raises(IndexError):
        x[None]
    with pytest.raises(ValueError, match="step"):
        x[::0]


def test_symbol_hsplit_decides_the_axis_from_the_rank():
    x = mx.sym.var("x").as_np_ndarray()
    parts = mx.sym.np.hsplit(x, 2)
    for data in (onp.arange(8.0), onp.arange(8.0).reshape(2, 4)):
        for part, expected in zip(parts, onp.hsplit(data, 2)):
            executor = part.as_nd_ndarray().bind(mx.cpu(), {"x": mx.nd.array(data)})
            onp.testing.assert_array_equal(executor.forward()[0].asnumpy(), expected)


# -- functions NumPy dispatches to mx.np -----------------------------------------------------------
@pytest.mark.parametrize("indices", [[0, 1, 2], [3, 7], [5, 2], [-3], [0], [12]])
def test_split_at_indices_matches_numpy(numpy_semantics, indices):
    data = onp.arange(20.0, dtype=onp.float32).reshape(2, 10)
    got = np.array_split(np.array(data), indices, axis=1)
    expected = onp.array_split(data, indices, axis=1)
    assert len(got) == len(expected)
    for ours, theirs in zip(got, expected):
        onp.testing.assert_array_equal(ours.asnumpy(), theirs)


def test_matrix_norm_with_an_order_is_numpys(numpy_semantics):
    matrix = onp.array([[1.0, 2.0], [3.0, 8.0]])
    for order in (2, -2, 1, onp.inf, "fro", "nuc"):
        got = float(np.linalg.norm(np.array(matrix), order))
        assert abs(got - onp.linalg.norm(matrix, order)) < 1e-5, order
    vector = onp.array([3.0, -4.0])
    assert abs(float(np.linalg.norm(np.array(vector), 1)) - 7.0) < 1e-6


def test_pinv_with_an_array_rcond(numpy_semantics):
    rng = onp.random.RandomState(0)
    data = rng.normal(size=(4, 6, 5)).astype(onp.float32)
    rcond = onp.array([0.0, 0.1, 0.5, 0.9], dtype=onp.float32)
    got = onp.linalg.pinv(np.array(data), np.array(rcond))
    assert type(got) is np.ndarray and got.shape == (4, 5, 6)
    onp.testing.assert_allclose(got.asnumpy(), onp.linalg.pinv(data, rcond), rtol=1e-3, atol=1e-4)


def test_nonzero_of_a_zero_dim_array_reads_it_as_one_dim(numpy_semantics):
    # MXNet 1.9.1 printed (array([0], dtype=int64),), (array([], dtype=int64),) and (1, 1)
    assert [x.asnumpy().tolist() for x in np.nonzero(np.array(3))] == [[0]]
    assert [x.asnumpy().tolist() for x in np.nonzero(np.array(0))] == [[]]
    assert npx.nonzero(np.array(3)).shape == (1, 1)


def test_basic_indexing_views_only_contiguous_blocks(numpy_semantics):
    # MXNet 1.9.1: a view for one contiguous block of memory, a copy otherwise
    x = np.zeros((4, 3, 2))
    assert np.shares_memory(x[1], x) and np.shares_memory(x[0, 1, :], x) and np.shares_memory(x[1:3], x)
    assert not np.shares_memory(x[1:3, 0, 0], x) and not np.shares_memory(x[:, 1], x)
    assert not np.may_share_memory(x[2:5, 0, 0], x[3:4, 0, 0])
    view, copy = x[1], x[:, 1]
    view[...] = 1.0
    copy[...] = 2.0
    assert x.asnumpy().sum() == 6.0                              # only the view wrote into x


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_slice_of_a_variable_differentiates_integer_arrays_too(numpy_semantics, dtype, hybridize):
    # MXNet differentiated integer arrays; the gradient of a slice is 1 on the sliced region
    data = onp.arange(12).reshape(4, 3)
    for begin, end, step in [([1], [3], None), ([], [], None), ([3], [0], [-2]), ([0, 0], [4, 3], [3, 2])]:
        class Slice(mx.gluon.HybridBlock):
            def hybrid_forward(self, F, x):
                return F.npx.slice(x, begin=begin, end=end, step=step)
        net = Slice()
        if hybridize:
            net.hybridize()
        a = np.array(data, dtype=dtype)
        a.attach_grad()
        with mx.autograd.record():
            y = net(a)
        y.backward()
        key = tuple(slice(b, e, None if step is None else step[i]) for i, (b, e) in enumerate(zip(begin, end)))
        expected = onp.zeros((4, 3))
        expected[key] = 1
        onp.testing.assert_array_equal(y.asnumpy(), data[key])
        onp.testing.assert_array_equal(a.grad.asnumpy(), expected)
