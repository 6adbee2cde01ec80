"""Load an exported model (PREFIX-symbol.json, PREFIX-0000.params) with real MXNet 1.9.1's
mx.mod.Module and compare its outputs on PREFIX-check.npz's inputs with the outputs mxtorch
recorded there.  Run with the reference venv from outside the repository root:

    cd /tmp && /root/mxref/bin/python /path/to/tools/check_export_mxnet.py /path/to/runs/resnet18-digits

Prints the largest absolute and relative differences and exits non-zero unless every output
agrees within --tolerance (1e-5) times ``max(1, largest |output|)``: float32 logits of magnitude
~100 computed by two convolution implementations (MXNet's oneDNN, PyTorch's) differ by ~1e-4
absolute while agreeing to ~1e-6 relative to the output scale, so a purely absolute 1e-5 bound
does not fit such outputs.
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
relative = difference / max(float(np.abs(check["output"]).max()), 1e-30)
agree = float((output.argmax(1) == check["output"].argmax(1)).mean())
close = difference <= args.tolerance * max(1.0, float(np.abs(check["output"]).max()))
print(f"MXNet {mx.__version__} Module.load: max |diff| = {difference:.3g} (relative to the largest output "
      f"{relative:.3g}), same predictions {agree:.3f}, within {args.tolerance} of the output scale: {close}")
sys.exit(0 if close else 1)
