"""MXNet's binary NDArray files: mx.nd.save / mx.nd.load / mx.nd.load_frombuffer.

Reference data: files written by MXNet 1.9.1 (tests/data/ndarray: the fixture family plus
extra_* cases made by tools/gen_ndarray_reference.py; tests/data/checkpoints: real .params
and .states files).
"""
import io
import json
import os
import pathlib
import pickle
import stat
import struct
import threading
import tracemalloc
import warnings

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mxtorch as mx
from mxtorch.base import MXNetError
from mxtorch.ndarray import serialization
from mxtorch.ndarray.serialization import load_raw_bytes, save_raw_bytes

DATA = pathlib.Path(__file__).parent / "data"
NDARRAY_DIR = DATA / "ndarray"
CHECKPOINT_DIR = DATA / "checkpoints"

FIXTURE_CASES = json.loads((NDARRAY_DIR / "index.json").read_text())["cases"]
EXTRA_CASES = json.loads((NDARRAY_DIR / "extra_index.json").read_text())["cases"]
CHECKPOINT_CASES = json.loads((CHECKPOINT_DIR / "index.json").read_text())["cases"]
PARAMS_FILES = sorted(CHECKPOINT_DIR.glob("*.params"))
ALL_FILES = ([NDARRAY_DIR / case["file"] for case in FIXTURE_CASES + EXTRA_CASES]
             + PARAMS_FILES)


def as_numpy(array):
    """Values of an NDArray as numpy; bfloat16 as float32 (exact)."""
    tensor = array._tensor
    if tensor.dtype == torch.bfloat16:
        return tensor.float().numpy()
    return array.asnumpy()


def dtype_name(array):
    return "bfloat16" if array._tensor.dtype == torch.bfloat16 else np.dtype(array.dtype).name


def keyed(loaded):
    if isinstance(loaded, dict):
        return list(loaded.items())
    return [(str(index), array) for index, array in enumerate(loaded)]


def check_case(case, loaded):
    assert type(loaded).__name__ == case["loads_as"]
    expected = np.load(NDARRAY_DIR / case["expected"])
    items = keyed(loaded)
    assert [key for key, _ in items] == [entry["key"] for entry in case["arrays"]]
    if case["loads_as"] == "dict":
        assert list(loaded) == case["names_in_file_order"]
    assert sorted(expected.files) == sorted(key for key, _ in items)
    for (key, array), entry in zip(items, case["arrays"]):
        assert array.shape == tuple(entry["shape"])
        assert dtype_name(array) == entry["dtype"]
        assert array.context == mx.cpu()
        values = as_numpy(array)
        reference = expected[key]
        assert values.dtype == reference.dtype
        assert values.shape == reference.shape
        # exact, bitwise for floats (NaNs included)
        assert values.tobytes() == reference.tobytes(), key


# --------------------------------------------------------------------------------------
# MXNet-written files load exactly
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", FIXTURE_CASES, ids=[c["name"] for c in FIXTURE_CASES])
def test_fixture_loads_exactly(case):
    check_case(case, mx.nd.load(str(NDARRAY_DIR / case["file"])))


@pytest.mark.parametrize("case", FIXTURE_CASES, ids=[c["name"] for c in FIXTURE_CASES])
def test_fixture_loads_from_buffer(case):
    check_case(case, mx.nd.load_frombuffer((NDARRAY_DIR / case["file"]).read_bytes()))


def test_legacy_v0_file_is_six_aranges():
    loaded = mx.nd.load(NDARRAY_DIR / "legacy_ndarray.v0")
    assert isinstance(loaded, list) and len(loaded) == 6
    for array in loaded:
        assert array.dtype == np.float32
        np.testing.assert_array_equal(array.asnumpy(), np.arange(128, dtype=np.float32))


@pytest.mark.parametrize("case", EXTRA_CASES, ids=[c["name"] for c in EXTRA_CASES])
def test_extra_mxnet_files_load(case):
    sparse = [entry for entry in case["arrays"] if entry["stype"] != "default"]
    # a version-3 file (written by MXNet under NumPy shape semantics) loads only under them
    with warnings.catch_warnings(record=True) as caught, mx.np_shape("np_shape" in case["file"]):
        warnings.simplefilter("always")
        loaded = mx.nd.load(NDARRAY_DIR / case["file"])
    check_case(case, loaded)
    assert not [w for w in caught if issubclass(w.category, UserWarning)]
    # sparse records load as arrays of their storage type, as in MXNet
    stypes = {key: array.stype for key, array in keyed(loaded)}
    for entry in case["arrays"]:
        assert stypes[entry["key"]] == entry["stype"]


def test_sparse_records_keep_their_stored_parts():
    """A row_sparse record's stored rows come back as stored (explicit zero rows included) and
    re-saving writes the same bytes, as MXNet 1.9.1 (the file was written by it)."""
    loaded = mx.nd.load(NDARRAY_DIR / "extra_row_sparse.nd")
    for array in (loaded.values() if isinstance(loaded, dict) else loaded):
        assert array.stype == "row_sparse"
        dense = array.asnumpy()
        np.testing.assert_array_equal(dense[array.indices.asnumpy()], array.data.asnumpy())
        array.check_format()


@pytest.mark.parametrize("case", CHECKPOINT_CASES, ids=[c["name"] for c in CHECKPOINT_CASES])
def test_checkpoint_params_load(case):
    loaded = mx.nd.load(CHECKPOINT_DIR / case["files"]["params"])
    expected = {f"arg:{name}": tuple(shape) for name, shape in case["arg_params"].items()}
    expected.update({f"aux:{name}": tuple(shape) for name, shape in case["aux_params"].items()})
    assert {name: array.shape for name, array in loaded.items()} == expected
    for array in loaded.values():
        assert array.dtype == np.float32
        assert np.isfinite(array.asnumpy()).all()


class _StubNDArray:
    """Stands in for mxnet.ndarray.ndarray.NDArray while unpickling a .states file."""

    def __init__(self, handle):
        self.handle = handle

    def __setstate__(self, state):
        self.handle = state["handle"]


class _StatesUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) == ("mxnet.ndarray.ndarray", "NDArray"):
            return _StubNDArray
        if (module, name) == ("builtins", "bytearray"):
            return bytearray
        raise pickle.UnpicklingError(f"unexpected global {module}.{name}")


@pytest.mark.parametrize("case", CHECKPOINT_CASES, ids=[c["name"] for c in CHECKPOINT_CASES])
def test_load_raw_bytes_reads_states_handles(case):
    raw = (CHECKPOINT_DIR / case["files"]["states"]).read_bytes()
    states = _StatesUnpickler(io.BytesIO(raw)).load()
    decoded = np.load(CHECKPOINT_DIR / case["files"]["states_decoded"])
    compared = 0
    for index, state in states.items():
        parts = state if isinstance(state, tuple) else (state,)
        for part_index, part in enumerate(parts):
            if part is None:
                continue
            key = f"state:{index}" if not isinstance(state, tuple) else f"state:{index}:{part_index}"
            array = load_raw_bytes(bytes(part.handle))
            reference = decoded[key]
            assert array.shape == reference.shape and array.dtype == reference.dtype
            assert array.asnumpy().tobytes() == reference.tobytes()
            # and writing it again gives MXNet's bytes
            assert save_raw_bytes(array) == bytes(part.handle)
            compared += 1
    assert compared == len(decoded.files)


# --------------------------------------------------------------------------------------
# byte-identical re-save
# --------------------------------------------------------------------------------------
RESAVE_IDENTICAL = ([NDARRAY_DIR / c["file"] for c in FIXTURE_CASES if c["file"].endswith(".nd")]
                    + [NDARRAY_DIR / f"extra_{name}.nd" for name in ("bool", "bfloat16", "scalar_v2", "row_sparse",
                                                                     "csr", "mixed_storage")]
                    + PARAMS_FILES)


@pytest.mark.parametrize("path", RESAVE_IDENTICAL, ids=[p.name for p in RESAVE_IDENTICAL])
def test_resave_is_byte_identical(path, tmp_path):
    target = tmp_path / path.name
    mx.nd.save(target, mx.nd.load(path))
    assert target.read_bytes() == path.read_bytes()


@pytest.mark.parametrize("name,reason", [
    ("extra_np_shape_v3.nd", "version-3 records are re-written as version 2 outside NumPy shape semantics"),
    ("extra_v1.nd", "version-1 records are re-written as version 2"),
    ("legacy_ndarray.v0", "version-0 records are re-written as version 2"),
])
def test_resave_of_other_versions_writes_version_2(name, reason, tmp_path):
    with warnings.catch_warnings(), mx.np_shape("np_shape" in name):
        warnings.simplefilter("ignore")
        original = mx.nd.load(NDARRAY_DIR / name)
    target = tmp_path / "resaved.nd"
    mx.nd.save(target, original)
    data = target.read_bytes()
    assert data != (NDARRAY_DIR / name).read_bytes(), reason
    again = mx.nd.load(target)
    for (key, first), (key_again, second) in zip(keyed(original), keyed(again)):
        assert key == key_again and first.shape == second.shape and first.dtype == second.dtype
        assert as_numpy(first).tobytes() == as_numpy(second).tobytes()
    # the first record of the re-saved file is dense version 2
    assert data[24:28] == struct.pack("<I", 0xF993FAC9) and data[28:32] == b"\0\0\0\0"


# --------------------------------------------------------------------------------------
# round trips
# --------------------------------------------------------------------------------------
ALL_DTYPES = [torch.float32, torch.float64, torch.float16, torch.uint8, torch.int8, torch.int32,
              torch.int64, torch.bool, torch.int16, torch.bfloat16]
FLAGS = {torch.float32: 0, torch.float64: 1, torch.float16: 2, torch.uint8: 3, torch.int32: 4,
         torch.int8: 5, torch.int64: 6, torch.bool: 7, torch.int16: 8, torch.bfloat16: 12}


def sample(dtype, shape, seed=0):
    generator = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=generator).bool()
    if dtype.is_floating_point:
        return (torch.randn(shape, generator=generator, dtype=torch.float64) * 100).to(dtype)
    info = torch.iinfo(dtype)
    return torch.randint(max(info.min, -2**62), min(info.max, 2**62), shape, generator=generator,
                         dtype=dtype)


def same(first, second):
    return (first.shape == second.shape and first._tensor.dtype == second._tensor.dtype
            and torch.equal(first._tensor, second._tensor))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=[str(d) for d in ALL_DTYPES])
@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3), (1,), (5,), (2, 3), (2, 1, 3, 2, 2)])
def test_round_trip_every_dtype_and_shape(dtype, shape, tmp_path):
    array = mx.nd.NDArray(sample(dtype, shape))
    target = tmp_path / "one.nd"
    mx.nd.save(str(target), array)
    loaded = mx.nd.load(str(target))
    assert isinstance(loaded, list) and len(loaded) == 1 and same(array, loaded[0])
    # bytes follow the documented layout
    data = target.read_bytes()
    values = array._tensor.view(torch.int16) if dtype == torch.bfloat16 else array._tensor
    expected = (struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<Iii", 0xF993FAC9, 0, len(shape))
                + struct.pack(f"<{len(shape)}q", *shape) + struct.pack("<iii", 1, 0, FLAGS[dtype])
                + values.numpy().astype(values.numpy().dtype.newbyteorder("<")).tobytes()
                + struct.pack("<Q", 0))
    assert data == expected
    assert same(load_raw_bytes(save_raw_bytes(array)), array)


def test_round_trip_containers(tmp_path):
    arrays = [mx.nd.NDArray(sample(dtype, (3, 2), seed)) for seed, dtype in enumerate(ALL_DTYPES)]
    path = tmp_path / "f.nd"
    mx.nd.save(path, arrays)
    assert all(same(a, b) for a, b in zip(arrays, mx.nd.load(path), strict=True))
    mx.nd.save(path, tuple(arrays))
    assert all(same(a, b) for a, b in zip(arrays, mx.nd.load(path), strict=True))
    named = {f"arg:w{i}": a for i, a in enumerate(reversed(arrays))}
    named["aux:ünïcode name"] = mx.nd.array([1.0])
    mx.nd.save(path, named)
    loaded = mx.nd.load(path)
    assert list(loaded) == list(named)
    assert all(same(named[k], loaded[k]) for k in named)
    mx.nd.save(path, [])
    assert mx.nd.load(path) == [] and path.read_bytes() == (NDARRAY_DIR / "empty_list.nd").read_bytes()
    mx.nd.save(path, {})
    assert mx.nd.load(path) == []


def test_save_writes_cpu_context_and_loads_on_cpu(tmp_path):
    # a record saved on gpu(3) by MXNet (device type 2) still loads, on the CPU
    data = bytearray((NDARRAY_DIR / "one_element.nd").read_bytes())
    offset = 24 + 12 + 8  # magic, stype, ndim, one int64 dim
    assert struct.unpack_from("<ii", data, offset) == (1, 0)
    struct.pack_into("<ii", data, offset, 2, 3)
    loaded = mx.nd.load_frombuffer(bytes(data))
    assert loaded[0].context == mx.cpu()
    np.testing.assert_array_equal(loaded[0].asnumpy(),
                                  np.load(NDARRAY_DIR / "one_element.expected.npz")["0"])


def test_raw_bytes_match_mxnet():
    # MXNDArraySaveRawBytes of mx.nd.array(np.float32(3)) in MXNet 1.9.1
    mxnet_bytes = bytes.fromhex("c9fa93f9000000000000000001000000000000000000000000004040")
    array = load_raw_bytes(mxnet_bytes)
    assert array.shape == () and array.dtype == np.float32 and array.asscalar() == 3.0
    assert save_raw_bytes(mx.nd.NDArray(torch.tensor(3.0))) == mxnet_bytes
    record = save_raw_bytes(mx.nd.array([[1, 2], [3, 4]]))
    mx_file = struct.pack("<QQQ", 0x112, 0, 1) + record + struct.pack("<Q", 0)
    assert mx.nd.load_frombuffer(mx_file)[0].asnumpy().tolist() == [[1, 2], [3, 4]]
    # MXNet ignores bytes after the record; so does load_raw_bytes
    assert load_raw_bytes(record + b"junk").shape == (2, 2)


def test_corrupt_bool_bytes_load_as_true():
    record = (struct.pack("<Iiiq", 0xF993FAC9, 0, 1, 4) + struct.pack("<iii", 1, 0, 7)
              + bytes([0, 1, 2, 255]))
    array = load_raw_bytes(record)
    assert array._tensor.tolist() == [False, True, True, True]
    assert array._tensor.view(torch.uint8).tolist() == [0, 1, 1, 1]


def test_int16_record_round_trips_with_flag_8():
    array = mx.nd.NDArray(torch.tensor([-32768, 0, 32767], dtype=torch.int16))
    record = save_raw_bytes(array)
    assert struct.unpack_from("<i", record, 4 + 4 + 4 + 8 + 8)[0] == 8
    assert same(load_raw_bytes(record), array)


def test_save_accepts_pathlike(tmp_path):
    class Path(os.PathLike):
        def __fspath__(self):
            return str(tmp_path / "p.nd")
    mx.nd.save(Path(), [mx.nd.array([1, 2])])
    assert mx.nd.load(Path())[0].asnumpy().tolist() == [1, 2]


def test_new_file_mode_follows_umask(tmp_path):
    path = tmp_path / "mode.nd"
    previous = os.umask(0o027)
    try:
        mx.nd.save(path, [mx.nd.array([1])])
    finally:
        os.umask(previous)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


# --------------------------------------------------------------------------------------
# atomic writes
# --------------------------------------------------------------------------------------
class _FailingStream(io.RawIOBase):
    """Writes through to a real file, then fails after ``limit`` chunks."""

    def __init__(self, stream, limit):
        self.stream, self.limit, self.count = stream, limit, 0

    def write(self, chunk):
        if self.count == self.limit:
            raise OSError(28, "No space left on device")
        self.count += 1
        return self.stream.write(chunk)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stream.close()

    def flush(self):
        self.stream.flush()

    def fileno(self):
        return self.stream.fileno()


def test_failed_write_keeps_old_file(tmp_path, monkeypatch):
    path = tmp_path / "model-0001.params"
    mx.nd.save(path, {"arg:w": mx.nd.array([1.0, 2.0])})
    before = path.read_bytes()
    real_fdopen = os.fdopen
    monkeypatch.setattr(serialization.os, "fdopen",
                        lambda fd, mode: _FailingStream(real_fdopen(fd, mode), limit=2))
    with pytest.raises(MXNetError, match="model-0001.params"):
        mx.nd.save(path, {"arg:w": mx.nd.zeros((1000,)), "arg:b": mx.nd.zeros((10,))})
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model-0001.params"]


def test_failed_rename_keeps_old_file(tmp_path, monkeypatch):
    path = tmp_path / "old.nd"
    mx.nd.save(path, [mx.nd.array([5.0])])
    before = path.read_bytes()

    def broken_replace(source, destination):
        raise KeyboardInterrupt  # not an OSError: still cleaned up, re-raised as is

    monkeypatch.setattr(serialization.os, "replace", broken_replace)
    with pytest.raises(KeyboardInterrupt):
        mx.nd.save(path, [mx.nd.array([6.0, 7.0])])
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["old.nd"]


def test_bad_array_leaves_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "x.nd"
    mx.nd.save(path, [mx.nd.array([1.0])])
    before = path.read_bytes()
    with pytest.raises(MXNetError, match="complex64"):
        mx.nd.save(path, [mx.nd.array([2.0]), mx.nd.NDArray(torch.zeros(2, dtype=torch.complex64))])
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["x.nd"]


# --------------------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("data,message", [
    (np.zeros(3), "ndarray"),
    (5, "int"),
    ([mx.nd.array([1]), np.zeros(2)], "position 1"),
    ({"a": mx.nd.array([1]), 3: mx.nd.array([1])}, "keys must be str"),
    ({"a": [1, 2]}, "for key 'a'"),
    ([mx.nd.NDArray(torch.zeros(2, dtype=torch.uint16))], "uint16"),
])
def test_save_rejects_bad_data(data, message, tmp_path):
    with pytest.raises(MXNetError, match=message):
        mx.nd.save(tmp_path / "bad.nd", data)
    assert not list(tmp_path.iterdir())


def test_save_and_load_reject_bad_fname(tmp_path):
    with pytest.raises(MXNetError, match="fname"):
        mx.nd.save(42, [mx.nd.array([1])])
    with pytest.raises(MXNetError, match="fname"):
        mx.nd.load(None)
    with pytest.raises(MXNetError, match="cannot write"):
        mx.nd.save(tmp_path / "missing-dir" / "f.nd", [mx.nd.array([1])])


def test_load_missing_file_and_directory(tmp_path):
    with pytest.raises(MXNetError, match="nope.params"):
        mx.nd.load(tmp_path / "nope.params")
    with pytest.raises(MXNetError, match="cannot read"):
        mx.nd.load(tmp_path)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_load_refuses_endless_device():
    with pytest.raises(MXNetError, match="not a regular file"):
        mx.nd.load("/dev/zero")


def test_load_reads_a_pipe(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    data = (NDARRAY_DIR / "list_float32.nd").read_bytes()
    writer = threading.Thread(target=fifo.write_bytes, args=(data,))
    writer.start()
    loaded = mx.nd.load(fifo)
    writer.join()
    check_case(next(c for c in FIXTURE_CASES if c["name"] == "list_float32"), loaded)


def test_load_frombuffer_rejects_non_bytes():
    with pytest.raises(MXNetError, match="buf must be bytes"):
        mx.nd.load_frombuffer("not bytes")
    assert mx.nd.load_frombuffer(memoryview((NDARRAY_DIR / "empty_list.nd").read_bytes())) == []
    loaded = mx.nd.load_frombuffer(bytearray((NDARRAY_DIR / "four_d.nd").read_bytes()))
    assert [a.shape for a in loaded] == [(2, 3, 4, 5)]


def list_file(*records, names=()):
    data = struct.pack("<QQQ", 0x112, 0, len(records)) + b"".join(records)
    data += struct.pack("<Q", len(names))
    for name in names:
        data += struct.pack("<Q", len(name)) + name
    return data


GIB = 1 << 30
V2 = struct.pack("<Ii", 0xF993FAC9, 0)
GOOD_RECORD = V2 + struct.pack("<iq", 1, 2) + struct.pack("<iii", 1, 0, 0) + b"\0" * 8

CORRUPT = {
    "empty": (b"", "empty"),
    "wrong list magic": (struct.pack("<QQQQ", 0x113, 0, 0, 0), "magic is 0x113"),
    "short header": (struct.pack("<Q", 0x112) + b"\0\0", "reserved header word needs 8 bytes"),
    "huge count": (struct.pack("<QQQ", 0x112, 0, 2**64 - 1), "declares 18446744073709551615 arrays"),
    "huge ndim": (list_file(V2 + struct.pack("<i", 2**30)), "ndim 1073741824"),
    "negative ndim": (list_file(V2 + struct.pack("<i", -1)), "ndim -1"),
    "huge dims": (list_file(V2 + struct.pack("<iqq", 2, GIB, GIB) + struct.pack("<iii", 1, 0, 0)),
                  "needs 4611686018427387904 bytes"),
    "negative dim": (list_file(V2 + struct.pack("<iq", 1, -4) + struct.pack("<iii", 1, 0, 0)),
                     "negative dimension"),
    "huge v0 ndim": (list_file(struct.pack("<I", 0x7FFFFFFF)), "neither an NDArray magic"),
    "huge v0 dims": (list_file(struct.pack("<III", 2, 2**32 - 1, 2**32 - 1) + struct.pack("<iii", 1, 0, 0)),
                     f"needs {(2**32 - 1) ** 2 * 4} bytes"),
    "unknown dtype": (list_file(V2 + struct.pack("<iq", 1, 2) + struct.pack("<iii", 1, 0, 99)),
                      "flag 99"),
    "uint32 dtype": (list_file(V2 + struct.pack("<iq", 1, 2) + struct.pack("<iii", 1, 0, 10)),
                     "uint32"),
    "unknown storage": (list_file(struct.pack("<Ii", 0xF993FAC9, 7)), "storage type 7"),
    "bad device": (list_file(V2 + struct.pack("<iq", 1, 2) + struct.pack("<iii", 9, 0, 0)),
                   "device type 9"),
    "truncated data": (list_file(GOOD_RECORD)[:-12], "array data"),
    "missing names": (list_file(GOOD_RECORD)[:-8], "name count"),
    "name count mismatch": (list_file(GOOD_RECORD, names=(b"a", b"b")), "2 names"),
    "huge name": (list_file(GOOD_RECORD)[:-8] + struct.pack("<QQ", 1, 40 * GIB), "name length 42949672960"),
    "bad utf8 name": (list_file(GOOD_RECORD, names=(b"\xff\xfe",)), "UTF-8"),
    "too few arrays": (list_file(GOOD_RECORD)[:24 - 8] + struct.pack("<Q", 3) + GOOD_RECORD,
                       "declares 3 arrays but the data ends after 1"),
}


@pytest.mark.parametrize("name", list(CORRUPT))
def test_corrupt_data_raises_without_allocating(name, tmp_path):
    data, message = CORRUPT[name]
    path = tmp_path / "corrupt.params"
    path.write_bytes(data)
    tracemalloc.start()
    try:
        with pytest.raises(MXNetError, match=message) as info:
            mx.nd.load(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "corrupt.params" in str(info.value)
    assert peak < 1 << 20
    with pytest.raises(MXNetError, match="<buffer>"):
        mx.nd.load_frombuffer(data)


def test_every_truncation_of_every_file_raises(tmp_path):
    for path in ALL_FILES:
        data = path.read_bytes()
        lengths = range(len(data))
        if len(data) > 4096:  # big checkpoints: every 97th prefix and the whole tail
            lengths = sorted(set(range(0, len(data), 97)) | set(range(len(data) - 64, len(data))))
        for length in lengths:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with pytest.raises(MXNetError):
                    mx.nd.load_frombuffer(data[:length])


def test_invalid_sparse_indices_raise():
    data = bytearray((NDARRAY_DIR / "extra_row_sparse.nd").read_bytes())
    # first record: row indices are the last 16 bytes before the second record; the stored
    # rows of the first array are 0 and 2 (int64) -> make one 99 (out of range for 4 rows)
    first_rows = struct.pack("<qq", 0, 2)
    offset = data.index(first_rows)
    struct.pack_into("<q", data, offset + 8, 99)
    with pytest.raises(MXNetError, match=r"row index out of range \[0, 4\)"):
        mx.nd.load_frombuffer(bytes(data))
    csr = bytearray((NDARRAY_DIR / "extra_csr.nd").read_bytes())
    indptr = struct.pack("<5q", 0, 1, 1, 3, 3)
    offset = csr.index(indptr)
    struct.pack_into("<q", csr, offset + 8, 5)
    with pytest.raises(MXNetError, match="indptr"):
        mx.nd.load_frombuffer(bytes(csr))


# --------------------------------------------------------------------------------------
# property: mutated files load or raise MXNetError, nothing else
# --------------------------------------------------------------------------------------
SEED_FILES = [path.read_bytes() for path in ALL_FILES]
INTERESTING = [0, 1, 0xFF, 0x7F, 0x80]


@st.composite
def mutated_files(draw):
    data = bytearray(draw(st.sampled_from(SEED_FILES)))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "byte", "truncate", "insert", "delete", "word"]))
        position = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "flip" and data:
            data[position] ^= 1 << draw(st.integers(0, 7))
        elif kind == "byte" and data:
            data[position] = draw(st.sampled_from(INTERESTING + [draw(st.integers(0, 255))]))
        elif kind == "truncate":
            del data[position:]
        elif kind == "insert":
            data[position:position] = draw(st.binary(min_size=1, max_size=16))
        elif kind == "delete":
            del data[position:position + draw(st.integers(1, 16))]
        elif kind == "word" and len(data) >= 8:
            position = min(position, len(data) - 8)
            value = draw(st.sampled_from([2**31 - 1, 2**32 - 1, 2**63 - 1, 2**64 - 1, 2**40, 0]))
            data[position:position + 8] = value.to_bytes(8, "little")
    return bytes(data)


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_files())
def test_mutated_files_load_or_raise_mxnet_error(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            loaded = mx.nd.load_frombuffer(data)
        except MXNetError as error:
            assert "mx.nd.load_frombuffer: <buffer>" in str(error)
            return
    # whatever loaded is a list/dict of CPU arrays that survive a save/load round trip
    assert isinstance(loaded, (list, dict))
    again = mx.nd.load_frombuffer(_save_to_bytes(loaded))
    assert [key for key, _ in keyed(again)] == [key for key, _ in keyed(loaded)]
    for (_, first), (_, second) in zip(keyed(loaded), keyed(again)):
        assert first.context == mx.cpu()
        assert first.shape == second.shape and first._tensor.dtype == second._tensor.dtype
        assert raw(first) == raw(second)  # bitwise, NaN payloads included


def raw(array):
    tensor = array._tensor
    if tensor.numel() == 0:   # zero-size tensors may carry stride 0, which byte views reject
        return b""
    return tensor.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()


def _save_to_bytes(loaded):
    arrays = list(loaded.values()) if isinstance(loaded, dict) else loaded
    names = list(loaded) if isinstance(loaded, dict) else []
    return b"".join(bytes(chunk) for chunk in serialization._file_chunks(arrays, names))


# the file MXNet 1.9.1 writes for mx.nd.save(f, [array([[1, 2]]), zeros((0, 3))]) under np_shape(True)
MXNET_NP_SHAPE_FILE = bytes.fromhex(
    "120100000000000000000000000000000200000000000000cafa93f900000000020000000100000000000000"
    "02000000000000000100000000000000000000000000803f00000040cafa93f9000000000200000000000000"
    "0000000003000000000000000100000000000000000000000000000000000000")


def test_numpy_shape_semantics_write_version_3_and_load_only_under_the_same_semantics(tmp_path):
    path = str(tmp_path / "arrays")
    with mx.np_shape(True):
        mx.nd.save(path, [mx.nd.array([[1, 2]]), mx.nd.zeros((0, 3))])
        assert open(path, "rb").read() == MXNET_NP_SHAPE_FILE
        loaded = mx.nd.load(path)
    assert loaded[0].asnumpy().tolist() == [[1, 2]] and loaded[1].shape == (0, 3)
    with pytest.raises(mx.MXNetError, match="array 0 of 2 was saved under NumPy shape semantics"):
        mx.nd.load(path)
    mx.nd.save(path, [mx.nd.array(np.zeros((2, 0)))])
    with mx.np_shape(True), pytest.raises(mx.MXNetError, match="not saved under NumPy shape semantics"):
        mx.nd.load(path)
    assert mx.nd.load(path)[0].shape == (2, 0)
