"""Reference outputs of one GluonCV 0.10.5 model per family, made with MXNet 1.9.1.

Run with a Python that has mxnet 1.9.1 and gluoncv 0.10.5 (not mxtorch)::

    ~/mxref/bin/python tools/gen_gluoncv_reference.py [NAME ...]

For each case of ``tests/gluoncv_cases.py``: build the network with ``pretrained=False``
(and the case's keyword arguments), fill its parameters with ``fill_parameters`` (values
from the parameter names), set the BatchNorm moving statistics to those of the input
(``calibrate_batchnorm``; stored as ``stat:NAME``, the only parameters stored), run the inference forward
imperatively on the case's fixed input and write the outputs to
``tests/data/gluoncv/NAME.npz`` (``out0``, ``out1``, ... in the order of the flattened
outputs).  MXNet runs with ``MXNET_MKLDNN_ENABLED=0`` (its oneDNN build fails to copy
I3D's 5-D outputs to NumPy).  tests/test_gluoncv_zoo.py repeats this under mxtorch and compares.
"""
import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from gluoncv_cases import CASES, calibrate_batchnorm, fill_parameters, flatten_outputs, inputs_for  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "data", "gluoncv")


def main(names):
    warnings.simplefilter("ignore")
    # MXNet's oneDNN build cannot copy some 5-D outputs (I3D) to NumPy ("to.IsDefaultData()"):
    # the reference numbers come from its native CPU kernels
    os.environ["MXNET_MKLDNN_ENABLED"] = "0"
    import mxnet as mx
    assert mx.__version__ == "1.9.1", mx.__file__
    from gluoncv import model_zoo
    os.makedirs(OUT, exist_ok=True)
    for name in names or list(CASES):
        kwargs, _ = CASES[name]
        net = model_zoo.get_model(name, pretrained=False, **kwargs)
        inputs = inputs_for(name)
        fill_parameters(net, mx, inputs)
        statistics = calibrate_batchnorm(net, mx, inputs)
        outputs = flatten_outputs(net(*[mx.nd.array(x) for x in inputs]))
        arrays = {f"out{index}": out.asnumpy() for index, out in enumerate(outputs)}
        arrays.update({f"stat:{key}": value for key, value in statistics.items()})
        np.savez_compressed(os.path.join(OUT, f"{name}.npz"), **arrays)
        print(name, [a.shape for a in arrays.values()])


if __name__ == "__main__":
    main(sys.argv[1:])
