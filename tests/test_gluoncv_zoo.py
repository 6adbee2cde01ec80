"""GluonCV 0.10.5's model zoo on mxtorch against MXNet 1.9.1's outputs: the cases of
tests/gluoncv_zoo_cases.py (one network per family, imperative and exported to ONNX), run in a
fresh interpreter (see isolated_cases: GluonCV needs ``install_as_mxnet()``), one test here per
case function there.  GluonCV is a test dependency (the ``test`` extra)."""
import os

import pytest

from isolated_cases import case_tests

pytestmark = pytest.mark.long

CASES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gluoncv_zoo_cases.py")


outcomes, test_gluoncv_zoo_case = case_tests(CASES_FILE, "gluoncv")
