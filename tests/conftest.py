"""Shared test set-up: fresh automatic names per test, fixed seeds; one intra-op thread per
worker when pytest-xdist runs the suite on several processes (README's test command: one
worker per core, so the cores are shared by processes, not by threads of one)."""
import os

import numpy as np
import pytest
import torch

import mxtorch as mx

if os.environ.get("PYTEST_XDIST_WORKER"):
    # the processes the tests start (isolated cases, launcher workers) inherit it
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))


def pytest_configure(config):
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        _compile_sources()
    config.addinivalue_line("markers", "long: a test file of a minute or more (model cases, training runs); "
                                       "collected first, so that its worker starts it first")
    if hasattr(config.option, "loadscopereorder"):
        # xdist would hand out the files with the most tests first (the long files have one or
        # two): keep the collection order, long files first
        config.option.loadscopereorder = False


def _compile_sources():
    """Write the bytecode of mxtorch's and the tests' sources once, before the workers start.
    About a hundred tests start fresh interpreters (``mxtorch run``, isolated cases, launcher
    workers); where bytecode writing is off (``PYTHONDONTWRITEBYTECODE``, as on some CI
    machines) each would otherwise compile all 200 modules again (0.6 s each time).  Up-to-date
    files are skipped; a read-only checkout only loses the speed-up."""
    import compileall
    here = os.path.dirname(os.path.abspath(__file__))
    for folder in (os.path.dirname(os.path.abspath(mx.__file__)), here):
        compileall.compile_dir(folder, quiet=2, workers=1)


def pytest_collection_modifyitems(items):
    """The items of ``long``-marked modules first (stable within both groups): xdist hands
    files out in collection order, so a long file started last would end the run alone."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


@pytest.fixture(autouse=True)
def fresh_names_and_seed():
    """Each test starts with MXNet's automatic name counters at 0 and seeded generators."""
    mx.random.seed(1234)
    with mx.name.NameManager():
        yield


@pytest.fixture
def numpy_semantics():
    """NumPy shape and array semantics (``npx.set_np()``) for one test, reset after it."""
    from mxtorch import npx
    npx.set_np()
    try:
        yield
    finally:
        npx.reset_np()
