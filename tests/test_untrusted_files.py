"""Files from untrusted sources: RecordIO length fields are checked against the bytes left
before anything is read, text files that are not text raise MXNetError, pickled .states
cannot run code, and a bounded run of the RecordIO fuzzer finds nothing but MXNetErrors."""
import os
import pickle
import struct
import sys
import tracemalloc

import pytest

import mxtorch as mx
from mxtorch.base import MXNetError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import fuzz_recordio  # noqa: E402

MAGIC = 0xCED7230A


def test_a_record_claiming_512_megabytes_is_rejected_without_reading_it(tmp_path):
    path = tmp_path / "huge.rec"
    path.write_bytes(struct.pack("<II", MAGIC, 2**29 - 1) + b"x" * 64)
    tracemalloc.start()
    try:
        reader = mx.recordio.MXRecordIO(str(path), "r")
        with pytest.raises(MXNetError, match=r"byte offset 0: the record announces 536870911 bytes but the file "
                                             r"ends 64 bytes after its header"):
            reader.read()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20          # nothing near the claimed size was allocated
    with pytest.raises(MXNetError, match="announces"):
        list(mx.io.ImageRecordIter(path_imgrec=str(path), data_shape=(3, 4, 4), batch_size=1))


def test_an_index_that_is_not_text_or_has_negative_offsets_raises(tmp_path):
    writer = mx.recordio.MXIndexedRecordIO(str(tmp_path / "a.idx"), str(tmp_path / "a.rec"), "w")
    writer.write_idx(0, b"first")
    writer.close()
    (tmp_path / "bad.idx").write_bytes(b"0\t0\n\xff\xfe\t8\n")
    with pytest.raises(MXNetError, match=r"index file .*bad.idx' is not text \(invalid start byte at byte 4\)"):
        mx.recordio.MXIndexedRecordIO(str(tmp_path / "bad.idx"), str(tmp_path / "a.rec"), "r")
    (tmp_path / "neg.idx").write_text("0\t-8\n")
    with pytest.raises(MXNetError, match=r"line 1 of index file .* with an offset >= 0: '0.t-8'"):
        mx.recordio.MXIndexedRecordIO(str(tmp_path / "neg.idx"), str(tmp_path / "a.rec"), "r")
    (tmp_path / "far.idx").write_text("0\t4096\n")
    reader = mx.recordio.MXIndexedRecordIO(str(tmp_path / "far.idx"), str(tmp_path / "a.rec"), "r")
    with pytest.raises(MXNetError, match="outside the file"):
        reader.read_idx(0)


def test_image_lists_that_are_not_text_or_have_other_label_counts_raise(tmp_path):
    (tmp_path / "bad.lst").write_bytes(b"0\t1.0\t\xffa.png\n")
    with pytest.raises(MXNetError, match="image list .* is not UTF-8 text"):
        mx.image.ImageIter(batch_size=1, data_shape=(3, 4, 4), path_imglist=str(tmp_path / "bad.lst"))
    (tmp_path / "two.lst").write_text("0\t1.0\t2.0\ta.png\n")
    with pytest.raises(MXNetError, match="has 2 labels, expected label_width=1"):
        mx.image.ImageIter(batch_size=1, data_shape=(3, 4, 4), path_imglist=str(tmp_path / "two.lst"))


class WritesAMarker:
    marker = None

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_malicious_states_pickle_does_not_run(tmp_path):
    marker = tmp_path / "pwned"
    WritesAMarker.marker = str(marker)
    states = tmp_path / "evil.states"
    states.write_bytes(pickle.dumps({0: WritesAMarker()}, protocol=2))
    assert not marker.exists()
    kv = mx.kv.create("local")
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1))
    with pytest.raises(MXNetError, match=r"refusing to load the global _?io\.open"):
        kv.load_optimizer_states(str(states))
    module = mx.mod.Module(mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2,
                                                                      name="fc"), name="softmax"))
    module.bind(data_shapes=[("data", (1, 3))], label_shapes=[("softmax_label", (1,))])
    module.init_params()
    module.init_optimizer()
    with pytest.raises(MXNetError, match="refusing"):
        module.load_optimizer_states(str(states))
    assert not marker.exists()


def test_nd_load_of_a_file_claiming_huge_arrays_raises(tmp_path):
    good = tmp_path / "a.nd"
    mx.nd.save(str(good), {"w": mx.nd.ones((4, 4))})
    data = bytearray(good.read_bytes())
    shape_at = data.find(struct.pack("<q", 4) * 2)        # the two int64 dimensions of the shape
    assert shape_at > 0
    data[shape_at:shape_at + 16] = struct.pack("<qq", 2**20, 2**20)   # claims 2**40 floats (4 TiB)
    tracemalloc.start()
    try:
        with pytest.raises(MXNetError):
            mx.nd.load_frombuffer(bytes(data))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20


def test_bounded_fuzz_run_finds_only_mxneterrors(capsys):
    assert fuzz_recordio.main(["--iterations", "40", "--seed", "3"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line and not line.startswith(" ")]
    assert [line.split(":")[0] for line in lines] == ["rec", "idx", "lst", "image"]
    for line in lines:
        fields = dict(item.split("=", 1) for item in line.split(": ", 1)[1].split() if "=" in item)
        assert fields["cases"] == "40" and fields["unexpected"] == "0", line
        assert int(fields["MXNetError"]) > 0, line          # the mutations do break files


def _png_claiming(width, height):
    """A PNG whose header claims ``width`` x ``height`` RGB pixels and holds almost no data."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 100))
            + chunk(b"IEND", b""))


def test_image_header_claiming_huge_dimensions_is_refused_not_allocated():
    # 20000 x 20000 pixels is over mxtorch's bound on decoded pixels (util.MAX_IMAGE_PIXELS,
    # passed to OpenCV as OPENCV_IO_MAX_IMAGE_PIXELS): OpenCV refuses it before allocating,
    # and imdecode / unpack_img report the bytes as undecodable
    import pytest
    import mxtorch as mx
    pytest.importorskip("cv2")
    assert 20000 * 20000 > mx.util.MAX_IMAGE_PIXELS
    png = _png_claiming(20000, 20000)
    with pytest.raises(mx.base.MXNetError, match="not an image OpenCV can decode"):
        mx.image.imdecode(png)
    record = mx.recordio.pack(mx.recordio.IRHeader(0, 1.0, 7, 0), png)
    with pytest.raises(mx.base.MXNetError, match="record id 7"):
        mx.recordio.unpack_img(record)


def test_opencv_is_imported_with_mxtorchs_pixel_bound():
    # in a fresh process without the variable, OpenCV as mxtorch imports it refuses the 4e8-pixel
    # header by its size check (OpenCV's own default bound, 2**30 pixels, would let it through)
    import os
    import subprocess
    import sys
    import pytest
    pytest.importorskip("cv2")
    program = f"""
import numpy as np
from mxtorch.util import import_opencv
cv2 = import_opencv("test")
png = np.frombuffer({_png_claiming(20000, 20000)!r}, dtype=np.uint8)
try:
    cv2.imdecode(png, cv2.IMREAD_COLOR)
    print("no size check")
except cv2.error as error:
    print("refused", "MAX_IMAGE_PIXELS" in str(error))
"""
    env = {k: v for k, v in os.environ.items() if k != "OPENCV_IO_MAX_IMAGE_PIXELS"}
    out = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["refused", "True"], out.stderr


def test_png_chunk_length_past_the_end_is_refused_before_decoding():
    # one flipped length byte makes an IDAT chunk claim ~4 GiB; OpenCV's PNG reader allocates the
    # claimed length before noticing the stream is short (seconds and gigabytes), so mxtorch
    # checks every chunk against the bytes there are and reports the image as undecodable
    import resource
    import struct
    import pytest
    import mxtorch as mx
    pytest.importorskip("cv2")
    good = _png_claiming(4, 3)
    assert mx.image.imdecode(good).shape == (3, 4, 3)
    idat = good.index(b"IDAT") - 4
    bad = good[:idat] + struct.pack(">I", 2**32 - 139) + good[idat + 4:]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(mx.base.MXNetError, match="not an image OpenCV can decode"):
        mx.image.imdecode(bad)
    record = mx.recordio.pack(mx.recordio.IRHeader(0, 1.0, 3, 0), bad)
    with pytest.raises(mx.base.MXNetError, match="record id 3"):
        mx.recordio.unpack_img(record)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mib < 512, f"decoding a 200-byte PNG raised peak memory by {grown_mib:.0f} MiB"
    # bytes after IEND are ignored, as decoders do
    assert mx.image.imdecode(good + b"\x00" * 7 + struct.pack(">I", 2**31)).shape == (3, 4, 3)
