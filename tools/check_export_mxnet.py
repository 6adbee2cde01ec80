"""Load an exported model (PREFIX-symbol.json, PREFIX-0000.params) with real MXNet 1.9.1's
mx.mod.Module and compare its outputs on PREFIX-check.npz's inputs with the outputs mxtorch
recorded there.  Run with the reference venv from outside the repository root:

    cd /tmp && /root/mxref/bin/python /path/to/tools/check_export_mxnet.py /path/to/runs/resnet18-digits

Prints the largest absolute difference and exits non-zero above --tolerance (1e-5).
"""
import argparse
import sys

import numpy as np
import mxnet as mx

parser = argparse.ArgumentParser()
parser.add_argument("prefix")
parser.add_argument("--epoch", type=int, default=0)
parser.add_argument("--tolerance", type=float, default=1e-5)
args = parser.parse_args()
check = np.load(args.prefix + "-check.npz")
module = mx.mod.Module.load(args.prefix, args.epoch, data_names=("data",), label_names=None)
module.bind(data_shapes=[("data", check["data"].shape)], for_training=False)
module.forward(mx.io.DataBatch([mx.nd.array(check["data"])]), is_train=False)
output = module.get_outputs()[0].asnumpy()
difference = float(np.abs(output - check["output"]).max())
agree = float((output.argmax(1) == check["output"].argmax(1)).mean())
print(f"MXNet {mx.__version__} Module.load: max |diff| = {difference:.3g}, same predictions {agree:.3f}")
sys.exit(0 if difference <= args.tolerance else 1)
