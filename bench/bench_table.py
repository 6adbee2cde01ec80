"""The performance table of issue 11: MXNet 1.9.1, mxtorch, plain PyTorch (eager and compiled), onnxruntime.

Every column runs in its own worker process and the driver interleaves them:
each round times every workload once in every column (the column order
rotates from round to round), so the load of a shared machine falls on all
columns alike.  A cell is the median over the rounds of the samples per
second of ``--batches`` timed batches, each after ``--warmup`` untimed ones
(the first round's warm-up also pays for building, binding, tracing or
compiling).  Columns:

- ``mxnet``: the MXNet-API program (``mx.mod.Module``) under MXNet 1.9.1, in
  the interpreter given by ``--mxnet-python`` (default ``/root/mxref/bin/python``;
  the column is left out when it does not exist).
- ``mxtorch``: the same program, unchanged, under ``import mxtorch as mx``.
- ``torch``: the equivalent hand-written PyTorch program, eager.
- ``compile``: the same with ``torch.compile`` (only with ``--compile``: it
  takes minutes to compile on a small machine).
- ``ort``: predict rows only, the torch model exported with ``torch.onnx``
  and run by onnxruntime (when it imports).

Workloads (``--workloads``, comma separated; units are samples/s except
``tiny`` in steps/s):

    mlp        MLP 784-512-512-10, batch 128, train (SGD, momentum 0.9)
    lenet      LeNet 1x28x28, batch 64, train
    resnet20   pre-activation CIFAR ResNet-20, batch 64, train
    lstm       LSTM language model, mx.rnn.LSTMCell unrolled over 35 steps,
               hidden 256, vocabulary 2000, batch 32, train (torch: nn.LSTM)
    resnet20p  ResNet-20 predict, batch 64, bound for_training=False
    mlpp       MLP predict, batch 128, bound for_training=False
    resnet50p  ResNet-50 v1 at 3x224x224, batch 8, predict
    resnet50p_int8  the same quantized to int8 by MXNet's CPU flow (MKLDNN_QUANTIZE,
               contrib.quant.quantize_model, calib_mode naive on the batch), predict;
               mxnet and mxtorch columns only
    tiny       5-8-3 MLP at batch 4: forward, backward, update, update_metric

``--rss`` adds the peak resident memory (``ru_maxrss``) of a fresh process
that trains ResNet-20 for the warm-up plus timed batches, for mxtorch and
MXNet.  The last column of the table is mxtorch / the best of MXNet and eager
PyTorch.

    python bench/bench_table.py                       # all rows, 3 rounds
    python bench/bench_table.py --workloads resnet20p,mlpp --rounds 5
    python bench/bench_table.py --compile --rss
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# name: (label, batch size, unit, default batches per round)
WORKLOADS = {
    "mlp": ("MLP 784-512-512-10, b128, train", 128, "samples/s", 40),
    "lenet": ("LeNet 28x28, b64, train", 64, "samples/s", 40),
    "resnet20": ("ResNet-20 CIFAR, b64, train", 64, "samples/s", 20),
    "lstm": ("LSTM LM unrolled LSTMCell (35, h256, v2000), b32, train", 32, "samples/s", 20),
    "resnet20p": ("ResNet-20 predict, b64, for_training=False", 64, "samples/s", 40),
    "mlpp": ("MLP 784-512-512-10 predict, b128", 128, "samples/s", 40),
    "resnet50p": ("ResNet-50 224x224 predict, b8", 8, "samples/s", 10),
    "resnet50p_int8": ("ResNet-50 224x224 int8 predict (quantize_model), b8", 8, "samples/s", 10),
    "tiny": ("MLP 5-8-3, b4, train step + metric", 4, "steps/s", 400),
}
COLUMNS = ("mxnet", "mxtorch", "torch", "compile", "ort")
PREDICT = {"resnet20p", "mlpp", "resnet50p", "resnet50p_int8"}


# =============================================================== worker side

def _peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _make_runner(column, workload):
    """A zero-argument callable doing one batch, and a synchronising callable."""
    if column in ("mxnet", "mxtorch"):
        import workloads_mx
        if column == "mxnet":
            import mxnet as mx
        else:
            import mxtorch as mx
        return workloads_mx.build(mx, workload), mx.nd.waitall
    import workloads_torch
    return workloads_torch.build(column, workload), (lambda: None)


def worker(column):
    """Answer one JSON request a line on stdin: {"workload", "batches", "warmup"} -> {"value"}."""
    runners = {}
    for line in sys.stdin:
        request = json.loads(line)
        name = request["workload"]
        try:
            if name not in runners:
                runners[name] = _make_runner(column, name)
            step, synchronize = runners[name]
            if step is None:
                reply = {"value": None}
            else:
                for _ in range(request["warmup"]):
                    step()
                synchronize()
                start = time.perf_counter()
                for _ in range(request["batches"]):
                    step()
                synchronize()
                seconds = time.perf_counter() - start
                per_step = 1 if WORKLOADS[name][2] == "steps/s" else WORKLOADS[name][1]
                reply = {"value": per_step * request["batches"] / seconds}
        except Exception as error:      # a column that cannot run a row shows why, the others go on
            reply = {"value": None, "error": f"{type(error).__name__}: {error}"[:300]}
            runners[name] = (None, None)
        if request.get("rss"):
            reply["rss_mib"] = _peak_rss_mib()
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


# =============================================================== driver side

class _Worker:
    def __init__(self, column, python, threads=None):
        environment = dict(os.environ)
        if threads:
            environment["OMP_NUM_THREADS"] = str(threads)
            environment["MKL_NUM_THREADS"] = str(threads)
        environment["PYTHONPATH"] = str(HERE) + os.pathsep + environment.get("PYTHONPATH", "")
        self.process = subprocess.Popen([python, str(Path(__file__).resolve()), "--worker", column],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        env=environment, cwd=str(HERE))

    def ask(self, **request):
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            return {"value": None, "error": "worker exited"}
        return json.loads(line)

    def close(self):
        try:
            self.process.stdin.close()
            self.process.wait(timeout=30)
        except Exception:
            self.process.kill()


def _importable(python, module):
    result = subprocess.run([python, "-c", f"import {module}"], capture_output=True)
    return result.returncode == 0


def _git_commit():
    try:
        return subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip() or "?"
    except OSError:
        return "?"


def _format(value, unit):
    if value is None:
        return "-"
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", choices=COLUMNS, help=argparse.SUPPRESS)
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batches", type=int, default=None, help="timed batches per round (default per row)")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--compile", action="store_true", help="add the torch.compile column")
    parser.add_argument("--no-ort", action="store_true", help="leave out the onnxruntime column")
    parser.add_argument("--rss", action="store_true", help="peak RSS of ResNet-20 training, mxtorch vs MXNet")
    parser.add_argument("--mxnet-python", default="/root/mxref/bin/python")
    parser.add_argument("--threads", type=int, default=None,
                        help="CPU threads of every column (OMP_NUM_THREADS; default: each library's choice). "
                             "1 is steadier on a machine shared with other work")
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.worker)

    names = [n.strip() for n in args.workloads.split(",") if n.strip()]
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        raise SystemExit(f"bench_table: unknown workloads {unknown}; choose from {list(WORKLOADS)}")
    pythons = {"mxtorch": sys.executable, "torch": sys.executable}
    if args.compile:
        pythons["compile"] = sys.executable
    if not args.no_ort and _importable(sys.executable, "onnxruntime"):
        pythons["ort"] = sys.executable
    if Path(args.mxnet_python).exists() and _importable(args.mxnet_python, "mxnet"):
        pythons = {"mxnet": args.mxnet_python, **pythons}
    columns = list(pythons)
    workers = {column: _Worker(column, python, args.threads) for column, python in pythons.items()}
    samples = {(name, column): [] for name in names for column in columns}
    errors = {}
    try:
        for round_index in range(args.rounds):
            for name in names:
                shift = round_index % len(columns)
                for column in columns[shift:] + columns[:shift]:
                    if column == "ort" and name not in PREDICT:
                        continue
                    if (name, column) in errors:
                        continue
                    batches = args.batches or WORKLOADS[name][3]
                    reply = workers[column].ask(workload=name, batches=batches, warmup=args.warmup)
                    if reply.get("value") is None:
                        errors[(name, column)] = reply.get("error", "not run")
                    else:
                        samples[(name, column)].append(reply["value"])
            print(f"round {round_index + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    finally:
        for process in workers.values():
            process.close()

    import torch
    threads = args.threads or f"default ({torch.get_num_threads()})"
    print(f"commit {_git_commit()}; torch {torch.__version__}; threads {threads}; "
          f"{args.rounds} interleaved rounds, median; warm-up {args.warmup}")
    titles = {"mxnet": "MXNet 1.9.1", "mxtorch": "mxtorch", "torch": "PyTorch eager",
              "compile": "torch.compile", "ort": "onnxruntime"}
    header = "| workload | unit | " + " | ".join(titles[c] for c in columns) + " | mxtorch / best(MXNet, eager) |"
    if "mxnet" in columns:
        header += " mxtorch / MXNet |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for name in names:
        label, _, unit, _ = WORKLOADS[name]
        medians = {c: (statistics.median(samples[(name, c)]) if samples[(name, c)] else None) for c in columns}
        cells = [_format(medians[c], unit) for c in columns]
        references = [medians[c] for c in ("mxnet", "torch") if medians.get(c)]
        ratio = (f"{medians['mxtorch'] / max(references):.2f}" if medians.get("mxtorch") and references else "-")
        line = f"| {label} | {unit} | " + " | ".join(cells) + f" | {ratio} |"
        if "mxnet" in columns:
            line += (f" {medians['mxtorch'] / medians['mxnet']:.2f} |"
                     if medians.get("mxtorch") and medians.get("mxnet") else " - |")
        print(line)
    for (name, column), message in errors.items():
        print(f"note: {column} / {name}: {message}")
    if args.rss:
        for column in ("mxnet", "mxtorch"):
            if column not in pythons:
                continue
            probe = _Worker(column, pythons[column], args.threads)
            reply = probe.ask(workload="resnet20", batches=args.batches or 20, warmup=args.warmup, rss=True)
            probe.close()
            print(f"peak RSS, ResNet-20 b64 training, {titles[column]}: {reply.get('rss_mib', 0):.0f} MiB")


if __name__ == "__main__":
    main()
