"""Fuzz mx.nd.load_frombuffer with mutated MXNet NDArray files.

Every input is a valid file from tests/data/ndarray and tests/data/checkpoints (*.nd,
*.params, the legacy v0 file) with 1-4 random mutations (bench/fuzzing.py: bit flips, bytes
set to edge values, truncation, insertion or deletion of bytes, 4- or 8-byte fields
overwritten with huge or negative integers).  Each load must either succeed or raise
MXNetError; anything else, or an input running past --timeout seconds, is counted as
unexpected and printed.  The slowest input and the peak memory are reported too.

    PYTHONPATH=src python bench/fuzz_ndarray_files.py --iterations 10000 --seed 0

Exit status: 0 when no unexpected exception occurred, 1 otherwise.
"""
import argparse
import pathlib
import random
import sys

import mxtorch as mx
from fuzzing import mutate_bytes, run_cases

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_DIRECTORIES = [ROOT / "tests" / "data" / "ndarray", ROOT / "tests" / "data" / "checkpoints"]


def seed_files(directories):
    files = []
    for directory in directories:
        for path in sorted(directory.iterdir()):
            if path.suffix in (".nd", ".params") or path.name == "legacy_ndarray.v0":
                files.append(path)
    return files


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", "-n", type=int, default=10000,
                        help="number of mutated inputs (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds allowed per input")
    parser.add_argument("--data", type=pathlib.Path, action="append",
                        help="directory of seed files (repeatable; default tests/data/ndarray "
                             "and tests/data/checkpoints)")
    args = parser.parse_args(argv)

    files = seed_files(args.data or DEFAULT_DIRECTORIES)
    if not files:
        parser.error("no seed files found")
    seeds = [path.read_bytes() for path in files]
    rng = random.Random(args.seed)
    print(f"seed files: {len(files)}; inputs: {args.iterations}; seed: {args.seed}")

    def load(data):
        mx.nd.load_frombuffer(data)
        return "loaded"
    cases = (mutate_bytes(rng.choice(seeds), rng) for _ in range(args.iterations))
    return 1 if run_cases("nd.load", cases, load, timeout=args.timeout) else 0


if __name__ == "__main__":
    sys.exit(main())
