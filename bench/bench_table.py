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
    resnet50p_bf16  the same converted to bfloat16 by contrib.amp.convert_model
               (target_dtype='bfloat16'), predict; mxnet and mxtorch columns only
    tiny       5-8-3 MLP at batch 4: forward, backward, update, update_metric

``--rss`` adds a table of peak resident memory (``ru_maxrss``): for every
selected row and for MXNet, mxtorch and eager PyTorch, a fresh process that
imports the library, builds the row and runs its warm-up plus timed batches
(one process per cell, so no row inherits another's peak), and an ``import``
row (a process that only imports the library).  The last column of the table
is mxtorch / the best of MXNet and eager PyTorch.

``--startup`` adds the start-up table: in fresh processes, the seconds from
``Module.bind`` (then ``init_params``, ``init_optimizer`` / ``set_params``) to
the end of the first batch, for ResNet-20 training, ResNet-20 predict and
ResNet-50 predict (rows of ``--startup-workloads``), under MXNet 1.9.1,
mxtorch as it is by default (``MXTORCH_COMPILE=auto``: the first batch runs
eagerly) and mxtorch with ``MXTORCH_COMPILE=1`` (the first batch builds the
traced graph); and the seconds ``import mxnet`` / ``import mxtorch`` take.
Each cell is the median of ``--rounds`` processes, interleaved as the
throughput table's.

    python bench/bench_table.py                       # all rows, 3 rounds
    python bench/bench_table.py --workloads resnet20p,mlpp --rounds 5
    python bench/bench_table.py --compile --rss
    python bench/bench_table.py --workloads resnet20 --rss --startup --rounds 3
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
    "resnet50p_bf16": ("ResNet-50 224x224 bfloat16 predict (amp.convert_model), b8", 8, "samples/s", 10),
    "tiny": ("MLP 5-8-3, b4, train step + metric", 4, "steps/s", 400),
}
COLUMNS = ("mxnet", "mxtorch", "torch", "compile", "ort")
PREDICT = {"resnet20p", "mlpp", "resnet50p", "resnet50p_int8", "resnet50p_bf16"}


# =============================================================== worker side

def _peak_rss_mib():
    """This process's peak resident memory in MiB: ``VmHWM`` of /proc/self/status.  Not
    ``ru_maxrss``: Linux carries the larger of the parent's and the child's high-water mark
    across ``execve`` of a vfork'ed child (as ``subprocess`` starts workers), so a small worker
    started by a driver that imported torch would report the driver's ~220 MiB."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
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


def probe(column, workload, batches, warmup):
    """One fresh-process measurement, printed as a JSON line: seconds to import the library,
    peak RSS after the import, seconds from ``Module.bind`` to the end of the first batch
    (MXNet-API columns), and peak RSS after ``warmup + batches`` batches.  ``workload`` ``import``:
    the import only."""
    start = time.perf_counter()
    if column == "mxnet":
        import mxnet as mx
    elif column == "mxtorch":
        import mxtorch as mx
    else:
        import torch  # noqa: F401
        mx = None
    reply = {"import_s": time.perf_counter() - start, "import_rss_mib": _peak_rss_mib()}
    if workload != "import":
        if mx is not None:
            import workloads_mx
            timings = {}
            step = workloads_mx.build(mx, workload, timings)
            step()
            mx.nd.waitall()
            reply["first_batch_s"] = time.perf_counter() - timings["bind"]
            synchronize = mx.nd.waitall
        else:
            import workloads_torch
            step, synchronize = workloads_torch.build("torch", workload), (lambda: None)
            step()
        for _ in range(warmup + batches - 1):
            step()
        synchronize()
        reply["rss_mib"] = _peak_rss_mib()
    sys.stdout.write(json.dumps(reply) + "\n")


# =============================================================== driver side

def _environment(threads, extra=None):
    environment = dict(os.environ)
    if threads:
        environment["OMP_NUM_THREADS"] = str(threads)
        environment["MKL_NUM_THREADS"] = str(threads)
    environment["PYTHONPATH"] = str(HERE) + os.pathsep + environment.get("PYTHONPATH", "")
    environment.update(extra or {})
    return environment


def _probe(column, python, workload, batches, warmup, threads, extra_env=None):
    """Run ``probe`` in a fresh process; its reply, or {"error": ...}."""
    done = subprocess.run([python, str(Path(__file__).resolve()), "--probe", column, "--probe-workload", workload,
                           "--batches", str(batches), "--warmup", str(warmup)],
                          capture_output=True, text=True, env=_environment(threads, extra_env), cwd=str(HERE))
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"error": (done.stderr.strip().splitlines() or ["exited %d" % done.returncode])[-1][:300]}
    return json.loads(lines[-1])

class _Worker:
    def __init__(self, column, python, threads=None):
        environment = _environment(threads)
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
    parser.add_argument("--probe", choices=COLUMNS, help=argparse.SUPPRESS)
    parser.add_argument("--probe-workload", help=argparse.SUPPRESS)
    parser.add_argument("--rss", action="store_true",
                        help="peak RSS of every row and of the import, one fresh process per cell")
    parser.add_argument("--startup", action="store_true",
                        help="seconds from Module.bind to the first finished batch, and import seconds")
    parser.add_argument("--startup-workloads", default="resnet20,resnet20p,resnet50p")
    parser.add_argument("--no-throughput", action="store_true", help="only the --rss / --startup tables")
    parser.add_argument("--mxnet-python", default="/root/mxref/bin/python")
    parser.add_argument("--threads", type=int, default=None,
                        help="CPU threads of every column (OMP_NUM_THREADS; default: each library's choice). "
                             "1 is steadier on a machine shared with other work")
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.worker)
    if args.probe:
        return probe(args.probe, args.probe_workload, args.batches or 0, args.warmup)

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
    titles = {"mxnet": "MXNet 1.9.1", "mxtorch": "mxtorch", "torch": "PyTorch eager",
              "compile": "torch.compile", "ort": "onnxruntime"}
    import torch
    threads = args.threads or f"default ({torch.get_num_threads()})"
    print(f"commit {_git_commit()}; torch {torch.__version__}; threads {threads}; "
          f"{args.rounds} interleaved rounds, median; warm-up {args.warmup}")
    if not args.no_throughput:
        _throughput_table(args, names, pythons, titles)
    if args.rss:
        _rss_table(args, names, pythons, titles)
    if args.startup:
        _startup_table(args, pythons, titles)


def _throughput_table(args, names, pythons, titles):
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


def _rss_table(args, names, pythons, titles):
    """Peak RSS (MiB), one fresh process per (row, column); RSS does not depend on the load."""
    columns = [c for c in ("mxnet", "mxtorch", "torch") if c in pythons]
    print()
    header = "| peak RSS, MiB | " + " | ".join(titles[c] for c in columns) + " |"
    if "mxnet" in columns:
        header += " mxtorch / MXNet |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    notes = []
    for name in ["import"] + names:
        cells = {}
        for column in columns:
            batches = args.batches or (WORKLOADS[name][3] if name in WORKLOADS else 0)
            reply = _probe(column, pythons[column], name, batches, args.warmup, args.threads)
            if "error" in reply:
                notes.append(f"note: rss {column} / {name}: {reply['error']}")
            cells[column] = reply.get("import_rss_mib" if name == "import" else "rss_mib")
        label = "import only" if name == "import" else WORKLOADS[name][0]
        line = f"| {label} | " + " | ".join("-" if cells[c] is None else f"{cells[c]:.0f}" for c in columns) + " |"
        if "mxnet" in columns:
            line += (f" {cells['mxtorch'] / cells['mxnet']:.2f} |" if cells.get("mxtorch") and cells.get("mxnet")
                     else " - |")
        print(line, flush=True)
    for note in notes:
        print(note)


def _startup_table(args, pythons, titles):
    """Seconds from Module.bind to the first finished batch (and import seconds), medians of
    ``--rounds`` fresh processes, the columns' order rotating from round to round."""
    columns = [("mxnet", {}), ("mxtorch", {"MXTORCH_COMPILE": "auto"}), ("mxtorch", {"MXTORCH_COMPILE": "1"})]
    columns = [(c, env) for c, env in columns if c in pythons]
    names = [n.strip() for n in args.startup_workloads.split(",") if n.strip()]
    samples = {}
    notes = []
    for round_index in range(args.rounds):
        for name in names:
            shift = round_index % len(columns)
            for index in list(range(len(columns)))[shift:] + list(range(len(columns)))[:shift]:
                column, env = columns[index]
                reply = _probe(column, pythons[column], name, 0, 0, args.threads, env)
                if "error" in reply:
                    notes.append(f"note: start-up {column} {env} / {name}: {reply['error']}")
                    continue
                samples.setdefault((name, index), []).append(reply["first_batch_s"])
                samples.setdefault(("import", index), []).append(reply["import_s"])
        print(f"start-up round {round_index + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    heads = [titles[c] + ("" if not env else " (traced)" if env["MXTORCH_COMPILE"] == "1" else " (default)")
             for c, env in columns]
    print()
    header = "| seconds, Module.bind to first batch done | " + " | ".join(heads) + " |"
    if columns[0][0] == "mxnet":
        header += " mxtorch / MXNet | traced / MXNet |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for name in names + ["import"]:
        medians = [statistics.median(samples[(name, i)]) if samples.get((name, i)) else None
                   for i in range(len(columns))]
        label = "import (seconds)" if name == "import" else WORKLOADS[name][0]
        line = f"| {label} | " + " | ".join("-" if m is None else f"{m:.2f}" for m in medians) + " |"
        if columns[0][0] == "mxnet":
            ratios = [f"{m / medians[0]:.2f}" if m and medians[0] else "-" for m in medians[1:]]
            line += " " + " | ".join(ratios) + " |"
        print(line)
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
