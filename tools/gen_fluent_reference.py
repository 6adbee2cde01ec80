"""Generate reference values for the fluent methods of NDArray / Symbol and the module-level
functions of ``mx.nd`` / ``mx.sym`` (checklist sections 3.1-3.4, 5.1, 5.2, 5.4).

Run with MXNet 1.9.1 (never with mxtorch), from the repository root:

    ~/mxref/bin/python tools/gen_fluent_reference.py

It writes ``tests/data/fluent/cases.json`` and ``tests/data/fluent/arrays.npz``.  Each case
names a call and how it is made, so that ``tests/test_fluent_methods.py`` and
``tests/test_nd_sym_functions.py`` replay it on mxtorch:

- ``kind`` 'method': ``<input>.<name>(*args, **kwargs)`` on an NDArray ('nd') and on a
  variable named after the input ('sym', evaluated with the stored inputs);
- ``kind`` 'nd_function' / 'sym_function': ``mx.nd.<name>(*args)`` / ``mx.sym.<name>(*args)``;
- ``kind`` 'autograd': a small recorded computation with ``attach_grad`` and ``backward``
  (``tests/test_nd_sym_functions.py`` repeats each program under the same name).

Arguments are JSON: ``{"array": key}`` is the stored input array ``key`` (an NDArray, or a
variable of that name for Symbol calls), ``{"tuple": [...]}`` a tuple, ``{"numpy_type": name}`` a
numpy scalar type.  Results are stored as ``<case>/<front>/<i>`` arrays with their shape and dtype; for Symbol calls also the operator
name and attributes of the head node in MXNet's JSON.  A call that MXNet rejects is recorded
as ``"error": true``.
"""
import json
import os
import re

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "fluent")
rng = np.random.RandomState(19)

INPUTS = {
    "a": rng.randn(2, 3, 4).astype("float32"),
    "m": rng.randn(3, 4).astype("float32"),
    "p": rng.uniform(0.5, 2.0, (3, 4)).astype("float32"),
    "u": rng.uniform(-0.9, 0.9, (3, 4)).astype("float32"),
    "g": rng.uniform(1.1, 3.0, (3, 4)).astype("float32"),
    "h": np.array([[-2.5, -1.5, -0.5, 0.5], [1.5, 2.5, -0.7, 0.7], [3.2, -3.2, 0.0, 4.5]], "float32"),
    "n": np.array([[1.0, np.nan, 2.0, 3.0], [np.nan, np.nan, 0.5, 4.0], [2.0, 2.0, 2.0, 2.0]], "float32"),
    "b": rng.randn(1, 4).astype("float32"),
    "v": np.array([0.0, 2.0, 1.0, 3.0], "float32"),
    "row": np.array([1.0, 0.0, 3.0], "float32"),
    "r43": np.zeros((4, 3), "float32"),
    "r23": np.zeros((2, 3), "float32"),
    "d2s": rng.randn(1, 8, 2, 3).astype("float32"),
    "s2d": rng.randn(1, 2, 4, 6).astype("float32"),
    "ints": np.array([[1, -2, 3, 7], [4, 5, -6, 0], [9, 8, 2, 1]], "int32"),
    "z": np.array([[0.0, 1.0, 0.0, 2.0], [3.0, 0.0, 0.0, 1.0], [0.0, 0.0, 5.0, 1.0]], "float32"),
    "edges": np.array([-2.0, -1.0, 0.0, 0.5, 2.0], "float32"),
    "q23": rng.randn(2, 3).astype("float32"),
}

CASES = []
ARRAYS = {f"input/{key}": value for key, value in INPUTS.items()}


class A:
    """A stored input array used as an argument."""

    def __init__(self, key):
        self.key = key


def encode(value):
    if isinstance(value, A):
        return {"array": value.key}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, type) and issubclass(value, np.generic):
        return {"numpy_type": np.dtype(value).name}
    return value


def to_nd(value):
    if isinstance(value, A):
        return mx.nd.array(INPUTS[value.key], dtype=INPUTS[value.key].dtype)
    if isinstance(value, tuple):
        return tuple(to_nd(v) for v in value)
    if isinstance(value, list):
        return [to_nd(v) for v in value]
    return value


def to_sym(value, used):
    if isinstance(value, A):
        used.add(value.key)
        return mx.sym.var(value.key)
    if isinstance(value, tuple):
        return tuple(to_sym(v, used) for v in value)
    if isinstance(value, list):
        return [to_sym(v, used) for v in value]
    return value


def store(name, front, result):
    """Arrays (or a scalar) of one result; returns the JSON description."""
    if isinstance(result, (list, tuple)):
        items, is_list = list(result), True
    else:
        items, is_list = [result], False
    outputs = []
    for index, item in enumerate(items):
        if isinstance(item, mx.nd.NDArray):
            value = item.asnumpy()
        elif isinstance(item, np.ndarray):
            value = item
        else:
            outputs.append({"scalar": item.item() if isinstance(item, np.generic) else item,
                            "type": type(item).__name__})
            continue
        key = f"{name}/{front}/{index}"
        ARRAYS[key] = value
        outputs.append({"key": key, "shape": list(value.shape), "dtype": value.dtype.name})
    return {"outputs": outputs, "is_list": is_list}


def head_node(symbol):
    graph = json.loads(symbol.tojson())
    heads = graph["heads"]
    node = graph["nodes"][heads[0][0]]
    return {"op": node["op"], "attrs": node.get("attrs", {}), "num_outputs": len(heads)}


def evaluate(symbol, used):
    executor = symbol.bind(mx.cpu(), {key: mx.nd.array(INPUTS[key], dtype=INPUTS[key].dtype) for key in used})
    return executor.forward()


def _message(error):
    """The first line of MXNet's error message without its time stamp (reproducible output)."""
    return re.sub(r"\[\d\d:\d\d:\d\d\] ", "", str(error).splitlines()[0])[:200]


def method(name, source, method_name, args=(), kwargs=None, fronts=("nd", "sym"), note=""):
    """``<source>.<method_name>(*args, **kwargs)`` on an NDArray and on a Symbol."""
    kwargs = kwargs or {}
    entry = {"name": name, "kind": "method", "source": source, "method": method_name,
             "args": encode(list(args)), "kwargs": {k: encode(v) for k, v in kwargs.items()},
             "fronts": {}, "note": note}
    for front in fronts:
        try:
            if front == "nd":
                target = to_nd(A(source))
                result = getattr(target, method_name)(*to_nd(list(args)), **{k: to_nd(v) for k, v in kwargs.items()})
                entry["fronts"]["nd"] = store(name, "nd", result)
            else:
                used = {source}
                target = to_sym(A(source), used)
                symbol = getattr(target, method_name)(*to_sym(list(args), used),
                                                      **{k: to_sym(v, used) for k, v in kwargs.items()})
                description = store(name, "sym", evaluate(symbol, used))
                description["head"] = head_node(symbol)
                entry["fronts"]["sym"] = description
        except Exception as error:  # MXNet rejects the call: mxtorch must too
            entry["fronts"][front] = {"error": True, "message": _message(error)}
    CASES.append(entry)


def function(name, front, function_name, args=(), kwargs=None, note=""):
    """``mx.nd.<function_name>(*args)`` or ``mx.sym.<function_name>(*args)`` (evaluated)."""
    kwargs = kwargs or {}
    entry = {"name": name, "kind": f"{front}_function", "function": function_name,
             "args": encode(list(args)), "kwargs": {k: encode(v) for k, v in kwargs.items()}, "note": note}
    try:
        if front == "nd":
            result = getattr(mx.nd, function_name)(*to_nd(list(args)), **{k: to_nd(v) for k, v in kwargs.items()})
            entry["result"] = store(name, "nd", result)
        else:
            used = set()
            result = getattr(mx.sym, function_name)(*to_sym(list(args), used),
                                                    **{k: to_sym(v, used) for k, v in kwargs.items()})
            if isinstance(result, mx.sym.Symbol):
                description = store(name, "sym", evaluate(result, used))
                description["head"] = head_node(result)
                entry["result"] = description
            else:
                entry["result"] = store(name, "sym", result)
    except Exception as error:
        entry["result"] = {"error": True, "message": _message(error)}
    CASES.append(entry)


def autograd(name, program):
    """Run ``program(record)`` where ``record`` is a dict of inputs; store the returned arrays."""
    entry = {"name": name, "kind": "autograd", "program": name}
    results = program({key: mx.nd.array(value) for key, value in INPUTS.items() if value.dtype == np.float32})
    entry["result"] = store(name, "nd", results)
    CASES.append(entry)


def build():
    # -- 3.4 / 5.4 fluent methods -----------------------------------------------------------------
    method("reshape_like", "m", "reshape_like", [A("r43")])
    method("zeros_like", "m", "zeros_like")
    method("ones_like", "ints", "ones_like")
    method("broadcast_axes", "b", "broadcast_axes", kwargs={"axis": 0, "size": 3})
    method("repeat", "m", "repeat", kwargs={"repeats": 2, "axis": 1})
    method("repeat_flat", "m", "repeat", [2])
    method("pad", "d2s", "pad", kwargs={"mode": "constant", "pad_width": (0, 0, 0, 0, 1, 1, 2, 0),
                                        "constant_value": 1.5})
    method("pad_edge", "d2s", "pad", kwargs={"mode": "edge", "pad_width": (0, 0, 0, 0, 1, 0, 0, 1)})
    method("swapaxes", "a", "swapaxes", kwargs={"dim1": 0, "dim2": 2})
    method("split", "a", "split", kwargs={"num_outputs": 2, "axis": 0})
    method("split_squeeze", "m", "split", kwargs={"num_outputs": 3, "axis": 0, "squeeze_axis": True})
    method("split_one", "m", "split", kwargs={"num_outputs": 1, "axis": 1})
    method("split_v2_sections", "a", "split_v2", [2], {"axis": 2})
    method("split_v2_indices", "m", "split_v2", [(1, 3)], {"axis": 1})
    method("split_v2_squeeze", "a", "split_v2", [2], {"axis": 0, "squeeze_axis": True})
    method("slice", "m", "slice", kwargs={"begin": (0, 1), "end": (2, 3)})
    method("slice_step", "m", "slice", kwargs={"begin": (None, 3), "end": (None, 0), "step": (2, -1)})
    method("slice_axis", "m", "slice_axis", kwargs={"axis": 1, "begin": 1, "end": 3})
    method("slice_axis_positional", "a", "slice_axis", [2, -3, None])
    method("slice_like", "m", "slice_like", [A("r23")], {"axes": (0, 1)})
    method("take", "m", "take", [A("row")])
    method("take_axis_wrap", "m", "take", [A("v")], {"axis": 1, "mode": "wrap"})
    method("one_hot", "v", "one_hot", [5])
    method("one_hot_values", "row", "one_hot", kwargs={"depth": 4, "on_value": 3.0, "off_value": -1.0,
                                                       "dtype": "int32"})
    method("pick", "m", "pick", [A("v")], {"axis": 0})
    method("pick_keepdims", "m", "pick", [A("row")], {"axis": 1, "keepdims": True})
    method("sort", "m", "sort", kwargs={"axis": 1})
    method("sort_descending", "m", "sort", kwargs={"axis": 0, "is_ascend": False})
    method("topk", "m", "topk", kwargs={"k": 2})
    method("topk_value", "m", "topk", kwargs={"k": 2, "ret_typ": "value", "axis": 0})
    method("topk_both", "m", "topk", kwargs={"k": 3, "ret_typ": "both"})
    method("topk_mask", "m", "topk", kwargs={"k": 1, "ret_typ": "mask", "is_ascend": True})
    method("argsort", "m", "argsort", kwargs={"axis": 1})
    method("argsort_int32", "m", "argsort", kwargs={"axis": 0, "is_ascend": False, "dtype": "int32"})
    method("argmax_axis", "m", "argmax", kwargs={"axis": 1})
    method("argmax_positional", "a", "argmax", [2])
    method("argmax_all", "m", "argmax")
    method("argmax_keepdims", "m", "argmax", kwargs={"axis": 0, "keepdims": True})
    method("argmax_channel", "a", "argmax_channel")
    method("argmin", "m", "argmin", kwargs={"axis": 0})
    method("argmin_int", "ints", "argmin", kwargs={"axis": 1})
    method("clip", "m", "clip", [-0.5, 0.5])
    method("clip_kw", "m", "clip", kwargs={"a_min": 0.0, "a_max": 1.0})
    method("abs", "m", "abs")
    method("abs_int", "ints", "abs")
    method("sign", "h", "sign")
    method("flatten", "a", "flatten")
    method("flatten_inplace", "a", "flatten", kwargs={"inplace": True})
    method("shape_array", "a", "shape_array")
    method("size_array", "a", "size_array")
    method("expand_dims", "m", "expand_dims", [1])
    method("expand_dims_negative", "m", "expand_dims", kwargs={"axis": -1})
    method("expand_dims_inplace", "m", "expand_dims", [0], {"inplace": True})
    method("broadcast_to", "b", "broadcast_to", [(3, 4)])
    method("broadcast_to_zero", "b", "broadcast_to", kwargs={"shape": (2, 0)})
    method("broadcast_to_fewer_dims", "v", "broadcast_to", [(3, 4)], fronts=("nd",))
    method("broadcast_like", "b", "broadcast_like", [A("m")])
    method("tile", "m", "tile", kwargs={"reps": (2, 1)})
    method("tile_more_dims", "b", "tile", [(2, 1, 2)])
    method("transpose", "a", "transpose")
    method("transpose_axes", "a", "transpose", kwargs={"axes": (1, 0, 2)})
    method("transpose_positional", "a", "transpose", [(2, 0, 1)])
    method("flip", "m", "flip", kwargs={"axis": 1})
    method("flip_positional", "a", "flip", [0])
    method("depth_to_space", "d2s", "depth_to_space", [2])
    method("space_to_depth", "s2d", "space_to_depth", kwargs={"block_size": 2})
    method("diag", "m", "diag")
    method("diag_k", "m", "diag", [1])
    method("diag_vector", "v", "diag", kwargs={"k": -1})
    method("sum", "m", "sum")
    method("sum_axis_keepdims", "a", "sum", kwargs={"axis": 1, "keepdims": True})
    method("sum_axes", "a", "sum", kwargs={"axis": (0, 2)})
    method("sum_exclude", "a", "sum", kwargs={"axis": 1, "exclude": True})
    method("sum_positional", "a", "sum", [2])
    method("sum_int", "ints", "sum", kwargs={"axis": 0})
    method("nansum", "n", "nansum")
    method("nansum_axis", "n", "nansum", kwargs={"axis": 1})
    method("prod", "p", "prod", kwargs={"axis": 0})
    method("prod_all", "p", "prod")
    method("nanprod", "n", "nanprod", kwargs={"axis": 1})
    method("mean", "a", "mean", kwargs={"axis": 0})
    method("mean_all", "m", "mean")
    method("max", "m", "max")
    method("max_axis", "a", "max", kwargs={"axis": 1})
    method("min", "a", "min", kwargs={"axis": (0, 1), "keepdims": True})
    method("min_int", "ints", "min")
    method("norm", "m", "norm")
    method("norm_l1_axis", "m", "norm", kwargs={"ord": 1, "axis": 1})
    method("norm_keepdims", "a", "norm", kwargs={"axis": (1, 2), "keepdims": True})
    for name in ("round", "rint", "fix", "floor", "ceil", "trunc"):
        method(name, "h", name)
    for name in ("sin", "cos", "tan", "arctan", "degrees", "radians", "sinh", "cosh", "tanh", "arcsinh",
                 "exp", "expm1", "cbrt", "square", "relu", "sigmoid"):
        method(name, "m", name)
    for name in ("arcsin", "arccos", "arctanh"):
        method(name, "u", name)
    method("arccosh", "g", "arccosh")
    for name in ("log", "log10", "log2", "log1p", "sqrt", "rsqrt", "rcbrt", "reciprocal"):
        method(name, "p", name)
    method("square_int", "ints", "square")
    method("softmax", "m", "softmax")
    method("softmax_axis_temperature", "m", "softmax", kwargs={"axis": 0, "temperature": 2.0})
    method("log_softmax", "a", "log_softmax", kwargs={"axis": 1})
    method("softmin", "m", "softmin")
    method("squeeze", "b", "squeeze")
    method("squeeze_axis", "b", "squeeze", kwargs={"axis": 0})
    method("squeeze_inplace", "b", "squeeze", kwargs={"inplace": True})
    method("squeeze_bad_axis", "b", "squeeze", kwargs={"axis": 1})
    method("reshape_tuple", "a", "reshape", [(4, 6)])
    method("reshape_codes", "a", "reshape", kwargs={"shape": (0, -1)})
    method("reshape_reverse", "a", "reshape", kwargs={"shape": (-1, 0), "reverse": True})
    method("reshape_varargs", "a", "reshape", [6, 4], fronts=("nd",))
    method("astype_int32", "m", "astype", ["int32"])
    method("astype_float16", "ints", "astype", kwargs={"dtype": "float16"})
    method("astype_uint8", "h", "astype", [np.uint8], fronts=("nd",))
    method("slice_assign", "m", "slice_assign", [A("q23"), (0, 1), (2, 4), (1, 1)], fronts=("nd",))
    method("slice_assign_negative_step", "m", "slice_assign", [A("q23"), (None, 3), (None, 0), (2, -1)],
           fronts=("nd",))
    method("slice_assign_wrong_shape", "m", "slice_assign", [A("q23"), (0, 0), (2, 2), (1, 1)], fronts=("nd",))
    method("slice_assign_scalar", "m", "slice_assign_scalar", [7.0, (1,), (3,), (None,)], fronts=("nd",))
    method("slice_assign_scalar_step", "a", "slice_assign_scalar", [-1.0, (0, 0, 1), (2, 3, 4), (1, 2, 2)],
           fronts=("nd",))
    method("slice_assign_scalar_int", "ints", "slice_assign_scalar", [5, (0, None), (None, 2), ()],
           fronts=("nd",))

    # -- 5.1 mx.nd functions: scalar / array dispatch ---------------------------------------------
    pairs = [("aa", A("m"), A("p")), ("ab", A("m"), A("b")), ("as", A("m"), 0.5), ("sa", 0.5, A("p")),
             ("ss", 3, 2)]
    for fname in ("add", "subtract", "multiply", "divide", "true_divide", "modulo", "power", "maximum",
                  "minimum", "equal", "not_equal", "greater", "greater_equal", "lesser", "lesser_equal"):
        for tag, lhs, rhs in pairs:
            if fname == "power" and tag in ("aa", "ab", "as"):
                lhs = A("p")
            function(f"nd_{fname}_{tag}", "nd", fname, [lhs, rhs])
    for fname in ("logical_and", "logical_or", "logical_xor"):
        for tag, lhs, rhs in [("aa", A("z"), A("h")), ("as", A("z"), 0.0), ("sa", 1.0, A("z")),
                              ("ss", 0, 2)]:
            function(f"nd_{fname}_{tag}", "nd", fname, [lhs, rhs])
    function("nd_add_int", "nd", "add", [A("ints"), 3])
    function("nd_equal_int", "nd", "equal", [A("ints"), 1])
    function("nd_modulo_int", "nd", "modulo", [A("ints"), 4])
    function("nd_subtract_int_rev", "nd", "subtract", [10, A("ints")])
    function("nd_arange", "nd", "arange", [5])
    function("nd_arange_step_repeat", "nd", "arange", [1, 7, 2], {"repeat": 2})
    function("nd_arange_int", "nd", "arange", [0, 10, 3], {"dtype": "int32"})
    function("nd_arange_float_step", "nd", "arange", [0.5, 2.0, 0.25])
    function("nd_linspace", "nd", "linspace", [0, 1, 5])
    function("nd_linspace_open", "nd", "linspace", [0, 2, 4], {"endpoint": False})
    function("nd_linspace_int", "nd", "linspace", [0, 10, 4], {"dtype": "int32"})
    function("nd_eye", "nd", "eye", [3])
    function("nd_eye_rect_k", "nd", "eye", [3, 4, 1])
    function("nd_eye_int", "nd", "eye", [3], {"k": -1, "dtype": "int32"})
    function("nd_concatenate", "nd", "concatenate", [[A("m"), A("p")]])
    function("nd_concatenate_axis", "nd", "concatenate", [[A("m"), A("p"), A("u")]], {"axis": 1})
    function("nd_split_v2", "nd", "split_v2", [A("a"), 2], {"axis": 0})
    function("nd_split_v2_indices", "nd", "split_v2", [A("m"), (1, 2)], {"axis": 1, "squeeze_axis": False})
    function("nd_split_v2_squeeze", "nd", "split_v2", [A("m"), (1, 2)], {"axis": 0, "squeeze_axis": True})
    function("nd_split_v2_uneven", "nd", "split_v2", [A("m"), 2], {"axis": 0})
    function("nd_histogram_range", "nd", "histogram", [A("a")], {"bins": 5, "range": (-2.0, 2.0)})
    function("nd_histogram_edges", "nd", "histogram", [A("m")], {"bins": A("edges")})
    function("nd_histogram_numpy", "nd", "histogram", [A("m")], {"bins": 4})
    function("nd_full", "nd", "full", [(2, 3), 7])

    # -- 3.1 mx.sym functions ---------------------------------------------------------------------
    sym_pairs = [("aa", A("p"), A("g")), ("as", A("p"), 2), ("sa", 2, A("p")), ("ss", 3, 2)]
    for fname in ("pow", "power", "maximum", "minimum", "hypot"):
        for tag, lhs, rhs in sym_pairs:
            function(f"sym_{fname}_{tag}", "sym", fname, [lhs, rhs])
    function("sym_arange", "sym", "arange", [5])
    function("sym_arange_step_repeat", "sym", "arange", [1, 7, 2], {"repeat": 2})
    function("sym_arange_int", "sym", "arange", [0, 10, 3], {"dtype": "int32"})
    function("sym_linspace", "sym", "linspace", [0, 1, 5])
    function("sym_linspace_open", "sym", "linspace", [0, 2, 4], {"endpoint": False})
    function("sym_eye", "sym", "eye", [3])
    function("sym_eye_rect_k", "sym", "eye", [3, 4, 1])
    function("sym_eye_int", "sym", "eye", [3], {"k": -1, "dtype": "int32"})
    function("sym_full", "sym", "full", [(2, 3), 7])
    function("sym_split_v2", "sym", "split_v2", [A("a"), 2], {"axis": 0})
    function("sym_split_v2_indices", "sym", "split_v2", [A("m"), (1, 2)], {"axis": 1})
    function("sym_histogram_range", "sym", "histogram", [A("a")], {"bins": 5, "range": (-2.0, 2.0)})
    function("sym_histogram_edges", "sym", "histogram", [A("m")], {"bins": A("edges")})
    function("sym_histogram_no_range", "sym", "histogram", [A("m")], {"bins": 4})

    # -- autograd: attach_grad / record / backward ------------------------------------------------
    def elementwise(x):
        x["m"].attach_grad()
        with mx.autograd.record():
            y = (x["m"] * x["m"] + mx.nd.exp(x["m"])).sum()
        y.backward()
        return [y, x["m"].grad]

    def fluent_chain(x):
        x["a"].attach_grad()
        with mx.autograd.record():
            y = x["a"].transpose(axes=(1, 0, 2)).reshape((3, -1)).softmax(axis=1).max(axis=1)
        y.backward(out_grad=mx.nd.array([1.0, 2.0, 3.0]))
        return [y, x["a"].grad]

    def two_inputs(x):
        x["m"].attach_grad()
        x["b"].attach_grad()
        with mx.autograd.record():
            y = mx.nd.broadcast_mul(x["m"], x["b"]) / 2 - mx.nd.maximum(x["m"], 0.1)
        y.backward()
        return [y, x["m"].grad, x["b"].grad]

    def accumulate(x):
        x["p"].attach_grad(grad_req="add")
        for _ in range(2):
            with mx.autograd.record():
                y = mx.nd.log(x["p"]) * 3
            y.backward()
        return [y, x["p"].grad]

    def write_twice(x):
        x["p"].attach_grad()
        for scale in (1.0, 5.0):
            with mx.autograd.record():
                y = x["p"].square() * scale
            y.backward()
        return [y, x["p"].grad]

    def retain_graph(x):
        x["m"].attach_grad(grad_req="add")
        with mx.autograd.record():
            y = x["m"].sigmoid().sum(axis=0)
        y.backward(retain_graph=True)
        y.backward()
        return [y, x["m"].grad]

    for program in (elementwise, fluent_chain, two_inputs, accumulate, write_twice, retain_graph):
        autograd(program.__name__, program)


def main():
    build()
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "cases.json"), "w", encoding="utf-8") as handle:
        json.dump({"generator": "tools/gen_fluent_reference.py", "mxnet_version": mx.__version__,
                   "cases": CASES}, handle, indent=1, sort_keys=True)
    np.savez_compressed(os.path.join(OUT, "arrays.npz"), **ARRAYS)
    errors = [c["name"] for c in CASES if any(f.get("error") for f in c.get("fronts", {}).values())
              or c.get("result", {}).get("error")]
    print(f"{len(CASES)} cases, {len(ARRAYS)} arrays; MXNet rejects: {errors}")


if __name__ == "__main__":
    main()
