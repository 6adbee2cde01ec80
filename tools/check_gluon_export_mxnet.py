"""Check that a hybridized mxtorch Gluon network's ``export`` loads in real MXNet 1.9.1
(``mx.mod.Module.load`` and ``gluon.SymbolBlock.imports``) with the same outputs.

  .venv/bin/python tools/check_gluon_export_mxnet.py [--mxnet-python /root/mxref/bin/python]

Exports the test network of tests/test_gluon_block.py (with MXNet-trained parameters from
tests/data/gluon/net.params) to a temporary folder, runs MXNet on the files and compares
within 1e-5.  Prints 'OK <max abs difference>' and exits 0, or exits 1.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "tests"))

MXNET_SIDE = r"""
import sys, numpy as np, mxnet as mx
prefix, x_file, out_file = sys.argv[1:4]
x = mx.nd.array(np.load(x_file))
module = mx.mod.Module.load(prefix, 0, data_names=["data"], label_names=None)
module.bind([("data", x.shape)], for_training=False)
module.forward(mx.io.DataBatch([x]), is_train=False)
block = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
np.savez(out_file, module=module.get_outputs()[0].asnumpy(), block=block(x).asnumpy())
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mxnet-python", default="/root/mxref/bin/python")
    args = parser.parse_args()
    import mxtorch as mx
    from test_gluon_block import DATA, REF, build_net
    net = build_net()
    net.load_parameters(os.path.join(DATA, "net.params"))
    net.hybridize()
    x = REF["net_x"]
    expected = net(mx.nd.array(x)).asnumpy()
    with tempfile.TemporaryDirectory() as folder:
        prefix = os.path.join(folder, "net")
        net.export(prefix)
        np.save(os.path.join(folder, "x.npy"), x)
        result = os.path.join(folder, "out.npz")
        subprocess.run([args.mxnet_python, "-c", MXNET_SIDE, prefix, os.path.join(folder, "x.npy"), result],
                       check=True)
        got = np.load(result)
        worst = max(float(np.abs(got[key] - expected).max()) for key in ("module", "block"))
    if worst > 1e-5:
        print(f"FAIL: MXNet's outputs differ from mxtorch's by {worst}")
        return 1
    print(f"OK {worst}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
