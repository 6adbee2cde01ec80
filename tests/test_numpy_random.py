"""mx.np.random / npx.random samplers: shapes, dtypes, moments against the distributions'
closed forms (NumPy's definitions), reparameterisation gradients, domain errors."""
import math

import numpy as onp
import pytest

import mxtorch as mx
from mxtorch import np, npx
from mxtorch.gluon import HybridBlock

N = 200000


@pytest.fixture(autouse=True)
def _np_semantics():
    npx.set_np()
    mx.random.seed(7)
    yield
    npx.reset_np()


def _moments(array):
    values = array.asnumpy().astype(onp.float64)
    return values.mean(), values.var()


# (function, args, mean, variance) -- closed forms of NumPy's distributions
EULER = 0.5772156649015329
CASES = [
    (lambda **k: np.random.normal(1.5, 2.0, **k), 1.5, 4.0),
    (lambda **k: np.random.uniform(-1.0, 3.0, **k), 1.0, 16.0 / 12),
    (lambda **k: np.random.logistic(0.5, 2.0, **k), 0.5, math.pi ** 2 * 4.0 / 3),
    (lambda **k: np.random.gumbel(0.5, 2.0, **k), 0.5 + 2.0 * EULER, math.pi ** 2 * 4.0 / 6),
    (lambda **k: np.random.laplace(0.5, 2.0, **k), 0.5, 2 * 4.0),
    (lambda **k: np.random.exponential(3.0, **k), 3.0, 9.0),
    (lambda **k: np.random.rayleigh(2.0, **k), 2.0 * math.sqrt(math.pi / 2), (4 - math.pi) / 2 * 4.0),
    (lambda **k: np.random.weibull(2.0, **k), math.gamma(1.5), math.gamma(2.0) - math.gamma(1.5) ** 2),
    (lambda **k: np.random.pareto(5.0, **k), 1.0 / 4, 5.0 / (16 * 3)),
    (lambda **k: np.random.power(3.0, **k), 3.0 / 4, 3.0 / (16 * 5)),
    (lambda **k: np.random.gamma(3.0, 2.0, **k), 6.0, 12.0),
    (lambda **k: np.random.beta(2.0, 3.0, **k), 0.4, 6.0 / (25 * 6)),
    (lambda **k: np.random.chisquare(4.0, **k), 4.0, 8.0),
    (lambda **k: np.random.lognormal(0.0, 0.5, **k), math.exp(0.125), (math.exp(0.25) - 1) * math.exp(0.25)),
]


@pytest.mark.parametrize("index", range(len(CASES)))
def test_moments(index):
    sampler, mean, variance = CASES[index]
    sample = sampler(size=(N,))
    assert sample.shape == (N,) and sample.dtype == onp.float32
    got_mean, got_variance = _moments(sample)
    assert abs(got_mean - mean) < 6 * math.sqrt(variance / N)
    assert abs(got_variance - variance) < 0.05 * variance


def test_shapes_from_parameters_and_size():
    assert np.random.normal(np.zeros((2, 3)), 1.0).shape == (2, 3)
    assert np.random.normal(np.zeros((3, 4, 5)), np.ones((4, 1)), size=(3, 4, 5)).shape == (3, 4, 5)
    assert np.random.gamma(1, size=(4, 0, 5)).shape == (4, 0, 5)
    assert np.random.uniform(size=6).shape == (6,)
    assert np.random.weibull(2.0).shape == ()
    assert np.random.uniform(size=(2,), dtype="float64").dtype == onp.float64
    # the parameters' dtype does not decide the samples' (MXNet 1.9.1: float32)
    assert np.random.exponential(np.ones(3, dtype="float64")).dtype == onp.float32
    with pytest.raises(mx.base.MXNetError):
        np.random.normal(np.zeros((3,)), 1.0, size=(2, 4))


def test_array_parameters_elementwise():
    loc = np.array([0.0, 100.0, -100.0])
    values = np.random.normal(loc, 0.01, size=(1000, 3)).asnumpy()
    onp.testing.assert_allclose(values.mean(axis=0), [0.0, 100.0, -100.0], atol=0.01)


def test_reparameterisation_gradients():
    loc, scale = np.zeros((3, 2)), np.ones((2,))
    loc.attach_grad()
    scale.attach_grad()
    with mx.autograd.record():
        out = np.random.normal(loc, scale, size=(4, 3, 2))
    out.backward()
    onp.testing.assert_allclose(loc.grad.asnumpy(), onp.full((3, 2), 4.0))
    # d(loc + scale * z)/dscale = z = out - loc, summed over the broadcast axes
    onp.testing.assert_allclose(scale.grad.asnumpy(), out.asnumpy().sum(axis=(0, 1)), rtol=1e-4, atol=1e-4)

    a = np.ones((50,))
    a.attach_grad()
    with mx.autograd.record():
        out = np.random.weibull(a)
    out.backward()
    values = out.asnumpy().astype(onp.float64)
    # d/da E ** (1/a) at a = 1: -out * log(out)
    onp.testing.assert_allclose(a.grad.asnumpy(), -values * onp.log(values), rtol=1e-3, atol=1e-5)

    a = np.ones((50,))
    a.attach_grad()
    with mx.autograd.record():
        out = np.random.pareto(a)
    out.backward()
    values = out.asnumpy().astype(onp.float64)
    onp.testing.assert_allclose(a.grad.asnumpy(), -(values + 1) * onp.log1p(values), rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("call", [
    lambda: np.random.exponential(-1.0),
    lambda: np.random.gamma(0.0, 1.0),
    lambda: np.random.gamma(np.array(1.0), np.array(-1.0)),
    lambda: np.random.weibull(0.0),
    lambda: np.random.lognormal(sigma=-1.0),
    lambda: npx.random.bernoulli(prob=np.array([0.5, 1.5])),
])
def test_domain_errors_are_value_errors_when_read(call):
    with pytest.raises(ValueError):
        call().asnumpy()


def test_bernoulli_and_batched_samplers():
    with pytest.raises(ValueError):
        npx.random.bernoulli(prob=0.5, logit=0.0)
    sample = npx.random.bernoulli(prob=0.25, size=(N,))
    assert sample.dtype == onp.float32 and abs(float(sample.asnumpy().mean()) - 0.25) < 0.01
    sample = npx.random.bernoulli(logit=onp.log(3.0), size=(N,), dtype="int32")
    assert sample.dtype == onp.int32 and abs(float(sample.asnumpy().mean()) - 0.75) < 0.01
    assert npx.random.normal_n(np.zeros((2, 2)), 1.0, batch_shape=(3,)).shape == (3, 2, 2)
    assert npx.random.uniform_n(0.0, 1.0, batch_shape=6).shape == (6,)


def test_multinomial_and_multivariate_normal():
    counts = np.random.multinomial(10, [0.2, 0.3, 0.5], size=(N // 10,))
    assert counts.dtype == onp.int64 and counts.shape == (N // 10, 3)
    assert (counts.asnumpy().sum(axis=1) == 10).all()
    onp.testing.assert_allclose(counts.asnumpy().mean(axis=0), [2.0, 3.0, 5.0], atol=0.05)
    with pytest.raises(ValueError):
        np.random.multinomial(2, onp.array([0.5, 0.5]))

    cov = onp.array([[1.0, 0.6], [0.6, 2.0]])
    sample = np.random.multivariate_normal(np.array([1.0, -1.0]), np.array(cov), size=(N,))
    assert sample.shape == (N, 2)
    onp.testing.assert_allclose(onp.cov(sample.asnumpy().astype(onp.float64).T), cov, atol=0.03)
    assert np.random.multivariate_normal(np.zeros((3, 2)), np.array(onp.ones((4, 3, 2, 2)) * onp.eye(2)), (5,)).shape \
        == (5, 4, 3, 2)


def test_choice_of_an_array_and_hybridized_samplers():
    population = np.array([10.0, 20.0, 30.0])
    picks = np.random.choice(population, size=(100,))
    assert set(picks.asnumpy().tolist()) <= {10.0, 20.0, 30.0}

    class Net(HybridBlock):
        def hybrid_forward(self, F, a, p):
            return F.np.random.choice(a, size=(5,), p=p) + F.np.random.gamma(a, size=(5, 3)).sum(axis=1) * 0

    net = Net()
    net.hybridize()
    out = net(population, np.array([0.0, 1.0, 0.0]))
    assert out.shape == (5,) and (out.asnumpy() == 20.0).all()


def test_constraint_check_raises_value_error():
    class Check(HybridBlock):
        def hybrid_forward(self, F, x):
            return F.npx.constraint_check(x, "bad")
    for hybridize in (False, True):
        net = Check()
        if hybridize:
            net.hybridize()
        with pytest.raises(ValueError, match="bad"):
            net(np.zeros((2,), dtype="bool")).asnumpy()
