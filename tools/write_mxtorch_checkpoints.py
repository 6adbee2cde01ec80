"""Write checkpoints with mxtorch for tools/check_mxnet_roundtrip.py to read back in MXNet 1.9.1.

    PYTHONPATH=src python tools/write_mxtorch_checkpoints.py OUTPUT_FOLDER

Into OUTPUT_FOLDER it writes:

* ``resaved/<model>-symbol.json``, ``-<epoch>.params``, ``-<epoch>.states`` for every MXNet-written
  checkpoint in tests/data/checkpoints: loaded with ``Module.load(..., load_optimizer_states=True)``,
  bound, given the optimizer it was trained with, and saved again with
  ``Module.save_checkpoint(..., save_optimizer_states=True)``;
* ``symbol-json/<case>-symbol.json`` for every file of tests/data/symbol-json, loaded with
  ``mx.sym.load`` and saved with ``Symbol.save``;
* ``trained/<model>-symbol.json`` / ``-0003.params`` / ``-0003.states`` for two small networks
  built and trained three steps in mxtorch (an MLP with SGD momentum and a conv net with
  BatchNorm with Adam), with ``trained/<model>-io.npz`` holding a batch and mxtorch's
  inference output on it (the manifest keeps the builder's source, for MXNet to build the
  same network);
* ``manifest.json`` listing what was written and what was skipped (operators mxtorch does
  not implement yet).
"""
import inspect
import json
import os
import pathlib
import sys

import numpy as np

import mxtorch as mx

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHECKPOINTS = ROOT / "tests" / "data" / "checkpoints"
SYMBOL_JSON = ROOT / "tests" / "data" / "symbol-json"


def resave_checkpoints(out, manifest):
    index = json.loads((CHECKPOINTS / "index.json").read_text())
    folder = out / "resaved"
    folder.mkdir(parents=True, exist_ok=True)
    for case in index["cases"]:
        name, epoch = case["name"], case["epoch"]
        io = np.load(CHECKPOINTS / f"{name}-io.npz")
        try:
            module = mx.mod.Module.load(str(CHECKPOINTS / name), epoch, load_optimizer_states=True)
            module.bind(data_shapes=[("data", io["data"].shape)],
                        label_shapes=[("softmax_label", io["softmax_label"].shape)])
            module.init_optimizer(optimizer=case["fit"]["optimizer"],
                                  optimizer_params=case["fit"]["optimizer_params"])
            module.save_checkpoint(str(folder / name), epoch, save_optimizer_states=True)
            manifest["resaved"].append({"name": name, "epoch": epoch, "optimizer": case["fit"]["optimizer"],
                                        "optimizer_params": case["fit"]["optimizer_params"]})
        except mx.MXNetError as error:
            manifest["skipped"].append({"what": f"resaved/{name}", "why": str(error)})


def resave_symbols(out, manifest):
    index = json.loads((SYMBOL_JSON / "index.json").read_text())
    folder = out / "symbol-json"
    folder.mkdir(parents=True, exist_ok=True)
    for case in index["cases"]:
        try:
            symbol = mx.sym.load(str(SYMBOL_JSON / case["file"]))
            symbol.save(str(folder / f"{case['name']}-symbol.json"))
            manifest["symbol_json"].append({"name": case["name"], "source": case["file"]})
        except mx.MXNetError as error:
            manifest["skipped"].append({"what": f"symbol-json/{case['name']}", "why": str(error)})


def mlp():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=16, name="fc1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    net = mx.sym.FullyConnected(net, num_hidden=4, name="fc2", attr={"lr_mult": "0.5"})
    return mx.sym.SoftmaxOutput(net, name="softmax"), (8, 10), 4


def conv_batchnorm():
    data = mx.sym.Variable("data")
    net = mx.sym.Convolution(data, kernel=(3, 3), pad=(1, 1), num_filter=4, name="conv1")
    net = mx.sym.BatchNorm(net, fix_gamma=False, name="bn1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    net = mx.sym.Pooling(net, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool1")
    net = mx.sym.FullyConnected(mx.sym.Flatten(net), num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(net, name="softmax"), (8, 2, 6, 6), 3


TRAINED = {"mlp_sgd": (mlp, "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-4}),
           "conv_bn_adam": (conv_batchnorm, "adam", {"learning_rate": 0.01})}


def train_and_save(out, manifest):
    folder = out / "trained"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.RandomState(3)
    for name, (build, optimizer, optimizer_params) in TRAINED.items():
        mx.random.seed(11)
        symbol, data_shape, classes = build()
        module = mx.mod.Module(symbol)
        module.bind(data_shapes=[("data", data_shape)], label_shapes=[("softmax_label", (data_shape[0],))])
        module.init_params(mx.init.Xavier(magnitude=2))
        module.init_optimizer(optimizer=optimizer, optimizer_params=optimizer_params)
        for _ in range(3):
            batch = mx.io.DataBatch([mx.nd.array(rng.normal(size=data_shape).astype(np.float32))],
                                    [mx.nd.array(rng.randint(0, classes, size=data_shape[:1]).astype(np.float32))])
            module.forward_backward(batch)
            module.update()
        module.save_checkpoint(str(folder / name), 3, save_optimizer_states=True)
        data = rng.normal(size=data_shape).astype(np.float32)
        label = rng.randint(0, classes, size=data_shape[:1]).astype(np.float32)
        module.forward(mx.io.DataBatch([mx.nd.array(data)], [mx.nd.array(label)]), is_train=False)
        np.savez(folder / f"{name}-io.npz", data=data, softmax_label=label,
                 out_infer=module.get_outputs()[0].asnumpy())
        manifest["trained"].append({"name": name, "epoch": 3, "optimizer": optimizer,
                                    "optimizer_params": optimizer_params,
                                    "builder": inspect.getsource(build), "builder_function": build.__name__})


def main(folder):
    out = pathlib.Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    manifest = {"resaved": [], "symbol_json": [], "trained": [], "skipped": []}
    resave_checkpoints(out, manifest)
    resave_symbols(out, manifest)
    train_and_save(out, manifest)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    print(f"wrote {sum(len(v) for k, v in manifest.items() if k != 'skipped')} items to {out}; "
          f"skipped {len(manifest['skipped'])}")
    for skipped in manifest["skipped"]:
        print(f"  skipped {skipped['what']}: {skipped['why']}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main(sys.argv[1])
