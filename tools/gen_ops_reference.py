"""Recomputes tests/data/ops/ (the single-operator fixtures) with the real MXNet 1.9.1.

    ~/mxref/bin/python tools/gen_ops_reference.py [OUTPUT_FOLDER] [--only NAME ...]
    # default OUTPUT_FOLDER: tests/data/ops

The cases come from the shared MXNet 1.9.1 fixtures (tests/data/ops/index.json and each
case's ``<case>-symbol.json`` and input arrays, ``arg:*``, ``aux:*``, ``head_grad:*``; their
original generator is not in this repository).  For every case this script loads the symbol,
repeats ``infer_shape(**given)`` and, where the case has arrays, the procedure the README
describes: ``simple_bind`` with the case's dtypes and grad_req, the inputs copied in,
``forward(is_train=False)``, aux reset, ``forward(is_train=True)`` (when recorded), then
``backward`` with the head gradients (none for loss heads).  It writes ``index.json`` and one
npz per case (inputs as recorded, outputs recomputed) into OUTPUT_FOLDER and reports, per
case, the largest difference from the committed outputs.  Cases recorded with
``MXNET_MKLDNN_ENABLED=0`` are rerun in a child process with that setting.  To add a case,
add its entry, symbol file and inputs, and rerun: the outputs are then MXNet's.
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "ops")
INPUT_PREFIXES = ("arg:", "aux:", "head_grad:", "unpacked:")


def recompute(mx, case):
    """``(infer_shape result, {npz key: array})`` for ``case`` under MXNet."""
    symbol = mx.sym.load(os.path.join(HERE, case["symbol_file"]))
    given = {k: tuple(v) for k, v in case["infer_shape"]["given"].items()}
    try:
        arg_shapes, out_shapes, aux_shapes = symbol.infer_shape(**given)
        inferred = {"arg_shapes": dict(zip(symbol.list_arguments(), map(list, arg_shapes or []))),
                    "out_shapes": [list(s) for s in out_shapes or []],
                    "aux_shapes": dict(zip(symbol.list_auxiliary_states(), map(list, aux_shapes or [])))}
    except mx.base.MXNetError:
        inferred = {"error": True}
    if not case.get("file"):
        return inferred, None
    with np.load(os.path.join(HERE, case["file"])) as stored:
        arrays = {k: stored[k] for k in stored.files if k.startswith(INPUT_PREFIXES)}
    shapes = {name: arrays["arg:" + name].shape for name in case["arguments"] if "arg:" + name in arrays}
    types = {name: np.dtype(dtype) for name, dtype in case["input_dtypes"].items()}
    executor = symbol.simple_bind(mx.cpu(), grad_req=case.get("grad_req", "write"), type_dict=types, **shapes)
    for name in case["arguments"]:
        executor.arg_dict[name][:] = arrays["arg:" + name]

    def reset_aux():
        for name in case["auxiliary_states"]:
            executor.aux_dict[name][:] = arrays["aux:" + name]
    reset_aux()
    result = dict(arrays)
    for index, output in enumerate(executor.forward(is_train=False)):
        result[f"out_infer:{index}"] = output.asnumpy()
    if case.get("train_recorded", True):
        reset_aux()
        for index, output in enumerate(executor.forward(is_train=True)):
            result[f"out_train:{index}"] = output.asnumpy()
        for name in case["auxiliary_states"]:
            result["aux_after_train:" + name] = executor.aux_dict[name].asnumpy()
        if case.get("head_grads") is not None or case.get("is_loss"):
            heads = [mx.nd.array(arrays[k], dtype=arrays[k].dtype) for k in case.get("head_grads") or []]
            executor.backward(out_grads=heads or None)
            for name, grad in executor.grad_dict.items():
                if grad is not None:
                    result["grad:" + name] = grad.asnumpy()
            for name in case["auxiliary_states"]:
                result["aux_after_backward:" + name] = executor.aux_dict[name].asnumpy()
    return inferred, {k: v for k, v in result.items() if k in set(case["arrays"])}


def largest_difference(case, result):
    worst = 0.0
    with np.load(os.path.join(HERE, case["file"])) as stored:
        for key in case["arrays"]:
            if key not in result:
                return float("inf")
            a, b = stored[key].astype(np.float64), result[key].astype(np.float64)
            if a.shape != b.shape:
                return float("inf")
            scale = np.maximum(np.abs(a), 1.0)
            both_nan = np.isnan(a) & np.isnan(b)
            worst = max(worst, float(np.max(np.where(both_nan, 0.0, np.abs(a - b) / scale), initial=0.0)))
    return worst


def main(argv):
    only = argv[argv.index("--only") + 1:] if "--only" in argv else None
    positional = argv[:argv.index("--only")] if "--only" in argv else argv
    out = positional[0] if positional else HERE
    with open(os.path.join(HERE, "index.json")) as stream:
        index = json.load(stream)
    cases = [c for c in index["cases"] if only is None or c["name"] in only]
    os.makedirs(out, exist_ok=True)
    children = [c["name"] for c in cases if c.get("mkldnn") is False]
    if children and os.environ.get("MXNET_MKLDNN_ENABLED") != "0":
        environment = dict(os.environ, MXNET_MKLDNN_ENABLED="0")
        subprocess.run([sys.executable, os.path.abspath(__file__), out, "--only"] + children, check=True,
                       env=environment)
    import mxnet as mx
    report = []
    for case in cases:
        if case["name"] in children and os.environ.get("MXNET_MKLDNN_ENABLED") != "0":
            continue        # written by the child process
        inferred, result = recompute(mx, case)
        if os.path.realpath(out) != os.path.realpath(HERE):
            shutil.copy(os.path.join(HERE, case["symbol_file"]), out)
        if result is not None:
            np.savez(os.path.join(out, case["file"]), **result)
            report.append((case["name"], largest_difference(case, result)))
        expected = case["infer_shape"]
        if expected.get("error") != inferred.get("error", False) or (not expected.get("error") and any(
                expected.get(k) != inferred.get(k) for k in ("arg_shapes", "out_shapes", "aux_shapes"))):
            report.append((case["name"] + " infer_shape", float("inf")))
    if only is None:
        with open(os.path.join(out, "index.json"), "w") as stream:
            json.dump(index, stream, indent=1)
    for name, worst in report:
        if worst > 0:
            print(f"{name}: largest relative difference from the committed data {worst:.3g}")
    print(f"{len(report)} cases recomputed; {sum(1 for _, w in report if w == 0)} identical")


if __name__ == "__main__":
    main(sys.argv[1:])
