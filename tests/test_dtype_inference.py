"""Dtype inference: the registry's uniform rule, its declared opt-outs, and the graph pass's
conflict check.  Expected values are MXNet 1.9.1's (checked against it)."""
import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError

v = mx.sym.var


def _names(types):
    return [None if t is None else np.dtype(t).name for t in types]


# -- the default rule: one dtype for all inputs --------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda a, b: mx.sym.elemwise_add(a, b),
    lambda a, b: mx.sym.broadcast_mul(a, b),
    lambda a, b: mx.sym.Concat(a, b, dim=0),
    lambda a, b: mx.sym.stack(a, b),
    lambda a, b: mx.sym.add_n(a, b),
    lambda a, b: mx.sym.LayerNorm(a, b, v("beta")),
    lambda a, b: mx.sym.LinearRegressionOutput(a, b),
    lambda a, b: mx.sym.SoftmaxOutput(a, b),
])
@pytest.mark.parametrize("first, second", [("int32", "float32"), ("float32", "int32"), ("float16", "float32")])
def test_mixed_dtypes_raise_in_symbolic_infer_type(make, first, second):
    # MXNet 1.9.1: MXNetError "Incompatible attr in node ... at 1-th input: expected int32, got
    # float32" (Concat: "Non-uniform data type in Concat", SoftmaxOutput: "This layer requires
    # uniform type")
    symbol = make(v("a"), v("b"))
    with pytest.raises(MXNetError) as info:
        symbol.infer_type(a=first, b=second)
    message = str(info.value)
    assert f"is {first}" in message and f"is {second}" in message
    assert "inputs of different dtypes" in message


def test_the_error_names_node_operator_inputs_and_dtypes():
    symbol = mx.sym.elemwise_add(v("a"), v("b"), name="plus")
    with pytest.raises(MXNetError) as info:
        symbol.infer_type(a="int32", b="float32")
    message = str(info.value)
    assert message.startswith("Error in operator plus (elemwise_add): Operator elemwise_add: ")
    assert "'lhs' is int32, 'rhs' is float32" in message


def test_mixed_dtypes_raise_at_bind():
    # MXNet 1.9.1: simple_bind raises "Incompatible attr in node elemwise_add0 at 1-th input"
    symbol = mx.sym.elemwise_add(v("a"), v("b"))
    with pytest.raises(MXNetError, match="'lhs' is int32, 'rhs' is float32"):
        symbol.simple_bind(mx.cpu(), a=(2,), b=(2,), type_dict={"a": "int32", "b": "float32"})
    with pytest.raises(MXNetError, match="'lhs' is int32, 'rhs' is float32"):
        symbol.bind(mx.cpu(), {"a": mx.nd.ones(2, dtype="int32"), "b": mx.nd.ones(2)})


def test_one_known_dtype_reaches_every_input_and_the_output():
    # MXNet 1.9.1: ([float16, float16], [float16], [])
    symbol = mx.sym.elemwise_add(v("a"), v("b"))
    args, outs, aux = symbol.infer_type(a="float16")
    assert (_names(args), _names(outs), aux) == (["float16", "float16"], ["float16"], [])
    # a variable's dtype attribute counts as known: ([float16, float16], [float16], [])
    args, outs, _ = mx.sym.elemwise_add(v("a", dtype="float16"), v("b")).infer_type()
    assert (_names(args), _names(outs)) == (["float16", "float16"], ["float16"])


def test_variable_dtype_attribute_that_conflicts_raises():
    # MXNet 1.9.1: "Incompatible attr in node elemwise_add0 at 1-th input: expected float16, got float32"
    with pytest.raises(MXNetError, match="'lhs' is float16, 'rhs' is float32"):
        mx.sym.elemwise_add(v("a", dtype="float16"), v("b")).infer_type(b="float32")


def test_a_cast_makes_mixed_inputs_legal():
    # MXNet 1.9.1: ([int32, float32], [float32], [])
    symbol = mx.sym.elemwise_add(mx.sym.Cast(v("a"), dtype="float32"), v("b"))
    args, outs, _ = symbol.infer_type(a="int32", b="float32")
    assert (_names(args), _names(outs)) == (["int32", "float32"], ["float32"])
    # and a cast to the other dtype does not: MXNet 1.9.1 "Incompatible attr ... at 1-th input"
    symbol = mx.sym.elemwise_add(mx.sym.Cast(v("a"), dtype="int32"), v("b"))
    with pytest.raises(MXNetError, match="'lhs' is int32, 'rhs' is float32"):
        symbol.infer_type(a="float32", b="float32")


def test_fully_connected_uses_the_default_rule():
    # MXNet 1.9.1: "Incompatible attr in node fullyconnected0 at 1-th input: expected float32, got float16"
    symbol = mx.sym.FullyConnected(v("x"), v("w", dtype="float16"), num_hidden=2, no_bias=True)
    with pytest.raises(MXNetError, match="'data' is float32, 'weight' is float16"):
        symbol.infer_type(x="float32")
    args, outs, _ = mx.sym.FullyConnected(v("x"), num_hidden=2).infer_type(x="float16")
    assert (_names(args), _names(outs)) == (["float16"] * 3, ["float16"])


# -- inputs whose dtype is free ---------------------------------------------------------------------
def test_take_with_integer_indices():
    # MXNet 1.9.1: ([float32, int32], [float32], [])
    args, outs, aux = mx.sym.take(v("a"), v("i")).infer_type(a="float32", i="int32")
    assert (_names(args), _names(outs), aux) == (["float32", "int32"], ["float32"], [])


def test_embedding_with_integer_data():
    # MXNet 1.9.1: ([int32, float32], [float32], [])
    symbol = mx.sym.Embedding(v("d"), v("w"), input_dim=5, output_dim=3)
    args, outs, _ = symbol.infer_type(d="int32", w="float32")
    assert (_names(args), _names(outs)) == (["int32", "float32"], ["float32"])


def test_sequence_mask_length_and_where_condition():
    # MXNet 1.9.1: SequenceMask ([float32, int32], [float32]); where ([int32, float32, float32], [float32])
    symbol = mx.sym.SequenceMask(v("d"), v("l"), use_sequence_length=True)
    args, outs, _ = symbol.infer_type(d="float32", l="int32")
    assert (_names(args), _names(outs)) == (["float32", "int32"], ["float32"])
    args, outs, _ = mx.sym.where(v("c"), v("x"), v("y")).infer_type(c="int32", x="float32", y="float32")
    assert (_names(args), _names(outs)) == (["int32", "float32", "float32"], ["float32"])


def test_bilinear_resize_like_takes_any_dtype():
    # MXNet 1.9.1 accepts it: output float32 (it reports 'like' as float32 too; here it keeps int32)
    symbol = mx.sym.contrib.BilinearResize2D(v("d"), v("l"), mode="like")
    args, outs, _ = symbol.infer_type(d="float32", l="int32")
    assert (_names(args), _names(outs)) == (["float32", "int32"], ["float32"])
    out = mx.nd.contrib.BilinearResize2D(mx.nd.ones((1, 1, 2, 2)), mx.nd.zeros((1, 1, 4, 4), dtype="int32"),
                                         mode="like")
    assert out.dtype == np.float32 and out.shape == (1, 1, 4, 4)


def test_fill_element_0index_values_and_indices_take_any_dtype():
    # MXNet 1.9.1 (imperative): float32 lhs with int32 mhs or rhs gives a float32 result
    symbol = mx.sym.fill_element_0index(v("lhs"), v("mhs"), v("rhs"))
    args, outs, _ = symbol.infer_type(lhs="float32", mhs="int32", rhs="int32")
    assert (_names(args), _names(outs)) == (["float32", "int32", "int32"], ["float32"])
    out = mx.nd.fill_element_0index(mx.nd.zeros((2, 3)), mx.nd.array([5, 7], dtype="int32"),
                                    mx.nd.array([2, 0], dtype="int32"))
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.asnumpy(), [[0, 0, 5], [7, 0, 0]])


def test_declared_free_inputs_are_exactly_the_surveyed_ones():
    from mxtorch.ops.registry import get_operator
    assert get_operator("_contrib_BilinearResize2D").free_dtype_inputs == ("like",)
    assert get_operator("fill_element_0index").free_dtype_inputs == ("mhs", "rhs")
    assert get_operator("elemwise_add").free_dtype_inputs == ()


# -- the graph pass: an inferred dtype that contradicts a known one ---------------------------------
def test_graph_conflict_raises_naming_node_and_both_dtypes():
    # MXNet 1.9.1: "Error in operator hawkesll0: Type inconsistent, Provided = float32, inferred type = int32"
    symbol = mx.sym.contrib.hawkesll(v("lda"), v("alpha"), v("beta"), v("state"), v("lags"), v("marks"),
                                     v("vl"), v("mt"), name="hawkes")
    with pytest.raises(MXNetError) as info:
        symbol.infer_type(lda="float32", marks="float32")
    message = str(info.value)
    assert "Error in operator hawkes" in message and "Incompatible attr in node hawkes" in message
    assert "'marks': expected float32, got int32" in message
    # MXNet 1.9.1: int32 marks are what it wants: 7 float32 inputs, marks int32, float32 outputs
    args, outs, _ = symbol.infer_type(lda="float32", marks="int32")
    assert _names(args) == ["float32"] * 5 + ["int32"] + ["float32"] * 2
    assert _names(outs) == ["float32", "float32"]


def test_graph_conflict_on_a_where_branch():
    # MXNet 1.9.1 raises for x float32 and y float16 ("Cannot decide type" / inconsistent)
    with pytest.raises(MXNetError, match="expected float16, got float32|float32.*float16"):
        mx.sym.where(v("c"), v("x"), v("y")).infer_type(c="int32", x="float32", y="float16")


def test_amp_cast_of_bfloat16_is_a_float_cast():
    # an amp_cast to float32 of bfloat16 data gives float32 (as MXNet's amp_cast), so an add
    # after it with float32 data is uniform
    symbol = mx.sym.elemwise_add(mx.sym.amp_cast(v("a"), dtype="float32"), v("b"))
    args, outs, _ = symbol.infer_type(a="bfloat16", b="float32")
    assert _names(outs) == ["float32"]
