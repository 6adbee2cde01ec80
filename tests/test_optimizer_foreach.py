"""SGD's multi-tensor (foreach) step gives the numbers of its per-parameter step."""
import numpy as np
import pytest

import mxtorch as mx


def _run(aggregate, momentum, wd, clip):
    rng = np.random.RandomState(0)
    shapes = [(3, 4), (4,), (2, 3, 2), (5,), (1,)]
    weights = [mx.nd.array(rng.normal(size=s)) for s in shapes]
    optimizer = mx.optimizer.SGD(learning_rate=0.1, momentum=momentum, wd=wd, rescale_grad=0.5,
                                 clip_gradient=clip, param_idx2name={i: f"p{i}_weight" for i in range(5)})
    optimizer.set_lr_mult({"p1_weight": 2.0})
    optimizer.set_wd_mult({"p3_weight": 0.0})
    updater = mx.optimizer.get_updater(optimizer)
    for step in range(3):
        grads = [mx.nd.array(rng.normal(size=s)) for s in shapes]
        if aggregate:
            updater(list(range(5)), grads, weights)
        else:
            for i in range(5):
                updater(i, grads[i], weights[i])
    return [w.asnumpy() for w in weights]


@pytest.mark.parametrize("momentum,wd,clip", [(0.9, 1e-2, None), (0.0, 1e-2, None), (0.9, 0.0, 0.3)])
def test_sgd_aggregated_update_matches_per_parameter(momentum, wd, clip):
    together = _run(True, momentum, wd, clip)
    alone = _run(False, momentum, wd, clip)
    for a, b in zip(together, alone):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_sgd_foreach_step_formula():
    """One momentum step against MXNet's sgd_mom_update formula written out in NumPy."""
    w0, g = np.array([1.0, -2.0], np.float32), np.array([0.5, 0.25], np.float32)
    w1, g1 = np.array([3.0], np.float32), np.array([-1.0], np.float32)
    optimizer = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=0.01, rescale_grad=2.0)
    updater = mx.optimizer.get_updater(optimizer)
    weights = [mx.nd.array(w0), mx.nd.array(w1)]
    for _ in range(2):
        updater([0, 1], [mx.nd.array(g), mx.nd.array(g1)], weights)
    for start, grad, got in ((w0, g, weights[0]), (w1, g1, weights[1])):
        w, mom = start.copy(), np.zeros_like(start)
        for _ in range(2):
            mom = 0.9 * mom - 0.1 * (2.0 * grad + 0.01 * w)
            w = w + mom
        np.testing.assert_allclose(got.asnumpy(), w, rtol=1e-6)
