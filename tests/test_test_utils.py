"""mx.test_utils: comparisons, random data helpers and the gradient / forward checkers."""
import numpy as np
import pytest

import mxtorch as mx
from mxtorch import test_utils as tu
from mxtorch.base import MXNetError


def test_assert_almost_equal_tolerances_and_message():
    tu.assert_almost_equal(np.array([1.0, 2.0], np.float32), np.array([1.00005, 2.0], np.float32))
    with pytest.raises(AssertionError) as info:
        tu.assert_almost_equal(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.5, 3.0]), names=("got", "want"))
    message = str(info.value)
    assert "(1,)" in message and "got=2.0" in message and "want=2.5" in message and "1 of 3" in message
    # float16 operands get the looser float16 defaults (rtol 1e-2, atol 1e-1)
    tu.assert_almost_equal(np.array([1.0], np.float16), np.array([1.05], np.float32))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(np.array([1.0], np.float32), np.array([1.05], np.float32))
    tu.assert_almost_equal(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]), equal_nan=True)
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))
    tu.assert_almost_equal(mx.nd.array([1, 2]), np.array([1, 2.0]), rtol=0, atol=0)


def test_almost_equal_same_and_shapes():
    assert tu.almost_equal(np.ones(3), np.ones(3) + 1e-9)
    assert not tu.almost_equal(np.ones(3), np.ones(3) * 2)
    assert not tu.almost_equal(np.ones((1, 3)), np.ones(3), use_broadcast=False)
    assert tu.same(np.arange(4), mx.nd.array(np.arange(4)).asnumpy().astype(np.int64))
    assert not tu.same(np.arange(4), np.arange(1, 5))
    assert tu.get_tols(np.ones(1, np.float32), np.ones(1, np.float64), None, None) == (1e-4, 1e-3)
    assert tu.get_tols(np.ones(1), np.ones(1), 0.5, {np.dtype(np.float64): 0.25}) == (0.5, 0.25)


def test_np_reduce_matches_numpy():
    data = np.random.RandomState(0).randn(2, 3, 4)
    np.testing.assert_allclose(tu.np_reduce(data, (0, 2), True, np.sum), data.sum(axis=(0, 2), keepdims=True))
    np.testing.assert_allclose(tu.np_reduce(data, 1, False, np.max), data.max(axis=1))
    np.testing.assert_allclose(tu.np_reduce(data, None, False, np.sum), data.sum())
    np.testing.assert_allclose(tu.collapse_sum_like(np.ones((2, 3, 4)), (3, 1)), np.full((3, 1), 8.0))


def test_random_helpers():
    np.random.seed(0)
    for _ in range(20):
        rows, cols = tu.rand_shape_2d(3, 4)
        assert 1 <= rows <= 3 and 1 <= cols <= 4
        assert all(1 <= d <= 5 for d in tu.rand_shape_nd(4, 5))
        assert all(0 <= d <= 2 for d in tu.rand_shape_3d(2, 2, 2, allow_zero_size=True))
    single = tu.random_arrays((2, 3))
    assert isinstance(single, np.ndarray) and single.shape == (2, 3) and single.dtype == np.float32
    first, second = tu.random_arrays((2,), (3, 1))
    assert first.shape == (2,) and second.shape == (3, 1)
    (uniform,) = tu.random_uniform_arrays((1000,), low=2, high=3)       # a list, one shape too (MXNet)
    assert uniform.shape == (1000,) and uniform.min() >= 2 and uniform.max() < 3
    array = tu.rand_ndarray((3, 2), dtype=np.float64)
    assert array.shape == (3, 2) and array.dtype == np.float64
    # sparse storage types give mx.nd.sparse arrays (held dense); an unknown one raises
    sparse = tu.rand_ndarray((3, 2), stype="csr", density=1.0)
    assert sparse.stype == "csr" and sparse.shape == (3, 2) and (sparse.asnumpy() > 0).all()
    with pytest.raises(MXNetError, match="coo"):
        tu.rand_ndarray((3, 2), stype="coo")
    assert sorted(tu.random_sample(range(5), 5)) == [0, 1, 2, 3, 4]


def test_default_context():
    assert tu.default_context() == mx.cpu()
    try:
        tu.set_default_context(mx.cpu(3))
        assert tu.default_context() == mx.cpu(3)
    finally:
        tu.set_default_context(mx.cpu())
    with pytest.raises(MXNetError):
        tu.set_default_context("cpu")


def test_check_numeric_gradient_accepts_correct_and_rejects_wrong_gradients():
    x = mx.sym.var("x")
    w = mx.sym.var("w")
    location = {"x": np.random.RandomState(1).randn(3, 4), "w": np.random.RandomState(2).randn(4, 2)}
    tu.check_numeric_gradient(mx.sym.dot(x, w), location)
    tu.check_numeric_gradient(mx.sym.dot(x, w), [location["x"], location["w"]], dtype=np.float64)
    tu.check_numeric_gradient(mx.sym.dot(x, w), location, grad_nodes={"x": "add", "w": "write"})
    tu.check_numeric_gradient(mx.sym.tanh(x), {"x": location["x"]}, grad_nodes=["x"])
    # x * stop_gradient(x): the backward pass sees only half of the true derivative 2x
    wrong = x * mx.sym.BlockGrad(x)
    with pytest.raises(AssertionError, match="NUMERICAL_x"):
        tu.check_numeric_gradient(wrong, {"x": location["x"]})
    with pytest.raises(MXNetError, match="grad_nodes"):
        tu.check_numeric_gradient(mx.sym.tanh(x), {"x": location["x"]}, grad_nodes=["y"])


def test_numeric_grad_of_a_square():
    x = mx.sym.var("x")
    values = np.array([[0.5, -1.0, 2.0]])
    executor = mx.sym.square(x).bind(mx.cpu(), args={"x": mx.nd.array(values, dtype=np.float64)}, grad_req="null")
    gradient = tu.numeric_grad(executor, {"x": values}, eps=1e-4, dtype=np.float64)
    np.testing.assert_allclose(gradient["x"], 2 * values, rtol=1e-6)



def test_numeric_grad_moves_one_element_at_a_time_and_restores_the_binding():
    # prod is linear in each element: its central difference is exactly prod of the others,
    # and is off by about eps / 2 relative if a moved element were not put back
    x = mx.sym.var("x")
    values = np.array([[1.5, -2.0, 0.75], [3.0, 1.25, -0.5]])
    bound = mx.nd.array(values, dtype=np.float64)
    executor = mx.sym.prod(x).bind(mx.cpu(), args={"x": bound}, grad_req="null")
    gradient = tu.numeric_grad(executor, {"x": values}, eps=1e-4, dtype=np.float64)
    others = np.array([np.prod(np.delete(values.reshape(-1), i)) for i in range(values.size)])
    np.testing.assert_allclose(gradient["x"], others.reshape(values.shape), rtol=1e-9)
    np.testing.assert_array_equal(executor.arg_dict["x"].asnumpy(), values)
    # a float16 argument: x_i +/- eps / 2 is rounded to float16 before the forward
    half = np.array([1.0, 2.0], dtype=np.float16)
    executor = mx.sym.prod(x).bind(mx.cpu(), args={"x": mx.nd.array(half, dtype=np.float16)}, grad_req="null")
    gradient = tu.numeric_grad(executor, {"x": half}, eps=2.0 ** -6, dtype=np.float16)
    up, down = np.float16(1.0 + 2.0 ** -7), np.float16(1.0 - 2.0 ** -7)
    expected0 = (float(up) * 2.0 - float(down) * 2.0) / 2.0 ** -6
    assert gradient["x"][0] == pytest.approx(expected0, rel=1e-3)
    np.testing.assert_array_equal(executor.arg_dict["x"].asnumpy(), half)

def test_check_symbolic_forward_and_backward():
    lhs, rhs = mx.sym.var("lhs"), mx.sym.var("rhs")
    product = mx.sym.dot(lhs, rhs)
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    b = np.array([[5.0, 6.0], [7.0, 8.0]])
    outputs = tu.check_symbolic_forward(product, [a, b], [a @ b])
    assert outputs[0].shape == (2, 2)
    tu.check_symbolic_forward(product, {"lhs": a, "rhs": b}, {product.list_outputs()[0]: a @ b})
    with pytest.raises(AssertionError, match="EXPECTED_"):
        tu.check_symbolic_forward(product, [a, b], [a @ b + 1])
    head = np.ones((2, 2))
    grads = tu.check_symbolic_backward(product, [a, b], [head], [head @ b.T, a.T @ head])
    np.testing.assert_allclose(grads["lhs"].asnumpy(), head @ b.T)
    tu.check_symbolic_backward(product, [a, b], [head], {"lhs": head @ b.T}, grad_req="add")
    tu.check_symbolic_backward(product, [a, b], [head], {"lhs": head @ b.T, "rhs": a.T @ head},
                               grad_req={"lhs": "write", "rhs": "null"})
    with pytest.raises(AssertionError, match="BACKWARD_rhs"):
        tu.check_symbolic_backward(product, [a, b], [head], [head @ b.T, a.T @ head + 1])
    as_is = tu.check_symbolic_forward(product, [a.astype(np.float64), b], [a @ b], dtype="asnumpy")
    assert as_is[0].dtype == np.float64


def test_simple_forward_and_check_consistency():
    x = mx.sym.var("x")
    result = tu.simple_forward(mx.sym.sum(x, axis=1), x=np.arange(6.0).reshape(2, 3))
    np.testing.assert_allclose(result, [3.0, 12.0])
    symbol = mx.sym.FullyConnected(x, num_hidden=3, name="fc")
    results = tu.check_consistency(symbol, [{"ctx": mx.cpu(0), "x": (2, 4), "type_dict": {"x": np.float64}},
                                            {"ctx": mx.cpu(0), "x": (2, 4), "type_dict": {"x": np.float32}}])
    assert len(results) == 2 and results[0][0][0].shape == (2, 3)


def test_generator_checks():
    rng = np.random.RandomState(0)
    assert tu.mean_check(lambda n: rng.normal(1.0, 2.0, n), 1.0, 2.0, nsamples=20000)
    assert not tu.mean_check(lambda n: rng.normal(1.5, 2.0, n), 1.0, 2.0, nsamples=20000)
    assert tu.var_check(lambda n: rng.normal(0.0, 2.0, n), 2.0, nsamples=20000)
    buckets, probs = tu.gen_buckets_probs_with_ppf(lambda q: q, 4)
    assert buckets[0] == (0.0, 0.25) and probs == [0.25] * 4
    p_values = tu.verify_generator(lambda n: rng.uniform(0, 1, n), buckets, probs, nsamples=4000, nrepeat=3)
    assert len(p_values) == 3
    with pytest.raises(AssertionError):
        tu.verify_generator(lambda n: rng.uniform(0, 0.5, n), buckets, probs, nsamples=4000, nrepeat=3)
    p_value, observed, _ = tu.chi_square_check(lambda n: rng.randint(0, 3, n), [0, 1, 2], [1 / 3] * 3, 3000)
    assert observed.sum() == 3000 and 0 <= p_value <= 1


def test_retry_and_assert_exception():
    calls = []

    @tu.retry(3)
    def flaky():
        calls.append(1)
        assert len(calls) >= 2

    flaky()
    assert len(calls) == 2
    tu.assert_exception(int, ValueError, "not a number")
    with pytest.raises(AssertionError):
        tu.assert_exception(int, ValueError, "12")


def test_compare_optimizer_accepts_equal_steps_and_rejects_different_ones():
    import pytest
    from mxtorch.test_utils import compare_optimizer
    mx.random.seed(3)
    compare_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9), mx.optimizer.SGD(learning_rate=0.1, momentum=0.9),
                      (4, 3), "float32", ntensors=2)
    with pytest.raises(AssertionError):
        compare_optimizer(mx.optimizer.SGD(learning_rate=0.1), mx.optimizer.SGD(learning_rate=0.2), (4, 3), "float32")
    import mxtorch.test_utils as test_utils
    assert "compare_optimizer" in test_utils.__all__    # MXNet's star-export includes it


# -- input builders and checks (mxtorch.test_inputs / test_checks); values from MXNet 1.9.1 --------------
def test_elementwise_maps_and_large_tensor_builders_match_mxnet():
    assert tu.assign_each(np.array([[1., 2.], [3., 4.]]), lambda x: x * x + 1).tolist() == [[2., 5.], [10., 17.]]
    assert tu.assign_each2(np.array([1., 2.]), np.array([3., 5.]), lambda a, b: a * b - 1).tolist() == [2., 9.]
    assert tu.assign_each(np.array([1, 2]), None).tolist() == [1, 2]
    tensor = tu.create_2d_tensor(3, 2)
    assert tensor.dtype == np.int64 and tensor.asnumpy().tolist() == [[0, 0], [1, 1], [2, 2]]
    assert tu.create_vector(4).asnumpy().tolist() == [0, 1, 2, 3]
    assert tu.get_identity_mat_batch(2).asnumpy().tolist() == [[[1., 0.], [0., 1.]]] * 2


def test_seeded_random_builders_draw_what_mxnet_draws():
    np.random.seed(3)
    assert [int(v) for v in tu.rand_coord_2d(0, 10, 5, 8)] == [8, 6]
    np.random.seed(4)
    np.testing.assert_allclose(tu.new_orthonormal_matrix_2d(3),
                               [[-0.512654, 0.31756, 0.79771], [0.370406, -0.756383, 0.539152],
                                [0.774587, 0.571875, 0.270136]], atol=1e-6)
    np.random.seed(5)
    np.testing.assert_allclose(tu.new_sym_matrix_with_real_eigvals_nd((2, 2, 2)),
                               [[[5.24282, -0.605994], [-0.605994, 0.443697]],
                                [[-2.496867, 2.39541], [2.39541, -5.510751]]], atol=1e-6)
    np.random.seed(6)
    matrix = tu.new_matrix_with_real_eigvals_2d(2)
    np.testing.assert_allclose(matrix, [[0.766646, 1.336891], [7.308848, -6.712471]], atol=1e-6)
    assert np.isreal(np.linalg.eigvals(matrix)).all()
    np.random.seed(7)
    np.testing.assert_allclose(tu.new_matrix_with_real_eigvals_nd((1, 2, 2)),
                               [[[7.252734, -2.555012], [-5.853678, 3.076973]]], atol=1e-6)


def test_create_sparse_arrays_and_shuffled_csr_columns():
    np.random.seed(8)
    rows = tu.create_sparse_array((4, 3), "row_sparse", rsp_indices=[3, 1], data_init=2.0)
    assert rows.stype == "row_sparse" and rows.indices.asnumpy().tolist() == [1, 3]
    assert rows.asnumpy().tolist() == [[0., 0., 0.], [2., 2., 2.], [0., 0., 0.], [2., 2., 2.]]
    np.random.seed(9)
    assert tu.create_sparse_array_zd((3, 4), "row_sparse", density=0.9, rsp_indices=[2]).indices.asnumpy().tolist() \
        == [2]
    with pytest.raises(AssertionError, match="Unknown storage type"):
        tu.create_sparse_array((2, 2), "dense")
    # shuffling a row's column indices moves its stored values among that row's non-zero columns
    csr = mx.nd.sparse.csr_matrix(np.array([[1., 0., 2., 3.], [0., 4., 0., 0.]], np.float32))
    np.random.seed(0)
    tu.shuffle_csr_column_indices(csr)
    dense = csr.asnumpy()
    assert sorted(dense[0][[0, 2, 3]].tolist()) == [1., 2., 3.] and dense[0][1] == 0
    assert dense[1].tolist() == [0., 4., 0., 0.]


def test_same_symbol_structure_and_error_rate_comparison():
    fc = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=3)
    assert tu.same_symbol_structure(fc, mx.sym.FullyConnected(mx.sym.var("y"), num_hidden=5))
    assert not tu.same_symbol_structure(fc, mx.sym.Activation(mx.sym.var("x"), act_type="relu"))
    tu.assert_almost_equal_with_err(np.array([1., 2., 3., 4.]), np.array([1., 2., 3., 5.]), etol=0.3)
    with pytest.raises(AssertionError, match="Error rate 0.500000 exceeds etol=0.3"):
        tu.assert_almost_equal_with_err(np.array([1., 2., 3., 4.]), np.array([1., 2., 3.5, 5.]), etol=0.3)
    with pytest.raises(AssertionError):          # etol None: plain assert_almost_equal
        tu.assert_almost_equal_with_err(np.array([1., 2.]), np.array([1., 2.5]))


def test_check_speed_runs_both_modes_and_rejects_unknown_ones():
    fc = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=3)
    assert tu.check_speed(fc, x=(2, 4), N=2) > 0
    location = {"x": np.ones((2, 4)), "fullyconnected0_weight": np.ones((3, 4)), "fullyconnected0_bias": np.ones(3)}
    assert tu.check_speed(fc, location=location, typ="forward", N=1) > 0
    with pytest.raises(ValueError, match='"whole" or "forward"'):
        tu.check_speed(fc, x=(2, 4), typ="backward")


def test_check_gluon_hybridize_consistency_passes_and_catches_a_mismatch():
    from mxtorch.gluon import nn

    def build(prefix):
        net = nn.HybridSequential(prefix=prefix)
        with net.name_scope():
            net.add(nn.Dense(3))
        return net
    data = [mx.nd.array(np.arange(8, dtype=np.float32).reshape(2, 4))]
    tu.check_gluon_hybridize_consistency(build, data)
    with pytest.raises(AssertionError):
        tu.check_gluon_hybridize_consistency(build, data, numpy_func=lambda x: np.zeros((2, 3)))


def test_download_model_uses_files_in_place_and_im2rec_path(tmp_path, monkeypatch):
    for suffix in ("-symbol.json", "-0000.params"):
        (tmp_path / ("imagenet1k-resnet-18" + suffix)).write_text("x")
    prefix, epoch = tu.download_model("imagenet1k-resnet-18", dst_dir=str(tmp_path))
    assert (prefix, epoch) == (str(tmp_path / "imagenet1k-resnet-18"), 0)
    assert tu.download_model("no-such-model", dst_dir=str(tmp_path)) == (None, 0)
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "im2rec.py").write_text("")
    monkeypatch.setenv("MXNET_HOME", str(tmp_path))
    assert tu.get_im2rec_path() == str(tmp_path / "tools" / "im2rec.py")
    monkeypatch.setenv("MXNET_HOME", str(tmp_path / "tools"))
    with pytest.raises(OSError, match="does not ship"):
        tu.get_im2rec_path()


def test_location_list_drops_arrays_beyond_the_arguments_as_mxnet():
    # MXNet's _parse_location zips the list with list_arguments(): its test_Deconvolution gives a
    # bias to a Deconvolution without one (no_bias defaults to True there)
    data = mx.sym.Variable("data")
    sym = mx.sym.Deconvolution(data=data, kernel=(3,), stride=(2,), num_filter=2, name="deconv")
    assert sym.list_arguments() == ["data", "deconv_weight"]
    rng = np.random.RandomState(0)
    x, w, b = rng.normal(size=(2, 3, 5)), rng.normal(size=(3, 2, 3)), rng.normal(size=(2,))
    tu.check_numeric_gradient(sym, [x, w, b], numeric_eps=1e-2, rtol=0.16, atol=1e-4)
    got = tu._parse_location(sym, [x, w, b], mx.cpu())
    assert list(got) == ["data", "deconv_weight"]
    np.testing.assert_allclose(got["deconv_weight"].asnumpy(), w.astype(np.float32))
    with pytest.raises(MXNetError, match="1 arrays for 2 arguments"):
        tu._parse_location(sym, [x], mx.cpu())


def _differences(symbol, shape, batched, seed=0):
    """numeric finite differences of ``symbol`` at a random point, batched through vmap or one
    forward pass at a time (test_checks._BATCHED_MIN_SIZE moved out of reach)."""
    import mxtorch.test_checks as checks
    rng = np.random.RandomState(seed)
    names = symbol.list_arguments()
    shapes, _, _ = symbol.infer_shape(data=shape)
    location = {n: rng.normal(0, 1, s).astype("float32") for n, s in zip(names, shapes)}
    executor = symbol.simple_bind(mx.cpu(), **dict(zip(names, shapes)))
    for n, v in location.items():
        executor.arg_dict[n][:] = v
    heads = [rng.uniform(0.1, 1.1, out.shape) for out in executor.outputs]
    saved = checks._BATCHED_MIN_SIZE
    if not batched:
        checks._BATCHED_MIN_SIZE = 1 << 62
    try:
        return checks._finite_differences(executor, location, None, 1e-2, True, heads, names)
    finally:
        checks._BATCHED_MIN_SIZE = saved


@pytest.mark.parametrize("make, shape, rtol", [
    (lambda x: mx.sym.Pooling(x, kernel=(3, 3), stride=(2, 2), pool_type="avg"), (1, 2, 9, 9), 1e-9),
    (lambda x: mx.sym.FullyConnected(x, num_hidden=3, name="fc"), (4, 20), 1e-9),
    # a batched convolution sums in another order: float32 rounding of the outputs, / eps
    (lambda x: mx.sym.Convolution(x, num_filter=2, kernel=(3, 3), name="conv"), (1, 2, 6, 6), 1e-3),
    # BatchNorm's training pass writes its moving statistics in place: one pass at a time
    (lambda x: mx.sym.BatchNorm(x, name="bn"), (2, 3, 4, 4), 0.0),
])
def test_batched_finite_differences_equal_one_pass_at_a_time(make, shape, rtol):
    symbol = make(mx.sym.Variable("data"))
    batched, single = _differences(symbol, shape, True), _differences(symbol, shape, False)
    assert sorted(batched) == sorted(single)
    assert np.abs(single["data"]).max() > 0
    for name in single:
        scale = np.abs(single[name]).max()
        np.testing.assert_allclose(batched[name], single[name], rtol=0, atol=rtol * scale)


def test_numeric_gradient_of_a_pooling_input_is_batched_and_still_catches_a_wrong_gradient():
    # MXNet's own mkl test_pooling differences a 36,000-element input (2 x 36,000 forward
    # passes one at a time took minutes); a wrong analytic gradient must still be caught
    shape = (2, 3, 6, 10, 10)
    data = mx.sym.Variable("data")
    x = np.random.RandomState(1).normal(-0.1, 0.1, size=shape)

    def pool(inputs):
        return mx.sym.Pooling(data=inputs, kernel=(3, 3, 3), stride=(2, 2, 2), pool_type="avg")
    tu.check_numeric_gradient(pool(data), [mx.nd.array(x)], numeric_eps=1e-2, rtol=0.16, atol=1e-4)
    # half of the input reaches the output without a gradient: backward is half of the truth
    with pytest.raises(AssertionError):
        tu.check_numeric_gradient(pool(mx.sym.BlockGrad(data) * 0.5 + data * 0.5), [mx.nd.array(x)],
                                  numeric_eps=1e-2, rtol=0.16, atol=1e-4)
