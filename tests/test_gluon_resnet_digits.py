"""Acceptance: a model-zoo ResNet-18 V1 (classes=10), hybridized, trained with gluon.Trainer on
the bundled digits resized to 28x28 reaches >= 0.95 validation accuracy, and its export gives
the Gluon outputs through mx.mod.Module.load and gluon.SymbolBlock.imports.  (Real MXNet 1.9.1
loading the same files: tools/check_export_mxnet.py, see docs/gluon.md.)"""
import importlib.util
import os

import numpy as np
import pytest

pytestmark = pytest.mark.long

TOOL = os.path.join(os.path.dirname(__file__), os.pardir, "tools", "gluon_resnet_digits.py")


def _tool():
    spec = importlib.util.spec_from_file_location("gluon_resnet_digits", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_resnet18_trains_on_digits_and_exports(tmp_path):
    tool = _tool()
    lines = []
    net, accuracy, x_val = tool.train(epochs=5, batch_size=64, learning_rate=0.05, image_size=28, log=lines.append)
    assert len(lines) == 5
    assert accuracy >= 0.95, lines
    module_error, imports_error = tool.check_exports(net, str(tmp_path / "resnet18"), x_val[:32])
    check = np.load(str(tmp_path / "resnet18-check.npz"))
    assert check["output"].shape == (32, 10)
    # Module.load binds for inference, where BatchNorm is folded into the convolutions
    # (executor/inference.py): equal up to float32 rounding, relative to the outputs' size
    scale = float(np.abs(check["output"]).max())
    assert module_error <= 1e-5 * scale and imports_error <= 1e-5 * scale, (module_error, imports_error, scale)
    assert os.path.isfile(tmp_path / "resnet18-symbol.json") and os.path.isfile(tmp_path / "resnet18-0000.params")
