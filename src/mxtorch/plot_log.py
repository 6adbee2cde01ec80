"""``mxtorch plot-log LOGFILE -o curves.png``: training and validation curves from a training log.

Reads the lines that MXNet 1.x's ``Module.fit`` and ``Speedometer`` log (and mxtorch's, which
are the same), whatever the logging prefix before them (timestamps, ``INFO:root:``,
``Node[0]``):

- ``Epoch[3] Train-accuracy=0.812000`` and ``Epoch[3] Validation-accuracy=0.790000``: the
  per-epoch curves (when a line repeats for an epoch, the last one counts);
- ``Epoch[3] Batch [20-40]  Speed: 1234.56 samples/sec  accuracy=0.81  ...``: the batch-level
  training values, drawn faintly at fractional epochs when ``--batches`` is given;
- ``Epoch[3] Time cost=1.234``.

The figure has one panel per metric, with the training and validation curves over epochs
(1-based on the axis, as "after epoch N"), written with matplotlib (optional ``plot`` extra).
"""
from __future__ import annotations

import os
import re

from .base import MXNetError
from .exceptions import MissingDependencyError

__all__ = ["parse_log", "plot_log", "configure", "plot_log_command"]

_EPOCH_VALUE = re.compile(r"Epoch\[(\d+)\]\s+(Train|Validation)-([^=\s]+)=\s*([-+0-9.eEinfa]+)")
_BATCH = re.compile(r"Epoch\[(\d+)\]\s+Batch\s*\[(\d+)(?:-(\d+))?\]\s+Speed:\s*([0-9.eE+-]+)\s*samples/sec(.*)")
_PAIR = re.compile(r"([^\s=]+)=\s*([-+0-9.eEinfa]+)")
_TIME = re.compile(r"Epoch\[(\d+)\]\s+Time cost=\s*([0-9.eE+-]+)")


def parse_log(text):
    """Parse an MXNet-style training log (see the module docstring).

    Returns ``{'train': {metric: {epoch: value}}, 'validation': {...}, 'batches': {metric:
    [(epoch, batch, value)]}, 'speed': [(epoch, batch, samples_per_sec)], 'time': {epoch: s}}``.
    """
    result = {"train": {}, "validation": {}, "batches": {}, "speed": [], "time": {}}
    for line in text.splitlines():
        match = _EPOCH_VALUE.search(line)
        if match:
            epoch, kind, name, value = match.groups()
            try:
                result[kind.lower()].setdefault(name, {})[int(epoch)] = float(value)
            except ValueError:
                pass
            continue
        match = _BATCH.search(line)
        if match:
            epoch, first, last, speed, rest = match.groups()
            batch = int(last if last is not None else first)
            result["speed"].append((int(epoch), batch, float(speed)))
            for name, value in _PAIR.findall(rest):
                try:
                    result["batches"].setdefault(name, []).append((int(epoch), batch, float(value)))
                except ValueError:
                    pass
            continue
        match = _TIME.search(line)
        if match:
            result["time"][int(match.group(1))] = float(match.group(2))
    return result


def plot_log(logfile, output, width=1000, height=None, title=None, batches=False):
    """Draw the curves of ``logfile`` into the PNG ``output`` of ``width`` x ``height`` pixels
    (height default: 360 per row of panels).  Returns the parsed log (``parse_log``).

    Raises MXNetError when the file has no per-epoch metric lines, MissingDependencyError (an
    MXNetError and an ImportError) naming the ``plot`` extra without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise MissingDependencyError("plot-log", "matplotlib", "plot") from None
    try:
        with open(logfile, encoding="utf-8", errors="replace") as handle:
            parsed = parse_log(handle.read())
    except OSError as error:
        raise MXNetError(f"plot-log: cannot read {logfile!r}: {error.strerror}") from None
    metrics = list(dict.fromkeys(list(parsed["train"]) + list(parsed["validation"])))
    if not metrics:
        raise MXNetError(f"plot-log: {logfile!r} has no 'Epoch[N] Train-<metric>=' or 'Epoch[N] Validation-<metric>=' "
                         f"lines (is it a log of Module.fit?)")
    columns = min(len(metrics), 2)
    rows = -(-len(metrics) // columns)
    height = height or 360 * rows
    dpi = 100
    figure, axes = plt.subplots(rows, columns, figsize=(width / dpi, height / dpi), dpi=dpi, squeeze=False)
    for index, name in enumerate(metrics):
        axis = axes[index // columns][index % columns]
        if batches and name in parsed["batches"]:
            points = parsed["batches"][name]
            per_epoch = {}
            for epoch, batch, _ in points:
                per_epoch[epoch] = max(per_epoch.get(epoch, 0), batch)
            xs = [epoch + batch / max(per_epoch[epoch] + 1, 1) for epoch, batch, _ in points]
            axis.plot(xs, [value for _, _, value in points], color="tab:blue", alpha=0.3, linewidth=1,
                      label="train (batches)")
        for kind, color, marker in (("train", "tab:blue", "o"), ("validation", "tab:orange", "s")):
            values = parsed[kind].get(name)
            if values:
                epochs = sorted(values)
                axis.plot([e + 1 for e in epochs], [values[e] for e in epochs], color=color, marker=marker,
                          label=f"{kind} {name}")
        axis.set_xlabel("epoch")
        axis.set_ylabel(name)
        axis.grid(True, alpha=0.3)
        axis.legend(loc="best")
    for index in range(len(metrics), rows * columns):
        axes[index // columns][index % columns].set_visible(False)
    figure.suptitle(title or os.path.basename(logfile))
    figure.tight_layout()
    folder = os.path.dirname(os.path.abspath(output))
    os.makedirs(folder, exist_ok=True)
    temporary = os.path.join(folder, f".tmp-{os.getpid()}-{os.path.basename(output)}")
    try:
        figure.savefig(temporary, dpi=dpi, format="png")
        os.replace(temporary, output)
    finally:
        plt.close(figure)
        if os.path.exists(temporary):
            os.remove(temporary)
    return parsed


def _size(text):
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        width = height = 0
    if width <= 0 or height <= 0:
        raise MXNetError(f"plot-log: --size must be WIDTHxHEIGHT in pixels such as 1000x400, got {text!r}")
    return width, height


def configure(parser):
    parser.add_argument("logfile", metavar="LOGFILE", help="a log written by Module.fit (MXNet or mxtorch)")
    parser.add_argument("-o", "--output", required=True, metavar="PNG", help="the image to write")
    parser.add_argument("--size", default=None, metavar="WxH",
                        help="image size in pixels (default 1000 wide, 360 per row of panels)")
    parser.add_argument("--title", default=None, help="figure title (default: the log's file name)")
    parser.add_argument("--batches", action="store_true",
                        help="also draw the Speedometer's batch-level training values")


def plot_log_command(args):
    width, height = _size(args.size) if args.size else (1000, None)
    parsed = plot_log(args.logfile, args.output, width, height, title=args.title, batches=args.batches)
    epochs = sorted({e for values in list(parsed["train"].values()) + list(parsed["validation"].values())
                     for e in values})
    print(f"wrote {args.output}: {len(epochs)} epochs, metrics "
          f"{', '.join(dict.fromkeys(list(parsed['train']) + list(parsed['validation'])))}")
