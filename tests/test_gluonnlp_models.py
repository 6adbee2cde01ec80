"""GluonNLP 0.10.0 on mxtorch against MXNet 1.9.1's results: the cases of tests/gluonnlp_cases.py
(BERT, BERTClassifier, the Transformer, AWD / standard language models with MXNet-saved
parameters, beam search, ONNX export of the hybridized models; vocab, tokenizers, batchify,
samplers), run in a fresh interpreter with one test here per case there.

A fresh interpreter because GluonNLP needs ``mxtorch.install_as_mxnet()`` and its package compat
row turns on numpy aliases (NumPy 1's ragged object arrays, ``np.full`` wrap-around), which
would otherwise hold for every later test of the session.  Needs GluonNLP 0.10.0 (``pip
install gluonnlp==0.10.0``; it builds a Cython extension); without it the module is skipped.
"""
import ast
import importlib.util
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

if importlib.util.find_spec("gluonnlp") is None:
    pytest.skip("GluonNLP 0.10.0 is not installed (pip install gluonnlp==0.10.0)", allow_module_level=True)

HERE = os.path.dirname(os.path.abspath(__file__))
CASES_FILE = os.path.join(HERE, "gluonnlp_cases.py")
CASES = [node.name for node in ast.parse(open(CASES_FILE, encoding="utf-8").read()).body
         if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    """``{case function: [(test id, outcome, message), ...]}`` from one pytest run of the cases."""
    report = str(tmp_path_factory.mktemp("gluonnlp") / "junit.xml")
    src = os.path.join(os.path.dirname(HERE), "src")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([src] + ([os.environ["PYTHONPATH"]]
                                                               if os.environ.get("PYTHONPATH") else [])))
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                             "--rootdir", HERE, "--junitxml", report, CASES_FILE], cwd=HERE, env=env,
                            capture_output=True, text=True, timeout=1200)
    assert os.path.exists(report), result.stdout[-3000:] + result.stderr[-3000:]
    found = {}
    for case in ET.parse(report).iter("testcase"):
        name = case.get("name")
        details = [child for child in case if child.tag in ("failure", "error", "skipped")]
        outcome = details[0].tag if details else "passed"
        message = (details[0].get("message") or "") + "\n" + (details[0].text or "")[-4000:] if details else ""
        found.setdefault(name.split("[")[0], []).append((name, outcome, message))
    return found


@pytest.mark.parametrize("case", CASES)
def test_gluonnlp_case(case, outcomes):
    results = outcomes.get(case)
    assert results, f"{case} did not run"
    failed = [f"{name}: {outcome}\n{message}" for name, outcome, message in results if outcome != "passed"]
    if failed and all(outcome == "skipped" for _, outcome, _ in results):
        pytest.skip("; ".join(message.strip().splitlines()[0] for _, _, message in results))
    assert not failed, "\n\n".join(failed)
