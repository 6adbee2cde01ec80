"""Build every GluonCV 0.10.5 model-zoo network under MXNet 1.9.1 and under mxtorch and compare.

For each name of ``gluoncv.model_zoo.get_model_list()`` (or the names / families given):

1. MXNet side (``--mxnet-python``, a Python with mxnet 1.9.1 and gluoncv 0.10.5): build
   the network with ``pretrained=False`` (``pretrained_base=False`` where accepted;
   segmentation networks with ``crop_size`` equal to the input's size, which their pyramid /
   ASPP pooling upsamples to), fill its parameters as tests/gluoncv_cases.py does
   (name-derived float32 values with fan-in scaled weights), ``cast`` it to the run's dtype,
   set the BatchNorm statistics to those measured on the input, run one inference forward
   on a fixed input (``numpy.random.RandomState(0)``, shape per family below), write
   ``save_parameters`` and the outputs.
2. mxtorch side (``--mxtorch-python``, a Python with mxtorch and gluoncv;
   ``mxtorch.install_as_mxnet()`` then ``import gluoncv``): build the same network, cast it,
   ``load_parameters`` the file MXNet wrote, run the same forward.
3. Compare every output: shape equal and ``|ours - mxnet| <= 1e-3 * (|mxnet| + max|mxnet|)``
   (relative 1e-3, scaled by the output's magnitude for values near zero).

Why float64: in float32, two correct implementations that sum in different orders differ
by rounding, and a deep network with name-derived parameters amplifies it: resnet50_v1 and
mobilenetv2_1.0 differed by 0.3 % of their largest output in float32 but by 3.5e-12 in
float64.  Detectors are worse: a rounding difference reorders two near-equal scores and
non-maximum suppression then keeps different boxes.  So every name runs in float64 first
(``net.cast('float64')``; MXNet 1.9.1's CPU kernels take float64 for nearly every
operator), where a difference beyond 1e-3 is a semantic one; only a name MXNet cannot run
in float64 runs in float32 (the row's ``dtype`` says which).  Inside a network GluonCV
creates some arrays without a dtype (``F.arange`` of class ids in MultiPerClassDecoder,
so SSD), which MXNet makes float32 and then refuses to mix with float64: the worker makes
``arange`` / ``zeros`` / ``ones`` / ``full`` of ``mx.nd`` and ``mx.sym`` default to the
dtype the network runs in, on both sides alike (``_default_creation_dtype``).

Each side runs in a worker process per batch of names (``--batch``) with a timeout per
name; a name whose process crashed or timed out runs again alone.  The summary (one row per
name: family, dtype, status, reason, seconds) is written as JSON (``--summary``, default
``tools/data/gluoncv_zoo_summary.json``) and merged with an existing one, so families can
be run one at a time::

    python tools/check_gluoncv_zoo.py --family classification --mxtorch-python /work/venv-eco/bin/python
    python tools/check_gluoncv_zoo.py resnet18_v1b ssd_300_vgg16_atrous_voc

Statuses: match, mismatch, mxtorch-fails / mxtorch-timeout, mxnet-fails / mxnet-timeout
(MXNet 1.9.1 itself does not build or run the name offline, e.g. it downloads a file; the
row's ``mxtorch_reason`` then says how mxtorch failed on the same build).
Run as a worker (``--worker mxnet|mxtorch WORKDIR DTYPE NAME...``) it does one side.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from gluoncv_cases import calibrate_batchnorm, fill_parameters  # noqa: E402
DEFAULT_SUMMARY = os.path.join(HERE, "data", "gluoncv_zoo_summary.json")


def family_of(name):
    """The family of a zoo name, which decides its input and how it is built."""
    if name.endswith("_int8"):
        return "int8"
    if name.startswith(("ssd_", "yolo3_", "faster_rcnn", "mask_rcnn", "custom_", "doublehead_rcnn", "center_net")):
        return "detection"
    if name.startswith(("fcn_", "psp_", "deeplab", "icnet", "fastscnn", "danet")):
        return "segmentation"
    if name.startswith(("simple_pose", "mobile_pose", "alpha_pose")):
        return "pose"
    if name.startswith("monodepth2"):
        return "depth"
    if name.startswith("siamrpn"):
        return "tracking"
    if any(tag in name for tag in ("kinetics", "ucf101", "hmdb51", "sthsthv2")) or name.startswith(
            ("i3d_", "slowfast", "c3d", "p3d", "r2plus1d")) or name in ("resnet50_v1b_custom", "resnet18_v1b_custom"):
        return "action"
    return "classification"


def input_shapes(name):
    """The inputs (list of shapes) of the forward run for ``name``: small but valid."""
    family = family_of(name)
    if family == "classification":
        if name.startswith("cifar_"):
            return [(1, 3, 32, 32)]
        if name.startswith(("inceptionv3", "xception")):
            return [(1, 3, 299, 299)]
        if name.startswith("nasnet"):
            return [(1, 3, 224, 224)]
        if name.startswith(("residualattentionnet", "hrnet", "alexnet", "googlenet", "squeezenet", "vgg",
                            "densenet", "senet", "se_resnext", "resnext", "resnest", "dla34", "darknet53",
                            "shufflenet")):
            return [(1, 3, 224, 224)]
        return [(1, 3, 64, 64)]
    if family == "detection":
        if name.startswith("ssd_300"):
            return [(1, 3, 300, 300)]
        if name.startswith("ssd_512"):
            return [(1, 3, 512, 512)]
        if name.startswith("center_net"):
            return [(1, 3, 128, 128)]
        if name.startswith(("mask_rcnn", "custom_mask_rcnn")) or "rcnn" in name and name.endswith("_coco"):
            # the mask head slices the top 1000 RPN proposals: more anchors than a 128 x 128 input has
            return [(1, 3, 224, 224)]
        return [(1, 3, 128, 128)]
    if family == "segmentation":
        return [(1, 3, 96, 96)]
    if family == "pose":
        return [(1, 3, 128, 96)]
    if family == "depth":
        if "posenet" in name:
            return [(1, 6, 64, 64)]
        return [(1, 3, 64, 64)]
    if family == "action":
        if name.startswith(("i3d", "slowfast", "c3d", "p3d", "r2plus1d")):
            frames = 32 if name.startswith("slowfast") else 16 if name.startswith("p3d") else 8
            if name.startswith("slowfast_16x8"):
                frames = 64
            if name.startswith("c3d"):
                return [(1, 3, 16, 112, 112)]
            return [(1, 3, frames, 64, 64)]
        if name.startswith(("inceptionv3", )):
            return [(1, 3, 299, 299)]
        return [(1, 3, 224, 224)]
    if family == "tracking":
        # template and search image: the inference head reshapes the search features to 24 x 24
        return [(1, 3, 127, 127), (1, 3, 287, 287)]
    return [(1, 3, 64, 64)]


def build_kwargs(name):
    family = family_of(name)
    kwargs = {"pretrained": False}
    if family in ("detection", "segmentation", "pose", "depth", "action"):
        kwargs["pretrained_base"] = False
    if name.startswith(("ssd_", "yolo3_", "faster_rcnn", "mask_rcnn", "center_net", "custom_",
                        "doublehead_rcnn")) and name.endswith("_custom") or name.startswith("custom_"):
        kwargs["classes"] = ["a", "b"]
        kwargs["transfer"] = None
    if name.startswith("i3d") and name.endswith("_custom") or name.endswith("v1b_custom") or name.startswith(
            "slowfast_4x16_resnet50_custom"):
        kwargs.pop("transfer", None)
        kwargs.pop("classes", None)
        kwargs["num_classes"] = 5
    if family == "segmentation":
        # the pyramid / ASPP pooling upsamples to crop_size // stride: the input's size
        kwargs["crop_size"] = input_shapes(name)[0][2]
    return kwargs


OPTIONAL_KWARGS = ("pretrained_base", "crop_size")


def _flatten(outputs):
    if isinstance(outputs, (list, tuple)):
        flat = []
        for item in outputs:
            flat.extend(_flatten(item))
        return flat
    return [outputs]


def _build(name, mx, model_zoo):
    kwargs = build_kwargs(name)
    while True:
        try:
            return model_zoo.get_model(name, **kwargs)
        except TypeError as error:     # a keyword this model does not take: build without it
            unknown = [key for key in OPTIONAL_KWARGS if key in kwargs and repr(key) in str(error)]
            if not unknown:
                raise
            kwargs.pop(unknown[0])


def worker(side, workdir, dtype, names):
    """Run one side for each of ``names`` in this process: ``workdir/NAME/SIDE.npz`` (the
    outputs; the MXNet side also writes ``net.params``) or ``workdir/NAME/SIDE.error`` (the
    exception's last line)."""
    import traceback
    if side == "mxtorch":
        import mxtorch
        mxtorch.install_as_mxnet()
    else:
        os.environ["MXNET_MKLDNN_ENABLED"] = "0"    # as tools/gen_gluoncv_reference.py
    import warnings
    warnings.simplefilter("ignore")
    import mxnet as mx
    from gluoncv import model_zoo
    for name in names:
        directory = os.path.join(workdir, name)
        os.makedirs(directory, exist_ok=True)
        try:
            _run_one(side, name, directory, dtype, mx, model_zoo)
        except Exception as error:      # noqa: BLE001  (recorded, the next name runs)
            with open(os.path.join(directory, f"{side}.error"), "w") as handle:
                handle.write(_last_line(f"{type(error).__name__}: {error}") + "\n" + traceback.format_exc())


# creation operators whose dtype defaults to float32 (GluonCV calls some inside networks:
# MultiPerClassDecoder's F.arange of class ids); in a float64 run they default to float64
CREATION_OPERATORS = ("arange", "zeros", "ones", "full")
_CREATION_DTYPE = ["float32"]


def _default_creation_dtype(mx):
    """Make ``mx.nd.OP`` / ``mx.sym.OP`` of CREATION_OPERATORS default to the dtype the network
    runs in (``_CREATION_DTYPE[0]``; both sides alike; a dtype given explicitly is kept)."""
    import functools
    for module in (mx.nd, mx.sym):
        for op in CREATION_OPERATORS:
            original = getattr(module, op)

            @functools.wraps(original)
            def creation(*args, _original=original, **kwargs):
                if kwargs.get("dtype") is None:
                    kwargs["dtype"] = _CREATION_DTYPE[0]
                return _original(*args, **kwargs)
            setattr(module, op, creation)


def _run_one(side, name, directory, dtype, mx, model_zoo):
    import numpy as np
    rng = np.random.RandomState(0)
    inputs = [rng.uniform(0, 1, shape).astype("float32") for shape in input_shapes(name)]
    params_path = os.path.join(directory, "net.params")
    mx.random.seed(0)
    if not getattr(mx, "_zoo_dtype_patched", False):
        _default_creation_dtype(mx)
        mx._zoo_dtype_patched = True
    _CREATION_DTYPE[0] = "float32"
    start = time.time()
    net = _build(name, mx, model_zoo)
    if side == "mxnet":
        fill_parameters(net, mx, inputs)        # in float32: the values are float32 numbers
    if dtype != "float32":
        net.cast(dtype)
    _CREATION_DTYPE[0] = dtype
    inputs = [x.astype(dtype) for x in inputs]
    if side == "mxnet":
        calibrate_batchnorm(net, mx, inputs)
    # a SymbolBlock (the *_int8 networks) is saved and loaded by full parameter names: MXNet
    # 1.9.1 does not load the structural names its own save_parameters writes for them
    whole = isinstance(net, mx.gluon.SymbolBlock)
    if side == "mxnet":
        net.collect_params().save(params_path) if whole else net.save_parameters(params_path)
    else:
        net.collect_params().load(params_path) if whole else net.load_parameters(params_path)
    outputs = _flatten(net(*[mx.nd.array(x, dtype=dtype) for x in inputs]))
    arrays = {f"out{index}": out.asnumpy() for index, out in enumerate(outputs)}
    np.savez(os.path.join(directory, f"{side}.npz"), **arrays)
    with open(os.path.join(directory, f"{side}.seconds"), "w") as handle:
        handle.write(str(time.time() - start))


def _tolerance(want):
    return 1e-3 * (abs(want) + (abs(want).max() if want.size else 0.0))


def same_detections(have, want):
    """Detector outputs (ids, scores, boxes[, masks]: one row per detection along axis 1,
    sorted by score) equal up to the order of rows whose scores tie within the tolerance:
    each of our rows matched to an unused MXNet row with a score within the tolerance whose
    every output agrees.  In float32 two near-equal scores may be ranked either way after
    rounding (tests/gluoncv_zoo_cases.py compares the same way).  Returns None or the first
    row without a match."""
    import numpy as np
    keys = sorted(want.files, key=lambda k: int(k[3:]))
    if len(keys) < 3 or any(want[k].ndim < 2 or want[k].shape[:2] != want[keys[0]].shape[:2] for k in keys):
        return "not detector rows"
    batch, count = want[keys[0]].shape[:2]
    for item in range(batch):
        ours = [np.asarray(have[k][item], dtype="float64").reshape(count, -1) for k in keys]
        theirs = [np.asarray(want[k][item], dtype="float64").reshape(count, -1) for k in keys]
        bounds = [_tolerance(t) for t in theirs]
        unused = np.ones(count, dtype=bool)
        for row in range(count):
            near = np.nonzero(unused & (np.abs(theirs[1][:, 0] - ours[1][row, 0]) <= bounds[1][:, 0]))[0]
            match = next((i for i in near if all((np.abs(o[row] - t[i]) <= b[i]).all()
                                                 for o, t, b in zip(ours, theirs, bounds))), None)
            if match is None:
                return f"detection {row} (id {ours[0][row, 0]:g}, score {ours[1][row, 0]:.6g}) matches no MXNet row"
            unused[match] = False
    return None


def compare(workdir, detector=False):
    """None when mxtorch's outputs are MXNet's (see the module docstring), else the first
    difference.  ``detector``: rows of near-tied scores may come in another order (float32
    runs of detectors)."""
    import numpy as np
    want = np.load(os.path.join(workdir, "mxnet.npz"))
    have = np.load(os.path.join(workdir, "mxtorch.npz"))
    if sorted(want.files) != sorted(have.files):
        return f"{len(have.files)} outputs, MXNet {len(want.files)}"
    difference = _compare_outputs(want, have)
    if difference is not None and detector:
        if all(have[k].shape == want[k].shape for k in want.files) and same_detections(have, want) is None:
            return None
    return difference


def _compare_outputs(want, have):
    import numpy as np
    for key in sorted(want.files, key=lambda k: int(k[3:])):
        a, b = have[key], want[key]
        if a.shape != b.shape:
            return f"{key}: shape {a.shape}, MXNet {b.shape}"
        a64, b64 = a.astype("float64"), b.astype("float64")
        scale = np.abs(b64).max() if b64.size else 0.0
        if not np.all(np.isfinite(b64)):
            if not np.array_equal(np.isfinite(a64), np.isfinite(b64)):
                return f"{key}: non-finite values differ"
            mask = np.isfinite(b64)
            a64, b64 = a64[mask], b64[mask]
        bad = np.abs(a64 - b64) > 1e-3 * (np.abs(b64) + scale)
        if bad.any():
            return (f"{key}: {int(bad.sum())}/{bad.size} values differ, max abs diff "
                    f"{float(np.abs(a64 - b64).max()):.3g} (max |MXNet| {scale:.3g})")
    return None


def _last_line(text):
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def _run_side(side, python, names, workdir, dtype, timeout, env):
    """Run the ``side`` worker on ``names`` (one process; a name whose process timed out or
    died again alone).  Returns ``{name: None (done) or (status, reason)}``."""
    results = {}
    pending, batch = list(names), list(names)
    while pending:
        try:
            done = subprocess.run([python, __file__, "--worker", side, workdir, dtype, *batch],
                                  capture_output=True, text=True, timeout=timeout * len(batch), env=env)
            crash = _last_line(done.stderr or done.stdout) if done.returncode else None
        except subprocess.TimeoutExpired:
            crash = f"over {timeout} s"
        for name in batch:
            directory = os.path.join(workdir, name)
            if os.path.exists(os.path.join(directory, f"{side}.npz")):
                results[name] = None
            elif os.path.exists(os.path.join(directory, f"{side}.error")):
                with open(os.path.join(directory, f"{side}.error")) as handle:
                    results[name] = (f"{side}-fails", handle.readline().strip())
            elif crash is not None and len(batch) == 1:
                timed_out = crash.startswith("over ")
                results[name] = (f"{side}-timeout" if timed_out else f"{side}-fails", crash)
        pending = [name for name in pending if name not in results]
        batch = pending[:1]
    return results


def check_many(names, mxnet_python, mxtorch_python, timeout, env, dtypes=("float64", "float32")):
    """Summary rows for ``names``: each runs in the first of ``dtypes`` that MXNet runs it in
    (float32 only where MXNet 1.9.1 lacks a float64 kernel for one of the model's operators)."""
    rows = {}
    with tempfile.TemporaryDirectory(prefix="zoo_") as workdir:
        remaining = list(names)
        for dtype in dtypes:
            if not remaining:
                break
            start = time.time()
            here = os.path.join(workdir, dtype)
            ran = _run_side("mxnet", mxnet_python, remaining, here, dtype, timeout, env)
            built = [name for name in remaining if ran[name] is None]
            theirs = _run_side("mxtorch", mxtorch_python, built, here, dtype, timeout, env) if built else {}
            share = (time.time() - start) / len(remaining)
            for name in remaining:
                row = {"family": family_of(name), "dtype": dtype, "seconds": round(share, 1)}
                failure = ran[name] or theirs.get(name)
                if failure:
                    row.update(status=failure[0], reason=failure[1])
                else:
                    detector = family_of(name) == "detection" and dtype == "float32"
                    difference = compare(os.path.join(here, name), detector)
                    if difference is None and detector and compare(os.path.join(here, name)) is not None:
                        row["note"] = "rows of near-tied scores in another order (float32)"
                    row.update(status="match" if difference is None else "mismatch", reason=difference or "")
                rows[name] = row
            remaining = [name for name in remaining if rows[name]["status"] in ("mxnet-fails", "mxnet-timeout")]
        # where MXNet fails (in every dtype), does mxtorch fail the same way?  (It has no
        # parameter file to load: a build that MXNet refuses must be refused here too.)
        failed = [name for name in remaining if rows[name]["status"] == "mxnet-fails"]
        if failed:
            here = os.path.join(workdir, dtypes[-1])
            theirs = _run_side("mxtorch", mxtorch_python, failed, here, dtypes[-1], timeout, env)
            for name in failed:
                rows[name]["mxtorch_reason"] = theirs[name][1] if theirs[name] else "ran"
    return rows


OFFLINE_MARKS = ("ConnectionError", "NameResolution", "Max retries exceeded", "urlopen error")


def report(summary, names=None):
    """Counts per status of the summary rows (of ``names``, all when None) as text lines;
    mxnet-fails split into ``offline`` (MXNet tried to download a file) and ``other``."""
    import collections
    rows = {name: row for name, row in summary.items() if names is None or name in names}
    counts = collections.Counter()
    for row in rows.values():
        status = row["status"]
        if status == "mxnet-fails":
            status += " (offline)" if any(mark in row["reason"] for mark in OFFLINE_MARKS) else " (other)"
        counts[status] += 1
    lines = [f"{len(rows)} names run" + (f" of {len(names)}" if names is not None else "")]
    lines += [f"  {status:24s} {count}" for status, count in sorted(counts.items())]
    by_family = collections.defaultdict(collections.Counter)
    for row in rows.values():
        by_family[row["family"]][row["status"]] += 1
    lines += [f"  {family:15s} " + ", ".join(f"{k} {v}" for k, v in sorted(c.items()))
              for family, c in sorted(by_family.items())]
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--family", action="append", default=[])
    parser.add_argument("--mxnet-python", default=os.path.expanduser("~/mxref/bin/python"))
    parser.add_argument("--mxtorch-python", default=sys.executable)
    parser.add_argument("--timeout", type=int, default=600)
    parser.add_argument("--summary", default=DEFAULT_SUMMARY)
    parser.add_argument("--skip-done", action="store_true", help="skip names already in the summary")
    parser.add_argument("--dtype", action="append", choices=("float64", "float32"),
                        help="the dtypes to try in order (default: float64, then float32 where MXNet fails)")
    parser.add_argument("--batch", type=int, default=8, help="names per worker process")
    parser.add_argument("--report", action="store_true", help="print the summary's counts and exit")
    parser.add_argument("--worker", nargs="+", metavar="SIDE WORKDIR DTYPE NAME")
    args = parser.parse_args(argv)
    if args.worker:
        side, workdir, dtype, *names = args.worker
        worker(side, workdir, dtype, names)
        return 0
    if args.report:
        with open(args.summary) as handle:
            print("\n".join(report(json.load(handle))))
        return 0
    names = args.names
    if not names:
        listing = subprocess.run([args.mxnet_python, "-W", "ignore", "-c",
                                  "import json, gluoncv; print(json.dumps(list(gluoncv.model_zoo.get_model_list())))"],
                                 capture_output=True, text=True, check=True)
        names = json.loads(listing.stdout.strip().splitlines()[-1])
    if args.family:
        names = [name for name in names if family_of(name) in args.family]
    summary = {}
    if os.path.exists(args.summary):
        with open(args.summary) as handle:
            summary = json.load(handle)
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    names = [name for name in names if not (args.skip_done and name in summary)]
    for first in range(0, len(names), args.batch):
        rows = check_many(names[first:first + args.batch], args.mxnet_python, args.mxtorch_python, args.timeout,
                          env, tuple(args.dtype or ("float64", "float32")))
        for name, row in rows.items():
            summary[name] = row
            print(f"{name:55s} {row['status']:15s} {row['dtype']:8s} {row['seconds']:7.1f}s {row['reason']}",
                  flush=True)
        os.makedirs(os.path.dirname(args.summary), exist_ok=True)
        with open(args.summary + ".tmp", "w") as handle:
            json.dump(dict(sorted(summary.items())), handle, indent=1)
        os.replace(args.summary + ".tmp", args.summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
