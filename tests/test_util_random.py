"""mx.random samplers, mx.util, mx.engine, mx.base extras, Context.default_ctx, mx.model leftovers,
mx.registry and mx.libinfo."""
import json
import math
import os
import pickle

import numpy as np
import pytest
import torch

import mxtorch as mx
from mxtorch import base, engine, libinfo, model, registry, util
from mxtorch.base import MXNetError

N = 200_000


def moments(array):
    values = array.asnumpy().astype(np.float64)
    return values.mean(), values.var()


def close(value, target, sigmas, spread):
    """|value - target| within `sigmas` standard errors (spread = standard deviation of the mean)."""
    return abs(value - target) <= sigmas * spread


# -- mx.random ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name,kwargs,mean,variance", [
    ("exponential", dict(scale=2.0), 2.0, 4.0),
    ("gamma", dict(alpha=3.0, beta=2.0), 6.0, 12.0),
    ("poisson", dict(lam=4.0), 4.0, 4.0),
    ("negative_binomial", dict(k=3, p=0.4), 3 * 0.6 / 0.4, 3 * 0.6 / 0.4 ** 2),
    ("generalized_negative_binomial", dict(mu=2.0, alpha=0.5), 2.0, 2.0 + 0.5 * 2.0 ** 2),
    ("uniform", dict(low=-1.0, high=3.0), 1.0, 16.0 / 12),
    ("normal", dict(loc=5.0, scale=0.5), 5.0, 0.25),
])
def test_sampler_moments_match_the_distribution(name, kwargs, mean, variance):
    sample = getattr(mx.random, name)(shape=(N,), **kwargs)
    assert sample.shape == (N,) and sample.dtype == np.float32
    got_mean, got_variance = moments(sample)
    assert close(got_mean, mean, 5, math.sqrt(variance / N))
    assert abs(got_variance - variance) <= 0.05 * variance


def test_discrete_samplers_give_nonnegative_integers():
    for sample in (mx.random.poisson(lam=3.0, shape=(1000,)), mx.random.negative_binomial(k=2, p=0.3, shape=(1000,)),
                   mx.random.generalized_negative_binomial(mu=3.0, alpha=0.2, shape=(1000,))):
        values = sample.asnumpy()
        assert (values >= 0).all() and (values == np.round(values)).all()


def test_generalized_negative_binomial_with_zero_alpha_is_poisson():
    got_mean, got_variance = moments(mx.random.generalized_negative_binomial(mu=3.0, alpha=0.0, shape=(N,)))
    assert close(got_mean, 3.0, 5, math.sqrt(3.0 / N)) and abs(got_variance - 3.0) < 0.15


def test_ndarray_parameters_sample_per_element():
    scale = mx.nd.array([1.0, 100.0])
    sample = mx.random.exponential(scale=scale, shape=(N // 10,))
    assert sample.shape == (2, N // 10)
    means = sample.asnumpy().mean(axis=1)
    assert close(means[0], 1.0, 5, 1.0 / math.sqrt(N // 10)) and close(means[1], 100.0, 5, 100.0 / math.sqrt(N // 10))
    assert mx.random.exponential(scale=scale).shape == (2,)
    alpha, beta = mx.nd.array([[1.0], [4.0]]), mx.nd.array([[2.0], [0.5]])
    gamma = mx.random.gamma(alpha=alpha, beta=beta, shape=(3,))
    assert gamma.shape == (2, 1, 3)
    loc = mx.nd.array([0.0, 50.0], ctx=mx.cpu(1))
    normal = mx.random.normal(loc=loc, scale=mx.nd.array([1.0, 1.0], ctx=mx.cpu(1)), shape=4)
    assert normal.shape == (2, 4) and normal.context == mx.cpu(1)
    assert (normal.asnumpy()[1] > 40).all() and (normal.asnumpy()[0] < 10).all()
    assert mx.random.poisson(lam=mx.nd.array([1.0, 2.0, 3.0]), shape=2).shape == (3, 2)
    nb = mx.random.negative_binomial(k=mx.nd.array([2.0]), p=mx.nd.array([0.5]), shape=(2,))
    gnb = mx.random.generalized_negative_binomial(mu=mx.nd.array([2.0]), alpha=mx.nd.array([0.5]), shape=(2,))
    assert nb.shape == gnb.shape == (1, 2)


def test_mixed_number_and_ndarray_parameters_raise():
    with pytest.raises(MXNetError, match="all numbers or all NDArrays"):
        mx.random.gamma(alpha=mx.nd.array([1.0]), beta=2.0)
    with pytest.raises(MXNetError, match="all numbers or all NDArrays"):
        mx.random.uniform(low=0, high="1")
    with pytest.raises(MXNetError, match="low and high must be numbers"):
        mx.random.randint(mx.nd.array([0]), mx.nd.array([5]))


def test_shape_dtype_ctx_and_out():
    assert mx.random.uniform().shape == (1,)              # MXNet: one sample without shape
    assert mx.random.poisson(lam=2, shape=3).shape == (3,)
    assert mx.random.negative_binomial(k=3, p=0.5, shape=(2,), dtype="float64").dtype == np.float64
    assert mx.random.normal(shape=5, dtype=np.float16).dtype == np.float16
    assert mx.random.exponential(shape=(2, 2), ctx=mx.cpu(3)).context == mx.cpu(3)
    with mx.cpu(2):
        assert mx.random.gamma(shape=(2,)).context == mx.cpu(2)
    out = mx.nd.zeros((3, 2), dtype="float64")
    result = mx.random.uniform(low=5, high=6, out=out)
    assert result is out and out.dtype == np.float64
    assert ((out.asnumpy() >= 5) & (out.asnumpy() < 6)).all()
    ints = mx.random.randint(2, 5, shape=(1000,))
    assert ints.dtype == np.int32 and set(np.unique(ints.asnumpy())) == {2, 3, 4}
    assert mx.random.randint(0, 5, shape=(2,), dtype="int64").dtype == np.int64


def test_randn_takes_the_shape_positionally():
    sample = mx.random.randn(400, 500, loc=10.0, scale=2.0)
    assert sample.shape == (400, 500)
    got_mean, got_variance = moments(sample)
    assert close(got_mean, 10.0, 5, 2.0 / math.sqrt(N)) and abs(got_variance - 4.0) < 0.2
    assert mx.random.randn().shape == (1,)
    assert mx.random.randn(3, dtype="float64").dtype == np.float64


def test_multinomial_frequencies_and_log_probabilities():
    probabilities = np.array([[0.1, 0.6, 0.3], [0.5, 0.0, 0.5]], dtype=np.float32)
    draws, log_p = mx.random.multinomial(mx.nd.array(probabilities), shape=(20_000,), get_prob=True)
    assert draws.shape == log_p.shape == (2, 20_000) and draws.dtype == np.int32
    indices = draws.asnumpy()
    for row in range(2):
        frequencies = np.bincount(indices[row], minlength=3) / indices.shape[1]
        assert np.abs(frequencies - probabilities[row]).max() < 0.02
        np.testing.assert_allclose(log_p.asnumpy()[row], np.log(probabilities[row][indices[row]]), rtol=1e-6)
    assert mx.random.multinomial(mx.nd.array([0.2, 0.8])).shape == (1,)
    assert mx.random.multinomial(mx.nd.array(probabilities)).shape == (2,)
    assert mx.random.multinomial(mx.nd.array(probabilities), shape=2, dtype="float32").dtype == np.float32
    with pytest.raises(MXNetError, match="multinomial"):
        mx.random.multinomial(probabilities)


def test_seed_repeats_every_sampler():
    def draw():
        return [mx.random.exponential(shape=(4,)).asnumpy(), mx.random.gamma(alpha=2.0, shape=(4,)).asnumpy(),
                mx.random.poisson(lam=3.0, shape=(4,)).asnumpy(), mx.random.randn(4).asnumpy(),
                mx.random.multinomial(mx.nd.array([0.3, 0.7]), shape=(4,)).asnumpy()]
    mx.random.seed(7)
    first = draw()
    mx.random.seed(7)
    for a, b in zip(first, draw()):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(MXNetError, match="seed_state"):
        mx.random.seed("x")


def test_shuffle_permutes_rows():
    data = mx.nd.array(np.arange(20).reshape(10, 2))
    shuffled = mx.random.shuffle(data).asnumpy()
    assert sorted(shuffled[:, 0].tolist()) == list(range(0, 20, 2))
    np.testing.assert_array_equal(shuffled[:, 1] - shuffled[:, 0], np.ones(10))


# -- mx.util -------------------------------------------------------------------------------------
def test_getenv_setenv(monkeypatch):
    monkeypatch.delenv("MXTORCH_TEST_VARIABLE", raising=False)
    assert util.getenv("MXTORCH_TEST_VARIABLE") is None
    util.setenv("MXTORCH_TEST_VARIABLE", "12")
    assert util.getenv("MXTORCH_TEST_VARIABLE") == "12" == os.environ["MXTORCH_TEST_VARIABLE"]
    util.setenv("MXTORCH_TEST_VARIABLE", None)
    assert util.getenv("MXTORCH_TEST_VARIABLE") is None and "MXTORCH_TEST_VARIABLE" not in os.environ


def test_gpu_queries():
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    assert util.get_gpu_count() == count
    with pytest.raises(MXNetError, match="gpu_dev_id"):
        util.get_gpu_memory(count)
    with pytest.raises(MXNetError, match="GPU context"):
        util.get_cuda_compute_capability(mx.cpu())
    if count:
        free, total = util.get_gpu_memory(0)
        assert 0 < free <= total
        major, minor = torch.cuda.get_device_capability(0)
        assert util.get_cuda_compute_capability(mx.gpu(0)) == 10 * major + minor


def test_numpy_semantics_switches():
    assert util.is_np_shape() is False and util.is_np_array() is False
    util.reset_np()
    util.set_np(shape=False, array=False)
    assert util.set_np_shape(False) is False
    with pytest.raises(ValueError, match="Shape semantics is required"):
        util.set_np(shape=False, array=True)
    try:
        util.set_np()
        assert util.is_np_shape() is True and util.is_np_array() is True
    finally:
        util.reset_np()
    assert util.is_np_shape() is False and util.is_np_array() is False
    assert util.set_np_shape(True) is False and util.is_np_shape() is True
    util.reset_np()
    with util.np_shape(), util.np_array():
        assert util.is_np_shape() and util.is_np_array()
    assert not util.is_np_shape() and not util.is_np_array()

    @util.use_np
    def numpy_function(x):
        return x, util.is_np_shape(), util.is_np_array()

    assert numpy_function.__name__ == "numpy_function"
    assert numpy_function(1) == (1, True, True)
    assert util.is_np_array() is False

    @util.use_np_shape
    class NumpyBlock:
        def forward(self):
            return util.is_np_shape()

        @property
        def semantics(self):
            return util.is_np_array()

    assert NumpyBlock().forward() is True and util.is_np_shape() is False
    assert util.use_np_array(NumpyBlock)().semantics is True


def test_set_module():
    @util.set_module("mxnet.somewhere")
    def function():
        pass
    assert function.__module__ == "mxnet.somewhere"


def test_atomic_write_is_still_there(tmp_path):
    util.atomic_write(str(tmp_path / "f.bin"), b"abc")
    assert (tmp_path / "f.bin").read_bytes() == b"abc"


# -- mx.engine -----------------------------------------------------------------------------------
def test_bulk_size_is_recorded_and_restored():
    previous = engine.set_bulk_size(0)
    try:
        assert engine.set_bulk_size(30) == 0
        assert engine.set_bulk_size(15) == 30
        with engine.bulk(10) as scope:
            assert isinstance(scope, engine._BulkScope)
            assert engine.set_bulk_size(10) == 10
            x = mx.nd.zeros((1,))
            for _ in range(5):
                x += 1
            assert x.asscalar() == 5.0                      # results unchanged by bulking
        assert engine.set_bulk_size(15) == 15
        with pytest.raises(MXNetError, match="non-negative"):
            engine.set_bulk_size(-1)
        with pytest.raises(MXNetError, match="non-negative"):
            engine.set_bulk_size("a")
        with pytest.raises(MXNetError):
            engine.bulk(1.5)
    finally:
        engine.set_bulk_size(previous)


# -- mx.base -------------------------------------------------------------------------------------
def test_base_extras(monkeypatch):
    assert base.mx_real_t is np.float32

    def square():
        pass

    error = base.NotSupportedForSparseNDArray(square, "op", 1, "a")
    assert isinstance(error, MXNetError) and isinstance(error, RuntimeError)
    # MXNet 1.9.1's text for the same call
    assert str(error) == ('Function square (namely operator "op") with arguments (<class \'int\'>, '
                          "<class 'str'>) is not supported for SparseNDArray and only available in NDArray.")
    assert str(base.NotSupportedForSparseNDArray(square, None)) == \
        "Function square is not supported for SparseNDArray and only available in NDArray."
    monkeypatch.setenv("MXNET_HOME", "/some/where")
    assert base.data_dir() == "/some/where"
    monkeypatch.delenv("MXNET_HOME")
    assert base.data_dir() == base.data_dir_default()
    if os.name != "nt":
        assert base.data_dir_default() == os.path.join(os.path.expanduser("~"), ".mxnet")


# -- Context.default_ctx -------------------------------------------------------------------------
def test_context_default_ctx_class_property():
    assert mx.Context.default_ctx == mx.cpu(0) == mx.cpu(3).default_ctx
    try:
        mx.Context.default_ctx = mx.cpu(2)
        assert mx.current_context() == mx.cpu(2) == mx.Context.default_ctx
        with mx.cpu(5):
            assert mx.Context.default_ctx == mx.cpu(5)
        assert mx.current_context() == mx.cpu(2)
        instance = mx.cpu(1)
        instance.default_ctx = mx.cpu(7)                     # on an instance: sets the shared default
        assert mx.current_context() == mx.cpu(7) and instance.device_id == 1
        assert "default_ctx" not in vars(instance)
        with pytest.raises(MXNetError, match="default_ctx"):
            mx.Context.default_ctx = "cpu"
    finally:
        mx.Context.default_ctx = mx.cpu(0)
    assert pickle.loads(pickle.dumps(mx.gpu(1))) == mx.gpu(1)


# -- mx.model ------------------------------------------------------------------------------------
def test_base_estimator():
    try:
        from sklearn.base import BaseEstimator
    except ImportError:
        BaseEstimator = object
    assert model.BASE_ESTIMATOR is BaseEstimator
    with pytest.raises(AttributeError):
        model.NOT_A_NAME


def test_multiple_callbacks():
    calls = []
    model._multiple_callbacks(None, 1)
    model._multiple_callbacks(lambda *a, **k: calls.append(("one", a, k)), 1, x=2)
    model._multiple_callbacks([lambda v: calls.append(("a", v)), lambda v: calls.append(("b", v))], 3)
    assert calls == [("one", (1,), {"x": 2}), ("a", 3), ("b", 3)]


def test_create_sparse_kvstore():
    kv, update_on_kvstore = model._create_sparse_kvstore("local")
    assert isinstance(kv, mx.kv.KVStore) and update_on_kvstore is True
    same, _ = model._create_sparse_kvstore(kv)
    assert same is kv
    with pytest.raises(MXNetError, match="row_sparse"):
        model._create_sparse_kvstore(3)


def test_update_params_on_kvstore_nccl_matches_sgd(monkeypatch):
    monkeypatch.setenv("MXNET_UPDATE_AGGREGATION_SIZE", "2")    # three parameters: groups of 2 and 1
    kv = mx.kv.create("local")
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1))
    names = ["a", "b", "c", "d"]
    weights = [[mx.nd.ones((2,)), mx.nd.ones((2,))], [mx.nd.ones((3,))] * 2, [mx.nd.ones((1,))] * 2,
               [mx.nd.ones((2, 2))] * 2]
    weights = [[mx.nd.array(w.asnumpy()) for w in pair] for pair in weights]
    grads = [[mx.nd.ones((2,)), mx.nd.ones((2,)) * 3], [None, None], [mx.nd.ones((1,)) * 2] * 2,
             [mx.nd.ones((2, 2))] * 2]
    for name, pair in zip(names, weights):
        kv.init(name, pair[0])
    model._update_params_on_kvstore_nccl(weights, grads, kv, names)
    # the store sums the device gradients, then SGD: w - 0.1 * sum
    expected = {"a": 1 - 0.1 * 4, "b": 1.0, "c": 1 - 0.1 * 4, "d": 1 - 0.1 * 2}
    for name, pair in zip(names, weights):
        for array in pair:
            np.testing.assert_allclose(array.asnumpy(), np.full(array.shape, expected[name]), rtol=1e-6)


def test_feedforwards_old_training_loop_is_not_provided():
    # FeedForward itself is a layer over Module (tests/test_legacy_apis.py)
    with pytest.raises(MXNetError, match="mx.mod.Module"):
        model._train_multi_device(None, [mx.cpu()], [], [], [], {}, {}, 0, 1, None, "sgd", None, False, None)


# -- mx.registry / mx.libinfo --------------------------------------------------------------------
def test_registry_register_alias_create():
    class Shape:
        def __init__(self, size=1):
            self.size = size

    class Square(Shape):
        pass

    class Circle(Shape):
        pass

    register = registry.get_register_func(Shape, "shape")
    alias = registry.get_alias_func(Shape, "shape")
    create = registry.get_create_func(Shape, "shape")
    assert register(Square) is Square
    alias("round", "disc")(Circle)
    assert registry.get_registry(Shape) == {"square": Square, "round": Circle, "disc": Circle}
    made = create("SQUARE", size=3)
    assert type(made) is Square and made.size == 3
    assert type(create('["disc", {"size": 2}]')) is Circle and create('["disc", {"size": 2}]').size == 2
    assert create('{"shape": "round", "size": 5}').size == 5
    assert create({"shape": "square", "size": 4}).size == 4
    assert create(shape="square").size == 1
    assert create(made) is made
    with pytest.raises(MXNetError, match="already an instance"):
        create(made, 1)
    with pytest.raises(MXNetError, match="not a registered shape"):
        create("triangle")
    with pytest.raises(MXNetError, match="subclasses of Shape"):
        register(int)
    with pytest.warns(UserWarning, match="overriding"):
        register(Circle, "square")
    registry.get_registry(Shape)["x"] = Circle                   # a copy: the registry is unchanged
    assert "x" not in registry.get_registry(Shape)


def test_libinfo():
    assert libinfo.__version__ == "1.9.1" == mx.__version__
    for finder in (libinfo.find_lib_path, libinfo.find_include_path, libinfo.find_conf_path):
        with pytest.raises(MXNetError, match="no libmxnet"):
            finder()


def test_symbolic_samplers_take_mxnets_python_parameters():
    # MXNet 1.9.1: sym.random.exponential(scale=4) is _random_exponential(lam=0.25); with a Symbol
    # scale it is _sample_exponential(1 / scale); sym.random.multinomial defaults to get_prob=True
    node = json.loads(mx.sym.random.exponential(scale=4.0, shape=(2,)).tojson())["nodes"][0]
    assert (node["op"], node["attrs"]) == ("_random_exponential", {"lam": "0.25", "shape": "(2,)"})
    scale = mx.sym.var("scale")
    ops = [n["op"] for n in json.loads(mx.sym.random.exponential(scale, shape=(3,)).tojson())["nodes"]]
    assert ops == ["null", "_rdiv_scalar", "_sample_exponential"]
    mx.random.seed(3)
    draws = mx.sym.random.exponential(scale, shape=(20000,)).eval(scale=mx.nd.array([4.0]))[0]
    assert abs(draws.asnumpy().mean() - 4.0) < 0.2
    loc, sigma = mx.sym.var("loc"), mx.sym.var("sigma")
    normal = mx.sym.random.normal(loc, sigma, shape=(2,))
    assert normal.infer_shape(loc=(3,), sigma=(3,))[1] == [(3, 2)]
    assert mx.sym.random.multinomial(loc, name="m").list_outputs() == ["m_output0", "m_output1"]
    with pytest.raises(mx.base.MXNetError, match="all numbers or all Symbols"):
        mx.sym.random.gamma(loc, 2.0)
