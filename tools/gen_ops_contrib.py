"""Reference cases for tests/test_ops_contrib.py, made with real MXNet 1.9.1.

Run with the reference interpreter: ``~/mxref/bin/python tools/gen_ops_contrib.py``.
Each case calls one operator imperatively (``mx.nd.contrib.<name>`` for ``_contrib_`` names,
else ``mx.nd._internal.<name>``) on its inputs, positionally in the listed order, with its
attributes as keywords.  Cases with ``grads`` record the call under ``mx.autograd.record()``
and run ``backward`` with random head gradients.  Inputs, outputs, head gradients and the
input gradients are stored in ``tests/data/ops_contrib/<case>.npz``, the case list in
``index.json``.
"""
import json
import os

import numpy as np
import mxnet as mx

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "ops_contrib")
RANDOM = np.random.RandomState(20241201)
CASES = []


def normal(*shape, dtype=np.float32):
    return RANDOM.randn(*shape).astype(dtype)


def case(name, op, inputs, attrs=None, grads=()):
    CASES.append(dict(name=name, op=op, inputs=inputs, attrs=attrs or {}, grads=list(grads)))


def build():
    for dtype in (np.float32, np.float64):
        case(f"quadratic_{np.dtype(dtype).name}", "_contrib_quadratic", [("data", normal(3, 4, dtype=dtype))],
             dict(a=0.7, b=-1.5, c=0.25), grads=["data"])
    case("div_sqrt_dim", "_contrib_div_sqrt_dim", [("data", normal(2, 3, 5))], grads=["data"])
    case("round_ste", "_contrib_round_ste", [("data", np.array([-2.5, -1.4, -0.5, 0.5, 1.5, 2.6], np.float32))],
         grads=["data"])
    case("sign_ste", "_contrib_sign_ste", [("data", np.array([-2.0, 0.0, 3.0], np.float32))], grads=["data"])
    case("gradientmultiplier", "_contrib_gradientmultiplier", [("data", normal(2, 3))], dict(scalar=-0.4),
         grads=["data"])
    a = normal(4, 5)
    case("allclose_close", "_contrib_allclose", [("a", a), ("b", a + 1e-7)])
    case("allclose_far", "_contrib_allclose", [("a", a), ("b", a + 1e-3)], dict(rtol=1e-5, atol=1e-8))
    case("allclose_loose", "_contrib_allclose", [("a", a), ("b", a + 1e-3)], dict(rtol=0.0, atol=2e-3))
    nan = np.array([1.0, np.nan, 3.0], np.float32)
    case("allclose_nan_equal", "_contrib_allclose", [("a", nan), ("b", nan.copy())])
    case("allclose_nan_unequal", "_contrib_allclose", [("a", nan), ("b", nan.copy())], dict(equal_nan=False))
    case("allclose_nan_vs_number", "_contrib_allclose", [("a", nan), ("b", np.array([1, 2, 3], np.float32))])
    case("index_copy", "_contrib_index_copy",
         [("old_tensor", normal(5, 3)), ("index_vector", np.array([3, 0, 4], np.int64)), ("new_tensor", normal(3, 3))],
         grads=["old_tensor", "new_tensor"])
    case("boolean_mask", "_contrib_boolean_mask",
         [("data", normal(6, 2)), ("index", np.array([1, 0, 0, 1, 1, 0], np.float32))], grads=["data"])
    heads, head_dim, seq, batch, kv_seq = 2, 3, 4, 2, 5
    qkv = normal(seq, batch, heads * 3 * head_dim)
    case("selfatt_qk", "_contrib_interleaved_matmul_selfatt_qk", [("queries_keys_values", qkv)], dict(heads=heads),
         grads=["queries_keys_values"])
    case("selfatt_valatt", "_contrib_interleaved_matmul_selfatt_valatt",
         [("queries_keys_values", qkv), ("attention", normal(batch * heads, seq, seq))], dict(heads=heads),
         grads=["queries_keys_values", "attention"])
    queries, kv = normal(seq, batch, heads * head_dim), normal(kv_seq, batch, heads * 2 * head_dim)
    case("encdec_qk", "_contrib_interleaved_matmul_encdec_qk", [("queries", queries), ("keys_values", kv)],
         dict(heads=heads), grads=["queries", "keys_values"])
    case("encdec_valatt", "_contrib_interleaved_matmul_encdec_valatt",
         [("keys_values", kv), ("attention", normal(batch * heads, seq, kv_seq))], dict(heads=heads),
         grads=["keys_values", "attention"])
    data = RANDOM.uniform(-1.5, 2.0, (3, 4)).astype(np.float32)
    low, high = np.array([-1.0], np.float32), np.array([1.5], np.float32)
    for out_type in ("int8", "uint8"):
        case(f"quantize_{out_type}", "_contrib_quantize",
             [("data", np.clip(data, -1.0, 1.5)), ("min_range", low), ("max_range", high)], dict(out_type=out_type))
        case(f"quantize_v2_{out_type}_data_range", "_contrib_quantize_v2", [("data", data)], dict(out_type=out_type))
    case("quantize_v2_int8_calibrated", "_contrib_quantize_v2", [("data", data)],
         dict(out_type="int8", min_calib_range=-1.0, max_calib_range=1.0))
    positive = RANDOM.uniform(0, 3, (2, 5)).astype(np.float32)
    case("quantize_v2_auto_calibrated_unsigned", "_contrib_quantize_v2", [("data", positive)],
         dict(out_type="auto", min_calib_range=0.0, max_calib_range=2.5))
    case("quantize_v2_auto_data_range", "_contrib_quantize_v2", [("data", data)], dict(out_type="auto"))
    case("dequantize_int8", "_contrib_dequantize",
         [("data", RANDOM.randint(-127, 128, (3, 4)).astype(np.int8)), ("min_range", np.array([-0.5], np.float32)),
          ("max_range", np.array([2.0], np.float32))])
    case("dequantize_uint8", "_contrib_dequantize",
         [("data", RANDOM.randint(0, 256, (3, 4)).astype(np.uint8)), ("min_range", np.array([-0.5], np.float32)),
          ("max_range", np.array([2.0], np.float32))])
    case("slice_assign", "_slice_assign", [("lhs", normal(4, 5)), ("rhs", normal(2, 2))],
         dict(begin=(1, None), end=(3, None), step=(1, -3)))
    case("crop_assign", "_crop_assign", [("lhs", normal(2, 3, 4)), ("rhs", normal(2, 1, 3))],
         dict(begin=(0, 1, 0), end=(2, 2, 3)))
    case("slice_assign_scalar", "_slice_assign_scalar", [("data", normal(3, 4))],
         dict(scalar=2.5, begin=(None, 1), end=(None, 4), step=(2, 2)))


def resolve(op):
    if op.startswith("_contrib_"):
        return getattr(mx.nd.contrib, op[len("_contrib_"):])
    return getattr(mx.nd._internal, op)


def run(spec):
    arrays = {f"arg:{n}": v for n, v in spec["inputs"]}
    inputs = [mx.nd.array(v, dtype=v.dtype) for _, v in spec["inputs"]]
    names = [n for n, _ in spec["inputs"]]
    for n, array in zip(names, inputs):
        if n in spec["grads"]:
            array.attach_grad()
    with mx.autograd.record():
        outputs = resolve(spec["op"])(*inputs, **spec["attrs"])
    outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    for i, output in enumerate(outputs):
        arrays[f"out:{i}"] = output.asnumpy()
    if spec["grads"]:
        heads = [normal(*o.shape).astype(o.dtype) for o in outputs]
        mx.autograd.backward(outputs, [mx.nd.array(h, dtype=h.dtype) for h in heads])
        for i, head in enumerate(heads):
            arrays[f"head:{i}"] = head
        for n, array in zip(names, inputs):
            if n in spec["grads"]:
                arrays[f"grad:{n}"] = array.grad.asnumpy()
    np.savez(os.path.join(OUT, spec["name"] + ".npz"), **arrays)
    attrs = {k: (list(v) if isinstance(v, tuple) else v) for k, v in spec["attrs"].items()}
    return dict(name=spec["name"], op=spec["op"], attrs=attrs, inputs=names, grads=spec["grads"],
                outputs=len(outputs))


def main():
    os.makedirs(OUT, exist_ok=True)
    build()
    index = [run(spec) for spec in CASES]
    with open(os.path.join(OUT, "index.json"), "w") as handle:
        json.dump({"mxnet_version": mx.__version__, "generator": "tools/gen_ops_contrib.py", "cases": index},
                  handle, indent=1)
    print(f"wrote {len(index)} cases to {OUT}")


if __name__ == "__main__":
    main()
