"""Where MXNet 1.9.1 raised a builtin exception from its Python layer, mxtorch's MXNetError
also derives from that builtin, so both ``except MXNetError`` and ``except ValueError`` (etc.)
catch it.  The builtin of each case is what MXNet 1.9.1 raised
(tools/gen_input_validation_reference.py)."""
import os

import pytest

import mxtorch as mx

nd = mx.nd


def _dense(units=2, in_units=3):
    net = mx.gluon.nn.Dense(units, in_units=in_units)
    net.initialize()
    return net


def _bound(expression):
    return expression.bind(mx.cpu(), {"a": nd.ones(2)})


def _exported(tmp):
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(2))
    net.initialize()
    net.hybridize()
    net(nd.ones((1, 3)))
    net.export(os.path.join(tmp, "m"))
    return os.path.join(tmp, "m-symbol.json"), os.path.join(tmp, "m-0000.params")


def _load_other(tmp):
    path = os.path.join(tmp, "p")
    _dense().save_parameters(path)
    conv = mx.gluon.nn.Conv2D(2, 3, in_channels=1)
    conv.initialize()
    conv.load_parameters(path)


def _lstm():
    layer = mx.gluon.rnn.LSTM(4)
    layer.initialize()
    layer(nd.ones((3, 2)))


def _cross_entropy():
    metric = mx.metric.CrossEntropy()
    metric.update([nd.array([5])], [nd.array([[0.5, 0.5]])])


CASES = {
    "trainer_unknown_optimizer": (ValueError, lambda tmp: mx.gluon.Trainer(_dense().collect_params(), "nope")),
    "optimizer_create": (ValueError, lambda tmp: mx.optimizer.create("nope")),
    "asscalar": (ValueError, lambda tmp: nd.ones(2).asscalar()),
    "reshape_size": (ValueError, lambda tmp: nd.ones(6).reshape((4,))),
    "metric_create": (AssertionError, lambda tmp: mx.metric.create("accu")),
    "bool": (ValueError, lambda tmp: bool(nd.ones(2))),
    "save_non_array": (TypeError, lambda tmp: nd.save(os.path.join(tmp, "x"), {"a": 1})),
    "dtype_typo": (TypeError, lambda tmp: nd.ones(2, dtype="flot32")),
    "bind_missing": (ValueError, lambda tmp: (mx.sym.Variable("a") + mx.sym.Variable("b")).bind(
        mx.cpu(), {"a": nd.ones(2)})),
    "forward_shape": (ValueError, lambda tmp: _bound(mx.sym.Variable("a") * 2).forward(a=nd.ones(3))),
    "forward_kwarg": (TypeError, lambda tmp: _bound(mx.sym.Variable("a") * 2).forward(b=nd.ones(2))),
    "internals_name": (ValueError, lambda tmp: mx.sym.FullyConnected(
        mx.sym.Variable("data"), num_hidden=2).get_internals()["nope"]),
    "module_forward_unbound": (AssertionError, lambda tmp: mx.mod.Module(
        mx.sym.Variable("data") * 2, label_names=None).forward(mx.io.DataBatch([nd.ones((1, 2))]))),
    "symbolblock_input_name": (AssertionError, lambda tmp: mx.gluon.SymbolBlock.imports(
        _exported(tmp)[0], ["wrong"], _exported(tmp)[1])),
    "load_other_net": (AssertionError, _load_other),
    "lstm_deferred_init": (ValueError, lambda tmp: _lstm()),
    "cross_entropy_label": (IndexError, lambda tmp: _cross_entropy()),
    "gather_nd_index": (IndexError, lambda tmp: nd.gather_nd(nd.array([1, 2, 3]), nd.array([[5]]))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_error_is_an_mxnet_error_and_mxnets_builtin(name, tmp_path):
    builtin, action = CASES[name]
    with pytest.raises(mx.MXNetError) as info:
        action(str(tmp_path))
    assert isinstance(info.value, builtin), (name, type(info.value).__mro__)
    assert str(info.value)
