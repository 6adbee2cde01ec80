"""A legacy MXNet 1.x training script, as written for NumPy 1.x and a GPU machine.

It is run unchanged by tests/test_cli_run.py through ``mxtorch run``: it hard-codes
``mx.gpu(0)``, uses ``np.float`` and the binary mode of ``np.fromstring``, and reads
its options from ``sys.argv``.  It prints ``final accuracy=<value>`` and exits with
status 3 when the accuracy is below ``--min-acc``.
"""
import argparse
import logging
import sys

import mxnet as mx
import numpy as np

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=8)
parser.add_argument("--min-acc", type=float, default=0.9)
args = parser.parse_args()
logging.basicConfig(level=logging.INFO)

rng = np.random.RandomState(0)
centers = rng.randn(3, 10) * 3
labels = rng.randint(0, 3, size=600)
raw = (centers[labels] + rng.randn(600, 10)).astype(np.float32).tobytes()
data = np.fromstring(raw, dtype=np.float32).reshape(600, 10)   # removed in NumPy 2: binary mode
labels = labels.astype(np.float)                                # removed in NumPy 1.24

train = mx.io.NDArrayIter(data[:500], labels[:500], batch_size=50, shuffle=True)
val = mx.io.NDArrayIter(data[500:], labels[500:], batch_size=50)

net = mx.sym.Variable("data")
net = mx.sym.FullyConnected(net, num_hidden=16, name="fc1")
net = mx.sym.Activation(net, act_type="relu")
net = mx.sym.FullyConnected(net, num_hidden=3, name="fc2")
net = mx.sym.SoftmaxOutput(net, name="softmax")

mx.random.seed(0)
mod = mx.mod.Module(net, context=mx.gpu(0))
mod.fit(train, eval_data=val, num_epoch=args.epochs, optimizer="sgd",
        optimizer_params={"learning_rate": 0.1}, initializer=mx.init.Xavier())
accuracy = dict(mod.score(val, "acc"))["accuracy"]
print("script argv=%s name=%s" % (sys.argv[1:], __name__))
print("final accuracy=%f" % accuracy)
if accuracy < args.min_acc:
    sys.exit(3)
