"""Helpers shared by the operator tests (``tests/test_ops_detection.py``,
``tests/test_ops_layers.py``): build a one-operator symbol, bind it with values, and
check its executor gradients against central finite differences."""
import numpy as np

import mxtorch as mx


def symbol_for(op, names, attrs, name="op"):
    return getattr(mx.sym, op)(*[mx.sym.var(n) for n in names], name=name, **attrs)


def bind(symbol, values, grad_req="write"):
    shapes = {n: v.shape for n, v in values.items()}
    types = {n: v.dtype for n, v in values.items()}
    executor = symbol.simple_bind(mx.cpu(), grad_req=grad_req, type_dict=types, **shapes)
    for n, v in values.items():
        executor.arg_dict[n][:] = v
    return executor


def numeric_gradient_check(op, inputs, attrs, wrt=None, eps=1e-6, is_train=True, rtol=1e-5, atol=1e-7, seed=0):
    """Executor gradients (float64) against central differences of sum(head * outputs)."""
    rng = np.random.RandomState(seed)
    names = list(inputs)
    values = {n: np.asarray(v, np.float64) for n, v in inputs.items()}
    wrt = names if wrt is None else wrt
    symbol = symbol_for(op, names, attrs)
    executor = bind(symbol, values, {n: ("write" if n in wrt else "null") for n in names})
    outputs = [o.asnumpy() for o in executor.forward(is_train=is_train)]
    heads = [rng.randn(*o.shape) for o in outputs]
    executor.backward([mx.nd.array(h, dtype=np.float64) for h in heads])
    analytic = {n: executor.grad_dict[n].asnumpy() for n in wrt}

    def objective():
        results = executor.forward(is_train=is_train)
        return sum(float((r.asnumpy() * h).sum()) for r, h in zip(results, heads))

    for n in wrt:
        base = values[n]
        numeric = np.zeros_like(base)
        for index in np.ndindex(base.shape):
            for sign in (1, -1):
                shifted = base.copy()
                shifted[index] += sign * eps
                executor.arg_dict[n][:] = shifted
                numeric[index] += sign * objective() / (2 * eps)
        executor.arg_dict[n][:] = base
        np.testing.assert_allclose(analytic[n], numeric, rtol=rtol, atol=atol, err_msg=f"{op} gradient of {n}")
    return outputs
