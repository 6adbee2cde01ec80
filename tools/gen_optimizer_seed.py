"""Reruns the shared MXNet 1.9.1 optimizer cases of tests/data/optimizer/ (run with ~/mxref/bin/python).

    ~/mxref/bin/python tools/gen_optimizer_seed.py [OUTPUT_FOLDER]   # default tests/data/optimizer

``index.json`` and the ``<case>.npz`` files are the shared MXNet 1.9.1 optimizer fixtures,
whose original generator is not in this repository.  This script repeats what they record
from their recorded inputs (``weight0`` and the gradients ``grad:1`` .. ``grad:<steps>``):

- each case: ``mx.optimizer.create(optimizer, lr_scheduler=..., **kwargs)`` (the scheduler
  built from the case's ``lr_scheduler`` entry), ``mx.optimizer.get_updater``, then ``steps``
  calls ``updater(index, grad, weight)`` on a float32 weight; it records the weight after each
  step (``weight:<k>``), ``optimizer.learning_rate`` after each step, and the final state
  (``final_state`` for one NDArray, ``final_state:<i>`` for a tuple, None entries skipped);
- each scheduler curve: ``mx.lr_scheduler.<cls>(**kwargs)`` called at every ``num_update``.

An ``.npz`` file, or ``index.json``, is rewritten only when its content differs from the
recomputed one (values compared exactly; ``np.savez`` stamps the time into the zip), and the
script prints per case whether the committed values were reproduced; exit status 1 when any
differed.  ``tools/gen_optimizer_reference.py`` writes the other files of the folder.
"""
import json
import os
import sys

import numpy as np
import mxnet as mx

from seed_files import same_arrays, write_json_if_changed, write_npz_if_changed

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                         "tests", "data", "optimizer")
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "optimizer")


def _scheduler(spec):
    if spec is None:
        return None
    return getattr(mx.lr_scheduler, spec["cls"])(**spec["kwargs"])


def _state_arrays(state):
    if state is None:
        return {}, None
    if isinstance(state, mx.nd.NDArray):
        return {"final_state": state.asnumpy()}, "NDArray"
    arrays, layout = {}, []
    for position, item in enumerate(state):
        layout.append(None if item is None else "NDArray")
        if item is not None:
            arrays["final_state:%d" % position] = item.asnumpy()
    return arrays, layout


def run_case(case, source):
    optimizer = mx.optimizer.create(case["optimizer"], lr_scheduler=_scheduler(case["lr_scheduler"]),
                                    multi_precision=case["multi_precision"], **case["kwargs"])
    updater = mx.optimizer.get_updater(optimizer)
    weight = mx.nd.array(source["weight0"], dtype="float32")
    arrays = {"weight0": source["weight0"]}
    learning_rates = []
    for step in range(1, case["steps"] + 1):
        grad = source["grad:%d" % step]
        updater(case["index"], mx.nd.array(grad, dtype="float32"), weight)
        arrays["grad:%d" % step] = grad
        arrays["weight:%d" % step] = weight.asnumpy()
        learning_rates.append(optimizer.learning_rate)
    state_arrays, layout = _state_arrays(updater.states[case["index"]])
    arrays.update(state_arrays)
    case.update(weight_shape=list(weight.shape), lr_after_each_step=learning_rates, final_state_layout=layout,
                arrays=list(arrays))
    return arrays


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(SOURCE, "index.json")) as handle:
        committed = json.load(handle)
    index = json.loads(json.dumps(committed))
    differing = 0
    for case, old in zip(index["cases"], committed["cases"]):
        source_path = os.path.join(SOURCE, case["file"])
        arrays = run_case(case, np.load(source_path))
        same = same_arrays(source_path, arrays) and case == old
        differing += not same
        write_npz_if_changed(os.path.join(OUT, case["file"]), arrays)
        print("%-26s %s" % (case["name"], "reproduced" if same else "DIFFERS"))
    for curve, old in zip(index["schedulers"], committed["schedulers"]):
        scheduler = _scheduler(curve)
        curve["lr"] = [scheduler(n) for n in curve["num_update"]]
        same = curve == old
        differing += not same
        print("%-26s %s" % ("scheduler " + curve["name"], "reproduced" if same else "DIFFERS"))
    write_json_if_changed(os.path.join(OUT, "index.json"), index)
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
