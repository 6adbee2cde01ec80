"""The registration points and namespace modules that keep the layers of io, metric,
optimizer, model / callback / module and test_utils pointing one way (lower modules hold a
slot, upper modules fill it when imported), with MXNet's import paths still working."""
import numpy as np
import pytest

import mxtorch as mx


def test_io_io_is_mxnet_namespace_over_the_iterator_classes():
    import mxtorch.io.io as io_io
    import mxtorch.io.iterators as iterators
    assert io_io.DataIter is iterators.DataIter is mx.io.DataIter
    assert io_io.NDArrayIter is mx.io.NDArrayIter and io_io.CSVIter is mx.io.CSVIter
    assert io_io.ImageRecordIter is mx.io.ImageRecordIter and io_io.MXDataIter is mx.io.MXDataIter
    batch = next(iter(io_io.NDArrayIter(np.arange(6.0).reshape(3, 2), batch_size=2)))
    np.testing.assert_array_equal(batch.data[0].asnumpy(), [[0, 1], [2, 3]])


def test_metric_create_uses_the_registered_spec_wrappers():
    from mxtorch.metric import registry
    assert registry._SPEC_WRAPPERS == {"list": mx.metric.CompositeEvalMetric, "function": mx.metric.CustomMetric}
    composite = mx.metric.create(["acc", "mse"])
    assert type(composite) is mx.metric.CompositeEvalMetric
    assert [type(m) for m in composite.metrics] == [mx.metric.Accuracy, mx.metric.MSE]
    custom = mx.metric.create(lambda label, pred: float(np.abs(label - pred).sum()))
    custom.update([mx.nd.array([1.0, 2.0])], [mx.nd.array([1.5, 2.0])])
    assert type(custom) is mx.metric.CustomMetric and custom.get() == ("custom(<lambda>)", 0.5)
    with pytest.raises(mx.MXNetError):
        registry.wraps_specs("dict")


def test_alias_decorator_registers_every_name():
    seen = []
    alias = mx.registry.alias_decorator(lambda klass, name: seen.append((klass.__name__, name)), "doc")

    @alias("a", "b")
    class Thing:
        pass
    assert seen == [("Thing", "a"), ("Thing", "b")] and alias.__doc__ == "doc"
    assert mx.init.create("zeros").__class__ is mx.init.Zero


def test_optimizer_module_path_resolves_registered_classes():
    import mxtorch.optimizer.optimizer as old_path
    for name in ("SGD", "ccSGD", "Adam", "LAMB", "Test", "GroupAdaGrad", "Updater", "get_updater", "create"):
        assert getattr(old_path, name) is getattr(mx.optimizer, name), name
    assert old_path.multi_lamb_update is mx.nd.contrib.multi_lamb_update

    @mx.optimizer.register
    class UserOnlyOptimizer(mx.optimizer.Optimizer):
        pass
    try:
        with pytest.raises(AttributeError):
            old_path.UserOnlyOptimizer       # a user's class is not a name of MXNet's module
    finally:
        del mx.optimizer.Optimizer.opt_registry["useronlyoptimizer"]


def test_states_reader_takes_the_optimizer_classes_from_its_caller():
    from mxtorch.optimizer.states_format import dumps_states, loads_states
    optimizer = mx.optimizer.SGD(learning_rate=0.25)
    data = dumps_states(({0: mx.nd.array([1.0, 2.0])}, optimizer))
    states, loaded = loads_states(data, {"sgd": mx.optimizer.SGD})
    assert type(loaded) is mx.optimizer.SGD and loaded.lr == 0.25
    np.testing.assert_array_equal(states[0].asnumpy(), [1.0, 2.0])
    with pytest.raises(mx.MXNetError, match="no mxtorch counterpart"):
        loads_states(data, {})


def test_upper_layers_register_their_mxnet_model_names():
    from mxtorch.module.feedforward import FeedForward
    assert mx.model.FeedForward is FeedForward
    assert mx.model.LogValidationMetricsCallback is mx.callback.LogValidationMetricsCallback
    assert mx.callback.save_checkpoint is mx.model.save_checkpoint
    with pytest.raises(mx.MXNetError):
        mx.model.provide_name("Module", mx.mod.Module)


def test_model_and_bucketing_module_write_checkpoints_through_one_group_writer(tmp_path, monkeypatch):
    groups = []
    monkeypatch.setattr(mx.model, "write_checkpoint_group",
                        lambda prefix, epoch, symbols, args, auxs, extra=(), remove_amp_cast=True:
                        groups.append((epoch, [name for name, _ in symbols], sorted(args), [n for n, _ in extra])))
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=2, name="fc")
    weights = {"fc_weight": mx.nd.ones((2, 3)), "fc_bias": mx.nd.zeros((2,))}
    mx.model.save_checkpoint(str(tmp_path / "m"), 3, net, weights, {}, states=b"s")

    def sym_gen(key):
        return mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2, name="fc"), ("data",), None
    module = mx.mod.BucketingModule(sym_gen, default_bucket_key=4)
    module.bind([("data", (1, 4))], for_training=False)
    module.init_params()
    module.save_checkpoint(str(tmp_path / "b"), 2)
    assert groups == [(3, [str(tmp_path / "m-symbol.json")], ["fc_bias", "fc_weight"], [str(tmp_path / "m-0003.states")]),
                      (2, [str(tmp_path / "b-4-symbol.json")], ["fc_bias", "fc_weight"], [str(tmp_path / "b.buckets")])]
    assert not list(tmp_path.iterdir())


def test_checkpoint_group_writer_writes_every_file(tmp_path):
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2, name="fc")
    prefix = str(tmp_path / "g")
    mx.model.write_checkpoint_group(prefix, 7, [(prefix + "-a.json", net)], {"fc_weight": mx.nd.ones((2, 3))},
                                    {"stat": mx.nd.array([5.0])}, extra=[(prefix + ".extra", b"xyz")])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g-0007.params", "g-a.json", "g.extra"]
    assert mx.sym.load(prefix + "-a.json").list_arguments() == ["data", "fc_weight", "fc_bias"]
    args, auxs = mx.model.load_params(prefix, 7)
    np.testing.assert_array_equal(args["fc_weight"].asnumpy(), np.ones((2, 3)))
    np.testing.assert_array_equal(auxs["stat"].asnumpy(), [5.0])
    assert (tmp_path / "g.extra").read_bytes() == b"xyz"


def test_test_utils_gives_the_names_of_its_family_modules():
    from mxtorch import test_checks, test_compare, test_environment, test_inputs, test_statistics, test_utils
    for module in (test_environment, test_compare, test_inputs, test_checks, test_statistics):
        for name in module.__all__:
            assert getattr(test_utils, name) is getattr(module, name), (module.__name__, name)
    assert test_utils.mx is mx and test_utils._as_numpy is test_compare._as_numpy
    namespace = {}
    exec("from mxtorch.test_utils import *", namespace)
    assert namespace["mx"] is mx and namespace["assert_almost_equal"] is test_compare.assert_almost_equal
    # one default context: set through test_utils, seen by the checks of test_checks
    assert test_checks.default_context is test_environment.default_context
    with pytest.raises(AssertionError, match="Error rate"):
        test_utils.assert_almost_equal_with_err(np.array([1.0, 2.0, 3.0]), np.array([1.0, 5.0, 9.0]), etol=0.5)
    test_utils.assert_almost_equal_with_err(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 9.0]), etol=0.5)
