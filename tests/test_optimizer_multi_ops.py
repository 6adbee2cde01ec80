"""AdamW, multi-tensor LAMB, mixed-precision LAMB phases, multi_lars, the preloaded multi SGD
updates and group AdaGrad, against values printed by MXNet 1.9.1 for the same calls (the
preloaded forms, GPU-only in MXNet, against multi_sgd_update as MXNet's own GPU test does)."""
import numpy as np
import pytest

import mxtorch as mx
from mxtorch.base import MXNetError

nd = mx.nd


def test_adamw_update_and_skip():
    weight, grad = nd.ones((2, 2)), nd.array([[0.5, 1], [2, -1]])
    mean, var = nd.ones((2, 2)) * 0.1, nd.ones((2, 2)) * 0.2
    out = nd.contrib.adamw_update(weight, grad, mean, var, rescale_grad=nd.array([0.5]), lr=0.1, eta=0.7, wd=0.3)
    np.testing.assert_allclose(out.asnumpy(), [[0.77199346, 0.7680893], [0.7603196, 0.7837398]], rtol=1e-6)
    np.testing.assert_allclose(mean.asnumpy(), [[0.115, 0.14], [0.19, 0.04]], rtol=1e-5)
    np.testing.assert_allclose(var.asnumpy(), [[0.1998625, 0.20005], [0.2008, 0.20005]], rtol=1e-6)
    skipped = nd.contrib.adamw_update(weight, grad, mean, var, rescale_grad=float("inf"), lr=0.1, eta=0.7)
    np.testing.assert_array_equal(skipped.asnumpy(), np.ones((2, 2)))
    np.testing.assert_allclose(mean.asnumpy(), [[0.115, 0.14], [0.19, 0.04]], rtol=1e-5)


def test_multi_and_mixed_precision_adamw():
    weights, grads = [nd.array([1.0, 2]), nd.array([3.0, -1, 0.5])], [nd.array([0.5, -1]), nd.array([1.0, 2, 3])]
    means, variances = [nd.ones_like(w) * 0.1 for w in weights], [nd.ones_like(w) * 0.2 for w in weights]
    out = nd.contrib.multi_adamw_update(weights, grads, means, variances, rescale_grad=0.5, lrs=[0.1, 0.2],
                                        wds=[0.1, 0.0], etas=[0.5, 1.0], clip_gradient=0.4, out=weights)
    np.testing.assert_allclose(out[0].asnumpy(), [0.9371382, 1.8944093], rtol=1e-6)
    np.testing.assert_allclose(out[1].asnumpy(), [2.9418564, -1.0581436, 0.4418564], rtol=1e-6)
    np.testing.assert_allclose(means[0].asnumpy(), [0.115, 0.05], rtol=1e-5)
    weight, master = nd.array([1.0, 2]).astype("float16"), nd.array([1.0, 2])
    out = nd.contrib.mp_adamw_update(weight, nd.array([0.5, -1]).astype("float16"), nd.ones((2,)) * 0.1,
                                     nd.ones((2,)) * 0.2, master, rescale_grad=1.0, lr=0.1, eta=0.5, wd=0.1)
    assert out.dtype == np.float16
    np.testing.assert_allclose(master.asnumpy(), [0.9343495, 1.9011158], rtol=1e-6)


def test_multi_lamb_update():
    weights = [nd.array([[1.0, 2], [3, 4]]), nd.array([0.5, -1, 2])]
    grads = [nd.array([[0.1, -0.2], [0.3, 0.4]]), nd.array([1.0, 2, 3])]
    means, variances = [nd.ones_like(w) * 0.1 for w in weights], [nd.ones_like(w) * 0.2 for w in weights]
    out = nd.contrib.multi_lamb_update(weights, grads, means, variances, step_count=[1, 3], lrs=[0.1, 0.2],
                                       wds=[0.01, 0.2], rescale_grad=0.5, clip_gradient=0.8, lower_bound=0.1,
                                       upper_bound=3.0)
    np.testing.assert_allclose(out[0].asnumpy(), [[0.878898, 1.8798592], [2.836437, 3.8152092]], rtol=1e-6)
    np.testing.assert_allclose(out[1].asnumpy(), [0.35580158, -0.8910821, 1.578878], rtol=1e-6)
    np.testing.assert_allclose(variances[1].asnumpy(), [0.20005, 0.20044, 0.20044], rtol=1e-5)
    with pytest.raises(MXNetError, match="num_tensors=2"):
        nd.contrib.multi_lamb_update(weights, grads, means, variances, step_count=[1], lrs=[0.1, 0.2], wds=[0, 0])


def test_mixed_precision_lamb_phases():
    weight, grad = nd.array([1.0, 2, 3]).astype("float16"), nd.array([0.1, 0.2, -0.3]).astype("float16")
    mean, var, master = nd.ones((3,)) * 0.1, nd.ones((3,)) * 0.2, nd.array([1.0, 2, 3])
    update = nd.mp_lamb_update_phase1(weight, grad, mean, var, master, t=2, wd=0.1, rescale_grad=2.0)
    assert update.dtype == np.float32
    np.testing.assert_allclose(update.asnumpy(), [0.15790027, 0.26840496, 0.3157739], rtol=1e-5)
    np.testing.assert_allclose(mean.asnumpy(), [0.10999512, 0.12999023, 0.02999021], rtol=1e-5)
    out = nd.mp_lamb_update_phase2(weight, update, nd.array([3.0]), nd.array([1.5]), master, lr=0.1,
                                   lower_bound=0.5, upper_bound=2.0)
    assert out.dtype == np.float16
    np.testing.assert_allclose(out.asnumpy(), [0.979, 1.964, 2.957], rtol=1e-3)
    np.testing.assert_array_equal(master.asnumpy(), [1, 2, 3])     # MXNet leaves weight32 as it was


def test_multi_lars():
    rates = nd.multi_lars(nd.array([0.1, 0.2]), nd.array([4.0, 0]), nd.array([1.0, 1]), nd.array([0.01, 0.01]),
                          eta=0.5, eps=1e-6, rescale_grad=2)
    np.testing.assert_allclose(rates.asnumpy(), [0.04950493, 0.2], rtol=1e-6)


@pytest.mark.parametrize("momentum", [None, 0.9])
def test_preloaded_multi_sgd_matches_multi_sgd(momentum):
    def arrays():
        return [nd.array([1.0, 2]), nd.array([1.0, 2]) * 0.5, nd.array([3.0, -1, 4]), nd.array([1.0, -1, 2])]
    lrs, wds = [0.1, 0.2], [0.0, 0.5]
    plain, preloaded = arrays(), arrays()
    if momentum is None:
        expected = nd.multi_sgd_update(*plain, lrs=lrs, wds=wds, num_weights=2, rescale_grad=0.9)
        got = nd.preloaded_multi_sgd_update(*preloaded, nd.array(lrs), nd.array(wds), num_weights=2, rescale_grad=0.9)
    else:
        moms = [nd.ones((2,)), nd.ones((3,))]
        expected = nd.multi_sgd_mom_update(plain[0], plain[1], moms[0], plain[2], plain[3], moms[1], lrs=lrs,
                                           wds=wds, momentum=momentum, num_weights=2)
        moms = [nd.ones((2,)), nd.ones((3,))]
        got = nd.preloaded_multi_sgd_mom_update(preloaded[0], preloaded[1], moms[0], preloaded[2], preloaded[3],
                                                moms[1], nd.array(lrs), nd.array(wds), momentum=momentum,
                                                num_weights=2)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)


def test_group_adagrad_update_on_row_sparse_rows():
    grad = nd.array([[0, 0], [1, 2], [0, 0]]).tostype("row_sparse")
    history = nd.ones((3, 1))
    out = nd.contrib.group_adagrad_update(nd.ones((3, 2)), grad, history, lr=0.1)
    # MXNet 1.9.1
    np.testing.assert_allclose(out.asnumpy(), [[1, 1], [0.9465478, 0.8930957], [1, 1]], rtol=1e-6)
    np.testing.assert_allclose(history.asnumpy(), [[1], [3.5], [1]])
