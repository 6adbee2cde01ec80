"""Training throughput: mxtorch's Module API against plain PyTorch (and MXNet 1.9.1).

For each model it times the same training step on one fixed random batch:
forward, backward and an SGD update with momentum 0.9, and reports samples
per second after ``--warmup`` untimed steps.

- mxtorch: ``mx.mod.Module`` bound to the model's ``mx.sym`` graph
  (``src/mxtorch/cli_networks.py``), ``mod.forward_backward(batch);
  mod.update()``.
- torch: the same architecture as a ``torch.nn.Module``, cross-entropy
  loss averaged over the batch (what SoftmaxOutput with MXNet's default
  ``rescale_grad = 1 / batch_size`` computes), ``torch.optim.SGD``.
- mxnet: the mxtorch code path run by the real ``import mxnet``, only when
  the running interpreter has MXNet.

Each column appears when its library imports, so the script runs under
mxtorch's environment (mxtorch and torch columns) and under an MXNet 1.9.1
environment without torch (mxnet column):

    python bench/bench_training.py
    python bench/bench_training.py --models lenet --iterations 50 --device cuda
    python bench/bench_training.py --threads 1      # steadier on a busy machine
    /path/to/mxnet-venv/bin/python bench/bench_training.py     # the MXNet column

Models: mlp (784-512-512-10, batch 128), lenet (1x28x28, batch 64) and
resnet20 (pre-activation CIFAR ResNet-20 on 3x32x32, batch 64).
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import time
from pathlib import Path

import numpy as np

NUM_CLASSES = 10
LEARNING_RATE = 0.01
MOMENTUM = 0.9

# name: (batch size, input shape of one sample, default timed iterations)
MODELS = {
    "mlp": (128, (784,), 100),
    "lenet": (64, (1, 28, 28), 20),
    "resnet20": (64, (3, 32, 32), 10),
}


def _optional_import(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _load_cli_networks():
    """mxtorch's network builders; by path when mxtorch is not importable (MXNet's interpreter)."""
    mxtorch_networks = _optional_import("mxtorch.cli_networks")
    if mxtorch_networks is not None:
        return mxtorch_networks
    path = Path(__file__).resolve().parent.parent / "src" / "mxtorch" / "cli_networks.py"
    spec = importlib.util.spec_from_file_location("cli_networks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _time_steps(step, synchronize, warmup, iterations):
    """Seconds for ``iterations`` calls of ``step`` after ``warmup`` untimed ones."""
    for _ in range(warmup):
        step()
    synchronize()
    start = time.perf_counter()
    for _ in range(iterations):
        step()
    synchronize()
    return time.perf_counter() - start


# ---------------------------------------------------------------- Module API (mxtorch or mxnet)

def _module_symbol(mx, networks, model):
    if model == "mlp":
        return networks.mlp(mx, num_classes=NUM_CLASSES, hidden_units=(512, 512))
    if model == "lenet":
        return networks.lenet(mx, num_classes=NUM_CLASSES, image_size=28)
    return networks.resnet(mx, num_classes=NUM_CLASSES, num_layers=20)


def bench_module(mx, networks, model, device, warmup, iterations):
    """Samples per second of Module.forward_backward + update under library ``mx``."""
    batch_size, sample_shape, _ = MODELS[model]
    context = mx.gpu(0) if device == "cuda" else mx.cpu()
    data_shape = (batch_size,) + sample_shape
    mod = mx.mod.Module(_module_symbol(mx, networks, model), context=context)
    mod.bind(data_shapes=[("data", data_shape)], label_shapes=[("softmax_label", (batch_size,))])
    mod.init_params(initializer=mx.init.Xavier(rnd_type="gaussian", factor_type="in", magnitude=2))
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": LEARNING_RATE, "momentum": MOMENTUM})
    generator = np.random.RandomState(0)
    batch = mx.io.DataBatch(
        data=[mx.nd.array(generator.rand(*data_shape).astype(np.float32), ctx=context)],
        label=[mx.nd.array(generator.randint(0, NUM_CLASSES, batch_size).astype(np.float32), ctx=context)])

    def step():
        mod.forward_backward(batch)
        mod.update()

    def synchronize():
        mx.nd.waitall()

    return batch_size * iterations / _time_steps(step, synchronize, warmup, iterations)


# ---------------------------------------------------------------- plain PyTorch

def _torch_model(torch, model):
    nn = torch.nn
    if model == "mlp":
        return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                             nn.Linear(512, NUM_CLASSES))
    if model == "lenet":
        return nn.Sequential(nn.Conv2d(1, 20, 5), nn.Tanh(), nn.MaxPool2d(2, 2),
                             nn.Conv2d(20, 50, 5), nn.Tanh(), nn.MaxPool2d(2, 2), nn.Flatten(),
                             nn.Linear(50 * 4 * 4, 500), nn.Tanh(), nn.Linear(500, NUM_CLASSES))

    def batch_norm(channels):
        # MXNet BatchNorm(eps=2e-5, momentum=0.9) keeps 0.9 of the old statistics; torch's momentum is the new share
        return nn.BatchNorm2d(channels, eps=2e-5, momentum=0.1)

    class PreActivationUnit(nn.Module):
        def __init__(self, in_channels, channels, stride):
            super().__init__()
            self.bn1 = batch_norm(in_channels)
            self.conv1 = nn.Conv2d(in_channels, channels, 3, stride, 1, bias=False)
            self.bn2 = batch_norm(channels)
            self.conv2 = nn.Conv2d(channels, channels, 3, 1, 1, bias=False)
            self.shortcut = (None if stride == 1 and in_channels == channels
                             else nn.Conv2d(in_channels, channels, 1, stride, bias=False))

        def forward(self, x):
            activated = torch.relu(self.bn1(x))
            branch = self.conv2(torch.relu(self.bn2(self.conv1(activated))))
            return branch + (x if self.shortcut is None else self.shortcut(activated))

    layers = [batch_norm(3), nn.Conv2d(3, 16, 3, 1, 1, bias=False)]
    in_channels = 16
    for stage, channels in enumerate((16, 32, 64)):
        for unit in range(3):
            layers.append(PreActivationUnit(in_channels, channels, 2 if stage > 0 and unit == 0 else 1))
            in_channels = channels
    layers += [batch_norm(64), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, NUM_CLASSES)]
    return nn.Sequential(*layers)


def bench_torch(torch, model, device, warmup, iterations):
    """Samples per second of an equivalent nn.Module trained with torch.optim.SGD."""
    batch_size, sample_shape, _ = MODELS[model]
    torch_device = torch.device(device)
    network = _torch_model(torch, model).to(torch_device).train()
    optimizer = torch.optim.SGD(network.parameters(), lr=LEARNING_RATE, momentum=MOMENTUM)
    loss_function = torch.nn.CrossEntropyLoss()
    generator = torch.Generator().manual_seed(0)
    data = torch.rand((batch_size,) + sample_shape, generator=generator).to(torch_device)
    labels = torch.randint(0, NUM_CLASSES, (batch_size,), generator=generator).to(torch_device)

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss_function(network(data), labels).backward()
        optimizer.step()

    def synchronize():
        if torch_device.type == "cuda":
            torch.cuda.synchronize(torch_device)

    return batch_size * iterations / _time_steps(step, synchronize, warmup, iterations)


# ---------------------------------------------------------------- driver

def build_parser():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=str, default=",".join(MODELS),
                        help=f"comma-separated models out of {', '.join(MODELS)} (default all)")
    parser.add_argument("--iterations", type=int, default=None,
                        help="timed training steps per model (default: " +
                             ", ".join(f"{name} {spec[2]}" for name, spec in MODELS.items()) + ")")
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps before timing (default 3)")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu", help="device (default cpu)")
    parser.add_argument("--threads", type=int, default=None,
                        help="CPU threads for torch (torch.set_num_threads; default: torch's choice). "
                             "MXNet reads OMP_NUM_THREADS from the environment instead")
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    models = [name.strip() for name in args.models.split(",") if name.strip()]
    unknown = [name for name in models if name not in MODELS]
    if unknown:
        raise SystemExit(f"bench_training: unknown model(s) {unknown}; choose from {list(MODELS)}")

    columns = {}
    mxtorch = _optional_import("mxtorch")
    torch = _optional_import("torch")
    mxnet = _optional_import("mxnet")
    if mxnet is not None and mxnet is mxtorch:      # install_as_mxnet() was called: not the real MXNet
        mxnet = None
    networks = _load_cli_networks() if (mxtorch or mxnet) else None
    if mxtorch is not None:
        columns["mxtorch"] = lambda model, iterations: bench_module(
            mxtorch, networks, model, args.device, args.warmup, iterations)
    if torch is not None:
        columns["torch"] = lambda model, iterations: bench_torch(
            torch, model, args.device, args.warmup, iterations)
    if mxnet is not None:
        columns["mxnet"] = lambda model, iterations: bench_module(
            mxnet, networks, model, args.device, args.warmup, iterations)
    if not columns:
        raise SystemExit("bench_training: none of mxtorch, torch, mxnet imports")
    if args.threads is not None and torch is not None:
        torch.set_num_threads(args.threads)

    environment = []
    if torch is not None:
        environment.append(f"torch {torch.__version__} ({torch.get_num_threads()} threads)")
    if mxnet is not None:
        environment.append(f"mxnet {mxnet.__version__}")
    print(f"device {args.device}; {'; '.join(environment)}; samples/s, higher is better")
    header = f"{'model':<10} {'batch':>5} " + " ".join(f"{name:>10}" for name in columns)
    show_ratio = "mxtorch" in columns and "torch" in columns
    if show_ratio:
        header += f" {'mxtorch/torch':>14}"
    print(header)
    for model in models:
        iterations = args.iterations or MODELS[model][2]
        speeds = {name: run(model, iterations) for name, run in columns.items()}
        line = f"{model:<10} {MODELS[model][0]:>5} " + " ".join(f"{speeds[name]:>10.1f}" for name in columns)
        if show_ratio:
            line += f" {speeds['mxtorch'] / speeds['torch']:>14.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
