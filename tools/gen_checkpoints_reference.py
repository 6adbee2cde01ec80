"""Recomputes the reference batches of tests/data/checkpoints/ with the real MXNet 1.9.1.

    ~/mxref/bin/python tools/gen_checkpoints_reference.py [OUTPUT_FOLDER]   # default tests/data/checkpoints

The checkpoints themselves (``-symbol.json``, ``.params``, ``.states``, from ``Module.fit`` on
seeded data) are the shared MXNet 1.9.1 fixtures, whose training script is not in this
repository.  For each model of index.json this script loads the checkpoint with
``mx.model.load_checkpoint``, binds it with ``simple_bind`` + ``copy_params_from`` for the
recorded batch (``<prefix>-io.npz``: ``data``, ``softmax_label``), and recomputes what the
README lists: ``out_infer:0`` (``forward(is_train=False)``), ``out_train:0``, the gradients of
``backward()`` (``grad_req`` of index.json; the dropout model uses ``-grad-symbol.json``) and
the BatchNorm statistics after it; it also decodes the ``.states`` pickle into
``<prefix>-states-decoded.npz``.  It writes those npz files to OUTPUT_FOLDER and prints the
largest difference from the committed values per model.
"""
import json
import os
import pickle
import sys

import mxnet as mx
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "checkpoints")
OUT = sys.argv[1] if len(sys.argv) > 1 else HERE


def bound(symbol, case, arg_params, aux_params, batch):
    shapes = {name: batch[name].shape for name in case["data_names"] + case["label_names"]}
    executor = symbol.simple_bind(mx.cpu(), grad_req=case["grad_req"], **shapes)
    executor.copy_params_from(arg_params, aux_params)
    for name in shapes:
        executor.arg_dict[name][:] = batch[name]
    return executor


def io_arrays(case):
    prefix = os.path.join(HERE, case["name"])
    symbol, arg_params, aux_params = mx.model.load_checkpoint(prefix, case["epoch"])
    with np.load(os.path.join(HERE, case["files"]["io"])) as stored:
        batch = {k: stored[k] for k in case["data_names"] + case["label_names"]}
    result = dict(batch)
    result["out_infer:0"] = bound(symbol, case, arg_params, aux_params, batch).forward(is_train=False)[0].asnumpy()
    grad_file = case["files"].get("grad_symbol")
    train_symbol = mx.sym.load(os.path.join(HERE, grad_file)) if grad_file else symbol
    executor = bound(train_symbol, case, arg_params, aux_params, batch)
    result["out_train:0"] = executor.forward(is_train=True)[0].asnumpy()
    executor.backward()
    for name, grad in executor.grad_dict.items():
        if grad is not None:
            result["grad:" + name] = grad.asnumpy()
    for name, array in executor.aux_dict.items():
        result["aux_after_backward:" + name] = array.asnumpy()
    return result


def decoded_states(case):
    with open(os.path.join(HERE, case["files"]["states"]), "rb") as stream:
        states = pickle.loads(stream.read())
    states = states[0] if isinstance(states, tuple) else states
    result = {}
    for index, state in states.items():
        if isinstance(state, (tuple, list)):
            for k, part in enumerate(state):
                if part is not None:
                    result[f"state:{index}:{k}"] = part.asnumpy()
        elif state is not None:
            result[f"state:{index}"] = state.asnumpy()
    return result


def largest_difference(path, result):
    worst = 0.0
    with np.load(path) as stored:
        if set(stored.files) != set(result):
            return f"keys differ: {sorted(set(stored.files) ^ set(result))}"
        for key in stored.files:
            a, b = stored[key].astype(np.float64), result[key].astype(np.float64)
            worst = max(worst, float(np.max(np.abs(a - b) / np.maximum(np.abs(a), 1.0), initial=0.0)))
    return worst


def main():
    with open(os.path.join(HERE, "index.json")) as stream:
        index = json.load(stream)
    os.makedirs(OUT, exist_ok=True)
    for case in index["cases"]:
        for kind, compute in (("io", io_arrays), ("states_decoded", decoded_states)):
            result = compute(case)
            name = case["files"][kind]
            print(case["name"], name, "largest relative difference:", largest_difference(os.path.join(HERE, name), result))
            np.savez(os.path.join(OUT, name), **result)


if __name__ == "__main__":
    main()
