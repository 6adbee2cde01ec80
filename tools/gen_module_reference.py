"""Generate Module training references with real MXNet 1.9.1 (run with ~/mxref/bin/python).

For each model: fixed initial parameters, Module.fit for 2 epochs on fixed data with
NDArrayIter(shuffle=False), then the final parameters, aux states, the per-epoch train
metric, score() and predict() outputs.  Writes tests/data/module/<name>.npz.
"""
import logging
import os
import sys

import numpy as np
import mxnet as mx

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "module")


def mlp():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, name="fc1", num_hidden=16)
    net = mx.sym.Activation(net, name="relu1", act_type="relu")
    net = mx.sym.FullyConnected(net, name="fc2", num_hidden=4)
    return mx.sym.SoftmaxOutput(net, name="softmax")


def convbn():
    data = mx.sym.Variable("data")
    net = mx.sym.Convolution(data, name="conv1", kernel=(3, 3), num_filter=4, pad=(1, 1))
    net = mx.sym.BatchNorm(net, name="bn1", fix_gamma=False)
    net = mx.sym.Activation(net, name="relu1", act_type="relu")
    net = mx.sym.Pooling(net, name="pool1", kernel=(2, 2), stride=(2, 2), pool_type="max")
    net = mx.sym.Flatten(net)
    net = mx.sym.FullyConnected(net, name="fc", num_hidden=3)
    return mx.sym.SoftmaxOutput(net, name="softmax")


CONFIGS = {
    "mlp_sgd": (mlp, (40, 6), 4, "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.001}, 8),
    "mlp_adam": (mlp, (40, 6), 4, "adam", {"learning_rate": 0.01}, 8),
    "convbn_sgd": (convbn, (24, 2, 6, 6), 3, "sgd", {"learning_rate": 0.05, "momentum": 0.9}, 8),
    "mlp_pad": (mlp, (37, 6), 4, "sgd", {"learning_rate": 0.1}, 8),
}


def main():
    logging.basicConfig(level=logging.INFO)
    for name, (build, shape, classes, optimizer, params, batch) in CONFIGS.items():
        rng = np.random.RandomState(7)
        x = rng.randn(*shape).astype("float32")
        y = rng.randint(0, classes, size=shape[0]).astype("float32")
        symbol = build()
        arg_shapes, _, aux_shapes = symbol.infer_shape(data=(batch,) + shape[1:])
        init_args = {n: (rng.randn(*s) * 0.3).astype("float32") for n, s in zip(symbol.list_arguments(), arg_shapes)
                     if n not in ("data", "softmax_label")}
        init_aux = {n: (np.ones(s) if n.endswith("var") else np.zeros(s)).astype("float32")
                    for n, s in zip(symbol.list_auxiliary_states(), aux_shapes)}
        train = mx.io.NDArrayIter(x, y, batch_size=batch, shuffle=False, last_batch_handle="pad")
        mod = mx.mod.Module(symbol, context=mx.cpu())
        metric = mx.metric.create("acc")
        history = []
        mod.fit(train, eval_metric=metric, optimizer=optimizer, optimizer_params=params,
                arg_params={k: mx.nd.array(v) for k, v in init_args.items()},
                aux_params={k: mx.nd.array(v) for k, v in init_aux.items()},
                num_epoch=2, epoch_end_callback=lambda e, s, a, x_: history.append(metric.get()[1]))
        final_args, final_aux = mod.get_params()
        score = mod.score(mx.io.NDArrayIter(x, y, batch_size=batch), "acc")[0][1]
        predictions = mod.predict(mx.io.NDArrayIter(x, y, batch_size=batch)).asnumpy()
        arrays = {"x": x, "y": y, "train_acc": np.array(history), "score_acc": np.array(score),
                  "predict": predictions}
        arrays.update({"init_arg:" + k: v for k, v in init_args.items()})
        arrays.update({"init_aux:" + k: v for k, v in init_aux.items()})
        arrays.update({"final_arg:" + k: v.asnumpy() for k, v in final_args.items()})
        arrays.update({"final_aux:" + k: v.asnumpy() for k, v in final_aux.items()})
        arrays["config"] = np.array(repr((optimizer, params, batch)))
        np.savez(os.path.join(OUT, name + ".npz"), **arrays)
        print(name, history, score, file=sys.stderr)


if __name__ == "__main__":
    main()
