"""Lazy updates on row_sparse gradients (rows the gradient does not store are left alone) for
SGD, Adam and Ftrl; two steps each, values from MXNet 1.9.1 (tools/gen_lazy_update.py ->
tests/data/lazy_update/steps.json)."""
import json
import os

import numpy as np
import pytest

import mxtorch as mx

with open(os.path.join(os.path.dirname(__file__), "data", "lazy_update", "steps.json")) as _fh:
    REF = json.load(_fh)


@pytest.mark.parametrize("case", sorted(REF["cases"]))
def test_two_steps_on_a_row_sparse_gradient_match_mxnet(case):
    entry = REF["cases"][case]
    w_stype = case.rsplit("/", 1)[1]
    opt = mx.optimizer.create(entry["optimizer"], **entry["kwargs"])
    weight = mx.nd.array(REF["weight"]).tostype(w_stype)
    state = opt.create_state(0, weight)
    for grad in REF["grads"]:
        opt.update(0, weight, mx.nd.array(grad).tostype("row_sparse"), state)
    np.testing.assert_allclose(weight.asnumpy(), np.array(entry["weight"]), rtol=1e-5, atol=1e-6)
    if "/lazy/" in case and (entry["optimizer"] != "ftrl" or w_stype == "row_sparse"):
        # rows 1 and 3 hold no gradient: untouched by weight decay
        np.testing.assert_array_equal(weight.asnumpy()[[1, 3]], np.array(REF["weight"], np.float32)[[1, 3]])


def test_dense_gradient_updates_every_row_even_when_lazy():
    opt = mx.optimizer.SGD(learning_rate=0.1, wd=0.5, lazy_update=True)
    weight = mx.nd.ones((3, 2))
    opt.update(0, weight, mx.nd.array([[1, 1], [0, 0], [1, 1]]), None)
    # every row decays: 1 - 0.1 * 0.5 = 0.95, minus 0.1 * grad
    np.testing.assert_allclose(weight.asnumpy(), [[0.85, 0.85], [0.95, 0.95], [0.85, 0.85]], rtol=1e-6)
