"""Write tests/data/gradients/cast_chains.json with MXNet 1.9.1: forward values and the data
gradient of chains of Cast (float -> int -> float, float -> float16 -> float, ...), bound with
the Symbol API and recorded with mx.autograd.

Run with the reference interpreter: /root/mxref/bin/python tools/gen_gradient_rules.py
"""
import json
import os

import mxnet as mx
import numpy as np

DATA = np.array([[1.7, -2.3, 0.5], [3.9, -0.2, 100.25]], dtype=np.float32)
HEAD = np.array([[0.7, 1.6, -2.5], [3.2, -0.4, 1.0001]], dtype=np.float32)
CHAINS = [["int32", "float32"], ["float16", "float32"], ["int32"], ["float16"], ["uint8", "float32"],
          ["int64", "float16", "float32"], ["float64", "int32", "float32"]]


def main():
    cases = []
    for chain in CHAINS:
        net = mx.sym.var("x")
        for dtype in chain:
            net = mx.sym.Cast(net, dtype=dtype)
        executor = net.bind(mx.cpu(), {"x": mx.nd.array(DATA)}, args_grad={"x": mx.nd.zeros(DATA.shape)})
        output = executor.forward(is_train=True)[0]
        executor.backward(mx.nd.array(HEAD, dtype=output.dtype))
        x = mx.nd.array(DATA)
        x.attach_grad()
        with mx.autograd.record():
            y = x
            for dtype in chain:
                y = mx.nd.Cast(y, dtype=dtype)
        y.backward(mx.nd.array(HEAD, dtype=y.dtype))
        cases.append({"chain": chain, "output": output.asnumpy().astype(np.float64).tolist(),
                      "output_dtype": str(output.dtype.__name__ if hasattr(output.dtype, "__name__") else output.dtype),
                      "gradient": executor.grad_dict["x"].asnumpy().tolist(),
                      "autograd_gradient": x.grad.asnumpy().tolist()})
    target = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "gradients", "cast_chains.json")
    with open(target, "w") as handle:
        json.dump({"mxnet": mx.__version__, "data": DATA.tolist(), "head": HEAD.tolist(), "cases": cases}, handle)


if __name__ == "__main__":
    main()
