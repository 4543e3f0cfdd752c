"""specs tests share one tool cache per test process (a temporary database), so a program proved by one
test is not proved again by the next in the same worker."""

from __future__ import annotations

import pytest

from core.tools import configure


@pytest.fixture(scope="session", autouse=True)
def _specs_tool_cache(tmp_path_factory):
    configure(tmp_path_factory.mktemp("specs-cache") / "tools.db")
    yield
