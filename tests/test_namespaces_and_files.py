"""Front-end namespaces (mx.contrib, mx.nd.random / mx.sym.random) and symbol files in other
encodings, as MXNet 1.9.1 provided them."""
import pytest

import mxtorch as mx


def test_contrib_package_reaches_contrib_operators():
    offset_free = mx.contrib.sym.DeformableConvolution(mx.sym.Variable("data"), mx.sym.Variable("offset"),
                                                       kernel=(3, 3), num_filter=2, name="dc")
    assert offset_free.list_arguments() == ["data", "offset", "dc_weight", "dc_bias"]
    boxes = mx.nd.array([[[0, 0.9, 0, 0, 1, 1], [0, 0.8, 0, 0, 1, 1]]])
    kept = mx.contrib.nd.box_nms(boxes, overlap_thresh=0.5, coord_start=2, score_index=1, id_index=0)
    assert kept.asnumpy()[0, 1, 0] == -1          # the overlapping lower-score box is suppressed


def test_random_namespaces_have_randn_and_shuffle():
    assert mx.sym.random.randn(2, 3, loc=1).infer_shape()[1] == [(2, 3)]
    assert mx.sym.random.shuffle(mx.sym.Variable("x")).name == "_shuffle0"
    values = mx.nd.random.shuffle(mx.nd.arange(6)).asnumpy()
    assert sorted(values.tolist()) == [0, 1, 2, 3, 4, 5]
    assert mx.nd.random.randn(2, 3).shape == (2, 3)


def test_symbol_files_in_latin1_load_and_garbage_raises(tmp_path):
    symbol = mx.sym.FullyConnected(mx.sym.Variable("donn\u00e9es"), num_hidden=2, name="fc")
    path = tmp_path / "latin-symbol.json"
    path.write_bytes(symbol.tojson().encode("latin-1"))
    assert mx.sym.load(str(path)).list_arguments() == ["donn\u00e9es", "fc_weight", "fc_bias"]
    garbage = tmp_path / "garbage-symbol.json"
    garbage.write_bytes(bytes(range(256)))
    with pytest.raises(mx.MXNetError, match="garbage-symbol.json"):
        mx.sym.load(str(garbage))


def test_generated_namespaces_carry_the_names_mxnet_modules_imported():
    import mxtorch.symbol.register as symbol_register
    assert mx.nd.random.NDArray is mx.nd.NDArray and mx.nd.random.current_context is mx.current_context
    assert mx.sym.random.Symbol is mx.sym.Symbol and mx.nd.op.CachedOp is mx.nd.CachedOp
    assert mx.nd.random.numeric_types is mx.base.numeric_types
    # mxnet.symbol.register generates the mx.sym operator functions
    fc = symbol_register.make_function("FullyConnected")(mx.sym.var("x"), num_hidden=2, name="fc")
    assert fc.list_arguments() == ["x", "fc_weight", "fc_bias"]
    namespace = {}
    symbol_register.install(namespace)
    assert "Convolution" in namespace and symbol_register.SymbolBase is mx.symbol.symbol.SymbolBase


def test_notebook_placeholders_when_bokeh_or_pandas_are_missing():
    import importlib.util
    from mxtorch import notebook
    from mxtorch.notebook import callback
    if importlib.util.find_spec("bokeh") is None:
        assert notebook.bokeh is notebook.Bokeh_Failed_To_Import
    if importlib.util.find_spec("pandas") is None:
        assert callback.pd is callback.Pandas_Failed_To_Import
    with pytest.raises(AttributeError):
        notebook.no_such_name


def test_ufunc_keyword_checks_match_mxnet():
    import numpy as np
    from mxtorch import util
    # MXNet 1.9.1: np_ufunc_legal_option and the wrap_np_*_func errors
    assert [util.np_ufunc_legal_option("dtype", np.float32), util.np_ufunc_legal_option("dtype", "int16"),
            util.np_ufunc_legal_option("casting", "bad"), util.np_ufunc_legal_option("order", "C"),
            util.np_ufunc_legal_option("subok", 1)] == [True, False, False, True, False]
    add = util.wrap_np_binary_func(lambda a, b, out=None: a + b)
    assert add(1, 2, where=True, casting="same_kind") == 3
    with pytest.raises(NotImplementedError, match="casting=unsafe is not implemented yet"):
        add(1, 2, casting="unsafe")
    with pytest.raises(TypeError, match="foo is an invalid keyword"):
        add(1, 2, foo=1)
    with pytest.raises(TypeError, match="dtype int16 not understood"):
        add(1, 2, dtype="int16")
    negate = util.wrap_np_unary_func(lambda x, out=None: -x)
    assert negate(2, order="K") == -2
    with pytest.raises(NotImplementedError, match="for operator"):
        negate(2, order="C")


def test_optimizer_modules_keep_mxnet_imports():
    # MXNet's optimizer modules imported abs / norm under other names and the LAMB front ends
    import mxtorch.optimizer as package
    import mxtorch.optimizer.contrib as contrib
    import mxtorch.optimizer.optimizer as module
    assert module.NDabs(mx.nd.array([-2.0])).asnumpy().tolist() == [2.0]
    assert module.NDnorm(mx.nd.array([3.0, 4.0])).asnumpy().tolist() == [5.0]
    assert module.is_np_array() is False
    assert module.multi_lamb_update is mx.nd.contrib.multi_lamb_update
    assert package.NDabs is mx.nd.abs and contrib.sqrt is mx.nd.sqrt and contrib.NDArray is mx.nd.NDArray


def test_group_functions_are_the_same_object_on_every_access():
    """MXNet's operator functions are module attributes, so ``is`` holds between two
    accesses: GluonCV's FPN names its norm layers only when ``norm_layer is
    mxnet.symbol.contrib.SyncBatchNorm`` (otherwise the parameters get automatic names
    that its saved files do not have)."""
    from mxtorch.symbol.contrib import SyncBatchNorm
    assert mx.sym.contrib.SyncBatchNorm is SyncBatchNorm is mx.symbol.contrib.SyncBatchNorm
    assert mx.nd.contrib.box_nms is mx.nd.contrib.box_nms
    assert mx.nd.random.uniform is mx.nd.random.uniform
    assert mx.sym._internal._plus_scalar is mx.sym._internal._plus_scalar
    assert mx.sym.op.Convolution is mx.sym.op.Convolution
    assert mx.sym.np._internal.hsplit is mx.sym.np._internal.hsplit

    def fpn_norm(data, norm_layer):
        kwargs = {"name": "P5_lat_bn"} if norm_layer is SyncBatchNorm else {}
        return norm_layer(data, **kwargs)
    out = fpn_norm(mx.sym.var("data"), mx.sym.contrib.SyncBatchNorm)
    assert out.list_arguments() == ["data", "P5_lat_bn_gamma", "P5_lat_bn_beta"]
    assert out.list_auxiliary_states() == ["P5_lat_bn_moving_mean", "P5_lat_bn_moving_var"]
