"""Write tests/data/deformable_conv_ref.npz: MXNet 1.9.1's gluon.contrib.cnn.DeformableConvolution
parameters, input and output (random offsets, so the deformation is exercised).  Run with the
reference venv from outside the repository root:

    cd /tmp && /root/mxref/bin/python /path/to/tools/gen_deformable_conv_ref.py /path/to/tests/data/deformable_conv_ref.npz
"""
import sys

import numpy as np
import mxnet as mx
from mxnet.gluon.contrib.cnn import DeformableConvolution

mx.random.seed(0)
block = DeformableConvolution(4, kernel_size=(3, 3), padding=(1, 1), offset_weight_initializer=mx.init.Normal(0.1))
block.initialize(mx.init.Normal(0.5))
x = mx.nd.array(np.random.RandomState(0).uniform(size=(1, 2, 5, 5)))
y = block(x)
arrays = {k[len(block.prefix):]: v.data().asnumpy() for k, v in block.collect_params().items()}
arrays.update(x=x.asnumpy(), y=y.asnumpy())
np.savez(sys.argv[1], **arrays)
