"""mx.recordio (the RecordIO format) and the ImageRecordIter family, against MXNet 1.9.1 data.

Reference files in tests/data/recordio: the RecordIO / ImageRecordIter cases of the shared io
fixtures (index.json, *.rec, *.idx, *.npz), plus files written by MXNet 1.9.1 with
tools/gen_recordio_reference.py: multipart.* (records holding the magic number, which MXNet's writer
splits), det.* / multilabel.* (array labels), iterators.json / iterators.npz (iterator batches)
and mean_img.nd.
"""
import json
import os
import pathlib
import pickle
import shutil
import struct

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError

DATA = os.path.join(os.path.dirname(__file__), "data", "recordio")
FIXTURES = {case["name"]: case for case in json.loads(pathlib.Path(DATA, "index.json").read_text())["cases"]}
ITERATOR_CASES = json.loads(pathlib.Path(DATA, "iterators.json").read_text())["cases"]


def data_path(name):
    return os.path.join(DATA, name)


def copy_data(tmp_path, *names):
    for name in names:
        shutil.copy(data_path(name), tmp_path / name)
    return tmp_path


# ------------------------------------------------------------------------------------------------
# Record layer
# ------------------------------------------------------------------------------------------------
def test_reads_mxnet_records_and_headers():
    case = FIXTURES["raw_records"]
    arrays = np.load(data_path("raw_records.npz"))
    reader = mx.recordio.MXRecordIO(data_path("raw_records.rec"), "r")
    for number, expected in enumerate(case["records"]):
        record = reader.read()
        assert record == arrays[f"record:{number}"].tobytes()
        assert len(record) == expected["record_len"]
        header, payload = mx.recordio.unpack(record)
        assert payload == arrays[f"payload:{number}"].tobytes()
        assert (header.flag, header.id, header.id2) == (expected["flag"], expected["id"], expected["id2"])
        if expected["flag"] == 0:
            assert header.label == expected["label"]
        else:
            assert header.label.dtype == np.float32
            np.testing.assert_array_equal(header.label, np.float32(expected["label"]))
    assert reader.read() is None
    reader.reset()
    assert reader.read() == arrays["record:0"].tobytes()
    reader.close()


def test_pack_reproduces_mxnet_records_byte_for_byte(tmp_path):
    case = FIXTURES["raw_records"]
    arrays = np.load(data_path("raw_records.npz"))
    writer = mx.recordio.MXRecordIO(str(tmp_path / "out.rec"), "w")
    for number, expected in enumerate(case["records"]):
        header = mx.recordio.IRHeader(0, expected["label"], expected["id"], expected["id2"])
        record = mx.recordio.pack(header, arrays[f"payload:{number}"].tobytes())
        assert record == arrays[f"record:{number}"].tobytes()
        writer.write(record)
    writer.close()
    assert (tmp_path / "out.rec").read_bytes() == pathlib.Path(data_path("raw_records.rec")).read_bytes()


def test_header_format_constants():
    assert mx.recordio._IR_FORMAT == "IfQQ"
    assert mx.recordio._IR_SIZE == 24
    header = mx.recordio.IRHeader(flag=0, label=1.5, id=7, id2=9)
    assert type(header).__name__ == "HEADER"
    packed = mx.recordio.pack(header, b"xyz")
    assert packed[:24] == struct.pack("<IfQQ", 0, 1.5, 7, 9)
    # an array label sets flag to its length and is stored as float32 after the header
    packed = mx.recordio.pack(mx.recordio.IRHeader(5, [1, 2.5, -3], 1, 2), b"")
    assert struct.unpack("<IfQQ", packed[:24]) == (3, 0.0, 1, 2)
    assert np.frombuffer(packed[24:], "<f4").tolist() == [1.0, 2.5, -3.0]


def test_multipart_records_match_mxnet_writer(tmp_path):
    """Payloads holding the magic number at 4-byte aligned offsets are split exactly as MXNet splits them."""
    arrays = np.load(data_path("multipart.npz"))
    payloads = [arrays[f"payload:{k}"].tobytes() for k in range(len(arrays.files))]
    magic = struct.pack("<I", 0xced7230a)
    assert any(magic in payload for payload in payloads)
    reader = mx.recordio.MXIndexedRecordIO(data_path("multipart.idx"), data_path("multipart.rec"), "r")
    assert reader.keys == list(range(len(payloads)))
    for key in reversed(reader.keys):
        assert reader.read_idx(key) == payloads[key]
    reader.close()
    writer = mx.recordio.MXIndexedRecordIO(str(tmp_path / "w.idx"), str(tmp_path / "w.rec"), "w")
    for key, payload in enumerate(payloads):
        writer.write_idx(key, payload)
    writer.close()
    assert (tmp_path / "w.rec").read_bytes() == pathlib.Path(data_path("multipart.rec")).read_bytes()
    assert (tmp_path / "w.idx").read_text() == pathlib.Path(data_path("multipart.idx")).read_text()


def test_indexed_writer_offsets_and_key_type(tmp_path):
    writer = mx.recordio.MXIndexedRecordIO(str(tmp_path / "a.idx"), str(tmp_path / "a.rec"), "w", key_type=str)
    assert writer.tell() == 0
    offsets = []
    for number, payload in enumerate([b"record_0", b"r1", b"", b"12345"]):
        offsets.append(writer.tell())
        writer.write_idx(f"k{number}", payload)
    # 8-byte header + payload padded to a multiple of 4
    assert offsets == [0, 16, 28, 36]
    assert writer.tell() == 52
    assert writer.keys == ["k0", "k1", "k2", "k3"]
    writer.close()
    assert (tmp_path / "a.idx").read_text() == "k0\t0\nk1\t16\nk2\t28\nk3\t36\n"
    reader = mx.recordio.MXIndexedRecordIO(str(tmp_path / "a.idx"), str(tmp_path / "a.rec"), "r", key_type=str)
    assert reader.idx == {"k0": 0, "k1": 16, "k2": 28, "k3": 36}
    assert reader.read_idx("k3") == b"12345"
    assert reader.read_idx("k2") == b""
    assert reader.read() == b"12345"      # sequential reading continues after the sought record
    assert reader.read() is None
    reader.close()


def test_writer_reset_truncates_and_close_is_idempotent(tmp_path):
    path = str(tmp_path / "t.rec")
    writer = mx.recordio.MXRecordIO(path, "w")
    writer.write(b"first")
    writer.reset()
    writer.write(bytearray(b"second"))
    writer.close()
    writer.close()
    assert not writer.is_open and writer.pid is None
    reader = mx.recordio.MXRecordIO(path, "r")
    assert (reader.read(), reader.read()) == (b"second", None)
    assert reader.writable is False and reader.flag == "r" and reader.uri == path


def test_pickling_closes_and_reopens(tmp_path):
    path = str(tmp_path / "p.rec")
    writer = mx.recordio.MXRecordIO(path, "w")
    for payload in (b"a", b"bb", b"ccc"):
        writer.write(payload)
    writer.close()
    reader = mx.recordio.MXRecordIO(path, "r")
    assert reader.read() == b"a"
    clone = pickle.loads(pickle.dumps(reader))
    assert reader.is_open is False          # as in MXNet, pickling closes the original
    assert clone.is_open and clone.read() == b"a"   # and the copy starts again at the first record
    indexed_writer = mx.recordio.MXIndexedRecordIO(str(tmp_path / "p.idx"), str(tmp_path / "q.rec"), "w")
    indexed_writer.write_idx(3, b"three")
    indexed_writer.close()
    indexed = mx.recordio.MXIndexedRecordIO(str(tmp_path / "p.idx"), str(tmp_path / "q.rec"), "r")
    state = indexed.__getstate__()
    assert state["fidx"] is None and "handle" not in state and state["is_open"] is True
    restored = pickle.loads(pickle.dumps(mx.recordio.MXIndexedRecordIO(str(tmp_path / "p.idx"),
                                                                       str(tmp_path / "q.rec"), "r")))
    assert restored.read_idx(3) == b"three"


def test_other_process_reader(tmp_path):
    path = str(tmp_path / "x.rec")
    writer = mx.recordio.MXIndexedRecordIO(str(tmp_path / "x.idx"), path, "w")
    writer.write_idx(0, b"zero")
    writer.close()
    reader = mx.recordio.MXIndexedRecordIO(str(tmp_path / "x.idx"), path, "r")
    reader.pid = -1                      # as if inherited by a forked worker
    with pytest.raises(MXNetError, match="process"):
        reader.read()
    assert reader.read_idx(0) == b"zero"    # seek reopens the file in the new process
    assert reader.pid == os.getpid()


# ------------------------------------------------------------------------------------------------
# Errors
# ------------------------------------------------------------------------------------------------
def test_invalid_flag_and_wrong_direction(tmp_path):
    with pytest.raises(ValueError, match="flag"):
        mx.recordio.MXRecordIO(str(tmp_path / "f.rec"), "a")
    with pytest.raises(MXNetError, match="flag"):
        mx.recordio.MXRecordIO(str(tmp_path / "f.rec"), "rw")
    writer = mx.recordio.MXRecordIO(str(tmp_path / "f.rec"), "w")
    with pytest.raises(MXNetError, match="writing"):
        writer.read()
    with pytest.raises(MXNetError, match="bytes"):
        writer.write("text")
    writer.close()
    reader = mx.recordio.MXRecordIO(str(tmp_path / "f.rec"), "r")
    with pytest.raises(MXNetError, match="reading"):
        reader.write(b"x")
    with pytest.raises(MXNetError, match="does-not-exist"):
        mx.recordio.MXRecordIO(str(tmp_path / "does-not-exist.rec"), "r")


def test_truncated_and_corrupt_files_name_file_and_offset(tmp_path):
    content = pathlib.Path(data_path("raw_records.rec")).read_bytes()
    # cut inside the payload of the second record (the first takes 8 + 28 bytes: header, 27 bytes, padding)
    (tmp_path / "cut.rec").write_bytes(content[:48])
    reader = mx.recordio.MXRecordIO(str(tmp_path / "cut.rec"), "r")
    assert reader.read() == np.load(data_path("raw_records.npz"))["record:0"].tobytes()
    with pytest.raises(MXNetError, match=r"cut\.rec.*byte offset 36"):
        reader.read()
    # cut inside a record header
    (tmp_path / "head.rec").write_bytes(content[:39])
    reader = mx.recordio.MXRecordIO(str(tmp_path / "head.rec"), "r")
    reader.read()
    with pytest.raises(MXNetError, match="byte offset 36.*header"):
        reader.read()
    # garbage instead of the magic number
    damaged = bytearray(content)
    damaged[36:40] = b"JUNK"
    (tmp_path / "bad.rec").write_bytes(bytes(damaged))
    reader = mx.recordio.MXRecordIO(str(tmp_path / "bad.rec"), "r")
    reader.read()
    with pytest.raises(MXNetError, match="byte offset 36.*magic"):
        reader.read()
    # a split record whose last part is missing
    multipart = pathlib.Path(data_path("multipart.rec")).read_bytes()
    offsets = [int(line.split("\t")[1]) for line in pathlib.Path(data_path("multipart.idx")).read_text().splitlines()]
    (tmp_path / "split.rec").write_bytes(multipart[offsets[3]:offsets[3] + 8])   # first part of a split record
    with pytest.raises(MXNetError, match="split record"):
        mx.recordio.MXRecordIO(str(tmp_path / "split.rec"), "r").read()


def test_index_errors(tmp_path):
    shutil.copy(data_path("images_png.rec"), tmp_path / "i.rec")
    (tmp_path / "i.idx").write_text("0\t0\nnot-a-line\n")
    with pytest.raises(MXNetError, match=r"line 2 of index file"):
        mx.recordio.MXIndexedRecordIO(str(tmp_path / "i.idx"), str(tmp_path / "i.rec"), "r")
    reader = mx.recordio.MXIndexedRecordIO(data_path("images_png.idx"), data_path("images_png.rec"), "r")
    with pytest.raises(KeyError):
        reader.read_idx(99)
    with pytest.raises(MXNetError, match="key 99"):
        reader.seek(99)


def test_unpack_and_pack_errors():
    with pytest.raises(MXNetError, match="24-byte header"):
        mx.recordio.unpack(b"short")
    truncated_labels = struct.pack("<IfQQ", 3, 0, 0, 0) + b"\0" * 8
    with pytest.raises(MXNetError, match="3 float32 labels"):
        mx.recordio.unpack(truncated_labels)
    with pytest.raises(MXNetError, match="payload must be bytes"):
        mx.recordio.pack(mx.recordio.IRHeader(0, 1.0, 0, 0), "text")
    with pytest.raises(MXNetError, match="does not fit"):
        mx.recordio.pack(mx.recordio.IRHeader(0, 1.0, -1, 0), b"")
    with pytest.raises(MXNetError, match="not an image"):
        mx.recordio.unpack_img(mx.recordio.pack(mx.recordio.IRHeader(0, 1.0, 4, 0), b"not an image"))


# ------------------------------------------------------------------------------------------------
# Image records
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["images_png", "images_jpg95"])
def test_unpack_img_matches_mxnet(name):
    case = FIXTURES[name]
    arrays = np.load(data_path(name + ".npz"))
    reader = mx.recordio.MXIndexedRecordIO(data_path(name + ".idx"), data_path(name + ".rec"), "r")
    assert reader.keys == case["keys"]
    for record in case["records"]:
        header, image = mx.recordio.unpack_img(reader.read_idx(record["key"]))
        assert (header.flag, header.label, header.id, header.id2) == \
               (record["flag"], record["label"], record["id"], record["id2"])
        assert image.dtype == np.uint8 and list(image.shape) == record["decoded_shape"]
        expected = arrays[f"decoded:{record['key']}"]
        tolerance = 0 if case["img_fmt"] == ".png" else 4
        assert np.abs(image.astype(int) - expected).max() <= tolerance
        original = arrays[f"original:{record['key']}"]
        assert np.abs(image.astype(int) - original).max() <= record["max_abs_diff_vs_original"] + tolerance
    gray_header, gray = mx.recordio.unpack_img(reader.read_idx(0), iscolor=0)
    assert gray.shape == (12, 16) and gray_header.id == 0


def test_pack_img_png_matches_mxnet_bytes_and_jpeg_round_trips():
    case = FIXTURES["images_png"]
    arrays = np.load(data_path("images_png.npz"))
    reader = mx.recordio.MXIndexedRecordIO(data_path("images_png.idx"), data_path("images_png.rec"), "r")
    for record in case["records"]:
        header = mx.recordio.IRHeader(0, record["label"], record["id"], 0)
        packed = mx.recordio.pack_img(header, arrays[f"original:{record['key']}"], quality=case["quality"],
                                      img_fmt=".png")
        assert packed == reader.read_idx(record["key"])
    original = arrays["original:0"]
    packed = mx.recordio.pack_img(mx.recordio.IRHeader(0, [1, 2], 5, 0), original, quality=95, img_fmt=".jpg")
    header, decoded = mx.recordio.unpack_img(packed)
    assert header.flag == 2 and header.label.tolist() == [1.0, 2.0] and header.id == 5
    assert np.abs(decoded.astype(int) - original).max() <= 20
    assert packed[24 + 8:24 + 8 + 2] == b"\xff\xd8"      # a JPEG stream after the header and labels


# ------------------------------------------------------------------------------------------------
# ImageRecordIter family
# ------------------------------------------------------------------------------------------------
def _batches(iterator, epochs):
    result = []
    for epoch in range(epochs):
        for number, batch in enumerate(iterator):
            result.append((epoch, number, batch))
        iterator.reset()
    return result


@pytest.mark.parametrize("name", ["imagerecorditer_plain", "imagerecorditer_mean_scale",
                                  "imagerecorditer_resize_crop"])
def test_image_record_iter_fixtures(name):
    case = FIXTURES[name]
    arrays = np.load(data_path(case["file"]))
    iterator = mx.io.ImageRecordIter(path_imgrec=data_path(case["rec"]), path_imgidx=data_path(case["idx"]),
                                     **case["kwargs"])
    assert [(d.name, list(d.shape), np.dtype(d.dtype).name) for d in iterator.provide_data] == \
           [(d["name"], d["shape"], d["dtype"]) for d in case["provide_data"]]
    assert [(d.name, list(d.shape)) for d in iterator.provide_label] == \
           [(d["name"], d["shape"]) for d in case["provide_label"]]
    batches = list(iterator)
    assert len(batches) == len(case["batches"])
    for batch, expected in zip(batches, case["batches"]):
        assert batch.pad == expected["pad"]
        assert batch.index.tolist() == expected["index"]
        np.testing.assert_allclose(batch.data[0].asnumpy(), arrays[expected["data"][0]], rtol=1e-6, atol=1e-5)
        np.testing.assert_array_equal(batch.label[0].asnumpy(), arrays[expected["label"][0]])


@pytest.mark.parametrize("case", ITERATOR_CASES, ids=[case["name"] for case in ITERATOR_CASES])
def test_image_record_iterators_match_mxnet(case, tmp_path):
    copy_data(tmp_path, "images_png.rec", "images_jpg95.rec", "det.rec", "multilabel.rec")
    arrays = np.load(data_path("iterators.npz"))
    kwargs = dict(case["kwargs"])
    kwargs["path_imgrec"] = str(tmp_path / kwargs["path_imgrec"])
    if "mean_img" in kwargs:
        kwargs["mean_img"] = str(tmp_path / kwargs["mean_img"])   # missing: computed and saved as MXNet did
    iterator = getattr(mx.io, case["kind"])(**kwargs)
    assert [[d.name, list(d.shape), np.dtype(d.dtype).name] for d in iterator.provide_data] == case["provide_data"]
    assert [[d.name, list(d.shape), np.dtype(d.dtype).name] for d in iterator.provide_label] == \
           case["provide_label"]
    epochs = max(batch["epoch"] for batch in case["batches"]) + 1
    batches = _batches(iterator, epochs)
    assert [(epoch, number) for epoch, number, _ in batches] == \
           [(batch["epoch"], batch["batch"]) for batch in case["batches"]]
    for (_, _, batch), expected in zip(batches, case["batches"]):
        assert batch.pad == expected["pad"]
        data = batch.data[0].asnumpy()
        reference = arrays[expected["key"] + ":data"]
        assert data.dtype == reference.dtype
        np.testing.assert_allclose(data, reference, rtol=1e-6, atol=1e-5)
        np.testing.assert_array_equal(batch.label[0].asnumpy(), arrays[expected["key"] + ":label"])
    if "mean_img" in kwargs:
        created = mx.nd.load(kwargs["mean_img"])
        reference = mx.nd.load(data_path("mean_img.nd"))
        assert list(created) == ["mean_img"]
        np.testing.assert_allclose(created["mean_img"].asnumpy(), reference["mean_img"].asnumpy(), atol=1e-4)


def test_mean_img_file_written_by_mxnet_is_used(tmp_path):
    copy_data(tmp_path, "images_png.rec", "mean_img.nd")
    mean = mx.nd.load(str(tmp_path / "mean_img.nd"))["mean_img"].asnumpy()
    iterator = mx.io.ImageRecordIter(path_imgrec=str(tmp_path / "images_png.rec"), data_shape=(3, 12, 16),
                                     batch_size=2, mean_img=str(tmp_path / "mean_img.nd"))
    pixels = np.load(data_path("images_png.npz"))["original:0"][:, :, ::-1].transpose(2, 0, 1)
    np.testing.assert_allclose(iterator.next().data[0].asnumpy()[0], pixels - mean, atol=1e-5)


def test_round_batch_false_reports_padding(tmp_path):
    """Deliberate difference: MXNet 1.9.1 reported pad=0 here and left stale images in the unused rows."""
    iterator = mx.io.ImageRecordIter(path_imgrec=data_path("images_png.rec"), data_shape=(3, 12, 16), batch_size=4,
                                     round_batch=False)
    for _ in range(2):
        batches = list(iterator)
        assert [batch.pad for batch in batches] == [0, 2]
        assert batches[1].label[0].asnumpy()[:2].tolist() == [1.0, 2.0]
        assert not batches[1].data[0].asnumpy()[2:].any()
        iterator.reset()


def _source_images():
    arrays = np.load(data_path("images_png.npz"))
    return [arrays[f"original:{k}"][:, :, ::-1].transpose(2, 0, 1).astype(np.float32) for k in range(6)]


def test_shuffle_visits_every_image_once_per_epoch():
    sources = _source_images()
    iterator = mx.io.ImageRecordIter(path_imgrec=data_path("images_png.rec"), data_shape=(3, 12, 16), batch_size=3,
                                     shuffle=True, seed=4)
    orders = []
    for _ in range(3):
        images = np.concatenate([batch.data[0].asnumpy() for batch in iterator])
        iterator.reset()
        order = [next(k for k, source in enumerate(sources) if np.array_equal(image, source)) for image in images]
        assert sorted(order) == list(range(6))
        orders.append(order)
    assert len({tuple(order) for order in orders}) > 1
    again = mx.io.ImageRecordIter(path_imgrec=data_path("images_png.rec"), data_shape=(3, 12, 16), batch_size=3,
                                  shuffle=True, seed=4)
    images = np.concatenate([batch.data[0].asnumpy() for batch in again])
    assert [next(k for k, s in enumerate(sources) if np.array_equal(image, s)) for image in images] == orders[0]


def test_random_crop_and_mirror_take_crops_of_the_source():
    sources = _source_images()
    kwargs = dict(path_imgrec=data_path("images_png.rec"), data_shape=(3, 8, 10), batch_size=6, rand_crop=True,
                  rand_mirror=True, seed_aug=3)
    single = mx.io.ImageRecordIter(preprocess_threads=1, **kwargs).next().data[0].asnumpy()
    threaded = mx.io.ImageRecordIter(preprocess_threads=4, **kwargs).next().data[0].asnumpy()
    np.testing.assert_array_equal(single, threaded)      # reproducible whatever the number of threads
    positions, flips = set(), set()
    for image, source in zip(single, sources):
        crops = {(y, x): source[:, y:y + 8, x:x + 10] for y in range(12 - 8 + 1) for x in range(16 - 10 + 1)}
        matches = [(y, x, flip) for (y, x), crop in crops.items() for flip in (False, True)
                   if np.array_equal(image, crop[:, :, ::-1] if flip else crop)]
        assert matches, "every output is a (possibly mirrored) 8x10 crop of its source image"
        positions.add(matches[0][:2])
        flips.add(matches[0][2])
    assert len(positions) > 1 and flips == {False, True}


def test_parts_split_the_records():
    labels = []
    for part in range(2):
        iterator = mx.io.ImageRecordIter(path_imgrec=data_path("images_png.rec"), data_shape=(3, 12, 16),
                                         batch_size=3, num_parts=2, part_index=part)
        labels.append([batch.label[0].asnumpy().tolist() for batch in iterator])
    assert labels == [[[0.0, 1.0, 2.0]], [[0.0, 1.0, 2.0]]]
    images = [batch.data[0].asnumpy() for batch in mx.io.ImageRecordIter(
        path_imgrec=data_path("images_png.rec"), data_shape=(3, 12, 16), batch_size=3, num_parts=2, part_index=1)]
    np.testing.assert_array_equal(images[0], np.stack(_source_images()[3:]))


def test_label_width_mismatch_and_bad_arguments():
    with pytest.raises(MXNetError, match="3 labels but label_width is 1"):
        mx.io.ImageRecordIter(path_imgrec=data_path("multilabel.rec"), data_shape=(3, 12, 16), batch_size=2)
    with pytest.raises(MXNetError, match="data_shape"):
        mx.io.ImageRecordIter(path_imgrec=data_path("images_png.rec"), batch_size=2)
    with pytest.raises(MXNetError, match="does not exist"):
        mx.io.ImageRecordIter(path_imgrec=data_path("missing.rec"), data_shape=(3, 8, 8), batch_size=2)
    with pytest.raises(MXNetError, match="label_pad_width 3 is smaller"):
        mx.io.ImageDetRecordIter(path_imgrec=data_path("det.rec"), data_shape=(3, 8, 8), batch_size=2,
                                 label_pad_width=3)


def test_corrupt_record_files_raise_with_offset(tmp_path):
    content = pathlib.Path(data_path("images_png.rec")).read_bytes()
    (tmp_path / "cut.rec").write_bytes(content[:len(content) - 100])     # the last record is cut short
    with pytest.raises(MXNetError, match=r"cut\.rec.*byte offset 2344"):
        mx.io.ImageRecordIter(path_imgrec=str(tmp_path / "cut.rec"), data_shape=(3, 12, 16), batch_size=2)
    damaged = bytearray(content)
    damaged[468:472] = b"\0\0\0\0"                                      # magic number of the second record
    (tmp_path / "magic.rec").write_bytes(bytes(damaged))
    with pytest.raises(MXNetError, match="byte offset 468"):
        mx.io.ImageRecordIter(path_imgrec=str(tmp_path / "magic.rec"), data_shape=(3, 12, 16), batch_size=2)
    # an index pointing into the middle of a record
    shutil.copy(data_path("images_png.rec"), tmp_path / "ok.rec")
    (tmp_path / "bad.idx").write_text("0\t0\n1\t470\n")
    with pytest.raises(MXNetError, match="byte offset 470"):
        mx.io.ImageRecordIter(path_imgrec=str(tmp_path / "ok.rec"), path_imgidx=str(tmp_path / "bad.idx"),
                              data_shape=(3, 12, 16), batch_size=2)
    # a well-framed record whose payload is not an image
    writer = mx.recordio.MXRecordIO(str(tmp_path / "junk.rec"), "w")
    writer.write(content[:468][8:8 + 24 + 10])                           # header + 10 bytes of PNG
    writer.close()
    with pytest.raises(MXNetError, match="byte offset 0.*decode"):
        mx.io.ImageRecordIter(path_imgrec=str(tmp_path / "junk.rec"), data_shape=(3, 12, 16), batch_size=1)


def test_detection_random_augmentation_keeps_labels_consistent():
    iterator = mx.io.ImageDetRecordIter(path_imgrec=data_path("det.rec"), data_shape=(3, 16, 16), batch_size=5,
                                        rand_crop_prob=1, min_crop_scales=(0.5,), max_crop_scales=(0.9,),
                                        max_crop_trials=(50,), rand_pad_prob=0.5, max_pad_scale=2,
                                        rand_mirror_prob=0.5, seed=1)
    batch = iterator.next()
    label = batch.label[0].asnumpy()
    assert label.shape == (5, 4 + 17) and batch.data[0].shape == (5, 3, 16, 16)
    for row in label:
        channels, height, width, count = row[:4].astype(int)
        assert (channels, height, width) == (3, 16, 16)
        values = row[4:4 + count]
        assert values[0] == 2 and values[1] == 5 and (count - 2) % 5 == 0
        boxes = values[2:].reshape(-1, 5)[:, 1:]
        assert (boxes >= 0).all() and (boxes <= 1).all()
        assert (boxes[:, 2] >= boxes[:, 0]).all() and (boxes[:, 3] >= boxes[:, 1]).all()
        assert (row[4 + count:] == -1).all()


def test_aliases_and_uint8_arguments():
    assert mx.io.ImageRecordIter_v1 is mx.io.ImageRecordIter
    assert mx.io.ImageRecordUInt8Iter_v1 is mx.io.ImageRecordUInt8Iter
    with pytest.warns(UserWarning, match="scale"):
        mx.io.ImageRecordUInt8Iter(path_imgrec=data_path("images_png.rec"), data_shape=(3, 12, 16), batch_size=2,
                                   scale=0.5)


def test_string_arguments_and_names():
    """MXNet's C++ iterators took every argument as a string; paths may be os.PathLike."""
    iterator = mx.io.ImageRecordIter(path_imgrec=pathlib.Path(data_path("images_png.rec")), data_shape="(3, 12, 16)",
                                     batch_size="4", mean_r="123", scale="0.5", round_batch="1", rand_crop="False",
                                     preprocess_threads="2", prefetch_buffer=2, ctx="gpu", data_name="img",
                                     label_name="lab")
    assert iterator.provide_data == [("img", (4, 3, 12, 16))]
    assert iterator.provide_label == [("lab", (4,))]
    expected = (_source_images()[0] - np.array([123, 0, 0], np.float32).reshape(3, 1, 1)) * 0.5
    np.testing.assert_allclose(iterator.next().data[0].asnumpy()[0], expected, rtol=1e-6)
    with pytest.raises(MXNetError, match="batch_size"):
        mx.io.ImageRecordIter(path_imgrec=data_path("images_png.rec"), data_shape=(3, 8, 8), batch_size="four")
    with pytest.raises(MXNetError, match="inter_method"):
        mx.io.ImageRecordIter(path_imgrec=data_path("images_png.rec"), data_shape=(3, 8, 8), batch_size=2,
                              inter_method=7)
