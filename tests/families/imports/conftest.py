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


@pytest.fixture(scope="session")
def _tool_cache(tmp_path_factory):
    from core.tools import ToolCache

    return ToolCache(tmp_path_factory.mktemp("tool-cache") / "log.db")


@pytest.fixture(autouse=True)
def _private_tool_cache(_tool_cache, monkeypatch):
    """Compile results are cached in a test database, never in the user's log database."""
    import core.tools.cache as cache

    monkeypatch.setattr(cache, "_CACHE", _tool_cache)
