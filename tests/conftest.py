"""Suite-wide fixtures and options."""
from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", help="Rewrite golden files from current output.")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def pytest_configure(config: pytest.Config) -> None:
    # telemetry records into the local lake by default: never the user's own lake from a test run
    import os
    import tempfile

    os.environ.setdefault("EVERYPATH_LAKE", tempfile.mkdtemp(prefix="everypath-test-lake-"))
    # nor a selection table the user's own `selector retrain` promoted: tests see the built-in choices
    os.environ.setdefault("EVERYPATH_REGISTRY", tempfile.mkdtemp(prefix="everypath-test-registry-"))


@pytest.fixture(scope="session")
def spark():  # type: ignore[no-untyped-def]
    """One local[2] Spark session per test process (127.0.0.1, UI off): the JVM starts once."""
    from everypath.telemetry.spark import session

    s = session("local[2]", "everypath-tests")
    yield s
    s.stop()
