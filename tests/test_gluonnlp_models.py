"""GluonNLP 0.10.0 on mxtorch against MXNet 1.9.1's results: the cases of tests/gluonnlp_cases.py
(BERT, BERTClassifier, the Transformer, AWD / standard language models with MXNet-saved
parameters, beam search, ONNX export of the hybridized models; vocab, tokenizers, batchify,
samplers), run in a fresh interpreter with one test here per case there.

A fresh interpreter because GluonNLP needs ``mxtorch.install_as_mxnet()`` and its package compat
row turns on numpy aliases (NumPy 1's ragged object arrays, ``np.full`` wrap-around), which
would otherwise hold for every later test of the session.  Needs GluonNLP 0.10.0 (``pip
install gluonnlp==0.10.0``; it builds a Cython extension); without it the module is skipped.
"""
import importlib.util
import os

import pytest

from isolated_cases import case_tests

pytestmark = pytest.mark.long

if importlib.util.find_spec("gluonnlp") is None:
    pytest.skip("GluonNLP 0.10.0 is not installed (pip install gluonnlp==0.10.0)", allow_module_level=True)

CASES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gluonnlp_cases.py")


outcomes, test_gluonnlp_case = case_tests(CASES_FILE, "gluonnlp")
