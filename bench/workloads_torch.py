"""The benchmark programs hand-written in PyTorch: eager, ``torch.compile``d, or exported to onnxruntime.

``build(column, name)`` returns a zero-argument callable that runs one batch
of workload ``name`` (see ``bench_table.py``); ``column`` is 'torch',
'compile' or 'ort'.  The models are the architectures of
``workloads_mx.py`` (MXNet's BatchNorm eps and momentum; cross-entropy averaged
over the batch, which is what SoftmaxOutput's default gradient scaling gives).
"""
from __future__ import annotations

import io
import os

import numpy as np
import torch
from torch import nn

import bench_training

NUM_CLASSES = 10


class LanguageModel(nn.Module):
    def __init__(self, vocabulary=2000, hidden=256):
        super().__init__()
        self.embed = nn.Embedding(vocabulary, hidden)
        self.lstm = nn.LSTM(hidden, hidden, batch_first=True)
        self.decoder = nn.Linear(hidden, vocabulary)

    def forward(self, tokens):
        outputs, _ = self.lstm(self.embed(tokens))
        return self.decoder(outputs.reshape(-1, outputs.shape[-1]))


class Bottleneck(nn.Module):
    def __init__(self, in_channels, width, stride):
        super().__init__()
        def conv_bn(cin, cout, kernel, s, pad):
            return nn.Sequential(nn.Conv2d(cin, cout, kernel, s, pad, bias=False), nn.BatchNorm2d(cout, eps=1e-5))
        self.a = conv_bn(in_channels, width, 1, 1, 0)
        self.b = conv_bn(width, width, 3, stride, 1)
        self.c = conv_bn(width, width * 4, 1, 1, 0)
        self.down = conv_bn(in_channels, width * 4, 1, stride, 0) if stride != 1 or in_channels != width * 4 \
            else None

    def forward(self, x):
        branch = self.c(torch.relu(self.b(torch.relu(self.a(x)))))
        return torch.relu(branch + (x if self.down is None else self.down(x)))


def resnet50_v1(num_classes=1000):
    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64, eps=1e-5), nn.ReLU(),
              nn.MaxPool2d(3, 2, 1)]
    in_channels = 64
    for stage, (units, width) in enumerate(zip((3, 4, 6, 3), (64, 128, 256, 512)), start=1):
        for unit in range(units):
            layers.append(Bottleneck(in_channels, width, 2 if stage > 1 and unit == 0 else 1))
            in_channels = width * 4
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2048, num_classes)]
    return nn.Sequential(*layers)


def tiny_mlp():
    return nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 3))


def _spec(name):
    """(model, data tensor, label tensor, training?)"""
    generator = torch.Generator().manual_seed(0)
    if name in ("mlp", "mlpp", "lenet", "resnet20", "resnet20p"):
        base = {"mlpp": "mlp", "resnet20p": "resnet20"}.get(name, name)
        batch, sample, _ = bench_training.MODELS[base]
        model = bench_training._torch_model(torch, base)
        data = torch.rand((batch,) + sample, generator=generator)
        return model, data, torch.randint(0, NUM_CLASSES, (batch,), generator=generator), base == name
    if name == "lstm":
        return (LanguageModel(), torch.randint(0, 2000, (32, 35), generator=generator),
                torch.randint(0, 2000, (32 * 35,), generator=generator), True)
    if name == "resnet50p":
        return resnet50_v1(), torch.rand((8, 3, 224, 224), generator=generator), None, False
    if name == "tiny":
        return tiny_mlp(), torch.rand((4, 5), generator=generator), torch.randint(0, 3, (4,), generator=generator), True
    raise KeyError(name)


def _randomise_batch_norm(model):
    generator = torch.Generator().manual_seed(1)
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.running_mean.normal_(0, 0.1, generator=generator)
            module.running_var.uniform_(0.5, 1.5, generator=generator)


def _onnx_session(model, data):
    import onnxruntime
    buffer = io.BytesIO()
    try:
        torch.onnx.export(model, (data,), buffer, input_names=["data"], output_names=["out"], dynamo=False)
    except TypeError:
        torch.onnx.export(model, (data,), buffer, input_names=["data"], output_names=["out"])
    options = onnxruntime.SessionOptions()
    if os.environ.get("OMP_NUM_THREADS"):
        options.intra_op_num_threads = int(os.environ["OMP_NUM_THREADS"])
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = onnxruntime.InferenceSession(buffer.getvalue(), options, providers=["CPUExecutionProvider"])
    feed = {"data": data.numpy()}
    return lambda: session.run(None, feed)


def build(column, name):
    if name.endswith(("_int8", "_bf16")):
        return None     # the int8 / bf16 rows are MXNet's quantization / AMP flows: mxnet and mxtorch only
    model, data, labels, training = _spec(name)
    if not training:
        model.eval()
        _randomise_batch_norm(model)
        if column == "ort":
            with torch.no_grad():
                return _onnx_session(model, data)
        if column == "compile":
            model = torch.compile(model)

        def predict():
            with torch.inference_mode():
                return model(data)
        return predict
    if column == "ort":
        return None
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_function = nn.CrossEntropyLoss()
    forward = torch.compile(model) if column == "compile" else model
    if name == "tiny":
        correct = torch.zeros((), dtype=torch.int64)

        def step():
            optimizer.zero_grad(set_to_none=True)
            scores = forward(data)
            loss_function(scores, labels).backward()
            optimizer.step()
            correct.add_((scores.detach().argmax(1) == labels).sum())
        return step

    def train():
        optimizer.zero_grad(set_to_none=True)
        loss_function(forward(data), labels).backward()
        optimizer.step()
    return train
