"""Private behaviours of MXNet 1.9.1 that libraries built on it rely on (GluonNLP's
WeightDropParameter copies ``Parameter._ctx_map``; GluonCV catches the ValueError of
``reset_ctx``; wrappers pass ``base._Null`` for arguments they do not set).  Expected values
were printed by MXNet 1.9.1 for the same calls."""
import pytest

import mxtorch as mx
from mxtorch.base import _Null


def test_parameter_ctx_map_is_mxnets_table():
    p = mx.gluon.Parameter("w", shape=(2,))
    assert p._ctx_map is None
    p.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    assert p._ctx_map == [[], [0, 1]]         # MXNet 1.9.1: [[], [0, 1]]
    p.reset_ctx(mx.cpu(2))
    assert p._ctx_map == [[], [None, None, 0]]


def test_reset_ctx_of_an_uninitialised_parameter_is_a_value_error():
    with pytest.raises(ValueError, match="has not been initialized"):
        mx.gluon.Parameter("q", shape=(2,)).reset_ctx(mx.cpu())


def test_null_means_not_given_in_operator_calls():
    x = mx.nd.ones((1, 1, 4, 4))
    w = mx.nd.ones((2, 1, 3, 3))
    out = mx.nd.Convolution(x, w, _Null, kernel=(3, 3), num_filter=2, no_bias=True, workspace=_Null)
    assert out.shape == (1, 2, 2, 2) and float(out.asnumpy()[0, 0, 0, 0]) == 9.0
    node = mx.sym.Convolution(mx.sym.var("x"), kernel=(3, 3), num_filter=2, workspace=_Null, name="c")
    assert "workspace" not in node.list_attr()
    assert node.list_arguments() == ["x", "c_weight", "c_bias"]
