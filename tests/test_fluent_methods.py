"""Fluent methods of NDArray and Symbol (MXNet checklist 3.4 and 5.4): each is the registered
operator of the same name with the array / symbol as its first input.  Values, shapes and
dtypes come from MXNet 1.9.1 (``tests/data/fluent``, written by tools/gen_fluent_reference.py);
for Symbol calls also the operator name and attributes MXNet writes to JSON."""
import json

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError, NotImplementedForSymbol

from fluent_reference import INPUTS, cases, check_head, check_result, evaluate, params, to_nd, to_sym

METHOD_CASES = cases("method")

FLUENT_NAMES = """reshape reshape_like astype zeros_like ones_like broadcast_axes repeat pad swapaxes split
split_v2 slice slice_axis slice_like take one_hot pick sort topk argsort argmax argmax_channel argmin clip abs
sign flatten shape_array size_array expand_dims broadcast_to broadcast_like tile transpose flip depth_to_space
space_to_depth diag sum nansum prod nanprod mean max min norm round rint fix floor ceil trunc sin cos tan arcsin
arccos arctan degrees radians sinh cosh tanh arcsinh arccosh arctanh exp expm1 log log10 log2 log1p sqrt rsqrt
cbrt rcbrt square reciprocal relu sigmoid softmax log_softmax softmin squeeze""".split()


def test_every_fluent_name_has_a_reference_case():
    covered = {case["method"] for case in METHOD_CASES}
    assert set(FLUENT_NAMES) <= covered, sorted(set(FLUENT_NAMES) - covered)


@pytest.mark.parametrize("name", FLUENT_NAMES)
def test_fluent_name_exists_on_both_classes(name):
    assert callable(getattr(mx.nd.NDArray, name))
    assert callable(getattr(mx.sym.Symbol, name))


@pytest.mark.parametrize("case", params([c for c in METHOD_CASES if "nd" in c["fronts"]]))
def test_ndarray_method_matches_mxnet(case):
    expected = case["fronts"]["nd"]
    target = to_nd({"array": case["source"]})
    args = to_nd(case["args"])
    kwargs = {key: to_nd(value) for key, value in case["kwargs"].items()}
    if expected.get("error"):
        with pytest.raises(MXNetError):
            getattr(target, case["method"])(*args, **kwargs)
        return
    result = getattr(target, case["method"])(*args, **kwargs)
    check_result(case["name"], result, expected)


@pytest.mark.parametrize("case", params([c for c in METHOD_CASES if "sym" in c["fronts"]]))
def test_symbol_method_matches_mxnet(case):
    expected = case["fronts"]["sym"]
    used = {case["source"]}
    target = to_sym({"array": case["source"]}, used)
    args = to_sym(case["args"], used)
    kwargs = {key: to_sym(value, used) for key, value in case["kwargs"].items()}
    if expected.get("error"):
        with pytest.raises(MXNetError):
            symbol = getattr(target, case["method"])(*args, **kwargs)
            evaluate(symbol, used)
        return
    symbol = getattr(target, case["method"])(*args, **kwargs)
    check_head(case["name"], symbol, expected["head"])
    check_result(case["name"], evaluate(symbol, used), {**expected, "is_list": True})


def test_inplace_forms_share_memory_with_the_source():
    """``flatten`` / ``expand_dims`` / ``squeeze`` with ``inplace=True`` and ``reshape`` are views."""
    array = mx.nd.array(INPUTS["a"])
    for view in (array.flatten(inplace=True), array.expand_dims(0, inplace=True), array.reshape((4, 6)),
                 array.expand_dims(1, inplace=True).squeeze(inplace=True)):
        view[:] = 0
        assert float(array.abs().sum().asscalar()) == 0.0
        array[:] = INPUTS["a"]
        view += 1
        np.testing.assert_allclose(array.asnumpy(), INPUTS["a"] + 1, rtol=1e-6)
        array[:] = INPUTS["a"]
    copy = array.flatten()
    copy[:] = 0
    np.testing.assert_array_equal(array.asnumpy(), INPUTS["a"])


def test_reshape_rejects_unknown_keywords_and_size_changes():
    array = mx.nd.ones((2, 3))
    with pytest.raises(MXNetError, match="reshape"):
        array.reshape((2, 3), order="F")
    with pytest.raises(MXNetError, match="reshape"):
        array.reshape((4, 2))


def test_astype_copy_false_returns_the_same_array():
    array = mx.nd.ones((2, 2), dtype="int32")
    assert array.astype(np.int32, copy=False) is array
    converted = array.astype("float64", copy=False)
    assert converted is not array and converted.dtype == np.float64


def test_transpose_property():
    matrix = mx.nd.array(INPUTS["a"])
    np.testing.assert_array_equal(matrix.T.asnumpy(), INPUTS["a"].T)
    vector = mx.nd.array(INPUTS["v"])
    assert vector.T is vector


@pytest.mark.parametrize("name, args", [("wait_to_read", ()), ("asnumpy", ()), ("asscalar", ()), ("copy", ()),
                                        ("as_in_context", (mx.cpu(),)), ("detach", ()), ("backward", ())])
def test_ndarray_only_methods_raise_on_symbol(name, args):
    with pytest.raises(NotImplementedForSymbol, match=name):
        getattr(mx.sym.var("x"), name)(*args)


def test_symbol_fluent_method_takes_name_and_attr():
    data = mx.sym.var("data")
    result = data.sum(axis=1, name="total", attr={"__mirror_stage__": "True"})
    assert result.name == "total"
    assert result.list_attr()["__mirror_stage__"] == "True"
    assert data.exp().name == "exp0" and data.exp().name == "exp1"


def test_fluent_methods_reject_unknown_attributes():
    with pytest.raises(MXNetError, match="sum.*keepdim"):
        mx.nd.ones((2, 2)).sum(keepdim=True)
    with pytest.raises(MXNetError, match="sum.*keepdim"):
        mx.sym.var("x").sum(keepdim=True)


def test_ndarray_fluent_method_writes_to_out():
    source = mx.nd.array(INPUTS["m"])
    target = mx.nd.zeros((3,))
    returned = source.sum(axis=1, out=target)
    assert returned is target
    np.testing.assert_allclose(target.asnumpy(), INPUTS["m"].sum(axis=1), rtol=1e-5)


def test_operators_without_attributes_ignore_unknown_ones_with_a_warning_as_mxnet():
    # MXNet 1.9.1 checks names only for operators with parameters: broadcast_maximum(..., axis=1)
    # computes the plain maximum and keeps "axis" in the symbol JSON
    with pytest.warns(UserWarning, match="broadcast_maximum.*axis"):
        got = mx.nd.broadcast_maximum(mx.nd.array([0]), mx.nd.array([1, -2]), axis=1)
    assert got.asnumpy().tolist() == [1, 0]
    with pytest.warns(UserWarning):
        node = mx.sym.broadcast_maximum(mx.sym.var("a"), mx.sym.var("b"), axis=1)
    assert json.loads(node.tojson())["nodes"][2]["attrs"] == {"axis": "1"}
    with pytest.raises(MXNetError, match="sum.*foo"):
        mx.nd.sum(mx.nd.array([1]), foo=3)
