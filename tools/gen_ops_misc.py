"""Reference cases for tests/test_ops_misc.py, made with real MXNet 1.9.1.

Run with the reference interpreter: ``~/mxref/bin/python tools/gen_ops_misc.py``.
Each case builds ``op(*variables, name='op', **attrs)``, binds it on the CPU (auxiliary
states set to the given values), runs ``forward(is_train=backward)`` and, for cases with
``backward``, ``backward(head gradients)``; it stores inputs, outputs, head gradients, input
gradients and the auxiliary states after backward in ``tests/data/ops_misc/<case>.npz`` and
lists op, attributes, input, auxiliary and output names and gradient requests in
``index.json``.
"""
import json
import os

import numpy as np
import mxnet as mx

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "ops_misc")
RANDOM = np.random.RandomState(20240921)
CASES = []


def normal(*shape, scale=1.0):
    return (RANDOM.randn(*shape) * scale).astype(np.float32)


def uniform(low, high, *shape):
    return RANDOM.uniform(low, high, shape).astype(np.float32)


def counts(high, *shape):
    return RANDOM.randint(0, high, shape).astype(np.float32)


def case(name, op, attrs, inputs, aux=(), backward=True):
    CASES.append(dict(name=name, op=op, attrs=attrs, inputs=inputs, aux=list(aux), backward=backward))


def simplex(*shape):
    values = RANDOM.uniform(0.1, 1.0, shape)
    return (values / values.sum(-1, keepdims=True)).astype(np.float32)


def build():
    # -- sliding blocks (MXNet 1.9.1's CPU kernels fail on 1-D and 3-D blocks: 2-D only here)
    case("im2col_2d", "im2col", {"kernel": "(2, 3)"}, [("data", normal(2, 3, 4, 5))])
    case("im2col_2d_geometry", "im2col", {"kernel": "(3, 2)", "stride": "(2, 1)", "dilate": "(1, 2)", "pad": "(1, 2)"},
         [("data", normal(1, 2, 6, 5))])
    case("col2im_2d", "col2im", {"output_size": "(4, 5)", "kernel": "(2, 3)"}, [("data", normal(2, 18, 9))])
    case("col2im_2d_geometry", "col2im",
         {"output_size": "(6, 5)", "kernel": "(3, 2)", "stride": "(2, 1)", "dilate": "(1, 2)", "pad": "(1, 2)"},
         [("data", normal(1, 12, 21))])
    case("Correlation_default", "Correlation", {}, [("data1", normal(2, 3, 5, 6)), ("data2", normal(2, 3, 5, 6))])
    case("Correlation_kernel3", "Correlation",
         {"kernel_size": "3", "max_displacement": "2", "stride1": "2", "stride2": "1", "pad_size": "2"},
         [("data1", normal(1, 2, 7, 8)), ("data2", normal(1, 2, 7, 8))])
    case("Correlation_stride2", "Correlation",
         {"kernel_size": "1", "max_displacement": "4", "stride1": "1", "stride2": "2", "pad_size": "4"},
         [("data1", normal(1, 3, 5, 6)), ("data2", normal(1, 3, 5, 6))])
    case("Correlation_subtract", "Correlation",
         {"kernel_size": "3", "max_displacement": "1", "stride1": "1", "stride2": "1", "pad_size": "1",
          "is_multiply": "False"},
         [("data1", normal(2, 2, 5, 4)), ("data2", normal(2, 2, 5, 4))])
    # -- densities: parameters of shape P, samples P + (m,)
    densities = [
        ("uniform", lambda: [("sample", uniform(-1, 2, 2, 3, 4)), ("low", uniform(-1.5, -1, 2, 3)),
                             ("high", uniform(2, 3, 2, 3))]),
        ("normal", lambda: [("sample", normal(2, 3, 4)), ("mu", normal(2, 3)), ("sigma", uniform(0.5, 2, 2, 3))]),
        ("gamma", lambda: [("sample", uniform(0.2, 3, 2, 3, 4)), ("alpha", uniform(0.5, 3, 2, 3)),
                           ("beta", uniform(0.5, 2, 2, 3))]),
        ("exponential", lambda: [("sample", uniform(0.1, 3, 3, 5)), ("lam", uniform(0.5, 2, 3))]),
        ("poisson", lambda: [("sample", counts(6, 3, 5)), ("lam", uniform(0.5, 4, 3))]),
        ("negative_binomial", lambda: [("sample", counts(6, 2, 3, 4)), ("k", uniform(1, 4, 2, 3)),
                                       ("p", uniform(0.2, 0.8, 2, 3))]),
        ("generalized_negative_binomial", lambda: [("sample", counts(6, 2, 3, 4)), ("mu", uniform(0.5, 4, 2, 3)),
                                                   ("alpha", uniform(0.2, 1.5, 2, 3))]),
        ("dirichlet", lambda: [("sample", simplex(2, 3, 4)), ("alpha", uniform(0.5, 3, 2, 4))]),
    ]
    for distribution, inputs in densities:
        for is_log in (False, True):
            case(f"pdf_{distribution}{'_log' if is_log else ''}", f"_random_pdf_{distribution}",
                 {"is_log": str(is_log)}, inputs())
    case("pdf_normal_extra_axes", "_random_pdf_normal", {}, [("sample", normal(2, 3, 2)), ("mu", normal(2)),
                                                             ("sigma", uniform(0.5, 2, 2))])
    # -- gradient helpers (no gradient in MXNet)
    case("multi_sum_sq", "multi_sum_sq", {"num_arrays": "3"},
         [("a", normal(3, 4)), ("b", normal(5)), ("c", normal(2, 2, 2))], backward=False)
    bad = normal(2, 3)
    bad[1, 2] = np.inf
    case("all_finite_inf", "all_finite", {}, [("data", bad)], backward=False)
    case("all_finite_true", "all_finite", {}, [("data", normal(4))], backward=False)
    nan = normal(3)
    nan[0] = np.nan
    case("multi_all_finite_nan", "multi_all_finite", {"num_arrays": "2"},
         [("a", normal(2, 2)), ("b", nan)], backward=False)
    case("multi_all_finite_true", "multi_all_finite", {"num_arrays": "3"},
         [("a", normal(2, 2)), ("b", normal(3)), ("c", normal(1))], backward=False)
    # -- identity with a KL sparseness penalty in backward
    case("IdentityAttachKLSparseReg", "IdentityAttachKLSparseReg",
         {"sparseness_target": "0.2", "penalty": "0.5", "momentum": "0.8"},
         [("data", uniform(0.05, 0.95, 4, 3))], aux=[("moving_avg", uniform(0.2, 0.6, 3))])
    case("IdentityAttachKLSparseReg_default", "IdentityAttachKLSparseReg", {},
         [("data", uniform(0.05, 0.95, 5, 2))], aux=[("moving_avg", uniform(0.1, 0.4, 2))])


def resolve(op):
    if op.startswith("_random_pdf_"):
        return getattr(mx.sym, op[1:])
    return getattr(mx.sym, op)


def run(spec):
    symbol = resolve(spec["op"])(*[mx.sym.Variable(n) for n, _ in spec["inputs"]], name="op", **spec["attrs"])
    names = symbol.list_arguments()
    aux_names = symbol.list_auxiliary_states()
    values = dict(spec["inputs"])
    assert names == [n for n, _ in spec["inputs"]], (names, spec["name"])
    assert aux_names == ["op_" + n for n, _ in spec["aux"]], (aux_names, spec["name"])
    grad_req = {n: ("write" if spec["backward"] else "null") for n in names}
    executor = symbol.simple_bind(mx.cpu(), grad_req=grad_req, type_dict={n: values[n].dtype for n in names},
                                  **{n: values[n].shape for n in names})
    for n in names:
        executor.arg_dict[n][:] = values[n]
    arrays = {f"arg:{n}": values[n] for n in names}
    for (short, value), n in zip(spec["aux"], aux_names):
        executor.aux_dict[n][:] = value
        arrays[f"aux:{short}"] = value
    outputs = executor.forward(is_train=spec["backward"])
    for i, output in enumerate(outputs):
        arrays[f"out:{i}"] = output.asnumpy()
    if spec["backward"]:
        heads = [normal(*o.shape).astype(o.dtype) for o in outputs]
        executor.backward([mx.nd.array(h, dtype=h.dtype) for h in heads])
        for i, head in enumerate(heads):
            arrays[f"head:{i}"] = head
        for n in names:
            arrays[f"grad:{n}"] = executor.grad_dict[n].asnumpy()
    for (short, _), n in zip(spec["aux"], aux_names):
        arrays[f"aux_after:{short}"] = executor.aux_dict[n].asnumpy()
    np.savez(os.path.join(OUT, spec["name"] + ".npz"), **arrays)
    return dict(name=spec["name"], op=spec["op"], attrs=spec["attrs"], inputs=names,
                aux=[short for short, _ in spec["aux"]], grad_req=grad_req, backward=spec["backward"],
                outputs=symbol.list_outputs())


def main():
    os.makedirs(OUT, exist_ok=True)
    build()
    index = [run(spec) for spec in CASES]
    with open(os.path.join(OUT, "index.json"), "w") as handle:
        json.dump({"mxnet_version": mx.__version__, "generator": "tools/gen_ops_misc.py", "cases": index},
                  handle, indent=1)
    print(f"wrote {len(index)} cases to {OUT}")


if __name__ == "__main__":
    main()
