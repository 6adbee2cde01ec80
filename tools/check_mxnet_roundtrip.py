"""Check with real MXNet 1.9.1 that it reads what mxtorch writes (run with the reference MXNet).

    PYTHONPATH=src /work/venv/bin/python tools/write_mxtorch_checkpoints.py /tmp/mxtorch-written
    ~/mxref/bin/python tools/check_mxnet_roundtrip.py /tmp/mxtorch-written

Without a folder argument the script runs the writer itself (with ``--mxtorch-python``,
default /work/venv/bin/python) into a temporary folder.  For what the writer produced
(its manifest.json):

* ``resaved/`` (MXNet checkpoints loaded and saved again by mxtorch): MXNet's
  ``mx.sym.load`` of our JSON gives the same graph as its load of the original file
  (``tojson()`` equal, as parsed JSON and as text) with the same names; ``mx.nd.load`` of our
  ``.params`` gives the same names, dtypes and values (and the file bytes are compared);
  ``Module.load(..., load_optimizer_states=True)`` + bind + init_optimizer with the training
  optimizer puts exactly the recorded optimizer states (``*-states-decoded.npz``) in MXNet's
  updater; the inference output on the recorded batch equals the recorded one.
* ``symbol-json/``: our re-saved JSON loads to the graph MXNet makes of the original file.
* ``trained/`` (networks built and trained in mxtorch): MXNet loads the checkpoint with its
  optimizer states, writes the graph back unchanged, reproduces mxtorch's inference output
  (rtol 1e-4, atol 1e-5), and the graph equals the one MXNet builds from the same Python code.

Prints one line per check and a summary; exit status 1 if any check failed.
"""
import argparse
import json
import logging
import pathlib
import subprocess
import sys
import tempfile
import warnings

import numpy as np

import mxnet as mx

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHECKPOINTS = ROOT / "tests" / "data" / "checkpoints"
SYMBOL_JSON = ROOT / "tests" / "data" / "symbol-json"
RESULTS = []


def check(label, condition, detail=""):
    RESULTS.append((label, bool(condition)))
    print(f"{'ok  ' if condition else 'FAIL'} {label}{'' if condition else ': ' + detail}")
    return condition


def check_graph(label, ours_text, theirs_text):
    """Two checks: the graph itself (nodes, arg_nodes, heads, attrs) and ``node_row_ptr``
    (the output count of every node, hidden outputs included), reported apart because the
    hidden outputs are the one part of the JSON MXNet derives from its build."""
    ours, theirs = json.loads(ours_text), json.loads(theirs_text)
    row_pointers = ours.pop("node_row_ptr", None), theirs.pop("node_row_ptr", None)
    differing = [i for i, (a, b) in enumerate(zip(ours.get("nodes", []), theirs.get("nodes", []))) if a != b]
    detail = "; ".join(f"node {i}: ours {ours['nodes'][i]} vs MXNet {theirs['nodes'][i]}" for i in differing[:3])
    check(f"{label}: graph equal", ours == theirs, detail or f"{ours_text[:2000]}\n  vs\n{theirs_text[:2000]}")
    if ours.get("nodes") == theirs.get("nodes"):
        counts = [[b - a for a, b in zip(r, r[1:])] for r in row_pointers]
        hidden = [f"{node['op']} {node['name']!r}: {x} outputs in mxtorch's file, {y} in MXNet's" for node, x, y
                  in zip(theirs["nodes"], *counts) if x != y]
        check(f"{label}: node_row_ptr equal", row_pointers[0] == row_pointers[1], "; ".join(hidden))


def same_arrays(ours, theirs):
    """(equal, detail) for two dicts of NDArrays."""
    if list(ours) != list(theirs):
        return False, f"names differ: {list(ours)} vs {list(theirs)}"
    for key in ours:
        a, b = ours[key], theirs[key]
        if a.dtype != b.dtype or a.shape != b.shape:
            return False, f"{key}: {a.dtype}{a.shape} vs {b.dtype}{b.shape}"
        if not np.array_equal(a.asnumpy(), b.asnumpy()):
            return False, f"{key}: values differ"
    return True, ""


def updater_states(module):
    states = module._updater.states
    result = {}
    for index, state in states.items():
        arrays = state if isinstance(state, (tuple, list)) else [state]
        result[index] = [a.asnumpy() for a in arrays if a is not None]
    return result


def decoded_states(path):
    decoded = np.load(path)
    states = {}
    for key in decoded.files:
        parts = key.split(":")
        states.setdefault(int(parts[1]), []).append((int(parts[2]) if len(parts) == 3 else 0, decoded[key]))
    return {i: [a for _, a in sorted(items, key=lambda item: item[0])] for i, items in states.items()}


def same_states(ours, expected):
    if sorted(ours) != sorted(expected):
        return False, f"indices {sorted(ours)} vs {sorted(expected)}"
    for index in expected:
        if len(ours[index]) != len(expected[index]):
            return False, f"state {index}: {len(ours[index])} arrays vs {len(expected[index])}"
        for a, b in zip(ours[index], expected[index]):
            if a.dtype != b.dtype or not np.array_equal(a, b):
                return False, f"state {index} differs"
    return True, ""


def bound_module(prefix, epoch, io, optimizer, optimizer_params):
    module = mx.mod.Module.load(str(prefix), epoch, load_optimizer_states=True)
    module.bind(data_shapes=[("data", io["data"].shape)], label_shapes=[("softmax_label", io["softmax_label"].shape)])
    module.init_optimizer(optimizer=optimizer, optimizer_params=optimizer_params)
    return module


def infer(module, io):
    module.forward(mx.io.DataBatch([mx.nd.array(io["data"])], [mx.nd.array(io["softmax_label"])]), is_train=False)
    return module.get_outputs()[0].asnumpy()


def check_resaved(folder, item):
    name, epoch = item["name"], item["epoch"]
    ours, original = folder / "resaved" / name, CHECKPOINTS / name
    our_json = (folder / "resaved" / f"{name}-symbol.json").read_text()
    original_json = (CHECKPOINTS / f"{name}-symbol.json").read_text()
    ours_symbol, theirs_symbol = mx.sym.load(f"{ours}-symbol.json"), mx.sym.load(f"{original}-symbol.json")
    check_graph(f"resaved/{name}: MXNet's load of ours vs of the original", ours_symbol.tojson(),
                theirs_symbol.tojson())
    check(f"resaved/{name}: same inputs and outputs", ours_symbol.list_inputs() == theirs_symbol.list_inputs() and
          ours_symbol.list_outputs() == theirs_symbol.list_outputs())
    check(f"resaved/{name}: -symbol.json bytes equal the MXNet-written file", our_json == original_json)
    params_name = "%s-%04d.params" % (name, epoch)
    equal, detail = same_arrays(mx.nd.load(str(folder / "resaved" / params_name)),
                                mx.nd.load(str(CHECKPOINTS / params_name)))
    check(f"resaved/{name}: .params arrays equal", equal, detail)
    check(f"resaved/{name}: .params bytes equal the MXNet-written file",
          (folder / "resaved" / params_name).read_bytes() == (CHECKPOINTS / params_name).read_bytes())
    states_name = "%s-%04d.states" % (name, epoch)
    check(f"resaved/{name}: .states bytes equal the MXNet-written file",
          (folder / "resaved" / states_name).read_bytes() == (CHECKPOINTS / states_name).read_bytes())
    io = np.load(CHECKPOINTS / f"{name}-io.npz")
    module = bound_module(ours, epoch, io, item["optimizer"], item["optimizer_params"])
    equal, detail = same_states(updater_states(module), decoded_states(CHECKPOINTS / f"{name}-states-decoded.npz"))
    check(f"resaved/{name}: MXNet's Module.load(load_optimizer_states=True) gets the recorded states", equal, detail)
    output = infer(module, io)
    check(f"resaved/{name}: MXNet's inference output equals the recorded one",
          np.allclose(output, io["out_infer:0"], rtol=1e-5, atol=1e-6),
          f"max difference {np.abs(output - io['out_infer:0']).max()}")


def check_symbol_json(folder, item):
    name = item["name"]
    ours = mx.sym.load(str(folder / "symbol-json" / f"{name}-symbol.json"))
    theirs = mx.sym.load(str(SYMBOL_JSON / item["source"]))
    check_graph(f"symbol-json/{name}: MXNet's load of ours vs of the original", ours.tojson(), theirs.tojson())
    check(f"symbol-json/{name}: attr_dict equal", ours.attr_dict() == theirs.attr_dict())


def check_trained(folder, item):
    name, epoch = item["name"], item["epoch"]
    prefix = folder / "trained" / name
    text = (folder / "trained" / f"{name}-symbol.json").read_text()
    symbol = mx.sym.load(f"{prefix}-symbol.json")
    check_graph(f"trained/{name}: ours vs MXNet's re-save of it", text, symbol.tojson())
    namespace = {"mx": mx}
    exec(item["builder"], namespace)  # the mxtorch code that built the network, now with MXNet
    built = namespace[item["builder_function"]]()[0]
    check_graph(f"trained/{name}: ours vs what MXNet builds from the same code", text, built.tojson())
    io = np.load(folder / "trained" / f"{name}-io.npz")
    module = bound_module(prefix, epoch, io, item["optimizer"], item["optimizer_params"])
    states = updater_states(module)
    arrays_per_state = {"sgd": 1, "adam": 2}[item["optimizer"]]
    shapes_ok = sorted(states) == list(range(len(module._param_names))) and all(
        len(states[i]) == arrays_per_state and all(a.shape == module._arg_params[module._param_names[i]].shape
                                                   for a in states[i]) for i in states)
    check(f"trained/{name}: MXNet loads the optimizer states ({item['optimizer']})", shapes_ok,
          f"{ {i: [a.shape for a in s] for i, s in states.items()} }")
    check(f"trained/{name}: momenta are not all zero", any(np.abs(a).max() > 0 for s in states.values() for a in s))
    output = infer(module, io)
    check(f"trained/{name}: MXNet's inference output equals mxtorch's",
          np.allclose(output, io["out_infer"], rtol=1e-4, atol=1e-5),
          f"max difference {np.abs(output - io['out_infer']).max()}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", help="output folder of tools/write_mxtorch_checkpoints.py")
    parser.add_argument("--mxtorch-python", default="/work/venv/bin/python")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as temporary:
        folder = pathlib.Path(args.folder or temporary)
        if not args.folder:
            subprocess.run([args.mxtorch_python, str(ROOT / "tools" / "write_mxtorch_checkpoints.py"), str(folder)],
                           check=True, env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})
        manifest = json.loads((folder / "manifest.json").read_text())
        for kind, function in (("resaved", check_resaved), ("symbol_json", check_symbol_json),
                               ("trained", check_trained)):
            for item in manifest[kind]:
                try:
                    function(folder, item)
                except mx.base.MXNetError as error:
                    check(f"{kind}/{item['name']}: MXNet raised no error", False, str(error).splitlines()[0])
        for skipped in manifest["skipped"]:
            print(f"skip {skipped['what']}: {skipped['why']}")
    failed = [label for label, ok in RESULTS if not ok]
    print(f"\n{len(RESULTS) - len(failed)} of {len(RESULTS)} checks passed; "
          f"{len(manifest['skipped'])} items skipped by the writer")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
