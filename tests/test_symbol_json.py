"""Symbol JSON: every file of the MXNet 1.9.1 symbol-json fixture loads with the recorded
names, attributes and inferred shapes/types, and ``tojson()`` writes what 1.9.1 writes
(tests/data/symbol-json/index.json).  Extra cases recorded with MXNet 1.9.1 by
tools/gen_symbol_json_extra.py (extra_cases.json) cover old layouts at several versions,
operator aliases, entry versions, escaping and attributes of symbols built in Python.
Malformed JSON must raise MXNetError and nothing else (hypothesis property test)."""
import json
import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mxtorch as mx
from mxtorch.ops import registry
from symbol_json_mutations import HypothesisChooser, mutated_text, operator_schemas, seed_graphs

DATA = os.path.join(os.path.dirname(__file__), "data", "symbol-json")
with open(os.path.join(DATA, "index.json")) as handle:
    CASES = {case["name"]: case for case in json.load(handle)["cases"]}
with open(os.path.join(DATA, "extra_cases.json"), encoding="utf-8") as handle:
    EXTRA = {case["name"]: case for case in json.load(handle)["cases"]}

# MXNet sets attributes on the variables bound to some operator inputs (FSetInputVarAttrOnCompose:
# BatchNorm's moving_mean/var '__init__', LeakyReLU prelu's gamma '__init__'); mxtorch operators
# declare them with input_variable_attrs(input_name).  Cases whose expected result depends on it:
NEEDS_INPUT_VARIABLE_ATTRS = {"save_000800": ["BatchNorm"], "batchnorm_0_8": ["BatchNorm", "LeakyReLU"],
                              "batchnorm_0_9_0": ["BatchNorm", "LeakyReLU"],
                              "batchnorm_0_9_3": ["BatchNorm", "LeakyReLU"],
                              "python_batchnorm_prelu": ["BatchNorm", "LeakyReLU"],
                              "python_group_hidden_output": ["BatchNorm"]}
# Deliberate differences: MXNet 1.9.1 loads a 0.9-era BatchNorm without its auxiliary-state
# inputs into a graph it cannot bind; mxtorch rejects the file, naming the node.
REJECTED = {"batchnorm_0_9_0_missing_aux": "'bn2' (BatchNorm) has 3 inputs"}


def require_input_variable_attrs(name):
    missing = [op for op in NEEDS_INPUT_VARIABLE_ATTRS.get(name, [])
               if not hasattr(registry.get_operator(op), "input_variable_attrs")]
    assert not missing, (f"{name}: operator(s) {missing} do not declare input_variable_attrs "
                         f"(MXNet's FSetInputVarAttrOnCompose '__init__' defaults)")


def load_fixture(case):
    return mx.sym.load(os.path.join(DATA, case["file"]))


def read(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as handle:
        return handle.read()


# -- the fixture files ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(CASES))
def test_fixture_lists_match(name):
    case = CASES[name]
    symbol = load_fixture(case)
    assert symbol.list_arguments() == case["list_arguments"]
    assert symbol.list_outputs() == case["list_outputs"]
    assert symbol.list_auxiliary_states() == case["list_auxiliary_states"]
    assert symbol.list_inputs() == case["list_inputs"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixture_attr_dict_matches(name):
    case = CASES[name]
    symbol = load_fixture(case)
    require_input_variable_attrs(name)
    assert symbol.attr_dict() == case["attr_dict"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixture_infer_shape_and_type(name):
    case = CASES[name]
    symbol = load_fixture(case)
    for record in case["infer_shape"]:
        arg_shapes, out_shapes, aux_shapes = symbol.infer_shape(**{k: tuple(v) for k, v in record["given"].items()})
        assert dict(zip(symbol.list_arguments(), arg_shapes)) == {k: tuple(v) for k, v in record["arg_shapes"].items()}
        assert out_shapes == [tuple(s) for s in record["out_shapes"]]
        assert dict(zip(symbol.list_auxiliary_states(), aux_shapes)) == \
            {k: tuple(v) for k, v in record["aux_shapes"].items()}
    given = {k: np.dtype(v) for k, v in case["infer_type"]["given"].items()}
    arg_types, out_types, aux_types = symbol.infer_type(**given)
    assert {k: np.dtype(t).name for k, t in zip(symbol.list_arguments(), arg_types)} == case["infer_type"]["arg_types"]
    assert [np.dtype(t).name for t in out_types] == case["infer_type"]["out_types"]
    assert {k: np.dtype(t).name for k, t in zip(symbol.list_auxiliary_states(), aux_types)} == \
        case["infer_type"]["aux_types"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixture_tojson_equals_mxnet_roundtrip(name):
    case = CASES[name]
    symbol = load_fixture(case)
    require_input_variable_attrs(name)
    expected = read(case["roundtrip_file"])
    written = symbol.tojson()
    assert json.loads(written) == json.loads(expected)
    # MXNet's own layout, byte for byte (the fixture files are MXNet's output)
    assert written == expected


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixture_written_json_loads_back_identically(name):
    case = CASES[name]
    symbol = load_fixture(case)
    written = symbol.tojson()
    again = mx.sym.load_json(written)
    assert again.tojson() == written
    assert again.attr_dict() == symbol.attr_dict()


def test_old_format_is_upgraded_like_mxnet():
    """save_000800.json (MXNet 0.8): 'param'/'attr', backward_source_id, 2-element entries,
    keys without underscores; BatchNorm without its auxiliary states."""
    symbol = load_fixture(CASES["save_000800"])
    attrs = symbol.attr_dict()
    assert attrs["data"] == {"__ctx_group__": "stage1", "ctx_group": "stage1", "__lr_mult__": "0.2", "lr_mult": "0.2"}
    # FullyConnected's 'weight_lr_mult' moved to the weight variable as __lr_mult__
    assert attrs["fc1_weight"]["__lr_mult__"] == "1.2" and "weight_lr_mult" not in attrs["fc1"]
    assert symbol.list_auxiliary_states() == ["batchnorm0_moving_mean", "batchnorm0_moving_var"]
    assert attrs["batchnorm0_moving_var"]["__ctx_group__"] == "stage2"
    nodes = json.loads(symbol.tojson())["nodes"]
    assert all(len(entry) == 3 for node in nodes for entry in node["inputs"])
    assert not any("param" in node or "attr" in node or "backward_source_id" in node for node in nodes)


# -- extra cases recorded with MXNet 1.9.1 -------------------------------------------------------------
def run_extra(case):
    namespace = {"mx": mx}
    exec(case["code"], namespace)  # the snippet MXNet ran (tools/gen_symbol_json_extra.py)
    return namespace["sym"]


@pytest.mark.parametrize("name", sorted(EXTRA))
def test_extra_case_matches_mxnet(name):
    case = EXTRA[name]
    if name in REJECTED:
        with pytest.raises(mx.MXNetError, match=re.escape(REJECTED[name])):
            run_extra(case)
        return
    if "error" in case:
        with pytest.raises(mx.MXNetError):
            run_extra(case)
        return
    require_input_variable_attrs(name)
    symbol = run_extra(case)
    for key in ("list_arguments", "list_outputs", "list_auxiliary_states", "list_inputs", "attr_dict"):
        assert getattr(symbol, key)() == case[key], key
    if case["list_attr"] is not None:
        assert symbol.list_attr() == case["list_attr"]
        assert {key: symbol.attr(key) for key in case["attr"]} == case["attr"]
    written = symbol.tojson()
    assert json.loads(written, strict=False) == json.loads(case["tojson"], strict=False)
    assert written == case["tojson"]


def test_escaped_text_reads_back():
    symbol = run_extra(EXTRA["escapes"])
    assert symbol.list_arguments() == ['na\u00efve "quoted"\tname']
    assert symbol.attr_dict()['na\u00efve "quoted"\tname']["__note__"] == "line1\nline2\r\\end"
    assert mx.sym.load_json(symbol.tojson()).tojson() == symbol.tojson()


# -- errors ------------------------------------------------------------------------------------------
def graph(*nodes, heads=None, version=10901):
    result = {"nodes": list(nodes), "heads": [[len(nodes) - 1, 0, 0]] if heads is None else heads}
    if version is not None:
        result["attrs"] = {"mxnet_version": ["int", version]}
    return json.dumps(result)


VARIABLE = {"op": "null", "name": "x", "inputs": []}


def test_unknown_operator_names_operator_and_node():
    text = graph(VARIABLE, {"op": "NoSuchOperator", "name": "mystery", "inputs": [[0, 0, 0]]})
    with pytest.raises(mx.MXNetError) as info:
        mx.sym.load_json(text)
    assert "NoSuchOperator" in str(info.value) and "mystery" in str(info.value)


def test_unknown_operator_in_file_names_file_operator_and_node(tmp_path):
    path = tmp_path / "net-symbol.json"
    path.write_text(graph(VARIABLE, {"op": "_contrib_NoSuchThing", "name": "layer3", "inputs": [[0, 0, 0]]}))
    with pytest.raises(mx.MXNetError, match=r"net-symbol\.json.*layer3.*_contrib_NoSuchThing"):
        mx.sym.load(str(path))


@pytest.mark.parametrize("text, message", [
    ("not json", "not valid JSON"),
    ("[1, 2]", "must be an object"),
    (json.dumps({"nodes": []}), "no 'heads'"),
    (graph(VARIABLE, heads=[]), "non-empty"),
    (graph(VARIABLE, heads=[[1, 0, 0]]), "refers to node 1"),
    (graph(VARIABLE, heads=[[0, 1, 0]]), "output 1 of node 'x'"),
    (graph(VARIABLE, {"op": "Activation", "name": "a", "attrs": {"act_type": "relu"}, "inputs": [[1, 0, 0]]}),
     "node 'a' input.*refers to node 1"),
    (graph(VARIABLE, {"op": "Activation", "name": "a", "attrs": {"act_type": "relu"}, "inputs": [[0, 0, 0], [0, 0, 0]]}),
     "'a' \\(Activation\\) has 2 inputs, the operator takes 1"),
    (graph(VARIABLE, {"op": "Activation", "name": "a", "attrs": {"act_type": "bogus"}, "inputs": [[0, 0, 0]]}),
     "node 'a'.*act_type"),
    (graph(VARIABLE, {"op": "Activation", "name": "a", "attrs": {"act_type": ["relu"]},
                      "inputs": [[0, 0, 0]]}), "must be a string"),
    (graph(VARIABLE, {"op": "Activation", "name": "a", "attrs": {"act_type": "relu"}, "inputs": [[0, "0", 0]]}),
     "integers"),
    (graph(VARIABLE, {"op": "Activation", "name": "a", "attrs": {"act_type": "relu"}, "inputs": [[True, 0, 0]]}),
     "integers"),
    (graph({"op": "null", "name": "x", "inputs": [[0, 0, 0]]}), "refers to node 0"),
    (graph(VARIABLE, {"op": "Concat", "name": "c", "attrs": {"num_args": "1000000000000"}, "inputs": [[0, 0, 0]]}),
     "num_args"),
    (graph(VARIABLE, {"op": "SliceChannel", "name": "s", "attrs": {"num_outputs": "10000000000"},
                      "inputs": [[0, 0, 0]]}), "num_outputs"),
    (graph(VARIABLE, {"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": "2", "weight_lr_mult": "2"},
                      "inputs": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]}), "weight_lr_mult"),
    (graph(VARIABLE, version="x"), "mxnet_version"),
    ("[" * 100000 + "]" * 100000, "nested too deeply|must be an object"),
])
def test_malformed_json_raises_mxnet_error(text, message):
    with pytest.raises(mx.MXNetError, match=message):
        mx.sym.load_json(text)


def test_forward_and_self_references_are_rejected():
    """Inputs may only name earlier nodes, so no cycle can be loaded."""
    cycle = graph({"op": "Activation", "name": "a", "attrs": {"act_type": "relu"}, "inputs": [[1, 0, 0]]},
                  {"op": "Activation", "name": "b", "attrs": {"act_type": "relu"}, "inputs": [[0, 0, 0]]})
    with pytest.raises(mx.MXNetError, match="only nodes"):
        mx.sym.load_json(cycle)


# -- variable attributes ---------------------------------------------------------------------------------
def test_variable_attributes_drive_inference_initialization_and_optimizer():
    """var_attrs: data has __shape__ (0, 6) (0 = unknown), __dtype__ 0, __lr_mult__ 0.5;
    fc_weight has __init__ constant 0.5 and __lr_mult__ 2.0."""
    symbol = load_fixture(CASES["var_attrs"])
    arg_shapes, out_shapes, _ = symbol.infer_shape_partial()
    assert arg_shapes[:3] == [(0, 6), (3, 6), (3,)] and out_shapes == [(0, 3)]
    assert symbol.infer_shape() == (None, None, None)
    arg_types, out_types, _ = symbol.infer_type()  # float32 from __dtype__ 0 alone
    assert arg_types == [np.float32] * 4 and out_types == [np.float32]
    module = mx.mod.Module(symbol, data_names=["data"], label_names=["softmax_label"])
    module.bind(data_shapes=[("data", (2, 6))], label_shapes=[("softmax_label", (2,))])
    module.init_params(mx.init.Uniform(0.01))
    weight = module.get_params()[0]["fc_weight"].asnumpy()
    np.testing.assert_array_equal(weight, np.full((3, 6), 0.5, dtype=np.float32))
    optimizer = mx.optimizer.create("sgd", sym=symbol, param_idx2name={0: "fc_weight", 1: "fc_bias"})
    assert optimizer.lr_mult == {"data": 0.5, "fc_weight": 2.0}


def test_tojson_remove_amp_cast_leaves_the_graph_alone():
    data = mx.sym.Variable("data")
    cast = mx.sym.amp_cast(data, dtype="float16", name="cast")
    net = mx.sym.Activation(cast, act_type="relu", name="act")
    stripped = json.loads(net.tojson())
    assert [n["name"] for n in stripped["nodes"]] == ["data", "act"]
    assert stripped["nodes"][1]["inputs"] == [[0, 0, 0]]
    kept = json.loads(net.tojson(remove_amp_cast=False))
    assert [n["name"] for n in kept["nodes"]] == ["data", "cast", "act"]


def test_tojson_remove_amp_cast_keeps_casts_that_are_outputs():
    """MXNet 1.9.1's RemoveAmpCast rewires the readers of a cast and leaves a cast that is a
    graph output: ``Group([amp_multicast(a, b)[0] + 1, amp_multicast(a, b)[1]])`` is written as
    nodes ``['null', '_plus_scalar', 'null', 'amp_multicast']``, a lone amp_cast as
    ``['null', 'amp_cast']`` (MXNet 1.9.1's tojson)."""
    a, b = mx.sym.var("a"), mx.sym.var("b")
    multicast = mx.sym.amp_multicast(a, b, num_outputs=2, name="mc")
    written = json.loads(mx.sym.Group([multicast[0] + 1, multicast[1]]).tojson())
    assert [n["op"] for n in written["nodes"]] == ["null", "_plus_scalar", "null", "amp_multicast"]
    assert written["nodes"][1]["inputs"] == [[0, 0, 0]] and written["heads"] == [[1, 0, 0], [3, 1, 0]]
    lone = json.loads(mx.sym.amp_cast(mx.sym.amp_cast(a, dtype="float16"), dtype="float32", name="c").tojson())
    assert [n["op"] for n in lone["nodes"]] == ["null", "amp_cast"] and lone["nodes"][1]["inputs"] == [[0, 0, 0]]


# -- robustness property ---------------------------------------------------------------------------------
SEEDS = seed_graphs()
SCHEMAS = operator_schemas()


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(SEEDS)), st.data())
def test_mutated_json_loads_or_raises_mxnet_error(name, data):
    text = mutated_text(SEEDS[name], HypothesisChooser(data), SCHEMAS)
    try:
        symbol = mx.sym.load_json(text)
    except mx.MXNetError:
        return
    written = symbol.tojson()
    assert mx.sym.load_json(written).tojson() == written
