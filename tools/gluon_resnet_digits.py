"""Train a Gluon model-zoo ResNet-18 V1 (classes=10, hybridized) on the bundled handwritten
digits (resized to 28x28), export it, and check the export against the Gluon network through mx.mod.Module.load
and gluon.SymbolBlock.imports.  Run with mxtorch's venv:

    .venv/bin/python tools/gluon_resnet_digits.py --prefix runs/resnet18-digits [--epochs 4]

Prints one line per epoch (training and validation accuracy), writes PREFIX-symbol.json,
PREFIX-0000.params and PREFIX-check.npz (validation inputs and the Gluon outputs), and exits
non-zero when the validation accuracy is below --min-accuracy or an export disagrees by more
than 1e-5.  tools/check_export_mxnet.py then compares the files with real MXNet 1.9.1.
"""
import argparse
import os
import sys
import time

import numpy as np

import mxtorch as mx
from mxtorch import autograd, gluon
from mxtorch.datasets import load_digits
from mxtorch.gluon.data import ArrayDataset, DataLoader
from mxtorch.gluon.model_zoo import vision


def train(epochs, batch_size, learning_rate, image_size, seed=0, log=print, decay_epochs=2):
    """The trained, hybridized network and its validation accuracy; digits resized to
    ``image_size`` (8 keeps them as stored, 28 is ``load_digits``' bilinear resize).  The
    learning rate drops tenfold for the last ``decay_epochs`` epochs, which settles the weights
    and BatchNorm's moving statistics."""
    mx.random.seed(seed)
    np.random.seed(seed)
    x_train, y_train = load_digits("train", image_size=image_size)
    x_val, y_val = load_digits("val", image_size=image_size)
    net = vision.get_model("resnet18_v1", classes=10)
    net.initialize(mx.init.Xavier())
    net.hybridize()
    trainer = _trainer(net, learning_rate, batch_size)
    loader = DataLoader(ArrayDataset(x_train, y_train), batch_size=batch_size, shuffle=True, last_batch="discard")
    accuracy = 0.0
    start = time.time()
    for epoch in range(epochs):
        if epoch == epochs - decay_epochs:
            trainer.set_learning_rate(learning_rate / 10)
        correct = seen = 0
        for data, label in loader:
            with autograd.record():
                output = net(data)
                loss = -mx.nd.pick(mx.nd.log_softmax(output), label).sum()
            loss.backward()
            trainer.step(batch_size)
            correct += int((output.argmax(axis=1).asnumpy() == label.asnumpy()).sum())
            seen += len(label)
        predictions = net(mx.nd.array(x_val)).argmax(axis=1).asnumpy()
        accuracy = float((predictions == y_val).mean())
        log(f"Epoch[{epoch}] train-accuracy={correct / seen:.4f} validation-accuracy={accuracy:.4f} "
            f"time={time.time() - start:.1f}s")
    return net, accuracy, x_val


def _trainer(net, learning_rate, batch_size):
    """SGD with momentum 0.9 and weight decay 1e-4 through ``gluon.Trainer``."""
    return gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": learning_rate, "momentum": 0.9, "wd": 1e-4})


def check_exports(net, prefix, inputs):
    """Export ``net`` to ``prefix`` and return the largest absolute difference of the Gluon
    outputs from Module.load's and SymbolBlock.imports' outputs on ``inputs``."""
    net.export(prefix, epoch=0)
    expected = net(mx.nd.array(inputs)).asnumpy()
    module = mx.mod.Module.load(prefix, 0, data_names=("data",), label_names=None)
    module.bind(data_shapes=[("data", inputs.shape)], for_training=False)
    module.forward(mx.io.DataBatch([mx.nd.array(inputs)]), is_train=False)
    from_module = module.get_outputs()[0].asnumpy()
    imported = gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
    from_imports = imported(mx.nd.array(inputs)).asnumpy()
    np.savez(prefix + "-check.npz", data=inputs, output=expected)
    return float(np.abs(from_module - expected).max()), float(np.abs(from_imports - expected).max())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", default="runs/resnet18-digits")
    parser.add_argument("--epochs", type=int, default=7)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--image-size", type=int, default=28, choices=(8, 28))
    parser.add_argument("--min-accuracy", type=float, default=0.95)
    args = parser.parse_args()
    net, accuracy, x_val = train(args.epochs, args.batch_size, args.lr, args.image_size)
    os.makedirs(os.path.dirname(os.path.abspath(args.prefix)), exist_ok=True)
    module_error, imports_error = check_exports(net, args.prefix, x_val[:64])
    print(f"Validation-accuracy={accuracy:.4f}")
    print(f"export: Module.load max |diff| = {module_error:.3g}, SymbolBlock.imports max |diff| = {imports_error:.3g}")
    ok = accuracy >= args.min_accuracy and module_error <= 1e-5 and imports_error <= 1e-5
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
