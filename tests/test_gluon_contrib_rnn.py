"""gluon.contrib.rnn: convolutional cells (1x1 kernels equal the dense cell at each position),
LSTMPCell against a NumPy step, VariationalDropoutCell's per-sequence masks."""
import numpy as np

import mxtorch as mx
from mxtorch import gluon
from mxtorch.gluon.contrib import rnn as crnn


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def test_conv_lstm_with_1x1_kernels_is_the_dense_lstm_per_position():
    rng = np.random.RandomState(0)
    conv = crnn.Conv1DLSTMCell((3, 5), 4, 1, 1, prefix="c_")
    dense = gluon.rnn.LSTMCell(4, input_size=3, prefix="d_")
    conv.initialize()
    dense.initialize()
    for name in ("i2h_weight", "h2h_weight", "i2h_bias", "h2h_bias"):
        value = rng.normal(size=dense.params.get(name).shape).astype(np.float32)
        dense.params.get(name).set_data(mx.nd.array(value))
        conv.params.get(name).set_data(mx.nd.array(value.reshape(conv.params.get(name).shape)))
    x = rng.normal(size=(2, 3, 3, 5)).astype(np.float32)           # (batch, time, channels, width)
    conv_out, _ = conv.unroll(3, mx.nd.array(x), merge_outputs=True)
    assert conv_out.shape == (2, 3, 4, 5)
    per_position = x.transpose(0, 3, 1, 2).reshape(10, 3, 3)        # every width position as a sample
    dense_out, _ = dense.unroll(3, mx.nd.array(per_position), merge_outputs=True)
    expected = dense_out.asnumpy().reshape(2, 5, 3, 4).transpose(0, 2, 3, 1)
    np.testing.assert_allclose(conv_out.asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_conv_cells_shapes_and_names():
    cell = crnn.Conv2DGRUCell((0, 6, 7), 5, 3, 3, i2h_pad=1, prefix="g_")
    cell.initialize()
    out, states = cell.unroll(2, mx.nd.ones((1, 2, 4, 6, 7)), merge_outputs=False)
    assert out[0].shape == (1, 5, 6, 7) and states[0].shape == (1, 5, 6, 7)
    assert cell.i2h_weight.shape == (15, 4, 3, 3) and cell.h2h_weight.shape == (15, 5, 3, 3)
    assert sorted(cell.collect_params()) == ["g_h2h_bias", "g_h2h_weight", "g_i2h_bias", "g_i2h_weight"]


def test_lstmp_step_matches_numpy():
    rng = np.random.RandomState(1)
    cell = crnn.LSTMPCell(6, 3, input_size=4, prefix="p_")
    cell.initialize(mx.init.Normal(0.5))
    params = {k[2:]: v.data().asnumpy() for k, v in cell.collect_params().items()}
    x = rng.normal(size=(2, 4)).astype(np.float32)
    r0, c0 = np.zeros((2, 3), np.float32), np.zeros((2, 6), np.float32)
    out, (r1, c1) = cell(mx.nd.array(x), [mx.nd.array(r0), mx.nd.array(c0)])
    gates = x @ params["i2h_weight"].T + params["i2h_bias"] + r0 @ params["h2h_weight"].T + params["h2h_bias"]
    i, f, g, o = np.split(gates, 4, axis=1)
    c = _sigmoid(f) * c0 + _sigmoid(i) * np.tanh(g)
    r = (_sigmoid(o) * np.tanh(c)) @ params["h2r_weight"].T
    np.testing.assert_allclose(c1.asnumpy(), c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), r, rtol=1e-5, atol=1e-6)


def test_variational_dropout_reuses_one_mask_per_sequence():
    cell = crnn.VariationalDropoutCell(gluon.rnn.RNNCell(50, prefix="v_"), drop_outputs=0.5)
    cell.initialize(mx.init.One())
    x = mx.nd.ones((4, 5, 3))
    with mx.autograd.record():
        first, _ = cell.unroll(5, x, merge_outputs=True)
        second, _ = cell.unroll(5, x, merge_outputs=True)
    zeros = first.asnumpy() == 0
    assert zeros.any() and not zeros.all()
    assert (zeros == zeros[:, :1, :]).all()                 # the same units dropped at every step
    assert ((second.asnumpy() == 0) != zeros).any()        # a new mask for the next sequence


def test_dynamic_unroll_masks_past_valid_length():
    cell = gluon.rnn.RNNCell(3, prefix="u_")
    cell.initialize(mx.init.Normal(0.5))
    x = mx.nd.array(np.random.RandomState(2).normal(size=(4, 2, 5)))
    outputs, states = crnn.dynamic_unroll(cell, x, cell.begin_state(2), layout="TNC",
                                          valid_length=mx.nd.array([2, 4]))
    full, _ = cell.unroll(4, x, begin_state=cell.begin_state(2), layout="TNC", merge_outputs=True)
    assert outputs.shape == (4, 2, 3)
    np.testing.assert_array_equal(outputs.asnumpy()[2:, 0], 0)                 # past sequence 0's length
    np.testing.assert_allclose(outputs.asnumpy()[:, 1], full.asnumpy()[:, 1], rtol=1e-6)
    np.testing.assert_allclose(states[0].asnumpy()[0], full.asnumpy()[1, 0], rtol=1e-6)   # its last valid step
