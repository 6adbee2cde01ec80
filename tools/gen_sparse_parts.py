"""Write tests/data/sparse/explicit_parts.params with real MXNet 1.9.1 (run under ~/mxref):
a csr array with an explicit zero and a row_sparse array with an all-zero stored row, so
tests/test_sparse_parts.py can check that mxtorch keeps the stored parts as MXNet does."""
import os
import sys

import mxnet as mx

target = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "sparse", "explicit_parts.params")
csr = mx.nd.sparse.csr_matrix(([1.0, 0.0, 3.0], [0, 2, 1], [0, 2, 2, 3]), shape=(3, 4))
rsp = mx.nd.sparse.row_sparse_array(([[0.0, 0.0], [1.0, 2.0]], [1, 3]), shape=(5, 2))
mx.nd.save(target, {"csr": csr, "rsp": rsp})
print("wrote", os.path.abspath(target), file=sys.stderr)
