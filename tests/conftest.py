"""Shared test set-up: fresh automatic names per test, fixed seeds."""
import numpy as np
import pytest

import mxtorch as mx


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
