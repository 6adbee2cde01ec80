"""GluonCV 0.10.5's detectors (YOLOv3, CenterNet) exported to ONNX
against MXNet 1.9.1's outputs: the cases of tests/gluoncv_onnx_cases.py, run in a fresh
interpreter (see isolated_cases), one test here per case function there.  Needs GluonCV (the
``test`` extra) and onnx / onnxruntime (the ``onnx`` extra)."""
import os

import pytest

from isolated_cases import case_tests

pytestmark = pytest.mark.long

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

CASES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gluoncv_onnx_cases.py")


outcomes, test_gluoncv_onnx_case = case_tests(CASES_FILE, "gluoncv_onnx")
