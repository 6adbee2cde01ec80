"""Writes mxref_extra.json and the small idx files: MXNet 1.9.1 iterator behaviour not in the shared fixtures.

Run with the reference MXNet: ``~/mxref/bin/python tools/gen_io_reference.py [OUTPUT_FOLDER]`` (default
tests/data/io).  It also reruns the shared MXNet 1.9.1 cases of index.json (NDArrayIter, CSVIter,
MNISTIter) from their recorded sources and rewrites their batches (same values as committed).  The tests
only read the JSON and the data files; they never import mxnet.
"""
import json
import struct

import numpy as np
import mxnet as mx

import os as _os
import sys as _sys

# the output folder: the first argument, else tests/data/io of this checkout
_OUT = _sys.argv[1] if len(_sys.argv) > 1 else _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "..",
                                                              "tests", "data", "io")
_os.makedirs(_OUT, exist_ok=True)
_os.chdir(_OUT)

result = {}

# MNIST idx files with 3000 tiny 2x3 images; pixel (0,0)/(0,1) encode the image number
count = 3000
images = np.zeros((count, 2, 3), np.uint8)
images[:, 0, 0] = np.arange(count) % 256
images[:, 0, 1] = np.arange(count) // 256
images[:, 1, :] = (np.arange(count)[:, None] * 7 + np.arange(3)) % 256
labels = (np.arange(count) % 10).astype(np.uint8)
with open("tiny3000-images-idx3-ubyte", "wb") as stream:
    stream.write(struct.pack(">iiii", 2051, count, 2, 3))
    stream.write(images.tobytes())
with open("tiny3000-labels-idx1-ubyte", "wb") as stream:
    stream.write(struct.pack(">ii", 2049, count))
    stream.write(labels.tobytes())


def mnist_order(**kwargs):
    it = mx.io.MNISTIter(image="tiny3000-images-idx3-ubyte", label="tiny3000-labels-idx1-ubyte",
                         silent=True, flat=True, **kwargs)
    order, label_values = [], []
    for batch in it:
        data = np.round(batch.data[0].asnumpy() * 256).astype(int)
        order += (data[:, 0] + 256 * data[:, 1]).tolist()
        label_values += batch.label[0].asnumpy().astype(int).tolist()
    return {"kwargs": kwargs, "order": order, "labels": label_values,
            "provide_data": [list(d.shape) for d in it.provide_data]}


result["mnist"] = [mnist_order(batch_size=100, shuffle=True, seed=seed) for seed in (0, 3, 12345)] + [
    mnist_order(batch_size=100, shuffle=False, num_parts=3, part_index=1),
    mnist_order(batch_size=100, shuffle=True, num_parts=3, part_index=2, seed=5),
    mnist_order(batch_size=7, shuffle=False, num_parts=7, part_index=6),
]
it = mx.io.MNISTIter(image="tiny3000-images-idx3-ubyte", label="tiny3000-labels-idx1-ubyte", silent=True,
                     batch_size=4, shuffle=False, flat=False)
batch = next(it)
result["mnist_unflat"] = {"shape": list(batch.data[0].shape), "data": batch.data[0].asnumpy().tolist()}

# CSVIter over more epochs and batch sizes (the data file has 7 rows; label = row number)
with open("csv7-data.csv", "w") as stream:
    for row in range(7):
        stream.write(",".join(str(row * 10 + column) for column in range(3)) + "\n")
with open("csv7-label.csv", "w") as stream:
    for row in range(7):
        stream.write(f"{row}.0\n")


def csv_run(epochs, reset_first=False, **kwargs):
    it = mx.io.CSVIter(data_csv="csv7-data.csv", label_csv="csv7-label.csv", data_shape=(3,), **kwargs)
    runs = []
    if reset_first:
        it.reset()
    for epoch in range(epochs):
        if epoch:
            it.reset()
        batches = []
        try:
            for batch in it:
                batches.append({"index": batch.index.tolist(), "pad": batch.pad,
                                "data": batch.data[0].asnumpy().tolist(), "label": batch.label[0].asnumpy().tolist()})
        except mx.base.MXNetError:
            batches.append("error")
        runs.append(batches)
        if batches and batches[-1] == "error":
            break
    return {"kwargs": kwargs, "reset_first": reset_first, "epochs": runs}


result["csv"] = [csv_run(4, batch_size=4), csv_run(4, batch_size=5), csv_run(4, batch_size=6),
                 csv_run(4, batch_size=8), csv_run(4, batch_size=7), csv_run(3, batch_size=10),
                 csv_run(2, batch_size=8, reset_first=True), csv_run(2, batch_size=4, round_batch=False),
                 csv_run(1, batch_size=2, dtype="int32")]

# NDArrayIter: roll_over with batch_size > samples, several epochs; shuffled order under np.random.seed
source = np.arange(10, dtype=np.float32)


def nd_run(epochs, seed=None, **kwargs):
    if seed is not None:
        np.random.seed(seed)
    it = mx.io.NDArrayIter(source, source * 10, **kwargs)
    runs = []
    for epoch in range(epochs):
        if epoch:
            it.reset()
        runs.append([{"pad": batch.pad, "data": batch.data[0].asnumpy().tolist(),
                      "label": batch.label[0].asnumpy().tolist()} for batch in it])
    return {"kwargs": kwargs, "seed": seed, "epochs": runs}


result["ndarrayiter"] = [
    nd_run(4, batch_size=12, last_batch_handle="roll_over"),
    nd_run(5, batch_size=4, last_batch_handle="roll_over"),
    nd_run(2, batch_size=25, last_batch_handle="pad"),
    nd_run(3, seed=3, batch_size=4, shuffle=True),
    nd_run(3, seed=7, batch_size=4, shuffle=True, last_batch_handle="roll_over"),
    nd_run(2, seed=11, batch_size=3, shuffle=True, last_batch_handle="discard"),
]
it = mx.io.NDArrayIter([source, source * 2, source * 3], {"b": source, "a": source}, batch_size=4)
result["ndarrayiter_names"] = {"provide_data": [[d.name, list(d.shape)] for d in it.provide_data],
                               "provide_label": [[d.name, list(d.shape)] for d in it.provide_label],
                               "str": str(next(it))}

with open("mxref_extra.json", "w") as stream:
    json.dump(result, stream)


# -- the shared MXNet 1.9.1 io cases (index.json; their original generator is not in this
# repository): each case's iterator is rebuilt from its recorded source arrays / files and
# kwargs, run for the recorded epochs, and its batches written to <case>.npz again
def _iterator(case, stored):
    kwargs = dict(case["kwargs"])
    if case["kind"] == "NDArrayIter":
        if "source:lab" in stored.files:       # the dict case: data names in the order given
            data = __import__("collections").OrderedDict(
                (k.split(":", 1)[1], stored[k]) for k in stored.files if k.startswith("source:") and k != "source:lab")
            return mx.io.NDArrayIter(data, {"lab": stored["source:lab"]}, **kwargs)
        label = stored["source_label"] if "source_label" in stored.files else kwargs.pop("label", None)
        kwargs.pop("label", None)
        return mx.io.NDArrayIter(stored["source_data"], label, **kwargs)
    if case["kind"] == "CSVIter":
        return mx.io.CSVIter(data_csv=case["data_csv"], label_csv=case["label_csv"], **kwargs)
    return mx.io.MNISTIter(image=case["image_file"], label=case["label_file"], **kwargs)


def shared_cases():
    source = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "..", "tests", "data", "io")
    with open(_os.path.join(source, "index.json")) as stream:
        index = json.load(stream)
    differ = []
    for case in index["cases"]:
        if _os.path.realpath(_OUT) != _os.path.realpath(source):
            for name in (case.get("data_csv"), case.get("label_csv"), case.get("image_file"), case.get("label_file")):
                if name:
                    __import__("shutil").copy(_os.path.join(source, name), _OUT)
        with np.load(_os.path.join(source, case["file"])) as stored:
            arrays = {k: stored[k] for k in stored.files if k.startswith("source")}
            iterator = _iterator(case, stored)
            for epoch in range(case["epochs"]):
                if epoch:
                    iterator.reset()
                for number, batch in enumerate(iterator):
                    for position, array in enumerate(batch.data):
                        arrays[f"e{epoch}:b{number}:data{position}"] = array.asnumpy()
                    for position, array in enumerate(batch.label or []):
                        arrays[f"e{epoch}:b{number}:label{position}"] = array.asnumpy()
            same = set(arrays) == set(stored.files) and all(np.array_equal(arrays[k], stored[k]) for k in arrays)
        np.savez(_os.path.join(_OUT, case["file"]), **arrays)
        if not same:
            differ.append(case["name"])
    with open(_os.path.join(_OUT, "index.json"), "w") as stream:
        json.dump(index, stream, indent=1)
    return differ


print("shared cases whose batches differ from the committed ones:", shared_cases() or "none")
