"""Fuzz mx.nd.load_frombuffer with mutated MXNet NDArray files.

Every input is a valid file from tests/data/ndarray and tests/data/checkpoints (*.nd,
*.params, the legacy v0 file) with 1-4 random mutations: bit flips, bytes set to edge
values, truncation, insertion or deletion of bytes, 4- or 8-byte fields overwritten with
huge or negative integers.  Each load must either succeed or raise MXNetError; anything
else (another exception type) is counted as unexpected and printed.  The slowest input is
reported too, since no input may make the loader hang.

    PYTHONPATH=src python bench/fuzz_ndarray_files.py --iterations 10000 --seed 0

Exit status: 0 when no unexpected exception occurred, 1 otherwise.
"""
import argparse
import pathlib
import random
import sys
import time
import traceback
import warnings

from tqdm import tqdm

import mxtorch as mx
from mxtorch.base import MXNetError

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_DIRECTORIES = [ROOT / "tests" / "data" / "ndarray", ROOT / "tests" / "data" / "checkpoints"]
EDGE_BYTES = [0x00, 0x01, 0x7F, 0x80, 0xFF]
EDGE_WORDS = [0, 1, 2**31 - 1, 2**31, 2**32 - 1, 2**40, 2**63 - 1, 2**64 - 1]


def seed_files(directories):
    files = []
    for directory in directories:
        for path in sorted(directory.iterdir()):
            if path.suffix in (".nd", ".params") or path.name == "legacy_ndarray.v0":
                files.append(path)
    return files


def mutate(data, rng):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(["flip", "byte", "truncate", "insert", "delete", "word32", "word64"])
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
        elif kind in ("word32", "word64"):
            width = 4 if kind == "word32" else 8
            if len(data) >= width:
                position = min(position, len(data) - width)
                value = rng.choice(EDGE_WORDS + [rng.getrandbits(8 * width)]) % (1 << (8 * width))
                data[position:position + width] = value.to_bytes(width, "little")
    return bytes(data)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", "-n", type=int, default=10000,
                        help="number of mutated inputs (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--data", type=pathlib.Path, action="append",
                        help="directory of seed files (repeatable; default tests/data/ndarray "
                             "and tests/data/checkpoints)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)

    files = seed_files(args.data or DEFAULT_DIRECTORIES)
    if not files:
        parser.error("no seed files found")
    seeds = [path.read_bytes() for path in files]
    rng = random.Random(args.seed)
    counts = {"loaded": 0, "MXNetError": 0, "unexpected": 0}
    slowest = (0.0, None)
    unexpected = []
    started = time.perf_counter()
    for _ in tqdm(range(args.iterations), disable=args.quiet, unit="input"):
        index = rng.randrange(len(seeds))
        data = mutate(seeds[index], rng)
        begin = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mx.nd.load_frombuffer(data)
            counts["loaded"] += 1
        except MXNetError:
            counts["MXNetError"] += 1
        except Exception as error:  # noqa: BLE001 - counting is the point
            counts["unexpected"] += 1
            if len(unexpected) < 10:
                unexpected.append((files[index].name, data, error, traceback.format_exc()))
        elapsed = time.perf_counter() - begin
        if elapsed > slowest[0]:
            slowest = (elapsed, files[index].name)
    total = time.perf_counter() - started

    print(f"seed files: {len(files)}; inputs: {args.iterations}; seed: {args.seed}")
    print(f"loaded: {counts['loaded']}  MXNetError: {counts['MXNetError']}  "
          f"unexpected: {counts['unexpected']}")
    print(f"total {total:.2f} s, slowest input {slowest[0] * 1000:.1f} ms (from {slowest[1]})")
    for name, data, error, trace in unexpected:
        print(f"\n--- unexpected {type(error).__name__} on a mutation of {name} "
              f"({len(data)} bytes): {error}\n{trace}")
    return 1 if counts["unexpected"] else 0


if __name__ == "__main__":
    sys.exit(main())
