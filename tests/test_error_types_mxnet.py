"""Errors that MXNet 1.9.1 raised as ValueError / TypeError / AssertionError are MXNetErrors of
that Python type too (``except ValueError:`` in MXNet-era code keeps catching them).  The type
of each case was observed under MXNet 1.9.1."""
import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError


@pytest.mark.parametrize("make, kind, words", [
    (lambda: mx.lr_scheduler.MultiFactorScheduler(step=[30, 10]), ValueError, "strictly increasing"),
    (lambda: mx.lr_scheduler.MultiFactorScheduler(step=[0, 10]), ValueError, ">= 1"),
    (lambda: mx.lr_scheduler.MultiFactorScheduler(step=10), AssertionError, "non-empty list"),
    (lambda: mx.lr_scheduler.FactorScheduler(step=0), ValueError, "step must be >= 1"),
    (lambda: mx.lr_scheduler.FactorScheduler(step=10, factor=1.5), ValueError, "factor must be <= 1"),
    (lambda: mx.lr_scheduler.PolyScheduler(max_update=0, base_lr=0.1), ValueError, "max_update"),
    (lambda: mx.lr_scheduler.PolyScheduler(max_update=2.5, base_lr=0.1), AssertionError, "max_update"),
    (lambda: mx.lr_scheduler.FactorScheduler(step=10, warmup_mode="bogus"), ValueError, "warmup_mode"),
    (lambda: mx.metric.TopKAccuracy(top_k=0), AssertionError, "top_k"),
    (lambda: mx.metric.F1().update([mx.nd.array([0, 1, 2])], [mx.nd.array(np.eye(3))]), ValueError,
     "binary classification"),
    (lambda: mx.init.Xavier(rnd_type="bogus")(mx.init.InitDesc("w_weight"), mx.nd.zeros((2, 2))),
     ValueError, "rnd_type"),
    (lambda: mx.nd.array([[1, 2], [3]]), TypeError, "cannot convert list"),
    (lambda: mx.nd.array(["a", "b"]), TypeError, "cannot convert list"),
    (lambda: mx.nd.save("never-written.params", [1, 2, 3]), TypeError, "must be NDArrays"),
])
def test_mxnet_python_error_types(make, kind, words):
    with pytest.raises(MXNetError, match=words) as caught:
        make()
    assert isinstance(caught.value, kind)


def test_bind_with_a_label_batch_other_than_the_data_is_an_assertion_error():
    data = mx.sym.Variable("data")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(data, num_hidden=2), name="softmax")
    with pytest.raises(AssertionError, match="same batch size"):
        mx.mod.Module(net).bind(data_shapes=[("data", (4, 5))], label_shapes=[("softmax_label", (3,))])


@pytest.mark.parametrize("handle", ["pad", "roll_over"])
def test_an_empty_ndarray_iter_is_an_epoch_of_no_batches(handle):
    # MXNet 1.9.1 iterates zero batches (an empty validation split); mxtorch refused it
    empty = mx.io.NDArrayIter(np.ones((0, 3)), np.zeros(0), batch_size=2, last_batch_handle=handle, shuffle=True)
    assert list(empty) == []
    empty.reset()
    assert list(empty) == []
    assert empty.provide_data[0].shape == (2, 3)


def test_an_unknown_optimizer_option_names_the_optimizer_and_its_options():
    # MXNet 1.9.1: TypeError: __init__() got an unexpected keyword argument 'learning_rat'
    with pytest.raises(TypeError, match=r"SGD got unknown option\(s\) \['learning_rat'\].*'learning_rate'"):
        mx.optimizer.create("sgd", learning_rat=0.1)
    params = mx.gluon.ParameterDict()
    params.get("w", shape=(2,)).initialize()
    with pytest.raises(TypeError, match=r"learning_rat"):
        mx.gluon.Trainer(params, "sgd", {"learning_rat": 0.1})


def test_an_optimizer_consuming_its_own_keyword_options_still_builds():
    @mx.optimizer.register
    class KeepsFoo(mx.optimizer.SGD):
        def __init__(self, **kwargs):
            self.foo = kwargs.pop("foo", 1)
            super().__init__(**kwargs)
    assert mx.optimizer.create("keepsfoo", foo=3, learning_rate=0.5).foo == 3


@pytest.mark.parametrize("period", [0, -1, 2.5, "3"])
def test_log_train_metric_period_must_be_positive(period):
    # MXNet 1.9.1: ZeroDivisionError at the first batch for period 0
    with pytest.raises(ValueError, match=r"log_train_metric: period must be a positive integer"):
        mx.callback.log_train_metric(period)
    assert callable(mx.callback.log_train_metric(np.int64(2)))
