"""Writes tests/data/kvstore/*.states with the real MXNet 1.9.1 (run with ~/mxref/bin/python).

A 'local' KVStore with SGD(learning_rate=0.1, momentum=0.9) runs two pushes of
[ones, 2 * ones] (shape (2, 3)) on a weight initialised to ones, for an int key (3)
and for a str key ('w'), and saves its optimizer states.
"""
import os
import sys

import mxnet as mx

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
