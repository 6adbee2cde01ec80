"""Writes tests/data/metric/index.json with the real MXNet 1.9.1 (run with ~/mxref/bin/python).

    ~/mxref/bin/python tools/gen_metric_reference.py [OUTPUT_FOLDER]   # default tests/data/metric

The cases and their inputs come from the shared MXNet 1.9.1 metric fixtures (the ``cases``
of index.json and the ``<case>.npz`` label / prediction batches, whose generator is not in
this repository).  For every case this script builds the metric from its ``spec`` (a
``mx.metric.create`` name and kwargs, or a composite of children added with ``add()``),
updates it with the three recorded batches and records ``metric.name``, ``get()`` and
``num_inst`` after each batch and the final ``get_name_value()``.  To add a case, add its
spec and npz inputs (keys ``batch<b>:label<i>`` / ``batch<b>:pred<i>``) and rerun.
The output index.json equals the committed one (values compared within 1e-12 relative).
"""
import json
import os
import shutil
import sys

import mxnet as mx
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "metric")
OUT = sys.argv[1] if len(sys.argv) > 1 else HERE


def build(spec):
    if spec["metric"] == "composite":
        metric = mx.metric.CompositeEvalMetric()
        for child in spec["children"]:
            metric.add(build(child))
        return metric
    return mx.metric.create(spec["metric"], **spec.get("kwargs", {}))


def plain(value):
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (np.generic,)):
        return value.item()
    return value


def run(case, folder):
    metric = build(case["spec"])
    after = []
    with np.load(os.path.join(folder, case["file"])) as arrays:
        for batch in case["batches"]:
            labels = [mx.nd.array(arrays[k], dtype=d) for k, d in zip(batch["labels"], batch["label_dtypes"])]
            preds = [mx.nd.array(arrays[k], dtype=d) for k, d in zip(batch["preds"], batch["pred_dtypes"])]
            metric.update(labels, preds)
            name, value = metric.get()
            after.append({"name": plain(name), "value": plain(value), "num_inst": plain(getattr(metric, "num_inst", None))})
    result = dict(case)
    result.update(metric_name=metric.name, get_after_each_batch=after,
                  get_name_value=[list(pair) for pair in plain(metric.get_name_value())])
    return result


def main():
    with open(os.path.join(HERE, "index.json")) as stream:
        index = json.load(stream)
    os.makedirs(OUT, exist_ok=True)
    if os.path.realpath(OUT) != os.path.realpath(HERE):
        for case in index["cases"]:
            shutil.copy(os.path.join(HERE, case["file"]), OUT)
    index["cases"] = [run(case, HERE) for case in index["cases"]]
    index["mxnet_version"] = mx.__version__
    with open(os.path.join(OUT, "index.json"), "w") as stream:
        json.dump(index, stream, indent=1)
    print("written", len(index["cases"]), "cases")


if __name__ == "__main__":
    main()
