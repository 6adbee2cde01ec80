"""Write tests/data/logs/mxnet-1.9.1-fit.log: a training log written by the real MXNet 1.9.1.

Run with the reference interpreter (mxnet 1.9.1, numpy < 1.24):

    /root/mxref/bin/python tools/make_mxnet_training_log.py [OUT]

It trains a small MLP with ``Module.fit`` on seeded synthetic 3-class data for 8 epochs,
with a Speedometer every 5 batches and two metrics (accuracy, cross-entropy), logging in
the format of MXNet's ``example/image-classification/common/fit.py``
(``%(asctime)-15s Node[0] %(message)s``).  ``mxtorch plot-log`` reads the file in
tests/test_plot_log.py.
"""
import logging
import os
import sys

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "tests", "data", "logs", "mxnet-1.9.1-fit.log")


def main():
    os.makedirs(os.path.dirname(os.path.abspath(OUT)), exist_ok=True)
    handler = logging.FileHandler(OUT, mode="w")
    handler.setFormatter(logging.Formatter("%(asctime)-15s Node[0] %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)

    rng = np.random.RandomState(0)
    centers = rng.randn(3, 20)
    labels = rng.randint(0, 3, size=1200)
    data = (centers[labels] + 3.0 * rng.randn(1200, 20)).astype(np.float32)
    train = mx.io.NDArrayIter(data[:1000], labels[:1000].astype(np.float32), batch_size=50, shuffle=True)
    val = mx.io.NDArrayIter(data[1000:], labels[1000:].astype(np.float32), batch_size=50)

    net = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(net, num_hidden=32, name="fc1")
    net = mx.sym.Activation(net, act_type="relu")
    net = mx.sym.FullyConnected(net, num_hidden=3, name="fc2")
    net = mx.sym.SoftmaxOutput(net, name="softmax")

    mx.random.seed(0)
    np.random.seed(0)
    mod = mx.mod.Module(net, context=mx.cpu())
    mod.fit(train, eval_data=val, num_epoch=8, eval_metric=["acc", "ce"],
            optimizer="sgd", optimizer_params={"learning_rate": 0.005, "momentum": 0.9},
            initializer=mx.init.Xavier(), batch_end_callback=mx.callback.Speedometer(50, 5))
    handler.close()


if __name__ == "__main__":
    main()
