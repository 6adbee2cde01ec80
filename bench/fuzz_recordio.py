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
skips); any other exception, or a case past --timeout seconds, is counted as unexpected and
printed (bench/fuzzing.py runs the loop and the byte mutations).  The slowest case and
the peak resident memory are reported, since no input may hang or allocate a claimed size.

    PYTHONPATH=src python bench/fuzz_recordio.py --iterations 10000 --seed 0 [--kinds rec,idx,lst,image]

Exit status 0 when no unexpected exception occurred, 1 otherwise.
"""
import argparse
import os
import pathlib
import random
import struct
import sys
import tempfile

import numpy as np

import mxtorch as mx
from mxtorch.base import MXNetError
from fuzzing import mutate_bytes, run_cases

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "recordio"
REC_SEEDS = ["images_jpg95.rec", "images_png.rec", "multilabel.rec", "multipart.rec", "det.rec",
             "raw_records.rec"]
MAGIC = struct.pack("<I", 0xCED7230A)


def _record_headers(data):
    return [i for i in range(0, len(data) - 7, 4) if data[i:i + 4] == MAGIC]


def _overwrite_magic(data, rng):
    headers = _record_headers(data)
    if headers:
        at = rng.choice(headers)
        data[at:at + 4] = rng.randbytes(4)


def _bad_length(data, rng):
    """A record's length field pointing past the end, or claiming ~512 MB (continuation flag kept)."""
    headers = _record_headers(data)
    if headers:
        at = rng.choice(headers)
        flag = struct.unpack("<I", data[at + 4:at + 8])[0] >> 29
        length = rng.choice([len(data) - at, len(data) + rng.randint(1, 64), 2**29 - 1, 2**29 - 4,
                             rng.randrange(2**29)])
        data[at + 4:at + 8] = struct.pack("<I", (flag << 29) | (length & (2**29 - 1)))


def _insert(text):
    def insert(data, rng):
        choice = rng.choice(text) if isinstance(text, list) else text
        position = rng.randrange(len(data)) if data else 0
        data[position:position] = choice
    return insert


RECORD_MUTATIONS = {"magic": _overwrite_magic, "length": _bad_length}
TEXT_MUTATIONS = dict(RECORD_MUTATIONS, digits=_insert([b"-1", b"99999999999999999999", b"1e309", b"nan", b"0x10"]),
                      tab=_insert(b"\t"), newline=_insert(b"\n"))


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
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds allowed per input")
    parser.add_argument("--kinds", type=str, default="rec,idx,lst,image")
    args = parser.parse_args(argv)
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
            counts = {"records_rejected": 0, "images_rejected": 0}

            def write(suffix, data):
                with open(target + suffix, "wb") as handle:
                    handle.write(data)
                return target + suffix

            def check(case):
                number, data = case
                if kind == "rec":
                    read_rec(write(".rec", data), counts)
                    if number % 25 == 0:
                        iterate_records(target + ".rec", counts)
                elif kind == "idx":
                    index_path, rec_path = data
                    read_idx(write(".idx", mutate_bytes(index_path.read_bytes(), rng, TEXT_MUTATIONS)),
                             str(rec_path), counts)
                elif kind == "lst":
                    iterate_list(write(".lst", data), folder, counts)
                else:
                    decode_image(data, counts)
                return "ok"

            if kind == "rec":
                cases = (mutate_bytes(rng.choice(rec_seeds), rng, RECORD_MUTATIONS) for _ in range(args.iterations))
            elif kind == "idx":
                cases = (rng.choice(idx_seeds) for _ in range(args.iterations))
            elif kind == "lst":
                cases = (mutate_bytes(list_seed, rng, TEXT_MUTATIONS) for _ in range(args.iterations))
            elif kind == "image":
                cases = (mutate_bytes(rng.choice(image_seeds), rng) for _ in range(args.iterations))
            else:
                parser.error(f"unknown kind {kind!r}")
            status |= bool(run_cases(kind, enumerate(cases), check, timeout=args.timeout))
            print("  " + " ".join(f"{name}={value}" for name, value in counts.items()), flush=True)
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
