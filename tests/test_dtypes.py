"""One dtype table (mxtorch.base): MXNet's flags, names, NumPy and torch types; bfloat16 wherever
MXNet 1.9.1 accepted it (as its structured NumPy stand-in, and here also by name)."""
import os

import numpy as np
import pytest
import torch

import mxtorch as mx
from mxtorch import base
from mxtorch.base import BFLOAT16, MXNetError

NDARRAY_DIR = os.path.join(os.path.dirname(__file__), "data", "ndarray")


@pytest.mark.parametrize("flag,name", [(0, "float32"), (1, "float64"), (2, "float16"), (3, "uint8"), (4, "int32"),
                                       (5, "int8"), (6, "int64"), (7, "bool"), (8, "int16"), (12, "bfloat16")])
def test_table_matches_mxnet_flags(flag, name):
    assert base.dtype_from_flag(flag) == name
    assert base.dtype_flag(name) == flag
    assert base.dtype_flag(base.torch_dtype(name)) == flag
    assert base.dtype_name(base.numpy_dtype(name)) == name


def test_unsupported_dtypes_raise_mxnet_error():
    with pytest.raises(MXNetError, match="uint32"):
        base.dtype_from_flag(10)
    with pytest.raises(MXNetError, match="complex64"):
        base.dtype_name("complex64")
    with pytest.raises(MXNetError, match="not supported"):
        mx.sym.var("w", dtype="complex64")


@pytest.mark.parametrize("spelling", ["bfloat16", BFLOAT16])
def test_variable_and_cast_accept_bfloat16(spelling):
    w = mx.sym.var("w", dtype=spelling)
    assert w.attr_dict()["w"]["__dtype__"] == "12"      # MXNet writes the flag
    net = mx.sym.Cast(w, dtype="float32") * 2
    arg_types, out_types, _ = net.infer_type()
    assert arg_types == [BFLOAT16] and out_types == [np.float32]
    cast = mx.sym.Cast(mx.sym.var("x"), dtype=spelling)
    assert cast.infer_type(x="float32")[1] == [BFLOAT16]
    assert '"dtype": "bfloat16"' in cast.tojson()
    assert mx.sym.load_json(cast.tojson()).infer_type(x="float32")[1] == [BFLOAT16]


def test_bfloat16_binds_runs_and_differentiates():
    net = mx.sym.Cast(mx.sym.var("w", dtype="bfloat16"), dtype="float32") * 2
    executor = net.simple_bind(mx.cpu(), w=(3,))
    assert executor.arg_dict["w"]._tensor.dtype == torch.bfloat16
    executor.arg_dict["w"][:] = mx.nd.array([1.5, -2.25, 3.0], dtype="bfloat16")
    np.testing.assert_array_equal(executor.forward(is_train=True)[0].asnumpy(), [3.0, -4.5, 6.0])
    executor.backward(mx.nd.array([1.0, 0.5, 0.25]))
    assert executor.grad_dict["w"]._tensor.dtype == torch.bfloat16
    np.testing.assert_array_equal(executor.grad_dict["w"].asnumpy(), [2.0, 1.0, 0.5])


def test_bfloat16_parameters_from_params_files_work_in_a_module(tmp_path):
    # extra_bfloat16.nd was written by MXNet 1.9.1 (tools/gen_ndarray_files is the generator)
    loaded = mx.nd.load(os.path.join(NDARRAY_DIR, "extra_bfloat16.nd"))
    array = loaded[0] if isinstance(loaded, list) else next(iter(loaded.values()))
    assert array.dtype == BFLOAT16
    values = array.asnumpy().reshape(-1)
    weight = mx.nd.array(values.reshape(1, -1), dtype="bfloat16")
    mx.nd.save(str(tmp_path / "net-0000.params"), {"arg:w": weight})
    data = mx.sym.var("data")
    net = mx.sym.broadcast_mul(data, mx.sym.Cast(mx.sym.var("w", shape=(1, values.size), dtype="bfloat16"),
                                                     dtype="float32"))
    module = mx.mod.Module(net, data_names=["data"], label_names=None)
    module.bind(data_shapes=[("data", (1, values.size))], for_training=False)
    module.load_params(str(tmp_path / "net-0000.params"))
    assert module.get_params()[0]["w"].dtype == BFLOAT16
    module.forward(mx.io.DataBatch([mx.nd.ones((1, values.size))]), is_train=False)
    np.testing.assert_array_equal(module.get_outputs()[0].asnumpy().reshape(-1), values)


def test_ndarray_dtype_spellings():
    x = mx.nd.array([1.0, 2.0], dtype="bfloat16")
    assert x.dtype == BFLOAT16 and x.astype("float32").dtype == np.float32
    assert mx.nd.Cast(mx.nd.array([1.1]), dtype=BFLOAT16).dtype == BFLOAT16
    assert mx.nd.zeros((2,), dtype="bfloat16")._tensor.dtype == torch.bfloat16
