"""``from mxnet.<module> import *`` gives the names it gave under MXNet 1.9.1 (MXNet's own tests
use ``ctypes`` / ``c_str`` / ``check_call`` that came through ``from mxnet.operator import *``)."""
import ctypes
import importlib

import pytest

from mxtorch.star_exports import MXNET_STAR_NAMES

# names that cannot exist here: MXNet's NumPy-front-end Symbol, the optional requests / scipy.stats
# modules MXNet's test_utils imported, and the C-handle constructor of sparse arrays
NOT_PROVIDED = {"test_utils": {"np_symbol", "requests", "ss"}, "ndarray.sparse": {"_ndarray_cls"}}


@pytest.mark.parametrize("module", sorted(MXNET_STAR_NAMES))
def test_star_import_gives_mxnet_names(module):
    namespace = {}
    exec(f"from mxtorch.{module} import *", namespace)
    missing = set(MXNET_STAR_NAMES[module]) - set(namespace) - NOT_PROVIDED.get(module, set())
    assert not missing, f"from mxnet.{module} import * lacks {sorted(missing)}"


def test_star_imported_names_are_the_real_objects():
    namespace = {}
    exec("from mxtorch.operator import *", namespace)
    assert namespace["ctypes"] is ctypes and namespace["c_str"]("ab").value == b"ab"
    assert namespace["CustomOp"] is importlib.import_module("mxtorch.operator").CustomOp
    exec("from mxtorch.ndarray.sparse import *", namespace)
    assert namespace["sin"](namespace["csr_matrix"](([1.0], [0], [0, 1, 1]), shape=(2, 2))).stype == "csr"
    exec("from mxtorch.io import *", namespace)
    assert namespace["io"].NDArrayIter is namespace["NDArrayIter"]
