"""The imports family's tests share one cache folder per test session (compiled Java helpers and the
knowledge base): under the session's pytest temporary root, shared by the xdist workers (a file lock
makes them build it once). A cache folder set by the caller (SEMBENCH_CACHE_DIR) is kept."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("SEMBENCH_CACHE_DIR"):
        return
    factory = getattr(config, "_tmp_path_factory", None)
    if factory is None:
        return
    base = factory.getbasetemp()
    # xdist workers get <session temp>/popen-gwN: their parent is the session's, shared by all workers
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    path = root / "sembench-cache"
    path.mkdir(parents=True, exist_ok=True)
    os.environ["SEMBENCH_CACHE_DIR"] = str(path)


@pytest.fixture(scope="session")
def kb():
    from core.families.imports.kb import load

    return load()


@pytest.fixture(scope="session")
def family():
    from core.family import get_family

    return get_family("imports")
