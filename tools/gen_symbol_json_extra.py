"""Record what MXNet 1.9.1 makes of extra symbol-JSON cases (run with the reference MXNet).

    ~/mxref/bin/python tools/gen_symbol_json_extra.py tests/data/symbol-json/extra_cases.json [tests/data/symbol-json]

With the second argument it also reruns the shared cases of index.json (see ``shared_cases``).

Each case is a short Python snippet, run with ``mx`` bound to MXNet here and to mxtorch in
``tests/test_symbol_json.py``; it leaves the Symbol under test in ``sym``.  The cases cover
what the fixture files do not: old JSON layouts at several ``mxnet_version``s (hidden-key
upgrade, ``<input>_lr_mult`` transfer, auxiliary states added to 0.8 files, the 0.9.3 input
variable ``__init__`` upgrade), operator aliases, entry versions of shared auxiliary
states, the writer's escaping and line breaking, and attributes of symbols built in Python.
For each case the file records MXNet's ``tojson()`` text, the ``list_*`` results,
``attr_dict()``, ``list_attr()`` and ``attr(key)`` for a few keys, or the error message.
"""
import json
import sys
import warnings

import mxnet as mx

BN_GRAPH = {
    "nodes": [
        {"op": "null", "name": "data", "inputs": []},
        {"op": "null", "name": "g", "inputs": []},
        {"op": "null", "name": "b", "inputs": []},
        {"op": "null", "name": "mm", "attr": {"ctx_group": "q"}, "inputs": []},
        {"op": "null", "name": "mv", "inputs": []},
        {"op": "BatchNorm", "name": "bn", "param": {"eps": "0.001"}, "attr": {"ctx_group": "c"},
         "inputs": [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]]},
        {"op": "null", "name": "gamma", "inputs": []},
        {"op": "LeakyReLU", "name": "lr", "param": {"act_type": "prelu"}, "inputs": [[5, 0], [6, 0]]},
        {"op": "null", "name": "g2", "inputs": []},
        {"op": "null", "name": "b2", "inputs": []},
        {"op": "BatchNorm", "name": "bn2", "param": {"fix_gamma": "False"}, "attr": {"lr_mult": "3"},
         "inputs": [[7, 0], [8, 0], [9, 0]]},
        {"op": "BatchNorm", "name": "bn3", "param": {}, "inputs": [[10, 0], [8, 0], [9, 0], [3, 0, 1], [4, 0, 1]]},
    ],
    "arg_nodes": [0, 1, 2],
    "heads": [[11, 0], [10, 1]],
}

# every BatchNorm with its auxiliary states; 'mm' / 'mv' are shared by two BatchNorms
BN_COMPLETE_GRAPH = {**BN_GRAPH, "nodes": BN_GRAPH["nodes"][:8] + [
    {"op": "BatchNorm", "name": "bn3", "inputs": [[7, 0], [1, 0], [2, 0], [3, 0, 1], [4, 0, 1]]}],
    "heads": [[8, 0], [5, 2]]}

OLD_FC_GRAPH = {
    "nodes": [
        {"op": "null", "name": "data", "attr": {"lr_mult": "0.2", "mood": "x"}, "inputs": []},
        {"op": "null", "name": "fc1_weight", "attr": {"weight_lr_mult": "1.2", "wd_mult": "0.5"}, "inputs": []},
        {"op": "null", "name": "fc1_bias", "inputs": []},
        {"op": "FullyConnected", "name": "fc1", "param": {"num_hidden": "4"},
         "attr": {"weight_lr_mult": "1.5", "bias_wd_mult": "0.1", "data_ctx_group": "g", "__foo__": "z",
                  "force_mirroring": "True"},
         "inputs": [[0, 0], [1, 0], [2, 0]], "backward_source_id": -1},
        {"op": "Activation", "name": "act", "param": {"act_type": "relu"}, "attr": {"mirror_stage": "1"},
         "inputs": [[3, 0]], "backward_source_id": -1},
    ],
    "arg_nodes": [0, 1, 2],
    "heads": [[4, 0]],
}

ALIAS_OPS = [
    ("Softmax", {}, 2), ("split", {"num_outputs": "2"}, 1), ("_Plus", {}, 2), ("_plus", {}, 2),
    ("_Mul", {}, 2), ("_MinusScalar", {"scalar": "1"}, 1), ("flatten", {}, 1), ("reshape", {"shape": "(-1,)"}, 1),
    ("concat", {"num_args": "2", "dim": "1"}, 2), ("ElementWiseSum", {"num_args": "2"}, 2),
    ("broadcast_plus", {}, 2), ("stop_gradient", {}, 1), ("cast", {"dtype": "float16"}, 1),
    ("swapaxes", {"dim1": "0", "dim2": "1"}, 1), ("flip", {"axis": "0"}, 1), ("sum_axis", {"axis": "1"}, 1),
    ("_DivScalar", {"scalar": "2"}, 1), ("broadcast_minus", {}, 2), ("max_axis", {"axis": "0"}, 1),
]


def alias_graph(op, attrs, count):
    nodes = [{"op": "null", "name": f"x{i}", "inputs": []} for i in range(count)]
    node = {"op": op, "name": "node", "inputs": [[i, 0, 0] for i in range(count)]}
    if attrs:
        node["attrs"] = attrs
    nodes.append(node)
    return {"nodes": nodes, "arg_nodes": list(range(count)), "heads": [[count, 0, 0]],
            "attrs": {"mxnet_version": ["int", 10901]}}


def with_version(graph, version):
    graph = json.loads(json.dumps(graph))
    if version is not None:
        graph["attrs"] = {"mxnet_version": ["int", version]}
    return graph


def wide_concat_graph():
    nodes = [{"op": "null", "name": f"in{i}", "inputs": []} for i in range(12)]
    nodes.append({"op": "Concat", "name": "cat", "attrs": {"num_args": "12", "dim": "0"},
                  "inputs": [[i, 0] for i in range(12)]})
    return {"nodes": nodes, "arg_nodes": list(range(12)), "heads": [[12, 0]],
            "attrs": {"mxnet_version": ["int", 10901]}}


ESCAPES_GRAPH = {
    "nodes": [{"op": "null", "name": "na\u00efve \"quoted\"\tname",
               "attrs": {"__note__": "line1\nline2\r\\end", "__unicode__": "\u03bb\u00b5"}, "inputs": []},
              {"op": "Activation", "name": "act/1", "attrs": {"act_type": "tanh"}, "inputs": [[0, 0]]}],
    "arg_nodes": [0], "heads": [[1, 0]], "attrs": {"mxnet_version": ["int", 10901]},
}


def load_case(name, graph, raw_tab=False):
    # MXNet's reader knows only the escapes r n t, backslash and quote (no u): other characters stay raw
    text = json.dumps(graph, ensure_ascii=False)
    if raw_tab:
        text = text.replace("\\t", "\t")
    return {"name": name, "code": f"sym = mx.sym.load_json({text!r})"}


CASES = [
    load_case("old_fc_0_8", OLD_FC_GRAPH),
    load_case("old_fc_1_9_0", with_version(OLD_FC_GRAPH, 10900)),
    load_case("batchnorm_0_8", BN_GRAPH),
    load_case("batchnorm_0_9_0_missing_aux", with_version(BN_GRAPH, 900)),
    load_case("batchnorm_0_9_0", with_version(BN_COMPLETE_GRAPH, 900)),
    load_case("batchnorm_0_9_3", with_version(BN_COMPLETE_GRAPH, 903)),
    load_case("batchnorm_0_9_4", with_version(BN_COMPLETE_GRAPH, 904)),
    load_case("batchnorm_1_9_1_raw_ctx_group", with_version(BN_COMPLETE_GRAPH, 10901)),
    load_case("batchnorm_1_9_1_shared_aux", with_version(
        {**BN_COMPLETE_GRAPH, "nodes": [{k: v for k, v in n.items() if k != "attr"}
                                        for n in BN_COMPLETE_GRAPH["nodes"]]}, 10901)),
    load_case("newer_version_20000", with_version(alias_graph("FullyConnected", {"num_hidden": "2"}, 3), 20000)),
    load_case("wide_concat", wide_concat_graph()),
    load_case("escapes", ESCAPES_GRAPH),
    load_case("raw_control_character", ESCAPES_GRAPH, raw_tab=True),
] + [load_case(f"alias_{op}", alias_graph(op, attrs, count)) for op, attrs, count in ALIAS_OPS] + [
    {"name": "python_variable_attributes",
     "code": "sym = mx.sym.Variable('d', attr={'lr_mult': '0.5', 'mood': 'x', 'ctx_group': 'g'}, "
             "shape=(0, 3), dtype='float16', init=mx.init.One(), wd_mult=2)"},
    {"name": "python_op_attributes",
     "code": "d = mx.sym.Variable('d')\n"
             "with mx.AttrScope(ctx_group='s'):\n"
             "    sym = mx.sym.FullyConnected(d, num_hidden=3, name='fc', attr={'lr_mult': '0.1', '__mood__': 'm'})\n"
             "sym._set_attr(wd_mult='3')"},
    {"name": "python_batchnorm_prelu",
     "code": "d = mx.sym.Variable('data')\n"
             "bn = mx.sym.BatchNorm(d, name='bn', fix_gamma=False)\n"
             "sym = mx.sym.LeakyReLU(bn, act_type='prelu', name='prelu')\n"
             "sym = mx.sym.BatchNorm(sym, name='bn2', moving_mean=mx.sym.Variable('bn_moving_mean'), "
             "moving_var=mx.sym.Variable('bn_moving_var'))"},
    {"name": "python_group_hidden_output",
     "code": "d = mx.sym.Variable('data')\n"
             "bn = mx.sym.BatchNorm(d, name='bn', output_mean_var=True)\n"
             "sym = mx.sym.Group([bn[0], bn[2], mx.sym.split(d, num_outputs=3, name='sp')[1]])"},
]

QUERIED_ATTRS = ["lr_mult", "__lr_mult__", "ctx_group", "wd_mult", "init", "__init__", "mood", "__mood__",
                 "shape", "__shape__", "num_hidden"]


def run(case):
    namespace = {"mx": mx}
    record = dict(case)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(case["code"], namespace)
        sym = namespace["sym"]
        record.update(
            tojson=sym.tojson(),
            list_arguments=sym.list_arguments(),
            list_outputs=sym.list_outputs(),
            list_auxiliary_states=sym.list_auxiliary_states(),
            list_inputs=sym.list_inputs(),
            attr_dict=sym.attr_dict(),
            list_attr=sym.list_attr() if len(sym.list_outputs()) == 1 else None,
            attr={key: sym.attr(key) for key in QUERIED_ATTRS} if len(sym.list_outputs()) == 1 else None,
        )
    except mx.base.MXNetError as error:
        record["error"] = str(error).splitlines()[0]
    return record


def main(path):
    records = [run(case) for case in CASES]
    with open(path, "w") as handle:
        json.dump({"mxnet_version": mx.__version__, "generator": "tools/gen_symbol_json_extra.py",
                   "cases": records}, handle, indent=1, ensure_ascii=False)
    for record in records:
        print(record["name"], "error: " + record["error"] if "error" in record else "ok")


def shared_cases(out):
    """Reload every shared MXNet 1.9.1 case of index.json (whose original generator is not in
    this repository) and record again what MXNet makes of it: the ``list_*`` results,
    ``attr_dict()``, ``infer_shape`` / ``infer_type`` for the recorded inputs, and the JSON it
    writes back (``<case>.roundtrip.json``).  Returns the names whose records differ."""
    import os
    import shutil
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "symbol-json")
    with open(os.path.join(source, "index.json")) as handle:
        index = json.load(handle)
    differ = []
    for case in index["cases"]:
        symbol = mx.sym.load(os.path.join(source, case["file"]))
        record = dict(case, list_arguments=symbol.list_arguments(), list_outputs=symbol.list_outputs(),
                      list_auxiliary_states=symbol.list_auxiliary_states(), list_inputs=symbol.list_inputs(),
                      attr_dict=symbol.attr_dict())
        shapes = []
        for entry in case["infer_shape"]:
            arg, out_shapes, aux = symbol.infer_shape(**{k: tuple(v) for k, v in entry["given"].items()})
            shapes.append({"given": entry["given"],
                           "arg_shapes": dict(zip(symbol.list_arguments(), map(list, arg))),
                           "out_shapes": [list(x) for x in out_shapes],
                           "aux_shapes": dict(zip(symbol.list_auxiliary_states(), map(list, aux)))})
        record["infer_shape"] = shapes
        given = case["infer_type"]["given"]
        arg, out_types, aux = symbol.infer_type(**given)
        name = lambda t: __import__("numpy").dtype(t).name
        record["infer_type"] = {"given": given, "arg_types": dict(zip(symbol.list_arguments(), map(name, arg))),
                                "out_types": [name(t) for t in out_types],
                                "aux_types": dict(zip(symbol.list_auxiliary_states(), map(name, aux)))}
        written = symbol.tojson()
        with open(os.path.join(source, case["roundtrip_file"])) as handle:
            same_text = handle.read() == written
        with open(os.path.join(out, case["roundtrip_file"]), "w") as handle:
            handle.write(written)
        if os.path.realpath(out) != os.path.realpath(source):
            shutil.copy(os.path.join(source, case["file"]), out)
        if record != case or not same_text:
            differ.append(case["name"])
    return differ


if __name__ == "__main__":
    main(sys.argv[1])
    if len(sys.argv) > 2:
        # a second argument: the folder to write the shared cases' round-trip files into
        print("shared cases that differ from the committed records:", shared_cases(sys.argv[2]) or "none")
