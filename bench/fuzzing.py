"""The loop and the byte mutations the file fuzzers in bench/ share.

``mutate_bytes`` applies 1-4 random mutations to a file's bytes (bit flips, edge-value bytes,
truncation, insertion, deletion, 4- and 8-byte little-endian fields overwritten with edge
values); a fuzzer adds its own format-aware mutations through ``extra``.  ``run_cases`` feeds
each input to a check that must return an outcome name or raise MXNetError, with a per-input
time limit; anything else is counted as unexpected and printed.  It reports the outcome
counts, the slowest input and the peak resident memory, since no input may hang or allocate
what a corrupt length field claims.
"""
import collections
import os
import resource
import signal
import sys
import time
import traceback
import warnings

from mxtorch.base import MXNetError

EDGE_BYTES = [0x00, 0x01, 0x7F, 0x80, 0xFF]
EDGE_WORDS = [0, 1, 2**29 - 1, 2**31 - 1, 2**31, 2**32 - 1, 2**40, 2**63 - 1, 2**64 - 1]
BYTE_KINDS = ("flip", "byte", "truncate", "insert", "delete", "word32", "word64")


def mutate_bytes(data, rng, extra=None):
    """``data`` with 1-4 mutations drawn from BYTE_KINDS and ``extra``.

    ``extra`` maps a mutation name to ``function(bytearray, rng)`` that changes the array in
    place (a format-aware mutation: a record's length field, a list file's separators)."""
    data = bytearray(data)
    extra = extra or {}
    kinds = list(BYTE_KINDS) + sorted(extra)
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(kinds)
        position = rng.randrange(len(data)) if data else 0
        if kind in extra:
            extra[kind](data, rng)
        elif kind == "flip" and data:
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


class InputTimeout(Exception):
    """One input ran past the time limit."""


def _alarm(signum, frame):
    raise InputTimeout()


def run_cases(title, cases, check, timeout=10.0, show=5):
    """Run ``check(case)`` on every case of the iterable ``cases``; print a summary line.

    ``check`` returns an outcome name (counted) or raises MXNetError (counted as
    ``MXNetError``); any other exception, or a case running past ``timeout`` seconds, is
    unexpected: the first ``show`` are printed with their traceback.  Returns the number of
    unexpected outcomes."""
    counts = collections.Counter()
    unexpected = collections.Counter()
    slowest = (0.0, None)
    signal.signal(signal.SIGALRM, _alarm)
    for number, case in enumerate(cases):
        started = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                counts[check(case)] += 1
        except MXNetError:
            counts["MXNetError"] += 1
        except (InputTimeout, Exception) as error:   # noqa: BLE001 (what a fuzzer looks for)
            frame = traceback.extract_tb(error.__traceback__)[-1]
            where = f"{type(error).__name__} at {os.path.basename(frame.filename)}:{frame.lineno}"
            unexpected[where] += 1
            if sum(unexpected.values()) <= show:
                print(f"--- {title} case {number}: unexpected {type(error).__name__}", file=sys.stderr)
                traceback.print_exc()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        elapsed = time.perf_counter() - started
        if elapsed > slowest[0]:
            slowest = (elapsed, number)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    total = sum(unexpected.values())
    print(f"{title}: cases={sum(counts.values()) + total} "
          + " ".join(f"{name}={value}" for name, value in sorted(counts.items()))
          + f" unexpected={total} slowest={slowest[0] * 1000:.1f}ms(case {slowest[1]}) peak_rss={peak:.0f}MB",
          flush=True)
    for where, number in sorted(unexpected.items()):
        print(f"  unexpected: {number} x {where}", flush=True)
    return total
