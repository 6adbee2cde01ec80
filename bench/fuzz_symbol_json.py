"""Fuzz mx.sym.load_json with structurally mutated MXNet symbol JSON.

Every input starts from a symbol-JSON fixture (tests/data/symbol-json) and gets 1-4
structural mutations (tests/symbol_json_mutations.py): values of the wrong type, missing
keys, node indices out of range, self references and forward references (cycles), huge or
malformed num_args / num_outputs, malformed attribute strings, operators swapped for other
registered operators, old-format spellings, duplicated or reordered nodes.  The text stays
valid JSON.  Each input must either load or raise MXNetError; anything else (another
exception type, an input running past --timeout seconds) is counted and printed
(bench/fuzzing.py runs the loop).  A graph
that loads must also survive ``tojson()`` and load again to the same text.

    PYTHONPATH=src python bench/fuzz_symbol_json.py --iterations 10000 --seed 0

Exit status: 0 when every input behaved, 1 otherwise.
"""
import argparse
import collections
import pathlib
import random
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import mxtorch as mx  # noqa: E402
from mxtorch.base import MXNetError  # noqa: E402
from symbol_json_mutations import RandomChooser, mutated_text, operator_schemas, seed_graphs  # noqa: E402
from fuzzing import run_cases  # noqa: E402


# graph_json turns an operator's own non-MXNetError exception into an MXNetError with one of
# these phrases; they are counted apart because they point at an operator to fix
OPERATOR_BUG_PHRASES = ("rejected its attributes", "failed to count its outputs", "input_variable_attrs(")


def check_one(text, operator_bugs):
    """``'loaded'`` or ``'MXNetError'``; raises anything else."""
    try:
        symbol = mx.sym.load_json(text)
    except MXNetError as error:
        message = str(error)
        if any(phrase in message for phrase in OPERATOR_BUG_PHRASES):
            operator = message.split("operator ", 1)[-1].split(" ", 1)[0]
            cause = re.search(r"\((\w+Error: .*)\)$", message, re.DOTALL)
            operator_bugs[f"{operator}: {cause.group(1)[:100] if cause else message[-100:]}"] += 1
            return "MXNetError from an operator's own exception"
        return "MXNetError"
    written = symbol.tojson()
    again = mx.sym.load_json(written).tojson()
    if again != written:
        raise AssertionError("tojson() of a loaded graph does not load back to the same text")
    return "loaded"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds allowed per input")
    parser.add_argument("--show", type=int, default=10, help="unexpected failures to print in full")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    chooser = RandomChooser(rng)
    seeds = seed_graphs()
    names = sorted(seeds)
    operators = operator_schemas()
    operator_bugs = collections.Counter()
    print(f"inputs: {args.iterations} (seed {args.seed})")
    cases = (mutated_text(seeds[names[i % len(names)]], chooser, operators) for i in range(args.iterations))
    unexpected = run_cases("sym.load_json", cases, lambda text: check_one(text, operator_bugs),
                           timeout=args.timeout, show=args.show)
    for message, count in operator_bugs.most_common(20):
        print(f"  operator bug x{count}: {message}")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
