"""Write tests/data/gluon/modulated_deformable_conv.npz: MXNet 1.9.1's
gluon.contrib.cnn.ModulatedDeformableConvolution(3, kernel_size=3, padding=1, in_channels=2)
forward on a seeded (1, 2, 4, 5) input with seeded parameters (MXNet's CPU build has no backward).

    cd /tmp && ~/mxref/bin/python /path/to/tools/gen_modulated_deformable_ref.py
"""
import os

import mxnet as mx
import numpy as np
from mxnet.gluon.contrib.cnn import ModulatedDeformableConvolution

rng = np.random.RandomState(0)
net = ModulatedDeformableConvolution(3, kernel_size=3, padding=1, in_channels=2, prefix="m_")
net.initialize()
x = mx.nd.array(rng.randn(1, 2, 4, 5))
net(x)
params = net.collect_params()
for name in sorted(params.keys()):
    params[name].set_data(mx.nd.array(rng.randn(*params[name].shape) * 0.3))
net.hybridize()
y = net(x)
target = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data", "gluon",
                      "modulated_deformable_conv.npz")
np.savez(target, y=y.asnumpy(), x=x.asnumpy(), **{k: v.data().asnumpy() for k, v in params.items()})
print("wrote", target)
