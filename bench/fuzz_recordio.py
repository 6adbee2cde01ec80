"""Fuzz RecordIO readers with mutated ``.rec``, ``.idx``, ``.lst`` files and image bytes.

Seeds: the RecordIO files in tests/data/recordio (image, multi-label, detection, split
multi-part and raw records) and a small generated image folder.  Each case mutates one seed
1-4 times (bit flips, edge bytes, truncation, insertion, deletion, the record magic number
overwritten, a record's length field set to point past the end of the file or to ~512 MB,
4-byte fields set to edge values) and reads it the way a training job would:

- ``rec``: ``MXRecordIO`` reads every record, ``recordio.unpack`` each, decodes the image;
  every 25th case also runs an ``ImageRecordIter`` epoch over the file;
- ``idx``: ``MXIndexedRecordIO`` with a mutated index reads every key;
- ``lst``: ``ImageIter(path_imglist=...)`` over a mutated list runs an epoch;
- ``image``: ``mx.image.imdecode`` of mutated JPEG / PNG bytes.

Each case must succeed or raise MXNetError (a skipped record is counted where the reader
skips); any other exception is counted as unexpected and printed.  The slowest case and
the peak resident memory are reported, since no input may hang or allocate a claimed size.

    PYTHONPATH=src python bench/fuzz_recordio.py --iterations 10000 --seed 0 [--kinds rec,idx,lst,image]

Exit status 0 when no unexpected exception occurred, 1 otherwise.
"""
import argparse
import os
import pathlib
import random
import resource
import struct
import sys
import tempfile
import time
import traceback
import warnings

import numpy as np

import mxtorch as mx
from mxtorch.base import MXNetError

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "recordio"
REC_SEEDS = ["images_jpg95.rec", "images_png.rec", "multilabel.rec", "multipart.rec", "det.rec",
             "raw_records.rec"]
MAGIC = struct.pack("<I", 0xCED7230A)
EDGE_BYTES = [0x00, 0x01, 0x7F, 0x80, 0xFF]
EDGE_WORDS = [0, 1, 2**29 - 1, 2**31 - 1, 2**31, 2**32 - 1]


def mutate(data, rng, text=False):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kinds = ["flip", "byte", "truncate", "insert", "delete", "word32", "magic", "length"]
        if text:
            kinds += ["digits", "tab", "newline"]
        kind = rng.choice(kinds)
        position = rng.randrange(len(data)) if data else 0
        if kind == "flip" and data:
            data[position] ^= 1 << rng.randrange(8)
        elif kind == "byte" and data:
            data[position] = rng.choice(EDGE_BYTES + [rng.randrange(256)])
        elif kind == "truncate":
            del data[position:]
        elif kind == "insert":
            data[position:position] = rng.randbytes(rng.randint(1, 16))
        elif kind == "delete":
            del data[position:position + rng.randint(1, 16)]
        elif kind == "word32" and len(data) >= 4:
            position = min(position, len(data) - 4) & ~3
            data[position:position + 4] = (rng.choice(EDGE_WORDS + [rng.getrandbits(32)]) % 2**32).to_bytes(4, "little")
        elif kind in ("magic", "length"):
            headers = [i for i in range(0, len(data) - 7, 4) if data[i:i + 4] == MAGIC]
            if headers:
                at = rng.choice(headers)
                if kind == "magic":
                    data[at:at + 4] = rng.randbytes(4)
                else:   # point past the end, or claim ~512 MB, keeping the continuation flag
                    flag = struct.unpack("<I", data[at + 4:at + 8])[0] >> 29
                    length = rng.choice([len(data) - at, len(data) + rng.randint(1, 64), 2**29 - 1,
                                         2**29 - 4, rng.randrange(2**29)])
                    data[at + 4:at + 8] = struct.pack("<I", (flag << 29) | (length & (2**29 - 1)))
        elif kind == "digits":
            data[position:position] = rng.choice([b"-1", b"99999999999999999999", b"1e309", b"nan", b"0x10"])
        elif kind == "tab":
            data[position:position] = b"\t"
        elif kind == "newline":
            data[position:position] = b"\n"
    return bytes(data)


def read_rec(path, counts):
    reader = mx.recordio.MXRecordIO(path, "r")
    try:
        while True:
            record = reader.read()
            if record is None:
                return
            try:
                header, payload = mx.recordio.unpack(record)
            except MXNetError:
                counts["records_rejected"] += 1
                continue
            if payload[:2] in (b"\xff\xd8", b"\x89P"):
                try:
                    mx.image.imdecode(payload)
                except MXNetError:
                    counts["images_rejected"] += 1
    finally:
        reader.close()


def iterate_records(path, counts):
    iterator = mx.io.ImageRecordIter(path_imgrec=path, data_shape=(3, 8, 8), batch_size=2, resize=8,
                                     preprocess_threads=1, prefetch_buffer=1, round_batch=False)
    for _ in iterator:
        pass


def read_idx(index_path, rec_path, counts):
    reader = mx.recordio.MXIndexedRecordIO(index_path, rec_path, "r")
    try:
        for key in list(reader.keys):
            reader.read_idx(key)
    finally:
        reader.close()


def iterate_list(list_path, root, counts):
    iterator = mx.image.ImageIter(batch_size=2, data_shape=(3, 8, 8), path_imglist=list_path, path_root=root)
    for _ in iterator:
        pass


def decode_image(data, counts):
    mx.image.imdecode(data)


def image_folder(folder):
    """Four small PNG / JPEG images and their .lst, the seeds of the 'lst' cases."""
    import cv2
    rng = np.random.RandomState(0)
    lines = []
    for index in range(4):
        name = f"img{index}.{'png' if index % 2 else 'jpg'}"
        cv2.imwrite(os.path.join(folder, name), rng.randint(0, 256, (10, 12, 3)).astype(np.uint8))
        lines.append(f"{index}\t{float(index % 3)}\t{name}")
    return ("\n".join(lines) + "\n").encode()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", "-n", type=int, default=10000, help="mutated inputs per kind (default 10000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kinds", type=str, default="rec,idx,lst,image")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    rng = random.Random(args.seed)
    rec_seeds = [(DATA / name).read_bytes() for name in REC_SEEDS]
    idx_seeds = [(DATA / (name[:-4] + ".idx"), DATA / name) for name in REC_SEEDS if (DATA / (name[:-4] + ".idx")).exists()]
    image_seeds = []
    for name in ("images_jpg95.rec", "images_png.rec"):
        reader = mx.recordio.MXRecordIO(str(DATA / name), "r")
        while (record := reader.read()) is not None:
            image_seeds.append(mx.recordio.unpack(record)[1])
        reader.close()
    status = 0
    with tempfile.TemporaryDirectory() as folder:
        list_seed = image_folder(folder)
        target = os.path.join(folder, "case")
        for kind in args.kinds.split(","):
            counts = {"cases": 0, "ok": 0, "mxneterror": 0, "unexpected": 0, "records_rejected": 0,
                      "images_rejected": 0}
            slowest = (0.0, None)
            unexpected = {}
            for case in range(args.iterations):
                started = time.perf_counter()
                try:
                    if kind == "rec":
                        with open(target + ".rec", "wb") as handle:
                            handle.write(mutate(rng.choice(rec_seeds), rng))
                        read_rec(target + ".rec", counts)
                        if case % 25 == 0:
                            iterate_records(target + ".rec", counts)
                    elif kind == "idx":
                        index_path, rec_path = rng.choice(idx_seeds)
                        with open(target + ".idx", "wb") as handle:
                            handle.write(mutate(index_path.read_bytes(), rng, text=True))
                        read_idx(target + ".idx", str(rec_path), counts)
                    elif kind == "lst":
                        with open(target + ".lst", "wb") as handle:
                            handle.write(mutate(list_seed, rng, text=True))
                        iterate_list(target + ".lst", folder, counts)
                    elif kind == "image":
                        decode_image(mutate(rng.choice(image_seeds), rng), counts)
                    else:
                        parser.error(f"unknown kind {kind!r}")
                    counts["ok"] += 1
                except MXNetError:
                    counts["mxneterror"] += 1
                except Exception as error:   # noqa: BLE001 (what the fuzzer is looking for)
                    counts["unexpected"] += 1
                    frame = traceback.extract_tb(error.__traceback__)[-1]
                    where = f"{type(error).__name__} at {os.path.basename(frame.filename)}:{frame.lineno}"
                    unexpected[where] = unexpected.get(where, 0) + 1
                    if counts["unexpected"] <= 5:
                        print(f"{kind} case {case}: unexpected exception", file=sys.stderr)
                        traceback.print_exc()
                counts["cases"] += 1
                elapsed = time.perf_counter() - started
                if elapsed > slowest[0]:
                    slowest = (elapsed, case)
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"{kind}: " + " ".join(f"{name}={value}" for name, value in counts.items())
                  + f" slowest={slowest[0] * 1000:.1f}ms(case {slowest[1]}) peak_rss={peak:.0f}MB", flush=True)
            for where, number in sorted(unexpected.items()):
                print(f"  unexpected: {number} x {where}", flush=True)
            status |= counts["unexpected"] > 0
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
