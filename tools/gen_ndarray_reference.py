"""Writes tests/data/ndarray/ (``mx.nd.save`` files) with reference MXNet 1.9.1.

Run with the reference interpreter (never imported by mxtorch or its tests):

    ~/mxref/bin/python tools/gen_ndarray_reference.py [OUTPUT_FOLDER]   # default tests/data/ndarray

- the extra cases: ``extra_<case>.nd`` + ``extra_<case>.expected.npz`` and ``extra_index.json``;
  expected values are what MXNet 1.9.1 reads back from the file (sparse arrays as their dense
  form), except where noted in the case's ``note``;
- the shared MXNet 1.9.1 cases of ``index.json`` (whose original generator is not in this
  repository): each ``<case>.nd`` is written again by ``mx.nd.save`` from its expected values
  (list, dict in file order, or single array) and must equal the committed file byte for byte.
  ``legacy_ndarray.v0`` is MXNet's own test file (written by MXNet 0.x), copied, not generated.
"""
import json
import os
import shutil
import struct
import sys

import mxnet as mx
import numpy as np
from mxnet.ndarray.ndarray import _DTYPE_NP_TO_MX

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "ndarray")
HERE = sys.argv[1] if len(sys.argv) > 1 else SOURCE
CASES = []


def _dense(array):
    if array.stype != "default":
        array = array.tostype("default")
    if array.dtype not in (np.float32, np.float64, np.float16, np.uint8, np.int8, np.int32,
                           np.int64, np.bool_):
        array = mx.nd.amp_cast(array, dtype="float32")  # bfloat16 -> float32 (exact)
    return array.asnumpy()


def record(name, loaded, kind, note="", dtypes=None, stypes=None, np_shape=False):
    """Store what MXNet loaded from ``extra_<name>.nd`` as the expected values."""
    if isinstance(loaded, dict):
        keys, arrays, loads_as = list(loaded), list(loaded.values()), "dict"
    else:
        keys, arrays, loads_as = [str(i) for i in range(len(loaded))], list(loaded), "list"
    expected = {key: _dense(array) for key, array in zip(keys, arrays)}
    np.savez(os.path.join(HERE, f"extra_{name}.expected.npz"), **expected)
    entries = []
    for i, (key, array) in enumerate(zip(keys, arrays)):
        dtype = (dtypes or {}).get(key) or np.dtype(array.dtype).name
        entries.append({"key": key, "shape": list(array.shape), "dtype": dtype,
                        "stype": array.stype})
    CASES.append({"name": name, "file": f"extra_{name}.nd",
                  "expected": f"extra_{name}.expected.npz", "kind": kind,
                  "loads_as": loads_as, "names_in_file_order": keys if loads_as == "dict" else None,
                  "arrays": entries, "note": note, "loaded_in_np_shape_mode": np_shape})


def path(name):
    return os.path.join(HERE, f"extra_{name}.nd")


def main():
    dense = np.array([[0, 1.5, 0], [0, 0, 0], [2, 0, -3], [0, 0, 0]], dtype=np.float32)

    # row_sparse: a matrix, an all-zero array (no stored rows), a float64 3-D one
    cube = np.zeros((3, 2, 2), dtype=np.float64)
    cube[1] = [[1, 2], [3, 4]]
    mx.nd.save(path("row_sparse"), [mx.nd.array(dense).tostype("row_sparse"),
                                    mx.nd.zeros((3, 2)).tostype("row_sparse"),
                                    mx.nd.array(cube, dtype=np.float64).tostype("row_sparse")])
    record("row_sparse", mx.nd.load(path("row_sparse")), "row_sparse list")

    # csr: dict with a matrix, an all-zero one and an int64 one
    integers = np.array([[0, 0, 7], [5, 0, 0]], dtype=np.int64)
    mx.nd.save(path("csr"), {"weight": mx.nd.array(dense).tostype("csr"),
                             "empty": mx.nd.zeros((3, 2)).tostype("csr"),
                             "int64": mx.nd.array(integers, dtype=np.int64).tostype("csr")})
    record("csr", mx.nd.load(path("csr")), "csr dict")

    # dense + sparse in one dict
    mx.nd.save(path("mixed_storage"), {"arg:dense": mx.nd.array(np.arange(6).reshape(2, 3)),
                                       "arg:rsp": mx.nd.array(dense).tostype("row_sparse"),
                                       "arg:csr": mx.nd.array(dense).tostype("csr")})
    record("mixed_storage", mx.nd.load(path("mixed_storage")), "dense + sparse dict")

    # bool (flag 7)
    mx.nd.save(path("bool"), [mx.nd.array([True, False, True], dtype=np.bool_),
                              mx.nd.array([[False, True], [True, True]], dtype=np.bool_)])
    record("bool", mx.nd.load(path("bool")), "bool list")

    # bfloat16 (flag 12); expected values stored as float32 (bfloat16 -> float32 is exact)
    values = mx.nd.array([1.5, 2.25, -3.0, 1e10, 0.1])
    bfloat16 = [k for k, v in _DTYPE_NP_TO_MX.items() if v == 12][0]
    mx.nd.save(path("bfloat16"), [values.astype(bfloat16)])
    record("bfloat16", mx.nd.load(path("bfloat16")), "bfloat16 list",
           dtypes={"0": "bfloat16"}, note="expected values are the bfloat16 values as float32")

    # 0-dim arrays: MXNet writes device, dtype and one element, but cannot read the record
    # back outside np-shape mode (it takes ndim 0 as 'unknown shape').  V2 magic.
    mx.nd.save(path("scalar_v2"), [mx.nd.array(np.float32(5.0)),
                                   mx.nd.array(np.array(7, dtype=np.int64), dtype=np.int64),
                                   mx.nd.array([1.0, 2.0])])
    try:
        mx.nd.load(path("scalar_v2"))
        raise AssertionError("MXNet 1.9.1 was expected to fail reading 0-dim V2 records")
    except mx.base.MXNetError:
        pass
    # expected = the arrays that were saved
    np.savez(os.path.join(HERE, "extra_scalar_v2.expected.npz"),
             **{"0": np.array(5.0, dtype=np.float32), "1": np.array(7, dtype=np.int64),
                "2": np.array([1.0, 2.0], dtype=np.float32)})
    CASES.append({"name": "scalar_v2", "file": "extra_scalar_v2.nd",
                  "expected": "extra_scalar_v2.expected.npz", "kind": "0-dim arrays (V2)",
                  "loads_as": "list", "names_in_file_order": None,
                  "arrays": [{"key": "0", "shape": [], "dtype": "float32", "stype": "default"},
                             {"key": "1", "shape": [], "dtype": "int64", "stype": "default"},
                             {"key": "2", "shape": [2], "dtype": "float32", "stype": "default"}],
                  "note": "written by MXNet 1.9.1; MXNet 1.9.1 itself fails to load it "
                          "(Invalid NDArray file format); expected = the saved values",
                  "loaded_in_np_shape_mode": False})

    # V3 magic (np-shape mode): 0-dim, zero-size and 2-D arrays
    with mx.util.np_shape(True), mx.util.np_array(True):
        arrays = [mx.np.array(np.float32(2.5)), mx.np.zeros((2, 0, 3)),
                  mx.np.array(np.arange(6, dtype=np.float32).reshape(2, 3))]
        mx.nd.save(path("np_shape_v3"), [a.as_nd_ndarray() for a in arrays])
        record("np_shape_v3", mx.nd.load(path("np_shape_v3")), "np-shape mode list (V3 magic)",
               np_shape=True)

    # V1 records (magic 0xF993FAC8, no storage type): MXNet 1.9.1 no longer writes them;
    # built by hand here and checked by loading with MXNet.
    def v1_record(values, flag):
        shape = values.shape
        return (struct.pack("<II", 0xF993FAC8, len(shape)) + struct.pack(f"<{len(shape)}q", *shape)
                + struct.pack("<iii", 1, 0, flag) + values.tobytes())
    blob = struct.pack("<QQQ", 0x112, 0, 2)
    blob += v1_record(np.arange(6, dtype=np.float32).reshape(2, 3), 0)
    blob += v1_record(np.array([-1, 2**40], dtype=np.int64), 6)
    names = [b"arg:first", b"aux:second"]
    blob += struct.pack("<Q", len(names)) + b"".join(struct.pack("<Q", len(n)) + n for n in names)
    with open(path("v1"), "wb") as stream:
        stream.write(blob)
    record("v1", mx.nd.load(path("v1")), "V1 records (hand-built, loaded by MXNet)")

    with open(os.path.join(HERE, "extra_index.json"), "w") as stream:
        json.dump({"family": "ndarray-extra", "mxnet_version": mx.__version__,
                   "generator": "tools/gen_ndarray_reference.py", "cases": CASES}, stream, indent=1)


def shared_cases():
    """Write each case of index.json again with mx.nd.save; returns the names that differ."""
    with open(os.path.join(SOURCE, "index.json")) as stream:
        index = json.load(stream)
    differ = []
    for case in index["cases"]:
        source = os.path.join(SOURCE, case["file"])
        if os.path.realpath(HERE) != os.path.realpath(SOURCE):
            shutil.copy(os.path.join(SOURCE, case["expected"]), HERE)
        if case["name"].startswith("legacy"):
            if os.path.realpath(HERE) != os.path.realpath(SOURCE):
                shutil.copy(source, HERE)
            continue
        with np.load(os.path.join(SOURCE, case["expected"])) as expected:
            arrays = [mx.nd.array(expected[a["key"]], dtype=a["dtype"]) for a in case["arrays"]]
        if case["loads_as"] == "dict":
            payload = dict(zip(case["names_in_file_order"], arrays))
        elif case["kind"].startswith("single"):
            payload = arrays[0]
        else:
            payload = arrays
        target = os.path.join(HERE, case["file"])
        mx.nd.save(target, payload)
        with open(target, "rb") as written, open(source, "rb") as committed:
            if written.read() != committed.read():
                differ.append(case["name"])
    if os.path.realpath(HERE) != os.path.realpath(SOURCE):
        shutil.copy(os.path.join(SOURCE, "index.json"), HERE)
    return differ


if __name__ == "__main__":
    os.makedirs(HERE, exist_ok=True)
    main()
    print("shared cases that differ from the committed files:", shared_cases() or "none")
