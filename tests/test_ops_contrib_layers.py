"""contrib layers: BatchNormWithReLU (oneDNN-only in MXNet 1.9.1; checked as relu of BatchNorm),
RROIAlign and ModulatedDeformableConvolution (values printed by MXNet 1.9.1 for these inputs)."""
import numpy as np

import mxtorch as mx


def test_batch_norm_with_relu_is_relu_of_batch_norm():
    x = mx.nd.array([[1.0, -2], [3, 4]])
    params = [mx.nd.array([1.0, 0.5]), mx.nd.array([0.1, -0.2]), mx.nd.zeros((2,)), mx.nd.ones((2,))]
    fused = mx.nd.contrib.BatchNormWithReLU(x, *params, fix_gamma=False)
    plain = mx.nd.BatchNorm(x, *params, fix_gamma=False)
    np.testing.assert_allclose(fused.asnumpy(), np.maximum(plain.asnumpy(), 0))
    node = mx.sym.contrib.BatchNormWithReLU(mx.sym.var("x"), name="bn")
    assert node.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]


def test_rotated_roi_align():
    data = mx.nd.array(np.arange(2 * 2 * 6 * 7).reshape(2, 2, 6, 7).astype(np.float32) % 13 - 3)
    rois = mx.nd.array([[0, 3.0, 2.5, 4.0, 3.0, 30.0], [1, 2.0, 4.0, 5.0, 2.0, -45.0], [0, 6.5, 5.5, 3.0, 3.0, 90.0]])
    out = mx.nd.contrib.RROIAlign(data, rois, pooled_size=(2, 3), spatial_scale=1.0).asnumpy()
    assert out.shape == (3, 2, 2, 3)
    np.testing.assert_allclose(out[0, 0], [[3.06247, 2.66118, 5.67708], [3.32292, 6.33882, 2.44108]], rtol=1e-5)
    np.testing.assert_allclose(out[1, 1], [[5.36743, -0.52513, 3.88822], [3.47054, 3.22099, 4.82496]], rtol=1e-5)
    # the last box reaches past the map: samples beyond one pixel outside read 0
    np.testing.assert_allclose(out[2, 1], [[0.0, 1.6875, 4.6875], [0.0, 1.0, 2.5]], rtol=1e-6)


def test_modulated_deformable_convolution():
    rs = np.random.RandomState(0)
    data = mx.nd.array(rs.randn(1, 2, 3, 4).round(2))
    offset = mx.nd.array((rs.randn(1, 16, 2, 3) * 1.5).round(2))
    mask = mx.nd.array(rs.rand(1, 8, 2, 3).round(2))
    weight = mx.nd.array(rs.randn(2, 1, 2, 2).round(2))
    out = mx.nd.contrib.ModulatedDeformableConvolution(data, offset, mask, weight, mx.nd.array([0.5, -1.0]),
                                                       kernel=(2, 2), num_filter=2, num_group=2,
                                                       num_deformable_group=2)
    np.testing.assert_allclose(out.asnumpy(), [[
        [[0.5, -0.29734, 0.18832], [1.99621, 0.16783, 0.1271]],
        [[-0.73612, -0.98765, -0.2084], [-1.16804, -0.94431, -0.88458]]]], atol=1e-5)
    # with a mask of ones and zero offsets it is a plain grouped convolution
    zero, ones = mx.nd.zeros((1, 16, 2, 3)), mx.nd.ones((1, 8, 2, 3))
    plain = mx.nd.Convolution(data, weight, mx.nd.array([0.5, -1.0]), kernel=(2, 2), num_filter=2, num_group=2)
    same = mx.nd.contrib.ModulatedDeformableConvolution(data, zero, ones, weight, mx.nd.array([0.5, -1.0]),
                                                        kernel=(2, 2), num_filter=2, num_group=2,
                                                        num_deformable_group=2)
    np.testing.assert_allclose(same.asnumpy(), plain.asnumpy(), rtol=1e-5, atol=1e-6)
