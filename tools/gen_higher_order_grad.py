"""Reference values for tests/test_higher_order_grad.py: first, second and third derivatives
through mx.autograd.grad(create_graph=True) with random head gradients, from MXNet 1.9.1.

Run with ~/mxref/bin/python tools/gen_higher_order_grad.py; writes
tests/data/higher_order/unary.json.
"""
import json
import os

import numpy as np
import mxnet as mx
from mxnet import autograd, nd

OPS = {
    "sin": lambda x: nd.sin(x),
    "cos": lambda x: nd.cos(x),
    "log": lambda x: nd.log(x),
    "sigmoid": lambda x: nd.sigmoid(x),
    "tanh": lambda x: nd.tanh(x),
    "relu": lambda x: nd.relu(x),
    "radians": lambda x: nd.radians(x),
    "abs": lambda x: nd.abs(x),
    "clip": lambda x: nd.clip(x, -0.5, 0.5),
    "reciprocal": lambda x: nd.reciprocal(x),
    "square": lambda x: nd.square(x),
}


def main():
    rng = np.random.RandomState(7)
    x0 = rng.uniform(0.2, 1.5, size=(2, 3)).astype(np.float32) * rng.choice([-1, 1], size=(2, 3))
    heads = [rng.normal(size=(2, 3)).astype(np.float32) for _ in range(3)]
    out = {"x": x0.tolist(), "head_grads": [h.tolist() for h in heads], "grads": {}}
    for name, op in OPS.items():
        xin = np.abs(x0) if name == "log" else x0
        x = nd.array(xin)
        x.attach_grad()
        grads = []
        with autograd.record():
            y = op(x)
            for h in heads:
                y = autograd.grad(y, x, head_grads=nd.array(h), create_graph=True, retain_graph=True)[0]
                grads.append(y.asnumpy().tolist())
        out["grads"][name] = grads
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "tests", "data", "higher_order", "unary.json")
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
