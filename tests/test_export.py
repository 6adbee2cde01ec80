"""mxtorch.export and `mxtorch convert`: the MXNet 1.9.1 checkpoints and model-zoo-shaped networks,
exported to a torch.fx GraphModule, TorchScript and ONNX (run in onnxruntime), must reproduce the
outputs MXNet computed (``out_infer:0`` of tests/data/checkpoints/*-io.npz) and mxtorch's executor."""
import json
import os

import numpy as np
import pytest
import torch

import mxtorch as mx
from mxtorch import export
from mxtorch.base import MXNetError

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKPOINTS = os.path.join(HERE, "data", "checkpoints")
CASES = [case["name"] for case in json.load(open(os.path.join(CHECKPOINTS, "index.json")))["cases"]]
EPOCHS = {case["name"]: case["epoch"] for case in json.load(open(os.path.join(CHECKPOINTS, "index.json")))["cases"]}


def _relative_error(got, want):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape
    return np.abs(got - want).max() / max(np.abs(want).max(), 1e-12)


def _checkpoint(name):
    symbol, arg_params, aux_params = mx.model.load_checkpoint(os.path.join(CHECKPOINTS, name), EPOCHS[name])
    io = np.load(os.path.join(CHECKPOINTS, f"{name}-io.npz"))
    return symbol, arg_params, aux_params, io["data"], io["out_infer:0"]


@pytest.mark.parametrize("name", CASES)
def test_checkpoint_to_torch(name):
    symbol, arg_params, aux_params, data, expected = _checkpoint(name)
    module = export.to_torch(symbol, arg_params, aux_params, [("data", data.shape)])
    assert isinstance(module, torch.fx.GraphModule)
    parameters = dict(module.named_parameters())
    assert set(parameters) == {n for n in symbol.list_arguments() if n in arg_params}
    for key, value in arg_params.items():
        np.testing.assert_array_equal(parameters[key].detach().numpy(), value.asnumpy())
    buffers = dict(module.named_buffers())
    for key, value in aux_params.items():
        np.testing.assert_array_equal(buffers[key].numpy(), value.asnumpy())
    with torch.no_grad():
        got = module(torch.from_numpy(data)).numpy()
    assert _relative_error(got, expected) < 1e-5
    module.train()                          # inference semantics whatever the mode
    with torch.no_grad():
        assert _relative_error(module(torch.from_numpy(data)).numpy(), expected) < 1e-5


@pytest.mark.parametrize("name", CASES)
def test_checkpoint_to_torchscript(name, tmp_path):
    symbol, arg_params, aux_params, data, expected = _checkpoint(name)
    scripted = export.to_torchscript(symbol, arg_params, aux_params, [("data", data.shape)])
    path = str(tmp_path / "model.pt")
    torch.jit.save(scripted, path)
    loaded = torch.jit.load(path)
    with torch.no_grad():
        got = loaded(torch.from_numpy(data)).numpy()
    assert _relative_error(got, expected) < 1e-5


@pytest.mark.parametrize("name", CASES)
def test_checkpoint_to_onnx(name, tmp_path):
    pytest.importorskip("onnx")
    onnxruntime = pytest.importorskip("onnxruntime")
    symbol, arg_params, aux_params, data, expected = _checkpoint(name)
    path = str(tmp_path / "model.onnx")
    assert export.to_onnx(symbol, arg_params, aux_params, [("data", data.shape)], path) == path
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    assert [i.name for i in session.get_inputs()] == ["data"]
    assert [o.name for o in session.get_outputs()] == symbol.list_outputs()
    got = session.run(None, {"data": data})[0]
    assert _relative_error(got, expected) < 1e-5


# -- model-zoo-shaped networks (small), checked against mxtorch's own executor ------------------------
def _conv_bn(data, channels, kernel, stride, pad, name, groups=1, act=True):
    net = mx.sym.Convolution(data, num_filter=channels, kernel=kernel, stride=stride, pad=pad, num_group=groups,
                             no_bias=True, name=f"{name}_conv")
    net = mx.sym.BatchNorm(net, fix_gamma=False, eps=2e-5, name=f"{name}_bn")
    return mx.sym.Activation(net, act_type="relu", name=f"{name}_relu") if act else net


def _resnet():
    data = mx.sym.Variable("data")
    body = _conv_bn(data, 8, (3, 3), (1, 1), (1, 1), "stem")
    for stage, (channels, stride) in enumerate([(8, 1), (16, 2)]):
        shortcut = body if stride == 1 else mx.sym.Convolution(body, num_filter=channels, kernel=(1, 1),
                                                               stride=(2, 2), no_bias=True, name=f"s{stage}_sc")
        branch = _conv_bn(body, channels, (3, 3), (stride, stride), (1, 1), f"s{stage}_a")
        branch = _conv_bn(branch, channels, (3, 3), (1, 1), (1, 1), f"s{stage}_b", act=False)
        body = mx.sym.Activation(branch + shortcut, act_type="relu", name=f"s{stage}_out")
    pool = mx.sym.Pooling(body, global_pool=True, pool_type="avg", kernel=(7, 7), name="pool")
    fc = mx.sym.FullyConnected(mx.sym.Flatten(pool), num_hidden=10, name="fc")
    return mx.sym.SoftmaxOutput(fc, name="softmax")


def _inception_bn():
    data = mx.sym.Variable("data")
    stem = _conv_bn(data, 8, (3, 3), (2, 2), (1, 1), "stem")
    a = _conv_bn(stem, 4, (1, 1), (1, 1), (0, 0), "in_1x1")
    b = _conv_bn(_conv_bn(stem, 4, (1, 1), (1, 1), (0, 0), "in_3r"), 6, (3, 3), (1, 1), (1, 1), "in_3x3")
    c = _conv_bn(mx.sym.Pooling(stem, kernel=(3, 3), stride=(1, 1), pad=(1, 1), pool_type="max"),
                 4, (1, 1), (1, 1), (0, 0), "in_proj")
    mixed = mx.sym.Concat(a, b, c, name="in_concat")
    pool = mx.sym.Pooling(mixed, global_pool=True, pool_type="avg", kernel=(1, 1), name="pool")
    fc = mx.sym.FullyConnected(pool, num_hidden=10, name="fc")
    return mx.sym.SoftmaxOutput(fc, name="softmax")


def _mobilenet():
    data = mx.sym.Variable("data")
    net = _conv_bn(data, 8, (3, 3), (2, 2), (1, 1), "conv1")
    for index, (channels, stride) in enumerate([(16, 1), (32, 2)]):
        in_channels = 8 if index == 0 else 16
        net = _conv_bn(net, in_channels, (3, 3), (stride, stride), (1, 1), f"dw{index}", groups=in_channels)
        net = _conv_bn(net, channels, (1, 1), (1, 1), (0, 0), f"pw{index}")
    pool = mx.sym.Pooling(net, global_pool=True, pool_type="avg", kernel=(1, 1), name="pool")
    fc = mx.sym.FullyConnected(mx.sym.Flatten(pool), num_hidden=10, name="fc")
    return mx.sym.SoftmaxOutput(fc, name="softmax")


NETWORKS = {"resnet": _resnet, "inception_bn": _inception_bn, "mobilenet": _mobilenet}
SHAPE = (2, 3, 28, 28)


def _zoo(name):
    symbol = NETWORKS[name]()
    mx.random.seed(7)
    module = mx.mod.Module(symbol, context=mx.cpu())
    module.bind(data_shapes=[("data", SHAPE)], label_shapes=[("softmax_label", (SHAPE[0],))], for_training=False)
    module.init_params(mx.init.Xavier(rnd_type="gaussian", magnitude=2))
    arg_params, aux_params = module.get_params()
    rng = np.random.RandomState(3)
    # moving statistics away from 0 / 1 so that BatchNorm's inference arithmetic is exercised
    aux_params = {k: mx.nd.array(rng.uniform(0.5, 1.5, v.shape) if k.endswith("var") else rng.randn(*v.shape))
                  for k, v in aux_params.items()}
    module.set_params(arg_params, aux_params)
    data = rng.randn(*SHAPE).astype(np.float32)
    module.forward(mx.io.DataBatch([mx.nd.array(data)]), is_train=False)
    return symbol, arg_params, aux_params, data, module.get_outputs()[0].asnumpy()


@pytest.mark.parametrize("name", sorted(NETWORKS))
@pytest.mark.parametrize("route", ["torch", "torchscript", "onnx"])
def test_model_zoo_shapes(name, route, tmp_path):
    symbol, arg_params, aux_params, data, expected = _zoo(name)
    shapes = [("data", SHAPE)]
    if route == "onnx":
        pytest.importorskip("onnx")
        onnxruntime = pytest.importorskip("onnxruntime")
        path = export.to_onnx(symbol, arg_params, aux_params, shapes, str(tmp_path / "m.onnx"))
        got = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"data": data})[0]
    else:
        build = export.to_torch if route == "torch" else export.to_torchscript
        with torch.no_grad():
            got = build(symbol, arg_params, aux_params, shapes)(torch.from_numpy(data)).numpy()
    assert _relative_error(got, expected) < 1e-5


# -- errors --------------------------------------------------------------------------------------------
class _Scale(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] * 3)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0] * 3)


@mx.operator.register("export_test_scale")
class _ScaleProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def create_operator(self, ctx, shapes, dtypes):
        return _Scale()


def _custom_symbol():
    data = mx.sym.Variable("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    return mx.sym.Custom(fc, op_type="export_test_scale", name="scale3")


def _fc_params():
    return {"fc_weight": mx.nd.array(np.arange(12, dtype=np.float32).reshape(3, 4) / 10),
            "fc_bias": mx.nd.array([1.0, 2.0, 3.0])}


def test_custom_operator_runs_in_torch_route():
    module = export.to_torch(_custom_symbol(), _fc_params(), {}, [("data", (1, 4))])
    with torch.no_grad():
        got = module(torch.ones(1, 4)).numpy()
    # fc: sum of each weight row + bias, then scaled by 3
    np.testing.assert_allclose(got, [[(0.6 + 1) * 3, (2.2 + 2) * 3, (3.8 + 3) * 3]], rtol=1e-6)


@pytest.mark.parametrize("route", ["torchscript", "onnx"])
def test_unsupported_operator_is_named(route, tmp_path):
    with pytest.raises(export.UnsupportedOperatorError, match=r"operator 'Custom' \(node 'scale3'\)"):
        if route == "onnx":
            export.to_onnx(_custom_symbol(), _fc_params(), {}, [("data", (1, 4))], str(tmp_path / "m.onnx"))
        else:
            export.to_torchscript(_custom_symbol(), _fc_params(), {}, [("data", (1, 4))])
    assert not os.listdir(tmp_path)


def test_missing_parameter_and_bad_data_name():
    params = _fc_params()
    del params["fc_bias"]
    symbol = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=3, name="fc")
    with pytest.raises(MXNetError, match=r"no value for \['fc_bias'\]"):
        export.to_torch(symbol, params, {}, [("data", (1, 4))])
    with pytest.raises(MXNetError, match="'image'.*not arguments"):
        export.to_torch(symbol, _fc_params(), {}, [("image", (1, 4))])


# -- mxtorch convert --------------------------------------------------------------------------------------
def _convert(*args):
    """``mxtorch convert ARGS`` run in this process (``cli.main``, what ``python -m mxtorch``
    calls; tests/test_cli_run.py runs the module form itself): ``(returncode, stdout, stderr)``."""
    import contextlib
    import io
    import types
    from mxtorch import cli
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            code = cli.main(["convert", *args])
        except SystemExit as exit_:
            code = exit_.code
    return types.SimpleNamespace(returncode=code, stdout=stdout.getvalue(), stderr=stderr.getvalue())


def test_convert_cli_torch_and_torchscript(tmp_path):
    prefix = os.path.join(CHECKPOINTS, "resnet")
    _, _, _, data, expected = _checkpoint("resnet")
    shape = "x".join(map(str, data.shape))
    out = str(tmp_path / "resnet.pt")
    result = _convert(prefix, "2", "--to", "torch", "-o", out, "--data-shapes", f"data:{shape}")
    assert result.returncode == 0, result.stderr
    module = torch.load(out, weights_only=False)
    with torch.no_grad():
        assert _relative_error(module(torch.from_numpy(data)).numpy(), expected) < 1e-5
    out = str(tmp_path / "resnet.ts")
    assert _convert(prefix, "2", "--to", "torchscript", "-o", out, "--data-shapes", f"data:{shape}").returncode == 0
    with torch.no_grad():
        assert _relative_error(torch.jit.load(out)(torch.from_numpy(data)).numpy(), expected) < 1e-5


def test_convert_cli_needs_shapes_when_symbol_has_none(tmp_path):
    result = _convert(os.path.join(CHECKPOINTS, "mlp"), "2", "--to", "torch", "-o", str(tmp_path / "m.pt"))
    assert result.returncode == 1
    assert "does not record the shape of its data input(s) ['data']" in result.stderr
    assert "--data-shapes" in result.stderr
    result = _convert(os.path.join(CHECKPOINTS, "mlp"), "2", "--to", "torch", "-o", str(tmp_path / "m.pt"),
                      "--data-shapes", "data:2xq")
    assert result.returncode == 1 and "'data:2xq'" in result.stderr
    assert not os.listdir(tmp_path)


def test_convert_uses_shapes_recorded_in_symbol(tmp_path):
    data = mx.sym.Variable("data", shape=(2, 4))
    symbol = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    mx.model.save_checkpoint(str(tmp_path / "fc"), 1, symbol, _fc_params(), {})
    out = str(tmp_path / "fc.pt")
    export.convert_checkpoint(str(tmp_path / "fc"), 1, "torch", out)
    module = torch.load(out, weights_only=False)
    with torch.no_grad():
        got = module(torch.ones(2, 4)).numpy()
    np.testing.assert_allclose(got, [[1.6, 4.2, 6.8]] * 2, rtol=1e-6)


def test_converted_files_follow_the_umask_and_need_an_existing_folder(tmp_path):
    import stat
    from mxtorch.util import temporary_beside
    previous = os.umask(0o022)
    try:
        temporary = temporary_beside(str(tmp_path / "model.onnx"))
        assert stat.S_IMODE(os.stat(temporary).st_mode) == 0o644
        os.remove(temporary)
    finally:
        os.umask(previous)
    with pytest.raises(mx.base.MXNetError, match="does not exist"):
        temporary_beside(str(tmp_path / "missing" / "model.onnx"))


def test_trace_check_tolerance_follows_the_output_scale():
    """The traced-graph check allows rounding relative to the output's magnitude (onnxruntime's
    kernels round differently: an element near zero of an output of magnitude 26 came back
    6e-5 off for GluonCV's resnet18_v1b) and still rejects a real difference."""
    from mxtorch.export.converters import _check_same
    expected = torch.tensor([[26.0, 1e-3, -3.0]])
    _check_same("to_onnx", expected, torch.tensor([[26.0, 1e-3 + 6e-5, -3.0]]))
    with pytest.raises(mx.base.MXNetError, match="does not reproduce output 0"):
        _check_same("to_onnx", expected, torch.tensor([[26.0, 1e-3 + 0.05, -3.0]]))
    with pytest.raises(mx.base.MXNetError, match="does not reproduce output 0"):
        _check_same("to_onnx", expected, torch.tensor([[26.0, 1e-3]]))


def test_onnx_stable_sort_and_expm1(tmp_path):
    """topk / sort (a stable torch.sort: MXNet keeps ties in index order) and LeakyReLU 'elu'
    (torch.expm1) export to ONNX; onnxruntime gives NumPy's stable sort and elu."""
    import onnxruntime
    data = mx.sym.var("data")
    values = mx.sym.topk(data, k=3, axis=-1, ret_typ="value")
    indices = mx.sym.topk(data, k=3, axis=-1, ret_typ="indices", is_ascend=True)
    elu = mx.sym.LeakyReLU(data, act_type="elu", slope=0.5)
    symbol = mx.sym.Group([values, indices, elu])
    x = np.array([[3.0, 1.0, 3.0, -2.0, 1.0, 5.0], [0.0, 0.0, -1.0, 2.0, 2.0, -1.0]], dtype=np.float32)
    path = export.to_onnx(symbol, {}, {}, [("data", x.shape)], str(tmp_path / "sort.onnx"))
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    got_values, got_indices, got_elu = session.run(None, {"data": x})
    np.testing.assert_array_equal(got_values, -np.sort(-x, axis=-1, kind="stable")[:, :3])
    np.testing.assert_array_equal(got_indices, np.argsort(x, axis=-1, kind="stable")[:, :3].astype(np.float32))
    np.testing.assert_allclose(got_elu, np.where(x > 0, x, 0.5 * np.expm1(x)), rtol=1e-6, atol=1e-7)


def test_onnx_broadcast_mod_with_zero_divisor(tmp_path):
    """broadcast_mod (MXNet: x mod 0 is 0, the sign of the divisor otherwise) has no
    data-dependent branch, so it exports to ONNX (GluonCV's CenterNet decoder needs it)."""
    import onnxruntime
    lhs, rhs = mx.sym.var("lhs"), mx.sym.var("rhs")
    symbol = mx.sym.broadcast_mod(lhs, rhs)
    a = np.array([[5.0, -5.0, 7.0, 3.0]], dtype=np.float32)
    b = np.array([[3.0, 3.0, 0.0, -2.0]], dtype=np.float32)
    expected = np.where(b == 0, 0.0, np.mod(a, np.where(b == 0, 1.0, b)))
    np.testing.assert_array_equal(mx.nd.broadcast_mod(mx.nd.array(a), mx.nd.array(b)).asnumpy(), expected)
    path = export.to_onnx(symbol, {}, {}, [("lhs", a.shape), ("rhs", b.shape)], str(tmp_path / "mod.onnx"))
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    np.testing.assert_array_equal(session.run(None, {"lhs": a, "rhs": b})[0], expected)
