"""Tensor, indexing, reduction, linalg, sequence, random and loss operators.

- reference values recorded with MXNet 1.9.1 for cases the shared fixtures do not cover
  (``tests/data/ops_extra``, written by ``tools/gen_ops_extra.py``): symbolic outputs and
  gradients, and ``mx.nd.<op>`` giving the same values as the symbolic path;
- a finite-difference gradient check (``mx.test_utils.check_numeric_gradient``) for every
  differentiable operator;
- float16 / float64 behaviour, the error messages of shape inference, and the random
  samplers' distributions.
"""
import json
import os

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError
from mxtorch.test_utils import check_numeric_gradient

DATA = os.path.join(os.path.dirname(__file__), "data", "ops_extra")
with open(os.path.join(DATA, "index.json")) as handle:
    EXTRA = json.load(handle)["cases"]
ARRAYS = np.load(os.path.join(DATA, "arrays.npz"))


def tolerance(case):
    dtypes = {ARRAYS[f"{case['name']}/arg:{k}"].dtype for k in case["inputs"]}
    if np.dtype(np.float16) in dtypes:
        return 5e-3, 1e-3
    if dtypes <= {np.dtype(np.float64), np.dtype(np.int32)}:
        return 1e-9, 1e-12
    return 1e-5, 1e-6


def inputs_of(case):
    return {k: ARRAYS[f"{case['name']}/arg:{k}"] for k in case["inputs"]}


@pytest.mark.parametrize("case", EXTRA, ids=[c["name"] for c in EXTRA])
def test_reference_values(case):
    """Outputs (values, shapes, dtypes) and gradients match MXNet 1.9.1."""
    name = case["name"]
    rtol, atol = tolerance(case)
    inputs = inputs_of(case)
    symbol = mx.sym.load_json(case["symbol"])
    assert symbol.list_arguments() == case["inputs"]
    executor = symbol.simple_bind(mx.cpu(), grad_req=case["grad_req"], type_dict={k: v.dtype for k, v in inputs.items()},
                                  **{k: v.shape for k, v in inputs.items()})
    for key, value in inputs.items():
        executor.arg_dict[key][:] = value
    outputs = executor.forward(is_train=True)
    assert len(outputs) == case["num_outputs"]
    for index, output in enumerate(outputs):
        expected = ARRAYS[f"{name}/out:{index}"]
        assert output.shape == expected.shape
        assert np.dtype(output.dtype) == expected.dtype
        np.testing.assert_allclose(output.asnumpy().astype(np.float64), expected.astype(np.float64), rtol=rtol,
                                   atol=atol, err_msg=f"out:{index}")
    if not any(f"{name}/grad:{k}" in ARRAYS for k in case["inputs"]):
        return
    heads = None if case["loss"] else [mx.nd.array(ARRAYS[f"{name}/head:{i}"], dtype=ARRAYS[f"{name}/head:{i}"].dtype)
                                       for i in range(len(outputs))]
    executor.backward(heads)
    for key in case["inputs"]:
        if f"{name}/grad:{key}" in ARRAYS:
            np.testing.assert_allclose(executor.grad_dict[key].asnumpy().astype(np.float64),
                                       ARRAYS[f"{name}/grad:{key}"].astype(np.float64), rtol=rtol, atol=atol,
                                       err_msg=f"grad:{key}")


# graph cases whose head is an elemwise_add of a creator (arange, linspace, eye) have no single op to call
IMPERATIVE = [c for c in EXTRA if not (c.get("graph") and c["op"] == "elemwise_add")]


@pytest.mark.parametrize("case", IMPERATIVE, ids=[c["name"] for c in IMPERATIVE])
def test_imperative_equals_symbolic(case):
    """``mx.nd.<op>`` computes exactly what the bound symbol computes."""
    name = case["name"]
    inputs = inputs_of(case)
    arrays = {k: mx.nd.array(v, dtype=v.dtype) for k, v in inputs.items()}
    attrs = {k: v for k, v in case["attrs"].items()}
    function = getattr(mx.nd, case["op"])
    if case["positional"] or case.get("graph"):
        result = function(*[arrays[k] for k in case["inputs"]], **attrs)
    else:
        result = function(**arrays, **attrs)
    results = result if isinstance(result, list) else [result]
    assert len(results) == case["num_outputs"]
    for index, value in enumerate(results):
        expected = ARRAYS[f"{name}/out:{index}"]
        if case["op"] in ("_linalg_syevd",):
            expected = np.abs(expected) if index == 0 else expected
            np.testing.assert_allclose(np.abs(value.asnumpy()) if index == 0 else value.asnumpy(), expected,
                                       rtol=1e-5, atol=1e-6)
            continue
        rtol, atol = tolerance(case)
        assert value.shape == expected.shape and np.dtype(value.dtype) == expected.dtype
        np.testing.assert_allclose(value.asnumpy().astype(np.float64), expected.astype(np.float64), rtol=rtol,
                                   atol=atol)


# -- finite-difference gradient checks ------------------------------------------------------------
rng = np.random.RandomState(7)


def away_from(values, points, gap=0.05):
    """Move entries of ``values`` that are within ``gap`` of any of ``points`` away from them."""
    values = np.array(values, dtype=np.float64)
    for point in points:
        close = np.abs(values - point) < gap
        values[close] = point + np.where(values[close] >= point, gap, -gap)
    return values


def distinct(*shape):
    """Values whose pairwise gaps exceed the finite-difference step (no ties)."""
    count = int(np.prod(shape))
    return (rng.permutation(count) * 0.37 - count * 0.15).reshape(shape)


def spd(n, batch=()):
    a = rng.randn(*(batch + (n, n)))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def lower(n):
    a = np.tril(rng.randn(n, n))
    a[np.arange(n), np.arange(n)] = np.abs(a[np.arange(n), np.arange(n)]) + 1.0
    return a


x, y, z = mx.sym.var("x"), mx.sym.var("y"), mx.sym.var("z")
index = mx.sym.var("index")
GRADIENT_CASES = {
    # tensor
    "reshape_like": (mx.sym.reshape_like(x, y), {"x": rng.randn(2, 6), "y": rng.randn(3, 4)}, ["x"]),
    "transpose": (mx.sym.transpose(x, axes=(1, 2, 0)), {"x": rng.randn(2, 3, 2)}, None),
    "SwapAxis": (mx.sym.SwapAxis(x, dim1=0, dim2=1), {"x": rng.randn(2, 3)}, None),
    "expand_dims": (mx.sym.expand_dims(x, axis=1), {"x": rng.randn(2, 3)}, None),
    "squeeze": (mx.sym.squeeze(x, axis=(0, 2)), {"x": rng.randn(1, 3, 1)}, None),
    "stack": (mx.sym.stack(x, y, axis=1), {"x": rng.randn(2, 3), "y": rng.randn(2, 3)}, None),
    "SliceChannel": (mx.sym.SliceChannel(x, num_outputs=2, axis=1), {"x": rng.randn(2, 4)}, None),
    "slice": (mx.sym.slice(x, begin=(None, 3), end=(None, 0), step=(2, -1)), {"x": rng.randn(4, 4)}, None),
    "slice_axis": (mx.sym.slice_axis(x, axis=1, begin=1, end=-1), {"x": rng.randn(2, 4)}, None),
    "slice_like": (mx.sym.slice_like(x, y, axes=(0,)), {"x": rng.randn(4, 3), "y": rng.randn(2, 5)}, ["x"]),
    "tile": (mx.sym.tile(x, reps=(2, 1, 2)), {"x": rng.randn(2, 3)}, None),
    "repeat": (mx.sym.repeat(x, repeats=2, axis=0), {"x": rng.randn(2, 3)}, None),
    "reverse": (mx.sym.reverse(x, axis=(0, 1)), {"x": rng.randn(2, 3)}, None),
    "Cast": (mx.sym.Cast(x, dtype="float64"), {"x": rng.randn(2, 3)}, None),
    "broadcast_to": (mx.sym.broadcast_to(x, shape=(2, 3, 4)), {"x": rng.randn(2, 1, 4)}, None),
    "broadcast_like": (mx.sym.broadcast_like(x, y), {"x": rng.randn(1, 3), "y": rng.randn(2, 3)}, ["x"]),
    "broadcast_axis": (mx.sym.broadcast_axis(x, axis=(0,), size=(3,)), {"x": rng.randn(1, 2)}, None),
    "clip": (mx.sym.clip(x, a_min=-0.5, a_max=0.5), {"x": away_from(rng.randn(3, 4), [-0.5, 0.5])}, None),
    "diag": (mx.sym.diag(x, k=1, axis1=1, axis2=0), {"x": rng.randn(3, 4, 2)}, None),
    "depth_to_space": (mx.sym.depth_to_space(x, block_size=2), {"x": rng.randn(1, 4, 2, 3)}, None),
    "space_to_depth": (mx.sym.space_to_depth(x, block_size=2), {"x": rng.randn(1, 2, 2, 4)}, None),
    "moments": (mx.sym.moments(x, axes=(1,)), {"x": rng.randn(3, 4)}, None),
    "split_v2": (mx.sym._internal._split_v2(x, indices=(0, 1, 3), axis=1), {"x": rng.randn(2, 4)}, None),
    "where": (mx.sym.where(index, x, y), {"index": np.array([1.0, 0.0, 1.0]), "x": rng.randn(3, 2),
                                          "y": rng.randn(3, 2)}, ["x", "y"]),
    # indexing
    "take": (mx.sym.take(x, index, axis=1), {"x": rng.randn(2, 3), "index": np.array([[0, 2], [2, 2]])}, ["x"]),
    "pick": (mx.sym.pick(x, index, axis=0), {"x": rng.randn(3, 4), "index": np.array([0, 2, 1, 2])}, ["x"]),
    "fill_element_0index": (mx.sym.fill_element_0index(x, y, index), {"x": rng.randn(2, 3), "y": rng.randn(2),
                                                                      "index": np.array([2, 0])}, ["x", "y"]),
    "gather_nd": (mx.sym.gather_nd(x, index), {"x": rng.randn(2, 3), "index": np.array([[1, 0, 1], [2, 0, 2]])},
                  ["x"]),
    "scatter_nd": (mx.sym.scatter_nd(x, index, shape=(2, 3)),
                   {"x": rng.randn(3), "index": np.array([[1, 0, 0], [2, 0, 1]])}, ["x"]),
    "topk": (mx.sym.topk(x, k=2, ret_typ="value", axis=1), {"x": distinct(3, 4)}, None),
    "sort": (mx.sym.sort(x, axis=0, is_ascend=False), {"x": distinct(3, 2)}, None),
    # reductions
    "sum": (mx.sym.sum(x, axis=(0, 2), keepdims=True), {"x": rng.randn(2, 3, 2)}, None),
    "mean": (mx.sym.mean(x, axis=1, exclude=True), {"x": rng.randn(2, 3, 2)}, None),
    "prod": (mx.sym.prod(x, axis=1), {"x": rng.uniform(0.5, 1.5, (2, 3))}, None),
    "max": (mx.sym.max(x, axis=1), {"x": distinct(3, 4)}, None),
    "min": (mx.sym.min(x), {"x": distinct(3, 4)}, None),
    "nansum": (mx.sym.nansum(x, axis=0), {"x": rng.randn(3, 2)}, None),
    "nanprod": (mx.sym.nanprod(x, axis=0), {"x": rng.uniform(0.5, 1.5, (3, 2))}, None),
    "norm_l2": (mx.sym.norm(x, axis=1), {"x": rng.randn(3, 4)}, None),
    "norm_l1": (mx.sym.norm(x, ord=1), {"x": away_from(rng.randn(3, 4), [0.0])}, None),
    "softmax": (mx.sym.softmax(x, axis=0, temperature=2.0), {"x": rng.randn(3, 4)}, None),
    "softmax_length": (mx.sym.softmax(x, index, use_length=True), {"x": rng.randn(2, 4), "index": np.array([3, 1])},
                       ["x"]),
    "log_softmax": (mx.sym.log_softmax(x), {"x": rng.randn(3, 4)}, None),
    "softmin": (mx.sym.softmin(x, axis=1), {"x": rng.randn(3, 4)}, None),
    # linear algebra
    "dot": (mx.sym.dot(x, y, transpose_a=True), {"x": rng.randn(4, 2, 3), "y": rng.randn(4, 2)}, None),
    "batch_dot": (mx.sym.batch_dot(x, y, transpose_b=True), {"x": rng.randn(2, 3, 4), "y": rng.randn(2, 2, 4)},
                  None),
    "khatri_rao": (mx.sym.khatri_rao(x, y), {"x": rng.randn(2, 3), "y": rng.randn(3, 3)}, None),
    "linalg_gemm": (mx.sym.linalg_gemm(x, y, z, alpha=2.0, beta=0.5, transpose_a=True),
                    {"x": rng.randn(3, 2), "y": rng.randn(3, 4), "z": rng.randn(2, 4)}, None),
    "linalg_gemm2": (mx.sym.linalg_gemm2(x, y, axis=-3), {"x": rng.randn(2, 3, 4), "y": rng.randn(4, 3, 2)}, None),
    "linalg_potrf": (mx.sym.linalg_potrf(x), {"x": spd(3)}, None),
    "linalg_potri": (mx.sym.linalg_potri(x), {"x": lower(3)}, None),
    "linalg_trsm": (mx.sym.linalg_trsm(x, y, transpose=True, alpha=1.5), {"x": lower(3), "y": rng.randn(3, 2)},
                    None),
    "linalg_trmm": (mx.sym.linalg_trmm(x, y, rightside=True, lower=False), {"x": rng.randn(3, 3),
                                                                            "y": rng.randn(2, 3)}, None),
    "linalg_syrk": (mx.sym.linalg_syrk(x, transpose=True), {"x": rng.randn(3, 2)}, None),
    "linalg_sumlogdiag": (mx.sym.linalg_sumlogdiag(x), {"x": spd(3, (2,))}, None),
    "linalg_inverse": (mx.sym.linalg_inverse(x), {"x": spd(3)}, None),
    "linalg_det": (mx.sym.linalg_det(x), {"x": rng.randn(2, 3, 3)}, None),
    "linalg_slogdet": (mx.sym.linalg_slogdet(x)[1], {"x": rng.randn(3, 3)}, None),
    "linalg_extractdiag": (mx.sym.linalg_extractdiag(x, offset=-1), {"x": rng.randn(3, 3)}, None),
    "linalg_makediag": (mx.sym.linalg_makediag(x, offset=1), {"x": rng.randn(2, 3)}, None),
    "linalg_extracttrian": (mx.sym.linalg_extracttrian(x, lower=False), {"x": rng.randn(3, 3)}, None),
    "linalg_maketrian": (mx.sym.linalg_maketrian(x, offset=-1), {"x": rng.randn(3)}, None),
    # sequences
    "SequenceMask": (mx.sym.SequenceMask(x, index, use_sequence_length=True, value=2.0),
                     {"x": rng.randn(3, 2, 2), "index": np.array([1, 3])}, ["x"]),
    "SequenceLast": (mx.sym.SequenceLast(x, index, use_sequence_length=True, axis=1),
                     {"x": rng.randn(2, 3, 2), "index": np.array([2, 3])}, ["x"]),
    "SequenceReverse": (mx.sym.SequenceReverse(x, index, use_sequence_length=True),
                        {"x": rng.randn(3, 2, 2), "index": np.array([2, 3])}, ["x"]),
    # losses with ordinary gradients
    "softmax_cross_entropy": (mx.sym.softmax_cross_entropy(x, index), {"x": rng.randn(3, 4),
                                                                       "index": np.array([1, 0, 3])}, ["x"]),
    "smooth_l1": (mx.sym.smooth_l1(x, scalar=2.0), {"x": away_from(rng.randn(3, 4), [-0.25, 0.25])}, None),
    "CTCLoss": (mx.sym.CTCLoss(x, index), {"x": rng.randn(4, 2, 3), "index": np.array([[1, 2], [2, 0]])}, ["x"]),
}
# the operators checked in float64 (the others in float32)
FLOAT64 = {"linalg_potrf", "linalg_potri", "linalg_trsm", "linalg_inverse", "linalg_det", "linalg_slogdet",
           "linalg_sumlogdiag", "prod", "nanprod", "CTCLoss", "Cast", "linalg_gemm"}


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
def test_numeric_gradient(name):
    symbol, location, nodes = GRADIENT_CASES[name]
    location = {k: np.asarray(v) for k, v in location.items()}
    dtype = np.float64 if name in FLOAT64 else np.float32
    check_numeric_gradient(symbol, location, grad_nodes=nodes, dtype=dtype)


def test_numeric_gradient_covers_every_differentiable_operator():
    """Each differentiable operator of these modules appears in GRADIENT_CASES."""
    from mxtorch.ops import registry
    covered = set()
    for symbol, _, _ in GRADIENT_CASES.values():
        for node in symbol._nodes():
            if node.op is not None:
                covered.add(type(node.op))
    expected = ["reshape_like", "transpose", "SwapAxis", "expand_dims", "squeeze", "stack", "SliceChannel",
                "slice", "slice_axis", "slice_like", "tile", "repeat", "reverse", "Cast", "broadcast_to",
                "broadcast_like", "broadcast_axis", "clip", "where", "diag", "depth_to_space", "space_to_depth",
                "moments", "_split_v2", "fill_element_0index", "take", "pick", "gather_nd",
                "scatter_nd", "topk", "sort", "sum", "mean", "prod", "max", "min", "nansum", "nanprod", "norm",
                "softmax", "log_softmax", "softmin", "dot", "batch_dot", "khatri_rao", "_linalg_gemm",
                "_linalg_gemm2", "_linalg_potrf", "_linalg_potri", "_linalg_trsm", "_linalg_trmm", "_linalg_syrk",
                "_linalg_sumlogdiag", "_linalg_inverse", "_linalg_det", "_linalg_slogdet", "_linalg_extractdiag",
                "_linalg_makediag", "_linalg_extracttrian", "_linalg_maketrian", "SequenceMask", "SequenceLast",
                "SequenceReverse", "softmax_cross_entropy", "smooth_l1", "CTCLoss"]
    missing = [name for name in expected if registry.get_operator(name) not in covered]
    assert not missing


# -- dtypes --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("op, build", [
    ("transpose", lambda a: mx.nd.transpose(a)),
    ("sum", lambda a: mx.nd.sum(a, axis=1)),
    ("max", lambda a: mx.nd.max(a, axis=0)),
    ("softmax", lambda a: mx.nd.softmax(a)),
    ("dot", lambda a: mx.nd.dot(a, a, transpose_b=True)),
    ("take", lambda a: mx.nd.take(a, mx.nd.array([2, 0]), axis=1)),
    ("tile", lambda a: mx.nd.tile(a, reps=(2,))),
    ("slice", lambda a: mx.nd.slice(a, begin=(1, None), end=(None, 2))),
    ("SequenceMask", lambda a: mx.nd.SequenceMask(a, mx.nd.array([1, 2, 3]), use_sequence_length=True)),
    ("where", lambda a: mx.nd.where(a > 0, a, -a)),
])
@pytest.mark.parametrize("dtype", [np.float16, np.float64])
def test_other_float_dtypes(op, build, dtype):
    """float16 and float64 inputs keep their dtype and match the float32 computation."""
    values = np.random.RandomState(3).uniform(-2, 2, (3, 3))
    low = build(mx.nd.array(values, dtype=dtype))
    reference = build(mx.nd.array(values, dtype=np.float64)).asnumpy()
    assert low.dtype == dtype
    tolerance = 2e-3 if dtype == np.float16 else 1e-12
    np.testing.assert_allclose(low.asnumpy().astype(np.float64), reference, rtol=tolerance, atol=tolerance)


def test_integer_inputs():
    """Integer arrays: sums stay integer, mean truncates, argmax keeps the input dtype."""
    data = mx.nd.array([[1, 2], [4, 4]], dtype=np.int32)
    assert mx.nd.sum(data).dtype == np.int32 and mx.nd.sum(data).asnumpy().tolist() == [11]
    assert mx.nd.mean(data, axis=1).asnumpy().tolist() == [1, 4]
    argmax = mx.nd.argmax(data, axis=1)
    assert argmax.dtype == np.int32 and argmax.asnumpy().tolist() == [1, 0]
    assert mx.nd.Cast(mx.nd.array([-1.7, 2.9]), dtype="int32").asnumpy().tolist() == [-1, 2]


def test_cast_gradient_is_in_the_input_dtype():
    data = mx.sym.var("data")
    executor = mx.sym.Cast(data, dtype="float16").simple_bind(mx.cpu(), data=(2,))
    executor.arg_dict["data"][:] = np.array([1.5, -2.25])
    executor.forward(is_train=True)
    executor.backward([mx.nd.array([0.5, 2.0], dtype=np.float16)])
    gradient = executor.grad_dict["data"]
    assert gradient.dtype == np.float32
    assert gradient.asnumpy().tolist() == [0.5, 2.0]


# -- shape inference and its errors ---------------------------------------------------------------------
def infer_error(symbol, **shapes):
    with pytest.raises(MXNetError) as info:
        symbol.infer_shape(**shapes)
    return str(info.value)


@pytest.mark.parametrize("symbol, shapes, fragments", [
    (mx.sym.dot(x, y), {"x": (3, 4), "y": (5, 2)}, ["dot", "'lhs' (3, 4)", "'rhs' (5, 2)"]),
    (mx.sym.batch_dot(x, y), {"x": (2, 3, 4), "y": (3, 4, 5)}, ["batch_dot", "'lhs' (2, 3, 4)", "'rhs' (3, 4, 5)"]),
    (mx.sym.stack(x, y), {"x": (2, 3), "y": (2, 4)}, ["stack", "(2, 4)", "(2, 3)"]),
    (mx.sym.SliceChannel(x, num_outputs=2), {"x": (2, 5)}, ["SliceChannel", "'data' (2, 5)", "num_outputs=2"]),
    (mx.sym.where(index, x, y), {"index": (2,), "x": (3, 2), "y": (3, 2)}, ["where", "'condition' (2,)", "(3, 2)"]),
    (mx.sym.where(index, x, y), {"index": (3, 2), "x": (3, 2), "y": (3, 4)}, ["where", "'x' (3, 2)", "'y' (3, 4)"]),
    (mx.sym.broadcast_to(x, shape=(4, 3)), {"x": (2, 3)}, ["broadcast_to", "'data' of shape (2, 3)", "(4, 3)"]),
    (mx.sym.reshape_like(x, y), {"x": (2, 3), "y": (4, 2)}, ["reshape_like", "'lhs'", "(2, 3)", "'rhs'", "(4, 2)"]),
    (mx.sym.linalg_gemm(x, y, z), {"x": (2, 3), "y": (3, 4), "z": (2, 5)}, ["_linalg_gemm", "'C' (2, 5)", "(2, 4)"]),
    (mx.sym.take(x, index, axis=2), {"x": (2, 3), "index": (4,)}, ["take", "'axis'", "2"]),
    (mx.sym.pick(x, index, axis=1), {"x": (2, 3), "index": (3,)}, ["pick", "'index'", "(3,)", "(2,)"]),
    (mx.sym.squeeze(x, axis=1), {"x": (2, 3)}, ["squeeze", "'axis'", "(2, 3)"]),
    (mx.sym.transpose(x, axes=(0, 0)), {"x": (2, 3)}, ["transpose", "'axes'", "(0, 0)"]),
    (mx.sym.slice(x, begin=(0, 0, 0), end=(1, 1, 1)), {"x": (2, 3)}, ["slice", "'begin'", "(2, 3)"]),
    (mx.sym.SequenceMask(x, index, use_sequence_length=True), {"x": (4, 3, 2), "index": (4,)},
     ["SequenceMask", "'sequence_length'", "(3,)", "(4,)"]),
    (mx.sym.softmax(x, index, use_length=True), {"x": (2, 3), "index": (3,)}, ["softmax", "'length'"]),
    (mx.sym.linalg_trsm(x, y), {"x": (3, 3), "y": (4, 2)}, ["_linalg_trsm", "'A' (3, 3)", "'B' (4, 2)"]),
    (mx.sym.linalg_potrf(x), {"x": (3, 4)}, ["_linalg_potrf", "'A'", "(3, 4)"]),
    (mx.sym.topk(x, k=5), {"x": (2, 3)}, ["topk", "'k'=5", "3"]),
    (mx.sym.one_hot(x, depth=3) + y, {"x": (2,), "y": (2, 4)}, ["(2, 3)", "(2, 4)"]),
])
def test_shape_errors_name_operator_argument_and_shapes(symbol, shapes, fragments):
    message = infer_error(symbol, **shapes)
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_shapes_flow_backwards():
    """Output shapes determine input shapes where the operator allows it."""
    data = mx.sym.var("data")
    args, outs, _ = (mx.sym.transpose(data, axes=(1, 0)) + mx.sym.var("other")).infer_shape(other=(3, 2))
    assert args == [(2, 3), (3, 2)] and outs == [(3, 2)]
    args, outs, _ = (mx.sym.random_uniform(shape=(0, 4)) + data).infer_shape(data=(5, 4))
    assert args == [(5, 4)] and outs == [(5, 4)]
    args, _, _ = (mx.sym.SliceChannel(data, num_outputs=2)[0] + mx.sym.var("other")).infer_shape(other=(2, 3))
    assert args[0] == (2, 6)


def test_runtime_errors():
    with pytest.raises(MXNetError, match="_linalg_potrf.*positive definite"):
        mx.nd.linalg_potrf(mx.nd.array([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(MXNetError, match="_linalg_inverse.*singular"):
        mx.nd.linalg_inverse(mx.nd.array([[1.0, 2.0], [2.0, 4.0]]))
    # MXNet 1.9.1 checks take's indices while computing: the call returns, asnumpy raises
    taken = mx.nd.take(mx.nd.ones((3, 2)), mx.nd.array([0, 5]), mode="raise")
    with pytest.raises(MXNetError, match=r"take.*'indices'.*\[0, 2\].*mode='raise'"):
        taken.asnumpy()
    with pytest.raises(MXNetError, match="pick.*axis=None"):
        mx.nd.pick(mx.nd.ones((3, 2)), mx.nd.array([0, 1]), axis=None)
    with pytest.raises(MXNetError, match="norm.*'ord'.*3"):
        mx.nd.norm(mx.nd.ones((3, 2)), ord=3)


def test_shape_array_and_size_array():
    data = mx.nd.ones((2, 3, 4))
    assert mx.nd.shape_array(data).asnumpy().tolist() == [2, 3, 4]
    assert mx.nd.shape_array(data).dtype == np.int64
    assert mx.nd.size_array(data).asnumpy().tolist() == [24]


# -- random operators -------------------------------------------------------------------------------------
def test_random_generators_follow_mx_random_seed():
    mx.random.seed(42)
    first = [mx.nd.random_uniform(shape=(3,)).asnumpy(), mx.nd.random_normal(shape=(2, 2)).asnumpy()]
    mx.random.seed(42)
    second = [mx.nd.random_uniform(shape=(3,)).asnumpy(), mx.nd.random_normal(shape=(2, 2)).asnumpy()]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("op, attrs, mean, variance", [
    ("random_uniform", {"low": -1.0, "high": 3.0}, 1.0, 16 / 12),
    ("random_normal", {"loc": 2.0, "scale": 0.5}, 2.0, 0.25),
    ("random_gamma", {"alpha": 2.0, "beta": 1.5}, 3.0, 4.5),
    ("random_exponential", {"lam": 4.0}, 0.25, 1 / 16),
    ("random_poisson", {"lam": 3.0}, 3.0, 3.0),
    ("random_negative_binomial", {"k": 3, "p": 0.4}, 4.5, 11.25),
    ("random_generalized_negative_binomial", {"mu": 2.0, "alpha": 0.5}, 2.0, 4.0),
])
def test_random_distributions(op, attrs, mean, variance):
    mx.random.seed(0)
    samples = getattr(mx.nd, op)(shape=(40000,), **attrs)
    assert samples.dtype == np.float32 and samples.shape == (40000,)
    values = samples.asnumpy().astype(np.float64)
    assert abs(values.mean() - mean) < 5 * np.sqrt(variance / values.size)
    assert abs(values.var() - variance) < 0.05 * variance


def test_random_dtype_shape_and_integers():
    mx.random.seed(1)
    assert mx.nd.random_normal(shape=(2, 3), dtype="float64").dtype == np.float64
    integers = mx.nd.random_randint(low=-2, high=3, shape=(1000,))
    assert integers.dtype == np.int32
    assert set(np.unique(integers.asnumpy())) == {-2, -1, 0, 1, 2}
    like = mx.nd._random_uniform_like(mx.nd.ones((2, 5), dtype=np.float64), low=5, high=6)
    assert like.dtype == np.float64 and like.shape == (2, 5)
    assert ((like.asnumpy() >= 5) & (like.asnumpy() < 6)).all()
    normal_like = mx.nd._random_normal_like(mx.nd.ones((4, 4)))
    assert normal_like.shape == (4, 4)


def test_random_in_a_bound_graph_gets_its_shape_from_inference():
    mx.random.seed(3)
    symbol = mx.sym.random_uniform(shape=(0, 3), low=10, high=11) + mx.sym.var("x")
    executor = symbol.simple_bind(mx.cpu(), x=(4, 3))
    first = executor.forward()[0].asnumpy().copy()
    second = executor.forward()[0].asnumpy()
    assert first.shape == (4, 3) and ((first >= 10) & (first < 11)).all()
    assert not np.array_equal(first, second)


def test_sample_operators_use_per_row_parameters():
    mx.random.seed(4)
    low = mx.nd.array([0.0, 10.0, -5.0])
    high = mx.nd.array([1.0, 11.0, -4.0])
    samples = mx.nd.sample_uniform(low, high, shape=(500,))
    assert samples.shape == (3, 500)
    values = samples.asnumpy()
    for row, (a, b) in enumerate(zip(low.asnumpy(), high.asnumpy())):
        assert ((values[row] >= a) & (values[row] < b)).all()
    normal = mx.nd.sample_normal(mx.nd.array([0.0, 100.0]), mx.nd.array([1.0, 0.1]), shape=(4000,)).asnumpy()
    assert abs(normal[0].mean()) < 0.1 and abs(normal[1].mean() - 100) < 0.01 and abs(normal[1].std() - 0.1) < 0.01


def test_sample_multinomial_frequencies_and_log_probability_gradient():
    mx.random.seed(5)
    probabilities = np.array([[0.2, 0.8, 0.0], [0.5, 0.25, 0.25]])
    draws = mx.nd.sample_multinomial(mx.nd.array(probabilities), shape=(20000,))
    assert draws.dtype == np.int32 and draws.shape == (2, 20000)
    counts = np.stack([np.bincount(row, minlength=3) / row.size for row in draws.asnumpy()])
    np.testing.assert_allclose(counts, probabilities, atol=0.02)
    data = mx.sym.var("data")
    symbol = mx.sym.sample_multinomial(data, shape=(2,), get_prob=True, name="draw")
    assert symbol.list_outputs() == ["draw_output0", "draw_output1"]
    executor = symbol.simple_bind(mx.cpu(), data=(2, 3))
    executor.arg_dict["data"][:] = probabilities
    indices, log_probability = executor.forward(is_train=True)
    picked = np.take_along_axis(probabilities, indices.asnumpy().astype(np.int64), axis=1)
    np.testing.assert_allclose(log_probability.asnumpy(), np.log(picked), rtol=1e-6)
    executor.backward([mx.nd.zeros((2, 2)), mx.nd.ones((2, 2))])
    expected = np.zeros_like(probabilities)
    for row, columns in enumerate(indices.asnumpy().astype(np.int64)):
        for column in columns:
            expected[row, column] += 1 / probabilities[row, column]
    np.testing.assert_allclose(executor.grad_dict["data"].asnumpy(), expected, rtol=1e-5)


# -- loss heads -------------------------------------------------------------------------------------------
def test_makeloss_ignores_head_gradients():
    data = mx.sym.var("data")
    executor = mx.sym.MakeLoss(data, grad_scale=3.0, normalization="batch").simple_bind(mx.cpu(), data=(4, 2))
    executor.arg_dict["data"][:] = np.arange(8).reshape(4, 2)
    executor.forward(is_train=True)
    executor.backward([mx.nd.full((4, 2), 100.0)])
    np.testing.assert_allclose(executor.grad_dict["data"].asnumpy(), np.full((4, 2), 0.75))


def test_ctc_loss_blank_last_matches_blank_first_with_moved_alphabet():
    """'last' with labels l equals 'first' with labels l + 1 once the blank column moves."""
    rng_local = np.random.RandomState(11)
    activations = rng_local.randn(5, 2, 4)
    labels_last = np.array([[0, 2, -1], [1, 1, 2]])
    labels_first = np.where(labels_last >= 0, labels_last + 1, 0)
    moved = np.concatenate([activations[:, :, 3:], activations[:, :, :3]], axis=2)
    loss_last = mx.nd.ctc_loss(mx.nd.array(activations), mx.nd.array(labels_last), blank_label="last")
    loss_first = mx.nd.ctc_loss(mx.nd.array(moved), mx.nd.array(labels_first))
    np.testing.assert_allclose(loss_last.asnumpy(), loss_first.asnumpy(), rtol=1e-5)


@pytest.mark.parametrize("name", ["depth_to_space", "space_to_depth"])
def test_block_rearrangements_refuse_zero_size_axes_as_mxnet(name):
    # MXNet 1.9.1 refuses (2, 4, 0, 3) and (2, 0, 2, 2) ('shape dim size must be >= -1') and
    # block size 0; (2, 4, 1, 2) passes depth_to_space, giving (2, 1, 2, 4)
    operator = getattr(mx.nd, name)
    for shape, block in [((2, 4, 0, 3), 2), ((2, 0, 2, 2), 2), ((2, 4, 2, 2), 0)]:
        with pytest.raises(mx.base.MXNetError, match=name):
            operator(mx.nd.array(np.ones(shape)), block)
    assert mx.nd.depth_to_space(mx.nd.array(np.ones((2, 4, 1, 2))), 2).shape == (2, 1, 2, 4)


def test_linspace_with_no_values_is_an_empty_array():
    # MXNet 1.9.1: mx.nd.linspace(1, 5, 0) has shape (0,), float32 (int32 with dtype='int32')
    empty = mx.nd.linspace(1, 5, 0)
    assert (empty.shape, empty.dtype) == ((0,), np.float32)
    assert mx.nd.linspace(1, 5, 0, dtype="int32").dtype == np.int32
    np.testing.assert_allclose(mx.nd.linspace(1, 5, 3).asnumpy(), [1, 3, 5])


def test_index_array_of_a_scalar_is_empty():
    # MXNet 1.9.1 under np_shape: index_array of a 0-d array is a (0,) int64 array; of (2, 3)
    # the (2, 3, 2) grid of positions
    with mx.np_shape(True):
        out = mx.nd.contrib.index_array(mx.nd.array(np.ones(())))
        assert (out.shape, out.dtype) == ((0,), np.int64)
    grid = mx.nd.contrib.index_array(mx.nd.ones((2, 3))).asnumpy()
    np.testing.assert_array_equal(grid, np.stack(np.mgrid[0:2, 0:3], axis=-1))


def test_mod_by_zero_is_zero_as_in_mxnet():
    # MXNet 1.9.1: [5, -5, 7, 3] % [0, 3, -2, 0] is [0, 1, -1, 0] for int32 and float32; x % 0 is 0
    for dtype in ("int32", "float32"):
        a = mx.nd.array([5, -5, 7, 3], dtype=dtype)
        b = mx.nd.array([0, 3, -2, 0], dtype=dtype)
        np.testing.assert_array_equal((a % b).asnumpy(), [0, 1, -1, 0])
        np.testing.assert_array_equal((a % 0).asnumpy(), [0, 0, 0, 0])
        np.testing.assert_array_equal((7 % b).asnumpy(), [0, 1, -1, 0])
    np.testing.assert_array_equal(mx.nd.broadcast_mod(a, mx.nd.array([0])).asnumpy(), [0, 0, 0, 0])


def test_potrf_and_potri_take_lower():
    # MXNet 1.9.1: potrf([[4, 2], [2, 3]], lower=False) is the upper factor [[2, 1], [0, sqrt(2)]];
    # potri of it with lower=False is the inverse [[0.375, -0.25], [-0.25, 0.5]]
    a = mx.nd.array([[4, 2], [2, 3]])
    upper = mx.nd.linalg.potrf(a, lower=False)
    np.testing.assert_allclose(upper.asnumpy(), [[2, 1], [0, np.sqrt(2)]], rtol=1e-6)
    np.testing.assert_allclose(mx.nd.linalg.potrf(a).asnumpy(), [[2, 0], [1, np.sqrt(2)]], rtol=1e-6)
    inverse = [[0.375, -0.25], [-0.25, 0.5]]
    np.testing.assert_allclose(mx.nd.linalg.potri(upper, lower=False).asnumpy(), inverse, rtol=1e-5)
    np.testing.assert_allclose(mx.nd.linalg.potri(mx.nd.linalg.potrf(a)).asnumpy(), inverse, rtol=1e-5)


def test_unravel_index_never_reduces_the_first_axis_as_mxnet():
    # MXNet 1.9.1: the first axis's size is unused (-1 allowed), division truncates to zero.
    got = mx.nd.unravel_index(mx.nd.array([-5, 7, 30, 2.7]), shape=(3, 4)).asnumpy()
    assert got.tolist() == [[-1, 1, 7, 0], [-1, 3, 2, 2]]
    assert mx.nd.unravel_index(mx.nd.array([7, 30]), shape=(-1, 4)).asnumpy().tolist() == [[1, 7], [3, 2]]
    flat = mx.nd.ravel_multi_index(mx.nd.array([[1, 2, 5], [3, -1, 9]]), shape=(-1, 4))
    assert flat.asnumpy().tolist() == [7, 7, 29]


def test_arange_converts_start_and_step_to_the_output_dtype_first_as_mxnet():
    # values from MXNet 1.9.1: integer (and float16) outputs truncate start and step, the
    # arithmetic is the dtype's (uint8 wraps around), float32 sums in float32
    assert mx.nd.arange(1.3, 6, 1.3, repeat=2, dtype="int32").asnumpy().tolist() == [1, 1, 2, 2, 3, 3, 4, 4]
    assert mx.nd.arange(-100, -90, 3, dtype="uint8").asnumpy().tolist() == [156, 159, 162, 165]
    assert mx.nd.arange(-3.7, 5, 2.2, dtype="float16").asnumpy().tolist() == [-3.0, -1.0, 1.0, 3.0]
    assert mx.nd.arange(0.1, 3, 0.1).asnumpy()[-1].item() == 2.8999998569488525
    like = mx.nd.contrib.arange_like(mx.nd.zeros((2, 3), dtype="int32"), start=1.5, step=2.7, repeat=2)
    assert like.asnumpy().tolist() == [[1, 1, 3], [3, 5, 5]]


def test_syevd_gradient_is_mxnets_symmetric_formula():
    # value from MXNet 1.9.1 (la_op syevd_backward)
    x = mx.nd.array([[2., 1., 0.3], [1., 3., 0.2], [0.3, 0.2, 1.]], dtype="float64")
    x.attach_grad()
    with mx.autograd.record():
        u, lam = mx.nd.linalg.syevd(x)
        weights = mx.nd.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], dtype="float64")
        y = (u * weights).sum() + (lam * mx.nd.array([1, -2, 0.5], dtype="float64")).sum()
    y.backward()
    expected = [[-3.833751089485095, 1.4781094137007385, 2.0181017648475157],
                [1.4781094137007385, 0.23304989972943005, -1.0397334699625767],
                [2.0181017648475152, -1.0397334699625769, 3.1007011897556667]]
    np.testing.assert_allclose(x.grad.asnumpy(), expected, rtol=1e-10)


def test_sample_unique_zipfian_draws_distinct_log_uniform_ids_and_counts_the_draws():
    mx.random.seed(3)
    ids, draws = mx.nd._internal._sample_unique_zipfian(1000, shape=(20, 100))
    assert ids.shape == (20, 100) and ids.dtype == np.int64 and draws.shape == (20,) and draws.dtype == np.int64
    ids = ids.asnumpy()
    assert all(len(set(row)) == 100 for row in ids) and ids.min() >= 0 and ids.max() < 1000
    # independent model of MXNet's sampler: P(k) = log((k + 2) / (k + 1)) / log(range_max);
    # the expected number of draws until 100 distinct ids, by simulation with NumPy
    rng = np.random.default_rng(0)
    counts = []
    for _ in range(200):
        values = np.rint(np.exp(rng.random(2000) * np.log(1000))).astype(np.int64) - 1
        _, first = np.unique(values, return_index=True)
        counts.append(np.sort(first)[99] + 1)
    assert abs(draws.asnumpy().mean() / np.mean(counts) - 1) < 0.1
    full, _ = mx.nd._internal._sample_unique_zipfian(5, shape=(2, 5))
    assert sorted(full.asnumpy()[0].tolist()) == [0, 1, 2, 3, 4]
    with pytest.raises(MXNetError, match="range_max"):
        mx.nd._internal._sample_unique_zipfian(5, shape=(2, 6))


def test_ctc_loss_ignores_nan_steps_past_the_data_length():
    # values from MXNet 1.9.1: the third step is NaN and past data_lengths, its gradient 0
    d = np.log(np.array([[[0.5, 0.3, 0.2]], [[0.2, 0.6, 0.2]], [[np.nan] * 3]], dtype=np.float32))
    data = mx.nd.array(d)
    data.attach_grad()
    with mx.autograd.record():
        loss = mx.nd.CTCLoss(data, mx.nd.array([[1, 0]]), use_data_lengths=True,
                             data_lengths=mx.nd.array([2]), blank_label="first")
    loss.backward()
    np.testing.assert_allclose(loss.asnumpy(), [0.6161860227584839], rtol=1e-6)
    expected = [[[-0.055555641651153564, -0.14444440603256226, 0.19999998807907104]],
                [[0.08888891339302063, -0.28888875246047974, 0.20000001788139343]], [[0.0, 0.0, 0.0]]]
    np.testing.assert_allclose(data.grad.asnumpy(), expected, rtol=1e-5, atol=1e-7)
