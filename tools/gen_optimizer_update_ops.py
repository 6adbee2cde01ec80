"""Reference cases for tests/test_optimizer_update_ops.py, made with real MXNet 1.9.1.

Run with the reference interpreter: ``~/mxref/bin/python tools/gen_optimizer_update_ops.py``.

Each case calls one fused update operator imperatively (``mx.nd.<op>``) several times in a row,
with a fresh gradient per call and the weights written back with ``out=weight`` (how the
optimizers call them), so the mutable state inputs carry over from call to call.  Stored in
``tests/data/optimizer_update_ops/<case>.npz``:

- ``init/<input>``: every non-gradient input before the first call,
- ``call<k>/<grad input>``: the gradient(s) of call ``k``,
- ``call<k>/output<i>``: the operator's output(s) of call ``k``,
- ``call<k>/<input>``: every non-gradient input after call ``k`` (the mutated states).

``index.json`` lists, per case: op, input names in order, which are gradients, which are
written with ``out=`` (``out``), and the attributes of each call.
"""
import json
import os

import numpy as np
import mxnet as mx

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "optimizer_update_ops")
RANDOM = np.random.RandomState(20240917)
SHAPE = (3, 4)


def make(kind, shape, dtype):
    if kind == "normal":
        value = RANDOM.randn(*shape)
    elif kind == "positive":
        value = np.abs(RANDOM.randn(*shape)) + 0.1
    elif kind == "zeros":
        value = np.zeros(shape)
    else:
        raise ValueError(kind)
    return value.astype(dtype)


CASES = {}


def case(name, op, inputs, attrs, out=("weight",), calls=3, grad_scale=1.0):
    """``inputs``: ``[(name, kind, dtype, shape or None)]`` in operator order; kind "grad" marks a
    gradient (fresh per call).  ``attrs``: one dict, or a function of the call number (0-based)."""
    CASES[name] = dict(op=op, inputs=inputs, attrs=attrs, out=list(out), calls=calls, grad_scale=grad_scale)


F32, F16 = "float32", "float16"
W, G = ("weight", "normal", F32, None), ("grad", "grad", F32, None)
W16, G16 = ("weight", "normal", F16, None), ("grad", "grad", F16, None)
MP32 = ("weight32", "copy:weight", F32, None)

case("sgd_update", "sgd_update", [W, G], dict(lr=0.1, wd=0.01, rescale_grad=0.5))
case("sgd_update_clip", "sgd_update", [W, G], dict(lr=0.1, wd=0.01, rescale_grad=0.5, clip_gradient=0.3))
case("sgd_update_clip0", "sgd_update", [W, G], dict(lr=0.1, wd=0.01, clip_gradient=0.0))
case("sgd_mom_update", "sgd_mom_update", [W, G, ("mom", "normal", F32, None)],
     dict(lr=0.1, momentum=0.9, wd=1e-4, rescale_grad=1 / 128, clip_gradient=-1), grad_scale=100.0)
case("sgd_mom_update_clip", "sgd_mom_update", [W, G, ("mom", "zeros", F32, None)],
     dict(lr=0.05, momentum=0.8, wd=1e-3, clip_gradient=0.5))
case("mp_sgd_update", "mp_sgd_update", [W16, G16, MP32], dict(lr=0.1, wd=0.01, rescale_grad=0.5, clip_gradient=0.4))
case("mp_sgd_mom_update", "mp_sgd_mom_update", [W16, G16, ("mom", "normal", F32, None), MP32],
     dict(lr=0.1, momentum=0.9, wd=1e-3, rescale_grad=0.5))
case("nag_mom_update", "nag_mom_update", [W, G, ("mom", "normal", F32, None)],
     dict(lr=0.1, momentum=0.9, wd=0.01, rescale_grad=0.5, clip_gradient=0.6))
case("mp_nag_mom_update", "mp_nag_mom_update", [W16, G16, ("mom", "zeros", F32, None), MP32],
     dict(lr=0.1, momentum=0.9, wd=0.01))
case("adam_update", "adam_update", [W, G, ("mean", "normal", F32, None), ("var", "positive", F32, None)],
     dict(lr=0.01, beta1=0.8, beta2=0.99, epsilon=1e-6, wd=0.1, rescale_grad=0.5, clip_gradient=0.7))
case("adam_update_default", "adam_update", [W, G, ("mean", "zeros", F32, None), ("var", "zeros", F32, None)],
     dict(lr=0.001))
case("adam_update_clip0", "adam_update", [W, G, ("mean", "normal", F32, None), ("var", "positive", F32, None)],
     dict(lr=0.01, wd=0.1, clip_gradient=0.0))
case("rmsprop_update", "rmsprop_update", [W, G, ("n", "positive", F32, None)],
     dict(lr=0.05, gamma1=0.9, epsilon=1e-6, wd=0.01, rescale_grad=0.5, clip_gradient=0.8, clip_weights=1.0))
case("rmsprop_update_default", "rmsprop_update", [W, G, ("n", "zeros", F32, None)], dict(lr=0.01))
case("rmspropalex_update", "rmspropalex_update",
     [W, G, ("n", "zeros", F32, None), ("g", "zeros", F32, None), ("delta", "normal", F32, None)],
     dict(lr=0.01, gamma1=0.9, gamma2=0.8, epsilon=1e-6, wd=0.01, rescale_grad=0.5, clip_weights=1.2))
case("signsgd_update", "signsgd_update", [W, G], dict(lr=0.1, wd=0.05, rescale_grad=0.5, clip_gradient=0.2))
case("signum_update", "signum_update", [W, G, ("mom", "normal", F32, None)],
     dict(lr=0.1, momentum=0.9, wd=0.05, rescale_grad=0.5, clip_gradient=0.4, wd_lh=0.01))
case("ftml_update", "ftml_update",
     [W, G, ("d", "zeros", F32, None), ("v", "zeros", F32, None), ("z", "zeros", F32, None)],
     lambda k: dict(lr=0.05, beta1=0.6, beta2=0.99, epsilon=1e-6, t=k + 1, wd=0.01, rescale_grad=0.5, clip_grad=0.9))
case("ftrl_update", "ftrl_update", [W, G, ("z", "normal", F32, None), ("n", "positive", F32, None)],
     dict(lr=0.1, lamda1=0.5, beta=1.5, wd=0.01, rescale_grad=0.5, clip_gradient=1.0))
case("lamb_update_phase1", "lamb_update_phase1",
     [W, G, ("mean", "zeros", F32, None), ("var", "zeros", F32, None)],
     lambda k: dict(beta1=0.8, beta2=0.99, epsilon=1e-6, t=k + 1, wd=0.01, rescale_grad=0.5, clip_gradient=0.9),
     out=())
case("lamb_update_phase1_no_bias_correction", "lamb_update_phase1",
     [W, G, ("mean", "normal", F32, None), ("var", "positive", F32, None)],
     lambda k: dict(t=k + 1, bias_correction=False, wd=0.0), out=())
case("lamb_update_phase2", "lamb_update_phase2",
     [W, ("g", "grad", F32, None), ("r1", "positive", F32, (1,)), ("r2", "positive", F32, (1,))],
     dict(lr=0.1), calls=2)
case("lamb_update_phase2_bounds", "lamb_update_phase2",
     [W, ("g", "grad", F32, None), ("r1", "positive", F32, (1,)), ("r2", "positive", F32, (1,))],
     dict(lr=0.1, lower_bound=2.0, upper_bound=3.0), calls=2)


def multi(name, op, group, attrs, mp=False):
    inputs, outs = [], []
    for index, shape in enumerate([(3, 4), (5,)]):
        for item, kind, dtype in group:
            kind = kind if not kind.startswith("copy:") else f"copy:weight_{index}"
            inputs.append((f"{item}_{index}", kind, dtype, shape))
        outs.append(f"weight_{index}")
    case(name, op, inputs, attrs, out=outs)


multi("multi_sgd_update", "multi_sgd_update", [("weight", "normal", F32), ("grad", "grad", F32)],
      dict(lrs=(0.1, 0.2), wds=(0.01, 0.0), rescale_grad=0.5, clip_gradient=0.5, num_weights=2))
multi("multi_sgd_mom_update", "multi_sgd_mom_update",
      [("weight", "normal", F32), ("grad", "grad", F32), ("mom", "normal", F32)],
      dict(lrs=(0.1, 0.2), wds=(0.01, 0.001), momentum=0.9, rescale_grad=0.5, num_weights=2))
multi("multi_mp_sgd_update", "multi_mp_sgd_update",
      [("weight", "normal", F16), ("grad", "grad", F16), ("weight32", "copy:", F32)],
      dict(lrs=(0.1, 0.2), wds=(0.01, 0.0), clip_gradient=0.5, num_weights=2))
multi("multi_mp_sgd_mom_update", "multi_mp_sgd_mom_update",
      [("weight", "normal", F16), ("grad", "grad", F16), ("mom", "zeros", F32), ("weight32", "copy:", F32)],
      dict(lrs=(0.1, 0.2), wds=(0.01, 0.001), momentum=0.9, rescale_grad=0.5, num_weights=2))


def run(name, spec):
    arrays, values = {}, {}
    for item, kind, dtype, shape in spec["inputs"]:
        shape = shape or SHAPE
        if kind == "grad":
            continue
        if kind.startswith("copy:"):
            value = values[kind[len("copy:"):]].astype(dtype)
        else:
            value = make(kind, shape, dtype)
        values[item] = value
        arrays[item] = mx.nd.array(value, dtype=dtype)
        values[f"init/{item}"] = value
    stored = {key: value for key, value in values.items() if key.startswith("init/")}
    attrs_per_call = []
    function = getattr(mx.nd, spec["op"])
    for call in range(spec["calls"]):
        attrs = spec["attrs"](call) if callable(spec["attrs"]) else dict(spec["attrs"])
        attrs_per_call.append({key: list(value) if isinstance(value, tuple) else value
                               for key, value in attrs.items()})
        args = []
        for item, kind, dtype, shape in spec["inputs"]:
            if kind == "grad":
                grad = (RANDOM.randn(*(shape or SHAPE)) * spec["grad_scale"]).astype(dtype)
                stored[f"call{call}/{item}"] = grad
                args.append(mx.nd.array(grad, dtype=dtype))
            else:
                args.append(arrays[item])
        if spec["out"]:
            targets = [arrays[item] for item in spec["out"]]
            result = function(*args, out=targets if len(targets) > 1 else targets[0], **attrs)
        else:
            result = function(*args, **attrs)
        results = result if isinstance(result, (list, tuple)) else [result]
        for index, output in enumerate(results):
            stored[f"call{call}/output{index}"] = output.asnumpy()
        for item, array in arrays.items():
            stored[f"call{call}/{item}"] = array.asnumpy()
    np.savez(os.path.join(OUT, f"{name}.npz"), **stored)
    return dict(op=spec["op"], inputs=[item for item, *_ in spec["inputs"]],
                grads=[item for item, kind, *_ in spec["inputs"] if kind == "grad"],
                out=spec["out"], attrs=attrs_per_call, outputs=len(results))


def main():
    os.makedirs(OUT, exist_ok=True)
    index = {name: run(name, spec) for name, spec in CASES.items()}
    with open(os.path.join(OUT, "index.json"), "w") as handle:
        json.dump(index, handle, indent=1, sort_keys=True)
    print(f"wrote {len(index)} cases to {os.path.abspath(OUT)}")


if __name__ == "__main__":
    main()
