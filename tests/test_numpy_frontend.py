"""MXNet 1.9.1's NumPy front end (mx.np / mx.npx / mx.sym.np) on mxtorch's core.

Expected values and dtypes are what MXNet 1.9.1 (CPU build) printed for the same calls.
"""
import json

import numpy as onp
import pytest

import mxtorch as mx
from mxtorch import autograd, np, npx
from mxtorch.base import MXNetError


# -- the array class -------------------------------------------------------------------------------
def test_np_ndarray_is_an_ndarray_on_the_same_tensor():
    classic = mx.nd.array([1, 2, 3])
    array = classic.as_np_ndarray()
    assert type(array) is np.ndarray and isinstance(array, mx.nd.NDArray)
    assert array._tensor is classic._tensor                     # no copy either way
    back = array.as_nd_ndarray()
    assert type(back) is mx.nd.NDArray and back._tensor is classic._tensor
    array[0] = 7
    assert classic.asnumpy().tolist() == [7.0, 2.0, 3.0]


def test_creation_defaults_are_mxnet_numpys():
    assert np.array([1, 2, 3]).dtype == onp.float32              # lists: float32, ints included
    assert np.array([True, False]).dtype == onp.float32
    assert np.array(onp.array([1, 2], dtype="int64")).dtype == onp.int64   # NumPy arrays keep theirs
    assert np.array(onp.array([1.0, 2.0])).dtype == onp.float64
    assert np.array(onp.array([True])).dtype == onp.bool_
    assert np.array([1, 2], dtype="float64").dtype == onp.float64
    assert np.array(3).shape == ()
    for function in (lambda: np.zeros((2, 3)), lambda: np.ones((2,)), lambda: np.full((2,), 3),
                     lambda: np.arange(5), lambda: np.linspace(0, 1, 5), lambda: np.eye(3), lambda: np.identity(3),
                     lambda: np.empty((2,))):
        assert function().dtype == onp.float32
    assert np.arange(3, dtype="int64").dtype == onp.int64
    assert np.full((2,), 7, dtype="int32").asnumpy().tolist() == [7, 7]
    assert np.arange(2, 10, 3).asnumpy().tolist() == [2.0, 5.0, 8.0]
    assert np.linspace(0, 1, 5).asnumpy().tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert np.eye(2, k=1).asnumpy().tolist() == [[0.0, 1.0], [0.0, 0.0]]
    i32 = np.array([1, 2, 3], dtype="int32")
    assert np.zeros_like(i32).dtype == onp.int32 and np.ones_like(i32).asnumpy().tolist() == [1, 1, 1]
    assert np.full_like(i32, 2.5).asnumpy().tolist() == [2, 2, 2]


def test_zero_dim_and_zero_size_shapes_follow_numpy_shape_semantics(numpy_semantics):
    assert np.zeros(()).shape == () and repr(np.zeros(())) == "array(0.)"
    assert repr(np.ones((0, 3))) == "array([], shape=(0, 3))"
    a = np.arange(6).reshape(2, 3)
    assert a[1, 2].shape == () and repr(a[1, 2]) == "array(5.)"


def test_without_numpy_shape_semantics_scalars_index_as_one_element():
    a = np.arange(6).reshape(2, 3)
    assert repr(a[1, 2]) == "array([5.])"                       # MXNet 1.9.1 without set_np
    assert a.sum().shape == ()                                  # the operators are NumPy's anyway
    with pytest.raises(MXNetError, match="inferring shapes failed"):
        np.zeros(())


def test_repr_and_str_as_mxnet_prints_them():
    assert repr(np.array([[1, 2], [3, 4]], dtype="int32")) == "array([[1, 2],\n       [3, 4]], dtype=int32)"
    assert repr(np.array([1.5, 2.25])) == "array([1.5 , 2.25])"
    assert repr(np.array([1, 2], dtype="float64")) == "array([1., 2.], dtype=float64)"
    assert repr(np.array([1, 2], dtype="float16")) == "array([1., 2.], dtype=float16)"
    assert repr(np.array([1, 2], dtype="int8")) == "array([1, 2], dtype=int8)"
    assert repr(np.arange(3, dtype="int64")) == "array([0, 1, 2], dtype=int64)"
    assert repr(np.array([1, 2], dtype="bool")) == "array([ True,  True])"
    assert str(np.array([1.0, 2.0])) == "[1. 2.]"
    assert str(np.array([[1, 2], [3, 4]], dtype="int64")) == "[[1 2]\n [3 4]]"
    assert "{:0.3g}".format(np.array(onp.pi)) == "3.14"


def test_properties_and_conversions():
    a = np.ones((2, 3))
    assert a.shape == (2, 3) and a.ndim == 2 and a.size == 6 and a.T.shape == (3, 2)
    assert a.dtype == onp.dtype("float32") and isinstance(a.dtype, onp.dtype)
    assert a.tolist() == [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    assert a.flatten().shape == (6,) and a.reshape(3, 2).shape == (3, 2) and a.reshape((-1,)).shape == (6,)
    assert np.array([2.5]).item() == 2.5 and float(np.array(2.5)) == 2.5
    b = a.astype("int32")
    assert b.dtype == onp.int32 and type(b) is np.ndarray
    c = a.copy()
    c[0, 0] = 5
    assert a.asnumpy()[0, 0] == 1.0
    with pytest.raises(NotImplementedError):
        a.copy(order="F")
    with pytest.raises(TypeError, match="unsized"):
        len(np.array(1.0))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(np.ones(2))


# -- operators: dtypes and broadcasting ------------------------------------------------------------
@pytest.mark.parametrize("expression, dtype", [
    (lambda a: a["i32"] + a["f32"], "float32"), (lambda a: a["i32"] + a["i64"], "int64"),
    (lambda a: a["f32"] + a["f64"], "float64"), (lambda a: a["i32"] + 1, "int32"),
    (lambda a: a["i32"] + 1.5, "int32"), (lambda a: a["i32"] / a["i32"], "float32"),
    (lambda a: a["i64"] / 2, "float32"), (lambda a: a["f16"] + a["f32"], "float32"),
    (lambda a: a["u8"] + a["i8"], "int32"), (lambda a: a["i32"] * a["f16"], "float16"),
    (lambda a: a["i32"] ** 2, "int32"), (lambda a: a["i32"] ** a["f32"], "float32"),
    (lambda a: a["i32"] < a["i32"], "bool"), (lambda a: a["f32"] == 1, "bool"),
    (lambda a: -a["i32"], "int32"), (lambda a: a["f32"] % 2, "float32"),
])
def test_binary_dtypes_are_mxnet_1_9_1s(expression, dtype):
    arrays = {name: np.array([1, 2, 3], dtype=kind) for name, kind in
              [("i32", "int32"), ("i64", "int64"), ("f32", "float32"), ("f64", "float64"), ("f16", "float16"),
               ("u8", "uint8"), ("i8", "int8")]}
    assert expression(arrays).dtype == onp.dtype(dtype)


def test_arithmetic_values_broadcast_and_in_place():
    a = np.array([[1, 2], [3, 4]])
    assert (a * np.array([10, 20])).asnumpy().tolist() == [[10.0, 40.0], [30.0, 80.0]]
    assert (np.array([1, 2]) + np.array([[1], [2]])).asnumpy().tolist() == [[2.0, 3.0], [3.0, 4.0]]
    assert (1 - a).asnumpy().tolist() == [[0.0, -1.0], [-2.0, -3.0]]
    assert (2 ** np.array([1, 2])).asnumpy().tolist() == [2.0, 4.0]
    assert (3 > np.array([1, 5])).asnumpy().tolist() == [True, False]
    assert (np.array([-3.0, 3.0]) % 2).asnumpy().tolist() == [1.0, 1.0]     # the divisor's sign
    b = a
    b += 1
    assert b is a and a.asnumpy().tolist() == [[2.0, 3.0], [4.0, 5.0]]
    with pytest.raises(TypeError):
        a + onp.array([1, 2])                                   # MXNet refuses NumPy operands
    with pytest.raises(TypeError):
        a // 2


def test_unary_math_keeps_integer_dtypes_as_mxnet_did():
    i32 = np.array([1, 2, 3], dtype="int32")
    assert np.exp(i32).asnumpy().tolist() == [2, 7, 20] and np.exp(i32).dtype == onp.int32
    assert np.log(i32).asnumpy().tolist() == [0, 0, 1]
    assert np.sqrt(i32).asnumpy().tolist() == [1, 1, 1]
    assert np.square(i32).asnumpy().tolist() == [1, 4, 9]
    assert np.abs(np.array([-1, 2], dtype="int32")).asnumpy().tolist() == [1, 2]
    assert onp.allclose(np.sin(np.array([0.0, onp.pi / 2])).asnumpy(), [0.0, 1.0])


def test_clip_maximum_minimum_where():
    x = np.array([1.0, 2.0, 3.0])
    assert np.clip(x, 1.5, 2.5).asnumpy().tolist() == [1.5, 2.0, 2.5]
    assert np.clip(np.array([1, 2, 3], dtype="int32"), 1, 2).dtype == onp.int32
    assert np.maximum(x, 2.5).asnumpy().tolist() == [2.5, 2.5, 3.0]
    assert np.minimum(x, np.array([2.0])).asnumpy().tolist() == [1.0, 2.0, 2.0]
    condition = np.array([1.0, 0.0, 1.0])
    assert np.where(condition, 1, 0).asnumpy().tolist() == [1.0, 0.0, 1.0]
    assert np.where(condition, x, np.zeros(3)).asnumpy().tolist() == [1.0, 0.0, 3.0]
    with pytest.raises(MXNetError, match="Type inconsistent"):
        np.where(condition, np.array([1, 2, 3], dtype="int32"), x)


def test_reductions_with_axis_and_keepdims():
    a = np.arange(6).reshape(2, 3)
    assert a.sum(axis=1, keepdims=True).asnumpy().tolist() == [[3.0], [12.0]]
    assert np.max(a, axis=0).asnumpy().tolist() == [3.0, 4.0, 5.0]
    assert np.min(a).item() == 0.0 and np.prod(a + 1).item() == 720.0
    assert np.mean(a, axis=(0, 1)).item() == 2.5
    assert np.sum(a, axis=()).shape == (2, 3)                    # no axis reduced
    argmax = np.argmax(a, axis=1)
    assert argmax.asnumpy().tolist() == [2, 2] and argmax.dtype == onp.int64
    assert np.argmin(a).item() == 0
    i32 = np.array([1, 2, 3], dtype="int32")
    assert np.sum(i32).dtype == onp.int32 and np.mean(i32).dtype == onp.float32
    assert np.std(i32).item() == 0 and np.std(i32).dtype == onp.int32       # MXNet 1.9.1 kept the dtype
    assert onp.isclose(np.var(np.array([1.0, 2.0, 3.0]), ddof=1).item(), 1.0)


def test_shape_functions():
    a = np.arange(6).reshape(2, 3)
    assert np.transpose(a).shape == (3, 2) and a.transpose(1, 0).shape == (3, 2)
    assert np.expand_dims(a, 1).shape == (2, 1, 3) and np.squeeze(np.ones((1, 2, 1))).shape == (2,)
    assert np.concatenate([a, a], axis=None).shape == (12,)
    assert np.stack([a, a], axis=1).shape == (2, 2, 3)
    parts = np.split(np.arange(6), 3)
    assert [p.asnumpy().tolist() for p in parts] == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    assert [p.shape for p in np.split(np.arange(6), [1, 4])] == [(1,), (3,), (2,)]
    assert np.swapaxes(np.ones((2, 3, 4)), 0, 2).shape == (4, 3, 2)
    assert np.broadcast_to(np.array([1, 2]), (3, 2)).shape == (3, 2)
    assert np.tile(np.array([1, 2]), 2).asnumpy().tolist() == [1.0, 2.0, 1.0, 2.0]
    assert np.repeat(np.array([1, 2]), 2).asnumpy().tolist() == [1.0, 1.0, 2.0, 2.0]
    with pytest.raises(MXNetError, match="Type inconsistent"):
        np.concatenate([np.ones(2, dtype="int32"), np.ones(2)])


def test_products():
    assert np.dot(np.ones(2), np.ones(2)).item() == 2.0
    assert np.dot(np.array([1, 2, 3], dtype="int32"), np.array([1, 2, 3], dtype="int32")).dtype == onp.int32
    assert np.matmul(np.ones((4, 2, 3)), np.ones((3, 5))).shape == (4, 2, 5)
    assert np.tensordot(np.ones((2, 3)), np.ones((3, 2)), axes=1).asnumpy().tolist() == [[3.0, 3.0], [3.0, 3.0]]
    assert np.tensordot(np.ones((2, 3)), np.ones((3, 2)), axes=([1], [0])).shape == (2, 2)
    assert (np.ones((2, 3)) @ np.ones((3,))).asnumpy().tolist() == [3.0, 3.0]


def test_indexing_basic_boolean_and_assignment(numpy_semantics):
    a = np.arange(6).reshape(2, 3)
    assert a[1].asnumpy().tolist() == [3.0, 4.0, 5.0] and a[:, 1].asnumpy().tolist() == [1.0, 4.0]
    assert a[a > 2].asnumpy().tolist() == [3.0, 4.0, 5.0]
    assert a[[0, 1], [1, 2]].asnumpy().tolist() == [1.0, 5.0]
    # float32 "booleans" index by position, as in MXNet (np.array([True, ...]) is float32)
    assert np.array([1, 2, 3])[np.array([True, False, True])].asnumpy().tolist() == [2.0, 1.0, 2.0]
    a[a > 3] = 0
    assert a.asnumpy().tolist() == [[0.0, 1.0, 2.0], [3.0, 0.0, 0.0]]


def test_autograd_through_np_operators():
    x = np.array([1.0, 2.0, 3.0])
    x.attach_grad()
    with autograd.record():
        y = (x * x + np.sin(x)).sum()
    y.backward()
    assert type(x.grad) is np.ndarray
    assert onp.allclose(x.grad.asnumpy(), 2 * onp.array([1.0, 2.0, 3.0]) + onp.cos([1.0, 2.0, 3.0]))
    b, c = np.ones((2,), dtype="bool"), np.ones((1,), dtype="bool")
    b.attach_grad()
    c.attach_grad()
    with autograd.record():
        z = np.concatenate([b, c])
    z.backward()
    assert b.grad.dtype == onp.bool_ and b.grad.asnumpy().tolist() == [True, True]


# -- random, linalg --------------------------------------------------------------------------------
def test_random_samplers():
    mx.random.seed(3)
    first = np.random.uniform(size=(4,))
    mx.random.seed(3)
    assert np.random.uniform(size=(4,)).asnumpy().tolist() == first.asnumpy().tolist()
    assert np.random.uniform().shape == () and first.dtype == onp.float32
    assert np.random.normal(0, 1, (2, 3)).shape == (2, 3)
    ints = np.random.randint(0, 5, size=(100,))
    assert ints.dtype == onp.int64 and 0 <= ints.asnumpy().min() and ints.asnumpy().max() < 5
    picks = np.random.choice(5, 3, replace=False)
    assert picks.dtype == onp.int64 and len(set(picks.asnumpy().tolist())) == 3
    x = np.arange(10)
    np.random.shuffle(x)
    assert sorted(x.asnumpy().tolist()) == list(range(10))


def test_linalg():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert onp.allclose(np.linalg.inv(a).asnumpy(), [[-2.0, 1.0], [1.5, -0.5]], atol=1e-5)
    assert onp.isclose(np.linalg.det(a).item(), -2.0)
    assert onp.isclose(np.linalg.norm(a).item(), onp.sqrt(30.0))
    assert onp.allclose(np.linalg.solve(a, np.array([1.0, 2.0])).asnumpy(), [0.0, 0.5], atol=1e-5)


# -- npx -------------------------------------------------------------------------------------------
def test_npx_operators_return_np_arrays():
    relu = npx.relu(np.array([-1.0, 2.0]))
    assert type(relu) is np.ndarray and relu.asnumpy().tolist() == [0.0, 2.0]
    assert onp.allclose(npx.softmax(np.array([1.0, 2.0])).asnumpy(), [0.26894143, 0.73105854])
    assert onp.allclose(npx.log_softmax(np.array([0.0, 0.0])).asnumpy(), onp.log([0.5, 0.5]))
    assert npx.sigmoid(np.array([0.0])).asnumpy().tolist() == [0.5]
    assert npx.topk(np.array([1.0, 3.0, 2.0]), k=2).asnumpy().tolist() == [1.0, 2.0]
    assert npx.one_hot(np.array([0, 2]), 3).asnumpy().tolist() == [[1, 0, 0], [0, 0, 1]]
    assert npx.pick(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([0, 1])).asnumpy().tolist() == [1.0, 4.0]
    assert npx.batch_dot(np.ones((2, 1, 3)), np.ones((2, 3, 1))).shape == (2, 1, 1)
    masked = npx.sequence_mask(np.ones((3, 2)), np.array([1, 2]), use_sequence_length=True)
    assert masked.asnumpy().tolist() == [[1.0, 1.0], [0.0, 1.0], [0.0, 0.0]]
    assert npx.cpu(0) == mx.cpu(0) and npx.num_gpus() == mx.context.num_gpus()
    npx.waitall()


def test_npx_set_np_and_use_np():
    assert not npx.is_np_array() and not npx.is_np_shape()
    npx.set_np()
    try:
        assert npx.is_np_array() and npx.is_np_shape()
    finally:
        npx.reset_np()
    assert not npx.is_np_array()

    @npx.use_np
    def inside():
        return npx.is_np_array(), npx.is_np_shape()
    assert inside() == (True, True)


def test_npx_save_load_round_trip(tmp_path):
    path = str(tmp_path / "arrays")
    npx.save(path, {"a": np.arange(3), "b": np.ones((2,), dtype="int32")})
    loaded = npx.load(path)
    assert type(loaded["a"]) is np.ndarray and loaded["a"].asnumpy().tolist() == [0.0, 1.0, 2.0]
    assert loaded["b"].dtype == onp.int32
    assert type(mx.nd.load(path)["a"]) is mx.nd.NDArray      # the classic format: both front ends read it


# -- NumPy's dispatch protocols ---------------------------------------------------------------------
def test_numpy_functions_dispatch_to_mx_np():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert type(onp.sum(a)) is np.ndarray and onp.sum(a).item() == 10.0
    assert type(onp.add(a, 1)) is np.ndarray
    assert onp.cumsum(a).asnumpy().tolist() == [1.0, 3.0, 6.0, 10.0]   # a NumPy fallback, back as mx.np


# -- the symbolic front end and Gluon ---------------------------------------------------------------
def test_sym_np_builds_the_same_operators():
    x = mx.sym.var("x").as_np_ndarray()
    y = mx.sym.np.sum(x * 2 + 1, axis=0)
    ops = [node["op"] for node in json.loads(y.tojson())["nodes"]]
    assert ops == ["null", "_npi_multiply_scalar", "_npi_add_scalar", "_np_sum"]
    executor = y.as_nd_ndarray().bind(mx.cpu(), {"x": mx.nd.array([[1, 2], [3, 4]])})
    assert executor.forward()[0].asnumpy().tolist() == [10.0, 14.0]
    assert mx.sym.np.max(x, axis=(1, 2), keepdims=True).infer_shape(x=(2, 3, 4))[1] == [(2, 1, 1)]
    relu = mx.sym.npx.relu(x)
    assert json.loads(relu.tojson())["nodes"][-1]["op"] == "_npx_relu"      # as MXNet 1.9.1 wrote it
    assert mx.sym.load_json(relu.tojson()).tojson() == relu.tojson()


def test_gluon_hybridized_block_under_set_np(numpy_semantics):
    class Net(mx.gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.dense = mx.gluon.nn.Dense(2, in_units=3)

        def hybrid_forward(self, F, x):
            return F.npx.relu(self.dense(x)) + F.np.ones((1, 2))

    for hybridize in (False, True):
        net = Net()
        net.initialize(mx.init.One())
        if hybridize:
            net.hybridize()
        x = np.ones((4, 3))
        x.attach_grad()
        with autograd.record():
            out = net(x)
        out.backward()
        assert type(out) is np.ndarray and out.asnumpy().tolist() == [[4.0, 4.0]] * 4
        assert type(net.dense.weight.data()) is np.ndarray
        assert x.grad.asnumpy().tolist() == [[2.0, 2.0, 2.0]] * 4


def test_selection_and_composed_functions():
    a = np.array([[3.0, 1.0], [2.0, 5.0]])
    # what MXNet 1.9.1 gave for each call
    assert np.sort(a).tolist() == [[1.0, 3.0], [2.0, 5.0]]
    assert np.argsort(a).tolist() == [[1, 0], [0, 1]] and np.argsort(a).dtype == onp.int64
    assert bool(np.any(a > 4)) is True and np.isnan(a).dtype == onp.bool_
    assert np.flip(a).tolist() == [[5.0, 2.0], [1.0, 3.0]] and np.tril(a).tolist() == [[3.0, 0.0], [2.0, 5.0]]
    assert float(np.trace(a)) == 8.0 and np.take(a, np.array([0, 3])).tolist() == [3.0, 5.0]
    assert [x.tolist() for x in np.nonzero(a > 2)] == [[0, 1], [0, 1]]
    assert np.einsum("ij,jk->ik", a, a).tolist() == [[11.0, 8.0], [16.0, 27.0]]
    assert np.hstack([a, a]).shape == (2, 4) and np.vstack([np.ones(2), np.ones(2)]).shape == (2, 2)
    assert np.logspace(0, 2, 3).tolist() == [1.0, 10.0, 100.0]
    assert [m.shape for m in np.meshgrid(np.ones(3), np.ones(2))] == [(2, 3), (2, 3)]
    assert np.cumsum(a).tolist() == [3.0, 4.0, 6.0, 11.0] and np.average(a, axis=0).tolist() == [2.5, 3.0]
    assert np.round(np.array([1.25, 2.5])).tolist() == [1.0, 2.0]
    assert np.column_stack([np.ones(2), np.zeros(2)]).tolist() == [[1.0, 0.0], [1.0, 0.0]]
    assert np.roll(np.arange(4), 1).tolist() == [3.0, 0.0, 1.0, 2.0]
    assert np.diag(np.array([1.0, 2.0])).tolist() == [[1.0, 0.0], [0.0, 2.0]] and int(np.count_nonzero(a > 2)) == 2
    x = mx.sym.var("x").as_np_ndarray()
    assert mx.sym.np.hstack([x, x]).infer_shape(x=(2, 3))[1] == [(2, 6)]


def test_npx_reshape_codes():
    x = np.ones((2, 3, 4))
    assert npx.reshape(x, (-2, -1)).shape == (2, 12)
    assert npx.reshape(x, (-6, 1, 2, -4)).shape == (1, 2, 3, 4)
    assert npx.reshape(x, (-5, -1)).shape == (6, 4)
    assert npx.reshape(x, (-1, -2), reverse=True).shape == (6, 4)
    assert npx.reshape(np.ones((2, 1, 4)), (-2, -3, -2)).shape == (2, 4)


def test_numpy_op_doc_stubs_follow_the_front_end():
    # MXNet's mxnet._numpy_op_doc: one stub per registered _np_* operator with the signature of
    # the operator's mx.np function (its test_np_builtin_op_signature compares them)
    import inspect
    from mxtorch import _numpy_op_doc
    from mxtorch.numpy_op_signature import _get_builtin_op
    names = [name for name in mx.operator.get_all_registered_operators() if name.startswith("_np_")]
    assert "_np_sum" in names and len(names) >= 10
    for name in names:
        stub = getattr(_numpy_op_doc, name)
        assert str(_get_builtin_op(name).__signature__) == str(inspect.signature(stub))
    assert list(inspect.signature(_numpy_op_doc._np_sum).parameters)[:3] == ["a", "axis", "dtype"]
    with pytest.raises(mx.MXNetError, match="documentation only"):
        _numpy_op_doc._np_sum(mx.np.ones((2,)))


def test_numpy_op_fallback_custom_operators():
    # MXNet's mxnet.numpy_op_fallback: NumPy-computed custom operators in np._internal
    from mxtorch import numpy_op_fallback
    assert issubclass(numpy_op_fallback.ResizeProp, mx.operator.CustomOpProp)
    npx.set_np()
    try:
        a = np.arange(6).astype("float32")
        out = mx.nd.np._internal.resize_fallback(a, new_shape=(2, 4))
        onp.testing.assert_array_equal(out.asnumpy(), onp.resize(onp.arange(6.0), (2, 4)))
        rows = mx.nd.np._internal.unravel_index_fallback(np.array([5, 7]), shape=(2, 4))
        onp.testing.assert_array_equal(rows.asnumpy(), onp.stack(onp.unravel_index([5, 7], (2, 4))))
        assert mx.nd.np._internal.empty_like_fallback(a, dtype="int32", order="C", subok=False,
                                                      shape=None).dtype == onp.int32
        sample = mx.nd.np._internal.mvn_fallback(np.zeros((2,)), np.array([[4.0, 0.0], [0.0, 1.0]]), size=(4000,))
        assert sample.shape == (4000, 2)
        assert abs(float(sample.asnumpy()[:, 0].std()) - 2.0) < 0.15
        assert mx.sym.np._internal.resize_fallback(mx.sym.var("a"), new_shape=(3,)).list_arguments() == ["a"]
    finally:
        npx.reset_np()
    with pytest.raises(ValueError, match="Duplicate name resize_fallback"):
        numpy_op_fallback.register("resize_fallback")(numpy_op_fallback.ResizeProp)
