"""NDArray and Symbol operator methods run the registered operators MXNet dispatches to
(broadcast_*, _*_scalar, _r*_scalar, elemwise ops): values and dtypes from MXNet 1.9.1 for
negative, fractional and integer arrays and scalars on either side
(tools/gen_operator_methods.py)."""
import json
import os

import numpy as np
import pytest

import mxtorch as mx

DATA = os.path.join(os.path.dirname(__file__), "data", "operator_methods", "operator_methods.json")
with open(DATA) as handle:
    REFERENCE = json.load(handle)
INPUTS = {k: np.array(v, dtype=REFERENCE["input_dtypes"][k]) for k, v in REFERENCE["inputs"].items()}


def _values(array):
    return np.array(array.asnumpy(), dtype=np.float64)


def _expected(record):
    return np.array([np.nan if v is None else v for v in record["values"]], dtype=np.float64)


def _check(result, record):
    assert np.dtype(result.dtype).name == record["dtype"]
    np.testing.assert_allclose(_values(result), _expected(record), rtol=1e-6, atol=0, equal_nan=True)


@pytest.mark.parametrize("case", REFERENCE["cases"], ids=[c["expression"] for c in REFERENCE["cases"]])
def test_ndarray_operator_matches_mxnet(case):
    names = {k: mx.nd.array(v, dtype=v.dtype) for k, v in INPUTS.items()}
    _check(eval(case["expression"], {"abs": abs}, names), case["ndarray"])


@pytest.mark.parametrize("case", REFERENCE["cases"], ids=[c["expression"] for c in REFERENCE["cases"]])
def test_symbol_operator_matches_mxnet(case):
    variables = {k: mx.sym.var(k) for k in INPUTS}
    symbol = eval(case["expression"], {"abs": abs}, variables)
    arrays = {k: mx.nd.array(INPUTS[k], dtype=INPUTS[k].dtype) for k in symbol.list_arguments()}
    _check(symbol.bind(mx.cpu(), arrays).forward()[0], case["symbol"])


@pytest.mark.parametrize("case", REFERENCE["inplace"],
                         ids=[f"{c['target']} {c['op']} {c['other']}" for c in REFERENCE["inplace"]])
def test_ndarray_inplace_operator_matches_mxnet(case):
    names = {k: mx.nd.array(v, dtype=v.dtype) for k, v in INPUTS.items()}
    array = names[case["target"]]
    exec(f"{case['target']} {case['op']} {case['other']}", {}, names)
    assert names[case["target"]] is array
    _check(array, case)


def test_operator_methods_record_gradients_through_the_registry():
    x = mx.nd.array([-5.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = (3.0 - x) * x % 4.0 + (-x) / 2
    y.backward()
    # d/dx [(3 - x) x mod 4] = 3 - 2x (away from the jumps); d/dx (-x / 2) = -0.5
    np.testing.assert_allclose(x.grad.asnumpy(), [3 + 10 - 0.5, 3 - 4 - 0.5])


def test_unsupported_operand_is_not_implemented():
    x = mx.nd.array([1.0])
    assert (x == None) is False  # noqa: E711 - Python falls back to identity
    with pytest.raises(TypeError):
        x + "text"


def test_fluent_methods_are_declared_on_the_operators():
    from mxtorch.ops import registry
    names = registry.fluent_operators()
    assert {"sum", "flip", "reshape", "split", "sqrt"} <= set(names) and "negative" not in names
    for name in names:
        assert callable(getattr(mx.nd.NDArray, name)) and callable(getattr(mx.sym.Symbol, name)), name
    assert registry.get_operator("reverse").fluent == "flip"
    np.testing.assert_array_equal(mx.nd.array([1.0, 2.0]).flip(axis=0).asnumpy(), [2.0, 1.0])


def test_amp_casts_and_plot_labels_are_operator_declarations():
    from mxtorch.ops import registry
    assert registry.get_operator("amp_cast").is_amp_cast and registry.get_operator("amp_multicast").is_amp_cast
    assert not registry.get_operator("Cast").is_amp_cast
    conv = registry.get_operator("Convolution")(kernel="(3, 3)", num_filter=8, stride="(2, 2)")
    assert conv.plot_label("Convolution", "c0") == ("Convolution\n3x3/2x2, 8", "weighted")
    # 4 input channels * 8 filters * 3 * 3 + 8 biases
    assert conv.summary_parameters(4, None) == 4 * 8 * 9 + 8
    assert registry.get_operator("Flatten")().plot_label("Flatten", "f0") == ("f0", "reshaping")
