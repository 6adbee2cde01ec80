"""Writes tests/data/install/mxnet_ndarray.pkl with the real MXNet 1.9.1 (run with ~/mxref/bin/python).

    ~/mxref/bin/python tools/gen_install_reference.py [OUTPUT_FOLDER]   # default tests/data/install

A pickle of ``{'epoch': 3, 'weight': mx.nd.array([[1, 2], [3, 4]])}`` as MXNet writes it (the
class is named ``mxnet.ndarray.ndarray.NDArray``), which tests/test_install_as_mxnet.py loads
under ``install_as_mxnet()``.  Protocol 2, as the committed file (weight first, then epoch).
"""
import os
import pickle
import sys

import mxnet as mx

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                                         "data", "install")
os.makedirs(OUT, exist_ok=True)
with open(os.path.join(OUT, "mxnet_ndarray.pkl"), "wb") as stream:
    pickle.dump({"weight": mx.nd.array([[1, 2], [3, 4]]), "epoch": 3}, stream, protocol=2)
print("written", OUT)
