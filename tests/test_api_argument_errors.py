"""Clear errors, of MXNet's exception types where code might catch them, for arguments that
MXNet 1.9.1 let fail with a raw Python error (outcomes checked against MXNet 1.9.1):
Trainer.step(0), an RNN layer on a 1-D input, DataLoader's default batchify of samples of
different shapes, Sequential.add of a non-Block, collect_params with a bad regular
expression; and the NumPy release named by the numpy-aliases warning."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import mxtorch as mx
from mxtorch import autograd, gluon
from mxtorch.base import MXNetError, MXNetTypeError, MXNetValueError
from mxtorch.gluon import nn


# -- Trainer.step / update: batch_size ------------------------------------------------------
def _trainer_after_backward():
    net = nn.Dense(2, in_units=3)
    net.initialize(mx.init.One())
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    with autograd.record():
        loss = net(mx.nd.ones((4, 3))).sum()
    loss.backward()
    return net, trainer


@pytest.mark.parametrize("zero", [0, 0.0, np.int64(0), np.float32(0), np.array(0)])
@pytest.mark.parametrize("method", ["step", "update"])
def test_trainer_batch_size_zero(method, zero):
    # MXNet 1.9.1: ZeroDivisionError (Python 0), -inf weights without an error (NumPy 0)
    net, trainer = _trainer_after_backward()
    with pytest.raises(MXNetValueError, match=rf"Trainer\.{method}: batch_size must not be 0 .*got "):
        getattr(trainer, method)(zero)
    assert np.isfinite(net.weight.data().asnumpy()).all()


@pytest.mark.parametrize("given, described", [(None, "NoneType None"), ("4", "str '4'"),
                                              (np.array([4]), "ndarray of shape (1,)")])
def test_trainer_batch_size_not_a_number(given, described):
    # MXNet 1.9.1: TypeError "unsupported operand type(s) for /" (MXNetError for a 1-element array)
    _, trainer = _trainer_after_backward()
    with pytest.raises(TypeError, match=r"Trainer\.step: batch_size must be a number") as info:
        trainer.step(given)
    assert isinstance(info.value, MXNetError) and described in str(info.value)


@pytest.mark.parametrize("batch_size", [4, 2.5, -1, np.int64(4), np.array(4), True])
def test_trainer_batch_sizes_mxnet_accepts(batch_size):
    net, trainer = _trainer_after_backward()
    trainer.step(batch_size)
    # gradient of sum(x W^T + b) w.r.t. W is 4 per element (4 rows of ones)
    expected = 1 - 0.1 * 4 / float(batch_size)
    np.testing.assert_allclose(net.weight.data().asnumpy(), np.full((2, 3), expected), rtol=1e-5)


# -- RNN layers: rank of the input ------------------------------------------------------------
@pytest.mark.parametrize("layer, layout, shape", [
    (gluon.rnn.LSTM, "TNC", (5,)),          # MXNet 1.9.1: IndexError: tuple index out of range
    (gluon.rnn.LSTM, "TNC", (5, 3)),        # MXNet 1.9.1: ValueError (deferred initialization failed)
    (gluon.rnn.GRU, "NTC", (5,)),
    (gluon.rnn.RNN, "TNC", (1, 2, 5, 3)),
])
def test_rnn_layer_needs_a_3d_input(layer, layout, shape):
    rnn = layer(4, layout=layout)
    rnn.initialize()
    axes = "sequence length, batch size" if layout == "TNC" else "batch size, sequence length"
    with pytest.raises(MXNetValueError) as info:
        rnn(mx.nd.ones(shape))
    message = str(info.value)
    assert message.startswith(f"{layer.__name__} {rnn.name}: inputs must be a 3-D array of layout {layout} "
                              f"({axes}, input size), got a {len(shape)}-D array of shape {shape}"), message


def test_rnn_layer_3d_input_still_runs():
    rnn = gluon.rnn.LSTM(4, layout="NTC")
    rnn.initialize()
    assert rnn(mx.nd.ones((2, 5, 3))).shape == (2, 5, 4)


# -- DataLoader: default batchify of samples of different shapes -----------------------------
_RAGGED_HINT = "pass DataLoader a batchify_fn that combines samples of different shapes"


@pytest.mark.parametrize("make", [np.ones, mx.nd.ones], ids=["numpy", "ndarray"])
def test_dataloader_ragged_samples(make):
    # MXNet 1.9.1: KeyError: <class 'numpy.object_'> for NumPy samples; NDArray samples were
    # silently cut to the first one's shape
    dataset = gluon.data.SimpleDataset([make((3,)), make((3,)), make((4,))])
    with pytest.raises(MXNetValueError) as info:
        list(gluon.data.DataLoader(dataset, batch_size=3))
    message = str(info.value)
    assert message.startswith("DataLoader: the default batchify_fn stacks the samples of a batch into one array")
    assert "sample 0 of the batch has shape (3,) and sample 2 has shape (4,)" in message
    assert _RAGGED_HINT in message


def test_dataloader_ragged_field_of_tuple_samples():
    # MXNet 1.9.1: MXNetError "TBlob.get_with_shape: Check failed ... (4 vs. 3)"
    dataset = gluon.data.ArrayDataset([np.ones((3,)), np.ones((4,))], [0, 1])
    with pytest.raises(MXNetValueError) as info:
        list(gluon.data.DataLoader(dataset, batch_size=2))
    message = str(info.value)
    assert "stacks element 0 of the samples" in message
    assert "element 0 of sample 0 of the batch has shape (3,) and element 0 of sample 1 has shape (4,)" in message


def test_dataloader_ragged_nested_list_sample():
    dataset = gluon.data.SimpleDataset([[[1, 2], [3]], [[1, 2], [3, 4]]])
    with pytest.raises(MXNetValueError, match=r"sample 0 of the batch has a ragged nested sequence\. "):
        list(gluon.data.DataLoader(dataset, batch_size=2))


def test_dataloader_same_shapes_still_batch():
    dataset = gluon.data.ArrayDataset(np.ones((4, 3), dtype=np.float32), np.arange(4))
    batches = list(gluon.data.DataLoader(dataset, batch_size=2))
    assert [(x.shape, y.shape) for x, y in batches] == [((2, 3), (2,)), ((2, 3), (2,))]


# -- Sequential.add --------------------------------------------------------------------------
def test_sequential_add_refuses_a_non_block():
    # MXNet 1.9.1 accepted it and failed later: AttributeError at initialize, TypeError at forward
    net = nn.Sequential()
    with pytest.raises(MXNetTypeError) as info:
        net.add(nn.Dense(2), 5)
    assert isinstance(info.value, TypeError)
    assert str(info.value) == ("Sequential.add: every argument must be a Block (such as nn.Dense(10)) to run in "
                               "order, got int 5 as argument 1")
    assert len(net) == 0                    # nothing added


def test_sequential_add_keeps_mxnet_callables():
    net = nn.Sequential()
    net.add(lambda x: x * 2)                # MXNet 1.9.1 runs it in forward
    assert net(mx.nd.ones((2,))).asnumpy().tolist() == [2.0, 2.0]


def test_hybrid_sequential_add_is_mxnet_value_error():
    with pytest.raises(ValueError, match="Children of HybridBlock must also be HybridBlock, but 5 has type") as info:
        nn.HybridSequential().add(5)
    assert isinstance(info.value, MXNetError)


# -- collect_params(select) ------------------------------------------------------------------
def test_collect_params_bad_regular_expression():
    # MXNet 1.9.1: re.error: unterminated character set at position 1
    net = nn.Dense(2, in_units=3)
    with pytest.raises(MXNetValueError) as info:
        net.collect_params("([")
    assert isinstance(info.value, re.error) and info.value.pos == 1
    message = str(info.value)
    assert message.startswith(f"collect_params of {net.name}: select must be a regular expression matched against "
                              f"parameter names (such as '.*weight|.*bias'), got '([', which is not one: "
                              f"unterminated character set at position 1"), message


def test_collect_params_select_of_the_wrong_type():
    # MXNet 1.9.1: TypeError: first argument must be string or compiled pattern
    with pytest.raises(TypeError, match=r"select must be a regular expression .* got int 5") as info:
        nn.Dense(2, in_units=3).collect_params(5)
    assert isinstance(info.value, MXNetError)


def test_collect_params_selects_as_mxnet():
    net = nn.Dense(2, in_units=3)
    assert list(net.collect_params(".*weight").keys()) == [f"{net.prefix}weight"]
    assert list(net.collect_params(re.compile(".*bias")).keys()) == [f"{net.prefix}bias"]
    assert len(net.collect_params("")) == 2


# -- numpy aliases: the release that removed each name ---------------------------------------
_ALIAS_WARNING = r"""
import sys, warnings
import numpy as np
from mxtorch.numpy_aliases import enable_numpy_aliases, removed_in
enable_numpy_aliases()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    EXPRESSION
print(str(caught[0].message))
print(removed_in("float"), removed_in("asscalar"), removed_in("float_"), removed_in("trapz"))
"""


@pytest.mark.parametrize("expression, what, release", [
    ("np.float", "np.float", "1.24"),
    ("np.asscalar(np.array([1.0]))", "np.asscalar", "1.23"),
    ("np.float_", "np.float_", "2.0"),
    ("np.fromstring(b'ab', dtype=np.uint8)", "the binary mode of np.fromstring (sep='')", "2.3"),
])
def test_numpy_alias_warning_names_the_release_that_removed_it(expression, what, release):
    if expression != "np.fromstring(b'ab', dtype=np.uint8)" and hasattr(np, expression.split("(")[0][3:]):
        pytest.skip("this NumPy still has the name")
    env = {k: v for k, v in os.environ.items() if k != "MXTORCH_NUMPY_ALIASES"}
    result = subprocess.run([sys.executable, "-c", _ALIAS_WARNING.replace("EXPRESSION", expression)],
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    message, releases = result.stdout.strip().splitlines()
    assert message.startswith(f"mxtorch numpy-aliases: {what} was removed in NumPy {release} (this is NumPy "
                              f"{np.__version__})"), message
    assert releases == "1.24 1.23 2.0 2.4"
