"""Writes tests/data/kvstore/ with the real MXNet 1.9.1 (run with ~/mxref/bin/python).

- ``*.states``: a 'local' KVStore with SGD(learning_rate=0.1, momentum=0.9) runs two pushes of
  [ones, 2 * ones] (shape (2, 3)) on a weight initialised to ones, for an int key (3)
  and for a str key ('w'), and saves its optimizer states.
- ``compression_2bit.npz``: a 'device' KVStore with 2-bit gradient compression (threshold
  0.3) gets four pushes of two per-device gradients (uniform in [-1, 1), seed 0, shape (3, 5))
  for key 7; ``grads`` (steps, devices, 3, 5) and ``pulled`` (steps, 3, 5), the value pulled
  after each push.
"""
import os
import sys

import mxnet as mx
import numpy as np

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "data", "kvstore")
os.makedirs(out, exist_ok=True)
for key, fname in ((3, "sgd_momentum_int_key.states"), ("w", "sgd_momentum_str_key.states")):
    kv = mx.kv.create("local")
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    kv.init(key, mx.nd.ones((2, 3)))
    for _ in range(2):
        kv.push(key, [mx.nd.ones((2, 3)), mx.nd.ones((2, 3)) * 2])
    weight = mx.nd.zeros((2, 3))
    kv.pull(key, out=weight)
    print(key, weight.asnumpy()[0])
    kv.save_optimizer_states(os.path.join(out, fname))

kv = mx.kv.create("device")
kv.set_gradient_compression({"type": "2bit", "threshold": 0.3})
kv.init(7, mx.nd.zeros((3, 5)))
grads = np.random.RandomState(0).uniform(-1, 1, (4, 2, 3, 5)).astype(np.float32)
pulled = []
for step in grads:
    kv.push(7, [mx.nd.array(g, ctx=mx.cpu(i)) for i, g in enumerate(step)])
    value = mx.nd.zeros((3, 5))
    kv.pull(7, out=value)
    pulled.append(value.asnumpy())
np.savez(os.path.join(out, "compression_2bit.npz"), grads=grads, pulled=np.array(pulled), threshold=0.3)
