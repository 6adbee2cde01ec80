"""Generate reference values for operators (and attribute combinations) that the shared
``ops`` fixtures do not cover; mxtorch's ``tests/test_ops_math.py`` compares with them.

Run with MXNet 1.9.1 (never with mxtorch), from the repository root:

    ~/mxref/bin/python tools/gen_ops_extra.py

It writes ``tests/data/ops_extra/index.json`` (one entry per case, with the symbol JSON
MXNet saved) and ``tests/data/ops_extra/arrays.npz`` (keys ``<case>/<key>``).  Each case builds one operator on variables named after its
inputs, binds it with ``simple_bind`` (float inputs get ``grad_req='write'``, integer
inputs and labels 'null'), runs ``forward(is_train=True)`` and ``backward`` with the
recorded head gradients (none for loss heads) and stores:

- ``<case>/arg:<name>`` inputs, ``out:<i>`` outputs, ``head:<i>`` head gradients,
  ``grad:<name>`` input gradients (absent when the case records no gradient).
"""
import json
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "ops_extra")
rng = np.random.RandomState(20240601)
CASES = []
ARRAYS = {}


def normal(*shape, dtype="float32"):
    return rng.randn(*shape).astype(dtype)


def spd(n, batch=()):
    a = rng.randn(*(batch + (n, n)))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype("float32")


def lower(n, batch=()):
    a = np.tril(rng.randn(*(batch + (n, n))))
    idx = np.arange(n)
    a[..., idx, idx] = np.abs(a[..., idx, idx]) + 1.0
    return a.astype("float32")


def case(name, op, inputs, attrs=None, grads=None, loss=False, no_grad=(), positional=False, note="",
         symbol_of=None):
    """Record one case. ``op`` is the mx.sym attribute path (e.g. 'linalg.gemm2'); ``symbol_of``
    builds a small graph from the variables instead."""
    attrs = attrs or {}
    variables = [mx.sym.var(k) for k in inputs]
    function = mx.sym
    for part in op.split("."):
        function = getattr(function, part)
    if symbol_of is not None:
        symbol = symbol_of(dict(zip(inputs, variables)))
    elif positional:
        symbol = function(*variables, name="op", **attrs)
    else:
        symbol = function(**dict(zip(inputs, variables)), name="op", **attrs)
    arg_names = symbol.list_arguments()
    missing = [n for n in arg_names if n not in inputs]
    assert not missing, (name, missing)
    grad_req = {}
    for key in arg_names:
        value = inputs[key]
        differentiable = np.issubdtype(value.dtype, np.floating) and key not in no_grad and grads is not False
        grad_req[key] = "write" if differentiable else "null"
    executor = symbol.simple_bind(mx.cpu(), grad_req=grad_req,
                                  type_dict={k: v.dtype for k, v in inputs.items()},
                                  **{k: v.shape for k, v in inputs.items()})
    for key, value in inputs.items():
        executor.arg_dict[key][:] = value
    outputs = executor.forward(is_train=True)
    arrays = {f"arg:{k}": v for k, v in inputs.items()}
    for i, out in enumerate(outputs):
        arrays[f"out:{i}"] = out.asnumpy()
    record_grad = grads is not False and any(r == "write" for r in grad_req.values())
    if record_grad:
        if loss:
            executor.backward()
        else:
            heads = []
            for i, out in enumerate(outputs):
                if np.issubdtype(out.dtype, np.floating):
                    head = rng.randn(*out.shape).astype(out.dtype)
                else:
                    head = rng.randint(-3, 4, size=out.shape).astype(out.dtype)
                arrays[f"head:{i}"] = head
                heads.append(mx.nd.array(head, dtype=out.dtype))
            executor.backward(heads)
        for key, req in grad_req.items():
            if req == "write":
                arrays[f"grad:{key}"] = executor.grad_dict[key].asnumpy()
    ARRAYS.update({f"{name}/{key}": value for key, value in arrays.items()})
    json_op = json.loads(symbol.tojson())["nodes"][-1]
    if json_op["op"] == "null":  # a multi-output head: the operator is the node that produces it
        json_op = [n for n in json.loads(symbol.tojson())["nodes"] if n["op"] != "null"][-1]
    CASES.append({"name": name, "op": json_op["op"], "attrs": json_op.get("attrs", {}), "inputs": list(inputs),
                  "symbol": symbol.tojson(), "positional": positional, "loss": loss, "graph": symbol_of is not None, "grad_req": grad_req, "note": note,
                  "num_outputs": len(outputs), "output_dtypes": [str(o.dtype.__name__) if hasattr(o.dtype, "__name__")
                                                                  else str(o.dtype) for o in outputs]})


def main():
    os.makedirs(OUT, exist_ok=True)
    # -- tensor ---------------------------------------------------------------------------------------
    case("reshape_like_001", "reshape_like", {"lhs": normal(30, 7), "rhs": normal(15, 2, 4)},
         {"lhs_begin": 0, "lhs_end": 1, "rhs_begin": 0, "rhs_end": 2})
    case("reshape_like_002", "reshape_like", {"lhs": normal(2, 3, 4), "rhs": normal(6, 4)})
    case("SwapAxis_001", "SwapAxis", {"data": normal(2, 3, 4)}, {"dim1": 0, "dim2": 2})
    case("slice_005", "slice", {"data": normal(6, 5)}, {"begin": (None, 4), "end": (None, 0), "step": (-2, -1)},
         note="negative steps")
    case("slice_axis_003", "slice_axis", {"data": normal(5, 3)}, {"axis": 0, "begin": -3, "end": None})
    case("tile_003", "tile", {"data": normal(2, 3)}, {"reps": (3, 2, 2)})
    case("repeat_003", "repeat", {"data": normal(2, 3)}, {"repeats": 3, "axis": -1})
    case("flip_001", "flip", {"data": normal(2, 3, 4)}, {"axis": (0, 2)})
    case("Cast_004", "Cast", {"data": normal(3, 4) * 3}, {"dtype": "float16"})
    case("Cast_005", "Cast", {"data": np.array([-1.5, 300.0, 2.7, 0.0], dtype="float32")}, {"dtype": "uint8"},
         grads=False)
    case("Cast_006", "Cast", {"data": np.array([0.0, 0.5, -2.0], dtype="float32")}, {"dtype": "bool"}, grads=False)
    case("Cast_007", "Cast", {"data": normal(3, 2, dtype="float64")}, {"dtype": "float32"})
    case("shape_array_001", "shape_array", {"data": normal(2, 3, 4)}, grads=False)
    case("size_array_001", "size_array", {"data": normal(2, 3, 4)}, grads=False)
    case("broadcast_to_001", "broadcast_to", {"data": normal(2, 1, 3)}, {"shape": (0, 4, 3)})
    case("broadcast_like_001", "broadcast_like", {"lhs": normal(1, 2, 1), "rhs": normal(3, 4, 5)},
         {"lhs_axes": (0, 2), "rhs_axes": (2, 0)}, no_grad=("rhs",))
    case("broadcast_axis_001", "broadcast_axis", {"data": normal(1, 2, 1)}, {"axis": (0, 2), "size": (3, 4)})
    case("clip_002", "clip", {"data": np.array([-1.0, -0.5, 0.0, 0.5, 1.0, 0.7], dtype="float32")},
         {"a_min": -0.5, "a_max": 0.5}, note="gradient passes at the bounds")
    case("stack_005", "stack", {"a": normal(2, 3), "b": normal(2, 3)}, {"axis": 1}, positional=True)
    case("diag_001", "diag", {"data": normal(3, 4)}, {"k": 1})
    case("diag_002", "diag", {"data": normal(3)}, {"k": -1})
    case("diag_003", "diag", {"data": normal(2, 3, 4)}, {"k": -1, "axis1": 2, "axis2": 1})
    case("depth_to_space_001", "depth_to_space", {"data": normal(1, 8, 2, 3)}, {"block_size": 2})
    case("space_to_depth_001", "space_to_depth", {"data": normal(1, 2, 4, 6)}, {"block_size": 2})
    case("moments_001", "moments", {"data": normal(2, 3, 4)}, {"axes": (0, 2), "keepdims": True})
    case("split_v2_001", "split_v2", {"ary": normal(2, 7)},
         symbol_of=lambda v: mx.sym.split_v2(v["ary"], (2, 5), axis=1))
    case("split_v2_002", "split_v2", {"ary": normal(3, 4)},
         symbol_of=lambda v: mx.sym.split_v2(v["ary"], 3, axis=0, squeeze_axis=True))
    case("ravel_multi_index_001", "ravel_multi_index", {"data": np.array([[3, 6, 6], [4, 5, 1]], "float32")},
         {"shape": (7, 6)}, grads=False)
    case("unravel_index_001", "unravel_index", {"data": np.array([22, 41, 37], "float32")}, {"shape": (7, 6)},
         grads=False)
    case("arange_like_001", "contrib.arange_like", {"data": normal(2, 3)}, {"start": 1.0, "step": 2.0},
         grads=False)
    case("arange_like_002", "contrib.arange_like", {"data": normal(2, 3)}, {"axis": 1, "repeat": 2}, grads=False)
    case("index_array_001", "contrib.index_array", {"data": normal(2, 3, 2)}, {"axes": (2, 0)}, grads=False)
    case("arange_001", "elemwise_add", {"data": normal(8)}, note="lhs is mx.sym.arange(2, 8, 1.5, repeat=2)",
         symbol_of=lambda v: mx.sym.elemwise_add(mx.sym.arange(2, 8, 1.5, repeat=2), v["data"], name="op"))
    case("linspace_001", "elemwise_add", {"data": normal(5)}, note="lhs is mx.sym.linspace(0, 1, 5, endpoint=False)",
         symbol_of=lambda v: mx.sym.elemwise_add(mx.sym.linspace(0, 1, 5, endpoint=False), v["data"], name="op"))
    case("eye_001", "elemwise_add", {"data": normal(3, 4)}, note="lhs is mx.sym.eye(3, 4, 1)",
         symbol_of=lambda v: mx.sym.elemwise_add(mx.sym.eye(3, 4, 1), v["data"], name="op"))
    # -- indexing -------------------------------------------------------------------------------------
    case("take_004", "take", {"a": normal(4, 3), "indices": np.array([[0, 3], [3, -1], [7, 1]], "float32")},
         {"axis": 0, "mode": "wrap"}, no_grad=("indices",))
    case("take_005", "take", {"a": normal(3, 4, dtype="float64"),
                              "indices": np.array([1, 1, 0.7, 3], "float64")}, {"axis": 1},
         no_grad=("indices",))
    case("pick_004", "pick", {"data": normal(3, 4), "index": np.array([-1, 5, 2], "float32")},
         {"axis": -1, "mode": "wrap", "keepdims": True}, no_grad=("index",))
    case("gather_nd_001", "gather_nd", {"data": normal(2, 3, 4),
                                        "indices": np.array([[1, 0, 1], [2, 1, 2]], "float32")},
         no_grad=("indices",), note="repeated positions accumulate in the gradient")
    case("scatter_nd_001", "scatter_nd", {"data": normal(3), "indices": np.array([[1, 1, 0], [0, 2, 1]], "float32")},
         {"shape": (2, 3)}, no_grad=("indices",))
    case("one_hot_003", "one_hot", {"indices": np.array([[1, -1], [2.7, 4]], "float32")},
         {"depth": 3, "on_value": 5, "off_value": 1, "dtype": "int32"}, grads=False)
    ties = np.array([[1, 3, 3, 2, 3], [0.5, -1, 4, 4, 0]], "float32")
    case("topk_001", "topk", {"data": ties}, {"k": 3}, grads=False)
    case("topk_002", "topk", {"data": normal(3, 5)}, {"k": 2, "ret_typ": "value", "axis": 0})
    case("topk_003", "topk", {"data": ties}, {"k": 2, "ret_typ": "both", "is_ascend": True}, grads=False)
    case("topk_004", "topk", {"data": ties}, {"k": 2, "ret_typ": "mask"}, grads=False)
    case("topk_005", "topk", {"data": normal(2, 3)}, {"k": 4, "axis": None, "ret_typ": "value"})
    case("topk_006", "topk", {"data": normal(2, 4)}, {"k": 0, "ret_typ": "indices", "dtype": "int32"}, grads=False)
    case("sort_001", "sort", {"data": ties}, {"is_ascend": False}, grads=False)
    case("argsort_001", "argsort", {"data": ties}, grads=False)
    case("argsort_002", "argsort", {"data": ties}, {"is_ascend": False, "dtype": "int32"}, grads=False)
    case("argmin_002", "argmin", {"data": normal(2, 3, 4)}, {"axis": 1, "keepdims": True}, grads=False)
    case("argmax_004", "argmax", {"data": normal(3, 4, dtype="float64")}, {"axis": -1}, grads=False)
    case("argmax_channel_001", "argmax_channel", {"data": normal(2, 3, 4)}, grads=False)
    case("batch_take_001", "batch_take", {"a": normal(3, 4), "indices": np.array([5, -1, 2], "int32")}, grads=False)
    # -- reduction ------------------------------------------------------------------------------------
    nan_data = normal(3, 4)
    nan_data[0, 1] = np.nan
    nan_data[2, 3] = np.nan
    case("nansum_001", "nansum", {"data": nan_data}, {"axis": 1})
    case("nanprod_001", "nanprod", {"data": nan_data}, {"axis": 0, "keepdims": True})
    tie_data = np.array([[1, 3, 3], [2, 2, 2], [-1, 0, -1]], "float32")
    case("max_003", "max", {"data": tie_data}, {"axis": 1}, note="ties all receive the gradient")
    case("min_002", "min", {"data": tie_data}, note="ties all receive the gradient")
    case("sum_005", "sum", {"data": normal(2, 3, 4, dtype="float64")}, {"axis": (0, -1), "keepdims": True})
    case("sum_006", "sum", {"data": normal(4, 5, dtype="float16")}, {"axis": 0})
    case("mean_003", "mean", {"data": normal(2, 3, 4)}, {"axis": (1,), "exclude": True})
    case("prod_002", "prod", {"data": normal(2, 3, 4)}, {"axis": (0, 2)})
    case("norm_004", "norm", {"data": normal(3, 4)}, {"ord": 1, "axis": (0, 1), "keepdims": True})
    case("softmax_004", "softmax", {"data": normal(2, 3, 4), "length": np.array([[1, 2, 3], [4, 0, 2]], "int32")},
         {"use_length": True}, no_grad=("length",))
    case("softmax_005", "softmax", {"data": normal(3, 4, dtype="float16")}, {"axis": 0, "dtype": "float32"})
    case("softmax_006", "softmax", {"data": normal(3, 4, dtype="float64")}, {"temperature": 0.5})
    case("softmin_001", "softmin", {"data": normal(3, 5)}, {"temperature": 2.0})
    case("log_softmax_003", "log_softmax", {"data": normal(2, 5)}, {"temperature": 3.0, "dtype": "float64"})
    # -- linalg ---------------------------------------------------------------------------------------
    case("dot_010", "dot", {"lhs": normal(4, 2, 3), "rhs": normal(4, 5)}, {"transpose_a": True})
    case("dot_011", "dot", {"lhs": normal(2, 3, 4), "rhs": normal(6, 5, 4)}, {"transpose_b": True})
    case("dot_012", "dot", {"lhs": normal(3, 4, dtype="float64"), "rhs": normal(4, 2, dtype="float64")})
    case("batch_dot_004", "batch_dot", {"lhs": normal(2, 2, 4, 3), "rhs": normal(2, 2, 5, 4)},
         {"transpose_a": True, "transpose_b": True})
    case("khatri_rao_001", "khatri_rao", {"a": normal(2, 3), "b": normal(4, 3), "c": normal(2, 3)}, positional=True,
         grads=False)
    case("gemm_001", "linalg.gemm", {"A": normal(2, 3, 4), "B": normal(2, 5, 4), "C": normal(2, 3, 5)},
         {"transpose_b": True, "alpha": 2.0, "beta": 0.5})
    case("gemm_002", "linalg.gemm", {"A": normal(4, 2, 3), "B": normal(4, 2, 5), "C": normal(3, 2, 5)},
         {"transpose_a": True, "axis": -3})
    case("gemm2_001", "linalg.gemm2", {"A": normal(3, 4), "B": normal(4, 2)}, {"alpha": -1.5})
    case("gemm2_002", "linalg.gemm2", {"A": normal(2, 4, 3), "B": normal(3, 4, 5)}, {"axis": -3})
    case("gemm2_003", "linalg.gemm2", {"A": normal(2, 3, 4, dtype="float64"), "B": normal(2, 3, 5, dtype="float64")},
         {"transpose_a": True})
    case("potrf_001", "linalg.potrf", {"A": spd(3, (2,))})
    case("potri_001", "linalg.potri", {"A": lower(3)})
    for index, (transpose, rightside, low) in enumerate([(False, False, True), (True, False, True),
                                                         (False, True, False), (True, True, False)]):
        shape_b = (3, 4) if not rightside else (4, 3)
        a = lower(3) if low else lower(3).T.copy()
        case(f"trsm_00{index + 1}", "linalg.trsm", {"A": a, "B": normal(*shape_b)},
             {"transpose": transpose, "rightside": rightside, "lower": low, "alpha": 1.5})
        case(f"trmm_00{index + 1}", "linalg.trmm", {"A": normal(3, 3), "B": normal(*shape_b)},
             {"transpose": transpose, "rightside": rightside, "lower": low, "alpha": 0.5})
    case("syrk_001", "linalg.syrk", {"A": normal(2, 3, 4)}, {"transpose": True, "alpha": 2.0})
    case("syrk_002", "linalg.syrk", {"A": normal(3, 4)})
    case("sumlogdiag_001", "linalg.sumlogdiag", {"A": spd(3, (2,))})
    case("inverse_001", "linalg.inverse", {"A": spd(3, (2,))})
    case("det_001", "linalg.det", {"A": normal(3, 3)})
    case("det_002", "linalg.det", {"A": normal(2, 3, 3)})
    case("slogdet_001", "linalg.slogdet", {"A": normal(2, 3, 3)})
    case("extractdiag_001", "linalg.extractdiag", {"A": normal(2, 4, 4)}, {"offset": 1})
    case("makediag_001", "linalg.makediag", {"A": normal(2, 3)}, {"offset": -1})
    case("extracttrian_001", "linalg.extracttrian", {"A": normal(4, 4)}, {"offset": 0, "lower": False})
    case("extracttrian_002", "linalg.extracttrian", {"A": normal(2, 4, 4)}, {"offset": -1})
    case("extracttrian_003", "linalg.extracttrian", {"A": normal(4, 4)}, {"offset": 1})
    case("maketrian_001", "linalg.maketrian", {"A": normal(6)}, {"lower": False})
    case("maketrian_002", "linalg.maketrian", {"A": normal(2, 6)}, {"offset": 1})
    case("gelqf_001", "linalg.gelqf", {"A": normal(2, 4)}, grads=False)
    case("syevd_001", "linalg.syevd", {"A": spd(3)}, grads=False)
    # -- sequence -------------------------------------------------------------------------------------
    case("SequenceLast_003", "SequenceLast", {"data": normal(2, 4, 3),
                                              "sequence_length": np.array([1, 4], "float32")},
         {"use_sequence_length": True, "axis": 1}, no_grad=("sequence_length",))
    case("SequenceReverse_003", "SequenceReverse", {"data": normal(4, 3, 2),
                                                    "sequence_length": np.array([1, 4, 2], "float32")},
         {"use_sequence_length": True}, no_grad=("sequence_length",))
    case("SequenceMask_005", "SequenceMask", {"data": normal(3, 4, dtype="float64"),
                                              "sequence_length": np.array([2, 0, 3, 1], "float64")},
         {"use_sequence_length": True, "value": 7.0}, no_grad=("sequence_length",))
    # -- losses ---------------------------------------------------------------------------------------
    scores = np.array([[0.2, -0.5, 1.5, -2.0], [0.9, 0.1, -0.3, 0.4], [-1.2, 0.0, 2.0, 0.5]], "float32")
    labels = np.array([0, 3, 1], "float32")
    case("SVMOutput_003", "SVMOutput", {"data": scores, "label": labels},
         {"margin": 0.5, "regularization_coefficient": 2.0}, loss=True, no_grad=("label",))
    case("SVMOutput_004", "SVMOutput", {"data": scores, "label": labels},
         {"use_linear": True, "margin": 0.7}, loss=True, no_grad=("label",))
    case("make_loss_001", "make_loss", {"data": normal(2, 3)}, loss=True)
    case("softmax_cross_entropy_001", "softmax_cross_entropy",
         {"data": normal(3, 5), "label": np.array([4, 0, 2], "float32")}, no_grad=("label",))
    ctc_data = normal(6, 2, 5)
    case("CTCLoss_001", "ctc_loss", {"data": ctc_data, "label": np.array([[1, 2, 0], [3, 3, 1]], "float32")},
         no_grad=("label",))
    case("CTCLoss_002", "ctc_loss", {"data": ctc_data, "label": np.array([[0, 2, -1], [3, 3, 1]], "float32")},
         {"blank_label": "last"}, no_grad=("label",))
    case("CTCLoss_003", "ctc_loss", {"data": ctc_data, "label": np.array([[1, 2, 4], [3, 1, 1]], "float32"),
                                     "data_lengths": np.array([5, 6], "float32"),
                                     "label_lengths": np.array([2, 3], "float32")},
         {"use_data_lengths": True, "use_label_lengths": True}, no_grad=("label", "data_lengths", "label_lengths"))
    case("smooth_l1_003", "smooth_l1", {"data": normal(3, 4, dtype="float64")}, {"scalar": 0.5})
    np.savez_compressed(os.path.join(OUT, "arrays.npz"), **ARRAYS)
    with open(os.path.join(OUT, "index.json"), "w") as handle:
        json.dump({"generator": "tools/gen_ops_extra.py", "mxnet_version": mx.__version__, "cases": CASES},
                  handle, indent=1)
    print(f"wrote {len(CASES)} cases to {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
