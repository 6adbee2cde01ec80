"""The executor drops each intermediate value after its last reader (executor/plan.py, last_uses):
graph outputs are kept, the numbers are those of a numpy forward and backward, and a
monitor (which runs the node-by-node plan) still sees every value."""
import numpy as np

import mxtorch as mx


def _symbol():
    x = mx.sym.Variable("x")
    a = mx.sym.exp(x, name="a")
    b = mx.sym.broadcast_add(a, mx.sym.Variable("y"), name="b")
    c = mx.sym.elemwise_mul(b, b, name="c")
    return mx.sym.Group([mx.sym.sum(c, name="total"), a])


def test_release_keeps_outputs_and_drops_the_rest_after_the_last_reader():
    executor = _symbol().simple_bind(mx.cpu(), x=(2, 3), y=(2, 3))
    steps = executor._run_steps
    released = {slot: position for position, slots in enumerate(executor._release) for slot in slots}
    for slot in executor._output_slots:
        assert slot not in released
    by_name = {step.node.name: position for position, step in enumerate(steps)}
    b_slot = steps[by_name["b"]].outputs[0]
    assert released[b_slot] == by_name["c"]          # b's only reader is c


def test_numbers_and_gradients_with_release():
    rng = np.random.RandomState(0)
    x, y = rng.normal(size=(2, 3)).astype(np.float32), rng.normal(size=(2, 3)).astype(np.float32)
    executor = _symbol().simple_bind(mx.cpu(), x=(2, 3), y=(2, 3))
    executor.arg_dict["x"][:] = x
    executor.arg_dict["y"][:] = y
    total, a = executor.forward(is_train=True)
    executor.backward([mx.nd.ones((1,)), mx.nd.zeros((2, 3))])
    b = np.exp(x) + y
    np.testing.assert_allclose(total.asnumpy(), [(b * b).sum()], rtol=1e-5)
    np.testing.assert_allclose(a.asnumpy(), np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(executor.grad_dict["x"].asnumpy(), 2 * b * np.exp(x), rtol=1e-5)
    np.testing.assert_allclose(executor.grad_dict["y"].asnumpy(), 2 * b, rtol=1e-5)
    seen = {}
    executor.set_monitor_callback(lambda name, array: seen.setdefault(name, array.asnumpy()))
    executor.forward(is_train=True)
    np.testing.assert_allclose(seen["b_output"], b, rtol=1e-6)
