"""The fused optimizer update operators (``mx.nd.sgd_mom_update`` & co.) against MXNet 1.9.1.

Reference data: ``tests/data/optimizer_update_ops`` (made by ``tools/gen_optimizer_update_ops.py``):
each case calls the operator 2-3 times with ``out=weight``; after every call the output(s) and
every mutated state input must equal MXNet's.
"""
import json
import os

import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError

DATA = os.path.join(os.path.dirname(__file__), "data", "optimizer_update_ops")
with open(os.path.join(DATA, "index.json")) as handle:
    INDEX = json.load(handle)


def _tolerance(array):
    return dict(rtol=2e-3, atol=2e-3) if array.dtype == np.float16 else dict(rtol=2e-5, atol=2e-6)


def _check(actual, expected, what):
    np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64),
                               err_msg=what, **_tolerance(expected))
    assert actual.dtype == expected.dtype, what


@pytest.mark.parametrize("case", sorted(INDEX))
def test_matches_mxnet_over_several_calls(case):
    spec = INDEX[case]
    data = np.load(os.path.join(DATA, f"{case}.npz"))
    arrays = {name: mx.nd.array(data[f"init/{name}"], dtype=data[f"init/{name}"].dtype)
              for name in spec["inputs"] if name not in spec["grads"]}
    function = getattr(mx.nd, spec["op"])
    for call, attrs in enumerate(spec["attrs"]):
        attrs = {key: tuple(value) if isinstance(value, list) else value for key, value in attrs.items()}
        args = [mx.nd.array(data[f"call{call}/{name}"], dtype=data[f"call{call}/{name}"].dtype)
                if name in spec["grads"] else arrays[name] for name in spec["inputs"]]
        if spec["out"]:
            targets = [arrays[name] for name in spec["out"]]
            result = function(*args, out=targets if len(targets) > 1 else targets[0], **attrs)
            results = result if isinstance(result, (list, tuple)) else [result]
            assert all(r is t for r, t in zip(results, targets))
        else:
            result = function(*args, **attrs)
            results = result if isinstance(result, (list, tuple)) else [result]
        assert len(results) == spec["outputs"]
        for index, output in enumerate(results):
            _check(output.asnumpy(), data[f"call{call}/output{index}"], f"{case} call {call} output {index}")
        for name, array in arrays.items():
            _check(array.asnumpy(), data[f"call{call}/{name}"], f"{case} call {call} input {name!r}")


def test_without_out_the_weight_is_left_alone_and_states_change():
    data = np.load(os.path.join(DATA, "sgd_mom_update.npz"))
    weight = mx.nd.array(data["init/weight"])
    mom = mx.nd.array(data["init/mom"])
    grad = mx.nd.array(data["call0/grad"])
    attrs = {key: value for key, value in INDEX["sgd_mom_update"]["attrs"][0].items()}
    result = mx.nd.sgd_mom_update(weight, grad, mom, **attrs)
    assert result is not weight
    np.testing.assert_array_equal(weight.asnumpy(), data["init/weight"])
    np.testing.assert_allclose(result.asnumpy(), data["call0/output0"], rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(mom.asnumpy(), data["call0/mom"], rtol=2e-5, atol=2e-6)
    # writing the output does not write the weight
    result[:] = 0
    np.testing.assert_array_equal(weight.asnumpy(), data["init/weight"])


def test_sgd_update_formula_and_positional_lr():
    weight = mx.nd.array([1.0, -2.0])
    grad = mx.nd.array([4.0, 0.5])
    result = mx.nd.sgd_update(weight, grad, 0.1, wd=0.5, rescale_grad=0.5, clip_gradient=1.0)
    # weight - lr * (clip(rescale * grad, 1) + wd * weight)
    np.testing.assert_allclose(result.asnumpy(), [1 - 0.1 * (1.0 + 0.5), -2 - 0.1 * (0.25 - 1.0)], rtol=1e-6)


def test_no_gradient_is_recorded():
    weight = mx.nd.array([1.0, 2.0])
    weight.attach_grad()
    mom = mx.nd.zeros(2)
    with mx.autograd.record():
        result = mx.nd.sgd_mom_update(weight, mx.nd.ones(2), mom, lr=0.1, momentum=0.9)
    assert not result._tensor.requires_grad
    assert not mom._tensor.requires_grad


def test_missing_lr_raises():
    with pytest.raises(MXNetError, match="lr"):
        mx.nd.sgd_update(mx.nd.ones(2), mx.nd.ones(2))


def test_shape_mismatch_raises_before_any_state_changes():
    mom = mx.nd.ones(3)
    with pytest.raises(MXNetError, match="sgd_mom_update"):
        mx.nd.sgd_mom_update(mx.nd.ones(2), mx.nd.ones(2), mom, lr=0.1, momentum=0.9)
    np.testing.assert_array_equal(mom.asnumpy(), np.ones(3))


def test_multi_sgd_update_checks_lrs_length():
    with pytest.raises(MXNetError, match="lrs"):
        mx.nd.multi_sgd_update(mx.nd.ones(2), mx.nd.ones(2), mx.nd.ones(3), mx.nd.ones(3),
                               lrs=(0.1,), wds=(0.0, 0.0), num_weights=2)


def test_mp_sgd_update_requires_float32_master():
    weight = mx.nd.ones(2, dtype=np.float16)
    with pytest.raises(MXNetError, match="weight32"):
        mx.nd.mp_sgd_update(weight, weight, mx.nd.ones(2, dtype=np.float16), lr=0.1)


def test_mp_lamb_update_phases_match_mxnet():
    # MXNet 1.9.1 on these inputs; phase 2 returns weight32 - lr * ratio * g in float16 and, as
    # MXNet's kernel, leaves weight32 itself unchanged
    weight = mx.nd.array([[1, 2], [3, -4]], dtype="float16")
    grad = mx.nd.array([[.5, -1], [2, .1]], dtype="float16")
    mean, var, weight32 = mx.nd.zeros((2, 2)), mx.nd.zeros((2, 2)), weight.astype("float32")
    g = mx.nd.mp_lamb_update_phase1(weight, grad, mean, var, weight32, t=1, wd=0.1)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g.asnumpy(), [[1.099998, -0.799999], [1.299999, 0.59999]], rtol=1e-5)
    np.testing.assert_allclose(mean.asnumpy(), [[0.05, -0.1], [0.2, 0.0099976]], rtol=1e-4)
    r1 = mx.nd.norm(weight32).reshape((1,))
    r2 = mx.nd.norm(g).reshape((1,))
    new = mx.nd.mp_lamb_update_phase2(weight, g, r1, r2, weight32, lr=0.1)
    assert new.dtype == np.float16
    np.testing.assert_allclose(new.asnumpy(), [[0.69482421875, 2.22265625], [2.638671875, -4.16796875]], rtol=1e-3)
    assert weight32.asnumpy().tolist() == [[1, 2], [3, -4]]
    symbol = mx.sym.mp_lamb_update_phase2(*[mx.sym.var(n) for n in ("w", "g", "r1", "r2", "w32")], lr=0.1)
    assert symbol.infer_shape(w=(2, 2))[0] == [(2, 2), (2, 2), (1,), (1,), (2, 2)]
    assert symbol.infer_type(w="float16")[1] == [np.float16]
