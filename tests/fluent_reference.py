"""Replay helpers for the MXNet 1.9.1 reference calls in ``tests/data/fluent``
(written by ``tools/gen_fluent_reference.py``): decode a case's arguments into NDArrays or
Symbols and compare mxtorch's results with the stored values, shapes and dtypes."""
import json
import math
import os

import numpy as np

import mxtorch as mx

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "fluent")

with open(os.path.join(DATA, "cases.json"), encoding="utf-8") as _handle:
    CASES = json.load(_handle)["cases"]
with np.load(os.path.join(DATA, "arrays.npz")) as _arrays:
    ARRAYS = {key: _arrays[key] for key in _arrays.files}
INPUTS = {key[len("input/"):]: value for key, value in ARRAYS.items() if key.startswith("input/")}


# Reference cases where an operator (outside the fluent front ends) still differs from MXNet 1.9.1;
# the tests are strict xfails so they report as soon as the operator is fixed.
KNOWN_OPERATOR_DIFFERENCES = {}


def cases(kind):
    return [case for case in CASES if case["kind"] == kind]


def params(selected):
    """``pytest.param`` per case, marked as a strict xfail where the operator is known to differ."""
    import pytest
    result = []
    for case in selected:
        reason = KNOWN_OPERATOR_DIFFERENCES.get(case["name"])
        marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
        result.append(pytest.param(case, id=case["name"], marks=marks))
    return result


def to_nd(value):
    """Decode a JSON argument for an imperative call: stored arrays become fresh NDArrays."""
    if isinstance(value, dict):
        if "array" in value:
            source = INPUTS[value["array"]]
            return mx.nd.array(source, dtype=source.dtype)
        if "tuple" in value:
            return tuple(to_nd(v) for v in value["tuple"])
        if "numpy_type" in value:
            return np.dtype(value["numpy_type"]).type
    if isinstance(value, list):
        return [to_nd(v) for v in value]
    return value


def to_sym(value, used):
    """Decode a JSON argument for a symbolic call: stored arrays become variables of their name."""
    if isinstance(value, dict):
        if "array" in value:
            used.add(value["array"])
            return mx.sym.var(value["array"])
        if "tuple" in value:
            return tuple(to_sym(v, used) for v in value["tuple"])
        if "numpy_type" in value:
            return np.dtype(value["numpy_type"]).type
    if isinstance(value, list):
        return [to_sym(v, used) for v in value]
    return value


def evaluate(symbol, used):
    """Bind ``symbol`` to the stored inputs it uses and run forward (MXNet's ``Symbol.eval``)."""
    return symbol.eval(mx.cpu(), **{key: mx.nd.array(INPUTS[key], dtype=INPUTS[key].dtype) for key in used})


def check_result(name, result, expected):
    """Assert that ``result`` (an NDArray, a list of them or a Python scalar) matches ``expected``."""
    if expected["is_list"]:
        assert isinstance(result, (list, tuple)), f"{name}: expected a list of outputs, got {type(result)}"
        items = list(result)
    else:
        assert not isinstance(result, (list, tuple)), f"{name}: expected one output, got a list"
        items = [result]
    assert len(items) == len(expected["outputs"]), f"{name}: {len(items)} outputs, expected {len(expected['outputs'])}"
    for index, (item, reference) in enumerate(zip(items, expected["outputs"])):
        label = f"{name}[{index}]"
        if "scalar" in reference:
            assert not isinstance(item, mx.nd.NDArray), f"{label}: expected a Python scalar"
            assert type(item).__name__ == reference["type"], \
                f"{label}: type {type(item).__name__}, expected {reference['type']}"
            assert math.isclose(float(item), float(reference["scalar"]), rel_tol=1e-6), \
                f"{label}: {item} != {reference['scalar']}"
            continue
        value = item.asnumpy() if isinstance(item, mx.nd.NDArray) else np.asarray(item)
        want = ARRAYS[reference["key"]]
        assert list(value.shape) == reference["shape"], f"{label}: shape {value.shape}, expected {tuple(want.shape)}"
        assert value.dtype.name == reference["dtype"], f"{label}: dtype {value.dtype}, expected {reference['dtype']}"
        if np.issubdtype(want.dtype, np.floating):
            tolerance = 2e-3 if want.dtype == np.float16 else 1e-5
            np.testing.assert_allclose(value, want, rtol=tolerance, atol=tolerance, equal_nan=True, err_msg=label)
        else:
            np.testing.assert_array_equal(value, want, err_msg=label)


def check_head(name, symbol, expected):
    """The head node of ``symbol``'s JSON has MXNet's operator name, attributes and output count."""
    graph = json.loads(symbol.tojson())
    heads = graph["heads"]
    node = graph["nodes"][heads[0][0]]
    assert node["op"] == expected["op"], f"{name}: operator {node['op']!r}, expected {expected['op']!r}"
    assert node.get("attrs", {}) == expected["attrs"], f"{name}: attributes {node.get('attrs')} != {expected['attrs']}"
    assert len(heads) == expected["num_outputs"], f"{name}: {len(heads)} outputs, expected {expected['num_outputs']}"
