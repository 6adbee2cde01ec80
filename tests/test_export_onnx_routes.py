"""ONNX export of every MXNet 1.9.1 checkpoint and symbol JSON of the fixtures, through both of
torch.onnx's exporters (the ``torch.export``-based one, and the TorchScript-based one that
``to_onnx`` falls back to), run in onnxruntime against MXNet's and mxtorch's outputs.

Data: tests/data/checkpoints (MXNet's ``out_infer:0``), tests/data/symbol-json (random
parameters of the inferred shapes), tests/data/export (BN-Inception checkpoints written by
tools/gen_export_checkpoints.py with MXNet's outputs).
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import mxtorch as mx
from mxtorch import export
from mxtorch.export import converters

onnxruntime = pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKPOINTS = os.path.join(HERE, "data", "checkpoints")
SYMBOL_JSON = os.path.join(HERE, "data", "symbol-json")
EXPORT = os.path.join(HERE, "data", "export")
CHECKPOINT_CASES = json.load(open(os.path.join(CHECKPOINTS, "index.json")))["cases"]
SYMBOL_CASES = json.load(open(os.path.join(SYMBOL_JSON, "index.json")))["cases"]
INCEPTION = ["inception_bn", "inception_bn_full"]
INCEPTION_SHAPE = (1, 3, 224, 224)


def _inception_input():
    # the input tools/gen_export_checkpoints.py gave MXNet
    return np.random.RandomState(0).uniform(-1, 1, INCEPTION_SHAPE).astype(np.float32)


def _checkpoints():
    """``[(id, prefix, epoch, data, MXNet's inference output)]``."""
    found = []
    for case in CHECKPOINT_CASES:
        io = np.load(os.path.join(CHECKPOINTS, f"{case['name']}-io.npz"))
        found.append((case["name"], os.path.join(CHECKPOINTS, case["name"]), case["epoch"], io["data"],
                      io["out_infer:0"]))
    for name in INCEPTION:
        found.append((name, os.path.join(EXPORT, name), 1, _inception_input(),
                      np.load(os.path.join(EXPORT, f"{name}-io.npz"))["output"]))
    return found


CHECKPOINT_ROWS = _checkpoints()


@pytest.fixture(params=["dynamo", "torchscript"])
def exporter(request, monkeypatch):
    """Which of torch.onnx's exporters writes the file: with 'torchscript' the ``torch.export``
    route fails, so ``to_onnx`` falls back to the TorchScript-based exporter."""
    if request.param == "torchscript":
        real = torch.onnx.export

        def export_without_dynamo(*args, **kwargs):
            if kwargs.get("dynamo"):
                raise RuntimeError("torch.export route unavailable (test)")
            return real(*args, **kwargs)

        monkeypatch.setattr(torch.onnx, "export", export_without_dynamo)
    return request.param


def _run(path, feeds):
    return onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)


def _mxtorch_outputs(symbol, arg_params, aux_params, feeds):
    module = export.to_torch(symbol, arg_params, aux_params, [(n, v.shape) for n, v in feeds.items()])
    with torch.no_grad():
        outputs = module(*[torch.from_numpy(v) for v in feeds.values()])
    return [o.numpy() for o in (outputs if isinstance(outputs, tuple) else (outputs,))]


@pytest.mark.parametrize("name,prefix,epoch,data,expected", CHECKPOINT_ROWS, ids=[r[0] for r in CHECKPOINT_ROWS])
def test_checkpoint_exports_through_both_exporters(name, prefix, epoch, data, expected, exporter, tmp_path):
    path = export.convert_checkpoint(prefix, epoch, "onnx", str(tmp_path / f"{name}.onnx"), [("data", data.shape)])
    got = _run(path, {"data": data})
    assert len(got) == 1
    np.testing.assert_allclose(got[0], expected, rtol=1e-4, atol=1e-5)
    symbol, arg_params, aux_params = mx.model.load_checkpoint(prefix, epoch)
    np.testing.assert_allclose(got[0], _mxtorch_outputs(symbol, arg_params, aux_params, {"data": data})[0],
                               rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", SYMBOL_CASES, ids=[c["name"] for c in SYMBOL_CASES])
def test_symbol_json_exports_through_both_exporters(case, exporter, tmp_path):
    """Each symbol JSON (MXNet 0.8's save_000800 included) with random parameters of the shapes
    MXNet inferred; every output of the ONNX graph matches mxtorch's."""
    symbol = mx.sym.load(os.path.join(SYMBOL_JSON, case["file"]))
    inferred = case["infer_shape"][0]
    given = inferred["given"]
    rng = np.random.RandomState(0)
    arg_params = {k: mx.nd.array(rng.uniform(-1, 1, v)) for k, v in inferred["arg_shapes"].items() if k not in given}
    aux_params = {k: mx.nd.array(rng.uniform(0.5, 1.5, v)) for k, v in inferred["aux_shapes"].items()}
    feeds = {k: rng.uniform(-1, 1, v).astype(np.float32) for k, v in given.items() if "label" not in k}
    path = export.to_onnx(symbol, arg_params, aux_params, [(k, v.shape) for k, v in feeds.items()],
                          str(tmp_path / "model.onnx"))
    got = _run(path, feeds)
    expected = _mxtorch_outputs(symbol, arg_params, aux_params, feeds)
    assert len(got) == len(expected) == len(case["list_outputs"])
    for have, want in zip(got, expected):
        np.testing.assert_allclose(have, want, rtol=1e-4, atol=1e-5)


def test_failed_export_names_the_operator_not_a_hook_error(monkeypatch, tmp_path):
    """When the whole graph does not export, ``to_onnx`` exports each operator on the inputs it
    received to name the one at fault; recording those inputs must leave the forward alone
    (a pre-hook that returned them replaced the inputs: "'OperatorModule' object has no
    attribute 'detach'")."""
    real = torch.onnx.export

    def refuse_embedding(module, *args, **kwargs):
        op = getattr(module, "op", None)
        if op is None or op.name == "Embedding":
            raise RuntimeError("no ONNX form (test)")
        return real(module, *args, **kwargs)

    monkeypatch.setattr(torch.onnx, "export", refuse_embedding)
    with pytest.raises(export.UnsupportedOperatorError, match=r"operator 'Embedding' \(node 'embed'\).*no ONNX form"):
        export.convert_checkpoint(os.path.join(CHECKPOINTS, "lstm_lm"), 2, "onnx", str(tmp_path / "m.onnx"),
                                  [("data", (8, 5))])


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_trunc_has_an_onnx_form_in_the_torchscript_exporter(tmp_path):
    """``aten::trunc`` (Embedding truncates float indices) for the TorchScript-based exporter:
    ``sign(x) * floor(|x|)``, rounding toward zero on both sides."""
    converters._register_legacy_symbolics()

    class Trunc(torch.nn.Module):
        def forward(self, x):
            return torch.trunc(x)

    values = np.array([-2.7, -1.0, -0.4, 0.0, 0.4, 1.0, 2.7, 5.999], dtype=np.float32)
    path = str(tmp_path / "trunc.onnx")
    torch.onnx.export(Trunc(), (torch.from_numpy(values),), path, input_names=["x"], dynamo=False, opset_version=18)
    np.testing.assert_array_equal(_run(path, {"x": values})[0], np.trunc(values))


def test_convert_cli_writes_lstm_lm(tmp_path):
    """``mxtorch convert PREFIX EPOCH --to onnx`` on the LSTM language-model checkpoint (one of
    the two files the CLI used to refuse; BN-Inception's export is checked in process above, by
    both exporters); onnxruntime gives MXNet's inference output."""
    output = str(tmp_path / "lstm.onnx")
    io = np.load(os.path.join(CHECKPOINTS, "lstm_lm-io.npz"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(HERE, "..", "src"),
                                                       os.environ.get("PYTHONPATH", "")]))
    shape = "x".join(str(size) for size in io["data"].shape)
    result = subprocess.run([sys.executable, "-m", "mxtorch", "convert", os.path.join(CHECKPOINTS, "lstm_lm"), "2",
                             "--to", "onnx", "-o", output, "--data-shapes", f"data:{shape}"],
                            capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    got = _run(output, {"data": io["data"]})[0]
    np.testing.assert_allclose(got, io["out_infer:0"], rtol=1e-4, atol=1e-5)


def test_bias_free_3d_convolution_exports_in_one_pass(monkeypatch, tmp_path):
    """A 3-D Convolution without bias (R(2+1)D, I3D) gets a 1-D zero bias in the captured graph:
    torch.onnx's own form of the missing bias has shape (O, 1), which onnxruntime refuses, and
    to_onnx used to export a second time with onnxscript's optimizer.  One export; onnxruntime
    gives mxtorch's output."""
    data = mx.sym.Variable("data")
    conv = mx.sym.Convolution(data, kernel=(1, 3, 3), pad=(0, 1, 1), num_filter=4, no_bias=True, name="c")
    net = mx.sym.Activation(mx.sym.BatchNorm(conv, fix_gamma=False, name="bn"), act_type="relu")
    rng = np.random.RandomState(0)
    shape = (1, 3, 2, 5, 5)
    arg_params = {"c_weight": mx.nd.array(rng.uniform(-1, 1, (4, 3, 1, 3, 3))),
                  "bn_gamma": mx.nd.array(rng.uniform(0.5, 1.5, 4)), "bn_beta": mx.nd.array(rng.uniform(-1, 1, 4))}
    aux_params = {"bn_moving_mean": mx.nd.array(rng.uniform(-1, 1, 4)),
                  "bn_moving_var": mx.nd.array(rng.uniform(0.5, 1.5, 4))}
    calls = []
    real = converters._onnx_export
    monkeypatch.setattr(converters, "_onnx_export", lambda *args, **kwargs: calls.append(kwargs) or real(*args, **kwargs))
    path = export.to_onnx(net, arg_params, aux_params, [("data", shape)], str(tmp_path / "c3.onnx"))
    assert len(calls) == 1 and not calls[0].get("optimize")
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    expected = _mxtorch_outputs(net, arg_params, aux_params, {"data": x})[0]
    np.testing.assert_allclose(_run(path, {"data": x})[0], expected, rtol=1e-5, atol=1e-6)
