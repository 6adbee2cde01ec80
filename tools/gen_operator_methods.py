"""Write tests/data/operator_methods/operator_methods.json with MXNet 1.9.1: the values of
NDArray and Symbol operator methods (``a + b``, ``-3.0 % a``, ``a **= 2`` ...) on negative,
fractional and integer arrays and with scalars on either side.

Each case is a Python expression over ``a``, ``b`` (float32), ``i``, ``j`` (int32) evaluated
once with NDArrays and, where Symbol supports it, once with Symbols bound to the same values.

Run with the reference interpreter: /root/mxref/bin/python tools/gen_operator_methods.py
"""
import json
import os

import mxnet as mx
import numpy as np

INPUTS = {
    "a": np.array([-5.0, -3.5, 2.25, 7.0, -0.5, 4.0], dtype=np.float32),
    "b": np.array([3.0, -2.0, 0.5, -4.0, 0.25, 3.0], dtype=np.float32),
    "i": np.array([-5, -3, 2, 7, 9, -8], dtype=np.int32),
    "j": np.array([3, -2, 4, -4, 2, 3], dtype=np.int32),
}
BINARY = ["+", "-", "*", "/", "%", "**", "==", "!=", ">", ">=", "<", "<="]
SCALARS = ["3", "-2.5", "2", "0.5"]


def expressions():
    cases = []
    for op in BINARY:
        cases.append(f"a {op} b")
        cases.append(f"i {op} j" if op != "**" else "i ** abs(j)")
        for scalar in SCALARS:
            cases.append(f"a {op} {scalar}")
            cases.append(f"({scalar}) {op} a")
            if op not in ("**",):
                if not (op in ("/", "%") and scalar == "0.5"):   # MXNet divides by int(0.5) = 0: SIGFPE
                    cases.append(f"i {op} {scalar}")
                cases.append(f"({scalar}) {op} i")
    cases += ["-a", "-i", "abs(a)", "abs(i)", "a - -b", "2 ** i"]
    return cases


INPLACE = ["+=", "-=", "*=", "/=", "%="]


def inplace_expressions():
    cases = []
    for op in INPLACE:
        for target, other in (("a", "b"), ("a", "3"), ("a", "-2.5"), ("i", "j"), ("i", "2"), ("i", "-2.5")):
            cases.append((target, op, other))
    return cases


def to_list(array):
    return [None if np.isnan(v) else (float("inf") if v == np.inf else float("-inf") if v == -np.inf else float(v))
            for v in array.astype(np.float64).ravel()]


def evaluate_nd(expression):
    names = {k: mx.nd.array(v, dtype=v.dtype) for k, v in INPUTS.items()}
    result = eval(expression, {"abs": abs}, names)
    return {"values": to_list(result.asnumpy()), "dtype": np.dtype(result.dtype).name}


def evaluate_sym(expression):
    variables = {k: mx.sym.var(k) for k in INPUTS}
    symbol = eval(expression, {"abs": abs}, variables)
    used = symbol.list_arguments()
    arrays = {k: mx.nd.array(INPUTS[k], dtype=INPUTS[k].dtype) for k in used}
    result = symbol.bind(mx.cpu(), arrays).forward()[0]
    return {"values": to_list(result.asnumpy()), "dtype": np.dtype(result.dtype).name}


def main():
    cases = []
    for expression in expressions():
        case = {"expression": expression}
        try:
            case["ndarray"] = evaluate_nd(expression)
        except Exception as error:  # MXNet refuses some (recorded as such)
            case["ndarray"] = {"error": type(error).__name__}
        try:
            case["symbol"] = evaluate_sym(expression)
        except Exception as error:
            case["symbol"] = {"error": type(error).__name__}
        cases.append(case)
    inplace = []
    for target, op, other in inplace_expressions():
        names = {k: mx.nd.array(v, dtype=v.dtype) for k, v in INPUTS.items()}
        array = names[target]
        exec(f"{target} {op} {other}", {}, names)
        inplace.append({"target": target, "op": op, "other": other, "same_object": names[target] is array,
                        "values": to_list(names[target].asnumpy()), "dtype": np.dtype(names[target].dtype).name})
    target = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "operator_methods",
                          "operator_methods.json")
    with open(target, "w") as handle:
        json.dump({"mxnet": mx.__version__, "inputs": {k: v.tolist() for k, v in INPUTS.items()},
                   "input_dtypes": {k: v.dtype.name for k, v in INPUTS.items()}, "cases": cases,
                   "inplace": inplace}, handle)


if __name__ == "__main__":
    main()
