"""gluon.contrib.nn: HybridConcurrent / Identity, PixelShuffle1D/2D/3D against NumPy
rearrangements (the sub-pixel layout of Shi et al. 2016, as MXNet 1.9.1 defines it)."""
import numpy as np

import mxtorch as mx
from mxtorch.gluon.contrib import nn as cnn
from mxtorch.gluon import nn


def test_concurrent_concatenates_children_with_mxnet_prefixes():
    block = cnn.HybridConcurrent(axis=1)
    assert block.prefix.startswith("hybridconcurrent")
    with block.name_scope():
        block.add(cnn.Identity(), nn.Dense(3, flatten=False, in_units=2))
    block.initialize(mx.init.One())
    x = mx.nd.array([[1.0, 2.0]])
    for hybrid in (False, True):
        block.hybridize(hybrid)
        np.testing.assert_allclose(block(x).asnumpy(), [[1, 2, 3, 3, 3]])
    assert sorted(k[len(block.prefix):] for k in block.collect_params()) == ["dense0_bias", "dense0_weight"]


def test_pixel_shuffle_layouts():
    x = np.arange(2 * 12 * 2 * 3, dtype=np.float32).reshape(2, 12, 2, 3)
    expected = x.reshape(2, 2, 2, 3, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 4, 9)
    np.testing.assert_array_equal(cnn.PixelShuffle2D((2, 3))(mx.nd.array(x)).asnumpy(), expected)
    y = np.arange(8, dtype=np.float32).reshape(1, 4, 2)
    np.testing.assert_array_equal(cnn.PixelShuffle1D(2)(mx.nd.array(y)).asnumpy(),
                                  y.reshape(1, 2, 2, 2).transpose(0, 1, 3, 2).reshape(1, 2, 4))
    z = np.arange(16 * 8, dtype=np.float32).reshape(1, 16, 2, 2, 2)
    expected = z.reshape(1, 2, 2, 2, 2, 2, 2, 2).transpose(0, 1, 5, 2, 6, 3, 7, 4).reshape(1, 2, 4, 4, 4)
    np.testing.assert_array_equal(cnn.PixelShuffle3D(2)(mx.nd.array(z)).asnumpy(), expected)


def test_deformable_convolution_matches_mxnet():
    import os
    from mxtorch.gluon.contrib.cnn import DeformableConvolution
    ref = np.load(os.path.join(os.path.dirname(__file__), "data", "deformable_conv_ref.npz"))
    block = DeformableConvolution(4, kernel_size=(3, 3), padding=(1, 1))
    assert block.prefix.startswith("deformable_conv")
    block.initialize()
    x = mx.nd.array(ref["x"])
    block(x)                                    # deferred shapes from the first call
    for name, param in block.collect_params().items():
        param.set_data(mx.nd.array(ref[name[len(block.prefix):]]))
    for hybrid in (False, True):
        block.hybridize(hybrid)
        np.testing.assert_allclose(block(x).asnumpy(), ref["y"], rtol=1e-4, atol=1e-5)


def test_modulated_deformable_convolution_matches_mxnet():
    # tools/gen_modulated_deformable_ref.py: MXNet 1.9.1's layer with seeded parameters
    import os
    from mxtorch.gluon.contrib.cnn import ModulatedDeformableConvolution
    ref = np.load(os.path.join(os.path.dirname(__file__), "data", "gluon", "modulated_deformable_conv.npz"))
    net = ModulatedDeformableConvolution(3, kernel_size=3, padding=1, in_channels=2, prefix="m_")
    net.initialize()
    params = net.collect_params()
    assert sorted(params.keys()) == ["m_deformable_conv_bias", "m_deformable_conv_weight", "m_offset_bias",
                                     "m_offset_weight"]
    for name in params.keys():
        params[name].set_data(mx.nd.array(ref[name]))
    net.hybridize()
    np.testing.assert_allclose(net(mx.nd.array(ref["x"])).asnumpy(), ref["y"], rtol=1e-5, atol=1e-5)
