"""Kill ``save_checkpoint`` with SIGKILL at random moments and check that no checkpoint is broken.

    python tools/checkpoint_kill_loop.py [--kills 1000] [--folder DIR] [--seed 0]

A forked child saves generation g+1, g+2, ... of one checkpoint (the same epoch, so every
save replaces the previous files: ``-symbol.json``, ``-0001.params``, ``-0001.states``),
each generation recognisable in all three files (a symbol attribute, a parameter value, the
states bytes).  The parent kills it after a random delay (spread over about three save
durations), then loads the checkpoint the way a user would (``mx.model.load_checkpoint``,
which completes an interrupted save) and checks that the three files are complete and of
one generation, the last finished one or the one being written.  Prints the counts and
exits 1 on any broken checkpoint.  Runs with the project's venv (fork: POSIX only).
"""
import argparse
import os
import pickle
import random
import signal
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))
import mxtorch as mx  # noqa: E402


def generation_files(generation):
    """(symbol, arg_params, states) of ``generation``."""
    with mx.AttrScope(__generation__=str(generation)):
        symbol = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=8, name="fc")
    params = {"fc_weight": mx.nd.full((8, 64), float(generation)), "fc_bias": mx.nd.full((8,), float(generation))}
    states = pickle.dumps({"generation": generation, "pad": b"s" * 20000})
    return symbol, params, states


def save_forever(prefix, start, ready=None):
    """Save generations start+1, start+2, ... until killed; writes one byte to the file
    descriptor ``ready`` when it starts (so the parent's random delay counts from the first
    save, not from the fork, whose start-up time varies with the machine's load)."""
    generation = start
    if ready is not None:
        os.write(ready, b"s")
        os.close(ready)
    while True:
        generation += 1
        symbol, params, states = generation_files(generation)
        mx.model.save_checkpoint(prefix, 1, symbol, params, {}, states=states)


def read_generation(prefix):
    """The generation of the checkpoint under ``prefix``; ValueError when the files are broken
    or of different generations."""
    symbol, arg_params, aux_params = mx.model.load_checkpoint(prefix, 1)
    from_symbol = int(symbol.attr_dict()["fc"]["__generation__"])
    weights = arg_params["fc_weight"].asnumpy()
    from_params = int(weights.flat[0])
    if not (weights == from_params).all() or not (arg_params["fc_bias"].asnumpy() == from_params).all():
        raise ValueError("parameters of mixed generations")
    with open("%s-0001.states" % prefix, "rb") as handle:
        from_states = pickle.loads(handle.read())["generation"]
    if not from_symbol == from_params == from_states:
        raise ValueError(f"a mixed set: symbol {from_symbol}, params {from_params}, states {from_states}")
    return from_symbol


def run(kills, folder, seed=0, log=print):
    """Kill ``kills`` saves; returns a dict of counts (``broken`` must be 0)."""
    rng = random.Random(seed)
    prefix = os.path.join(folder, "ck")
    symbol, params, states = generation_files(0)
    mx.model.save_checkpoint(prefix, 1, symbol, params, {}, states=states)
    started = time.perf_counter()
    for index in range(20):
        mx.model.save_checkpoint(prefix, 1, symbol, params, {}, states=states)
    save_seconds = (time.perf_counter() - started) / 20
    counts = {"kills": 0, "broken": 0, "unchanged": 0, "advanced": 0, "replayed_journal": 0,
              "save_ms": round(save_seconds * 1000, 3)}
    generation = 0
    for index in range(kills):
        ready_read, ready_write = os.pipe()
        child = os.fork()
        if child == 0:
            try:
                os.close(ready_read)
                save_forever(prefix, generation, ready_write)
            finally:
                os._exit(0)
        os.close(ready_write)
        os.read(ready_read, 1)                 # the child is about to start its first save
        os.close(ready_read)
        time.sleep(rng.uniform(0, 4 * save_seconds))
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
        counts["kills"] += 1
        journal = mx.model.checkpoint_journal(prefix)
        counts["replayed_journal"] += os.path.exists(journal)
        try:
            now = read_generation(prefix)
        except Exception as error:     # noqa: BLE001 (any failure to load is a broken checkpoint)
            counts["broken"] += 1
            log(f"kill {index}: broken checkpoint: {error}")
            continue
        if now < generation:
            counts["broken"] += 1
            log(f"kill {index}: went back from generation {generation} to {now}")
        counts["advanced" if now > generation else "unchanged"] += 1
        generation = now
    counts["leftover_files"] = sorted(name for name in os.listdir(folder) if name.endswith((".tmp", ".journal")))
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=1000)
    parser.add_argument("--folder", type=str, default=None, help="where to save (default: a temporary folder)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import torch
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as temporary:
        counts = run(args.kills, args.folder or temporary, args.seed)
    print(" ".join(f"{name}={value}" for name, value in counts.items()))
    return 1 if counts["broken"] else 0


if __name__ == "__main__":
    sys.exit(main())
