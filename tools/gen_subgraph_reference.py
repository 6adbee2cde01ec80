"""Record MXNet 1.9.1's graph partitioning by operator names for tests/test_subgraph_api.py.

Run with the reference MXNet interpreter (not part of the test suite):

    ~/mxref/bin/python tools/gen_subgraph_reference.py [OUTPUT_FOLDER]   # default tests/data/subgraph

Writes reference.json: for each graph built by ``GRAPHS`` (the test builds the same graphs with
the same code) and each list of operator names, the partitioned graph from
``MXBuildSubgraphByOpNames(sym, 'default', ...)`` and from ``optimize_for('default')`` with and
without ``dedup_subgraph``: its JSON and ``list_inputs`` / ``list_arguments`` /
``list_auxiliary_states`` / ``list_outputs`` / ``get_internals().list_outputs()``.
"""
import ctypes
import json
import sys
from pathlib import Path


def build_graphs(mx):
    """``{name: (symbol, [op name lists])}``: small graphs exercising the partitioner."""
    x = mx.sym.var("x", shape=(2, 3))
    graphs = {}
    chain = mx.sym.cos(mx.sym.sin(mx.sym.exp(x, name="e"), name="s"), name="c")
    graphs["chain"] = (chain, [["exp", "sin"], ["cos"], []])
    e = mx.sym.exp(x, name="e")
    cycle = mx.sym.elemwise_add(mx.sym.log(e, name="l"), mx.sym.tanh(e, name="t"), name="add")
    graphs["cycle"] = (cycle, [["exp", "tanh", "elemwise_add"], ["exp", "log", "elemwise_add"]])
    d = mx.sym.var("d", shape=(1, 2, 5, 5))
    conv = mx.sym.Convolution(d, kernel=(3, 3), num_filter=4, name="conv")
    bn = mx.sym.BatchNorm(conv, name="bn")
    graphs["conv_bn"] = (mx.sym.relu(bn, name="r"), [["Convolution", "BatchNorm"], ["BatchNorm", "relu"]])
    two = mx.sym.BatchNorm(mx.sym.BatchNorm(d, name="bn1"), name="bn2")
    graphs["two_bn"] = (two, [["BatchNorm"]])
    graphs["square"] = (mx.sym.elemwise_mul(x, x, name="sq"), [["elemwise_mul"]])
    y = mx.sym.var("y", shape=(2, 3))
    both = mx.sym.elemwise_sub(mx.sym.exp(x, name="ex"), mx.sym.exp(y, name="ey"), name="sub")
    graphs["two_subgraphs"] = (both, [["exp"]])
    fc = mx.sym.FullyConnected(x, num_hidden=4, name="fc")
    graphs["head_and_reader"] = (mx.sym.Group([fc, mx.sym.relu(fc, name="act")]), [["FullyConnected"]])
    return graphs


def describe(sym):
    return {"json": json.loads(sym.tojson()), "inputs": sym.list_inputs(), "arguments": sym.list_arguments(),
            "aux": sym.list_auxiliary_states(), "outputs": sym.list_outputs(),
            "internals": sym.get_internals().list_outputs()}


def main(folder):
    import mxnet as mx
    from mxnet.base import SymbolHandle, _LIB, c_str, c_str_array, check_call, mx_uint
    record = {}
    for name, (sym, op_lists) in build_graphs(mx).items():
        for names in op_lists:
            key = f"{name}:{','.join(names)}"
            out = SymbolHandle()
            check_call(_LIB.MXBuildSubgraphByOpNames(sym.handle, c_str("default"), mx_uint(len(names)),
                                                     c_str_array(names), ctypes.byref(out)))
            entry = {"build": describe(mx.sym.Symbol(out))}
            check_call(_LIB.MXSetSubgraphPropertyOpNamesV2(c_str("default"), mx_uint(len(names)),
                                                           c_str_array(names)))
            entry["optimize_for"] = describe(sym.optimize_for("default"))
            entry["dedup"] = describe(sym.optimize_for("default", dedup_subgraph=True))
            check_call(_LIB.MXRemoveSubgraphPropertyOpNamesV2(c_str("default")))
            record[key] = entry
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "reference.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "tests/data/subgraph")
