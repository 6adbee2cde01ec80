"""Reference values for tests/test_optimizer_lazy_update.py: one or two steps of SGD (with and
without momentum), Adam and Ftrl on a row_sparse gradient whose rows 1 and 3 are not stored,
with lazy_update True and False, from MXNet 1.9.1.

Run with ~/mxref/bin/python tools/gen_lazy_update.py; writes
tests/data/lazy_update/steps.json.
"""
import json
import os

import numpy as np
import mxnet as mx

CASES = {
    "sgd": ("sgd", {"learning_rate": 0.1, "wd": 0.05}),
    "sgd_momentum": ("sgd", {"learning_rate": 0.1, "wd": 0.05, "momentum": 0.9}),
    "sgd_momentum_clip": ("sgd", {"learning_rate": 0.1, "wd": 0.05, "momentum": 0.9, "clip_gradient": 0.3}),
    "adam": ("adam", {"learning_rate": 0.01, "wd": 0.05}),
    "ftrl": ("ftrl", {"learning_rate": 0.1, "wd": 0.05, "lamda1": 0.01}),
}


def main():
    rng = np.random.RandomState(3)
    weight = rng.uniform(-1, 1, size=(5, 3)).astype(np.float32)
    grads = [rng.uniform(-1, 1, size=(5, 3)).astype(np.float32) for _ in range(2)]
    for g in grads:
        g[[1, 3]] = 0
    out = {"weight": weight.tolist(), "grads": [g.tolist() for g in grads], "cases": {}}
    for key, (name, kwargs) in CASES.items():
        for lazy in (True, False):
            if name == "ftrl" and not lazy:
                continue
            for w_stype in ("default", "row_sparse"):
                extra = {} if name == "ftrl" else {"lazy_update": lazy}
                opt = mx.optimizer.create(name, **kwargs, **extra)
                w = mx.nd.array(weight).tostype(w_stype)
                state = opt.create_state(0, w)
                for g in grads:
                    opt.update(0, w, mx.nd.array(g).tostype("row_sparse"), state)
                out["cases"][f"{key}/{'lazy' if lazy else 'std'}/{w_stype}"] = {
                    "optimizer": name, "kwargs": dict(kwargs, **extra),
                    "weight": w.asnumpy().tolist()}
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "tests", "data", "lazy_update", "steps.json"), "w") as fh:
        json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
