"""Module inputs that do not fit the symbol fail at bind / init_params with an MXNetError naming
them.  MXNet 1.9.1 raised a bare ``KeyError: 'lbl'`` at bind for a label the symbol does not read
(mxtorch used to warn and train on an unfed, zero label) and "This layer requires uniform type"
for int32 data into SoftmaxOutput."""
import warnings

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError


def _net():
    data = mx.sym.Variable("data")
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(data, num_hidden=2, name="fc"), name="softmax")


def test_fit_with_an_iterator_label_the_symbol_lacks_names_both():
    x = np.random.RandomState(0).rand(20, 4).astype("float32")
    y = (np.arange(20) % 2).astype("float32")
    train = mx.io.NDArrayIter(x, y, batch_size=5, label_name="lbl")
    module = mx.mod.Module(_net())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(MXNetError, match=r"label 'lbl'.*not an argument.*softmax_label"):
            module.fit(train, num_epoch=1)
    assert not module.binded


def test_module_label_names_the_symbol_lacks_fail_at_bind():
    module = mx.mod.Module(_net(), label_names=["nolabel"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(MXNetError, match=r"label 'nolabel'.*\['data', 'softmax_label'\]"):
            module.bind([("data", (5, 4))], [("nolabel", (5,))])


def test_matching_label_name_still_trains():
    x = np.random.RandomState(0).rand(20, 4).astype("float32")
    y = (np.arange(20) % 2).astype("float32")
    train = mx.io.NDArrayIter(x, y, batch_size=5, label_name="softmax_label")
    module = mx.mod.Module(_net())
    module.fit(train, num_epoch=1)
    assert module.get_outputs()[0].shape == (5, 2)


def test_integer_data_weights_name_the_parameter_and_dtype():
    # MXNet 1.9.1: int32 data with a float32 label fails at bind: "Error in operator softmax: ...
    # This layer requires uniform type. Expected 'int32' v.s. given 'float32' at 'label'"
    module = mx.mod.Module(_net())
    with pytest.raises(MXNetError, match=r"SoftmaxOutput.*'data' is int32, 'label' is float32"):
        module.bind([mx.io.DataDesc("data", (5, 4), np.int32)], [("softmax_label", (5,))])
    module = mx.mod.Module(_net())
    module.bind([mx.io.DataDesc("data", (5, 4), np.int32)], [mx.io.DataDesc("softmax_label", (5,), np.int32)])
    with pytest.raises(MXNetError, match=r"'fc_weight' of dtype int32.*cast the data to float32"):
        module.init_params()


@pytest.mark.parametrize("argument", ["train_data", "eval_data"])
def test_fit_with_an_array_instead_of_an_iterator(argument):
    x = np.zeros((10, 4), dtype="float32")
    train = mx.io.NDArrayIter(x, np.zeros(10, dtype="float32"), batch_size=5)
    kwargs = {"train_data": x} if argument == "train_data" else {"train_data": train, "eval_data": x}
    with pytest.raises(TypeError, match=rf"fit: {argument} must be a DataIter.*got ndarray of shape \(10, 4\)"):
        mx.mod.Module(_net()).fit(num_epoch=1, **kwargs)
