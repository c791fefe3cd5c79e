"""Shared fixtures of the test suite."""

import sys
from pathlib import Path

import numpy as np
import pytest

#: ``../shared/data`` next to the repository: real data that tests may read but the
#: repository must not contain. Tests using it skip when it is absent.
SHARED_DATA = Path(__file__).parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data():
    """Path of the shared data folder; skips the test when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture
def rng():
    """A freshly seeded generator, so that every test sees the same numbers."""
    return np.random.default_rng(0)


@pytest.fixture
def plt():
    """pyplot on the headless Agg backend (skips without matplotlib); every figure is closed
    after the test."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from matplotlib import pyplot

    yield pyplot
    pyplot.close("all")


@pytest.fixture(params=["pyarrow", "csv module"])
def parser(request, monkeypatch):
    """Each test runs with pyarrow's parser and with the csv module's (the table readers'
    tests)."""
    if request.param == "pyarrow":
        pytest.importorskip("pyarrow")
    else:
        monkeypatch.setitem(sys.modules, "pyarrow", None)
    return request.param
