"""mx.np operators added on ops/numpy_manipulation.py (and later families): values against
NumPy (the independent computation), imperative and hybridized, with gradients."""
import numpy as onp
import pytest

import mxtorch as mx
from mxtorch import np, npx
from mxtorch.gluon import HybridBlock


@pytest.fixture(autouse=True)
def _np_semantics():
    npx.set_np()
    mx.random.seed(11)
    yield
    npx.reset_np()


class _Lambda(HybridBlock):
    def __init__(self, function):
        super().__init__()
        self._function = function

    def hybrid_forward(self, F, *args):
        return self._function(F, *args)


def _both(function, *arrays):
    """``function(F, *arrays)`` imperative and hybridized, as NumPy arrays."""
    results = []
    for hybridize in (False, True):
        block = _Lambda(function)
        if hybridize:
            block.hybridize()
        out = block(*arrays)
        results.append([o.asnumpy() for o in out] if isinstance(out, (list, tuple)) else out.asnumpy())
    return results


@pytest.mark.parametrize("kind", ["hanning", "hamming", "blackman"])
@pytest.mark.parametrize("count", [-3, 0, 1, 6, 11])
def test_windows(kind, count):
    expected = getattr(onp, kind)(count)
    for got in _both(lambda F, x: x + getattr(F.np, kind)(count, dtype="float64"), np.zeros((), dtype="float64")):
        onp.testing.assert_allclose(got, expected, atol=1e-12)
    assert getattr(np, kind)(count).dtype == onp.float32


def test_indices_and_diagonal_indices():
    onp.testing.assert_array_equal(np.indices((2, 3, 4)).asnumpy(), onp.indices((2, 3, 4)))
    assert np.indices((2, 0)).dtype == onp.int32 and np.indices((2, 0)).shape == (2, 2, 0)
    rows = np.diag_indices_from(np.ones((4, 4, 4)))
    assert len(rows) == 3
    for got, expected in zip(rows, onp.diag_indices_from(onp.ones((4, 4, 4)))):
        onp.testing.assert_array_equal(got.asnumpy(), expected)
    with pytest.raises(mx.base.MXNetError):
        np.diag_indices_from(np.ones((2, 3)))
    flat = onp.array([[3, 17], [5, 23]], dtype=onp.int64)
    for got, expected in zip(np.unravel_index(np.array(flat, dtype="int64"), (2, 3, 4)),
                             onp.unravel_index(flat, (2, 3, 4))):
        onp.testing.assert_array_equal(got.asnumpy(), expected)


@pytest.mark.parametrize("source,shape", [((), (2, 3)), ((2, 3), (5,)), ((2, 3), 2), ((2, 0, 1), (2, 2)),
                                          ((1,), ())])
def test_resize(source, shape):
    data = onp.arange(int(onp.prod(source)), dtype=onp.float32).reshape(source) + 1
    for got in _both(lambda F, x: F.np.resize(x, shape), np.array(data)):
        onp.testing.assert_array_equal(got, onp.resize(data, shape))


@pytest.mark.parametrize("k", [-2, 0, 3])
def test_diagflat_values_and_gradient(k):
    data = onp.random.RandomState(0).uniform(-1, 1, (2, 3)).astype(onp.float32)
    x = np.array(data)
    x.attach_grad()
    with mx.autograd.record():
        out = np.diagflat(x, k)
    out.backward()
    onp.testing.assert_allclose(out.asnumpy(), onp.diagflat(data, k))
    onp.testing.assert_allclose(x.grad.asnumpy(), onp.ones((2, 3)))


@pytest.mark.parametrize("n,axis", [(0, -1), (1, 0), (2, -1), (4, 1), (6, 1)])
def test_diff_values_and_gradient(n, axis):
    data = onp.random.RandomState(1).uniform(-1, 1, (3, 5)).astype(onp.float64)
    x = np.array(data)
    x.attach_grad()
    with mx.autograd.record():
        out = np.diff(x, n=n, axis=axis)
    out.backward()
    expected = onp.diff(data, n=n, axis=axis)
    onp.testing.assert_allclose(out.asnumpy(), expected)
    # the gradient of the n-th difference: n times minus the difference of the zero-padded head grad
    grad = onp.ones(expected.shape)
    for _ in range(min(n, data.shape[axis])):
        grad = -onp.diff(grad, axis=axis, prepend=0, append=0)
    if expected.size == 0:
        grad = onp.zeros(data.shape)
    onp.testing.assert_allclose(x.grad.asnumpy(), grad)


def test_ediff1d():
    data = onp.array([[1.0, 4.0], [9.0, 16.0]], dtype=onp.float32)
    for to_begin, to_end in [(None, None), (-5.0, None), (None, onp.array([7.0, 8.0])),
                             (onp.array([0.5]), 99.0)]:
        expected = onp.ediff1d(data, to_end=to_end, to_begin=to_begin)
        got = np.ediff1d(np.array(data), to_end=np.array(to_end) if isinstance(to_end, onp.ndarray) else to_end,
                         to_begin=np.array(to_begin) if isinstance(to_begin, onp.ndarray) else to_begin)
        onp.testing.assert_allclose(got.asnumpy(), expected)


def test_nan_to_num_and_gradient():
    data = onp.array([onp.nan, onp.inf, -onp.inf, -3.0, 2.0], dtype=onp.float32)
    onp.testing.assert_allclose(np.nan_to_num(np.array(data)).asnumpy(), onp.nan_to_num(data))
    onp.testing.assert_allclose(np.nan_to_num(np.array(data), nan=1.0, posinf=9.0, neginf=-9.0).asnumpy(),
                                onp.nan_to_num(data, nan=1.0, posinf=9.0, neginf=-9.0))
    x = np.array(data)
    x.attach_grad()
    with mx.autograd.record():
        out = np.nan_to_num(x)
    out.backward()
    onp.testing.assert_allclose(x.grad.asnumpy(), [0, 0, 0, 1, 1])
    scalar = np.array(onp.nan)
    np.nan_to_num(scalar, copy=False)
    assert float(scalar.asnumpy()) == 0.0


def test_bincount_histogram_percentile_polyval():
    ints = onp.array([0, 1, 1, 3, 7], dtype=onp.int32)
    weights = onp.array([0.5, 1.0, 2.0, 4.0, 8.0])
    for got in _both(lambda F, x: F.np.bincount(x, None, 10), np.array(ints, dtype="int32")):
        onp.testing.assert_array_equal(got, onp.bincount(ints, minlength=10))
    onp.testing.assert_allclose(np.bincount(np.array(ints, dtype="int32"), np.array(weights)).asnumpy(),
                                onp.bincount(ints, weights))
    values = onp.random.RandomState(2).uniform(0, 10, (3, 4)).astype(onp.float32)
    counts, edges = np.histogram(np.array(values), bins=7, range=(0.0, 10.0))
    expected_counts, expected_edges = onp.histogram(values, bins=7, range=(0.0, 10.0))
    onp.testing.assert_array_equal(counts.asnumpy(), expected_counts)
    onp.testing.assert_allclose(edges.asnumpy(), expected_edges, rtol=1e-6)
    bins = onp.array([0.0, 2.5, 5.0, 10.0], dtype=onp.float32)
    counts, _ = np.histogram(np.array(values), bins=np.array(bins))
    onp.testing.assert_array_equal(counts.asnumpy(), onp.histogram(values, bins=bins)[0])
    data = onp.random.RandomState(3).uniform(-5, 5, (4, 6))
    for method in ["linear", "lower", "higher", "midpoint", "nearest"]:
        got = np.percentile(np.array(data), 37.0, axis=1, interpolation=method, keepdims=True)
        onp.testing.assert_allclose(got.asnumpy(), onp.percentile(data, 37.0, axis=1, method=method, keepdims=True),
                                    rtol=1e-6)
    q = onp.array([0.1, 0.9])
    onp.testing.assert_allclose(np.quantile(np.array(data), np.array(q)).asnumpy(), onp.quantile(data, q), rtol=1e-6)
    p, x = onp.array([2.0, -1.0, 3.0]), onp.array([[0.5, -2.0], [1.5, 3.0]])
    mp, mx_x = np.array(p), np.array(x)
    mp.attach_grad()
    mx_x.attach_grad()
    with mx.autograd.record():
        out = np.polyval(mp, mx_x)
    out.backward()
    onp.testing.assert_allclose(out.asnumpy(), onp.polyval(p, x), rtol=1e-6)
    onp.testing.assert_allclose(mx_x.grad.asnumpy(), onp.polyval(onp.polyder(p), x), rtol=1e-6)
    onp.testing.assert_allclose(mp.grad.asnumpy(), [(x ** 2).sum(), x.sum(), x.size], rtol=1e-6)


def test_shares_memory():
    x = np.zeros((4, 5))
    assert np.shares_memory(x[1], x[1]) and not np.shares_memory(x[0], x[1])
    assert np.may_share_memory(x[0, 1:4], x[0, 3:5]) and not np.may_share_memory(x[0, 1:3], x[0, 3:5])
    assert not np.shares_memory(x, np.ones((5, 0)))


def test_rank_dependent_functions_build_symbols():
    data = onp.arange(24, dtype=onp.float32).reshape(2, 3, 4)
    for got in _both(lambda F, x: F.np.moveaxis(x, [0, 1], [-1, -2]), np.array(data)):
        onp.testing.assert_array_equal(got, onp.moveaxis(data, [0, 1], [-1, -2]))
    other = onp.ones((5, 4), dtype=onp.float32)
    for got in _both(lambda F, x, y: F.np.inner(x, y), np.array(data), np.array(other)):
        onp.testing.assert_allclose(got, onp.inner(data, other))
    for got in _both(lambda F, x: F.np.hsplit(x, [1, 1, 3]), np.array(data)):
        expected = onp.hsplit(data, [1, 1, 3])
        assert len(got) == len(expected)
        for part, want in zip(got, expected):
            onp.testing.assert_array_equal(part, want)
    for got in _both(lambda F, x: F.np.array_split(x, 3, axis=2), np.array(data)):
        for part, want in zip(got, onp.array_split(data, 3, axis=2)):
            onp.testing.assert_array_equal(part, want)
    parts = np.array_split(np.array(data), (0, 2, 2), axis=2)
    assert [p.shape for p in parts] == [p.shape for p in onp.array_split(data, (0, 2, 2), axis=2)]
    for got in _both(lambda F, x, y: F.np.atleast_3d(x, y), np.array(onp.ones(3)), np.array(onp.ones((2, 2)))):
        assert [g.shape for g in got] == [g.shape for g in onp.atleast_3d(onp.ones(3), onp.ones((2, 2)))]


@pytest.mark.parametrize("shape,wshape,axis", [((3, 5), (3, 5), None), ((4, 5, 6), (4, 5, 6), (0, 2)),
                                               ((2, 3, 4), (3,), 1), ((2, 3, 4), (4,), -1)])
def test_average_values_and_gradients(shape, wshape, axis):
    rng = onp.random.RandomState(4)
    a_np, w_np = rng.uniform(-1, 1, shape), rng.uniform(0.5, 1, wshape)
    a, w = np.array(a_np, dtype="float64"), np.array(w_np, dtype="float64")
    a.attach_grad()
    w.attach_grad()
    with mx.autograd.record():
        avg, total = np.average(a, axis=axis, weights=w, returned=True)
    avg.backward()
    want_avg, want_total = onp.average(a_np, axis=axis, weights=w_np, returned=True)
    onp.testing.assert_allclose(avg.asnumpy(), want_avg)
    onp.testing.assert_allclose(total.asnumpy(), want_total)
    # d avg / d a = w / sum(w) (w broadcast along axis)
    if w_np.shape != a_np.shape:
        full = [1] * a_np.ndim
        full[axis] = -1
        w_full = onp.broadcast_to(w_np.reshape(full), a_np.shape)
    else:
        w_full = w_np
    onp.testing.assert_allclose(a.grad.asnumpy(), w_full / onp.sum(w_full, axis=axis, keepdims=True))
    plain = np.average(np.array(onp.arange(6).reshape(2, 3), dtype="int32"), axis=1)
    assert plain.dtype == onp.float32
    onp.testing.assert_allclose(plain.asnumpy(), [1.0, 4.0])


def test_linalg_eig_eigvalsh_tensorinv_tensorsolve():
    rng = onp.random.RandomState(5)
    q, _ = onp.linalg.qr(rng.uniform(-1, 1, (4, 4)))
    a_np = q @ onp.diag([1.0, 2.0, -3.0, 0.5]) @ onp.linalg.inv(q)
    w, v = np.linalg.eig(np.array(a_np, dtype="float64"))
    onp.testing.assert_allclose(onp.sort(w.asnumpy()), [-3.0, 0.5, 1.0, 2.0], atol=1e-8)
    onp.testing.assert_allclose(a_np @ v.asnumpy(), v.asnumpy() * w.asnumpy(), atol=1e-8)
    assert np.linalg.eig(np.array(onp.diag([1, 2]), dtype="int32"))[0].dtype == onp.float32
    sym = rng.uniform(-1, 1, (3, 3))
    for uplo in ("L", "U"):
        onp.testing.assert_allclose(np.linalg.eigvalsh(np.array(sym, dtype="float64"), UPLO=uplo).asnumpy(),
                                    onp.linalg.eigvalsh(sym, UPLO=uplo), atol=1e-10)
    t = rng.uniform(-1, 1, (4, 6, 8, 3))
    onp.testing.assert_allclose(np.linalg.tensorinv(np.array(t, dtype="float64"), ind=2).asnumpy(),
                                onp.linalg.tensorinv(t, ind=2), atol=1e-8)
    a = rng.uniform(-1, 1, (2, 3, 6))
    b = rng.uniform(-1, 1, (6,))
    onp.testing.assert_allclose(np.linalg.tensorsolve(np.array(a, dtype="float64"), np.array(b, dtype="float64"),
                                                      axes=(0, 1)).asnumpy(),
                                onp.linalg.tensorsolve(a, b, axes=(0, 1)), atol=1e-8)
    # MXNet 1.9.1's shapes for degenerate ranks: equal ranks give x of a's shape
    x = np.linalg.tensorsolve(np.ones((1, 1, 1)), np.full((1, 1, 1), 2.0))
    assert x.shape == (1, 1, 1) and float(x.asnumpy().reshape(-1)[0]) == 2.0


@pytest.mark.parametrize("mode", ["constant", "reflect", "symmetric", "edge", "minimum", "maximum"])
def test_pad_modes_against_numpy(mode):
    data = onp.random.RandomState(6).uniform(-1, 1, (3, 4, 2)).astype(onp.float32)
    widths = ((2, 3), (0, 5), (3, 1))
    for got in _both(lambda F, x: F.np.pad(x, widths, mode=mode), np.array(data)):
        onp.testing.assert_allclose(got, onp.pad(data, widths, mode=mode))
    with pytest.raises(ValueError):
        np.pad(np.array(data), 1, mode="wrap")


def test_pad_constant_gradient_and_pinv_array_rcond():
    x = np.array(onp.arange(6, dtype=onp.float32).reshape(2, 3))
    x.attach_grad()
    with mx.autograd.record():
        out = np.pad(x, ((1, 2), (3, 0)), mode="constant", constant_values=7)
        loss = (out * np.arange(out.size, dtype="float32").reshape(out.shape)).sum()
    loss.backward()
    weights = onp.arange(5 * 6, dtype=onp.float32).reshape(5, 6)
    onp.testing.assert_allclose(out.asnumpy(), onp.pad(onp.arange(6.0).reshape(2, 3), ((1, 2), (3, 0)),
                                                       constant_values=7))
    onp.testing.assert_allclose(x.grad.asnumpy(), weights[1:3, 3:6])
    a = onp.random.RandomState(7).uniform(-1, 1, (2, 4, 3))
    rcond = onp.array([1e-15, 0.5])
    got = np.linalg.pinv(np.array(a, dtype="float64"), np.array(rcond, dtype="float64")).asnumpy()
    onp.testing.assert_allclose(got, onp.linalg.pinv(a, rcond=rcond), atol=1e-8)


@pytest.mark.parametrize("obj,values,axis", [(2, [7.0, 8.0], None), (1, onp.ones((2, 2)), 0), (-1, onp.ones((3, 1)), 1),
                                             ([1], onp.ones((3, 2)), 1), ([0, 2, 2], onp.ones((3, 1)), 0),
                                             (slice(0, 3), 5.0, 1), (slice(5, -5, 1), onp.ones((3, 1)), 1),
                                             ([-1, 0, 1], 1.0, -1)])
def test_insert_against_numpy(obj, values, axis):
    data = onp.arange(6, dtype=onp.float32).reshape(3, 2)
    mx_obj = np.array(obj, dtype="int64") if isinstance(obj, list) else obj
    expected = onp.insert(data, obj, values, axis=axis)
    # array operands are block inputs (a hybridized block takes no captured arrays)
    arrays = [np.array(data)] + ([] if isinstance(values, float) else [np.array(onp.asarray(values, dtype=onp.float32))])
    if isinstance(obj, list):
        arrays.append(mx_obj)

    def function(F, x, *rest):
        rest = list(rest)
        v = values if isinstance(values, float) else rest.pop(0)
        return F.np.insert(x, rest.pop(0) if isinstance(obj, list) else obj, v, axis=axis)
    results = _both(function, *arrays)
    for got in results:
        onp.testing.assert_array_equal(got, expected)


def test_delete_against_numpy_and_mxnet_out_of_bounds_rule():
    data = onp.arange(24, dtype=onp.float32).reshape(2, 3, 4)
    for obj, axis in [(1, None), (-1, 2), (slice(0, 4, 2), 2), (slice(None, None, -2), 1), ([0, 0, 2], 1)]:
        if isinstance(obj, list):
            results = _both(lambda F, x, o: F.np.delete(x, o, axis=axis), np.array(data), np.array(obj, dtype="int64"))
        else:
            results = _both(lambda F, x: F.np.delete(x, obj, axis=axis), np.array(data))
        for got in results:
            onp.testing.assert_array_equal(got, onp.delete(data, obj, axis=axis))
    # MXNet 1.9.1 ignores the indices of an index array outside [0, length) (NumPy refuses them)
    got = np.delete(np.array(data), np.array([-1, 1, 7], dtype="int64"), axis=2)
    onp.testing.assert_array_equal(got.asnumpy(), onp.delete(data, [1], axis=2))
    with pytest.raises(TypeError):
        np.delete(np.array(data), 1.5)


def test_module_names_of_mxnet_numpy():
    import mxtorch.numpy.multiarray as multiarray
    # mx.np.linalg runs NumPy for the functions it has no operator for (MXNet's fallback_linalg)
    onp.testing.assert_allclose(float(np.linalg.cond(np.array([[1.0, 2.0], [3.0, 4.0]]))),
                                onp.linalg.cond(onp.array([[1.0, 2.0], [3.0, 4.0]])), rtol=1e-5)
    assert int(np.linalg.matrix_rank(np.eye(3))) == 3
    assert float(multiarray.nanmax(np.array([1.0, onp.nan]))) == 1.0
    assert multiarray.py_slice is slice and multiarray.ndarray is np.ndarray
    onp.testing.assert_array_equal(npx.arange_like(np.ones((2, 3))).asnumpy(), onp.arange(6.0).reshape(2, 3))


def test_lcm_and_ldexp():
    a, b = onp.array([4, 6, 10, 0], dtype=onp.int32), onp.array([6, 4, -4, 3], dtype=onp.int32)
    onp.testing.assert_array_equal(np.lcm(np.array(a, dtype="int32"), np.array(b, dtype="int32")).asnumpy(),
                                   onp.lcm(a, b))
    onp.testing.assert_array_equal(np.lcm(np.array(a, dtype="int32"), 4).asnumpy(), onp.lcm(a, 4))
    with pytest.raises(mx.base.MXNetError):
        np.lcm(np.ones(2), np.ones(2))
    x, e = onp.array([1.5, -2.0, 3.0], dtype=onp.float32), onp.array([1, 0, -2], dtype=onp.int32)
    onp.testing.assert_allclose(np.ldexp(np.array(x), np.array(e, dtype="float32")).asnumpy(), onp.ldexp(x, e))
    onp.testing.assert_allclose(np.ldexp(np.array(x), 3).asnumpy(), onp.ldexp(x, 3))
    onp.testing.assert_allclose(np.ldexp(2.0, np.array(x)).asnumpy(), 2.0 * 2.0 ** x, rtol=1e-6)


@pytest.mark.parametrize("function", [lambda x, **k: np.add(x, x, **k), lambda x, **k: np.exp(x, **k),
                                      lambda x, **k: np.logical_not(x, **k), lambda x, **k: np.invert(x, **k)])
def test_ufunc_keywords_as_mxnet(function):
    x = np.array([1, 2, 3], dtype="int32")
    for keywords in (dict(where=False), dict(dtype=onp.int8), dict(casting="safe"), dict(order="C"),
                     dict(subok=False)):
        with pytest.raises(NotImplementedError):
            function(x, **keywords)
    for keywords in (dict(dtype="abcdefg"), dict(casting="mxnet"), dict(bogus=1)):
        with pytest.raises(TypeError):
            function(x, **keywords)


def test_bitwise_not_hybridized():
    data = onp.array([[0, 5], [-3, 7]], dtype=onp.int32)
    for got in _both(lambda F, x: F.np.bitwise_not(x), np.array(data, dtype="int32")):
        onp.testing.assert_array_equal(got, onp.bitwise_not(data))


@pytest.mark.parametrize("shape,axis", [((6,), None), ((3, 4), None), ((3, 4), 1), ((4, 3), 0), ((2, 0, 3), None)])
def test_unique_against_numpy(shape, axis):
    data = onp.random.RandomState(8).randint(0, 3, shape).astype(onp.float32)
    got = np.unique(np.array(data), True, True, True, axis=axis)
    expected = onp.unique(data, True, True, True, axis=axis)
    for index in (0, 1, 3):
        onp.testing.assert_array_equal(got[index].asnumpy(), expected[index])
    # the inverse is 1-D (MXNet 1.9.1, NumPy 1.x) and rebuilds the input
    onp.testing.assert_array_equal(got[2].asnumpy(), expected[2].reshape(-1))
    assert np.unique(np.array(data)).shape == onp.unique(data).shape


def test_financial_functions_of_numpy_1x():
    # the examples of NumPy 1.x's (numpy_financial's) documentation
    onp.testing.assert_allclose(float(np.pv(0.05 / 12, 10 * 12, -100, 15692.93)), -100.00067131625819)
    onp.testing.assert_allclose(float(np.pmt(0.075 / 12, 12 * 15, 200000)), -1854.0247200054619)
    onp.testing.assert_allclose(float(np.npv(0.281, [-100, 39, 59, 55, 20])), -0.0084785916384548798)
    onp.testing.assert_allclose(float(np.mirr([-4500, -800, 800, 800, 600, 600, 800, 800, 700, 3000], 0.08, 0.055)),
                                0.066597175031553548)
    onp.testing.assert_allclose(float(np.rate(10, 0, -3500, 10000)), 0.1106908537142689)
    # the first principal payment: the payment less one month's interest on the whole loan
    payment = float(np.pmt(0.1 / 12, 60, 55000))
    onp.testing.assert_allclose(float(np.ppmt(0.1 / 12, 1, 60, 55000)), payment + 55000 * 0.1 / 12, rtol=1e-6)


def test_creation_and_shape_fixes():
    onp.testing.assert_array_equal(np.arange(0, 5, None).asnumpy(), onp.arange(0, 5, None, dtype=onp.float32))
    fill = onp.array([1, 2, 3], dtype=onp.int64)
    for got in _both(lambda F, v: F.np.full((2, 3), v, dtype="bool"), np.array(fill, dtype="int64")):
        onp.testing.assert_array_equal(got, onp.full((2, 3), fill, dtype="bool"))
    assert np.full((2, 3), np.array(fill, dtype="int64")).dtype == onp.int64
    for axis in (0, -1):
        assert np.squeeze(np.array(2.5), axis).shape == onp.squeeze(onp.array(2.5), axis).shape
    with pytest.raises(ValueError):
        np.ones((3, 4, 5)).transpose((0, 0, 1))
    with pytest.raises(mx.base.MXNetError):
        np.ones((3, 4, 5)).transpose((0, 1, 3))


def test_arg_reductions_of_empty_arrays():
    data = np.ones((5, 0, 3))
    assert np.argmin(data, 0).shape == onp.argmin(onp.ones((5, 0, 3)), 0).shape
    assert np.argmax(data, -1).shape == (5, 0) and np.argmax(data, -1).dtype == onp.int64
    assert int(np.argmin(np.array(2.0), 0)) == 0
    for axis in (None, 1):
        with pytest.raises(mx.base.MXNetError):
            np.argmin(data, axis)


@pytest.mark.parametrize("ddof", [0, 1])
def test_moments_over_no_axis(ddof):
    data = onp.random.RandomState(9).uniform(-1, 1, (2, 3))
    with onp.errstate(divide="ignore", invalid="ignore"):
        expected = onp.var(data, axis=(), ddof=ddof)
    onp.testing.assert_array_equal(np.array(data).var(axis=(), ddof=ddof).asnumpy(), expected.astype(onp.float32))


@pytest.mark.parametrize("order", [-1, 1, 2, -2, "fro", "nuc", onp.inf, -onp.inf, None])
def test_norm_of_a_matrix_without_axis(order):
    data = onp.random.RandomState(10).uniform(-10, 10, (2, 3))
    onp.testing.assert_allclose(float(np.linalg.norm(np.array(data, dtype="float64"), ord=order)),
                                onp.linalg.norm(data, ord=order), rtol=1e-10)


def test_bool_tests_take_a_bool_out_only():
    x = np.array([1.0, onp.nan, onp.inf])
    out = np.empty_like(x).astype("bool")
    np.isnan(x, out)
    onp.testing.assert_array_equal(out.asnumpy(), [False, True, False])
    with pytest.raises(TypeError):
        np.isinf(x, out=np.empty_like(x))
    with pytest.raises(NotImplementedError):
        np.isfinite(x, where=False)


@pytest.mark.parametrize("source,target,expected", [((5,), (3, 4, -2), (3, 4, 5)), ((1, 0), (2, -2, -2), (2, 1, 0)),
                                                    ((3, 4), (1, 0, -2, 4), (1, 0, 3, 4))])
def test_broadcast_to_keeps_minus_two_axes(source, target, expected):
    data = onp.random.RandomState(12).uniform(size=source).astype(onp.float32)
    for got in _both(lambda F, x: F.np.broadcast_to(x, target), np.array(data)):
        onp.testing.assert_array_equal(got, onp.broadcast_to(data, expected))


# -- _npi_boolean_mask_assign_scalar / _tensor (values printed by MXNet 1.9.1 for these inputs) --
def _masked_data():
    return np.arange(12).reshape(3, 4).astype("float32")


def test_boolean_mask_assign_scalar_in_place():
    internal = mx.nd.np._internal
    a = _masked_data()
    mask = np.array([True, False, True], dtype=bool)
    result = internal.boolean_mask_assign_scalar(a, mask, value=7.0, start_axis=0, out=a)
    expected = [[7, 7, 7, 7], [4, 5, 6, 7], [7, 7, 7, 7]]
    assert result.asnumpy().tolist() == expected and a.asnumpy().tolist() == expected
    b = _masked_data().astype("int32")          # the value is truncated to the integer dtype
    internal.boolean_mask_assign_scalar(b, mask, value=7.6, start_axis=0, out=b)
    assert b.asnumpy().tolist() == expected
    c = _masked_data()                          # mask on axis 1; a positional value
    internal.boolean_mask_assign_scalar(c, np.array([True, False, True, False], dtype=bool), -5.0, start_axis=1, out=c)
    assert c.asnumpy().tolist() == [[-5, 1, -5, 3], [-5, 5, -5, 7], [-5, 9, -5, 11]]


def test_boolean_mask_assign_tensor_broadcasts():
    internal = mx.nd.np._internal
    mask = np.array([True, False, True], dtype=bool)
    a = _masked_data()
    internal.boolean_mask_assign_tensor(a, mask, np.array([1.0, 2, 3, 4]), start_axis=0, out=a)
    assert a.asnumpy().tolist() == [[1, 2, 3, 4], [4, 5, 6, 7], [1, 2, 3, 4]]
    a = _masked_data()
    internal.boolean_mask_assign_tensor(a, np.array([True, False, True, False], dtype=bool),
                                        np.array([9.0, 8, 7]).reshape(3, 1), start_axis=1, out=a)
    assert a.asnumpy().tolist() == [[9, 1, 9, 3], [8, 5, 8, 7], [7, 9, 7, 11]]
    scalar = np.array(5.0)
    internal.boolean_mask_assign_tensor(scalar, np.array(True), np.array([4.0]), start_axis=0, out=scalar)
    assert float(scalar) == 4.0


def test_boolean_mask_assign_errors_and_symbol():
    internal = mx.nd.np._internal
    a = _masked_data()
    with pytest.raises(mx.MXNetError, match=r"_npi_boolean_mask_assign_scalar.*mask of shape \(2,\)"):
        internal.boolean_mask_assign_scalar(a, np.array([True, False], dtype=bool), value=1.0, out=a)
    with pytest.raises(mx.MXNetError, match=r"shape \(3,\) cannot be assigned to the \(2, 4\) positions"):
        internal.boolean_mask_assign_tensor(a, np.array([True, False, True], dtype=bool), np.array([1.0, 2, 3]))
    node = mx.sym.np._internal.boolean_mask_assign_scalar(mx.sym.var("a"), mx.sym.var("m"), value=2.0)
    out = node.bind(mx.cpu(), {"a": mx.nd.ones((2, 3)), "m": mx.nd.array([0, 1])}).forward()[0]
    assert out.asnumpy().tolist() == [[1, 1, 1], [2, 2, 2]]


def test_numpy_internal_short_names():
    # MXNet's mxnet.ndarray.numpy._internal holds the _npi_ operators by their short names
    assert mx.nd.np._internal.hsplit.__name__ == "_npi_hsplit"
    assert "boolean_mask_assign_tensor" in dir(mx.nd.np._internal)
    assert mx.nd.np.random.choice(4, size=(0,)).shape == (0,)


def test_ldexp_keeps_integer_dtype():
    # MXNet 1.9.1: ldexp of int32 arrays (and an int32 array with a number) is int32, truncated
    a = np.array([3, 5, -7], dtype="int32")
    b = np.array([1, 2, 3], dtype="int32")
    for result, expected in [(np.ldexp(a, b), [6, 20, -56]), (np.ldexp(a, 2), [12, 20, -28]),
                             (np.ldexp(2, a), [16, 64, 0]), (np.ldexp(a, 2.5), [12, 20, -28])]:
        assert result.dtype == onp.int32 and result.asnumpy().tolist() == expected
    floats = np.ldexp(np.array([1.5, 2, 3], dtype="float32"), 2)
    assert floats.dtype == onp.float32 and floats.asnumpy().tolist() == [6.0, 8.0, 12.0]
