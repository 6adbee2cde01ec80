"""The benchmark programs written against the MXNet 1.x API, run unchanged under MXNet 1.9.1 and mxtorch.

``build(mx, name)`` returns a zero-argument callable that runs one batch of
workload ``name`` (see ``bench_table.py``) with library ``mx``.  Imports
nothing from either library itself: the ``mx`` namespace is passed in.
"""
from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import numpy as np

NUM_CLASSES = 10
LEARNING_RATE = 0.01
MOMENTUM = 0.9


def _networks():
    path = Path(__file__).resolve().parent.parent / "src" / "mxtorch" / "cli_networks.py"
    spec = importlib.util.spec_from_file_location("bench_cli_networks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lstm_language_model(mx, vocabulary=2000, hidden=256, sequence=35):
    """Embedding -> mx.rnn.LSTMCell unrolled over ``sequence`` steps -> FullyConnected -> SoftmaxOutput."""
    data = mx.sym.Variable("data")
    label = mx.sym.Variable("softmax_label")
    embedded = mx.sym.Embedding(data, input_dim=vocabulary, output_dim=hidden, name="embed")
    cell = mx.rnn.LSTMCell(num_hidden=hidden, prefix="lstm_")
    outputs, _ = cell.unroll(sequence, inputs=embedded, layout="NTC", merge_outputs=True)
    outputs = mx.sym.Reshape(outputs, shape=(-1, hidden))
    scores = mx.sym.FullyConnected(outputs, num_hidden=vocabulary, name="decoder")
    return mx.sym.SoftmaxOutput(scores, mx.sym.Reshape(label, shape=(-1,)), name="softmax")


def resnet50_v1(mx, num_classes=1000):
    """ResNet-50 v1 (He et al. 2015; stride in the 3x3 convolution, as torchvision and Gluon's v1b)."""
    def conv_bn(x, filters, kernel, stride, pad, name, relu=True):
        x = mx.sym.Convolution(x, num_filter=filters, kernel=kernel, stride=stride, pad=pad, no_bias=True,
                               name=name + "_conv")
        x = mx.sym.BatchNorm(x, fix_gamma=False, eps=1e-5, momentum=0.9, name=name + "_bn")
        return mx.sym.Activation(x, act_type="relu", name=name + "_relu") if relu else x

    net = conv_bn(mx.sym.Variable("data"), 64, (7, 7), (2, 2), (3, 3), "stem")
    net = mx.sym.Pooling(net, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max", name="stem_pool")
    in_filters = 64
    for stage, (units, width) in enumerate(zip((3, 4, 6, 3), (64, 128, 256, 512)), start=1):
        for unit in range(units):
            stride = (2, 2) if stage > 1 and unit == 0 else (1, 1)
            name = f"stage{stage}_unit{unit + 1}"
            branch = conv_bn(net, width, (1, 1), (1, 1), (0, 0), name + "_a")
            branch = conv_bn(branch, width, (3, 3), stride, (1, 1), name + "_b")
            branch = conv_bn(branch, width * 4, (1, 1), (1, 1), (0, 0), name + "_c", relu=False)
            if unit == 0:
                shortcut = conv_bn(net, width * 4, (1, 1), stride, (0, 0), name + "_down", relu=False)
            else:
                shortcut = net
            net = mx.sym.Activation(branch + shortcut, act_type="relu", name=name + "_out")
            in_filters = width * 4
    net = mx.sym.Pooling(net, global_pool=True, pool_type="avg", kernel=(1, 1), name="pool")
    net = mx.sym.FullyConnected(mx.sym.Flatten(net), num_hidden=num_classes, name="fc")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def tiny_mlp(mx):
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=8, name="fc1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    net = mx.sym.FullyConnected(net, num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(net, name="softmax")


# name: (symbol builder, data shape, label shape, number of classes in the label, training?)
def _spec(mx, name):
    networks = _networks()
    if name in ("mlp", "mlpp"):
        return (networks.mlp(mx, num_classes=NUM_CLASSES, hidden_units=(512, 512)), (128, 784), (128,), 10,
                name == "mlp")
    if name == "lenet":
        return networks.lenet(mx, num_classes=NUM_CLASSES, image_size=28), (64, 1, 28, 28), (64,), 10, True
    if name in ("resnet20", "resnet20p"):
        return (networks.resnet(mx, num_classes=NUM_CLASSES, num_layers=20), (64, 3, 32, 32), (64,), 10,
                name == "resnet20")
    if name == "lstm":
        return lstm_language_model(mx), (32, 35), (32, 35), 2000, True
    if name in ("resnet50p", "resnet50p_int8", "resnet50p_bf16"):
        return resnet50_v1(mx), (8, 3, 224, 224), (8,), 1000, False
    if name == "tiny":
        return tiny_mlp(mx), (4, 5), (4,), 3, True
    raise KeyError(name)


def _quantized(mx, mod, symbol, batch, data_shape):
    """The predict module of ``symbol`` quantized as MXNet's int8 CPU flow does it: fused by
    'MKLDNN_QUANTIZE', ``contrib.quant.quantize_model`` with calib_mode='naive' over the
    (synthetic) batch, fused again; its output is the float one (a dequantize at the end)."""
    args, aux = mod.get_params()

    class Calibration(mx.io.DataIter):
        def __init__(self):
            super().__init__(data_shape[0])
            self.provide_data = [("data", data_shape)]
            self.provide_label = []

        def __iter__(self):
            yield mx.io.DataBatch(batch.data, [])

    body = symbol.get_children()[0]          # the network under its SoftmaxOutput
    qsym, qargs, qaux = mx.contrib.quant.quantize_model(
        sym=body.get_backend_symbol("MKLDNN_QUANTIZE"), arg_params=args, aux_params=aux, ctx=mx.cpu(),
        calib_mode="naive", calib_data=Calibration(), num_calib_examples=data_shape[0], label_names=None,
        quantized_dtype="auto", quantize_mode="full")
    qsym = qsym.get_backend_symbol("MKLDNN_QUANTIZE")
    quantized = mx.mod.Module(qsym, label_names=None, context=mx.cpu())
    quantized.bind(data_shapes=[("data", data_shape)], for_training=False)
    quantized.set_params(qargs, qaux)
    return quantized


def _bfloat16(mx, mod, symbol, data_shape):
    """The predict module of ``symbol`` converted by ``mx.contrib.amp.convert_model`` with
    ``target_dtype='bfloat16'`` (MXNet's bf16 CPU inference: convolutions and fully connected
    layers in bfloat16, the rest in float32)."""
    import importlib
    amp = importlib.import_module(mx.__name__ + ".contrib.amp")     # MXNet does not import it with contrib
    args, aux = mod.get_params()
    bsym, bargs, baux = amp.convert_model(symbol, args, aux, target_dtype="bfloat16")
    converted = mx.mod.Module(bsym, context=mx.cpu())
    converted.bind(data_shapes=[("data", data_shape)], for_training=False)
    converted.set_params(bargs, baux)
    return converted


def build(mx, name, timings=None):
    """One batch of workload ``name`` as a zero-argument callable; ``timings`` (a dict), when given,
    receives ``"bind"``: ``time.perf_counter()`` just before ``Module.bind`` (the start-up rows time
    bind, parameter initialisation and the first batch from there)."""
    symbol, data_shape, label_shape, classes, training = _spec(mx, name)
    context = mx.cpu()
    generator = np.random.RandomState(0)
    if name == "lstm":
        data = generator.randint(0, classes, data_shape).astype(np.float32)
    else:
        data = generator.rand(*data_shape).astype(np.float32)
    label = generator.randint(0, classes, label_shape).astype(np.float32)
    batch = mx.io.DataBatch(data=[mx.nd.array(data, ctx=context)], label=[mx.nd.array(label, ctx=context)])
    mod = mx.mod.Module(symbol, context=context)
    if timings is not None:
        timings["bind"] = time.perf_counter()
    if training:
        mod.bind(data_shapes=[("data", data_shape)], label_shapes=[("softmax_label", label_shape)])
    else:
        mod.bind(data_shapes=[("data", data_shape)], for_training=False)
    mod.init_params(initializer=mx.init.Xavier(rnd_type="gaussian", factor_type="in", magnitude=2))
    if not training:
        # non-trivial BatchNorm statistics, as a trained checkpoint has
        _, aux = mod.get_params()
        for key, value in aux.items():
            fill = generator.uniform(0.5, 1.5, value.shape) if "var" in key else generator.normal(0, 0.1, value.shape)
            aux[key] = mx.nd.array(fill.astype(np.float32))
        mod.set_params(mod.get_params()[0], aux)
        if name.endswith("_int8"):
            mod = _quantized(mx, mod, symbol, batch, data_shape)
        elif name.endswith("_bf16"):
            mod = _bfloat16(mx, mod, symbol, data_shape)

        def predict():
            mod.forward(batch, is_train=False)
            return mod.get_outputs()[0]
        return predict
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": LEARNING_RATE, "momentum": MOMENTUM})
    if name == "tiny":
        metric = mx.metric.create("acc")

        def step():
            mod.forward(batch, is_train=True)
            mod.backward()
            mod.update()
            mod.update_metric(metric, batch.label)
        return step

    def train():
        mod.forward_backward(batch)
        mod.update()
    return train
