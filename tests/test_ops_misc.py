"""im2col, col2im, Correlation, the random_pdf_* densities, multi_sum_sq, all_finite,
multi_all_finite, reset_arrays and IdentityAttachKLSparseReg.

- reference cases recorded with MXNet 1.9.1 (tests/data/ops_misc, made by
  tools/gen_ops_misc.py): outputs, input gradients and auxiliary states after backward;
- independent checks where MXNet 1.9.1 itself fails (1-D and 3-D sliding blocks), hidden
  outputs, aliases, shape inference and its errors.
"""
import json
import os

import numpy as np
import pytest
import torch

import mxtorch as mx
from mxtorch.base import MXNetError
from mxtorch.ops import get_operator
from op_checks import bind, numeric_gradient_check, symbol_for

DATA = os.path.join(os.path.dirname(__file__), "data", "ops_misc")
with open(os.path.join(DATA, "index.json")) as handle:
    REFERENCE = json.load(handle)["cases"]


@pytest.mark.parametrize("case", REFERENCE, ids=[c["name"] for c in REFERENCE])
def test_reference_case(case):
    arrays = np.load(os.path.join(DATA, case["name"] + ".npz"))
    values = {n: arrays["arg:" + n] for n in case["inputs"]}
    symbol = symbol_for(case["op"], case["inputs"], case["attrs"])
    assert symbol.list_arguments() == case["inputs"]
    assert symbol.list_outputs() == case["outputs"]
    assert symbol.list_auxiliary_states() == ["op_" + n for n in case["aux"]]
    executor = bind(symbol, values, case["grad_req"])
    for n in case["aux"]:
        executor.aux_dict["op_" + n][:] = arrays["aux:" + n]
    outputs = executor.forward(is_train=case["backward"])
    assert len(outputs) == len(case["outputs"])
    for i, output in enumerate(outputs):
        expected = arrays[f"out:{i}"]
        assert output.shape == expected.shape
        assert output.dtype == expected.dtype
        np.testing.assert_allclose(output.asnumpy(), expected, rtol=2e-5, atol=1e-6, err_msg=f"output {i}")
    if case["backward"]:
        executor.backward([mx.nd.array(arrays[f"head:{i}"]) for i in range(len(outputs))])
        for n in case["inputs"]:
            np.testing.assert_allclose(executor.grad_dict[n].asnumpy(), arrays["grad:" + n], rtol=1e-4, atol=1e-5,
                                       err_msg=f"gradient of {n}")
    for n in case["aux"]:
        np.testing.assert_allclose(executor.aux_dict["op_" + n].asnumpy(), arrays["aux_after:" + n], rtol=1e-6,
                                   err_msg=f"auxiliary state {n}")


# -- sliding blocks of every rank -------------------------------------------------------------------
RNG = np.random.RandomState(5)


def test_im2col_2d_equals_torch_unfold():
    data = RNG.randn(2, 3, 6, 5).astype(np.float32)
    result = mx.nd.im2col(mx.nd.array(data), kernel=(3, 2), stride=(2, 1), dilate=(1, 2), pad=(1, 1)).asnumpy()
    expected = torch.nn.functional.unfold(torch.from_numpy(data), (3, 2), dilation=(1, 2), padding=(1, 1),
                                          stride=(2, 1)).numpy()
    np.testing.assert_array_equal(result, expected)


def test_im2col_1d_is_2d_with_a_unit_axis():
    data = RNG.randn(2, 3, 9).astype(np.float32)
    one = mx.nd.im2col(mx.nd.array(data), kernel=(3,), stride=(2,), dilate=(2,), pad=(1,)).asnumpy()
    two = mx.nd.im2col(mx.nd.array(data[:, :, None, :]), kernel=(1, 3), stride=(1, 2), dilate=(1, 2),
                       pad=(0, 1)).asnumpy()
    assert one.shape == (2, 9, 4)
    np.testing.assert_array_equal(one, two)


def test_im2col_3d_by_loops_and_col2im_is_its_adjoint():
    data = RNG.randn(1, 2, 3, 4, 3)
    kernel, stride, dilate, pad = (2, 2, 2), (1, 2, 1), (1, 1, 2), (0, 1, 1)
    columns = mx.nd.im2col(mx.nd.array(data, dtype=np.float64), kernel=kernel, stride=stride, dilate=dilate,
                           pad=pad).asnumpy()
    padded = np.pad(data, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    out = [(padded.shape[2 + i] - dilate[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i in range(3)]
    expected = np.zeros((1, 2 * 8, int(np.prod(out))))
    for c in range(2):
        for k, (a, b, e) in enumerate(np.ndindex(*kernel)):
            for block, (x, y, z) in enumerate(np.ndindex(*out)):
                expected[0, c * 8 + k, block] = padded[0, c, x * stride[0] + a * dilate[0],
                                                       y * stride[1] + b * dilate[1], z * stride[2] + e * dilate[2]]
    np.testing.assert_array_equal(columns, expected)
    # <im2col(x), y> == <x, col2im(y)>
    other = RNG.randn(*columns.shape)
    back = mx.nd.col2im(mx.nd.array(other, dtype=np.float64), output_size=(3, 4, 3), kernel=kernel, stride=stride,
                        dilate=dilate, pad=pad).asnumpy()
    assert back.shape == data.shape
    np.testing.assert_allclose((columns * other).sum(), (data * back).sum(), rtol=1e-12)


def test_col2im_1d_gradient_by_finite_differences():
    numeric_gradient_check("col2im", {"data": RNG.randn(1, 6, 4)},
                           {"output_size": "(7,)", "kernel": "(3,)", "stride": "(2,)", "pad": "(1,)"})


def test_sliding_block_shapes_and_errors():
    symbol = mx.sym.im2col(mx.sym.var("data"), kernel=(2, 2, 2))
    assert symbol.infer_shape(data=(2, 3, 3, 4, 5))[1] == [(2, 24, 24)]
    symbol = mx.sym.col2im(mx.sym.var("data"), output_size=(5, 6), kernel=(2, 3))
    assert symbol.infer_shape(data=(2, 18, 16))[1] == [(2, 3, 5, 6)]
    with pytest.raises(MXNetError, match="axis 2 must be the 16 blocks"):
        symbol.infer_shape(data=(2, 18, 12))
    with pytest.raises(MXNetError, match="multiple of prod"):
        symbol.infer_shape(data=(2, 17, 16))
    with pytest.raises(MXNetError, match="must have 4 dimensions"):
        mx.sym.im2col(mx.sym.var("data"), kernel=(2, 2)).infer_shape(data=(2, 3, 4))
    with pytest.raises(MXNetError, match="larger than the padded input"):
        mx.nd.im2col(mx.nd.ones((1, 1, 2, 2)), kernel=(3, 3))


# -- Correlation ------------------------------------------------------------------------------------
def test_correlation_hidden_outputs_and_loops():
    a, b = RNG.randn(1, 2, 5, 6).astype(np.float32), RNG.randn(1, 2, 5, 6).astype(np.float32)
    attrs = dict(kernel_size=3, max_displacement=2, stride1=1, stride2=2, pad_size=2)
    symbol = mx.sym.Correlation(mx.sym.var("a"), mx.sym.var("b"), name="corr", **attrs)
    assert symbol.list_outputs() == ["corr_output"]
    _, outs, _ = symbol.infer_shape(a=a.shape, b=b.shape)
    assert outs == [(1, 9, 3, 4)]
    op = get_operator("Correlation")({k: str(v) for k, v in attrs.items()})
    assert op.outputs() == ["output", "tmp1", "tmp2"]
    results = op.forward(False, [torch.from_numpy(a), torch.from_numpy(b)], [])
    assert [tuple(r.shape) for r in results] == [(1, 9, 3, 4), (1, 9, 10, 2), (1, 9, 10, 2)]
    padded = np.pad(a, [(0, 0), (0, 0), (2, 2), (2, 2)])
    np.testing.assert_array_equal(results[1].numpy(), padded.transpose(0, 2, 3, 1))
    padded_b = np.pad(b, [(0, 0), (0, 0), (2, 2), (2, 2)])
    expected = np.zeros((1, 9, 3, 4), np.float64)
    for channel, (p, o) in enumerate(np.ndindex(3, 3)):
        dy, dx = (p - 1) * 2, (o - 1) * 2
        for y in range(3):
            for x in range(4):
                y1, x1 = y + 2, x + 2
                patch1 = padded[0, :, y1:y1 + 3, x1:x1 + 3]
                patch2 = padded_b[0, :, y1 + dy:y1 + dy + 3, x1 + dx:x1 + dx + 3]
                expected[0, channel, y, x] = (patch1 * patch2).sum() / (9 * 2)
    np.testing.assert_allclose(results[0].numpy(), expected, rtol=1e-5, atol=1e-6)


def test_correlation_errors():
    with pytest.raises(MXNetError, match="kernel_size"):
        mx.sym.Correlation(mx.sym.var("a"), mx.sym.var("b"), kernel_size=2)
    with pytest.raises(MXNetError, match="too small"):
        mx.nd.Correlation(mx.nd.ones((1, 1, 4, 4)), mx.nd.ones((1, 1, 4, 4)), max_displacement=3)
    with pytest.raises(MXNetError, match="data2"):
        mx.nd.Correlation(mx.nd.ones((1, 1, 4, 4)), mx.nd.ones((1, 1, 4, 5)))


# -- densities -------------------------------------------------------------------------------------
def test_density_aliases_namespace_and_formula():
    sample = mx.nd.array([[0.5, 1.5, 2.0]])
    gamma = mx.nd.random_pdf_gamma(sample, mx.nd.array([2.0]), mx.nd.array([3.0])).asnumpy()
    x = np.array([0.5, 1.5, 2.0])
    np.testing.assert_allclose(gamma[0], 9 * x * np.exp(-3 * x), rtol=1e-6)     # beta is a rate here
    same = mx.nd._random_pdf_gamma(sample, mx.nd.array([2.0]), mx.nd.array([3.0]), is_log=True).asnumpy()
    np.testing.assert_allclose(same, np.log(gamma), rtol=1e-5, atol=1e-7)


def test_density_shapes_and_errors():
    symbol = mx.sym.random_pdf_dirichlet(mx.sym.var("x"), mx.sym.var("alpha"))
    assert symbol.list_arguments() == ["x", "alpha"]
    assert symbol.infer_shape(x=(2, 3, 5, 4), alpha=(2, 3, 4))[1] == [(2, 3, 5)]
    normal = mx.sym.random_pdf_normal(mx.sym.var("x"), mx.sym.var("m"), mx.sym.var("s"))
    assert normal.infer_shape(x=(2, 3, 4), m=(2,), s=(2,))[1] == [(2, 3, 4)]
    with pytest.raises(MXNetError, match="does not fit"):
        mx.nd.random_pdf_normal(mx.nd.ones((3, 4)), mx.nd.zeros((2,)), mx.nd.ones((2,)))
    with pytest.raises(MXNetError, match="sigma"):
        mx.nd.random_pdf_normal(mx.nd.ones((2, 4)), mx.nd.zeros((2,)), mx.nd.ones((3,)))


# -- gradient helpers --------------------------------------------------------------------------------
def test_finite_checks_and_sum_of_squares_imperatively():
    a, b = mx.nd.array([[1, 2], [3, 4]]), mx.nd.array([5, 6])
    np.testing.assert_array_equal(mx.nd.multi_sum_sq(a, b, num_arrays=2).asnumpy(), [30, 61])
    half = mx.nd.multi_sum_sq(mx.nd.array([300, 400], dtype=np.float16), num_arrays=1)
    assert half.dtype == np.float32 and half.asscalar() == 250000       # float16 would overflow
    assert mx.nd.all_finite(mx.nd.array([1, np.inf])).asnumpy().tolist() == [0.0]
    assert mx.nd.all_finite(a).asnumpy().tolist() == [1.0]
    assert mx.nd.multi_all_finite(a, mx.nd.array([np.nan]), num_arrays=2).asnumpy().tolist() == [0.0]
    assert mx.nd.multi_all_finite(a, b, num_arrays=2).asnumpy().tolist() == [1.0]
    symbol = mx.sym.multi_sum_sq(mx.sym.var("a"), mx.sym.var("b"), mx.sym.var("c"), num_arrays=3)
    arg_types, out_types, _ = symbol.infer_type(a=np.float16, b=np.float16, c=np.float16)
    assert out_types == [np.float32]
    assert symbol.infer_shape(a=(2, 3), b=(4,), c=(1,))[1] == [(3,)]


def test_reset_arrays_zeroes_in_place():
    a, b = mx.nd.array([[1, 2], [3, 4]]), mx.nd.array([5, 6])
    result = mx.nd.reset_arrays(a, b, num_arrays=2)
    assert result == []
    assert not a.asnumpy().any() and not b.asnumpy().any()


# -- KL sparseness -----------------------------------------------------------------------------------
def test_kl_sparse_reg_repeated_backward_keeps_averaging():
    data = np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.9]], np.float32)
    executor = bind(mx.sym.IdentityAttachKLSparseReg(mx.sym.var("data"), name="op", penalty=0.5,
                                                     sparseness_target=0.2, momentum=0.8), {"data": data})
    executor.aux_dict["op_moving_avg"][:] = np.array([0.5, 0.3], np.float32)
    average = np.array([0.5, 0.3])
    for _ in range(2):
        executor.forward(is_train=True)
        np.testing.assert_allclose(executor.aux_dict["op_moving_avg"].asnumpy(), average, rtol=1e-6)
        executor.backward(mx.nd.ones((3, 2)))
        average = 0.8 * average + 0.2 * data.mean(0)
        np.testing.assert_allclose(executor.aux_dict["op_moving_avg"].asnumpy(), average, rtol=1e-6)
        expected = 1 + 0.5 * (-0.2 / average + 0.8 / (1 - average))
        np.testing.assert_allclose(executor.grad_dict["data"].asnumpy(), np.tile(expected, (3, 1)), rtol=1e-5)
    # values from MXNet 1.9.1 for the same run
    np.testing.assert_allclose(average, [0.428, 0.372], rtol=1e-6)
    np.testing.assert_allclose(executor.grad_dict["data"].asnumpy()[0], [1.4656558, 1.3681254], rtol=1e-6)
    assert mx.sym.IdentityAttachKLSparseReg(mx.sym.var("d")).infer_shape(d=(2, 3, 4, 5))[2] == [(3,)]


def test_a_num_outputs_attribute_counts_outputs_through_one_registry_rule():
    """SliceChannel, amp_multicast and the subgraph operators declare MXNet's ``num_outputs``
    attribute; the registry keeps its value as ``output_count`` and ``num_outputs()`` stays the
    method.  Output names and the JSON attribute as MXNet 1.9.1 writes them
    (``['sp_output0', 'sp_output1', 'sp_output2']``, ``{'num_outputs': '2'}``)."""
    from mxtorch.ops import registry
    counted = sorted({cls.name for cls in map(registry.get_operator, registry.list_operators())
                      if "num_outputs" in cls.schema})
    assert {"SliceChannel", "amp_multicast", "_foreach", "_while_loop", "_cond"} <= set(counted)
    for name in ("SliceChannel", "amp_multicast", "_cond"):
        op = get_operator(name)({"num_outputs": "3", **({"num_args": "3"} if name == "_cond" else {})})
        assert callable(op.num_outputs) and op.num_outputs() == 3 == op.output_count == len(op.outputs())
        assert op.attrs["num_outputs"] == "3"
    a, b = mx.sym.var("a"), mx.sym.var("b")
    assert mx.sym.split(a, num_outputs=3, name="sp").list_outputs() == ["sp_output0", "sp_output1", "sp_output2"]
    multicast = mx.sym.amp_multicast(a, b, num_outputs=2, name="mc")
    assert multicast.list_outputs() == ["mc_output0", "mc_output1"]
    assert json.loads(multicast.tojson())["nodes"][-1]["attrs"] == {"num_outputs": "2"}
    with pytest.raises(MXNetError, match="num_outputs"):
        get_operator("amp_multicast")({})


def test_col2im_takes_output_size_as_its_first_positional_attribute():
    # MXNet 1.9.1's signature is col2im(data, output_size, kernel, stride, dilate, pad)
    data = mx.nd.array(np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5))
    columns = mx.nd.im2col(data, (3, 3))
    positional = mx.nd.col2im(columns, (4, 5), (3, 3))
    keywords = mx.nd.col2im(columns, output_size=(4, 5), kernel=(3, 3))
    np.testing.assert_array_equal(positional.asnumpy(), keywords.asnumpy())
    symbol = mx.sym.col2im(mx.sym.var("data"), (4, 5), kernel=(3, 3))
    assert symbol.infer_shape(data=columns.shape)[1] == [(2, 3, 4, 5)]


def test_correlation_absolute_difference_gradient_at_ties_is_mxnets():
    # values from MXNet 1.9.1: equal values give +1 to data1 and -1 to data2
    a = mx.nd.array([[[[1., 2.], [3., 3.]]]])
    b = mx.nd.array([[[[1., 0.], [3., 5.]]]])
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Correlation(a, b, kernel_size=1, max_displacement=0, pad_size=0, is_multiply=False)
    y.backward()
    assert y.asnumpy().tolist() == [[[[0.0, 2.0], [0.0, 2.0]]]]
    assert a.grad.asnumpy().tolist() == [[[[1.0, 1.0], [1.0, -1.0]]]]
    assert b.grad.asnumpy().tolist() == [[[[-1.0, -1.0], [-1.0, 1.0]]]]
