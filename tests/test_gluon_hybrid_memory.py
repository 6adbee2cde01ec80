"""Hybridized Gluon blocks: memory held after a call, layout parity with the imperative run,
channel-last pooling and the op hook's names (MXNet 1.9.1's CachedOp behaviour)."""
import gc
import weakref

import numpy as np
import pytest

import mxtorch as mx
from mxtorch import gluon
from mxtorch.gluon import nn


class _SliceThen(gluon.HybridBlock):
    def __init__(self, layer, begin, end, **kwargs):
        super().__init__(**kwargs)
        self.begin, self.end = begin, end
        with self.name_scope():
            self.layer = layer

    def hybrid_forward(self, F, x):
        return self.layer(x.slice(begin=self.begin, end=self.end))


def test_array_with_gradient_is_freed_without_the_garbage_collector():
    gc.disable()
    try:
        x = mx.nd.ones((3, 4))
        x.attach_grad()
        with mx.autograd.record():
            y = (x * 2).sum()
        y.backward()
        ref = weakref.ref(x)
        del x, y
        assert ref() is None
    finally:
        gc.enable()


def test_hybridized_block_keeps_no_reference_to_its_inputs():
    net = _SliceThen(nn.MaxPool2D(), (0, 0, 0, 0), (2, 2, 4, 4))
    net.hybridize()
    gc.disable()
    try:
        x = mx.nd.random.uniform(shape=(3, 3, 6, 6))
        x.attach_grad()
        with mx.autograd.record():
            out = net(x)
        out.backward()
        ref = weakref.ref(x)
        del x, out
        assert ref() is None
    finally:
        gc.enable()


def test_hybridized_slice_then_batchnorm_matches_imperative_bitwise():
    # the convolution's output is a channels-last tensor; the slice of it must reach BatchNorm
    # laid out as in the imperative run (which copies it), or the rounding differs
    class Net(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.conv = nn.Conv2D(8, (1, 1))
                self.bn = nn.BatchNorm()

        def hybrid_forward(self, F, x):
            return self.bn(self.conv(x).slice(begin=(0, 0, 0, 0), end=(2, 4, 5, 5)))

    mx.random.seed(3)
    x = mx.nd.random.uniform(shape=(3, 8, 9, 9))
    x_hybrid = x.copy()
    x.attach_grad()
    x_hybrid.attach_grad()
    net = Net()
    net.initialize()
    with mx.autograd.record():
        out1 = net(x)
    out1.backward()
    net.hybridize()
    with mx.autograd.record():
        out2 = net(x_hybrid)
    out2.backward()
    np.testing.assert_array_equal(out1.asnumpy(), out2.asnumpy())
    np.testing.assert_array_equal(x.grad.asnumpy(), x_hybrid.grad.asnumpy())


@pytest.mark.parametrize("layer_args", [
    dict(pool_type="max", kernel=(3, 2), stride=(2, 1), pad=(1, 0)),
    dict(pool_type="avg", kernel=(2, 2), stride=(2, 2), pad=(1, 1)),
    dict(pool_type="max", global_pool=True, kernel=(1, 1)),
])
def test_pooling_channel_last_layout_is_the_transposed_channel_first_result(layer_args):
    data = mx.nd.random.uniform(shape=(2, 5, 6, 3))          # NHWC
    out = mx.nd.Pooling(data, layout="NHWC", **layer_args)
    expected = mx.nd.Pooling(data.transpose((0, 3, 1, 2)), **layer_args).transpose((0, 2, 3, 1))
    assert out.shape == expected.shape
    np.testing.assert_allclose(out.asnumpy(), expected.asnumpy(), rtol=1e-6)
    sym = mx.sym.Pooling(mx.sym.var("data"), layout="NHWC", **layer_args)
    _, out_shapes, _ = sym.infer_shape(data=data.shape)
    assert out_shapes[0] == expected.shape


def test_pooling_1d_channel_last_gradient():
    data = mx.nd.array(np.arange(12, dtype=np.float32).reshape(1, 6, 2))      # NWC
    data.attach_grad()
    with mx.autograd.record():
        out = mx.nd.Pooling(data, kernel=(2,), stride=(2,), pool_type="max", layout="NWC")
    out.backward()
    # windows over rows (0,1), (2,3), (4,5) per channel: the larger row wins
    np.testing.assert_array_equal(out.asnumpy()[0], [[2, 3], [6, 7], [10, 11]])
    np.testing.assert_array_equal(data.grad.asnumpy()[0], [[0, 0], [1, 1], [0, 0], [1, 1], [0, 0], [1, 1]])
    with pytest.raises(mx.base.MXNetError, match="layout"):
        mx.nd.Pooling(data, kernel=(2, 2), layout="NWC")


def test_op_hook_reports_operator_inputs_and_outputs_only():
    seen = []
    model = nn.HybridSequential(prefix="pool_")
    with model.name_scope():
        model.add(nn.AvgPool1D())
    model.initialize()
    model.hybridize()
    model.register_op_hook(lambda name, op, array: seen.append((name, op)), monitor_all=True)
    model(mx.nd.ones((2, 3, 4)))
    # the graph's variable 'data' is not reported under its own name (MXNet's CachedOp hook)
    assert seen == [("pool_pool0_fwd_data", "Pooling"), ("pool_pool0_fwd_output", "Pooling")]


def test_bidirectional_unroll_with_valid_length_merges_like_its_cells():
    cell = gluon.rnn.BidirectionalCell(gluon.rnn.RNNCell(3), gluon.rnn.RNNCell(3))
    cell.collect_params().initialize()
    x = mx.nd.random.uniform(shape=(5, 4, 2))                              # TNC
    outs, _ = cell.unroll(5, x, layout="TNC", valid_length=mx.nd.array([3, 5, 2, 4]))
    # a cell unrolled with valid_length merges its outputs; MXNet's BidirectionalCell follows
    assert isinstance(outs, mx.nd.NDArray) and outs.shape == (5, 4, 6)
    merged, _ = cell.unroll(5, x, layout="TNC", merge_outputs=True)
    # sequence 1 has full length: its outputs equal those of the unmasked unroll
    np.testing.assert_allclose(outs.asnumpy()[:, 1], merged.asnumpy()[:, 1], rtol=1e-6)
    # padded steps of sequence 2 (length 2) are zero
    np.testing.assert_array_equal(outs.asnumpy()[2:, 2], 0)
