"""Writes mxref_extra.json and the small idx files: MXNet 1.9.1 iterator behaviour not in the shared fixtures.

Run with the reference MXNet: ``~/mxref/bin/python tools/gen_io_reference.py [OUTPUT_FOLDER]`` (default
tests/data/io).  The tests
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
