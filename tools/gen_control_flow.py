"""Reference graphs and values for tests/test_control_flow.py, from MXNet 1.9.1: the symbol JSON
of a foreach, a while_loop and a cond graph, their forward outputs and argument gradients for
fixed inputs and head gradients, and the same computations done imperatively under autograd.

Run with ~/mxref/bin/python tools/gen_control_flow.py; writes tests/data/control_flow/*.json.
"""
import json
import os

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "control_flow")


def graphs():
    x, s, w = mx.sym.var("x"), mx.sym.var("s"), mx.sym.var("w")
    out, states = mx.sym.contrib.foreach(lambda d, st: (d * w + st[0], [st[0] + d]), x, [s])
    foreach = mx.sym.Group([out] + states)
    i, acc = mx.sym.var("i"), mx.sym.var("acc")
    outs, finals = mx.sym.contrib.while_loop(
        cond=lambda i, acc: i < 3, func=lambda i, acc: (acc * w, [i + 1, acc + w]),
        loop_vars=[i, acc], max_iterations=5)
    while_loop = mx.sym.Group([outs[0]] + finals)
    a, b = mx.sym.var("a"), mx.sym.var("b")
    cond = mx.sym.contrib.cond(a.sum() < 1, lambda: a * b, lambda: a - b)
    return {"foreach": foreach, "while_loop": while_loop, "cond": cond}


def inputs():
    rng = np.random.RandomState(11)
    u = lambda *shape: rng.uniform(-1, 1, size=shape).astype(np.float32)
    return {
        "foreach": {"x": u(4, 3), "s": u(3), "w": u(3)},
        "while_loop": {"i": np.array([0], np.float32), "acc": u(2), "w": u(2)},
        "cond": {"a": u(2, 2), "b": u(2, 2)},
    }


def main():
    rng = np.random.RandomState(5)
    for key, symbol in graphs().items():
        args = inputs()[key]
        grads = {n: mx.nd.zeros(v.shape) for n, v in args.items() if n != "i"}
        exe = symbol.bind(mx.cpu(), {n: mx.nd.array(v) for n, v in args.items()}, args_grad=grads)
        outputs = [o.asnumpy() for o in exe.forward(is_train=True)]
        heads = [rng.uniform(-1, 1, size=o.shape).astype(np.float32) for o in outputs]
        exe.backward([mx.nd.array(h) for h in heads])
        record = {
            "json": symbol.tojson(),
            "inputs": {n: v.tolist() for n, v in args.items()},
            "head_grads": [h.tolist() for h in heads],
            "outputs": [o.tolist() for o in outputs],
            "grads": {n: g.asnumpy().tolist() for n, g in grads.items()},
        }
        with open(os.path.join(OUT, key + ".json"), "w") as fh:
            json.dump(record, fh, indent=1)
    # the imperative forms under autograd
    args = inputs()
    x, s, w = (mx.nd.array(args["foreach"][n]) for n in ("x", "s", "w"))
    for v in (x, s, w):
        v.attach_grad()
    with mx.autograd.record():
        out, states = mx.nd.contrib.foreach(lambda d, st: (d * w + st[0], [st[0] + d]), x, [s])
        loss = (out * out).sum() + (states[0] * 3).sum()
    loss.backward()
    i = mx.nd.array([0])
    acc = mx.nd.array(args["while_loop"]["acc"])
    w2 = mx.nd.array(args["while_loop"]["w"])
    acc.attach_grad()
    w2.attach_grad()
    with mx.autograd.record():
        outs, finals = mx.nd.contrib.while_loop(
            cond=lambda i, acc: i < 3, func=lambda i, acc: (acc * w2, [i + 1, acc + w2]),
            loop_vars=[i, acc], max_iterations=5)
        loss2 = (outs[:3] * 2).sum() + (finals[1] * finals[1]).sum()
    loss2.backward()
    record = {"foreach": {"out": out.asnumpy().tolist(), "state": states[0].asnumpy().tolist(),
                          "grads": {"x": x.grad.asnumpy().tolist(), "s": s.grad.asnumpy().tolist(),
                                    "w": w.grad.asnumpy().tolist()}},
              "while_loop": {"outs": outs[:3].asnumpy().tolist(), "i": finals[0].asnumpy().tolist(),
                             "acc": finals[1].asnumpy().tolist(),
                             "grads": {"acc": acc.grad.asnumpy().tolist(), "w": w2.grad.asnumpy().tolist()}}}
    with open(os.path.join(OUT, "imperative.json"), "w") as fh:
        json.dump(record, fh, indent=1)


if __name__ == "__main__":
    main()
