"""Test cases that run in a fresh interpreter, reported here one test per case function.

For the libraries built on MXNet (GluonCV, GluonNLP): they need ``mxtorch.install_as_mxnet()``
and their package-compat rows turn on the NumPy aliases, which would otherwise hold for every
later test of the session.  ``run_cases`` runs one cases file with pytest in a subprocess (this
checkout's ``src`` first on the path) and reads its JUnit report; ``check_case`` fails with the
subprocess's messages for a case function any of whose tests failed.
"""
import ast
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def case_names(cases_file):
    """The ``test_*`` functions defined in ``cases_file``, in file order."""
    with open(cases_file, encoding="utf-8") as source:
        tree = ast.parse(source.read())
    return [node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")]


def run_cases(cases_file, report_dir, timeout=1200):
    """``{case function: [(test id, outcome, message), ...]}`` from one pytest run of ``cases_file``."""
    report = os.path.join(str(report_dir), "junit.xml")
    src = os.path.join(os.path.dirname(HERE), "src")
    paths = [src] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                             "--rootdir", HERE, "--junitxml", report, cases_file], cwd=HERE, env=env,
                            capture_output=True, text=True, timeout=timeout)
    assert os.path.exists(report), result.stdout[-3000:] + result.stderr[-3000:]
    found = {}
    for case in ET.parse(report).iter("testcase"):
        name = case.get("name")
        details = [child for child in case if child.tag in ("failure", "error", "skipped")]
        outcome = details[0].tag if details else "passed"
        message = (details[0].get("message") or "") + "\n" + (details[0].text or "")[-4000:] if details else ""
        found.setdefault(name.split("[")[0], []).append((name, outcome, message))
    return found


def check_case(outcomes, case):
    """Fail unless every test of case function ``case`` passed (skip when all were skipped)."""
    results = outcomes.get(case)
    assert results, f"{case} did not run"
    failed = [f"{name}: {outcome}\n{message}" for name, outcome, message in results if outcome != "passed"]
    if failed and all(outcome == "skipped" for _, outcome, _ in results):
        pytest.skip("; ".join(message.strip().splitlines()[0] for _, _, message in results))
    assert not failed, "\n\n".join(failed)


def case_tests(cases_file, label):
    """``(outcomes fixture, test function)`` for a test module that reports ``cases_file``'s
    case functions one test each: assign them to module names ``outcomes`` and ``test_*``."""
    @pytest.fixture(scope="module")
    def outcomes(tmp_path_factory):
        return run_cases(cases_file, tmp_path_factory.mktemp(label))

    @pytest.mark.parametrize("case", case_names(cases_file))
    def test_case(case, outcomes):
        check_case(outcomes, case)

    return outcomes, test_case
